#!/bin/sh
# Regenerates the small circom/snarkjs unit-test inputs in tests/data/ with
# the pinned tools in tests/js/ (node_modules installed: cd tests/js && npm ci).
# Everything but the proof is deterministic (beacons, no random contributions);
# groth16 prove draws random r, s, so proof.json differs on each run.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
js="$here/../js"
work="$js/out/data"
rm -rf "$work"
mkdir -p "$work"
cd "$js"
S="node node_modules/snarkjs/build/cli.cjs"
B1=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20
B2=2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40

npx circom2 "$here/mul3.circom" --r1cs --wasm --prime bls12381 -o "$work" >/dev/null
$S powersoftau new bls12381 4 "$work/pot_0.ptau" >/dev/null
$S powersoftau beacon "$work/pot_0.ptau" "$work/pot_1.ptau" $B1 10 -n=b >/dev/null
$S powersoftau prepare phase2 "$work/pot_1.ptau" "$work/pot.ptau" >/dev/null
$S groth16 setup "$work/mul3.r1cs" "$work/pot.ptau" "$work/mul3_0.zkey" >/dev/null
test -s "$work/mul3_0.zkey"    # setup exits 0 even when it fails
$S zkey beacon "$work/mul3_0.zkey" "$work/mul3.zkey" $B2 10 >/dev/null
$S zkey export verificationkey "$work/mul3.zkey" "$work/vk.json" >/dev/null
$S wtns calculate "$work/mul3_js/mul3.wasm" "$here/input.json" "$work/mul3.wtns"
$S groth16 prove "$work/mul3.zkey" "$work/mul3.wtns" "$work/proof.json" "$work/public.json"
$S groth16 verify "$work/vk.json" "$work/public.json" "$work/proof.json"

cp "$work/mul3.r1cs" "$work/mul3.zkey" "$work/mul3.wtns" \
   "$work/vk.json" "$work/proof.json" "$work/public.json" "$here/"
