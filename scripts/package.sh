#!/usr/bin/env bash
# Builds the Debian package zkpipe_<version>_<arch>.deb from a build folder
# that is already built: `cmake --install` into a staging root under the
# prefix /usr, the maintainer files, and dpkg-deb. Nothing is compiled.
#
# usage: scripts/package.sh [BUILD_DIR [OUT_DIR]]   (default: build, .)
#
# The package holds the program, libzkpipe (.a, .so with its soname links),
# zkpipe.h, zkpipe.pc, the docs, the systemd unit and its sysusers file, and
# /etc/zkpipe/zkpipe.conf as a conffile. Its Depends come from the shared
# libraries the binaries need (dpkg-shlibdeps; where that cannot answer,
# the packages that hold those libraries, from dpkg -S). Needs dpkg-deb
# (dpkg-dev for dpkg-shlibdeps); no root: files are owned by root in the
# archive through dpkg-deb --root-owner-group.
# ZP_MAINTAINER overrides the Maintainer field; ZP_DEB_COMPRESS picks the
# compression: xz (default, smallest), gzip (fast) or none (fastest: the
# tests use it, as xz takes minutes on the 300 MiB of a CUDA build).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
out=$(mkdir -p "${2:-.}" && cd "${2:-.}" && pwd)
cache=$build/CMakeCache.txt
[ -f "$cache" ] || { echo "package.sh: $build is not a CMake build folder" >&2; exit 2; }
command -v dpkg-deb >/dev/null || { echo "package.sh: dpkg-deb not found" >&2; exit 2; }
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$cache")
[ -n "$version" ] || { echo "package.sh: no CMAKE_PROJECT_VERSION in $cache" >&2; exit 2; }
arch=$(dpkg --print-architecture)
maintainer=${ZP_MAINTAINER:-zkpipe maintainers <zkpipe@localhost>}
case ${ZP_DEB_COMPRESS:-xz} in
  xz) compress=(-Zxz) ;;
  gzip) compress=(-Zgzip -z1) ;;
  none) compress=(-Znone) ;;
  *) echo "package.sh: ZP_DEB_COMPRESS is xz, gzip or none, not '$ZP_DEB_COMPRESS'" >&2; exit 2 ;;
esac

stage=$(mktemp -d /tmp/zp_package_XXXXXX)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
DESTDIR=$root cmake --install "$build" --prefix /usr >"$stage/install.log" 2>&1 ||
  { cat "$stage/install.log" >&2; echo "package.sh: cmake --install failed" >&2; exit 1; }
[ -x "$root/usr/bin/zkpipe" ] || { echo "package.sh: the install has no usr/bin/zkpipe" >&2; exit 1; }
# Debian's place for the licence.
cp "$here/LICENSE" "$root/usr/share/doc/zkpipe/copyright"

# ---- Depends: what the ELF files need ----
mapfile -t elves < <(find "$root" -type f \( -name zkpipe -o -name 'libzkpipe.so.*' \) |
                     while read -r f; do file -b "$f" 2>/dev/null | grep -q '^ELF' && echo "$f"; done)
[ "${#elves[@]}" -gt 0 ] || elves=("$root/usr/bin/zkpipe")
depends=""
if command -v dpkg-shlibdeps >/dev/null; then
  # dpkg-shlibdeps reads debian/control from the current folder; the
  # package's own library (libzkpipe.so.0) is found in the staging root.
  mkdir -p "$stage/src/debian"
  printf 'Source: zkpipe\n\nPackage: zkpipe\nArchitecture: any\n' >"$stage/src/debian/control"
  libdir=$(dirname "$(find "$root" -name 'libzkpipe.so.0' | head -n 1)")
  if (cd "$stage/src" && dpkg-shlibdeps -O -l"$libdir" -xzkpipe "${elves[@]}") \
       >"$stage/shlibdeps" 2>"$stage/shlibdeps.err"; then
    depends=$(sed -n 's/^shlibs:Depends=//p' "$stage/shlibdeps")
  fi
fi
if [ -z "$depends" ]; then
  # The packages that hold the libraries the binaries need, unversioned.
  depends=$(for f in "${elves[@]}"; do objdump -p "$f" | awk '/NEEDED/ {print $2}'; done |
    sort -u | grep -v '^libzkpipe' | while read -r lib; do
      path=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')
      [ -n "$path" ] && dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1
    done | sort -u | paste -sd, | sed 's/,/, /g')
fi

# ---- the control files ----
mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
{
  echo "Package: zkpipe"
  echo "Version: $version"
  echo "Architecture: $arch"
  echo "Maintainer: $maintainer"
  echo "Installed-Size: $size"
  [ -n "$depends" ] && echo "Depends: $depends"
  echo "Section: science"
  echo "Priority: optional"
  echo "Description: Groth16 prover for BLS12-381 on CPUs and NVIDIA GPUs"
  echo " zkpipe proves Groth16 circuits (snarkjs .zkey, Filecoin .params) on the"
  echo " CPU and on NVIDIA GPUs, as a command-line program, a C library"
  echo " (libzkpipe, zkpipe.h, pkg-config zkpipe) and a daemon (zkpipe serve,"
  echo " zkpipe.service) that holds keys on the GPUs and queues proof jobs."
} >"$root/DEBIAN/control"
if [ -f "$root/etc/zkpipe/zkpipe.conf" ]; then
  echo /etc/zkpipe/zkpipe.conf >"$root/DEBIAN/conffiles"
fi
if [ -f "$root/usr/lib/systemd/system/zkpipe.service" ]; then
  install -m 0755 "$here/packaging/postinst" "$root/DEBIAN/postinst"
  install -m 0755 "$here/packaging/prerm" "$root/DEBIAN/prerm"
  install -m 0755 "$here/packaging/postrm" "$root/DEBIAN/postrm"
fi

deb=$out/zkpipe_${version}_${arch}.deb
dpkg-deb --root-owner-group "${compress[@]}" --build "$root" "$deb" >/dev/null
echo "$deb"
