#!/usr/bin/env bash
# The main job: install what is missing, build, and run a demo.
set -euo pipefail
cd "$(dirname "$0")/.."
ZP_SKIP_NPM=1 bash scripts/deps.sh
bash scripts/build.sh
./build/zkpipe version
./build/zkpipe selftest
./build/zkpipe bench math
