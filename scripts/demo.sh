#!/usr/bin/env bash
# The main job: install what is missing, build, and make a demo proof:
# a TEST-ONLY key for a PoRep-shaped synthetic circuit, a fresh witness,
# a proof (stage times printed), and an independent verification.
# ZP_DEMO_CIRCUIT overrides the circuit (default synth:porep:16).
set -euo pipefail
cd "$(dirname "$0")/.."
ZP_SKIP_NPM=1 bash scripts/deps.sh
bash scripts/build.sh
z=./build/zkpipe
circuit=${ZP_DEMO_CIRCUIT:-synth:porep:16}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

$z version
$z selftest
echo "== setup: $circuit (TEST-ONLY key) =="
$z setup "$circuit" --zpk "$work/key.zpk" --vk-json "$work/vk.json"
echo "== prove (witness generated in process; the proof is verified before it is written) =="
$z prove -v --circuit "$circuit" --key "$work/key.zpk" --seed 7 \
    --proof-bin "$work/proof.bin" "$work/proof.json" "$work/public.json"
echo "== verify (verification_key.json, public.json, proof.json) =="
$z verify "$work/vk.json" "$work/public.json" "$work/proof.json"
echo "192-byte proof: $(od -An -tx1 -N16 "$work/proof.bin" | tr -d ' \n')..."
