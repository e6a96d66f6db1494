# The bellperson round trip, end to end (run from tests/ as
# `bash bellperson.test.sh /path/to/zkpipe`):
#  1. test_params (built beside zkpipe, in tests/) with --bp-out: a
#     tau-convention test key for synth:porep:11 -> k.params and k.vk ->
#     read back with the circuit -> prove -> 192-byte proof -> verify
#     against k.vk; it leaves the files here;
#  2. `zkpipe import` of k.params: with the right circuit, a wrong one, and
#     none (refused);
#  3. js/proof192_noble.mjs: @noble/curves decodes the 192-byte proof and
#     the .vk, compares the points with zkpipe's JSON and checks the pairing
#     equation itself;
#  4. `zkpipe verify` of the same proof in snarkjs JSON, when the CLI has it.
# Exit 77 (skipped) when node, @noble/curves or the test binary is missing.
set -u
ZKPIPE=${1:?usage: bellperson.test.sh /path/to/zkpipe}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(dirname "$ZKPIPE")/tests/test_params

command -v node >/dev/null 2>&1 || { echo "node not found: skipped"; exit 77; }
[ -d "$HERE/js/node_modules/@noble/curves" ] || { echo "@noble/curves not installed (cd tests/js && npm ci): skipped"; exit 77; }
[ -x "$BIN" ] || { echo "$BIN not built: skipped"; exit 77; }

T=$(mktemp -d /tmp/zp_bp_XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# 1. setup -> .params/.vk -> read -> prove -> 192 bytes -> verify (in C)
if (cd "$HERE" && "$BIN" --bp-out "$T"); then ok "C round trip (test_params --bp-out)"
else bad "C round trip (test_params --bp-out)"; fi
for f in k.params k.vk proof.bin proof.json public.json vk.json; do
  [ -s "$T/$f" ] || bad "missing $f"
done
[ "$(stat -c %s "$T/proof.bin" 2>/dev/null)" = 192 ] && ok "proof.bin is 192 bytes" || bad "proof.bin size"

# 2. zkpipe import of the .params
if "$ZKPIPE" import "$T/k.params" "$T/k.zpk" --circuit synth:porep:11 --threads 2 >"$T/import.out" 2>&1; then
  ok "import k.params --circuit synth:porep:11"
  grep -q "bellperson .params, tau" "$T/import.out" || bad "import does not name the convention"
else
  cat "$T/import.out"; bad "import k.params --circuit synth:porep:11"
fi
"$ZKPIPE" import "$T/k.params" "$T/bad.zpk" --circuit synth:chain:8 >"$T/wrong.out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "not the circuit of these parameters" "$T/wrong.out" && [ ! -e "$T/bad.zpk" ]; then
  ok "import with the wrong circuit is refused (exit 2, no file)"
else cat "$T/wrong.out"; bad "import with the wrong circuit (rc $rc)"; fi
"$ZKPIPE" import "$T/k.params" "$T/bad.zpk" >"$T/none.out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q -- "--circuit" "$T/none.out" && [ ! -e "$T/bad.zpk" ]; then
  ok "import without a circuit is refused with a hint"
else cat "$T/none.out"; bad "import without a circuit (rc $rc)"; fi

# 3. the independent check with @noble/curves
if (cd "$HERE/js" && node proof192_noble.mjs "$T"); then ok "noble: decode, compare, pairing check"
else bad "noble check"; fi

# 4. the CLI verifier on the same proof (snarkjs JSON form)
if "$ZKPIPE" verify --help >/dev/null 2>&1; then
  if "$ZKPIPE" verify "$T/vk.json" "$T/public.json" "$T/proof.json" >"$T/verify.out" 2>&1; then
    ok "zkpipe verify vk.json public.json proof.json"
  else cat "$T/verify.out"; bad "zkpipe verify"; fi
else
  echo "skip zkpipe verify (not in this CLI)"
fi

[ $fail = 0 ] && echo "all passed" || echo "some failed"
exit $fail
