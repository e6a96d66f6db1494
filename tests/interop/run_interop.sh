#!/usr/bin/env bash
# circom/snarkjs interop test of the zkpipe CLI against the committed fixtures.
#
#   bash tests/interop/run_interop.sh /path/to/zkpipe [CIRCUIT...]
#
# CLI under test:
#   zkpipe prove  circuit.zkey witness.wtns proof.json public.json
#   zkpipe verify verification_key.json public.json proof.json   (0 valid, 1 invalid, 2 error)
#
# For each fixture circuit (default: all in fixtures/):
#   - zkpipe's proofs of both witnesses verify under snarkjs and under zkpipe,
#     and zkpipe's public.json equals snarkjs' (same numbers);
#   - snarkjs' stored proofs (random r, s, and kat_proof.json with fixed r, s)
#     verify under zkpipe;
#   - a proof with π_A negated, a proof of the other witness, and public
#     inputs off by one are rejected by snarkjs (non-zero) and by zkpipe (1);
#   - witnesses that do not satisfy the circuit (one value edited: a public
#     output, a private input), and a witness of another circuit make
#     `zkpipe prove` fail and leave no output file behind.
# One line per check, then "N passed, N failed"; exit 1 on any failure,
# 2 on a usage or setup error.
set -u

if [ $# -lt 1 ]; then
  echo "usage: run_interop.sh ZKPIPE_BINARY [CIRCUIT...]" >&2
  exit 2
fi
BIN=$1
shift
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
[ -x "$BIN" ] || { echo "run_interop: $BIN is not executable" >&2; exit 2; }

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
JS=$(cd "$HERE/../js" && pwd)
FIX=$HERE/fixtures
SNARKJS=(node "$JS/node_modules/snarkjs/build/cli.cjs")
TAMPER=(node "$JS/interop_tamper.mjs")
# A proof of a small circuit takes well under a second; this only stops a hang.
TIMEOUT=${ZP_INTEROP_TIMEOUT:-600}

if [ ! -d "$JS/node_modules/snarkjs" ]; then
  (cd "$JS" && npm ci >/dev/null) || { echo "run_interop: npm ci failed" >&2; exit 2; }
fi

if [ $# -gt 0 ]; then
  CIRCUITS=("$@")
else
  CIRCUITS=()
  for d in "$FIX"/*/; do
    [ -s "$d/circuit.zkey" ] && CIRCUITS+=("$(basename "$d")")
  done
fi
[ ${#CIRCUITS[@]} -gt 0 ] || { echo "run_interop: no fixtures in $FIX" >&2; exit 2; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/zp-interop.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# A private .zkey cache (keycache.c): every .zkey here is checked once per run.
export ZKPIPE_CACHE="$TMP/cache"
passed=0
failed=0

# check LABEL CMD...: one line per check; the command's output is kept in
# $TMP/out and shown only when the check fails.
check() {
  local label=$1
  shift
  if "$@" >"$TMP/out" 2>&1; then
    echo "ok   $label"
    passed=$((passed + 1))
  else
    echo "FAIL $label"
    sed 's/^/       | /' "$TMP/out" | tail -n 15
    failed=$((failed + 1))
  fi
}

# snarkjs must print OK and exit 0.
snarkjs_accepts() {
  local log
  log=$("${SNARKJS[@]}" groth16 verify "$@" 2>&1)
  local rc=$?
  echo "$log"
  [ $rc -eq 0 ] && grep -q 'OK' <<<"$log"
}

# snarkjs must exit non-zero and not print OK.
snarkjs_rejects() {
  local log
  log=$("${SNARKJS[@]}" groth16 verify "$@" 2>&1)
  local rc=$?
  echo "$log"
  [ $rc -ne 0 ] && ! grep -q 'OK' <<<"$log"
}

# zkpipe_verify_rc WANT VK PUBLIC PROOF: zkpipe verify must exit with WANT.
zkpipe_verify_rc() {
  local want=$1
  shift
  timeout "$TIMEOUT" "$BIN" verify "$@"
  local rc=$?
  echo "zkpipe verify exit $rc, want $want"
  [ $rc -eq "$want" ]
}

# zkpipe verify must reject without claiming validity: exit 1 or 2.
zkpipe_verify_refuses() {
  timeout "$TIMEOUT" "$BIN" verify "$@"
  local rc=$?
  echo "zkpipe verify exit $rc, want 1 or 2"
  [ $rc -eq 1 ] || [ $rc -eq 2 ]
}

# zkpipe_prove_ok ZKEY WTNS OUTDIR: exit 0 and both outputs non-empty.
zkpipe_prove_ok() {
  rm -rf "$3"
  mkdir -p "$3"
  timeout "$TIMEOUT" "$BIN" prove "$1" "$2" "$3/proof.json" "$3/public.json" || return 1
  test -s "$3/proof.json" && test -s "$3/public.json"
}

# zkpipe_prove_fails ZKEY WTNS OUTDIR: non-zero exit and no output files
# (not even empty or temporary ones) in OUTDIR.
zkpipe_prove_fails() {
  rm -rf "$3"
  mkdir -p "$3"
  timeout "$TIMEOUT" "$BIN" prove "$1" "$2" "$3/proof.json" "$3/public.json"
  local rc=$?
  echo "zkpipe prove exit $rc; left in output dir: $(ls -A "$3" | tr '\n' ' ')"
  # A clean refusal: not success, not the timeout (124), not a signal (>= 128).
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -lt 128 ] && [ -z "$(ls -A "$3")" ]
}

# Same numbers in two public.json files (formatting may differ).
same_public() {
  node -e '
    const fs = require("fs");
    const [a, b] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f, "utf8")).map(BigInt));
    const same = a.length === b.length && a.every((v, i) => v === b[i]);
    if (!same) { console.log("zkpipe:", a.join(","), "\nsnarkjs:", b.join(",")); process.exit(1); }' "$1" "$2"
}

# The edited witness must really be unsatisfying, or the prove check below
# would test nothing.
wtns_unsatisfying() {
  local log
  log=$("${SNARKJS[@]}" wtns check "$1" "$2" 2>&1)
  echo "$log" | tail -n 3
  ! grep -q 'WITNESS IS CORRECT' <<<"$log"
}

run_circuit() {
  local c=$1 f=$FIX/$1 t=$TMP/$1
  mkdir -p "$t"
  for x in circuit.zkey circuit.r1cs vk.json w.wtns w2.wtns proof.json public.json \
           proof2.json public2.json kat_proof.json; do
    if [ ! -s "$f/$x" ]; then
      check "$c: fixture file $x present" false
      return
    fi
  done
  local npub
  npub=$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).nPublic' "$f/vk.json")

  # zkpipe proves, snarkjs (and zkpipe) verify.
  check "$c: zkpipe prove w.wtns" zkpipe_prove_ok "$f/circuit.zkey" "$f/w.wtns" "$t/p1"
  check "$c: zkpipe public.json = snarkjs public.json" same_public "$t/p1/public.json" "$f/public.json"
  check "$c: snarkjs verifies zkpipe's proof" snarkjs_accepts "$f/vk.json" "$f/public.json" "$t/p1/proof.json"
  check "$c: zkpipe verifies zkpipe's proof" zkpipe_verify_rc 0 "$f/vk.json" "$f/public.json" "$t/p1/proof.json"
  check "$c: zkpipe prove w2.wtns" zkpipe_prove_ok "$f/circuit.zkey" "$f/w2.wtns" "$t/p2"
  check "$c: zkpipe public.json = snarkjs public2.json" same_public "$t/p2/public.json" "$f/public2.json"
  check "$c: snarkjs verifies zkpipe's proof of w2" snarkjs_accepts "$f/vk.json" "$f/public2.json" "$t/p2/proof.json"

  # snarkjs proves, zkpipe verifies.
  check "$c: zkpipe verifies snarkjs proof.json" zkpipe_verify_rc 0 "$f/vk.json" "$f/public.json" "$f/proof.json"
  check "$c: zkpipe verifies snarkjs proof2.json" zkpipe_verify_rc 0 "$f/vk.json" "$f/public2.json" "$f/proof2.json"
  check "$c: zkpipe verifies kat_proof.json" zkpipe_verify_rc 0 "$f/vk.json" "$f/public.json" "$f/kat_proof.json"

  # Wrong proofs and wrong public inputs: both verifiers must say no.
  "${TAMPER[@]}" neg-a "$f/proof.json" "$t/neg_a.json"
  check "$c: snarkjs rejects -pi_a" snarkjs_rejects "$f/vk.json" "$f/public.json" "$t/neg_a.json"
  check "$c: zkpipe rejects -pi_a (exit 1)" zkpipe_verify_rc 1 "$f/vk.json" "$f/public.json" "$t/neg_a.json"
  check "$c: snarkjs rejects proof2 with public" snarkjs_rejects "$f/vk.json" "$f/public.json" "$f/proof2.json"
  check "$c: zkpipe rejects proof2 with public (exit 1)" zkpipe_verify_rc 1 "$f/vk.json" "$f/public.json" "$f/proof2.json"
  if [ -s "$t/p1/proof.json" ]; then
    "${TAMPER[@]}" neg-a "$t/p1/proof.json" "$t/neg_a_zkpipe.json"
    check "$c: snarkjs rejects zkpipe's proof with -pi_a" snarkjs_rejects "$f/vk.json" "$f/public.json" "$t/neg_a_zkpipe.json"
  fi
  local idx
  for idx in $(printf '%s\n' 0 $((npub - 1)) | sort -un); do
    "${TAMPER[@]}" bump-public "$f/public.json" "$t/pub_$idx.json" "$idx"
    check "$c: snarkjs rejects public[$idx]+1" snarkjs_rejects "$f/vk.json" "$t/pub_$idx.json" "$f/proof.json"
    check "$c: zkpipe rejects public[$idx]+1 (exit 1)" zkpipe_verify_rc 1 "$f/vk.json" "$t/pub_$idx.json" "$f/proof.json"
  done
  # A coordinate that is not on the curve is malformed rather than wrong.
  node -e '
    const fs = require("fs");
    const p = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    p.pi_c[1] = (BigInt(p.pi_c[1]) + 1n).toString();
    fs.writeFileSync(process.argv[2], JSON.stringify(p));' "$f/proof.json" "$t/offcurve.json"
  check "$c: zkpipe refuses pi_c off the curve (exit 1 or 2)" zkpipe_verify_refuses "$f/vk.json" "$f/public.json" "$t/offcurve.json"

  # Unsatisfying witnesses: the prover must fail and write nothing.
  for idx in 1 $((npub + 1)); do
    "${TAMPER[@]}" bump-wtns "$f/w.wtns" "$t/bad_$idx.wtns" "$idx"
    check "$c: w[$idx]+1 does not satisfy the r1cs (snarkjs wtns check)" wtns_unsatisfying "$f/circuit.r1cs" "$t/bad_$idx.wtns"
    check "$c: zkpipe prove fails on w[$idx]+1, no output" zkpipe_prove_fails "$f/circuit.zkey" "$t/bad_$idx.wtns" "$t/bad_$idx"
  done
}

for c in "${CIRCUITS[@]}"; do
  [ -d "$FIX/$c" ] || { check "$c: fixture directory exists" false; continue; }
  run_circuit "$c"
done

# A witness of another circuit (wrong length) must be refused cleanly.
if [ ${#CIRCUITS[@]} -ge 2 ]; then
  a=${CIRCUITS[0]} b=${CIRCUITS[1]}
  check "zkey of $a with witness of $b: zkpipe prove fails, no output" \
    zkpipe_prove_fails "$FIX/$a/circuit.zkey" "$FIX/$b/w.wtns" "$TMP/mismatch"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
