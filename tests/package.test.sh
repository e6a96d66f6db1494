#!/usr/bin/env bash
# The Debian package (scripts/package.sh) end to end, from a build folder
# that is already built (run from tests/ as `bash package.test.sh
# /path/to/build/zkpipe`):
#  - zkpipe_<version>_<arch>.deb is built; its control file names the
#    package, version and architecture, and Depends on libc6 at least;
#  - it holds the program, libzkpipe (.a, .so, soname link), zkpipe.h,
#    zkpipe.pc, the docs and copyright, owned by root; with the daemon also
#    the unit, its sysusers file, /etc/zkpipe/zkpipe.conf as a conffile and
#    maintainer scripts that are valid sh;
#  - the unit runs /usr/bin/zkpipe serve as user zkpipe with the hardening,
#    socket and state directories, restart, stop time and reload;
#  - unpacked with dpkg -x into a throwaway root, its zkpipe passes
#    selftest and doctor, proves the demo's circuit (a TEST-ONLY key from
#    zkpipe setup, prove, verify) and reads the packaged config file.
# Exit 77 (skipped) only when dpkg-deb is missing.
set -u
ZKPIPE=${1:?usage: package.test.sh /path/to/build/zkpipe}
case $ZKPIPE in /*) ;; *) ZKPIPE=$PWD/$ZKPIPE ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(dirname "$ZKPIPE")
command -v dpkg-deb >/dev/null 2>&1 || { echo "dpkg-deb not found: skipped"; exit 77; }

T=$(mktemp -d /tmp/zp_package_test_XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
passes=0
ok() { echo "ok   $1"; passes=$((passes + 1)); }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { # name command...
  local name=$1
  shift
  if "$@" >/dev/null 2>&1; then ok "$name"; else fail "$name"; fi
}

VERSION=$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
ARCH=$(dpkg --print-architecture)
DEB=$T/zkpipe_${VERSION}_${ARCH}.deb
# Uncompressed: xz would spend minutes on a CUDA build's binaries.
if ! ZP_DEB_COMPRESS=none bash "$HERE/../scripts/package.sh" "$BUILD" "$T" >"$T/package.log" 2>&1; then
  cat "$T/package.log"
  echo "FAIL scripts/package.sh"
  exit 1
fi
check "package.sh builds zkpipe_${VERSION}_${ARCH}.deb" test -f "$DEB"
check "package.sh prints the package's path" grep -qx "$DEB" "$T/package.log"

# ---- the control file ----
dpkg-deb -f "$DEB" >"$T/control"
check "Package: zkpipe" grep -qx "Package: zkpipe" "$T/control"
check "Version: $VERSION" grep -qx "Version: $VERSION" "$T/control"
check "Architecture: $ARCH" grep -qx "Architecture: $ARCH" "$T/control"
check "Depends names libc6" grep -q "^Depends:.*libc6" "$T/control"
check "Installed-Size is set" grep -q "^Installed-Size: [1-9]" "$T/control"

# ---- the files ----
dpkg-deb -c "$DEB" >"$T/contents"
has() { grep -q " \./$1\( ->.*\)\?$" "$T/contents"; }
lacks() { ! has "$1"; } # check runs its command: a "!" there would be a command name
for f in usr/bin/zkpipe usr/include/zkpipe.h usr/lib/libzkpipe.a "usr/lib/libzkpipe.so.$VERSION" \
         usr/lib/libzkpipe.so.0 usr/lib/pkgconfig/zkpipe.pc usr/share/doc/zkpipe/copyright \
         usr/share/doc/zkpipe/README.md usr/share/doc/zkpipe/engine.md; do
  check "holds /$f" has "$f"
done
check "every file is owned by root" test -z "$(awk '$2 != "root/root"' "$T/contents")"
check "nothing under /usr/local or the build folder" \
  test -z "$(grep -e ' \./usr/local' -e "$BUILD" "$T/contents")"
DAEMON=no
[ -f "$BUILD/libzkpipe_server.a" ] && DAEMON=yes
mkdir -p "$T/ctl"
dpkg-deb -e "$DEB" "$T/ctl"
if [ $DAEMON = yes ]; then
  check "holds the unit" has usr/lib/systemd/system/zkpipe.service
  check "holds its sysusers file" has usr/lib/sysusers.d/zkpipe.conf
  check "holds /etc/zkpipe/zkpipe.conf" has etc/zkpipe/zkpipe.conf
  check "zkpipe.conf is a conffile" grep -qx /etc/zkpipe/zkpipe.conf "$T/ctl/conffiles"
  for s in postinst prerm postrm; do
    check "$s is executable, valid sh" sh -c "test -x '$T/ctl/$s' && sh -n '$T/ctl/$s'"
  done
  check "postinst makes the user with systemd-sysusers" grep -q "systemd-sysusers zkpipe.conf" \
    "$T/ctl/postinst"
else
  check "no unit without the daemon" lacks usr/lib/systemd/system/zkpipe.service
fi

# ---- unpacked into a throwaway root ----
R=$T/root
dpkg-deb -x "$DEB" "$R"
Z=$R/usr/bin/zkpipe
export LD_LIBRARY_PATH=$R/usr/lib
if [ $DAEMON = yes ]; then
  U=$R/usr/lib/systemd/system/zkpipe.service
  for line in "ExecStart=/usr/bin/zkpipe serve --listen unix:///run/zkpipe/zkpipe.sock --state-dir /var/lib/zkpipe/state \$ZKPIPE_OPTS" \
              "User=zkpipe" "ExecReload=/bin/kill -HUP \$MAINPID" "RuntimeDirectory=zkpipe" \
              "StateDirectory=zkpipe" "Restart=on-failure" "ProtectSystem=strict" \
              "ProtectHome=yes" "NoNewPrivileges=yes" "PrivateTmp=yes" "LimitMEMLOCK=infinity"; do
    check "unit: $line" grep -qxF "$line" "$U"
  done
  check "unit: TimeoutStopSec covers the drain" grep -qE '^TimeoutStopSec=[0-9]+$' "$U"
  check "sysusers: user zkpipe, home /var/lib/zkpipe" \
    grep -qE '^u zkpipe .* /var/lib/zkpipe$' "$R/usr/lib/sysusers.d/zkpipe.conf"
  "$Z" serve --print-config --config "$R/etc/zkpipe/zkpipe.conf" --listen "unix://$T/z.sock" \
    --key a=synth:porep:8 >"$T/conf.out" 2>&1
  check "the packaged zkpipe reads the packaged zkpipe.conf" grep -q "^key = a=synth:porep:8" \
    "$T/conf.out"
fi
check "the packaged zkpipe runs" \
  sh -c "'$Z' version | grep -q zkpipe"
"$Z" selftest >"$T/selftest.out" 2>&1
check "zkpipe selftest from the package" test $? = 0
"$Z" doctor >"$T/doctor.out" 2>&1
check "zkpipe doctor from the package" test $? = 0
# The demo (scripts/demo.sh) at a size for CI: a TEST-ONLY key, a proof
# with a witness generated in process, and an independent verification.
W=$T/demo
mkdir -p "$W"
C=synth:porep:10
if "$Z" setup "$C" --zpk "$W/key.zpk" --vk-json "$W/vk.json" >"$W/setup.out" 2>&1 &&
   "$Z" prove --circuit "$C" --key "$W/key.zpk" --seed 7 --proof-bin "$W/proof.bin" \
     "$W/proof.json" "$W/public.json" >"$W/prove.out" 2>&1 &&
   "$Z" verify "$W/vk.json" "$W/public.json" "$W/proof.json" >"$W/verify.out" 2>&1; then
  ok "a demo proof of $C from the package verifies"
else
  cat "$W"/*.out
  fail "a demo proof of $C from the package"
fi
check "the proof is 192 bytes" test "$(stat -c %s "$W/proof.bin" 2>/dev/null)" = 192

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
