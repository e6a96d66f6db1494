#!/usr/bin/env bash
# Builds the compile-time variants of the GPU NTT (src/gpu/ntt.cu) for an
# A/B run by bench/gpu.sh --variants:
#
#   bash bench/ntt_variants.sh DIR [NAME...]      (default: plain twr4frw; the default build is twr4)
#   bash bench/gpu.sh --variants DIR [--no-sanitize] ...
#
# (Shoup's stage products and the lazy stages are on in every variant but
# noshoup and nolazy.)
# For each NAME: a Release build in build-nttv-NAME with the variant's CUDA
# flags, then DIR/test_gpu_ntt_NAME (that build's test_gpu_ntt; gpu.sh runs
# it with --small, which these copies take up to 2^22 so that three passes
# are checked against the CPU, forward, inverse and coset) and
# DIR/bench_ntt_NAME (that build's bench driver; gpu.sh times it against the
# base at 2^24 and 2^27, alternating). Variants (see src/gpu/ntt.cu):
#   tw    ZP_NTT_TW: one-load twist table for passes spanning <= 2^18, and
#         the inverse's n^-1 folded into the first pass's twist
#   r4    ZP_NTT_R4: stages two at a time in registers (radix 4)
#   twr4  both
#   frw   ZP_NTT_FRW: the Fr product of src/gpu/ntt_frw.h (64-bit products)
#   twr4frw  all three
#   noshoup  the default without ZP_NTT_SHOUP (stage products by Montgomery)
#   nolazy   the default without ZP_NTT_LAZY (stage values reduced below m)
# J (default 16) is the build parallelism.
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bash bench/ntt_variants.sh DIR [NAME...]" >&2; exit 2; }
DIR=$1
shift
# The default build has TW and R4 on (ntt.cu); ZP_NTT_PLAIN turns both off.
declare -A FLAGS=([plain]="-DZP_NTT_PLAIN" [tw]="-DZP_NTT_PLAIN -DZP_NTT_TW"
  [r4]="-DZP_NTT_PLAIN -DZP_NTT_R4" [frw]="-DZP_NTT_PLAIN -DZP_NTT_FRW"
  [twr4frw]="-DZP_NTT_FRW" [noshoup]="-DZP_NTT_NOSHOUP" [nolazy]="-DZP_NTT_NOLAZY")
names=${*:-plain twr4frw}
J=${J:-16}
mkdir -p "$DIR"
for v in $names; do
  [ -n "${FLAGS[$v]:-}" ] || { echo "ntt_variants.sh: no variant $v" >&2; exit 2; }
  B=build-nttv-$v
  echo "[$(date -u +%H:%M:%S)] building $v (${FLAGS[$v]}) in $B"
  mkdir -p "$B"
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS="${FLAGS[$v]}" \
    -DCMAKE_C_FLAGS="-DZP_NTT_TEST_SMALL_TOP=22" > "$B/variant.log" 2>&1
  if ! cmake --build "$B" -j"$J" --target zkpipe_static test_gpu_ntt >> "$B/variant.log" 2>&1; then
    tail -30 "$B/variant.log"
    exit 1
  fi
  tmp=$(mktemp -d)
  OUT=$tmp bash bench/gpu.sh --prepare "$tmp/bin" --build-dir "$B" > "$tmp/prepare.log" 2>&1 ||
    { cat "$tmp/prepare.log"; exit 1; }
  cp "$tmp/bin/bench_gpu" "$DIR/bench_ntt_$v"
  cp "$tmp/bin/test_gpu_ntt" "$DIR/test_gpu_ntt_$v"
  rm -rf "$tmp"
done
ls -la "$DIR"
