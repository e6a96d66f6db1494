#!/usr/bin/env bash
# Install what is missing, build, and run every test (ctest). GPU tests are
# reported as skipped on machines without a GPU. With ZP_SANITIZE_TESTS=1
# (the default under CI) the unit tests run again under ASan and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
jobs=$(nproc)
ctest --test-dir build --output-on-failure -j"$jobs"
if [ "${ZP_SANITIZE_TESTS:-${CI:+1}}" = 1 ]; then
  echo "== sanitizer build (ASan + UBSan, CPU only) =="
  ZP_BUILD_DIR=build-asan bash scripts/build.sh -DZP_SANITIZE=ON -DZP_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -L unit
fi
