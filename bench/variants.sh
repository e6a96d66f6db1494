#!/usr/bin/env bash
# Variants side by side on one GPU machine, in one run: each variant is a
# patch on this tree (git diff output), built into a directory of its own,
# then the same benchmark runs for the tree as it is ("main") and for each
# variant, one after the other. For the decisions bench/RESULTS.md records
# (what was tried, the figure, the loser deleted); the patches themselves
# stay out of the tree.
#
# usage: bash bench/variants.sh build [PATCH...]
#          builds the tree into build-gpu (ARCH, default 90), then each
#          PATCH applied in turn, incrementally, into build-v-NAME (NAME: the
#          patch's file name without .patch; A.patch+B.patch: both applied,
#          named A+B); the tree is left as it was
#        bash bench/variants.sh test PATCH[+PATCH...] REGEX
#          the patch(es) applied, build-gpu built whole, ctest -R REGEX there
#          (a variant's GPU tests before its figures), the tree left as it
#          was and build-gpu's binaries rebuilt from it
#        bash bench/variants.sh dropin NAME...
#          bench_supraseal_c2 --log2 LOG2 --circuits 10 --calls CALLS per
#          NAME (main or a built variant); the native engine in the same
#          process each time unless SKIP_NATIVE=1 (then only for the first)
#        bash bench/variants.sh batch NAME:ARENA[:TUNE]...
#          zkpipe bench batch --circuit synth:porep:LOG2 --gpus 1
#          --gpu-mem ARENA --count COUNT --partitions 10 per NAME:ARENA, with
#          --tune TUNE where a third field gives one (ntt_twist=off, say)
# env: LOG2 (27), CALLS (2), COUNT (1), OUT (logs and traces; default
# bench/out/variants), KEY (the drop-in's key, default build-gpu/porep-LOG2.zpk,
# made by the first drop-in run when missing: ~90 s on an H200 at 27).
# Each run's log keeps the bench's lines and its trace's stage medians.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=bench/with_variants.sh
. bench/with_variants.sh
OUT=${OUT:-bench/out/variants}
LOG2=${LOG2:-27}
J=$(nproc)
mkdir -p "$OUT"
dir_of() { [ "$1" = main ] && echo build-gpu || echo "build-v-$1"; }
summary() { # the bench's figures and the trace's stage medians, prefixed
  grep -E "s/proof|per proof|per job|ratio|verify |call |bus|median|busy|error|host to device|peak RSS" "$1" |
    sed "s/^/$2: /"
}
what=${1:-}
shift || true
case "$what" in
build)
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="${ARCH:-90}" >"$OUT/build.log" 2>&1 &&
    cmake --build build-gpu -j"$J" >>"$OUT/build.log" 2>&1 || {
    tail -30 "$OUT/build.log"
    exit 1
  }
  build_one() {
    if cmake --build build-gpu -j"$J" --target zkpipe bench_supraseal_c2 >>"$OUT/build.log" 2>&1; then
      mkdir -p "build-v-$1" && cp build-gpu/zkpipe build-gpu/bench_supraseal_c2 "build-v-$1/"
      echo "$1: built"
    else
      echo "$1: does not build"
      tail -20 "$OUT/build.log"
    fi
  }
  with_variants build_one "$@"
  # The tree's own binaries again.
  cmake --build build-gpu -j"$J" --target zkpipe bench_supraseal_c2 >>"$OUT/build.log" 2>&1
  ;;
test)
  re=$2
  IFS=+ read -ra ps <<<"$1"
  applied=()
  for p in "${ps[@]}"; do
    git apply "$p" && applied=("$p" "${applied[@]}") || {
      echo "$p: the patch does not apply"
      for q in "${applied[@]}"; do git apply -R "$q"; done
      exit 1
    }
  done
  v=
  for p in "${ps[@]}"; do v=${v:+$v+}$(basename "$p" .patch); done
  rc=0
  if cmake --build build-gpu -j"$J" >>"$OUT/build.log" 2>&1; then
    (cd build-gpu && ctest -R "$re" --output-on-failure) >"$OUT/test-$v.log" 2>&1 || rc=$?
    grep -E "tests passed|Failed|\*\*\*|Timeout" "$OUT/test-$v.log"
  else
    echo "$v: does not build"
    tail -20 "$OUT/build.log"
    rc=1
  fi
  for q in "${applied[@]}"; do git apply -R "$q"; done
  cmake --build build-gpu -j"$J" >>"$OUT/build.log" 2>&1
  exit $rc
  ;;
dropin)
  key=${KEY:-build-gpu/porep-$LOG2.zpk}
  native=
  for v in "$@"; do
    d=$(dir_of "$v")
    log=$OUT/dropin-$v.log
    "$d/bench_supraseal_c2" --log2 "$LOG2" --circuits 10 --calls "${CALLS:-2}" --key "$key" \
      --trace "$OUT/dropin-$v.json" $native >"$log" 2>&1 || echo "$v: exit $?"
    build-gpu/zkpipe trace svg "$OUT/dropin-$v.json" >>"$log" 2>&1
    summary "$log" "$v"
    [ "${SKIP_NATIVE:-0}" = 1 ] && native=--skip-native
  done
  ;;
batch)
  for va in "$@"; do
    IFS=: read -r v arena tune <<<"$va"
    d=$(dir_of "$v")
    tag=$(free_tag "$OUT/batch-" "$v-$arena${tune:+-${tune//=/}}")
    log=$OUT/batch-$tag.log
    "$d/zkpipe" bench batch --circuit "synth:porep:$LOG2" --gpus 1 --gpu-mem "$arena" \
      --count "${COUNT:-1}" --partitions 10 --concurrency 2 --verify-threads 4 \
      --distinct-witnesses 2 --trace "$OUT/batch-$tag.json" ${tune:+--tune "$tune"} >"$log" 2>&1 ||
      echo "$tag: exit $?"
    build-gpu/zkpipe trace svg "$OUT/batch-$tag.json" >>"$log" 2>&1
    summary "$log" "$tag"
  done
  ;;
*)
  sed -n '2,25p' "$0"
  exit 2
  ;;
esac
