#!/usr/bin/env bash
# The supraseal-c2 drop-in against the native engine on one GPU machine
# (docs/supraseal-c2.md): synth:porep:LOG2 through the upstream
# generate_groth16_proofs_c, CIRCUITS circuits a call as bellperson makes
# them, and the native engine's jobs of as many partitions, in one run.
#
# usage: bash bench/supraseal_c2.sh [LOG2 [CIRCUITS [CALLS [DISTINCT]]]]
#   defaults 27 10 2 1. ARCH (env): the CUDA architectures built (90).
#   KEY (env) names the key file to use or make: a .zpk
#   (default build-gpu/porep-LOG2.zpk: loaded without point checks) or a .params
#   (parsed, every point checked: much longer to load). Made the first
#   time and kept: its points made on GPU 0 where there is one (then most
#   of the time goes to writing the file), else by a CPU setup, which grows
#   with 2^LOG2 and is impractical at porep:27 on a few cores (run LOG2 24
#   first).
# The drop-in engine's trace goes to TRACE (default build-gpu/dropin-LOG2.json)
# and its stage medians and busy fractions are printed after.
# Host RAM at porep:27: the key (~47 GB of points) plus DISTINCT ×
# 16.7 GB of a, b, c and assignments; disk: the key file (~47 GB).
set -euo pipefail
cd "$(dirname "$0")/.."
LOG2=${1:-27} CIRCUITS=${2:-10} CALLS=${3:-2} DISTINCT=${4:-1}
BUILD=${BUILD:-build-gpu}
KEY=${KEY:-$BUILD/porep-$LOG2.zpk}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${ARCH:-90}" >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target bench_supraseal_c2 zkpipe >/dev/null
echo "commit $(git rev-parse --short HEAD), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
TRACE=${TRACE:-$BUILD/dropin-$LOG2.json}
/usr/bin/time -v "$BUILD/bench_supraseal_c2" --log2 "$LOG2" --circuits "$CIRCUITS" \
  --calls "$CALLS" --distinct "$DISTINCT" --key "$KEY" --trace "$TRACE" \
  2> >(grep -E "Maximum resident|Elapsed|^bench_supraseal_c2" >&2)
# The drop-in's stages (its "eval" is a, b, c going up; "msm" is h and the MSMs).
"$BUILD/zkpipe" trace svg "$TRACE" || true
