#!/usr/bin/env bash
# The device side of deciding affmin.patch and sums2room.patch (README here),
# in two calls of at most 10 minutes, with bench/out/dv.tar.xz packed on the
# dev VM (`bash bench/carry.sh pack bench/patches/affmin.patch
# bench/patches/sums2room.patch bench/patches/affmin.patch+bench/patches/sums2room.patch`)
# and carried:
#   OUT=$OUT/c1 bash bench/patches/decide.sh msm     (sweeps, then GPU tests)
#   OUT=$OUT/c2 bash bench/patches/decide.sh batch   (whole key and 24 GiB)
# then `bash bench/carry.sh bundle`. msm stops starting runs DL (530) seconds
# in, so that the bundle still comes back; its table is OUT/sweep.txt.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-bench/out/carry}
mkdir -p "$OUT"
T0=$(date +%s)
DL=${DL:-530}
left() { [ $(($(date +%s) - T0)) -lt "$1" ]; }

case ${1:-} in
msm)
  M="bench msm --backend gpu --from 27 --to 27 --reps 2"
  C1="--chunks 12 --acc-c 17 --window 17 --acc-scratch-mib 4096" # 24 GiB's H
  C2="--chunks 7 --acc-c 17 --window 17 --acc-scratch-mib 8192"  # 32 GiB's
  C3="--chunks 3 --acc-c 20 --window 20 --acc-scratch-mib 8192"  # 48 GiB's
  S=$OUT/sweep.txt
  one() { # TAG VARIANT ARGS...
    local tag=$1 t
    shift
    left $((DL - 40)) || { echo "$tag skipped" >>"$S"; return; }
    t=$(date +%s)
    timeout 60 bash bench/carry.sh zkpipe "$@" >"$OUT/one.log" 2>&1
    echo "== $tag rc=$? $(($(date +%s) - t)) s" >>"$S"
    grep -E "msm-g1-acc|windows|chunks of|differ|rror" "$OUT/one.log" | head -8 >>"$S"
  }
  # shellcheck disable=SC2086 # M, C1..C3: words
  {
    one main-c1 main $M $C1
    for k in 16 48 96 192; do one K$k-c1 affmin $M $C1 --aff-min-k $k; done
    for g in 8 12 16; do one G$g-c1 affmin $M $C1 --aff-group $g; done
    one s2r-c1 sums2room $M $C1
    one both-c1 affmin+sums2room $M $C1 --aff-group 16
    for g in 8 16; do one G$g-c2 affmin $M $C2 --aff-group $g; done
    one both-c2 affmin+sums2room $M $C2 --aff-group 16
    for g in 8 16; do one G$g-c3 affmin $M $C3 --aff-group $g; done
    for k in 16 96; do one K$k-c3 affmin $M $C3 --aff-min-k $k; done
  }
  cat "$S"
  left 300 && TEST_TIMEOUT=120 timeout $((DL - ($(date +%s) - T0) - 20)) \
    bash bench/carry.sh tests sums2room '^test_gpu_(msm|prove_stream|engine)' 2>&1 | tail -25
  left $((DL - 40)) && TEST_TIMEOUT=60 bash bench/carry.sh tests main 'test_gpu_msm$' 2>&1 |
    tail -5
  ;;
batch)
  W="bench batch --circuit synth:porep:27 --gpus 1 --slots 2 --count 2 --partitions 10"
  W="$W --concurrency 4"
  for v in main sums2room; do
    # shellcheck disable=SC2086 # W: words
    timeout 170 bash bench/carry.sh zkpipe $v $W >"$OUT/whole-$v.txt" 2>&1
    echo "== whole $v rc=$?"
    grep -E "s/proof|per job|stage medians|verified|busy|rror" "$OUT/whole-$v.txt"
  done
  # shellcheck disable=SC2086 # VARS: words
  timeout 330 bash bench/carry.sh batch ${VARS:-sums2room:24G main:24G}
  ;;
*)
  sed -n '2,/^set /p' "$0" | sed -n '/^#/p'
  exit 2
  ;;
esac
