#!/usr/bin/env bash
# cmake --install end to end (run from tests/ as `bash install.test.sh
# /path/to/build/zkpipe`; the build folder is the program's):
#  - the program, libzkpipe.a, libzkpipe.so with its soname links, zkpipe.h,
#    zkpipe.pc, the docs, the systemd unit and the config file land under a
#    fresh prefix (a second install keeps an edited config file);
#  - the shared library needs no CUDA runtime from its users (it carries
#    the static one);
#  - examples/prove.c builds against the installed library through
#    pkg-config, shared and static, and each build proves the multiplier
#    fixture; the proof verifies with the installed zkpipe;
#  - the installed zkpipe passes its selftest.
# Exit 77 (skipped) when pkg-config or a C compiler is missing.
set -u
ZKPIPE=${1:?usage: install.test.sh /path/to/build/zkpipe}
case $ZKPIPE in /*) ;; *) ZKPIPE=$PWD/$ZKPIPE ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(dirname "$ZKPIPE")
FIX=$HERE/interop/fixtures/multiplier
CC=${CC:-cc}

command -v pkg-config >/dev/null 2>&1 || { echo "pkg-config not found: skipped"; exit 77; }
command -v "$CC" >/dev/null 2>&1 || { echo "$CC not found: skipped"; exit 77; }
[ -f "$BUILD/CMakeCache.txt" ] || { echo "$BUILD is not a CMake build folder"; exit 2; }

T=$(mktemp -d /tmp/zp_install_XXXXXX)
trap 'rm -rf "$T"' EXIT
P=$T/prefix
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cache() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt"; }

cmake --install "$BUILD" --prefix "$P" >"$T/install.log" 2>&1 ||
  { cat "$T/install.log"; echo "FAIL: cmake --install"; exit 1; }
LIB=$P/$(cache CMAKE_INSTALL_LIBDIR)
VERSION=$(cache CMAKE_PROJECT_VERSION)

# ---- the files, where they belong ----
for f in bin/zkpipe include/zkpipe.h share/doc/zkpipe/README.md share/doc/zkpipe/LICENSE \
         share/doc/zkpipe/architecture.md; do
  [ -f "$P/$f" ] || fail "$f not installed"
done
for f in libzkpipe.a libzkpipe.so libzkpipe.so.0 "libzkpipe.so.$VERSION" pkgconfig/zkpipe.pc; do
  [ -e "$LIB/$f" ] || fail "${LIB#"$P"/}/$f not installed"
done
[ -x "$P/bin/zkpipe" ] || fail "bin/zkpipe is not executable"
for f in "$LIB"/libzkpipe_*; do
  [ -e "$f" ] && fail "internal library ${f##*/} installed"
done
# The systemd unit and its user, when the program has the daemon.
UNIT=$P/lib/systemd/system/zkpipe.service
if [ -f "$BUILD/libzkpipe_server.a" ]; then
  [ -f "$P/lib/sysusers.d/zkpipe.conf" ] || fail "lib/sysusers.d/zkpipe.conf not installed"
  # The config file: under the prefix (not /usr), and an edited one is kept.
  [ -f "$P/etc/zkpipe/zkpipe.conf" ] || fail "etc/zkpipe/zkpipe.conf not installed"
  echo "# edited" >>"$P/etc/zkpipe/zkpipe.conf"
  cmake --install "$BUILD" --prefix "$P" >/dev/null 2>&1
  grep -qx "# edited" "$P/etc/zkpipe/zkpipe.conf" || fail "a second install replaced etc/zkpipe/zkpipe.conf"
  grep -q "^ExecStart=$P/bin/zkpipe serve --listen unix:///run/zkpipe/zkpipe.sock " "$UNIT" ||
    fail "lib/systemd/system/zkpipe.service does not start $P/bin/zkpipe serve"
else
  [ -e "$UNIT" ] && fail "zkpipe.service installed for a program without the daemon"
fi
dyn=$(readelf -d "$LIB/libzkpipe.so.$VERSION" 2>&1)
echo "$dyn" | grep -q 'SONAME.*\[libzkpipe\.so\.0\]' || fail "soname is not libzkpipe.so.0"
echo "$dyn" | grep -q 'NEEDED.*cudart' && fail "libzkpipe.so needs a shared cudart"
nm -D --defined-only "$LIB/libzkpipe.so.$VERSION" | grep -q ' cuda[A-Z]' &&
  fail "libzkpipe.so exports the CUDA runtime's symbols"

# ---- examples/prove.c against the installed library ----
export PKG_CONFIG_PATH=$LIB/pkgconfig
[ "$(pkg-config --modversion zkpipe)" = "$VERSION" ] || fail "pkg-config --modversion is not $VERSION"
# The proof is 192 bytes; it is random (r, s), so it is checked by verifying
# it, with the fixture's public inputs.
check_run() { # NAME [env...] PROGRAM
  local name=$1; shift
  if ! env "$@" "$FIX/circuit.zkey" "$FIX/w.wtns" >"$T/$name.out" 2>"$T/$name.err"; then
    fail "$name did not prove"; cat "$T/$name.err"; return
  fi
  local hex; hex=$(sed -n 's/^proof \([0-9a-f]\{384\}\)$/\1/p' "$T/$name.out")
  [ -n "$hex" ] || { fail "$name printed no 192-byte proof"; cat "$T/$name.out"; return; }
  printf '%b' "$(echo "$hex" | sed 's/../\\x&/g')" >"$T/$name.bin"
  "$P/bin/zkpipe" verify "$FIX/vk.json" "$FIX/public.json" "$T/$name.bin" >/dev/null 2>&1 ||
    fail "$name's proof does not verify"
}
if $CC -Wall -Wextra -Werror -o "$T/prove_shared" "$HERE/../examples/prove.c" \
     $(pkg-config --cflags --libs zkpipe) 2>"$T/cc_shared.err"; then
  readelf -d "$T/prove_shared" | grep -q 'NEEDED.*\[libzkpipe\.so\.0\]' ||
    fail "prove_shared does not link libzkpipe.so.0"
  check_run prove_shared LD_LIBRARY_PATH="$LIB" "$T/prove_shared"
else
  cat "$T/cc_shared.err"; fail "examples/prove.c does not build against libzkpipe.so"
fi
# Static: pkg-config --static adds what libzkpipe.a needs; -l:libzkpipe.a
# picks the archive where -lzkpipe would pick the shared library.
libs=$(pkg-config --static --libs zkpipe)
if $CC -Wall -Wextra -Werror -o "$T/prove_static" "$HERE/../examples/prove.c" \
     $(pkg-config --cflags zkpipe) ${libs/-lzkpipe/-l:libzkpipe.a} 2>"$T/cc_static.err"; then
  readelf -d "$T/prove_static" | grep -q 'NEEDED.*libzkpipe' &&
    fail "prove_static needs libzkpipe.so"
  check_run prove_static "$T/prove_static"
else
  cat "$T/cc_static.err"; fail "examples/prove.c does not build against libzkpipe.a"
fi

# ---- the installed program ----
"$P/bin/zkpipe" selftest >"$T/selftest.out" 2>&1 || { cat "$T/selftest.out"; fail "installed zkpipe selftest"; }

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "install: every check passed"
