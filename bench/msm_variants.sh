#!/usr/bin/env bash
# Builds the MSM tuning variants of the current tree into DIR, named the way
# `bench/gpu.sh --variants DIR` runs them (test_<kind>_<name> once each,
# bench_msm* timed on G1 2^24 and 2^26 and bench_g2* on G2 2^22, each
# alternating with the base bench_gpu):
#
#   bash bench/msm_variants.sh DIR [JOBS]      (here; also writes DIR.tar.gz)
#   mkdir -p V && tar xzf DIR.tar.gz -C V      (on the GPU machine)
#   OUT=... bash bench/gpu.sh --prebuilt BASE --variants V --no-sanitize
#
# Builds (Release, sm_90, one cmake build dir each under ${TMPDIR:-/tmp}):
#   wide  -DZP_FP_WIDE=1 -DZP_FP2_LAZY=1  fp_mul/fp_sqr from field_wide.h,
#                                         Fp2 product with two reductions
#         -> bench_msm_wide (G1), bench_g2_wlazy (G2), test_msm_wide, test_field_wide
#   sqr   -DZP_FP_SQR=1 -DZP_FP2_LAZY=1   only the squaring from field_wide.h
#                                         (PTX product kept), lazy Fp2 product
#         -> bench_msm_sqr (G1), bench_g2_lazy (G2), test_msm_sqr, test_field_sqr
#   c36   -DZP_MSM_RED_COST=36.0          window picked with the measured
#                                         reduction cost (c = 20 at 2^24,
#                                         22 at 2^26)
#         -> bench_msm_c36, test_msm_c36
#   pair  -DZP_FP_PAIR=1                  the mixed addition's ten products as
#                                         five independent pairs per call
#                                         (two two-chain products each; G1
#                                         only: G2 keeps its two calls per pair)
#         -> bench_msm_pair, test_msm_pair
#   fp2f  -DZP_FP2_FUSED=1                the Fp2 product's three Montgomery
#                                         products in one call (G2 only)
#         -> bench_g2_fused, test_msm_fp2f, test_field_fp2f
#   kara  -DZP_FP_KARA=1 -DZP_FP_MULSUB=1 fp_mul as a Karatsuba exact product
#                                         and a wide reduction; the mixed
#                                         addition's Y3 = R (Q - X3) - Y1 PPP
#                                         as one reduction of a b - c d
#         -> bench_msm_kara (G1), bench_g2_kara (G2), test_msm_kara, test_field_kara
#   karaonly -DZP_FP_KARA=1               the product only
#         -> bench_msm_karaonly, test_msm_karaonly
#   ms    -DZP_FP_MULSUB=1                only the one-reduction Y3, on the
#                                         plain exact products
#         -> bench_msm_ms, test_msm_ms
#   acc32, acc64  -DZP_MSM_ACC_THREADS=32 / 64   smaller accumulation blocks
#                                         (more resident warps at ~180
#                                         registers)  -> bench_msm_acc32, bench_msm_acc64
#   mb3, mb4  -DZP_MSM_G1_MINBLOCKS=3 / 4  G1 accumulation capped at 170 /
#                                         128 registers (3 / 4 blocks of 128;
#                                         3 is the default since session 4)
#                                         -> bench_msm_mb3, bench_msm_mb4
#   g1sh4 -DZP_MSM_G1_SHACC=1 -DZP_MSM_G1_MINBLOCKS=4   G1 accumulator in shared
#                                         memory, 128 registers (16 warps)
#   g1sh7 ... SHACC, 64-thread blocks, 7 per SM (14 warps)
#   g2sh  -DZP_MSM_G2_SHACC=1             G2 accumulator in shared memory
#   g2sh3 ... and 3 blocks per SM (168 registers, some spills)
#         -> bench_msm_g1sh4, bench_msm_g1sh7, bench_g2sh, bench_g2sh3
# G1 code never uses the Fp2 product, so the G1 numbers of `wide` and `sqr`
# isolate the Fp changes.
set -eu
cd "$(dirname "$0")/.."
DIR=${1:?usage: msm_variants.sh DIR [JOBS]}
JOBS=${2:-$(nproc)}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
TMP=${TMPDIR:-/tmp}

one() { # tag defines g1name g2name
  local tag=$1 defs=$2 g1=$3 g2=$4
  local b=$TMP/zp-msmvar-$tag p=$TMP/zp-msmvar-$tag-bin
  echo "[$(date -u +%H:%M:%S)] build $tag ($defs)"
  cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_FLAGS=$defs" > "$b.log" 2>&1
  cmake --build "$b" -j"$JOBS" --target zkpipe_static test_gpu_msm test_gpu_field >> "$b.log" 2>&1 ||
    { tail -30 "$b.log"; echo "build $tag FAILED"; exit 1; }
  rm -rf "$p"
  OUT=$TMP/zp-msmvar-$tag-out bash bench/gpu.sh --prepare "$p" --build-dir "$b" > /dev/null
  cp "$p/test_gpu_msm" "$DIR/test_msm_$tag"
  cp "$p/test_gpu_field" "$DIR/test_field_$tag"
  cp "$p/bench_gpu" "$DIR/bench_$g1"
  # The G2 name runs the same binary: a two-line wrapper instead of a copy
  # keeps DIR small enough to carry to the GPU machine.
  [ -n "$g2" ] && printf '#!/bin/sh\nexec "$(dirname "$0")/bench_%s" "$@"\n' "$g1" > "$DIR/bench_$g2" &&
    chmod +x "$DIR/bench_$g2"
  return 0
}

ONLY=${ONLY:-pair fp2f} # e.g. ONLY=pair rebuilds just that one
for tag in $ONLY; do
  case $tag in
    wide) one wide "-DZP_FP_WIDE=1 -DZP_FP2_LAZY=1" msm_wide g2_wlazy ;;
    sqr) one sqr "-DZP_FP_SQR=1 -DZP_FP2_LAZY=1" msm_sqr g2_lazy ;;
    c36) one c36 "-DZP_MSM_RED_COST=36.0" msm_c36 "" && rm -f "$DIR/test_field_c36" ;;
    pair) one pair "-DZP_FP_PAIR=1" msm_pair "" && rm -f "$DIR/test_field_pair" ;;
    fp2f) one fp2f "-DZP_FP2_FUSED=1" g2_fused "" ;;
    kara) one kara "-DZP_FP_KARA=1 -DZP_FP_MULSUB=1" msm_kara g2_kara ;;
    karaonly) one karaonly "-DZP_FP_KARA=1" msm_karaonly "" && rm -f "$DIR/test_field_karaonly" ;;
    acc32) one acc32 "-DZP_MSM_ACC_THREADS=32" msm_acc32 g2_acc32 && rm -f "$DIR/test_field_acc32" ;;
    acc64) one acc64 "-DZP_MSM_ACC_THREADS=64" msm_acc64 g2_acc64 && rm -f "$DIR/test_field_acc64" ;;
    mb3) one mb3 "-DZP_MSM_G1_MINBLOCKS=3" msm_mb3 "" && rm -f "$DIR/test_field_mb3" ;;
    mb4) one mb4 "-DZP_MSM_G1_MINBLOCKS=4" msm_mb4 "" && rm -f "$DIR/test_field_mb4" ;;
    g1sh4) one g1sh4 "-DZP_MSM_G1_SHACC=1 -DZP_MSM_G1_MINBLOCKS=4" msm_g1sh4 "" && rm -f "$DIR/test_field_g1sh4" ;;
    g1sh7) one g1sh7 "-DZP_MSM_G1_SHACC=1 -DZP_MSM_G1_MINBLOCKS=7 -DZP_MSM_ACC_THREADS=64" msm_g1sh7 "" && rm -f "$DIR/test_field_g1sh7" ;;
    g2sh) one g2sh "-DZP_MSM_G2_SHACC=1" g2sh_ "" && mv "$DIR/bench_g2sh_" "$DIR/bench_g2sh" && rm -f "$DIR/test_field_g2sh" ;;
    g2sh3) one g2sh3 "-DZP_MSM_G2_SHACC=1 -DZP_MSM_G2_MINBLOCKS=3" g2sh3_ "" && mv "$DIR/bench_g2sh3_" "$DIR/bench_g2sh3" && rm -f "$DIR/test_field_g2sh3" ;;
    ms) one ms "-DZP_FP_MULSUB=1" msm_ms "" && rm -f "$DIR/test_field_ms" ;;
    *) echo "unknown variant $tag"; exit 2 ;;
  esac
done
ls -la "$DIR"
# ~50 MB of binaries compress to ~18 MB: carry the archive, unpack it there.
tar czf "$DIR.tar.gz" -C "$DIR" .
ls -la "$DIR.tar.gz"
