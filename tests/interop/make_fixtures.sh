#!/usr/bin/env bash
# Builds the circom/snarkjs interop fixtures in tests/interop/fixtures/.
#
#   bash tests/interop/make_fixtures.sh [WORKDIR [OUTDIR]]
#
# WORKDIR (default /tmp/zkpipe-interop-work) holds the ptau and build files;
# OUTDIR (default tests/interop/fixtures) receives the fixture set. Building
# into another OUTDIR and comparing its SHA256SUMS with the committed one
# checks that the fixtures are reproducible.
#
# Everything except the snarkjs proofs (which draw random r, s) is
# deterministic: the ptau and every zkey come from beacons with fixed hashes,
# so a rebuild reproduces the committed files byte for byte; compare with
# `cd tests/interop/fixtures && sha256sum -c SHA256SUMS`.
#
# The slow step is `powersoftau prepare phase2` (about 2.5 min at 2^12 on two
# cores). The ptau is cached in WORKDIR and reused on later runs; it is not
# committed. Snarkjs exits 0 after some failures, so every produced file is
# checked with `test -s` and every verification by its "OK" line.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
JS=$(cd "$HERE/../js" && pwd)
WORK=${1:-/tmp/zkpipe-interop-work}
FIX=${2:-$HERE/fixtures}
CIRCUITS=(multiplier chain poseidon manypub bits)

# 2^12 covers the largest circuit (chain: 3000 constraints + 2 public + ONE
# gives domainSize 4096); a smaller ptau would refuse it.
POWER=12
PTAU_BEACON=7a6b706970652d696e7465726f702d70746175000000000000000000000000a1
ZKEY_BEACON=7a6b706970652d696e7465726f702d7a6b6579000000000000000000000000b2
# Fixed blinding factors of kat_proof.json (see README.md).
KAT_R=0x0f0e0d0c0b0a09080706050403020100f0e1d2c3b4a5968778695a4b3c2d1e0f
KAT_S=0x3141592653589793238462643383279502884197169399375105820974944592

SNARKJS=(node "$JS/node_modules/snarkjs/build/cli.cjs")
CIRCOM=(node "$JS/node_modules/circom2/cli.js")

if [ ! -d "$JS/node_modules/snarkjs" ]; then
  (cd "$JS" && npm ci)
fi
mkdir -p "$WORK/build"
LOG=$WORK/step.log

die() { echo "make_fixtures: $*" >&2; exit 1; }
need() { for f in "$@"; do test -s "$f" || die "missing or empty: $f"; done; }

# step LABEL CMD...: run CMD quietly, show its time, show its log on failure.
step() {
  local label=$1 t0=$SECONDS
  shift
  if ! "$@" >"$LOG" 2>&1; then
    cat "$LOG" >&2
    die "failed: $label"
  fi
  printf '  %-42s %4d s\n' "$label" $((SECONDS - t0))
}

# A snarkjs verification that must print OK (exit status alone is not enough).
verify_ok() {
  "${SNARKJS[@]}" groth16 verify "$@" >"$LOG" 2>&1 || { cat "$LOG" >&2; return 1; }
  grep -q 'OK' "$LOG"
}

make_ptau() {
  PTAU=$WORK/pot${POWER}_final.ptau
  if [ -s "$PTAU" ]; then
    echo "ptau: reusing $PTAU"
    return
  fi
  echo "ptau: building 2^$POWER (once)"
  step "powersoftau new" "${SNARKJS[@]}" powersoftau new bls12381 $POWER "$WORK/pot_0.ptau"
  need "$WORK/pot_0.ptau"
  step "powersoftau beacon" "${SNARKJS[@]}" powersoftau beacon "$WORK/pot_0.ptau" \
    "$WORK/pot_1.ptau" $PTAU_BEACON 10 -n="zkpipe interop beacon"
  need "$WORK/pot_1.ptau"
  step "powersoftau prepare phase2" "${SNARKJS[@]}" powersoftau prepare phase2 \
    "$WORK/pot_1.ptau" "$PTAU.tmp"
  need "$PTAU.tmp"
  mv "$PTAU.tmp" "$PTAU"
  rm -f "$WORK/pot_0.ptau" "$WORK/pot_1.ptau"
}

# One proof of one witness: wtns, wtns check, prove, verify.
witness_and_proof() {
  local c=$1 out=$2 input=$3 tag=$4
  local wasm=$WORK/build/${c}_js/$c.wasm
  cp "$input" "$out/input$tag.json"
  step "$c: wtns calculate$tag" "${SNARKJS[@]}" wtns calculate "$wasm" "$out/input$tag.json" "$out/w$tag.wtns"
  need "$out/w$tag.wtns"
  step "$c: wtns check$tag" "${SNARKJS[@]}" wtns check "$out/circuit.r1cs" "$out/w$tag.wtns"
  grep -q 'WITNESS IS CORRECT' "$LOG" || { cat "$LOG" >&2; die "$c: witness$tag does not satisfy the r1cs"; }
  step "$c: groth16 prove$tag" "${SNARKJS[@]}" groth16 prove "$out/circuit.zkey" "$out/w$tag.wtns" \
    "$out/proof$tag.json" "$out/public$tag.json"
  need "$out/proof$tag.json" "$out/public$tag.json"
  step "$c: groth16 verify$tag" verify_ok "$out/vk.json" "$out/public$tag.json" "$out/proof$tag.json"
}

make_circuit() {
  local c=$1 out=$WORK/fixtures/$1
  echo "$c:"
  rm -rf "$out"
  mkdir -p "$out"
  # circom2 resolves -l relative to the folder holding node_modules.
  step "$c: circom2" bash -c "cd '$JS' && ${CIRCOM[*]} '$HERE/circuits/$c.circom' \
    --r1cs --wasm --prime bls12381 -l node_modules -o '$WORK/build'"
  need "$WORK/build/$c.r1cs" "$WORK/build/${c}_js/$c.wasm"
  cp "$WORK/build/$c.r1cs" "$out/circuit.r1cs"
  step "$c: groth16 setup" "${SNARKJS[@]}" groth16 setup "$out/circuit.r1cs" "$PTAU" "$WORK/${c}_0.zkey"
  need "$WORK/${c}_0.zkey"
  step "$c: zkey beacon" "${SNARKJS[@]}" zkey beacon "$WORK/${c}_0.zkey" "$out/circuit.zkey" \
    $ZKEY_BEACON 10 -n="zkpipe interop zkey beacon"
  need "$out/circuit.zkey"
  step "$c: zkey verify" "${SNARKJS[@]}" zkey verify "$out/circuit.r1cs" "$PTAU" "$out/circuit.zkey"
  grep -q 'ZKey Ok' "$LOG" || { cat "$LOG" >&2; die "$c: zkey verify did not say ZKey Ok"; }
  step "$c: export verificationkey" "${SNARKJS[@]}" zkey export verificationkey "$out/circuit.zkey" "$out/vk.json"
  need "$out/vk.json"
  witness_and_proof "$c" "$out" "$HERE/circuits/$c.input.json" ""
  witness_and_proof "$c" "$out" "$HERE/circuits/$c.input2.json" "2"
  cmp -s "$out/public.json" "$out/public2.json" && die "$c: both witnesses give the same public inputs"
  # Independent stage values, cross-checked against the r1cs, then proved
  # with noble and judged by snarkjs (interop_prove_check.mjs).
  step "$c: stage_kat" node "$JS/stage_kat.mjs" "$out/circuit.zkey" "$out/w.wtns" \
    --r1cs "$out/circuit.r1cs" -o "$out/stages.txt"
  need "$out/stages.txt"
  step "$c: prove_check (kat_proof.json)" node "$JS/interop_prove_check.mjs" "$out" \
    --r $KAT_R --s $KAT_S --out "$out/kat_proof.json"
  need "$out/kat_proof.json"
  step "$c: verify kat_proof.json" verify_ok "$out/vk.json" "$out/public.json" "$out/kat_proof.json"
}

t_all=$SECONDS
make_ptau
for c in "${CIRCUITS[@]}"; do make_circuit "$c"; done

# Install: replace the committed fixture set as a whole.
for c in "${CIRCUITS[@]}"; do
  rm -rf "${FIX:?}/$c"
  mkdir -p "$FIX/$c"
  cp "$WORK/fixtures/$c"/* "$FIX/$c/"
done
# Checksums of everything deterministic (not the random snarkjs proofs).
(cd "$FIX" && sha256sum */circuit.r1cs */circuit.zkey */vk.json */input*.json \
  */w*.wtns */public*.json */stages.txt */kat_proof.json > SHA256SUMS)
{
  echo "ptau: snarkjs 0.7.6, bls12381, power $POWER, beacon $PTAU_BEACON 10, prepare phase2"
  echo "sha256 $(sha256sum < "$PTAU" | cut -d' ' -f1)  size $(stat -c %s "$PTAU")"
} > "$FIX/PTAU.txt"
echo "done in $((SECONDS - t_all)) s; fixtures: $(du -sh "$FIX" | cut -f1)"
