#!/usr/bin/env bash
# snarkjs <-> zkpipe interop on the committed circom fixtures: zkpipe's proofs
# verify under snarkjs and zkpipe, snarkjs' proofs verify under zkpipe, bad
# proofs, public inputs and witnesses are refused (tests/interop/README.md).
#
#   bash interop.test.sh /path/to/zkpipe      (ctest runs it from tests/)
#
# Needs node and tests/js/node_modules (scripts/deps.sh installs them); exits
# 77 (skipped) when node is not installed.
cd "$(dirname "${BASH_SOURCE[0]}")" || exit 2
if ! command -v node >/dev/null 2>&1; then
  echo "interop: node is not installed; skipped"
  exit 77
fi
exec bash interop/run_interop.sh "$1"
