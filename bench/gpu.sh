#!/usr/bin/env bash
# Build, test and benchmark the CUDA backend on a GPU machine.
#
#   bash bench/gpu.sh --prepare DIR --build-dir BDIR   (collect binaries, stop)
#   bash bench/gpu.sh [--prebuilt DIR] [--mutants DIR] [--compare DIR] [--ncu] [--no-test] [--no-sanitize] [--no-bench]
#                     [--quick] [--ntt "FROM TO"] [--g1 "FROM TO"] [--g2 "FROM TO"]
#                     [--prove "LOG2..."] [--batch SPEC] [--serve LOG2]
#                     [--ab ENV=VAL[,ENV=VAL...]]... [--ab-sparse "FROM TO"] [--ab-g2 "FROM TO"]
#                     [--ab-batch SPEC] [--ab-ntt "FROM TO"]
#
# Logs go under $OUT (default bench/out); the last lines printed are a short
# table of medians. Default build: cmake Release in build-gpu, -j16.
# --mutants DIR runs the test programs of DIR (tests built against a copy of
# the code with one deliberate bug each): each must fail. --compare DIR
# times DIR/bench_gpu (an older version) against the current one at a few
# sizes, alternating. --variants DIR runs DIR/test_<kind>_<name> and times
# DIR/bench_<name> (the same code built with other tuning constants) against
# the current bench_gpu, alternating. --ncu profiles the G1 affine add kernel at 2^24, the
# XYZZ accumulation and an NTT pass with application replay and source counters (kernel
# replay answered "Failed to profile" on 2026-11-29; application replay worked in session 8).
# --ab ENV=VAL[,ENV=VAL...] (repeatable: one variant each) times the
# default against the same binaries with those variables set (knobs),
# alternating, twice: G1 MSMs over the --g1 range, sparse G1 (porep-like
# scalars) over --ab-sparse and G2 over --ab-g2 when given, and each
# --prove size and the engine on --ab-batch SPEC (as --batch's) when given,
# and the NTT over --ab-ntt (each median with its passes' times);
# lines prefixed "base" or the variant, each MSM median with its phases and
# each engine run's wall line, in ab.log, bench.log and the summary. --g1
# none skips the G1 MSMs there.
# --prebuilt DIR runs the test and bench binaries found in DIR (built
# elsewhere, e.g. by --prepare); with --check-build it also builds build-gpu
# in the background to check that the tree compiles here (reported at the
# end, after waiting for it).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/bench/out}
mkdir -p "$OUT"
B=build-gpu
PRE="" PREP="" MUT="" CMP="" DO_NCU=0 VAR="" PROVE="" SERVE="" AB_SPARSE="" AB_G2="" AB_BATCH="" AB_NTT=""
BATCH=() AB=()
DO_TEST=1 DO_SAN=1 DO_BENCH=1 CHECK_BUILD=0
NTT="20 27" G1="20 26" G2="20 22"
while [ $# -gt 0 ]; do
  case "$1" in
    --prebuilt) PRE=$2; shift ;;
    --prepare) PREP=$2; shift ;;
    --build-dir) B=$2; shift ;;
    --check-build) CHECK_BUILD=1 ;;
    --mutants) MUT=$2; shift ;;
    --compare) CMP=$2; shift ;;
    --ncu) DO_NCU=1 ;;
    --variants) VAR=$2; shift ;;
    --ab) AB+=("$2"); shift ;;
    --ab-sparse) AB_SPARSE=$2; shift ;;
    --ab-g2) AB_G2=$2; shift ;;
    --ab-batch) AB_BATCH=$2; shift ;;
    --ab-ntt) AB_NTT=$2; shift ;;
    --no-test) DO_TEST=0 ;;
    --no-sanitize) DO_SAN=0 ;;
    --no-bench) DO_BENCH=0 ;;
    --quick) NTT="20 22" G1="16 20" G2="16 18" ;;
    --prove) PROVE=$2; shift ;;
    --batch) BATCH+=("$2"); shift ;;
    --serve) SERVE=$2; shift ;;
    --ntt) NTT=$2; shift ;;
    --g1) G1=$2; shift ;;
    --g2) G2=$2; shift ;;
    *) echo "gpu.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
log() { echo "[$(date -u +%H:%M:%S)] $*"; }

{
  date -u
  git rev-parse HEAD 2>/dev/null || echo "no git"
  git status --short -- src/gpu src/cli/bench_gpu.c tests/gpu 2>/dev/null | head -20
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,memory.total --format=csv
  nproc
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

TARGETS="zkpipe_static test_gpu_arena test_gpu_field test_gpu_ntt test_gpu_msm test_gpu_msm_w test_gpu_eval test_gpu_setup test_gpu_prove test_gpu_slot test_gpu_engine zkpipe"
build() {
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" 2>&1 &&
    cmake --build $B -j16 --target $TARGETS >> "$OUT/build.log" 2>&1
}

# The bench driver: `zkpipe bench ntt|msm` when the CLI has them, else a
# small main() around zp__bench_ntt / zp__bench_msm linked here.
driver() {
  local dir=$1
  cat > "$dir/bench_main.c" <<'EOF'
#include <stdio.h>
#include <string.h>
int zp__bench_ntt(int argc, char **argv);
int zp__bench_msm(int argc, char **argv);
int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "ntt")) return zp__bench_ntt(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "msm")) return zp__bench_msm(argc - 1, argv + 1);
    fprintf(stderr, "usage: bench_gpu ntt|msm [options]\n");
    return 2;
}
EOF
  local cu=/usr/local/cuda
  cc -O2 -std=gnu17 -Iinclude -Isrc -c "$dir/bench_main.c" -o "$dir/bench_main.o" &&
    cc -O2 -std=gnu17 -Iinclude -Isrc -c src/cli/bench_gpu.c -o "$dir/bench_gpu.o" &&
    cc -O2 -std=gnu17 -Iinclude -Isrc -c src/cli/timing.c -o "$dir/timing.o" &&
    cc -o "$dir/bench_gpu" "$dir/bench_main.o" "$dir/bench_gpu.o" "$dir/timing.o" \
      -Wl,--start-group "$dir/libzkpipe.a" -Wl,--end-group \
      -L$cu/lib64 -L$cu/targets/x86_64-linux/lib -lcudart_static -lstdc++ -lpthread -ldl -lrt -lm
}

# --prepare DIR [--build-dir BDIR]: collect binaries of an existing build
# into DIR for a later --prebuilt run elsewhere, and stop.
if [ -n "$PREP" ]; then
  mkdir -p "$PREP"
  cp $B/tests/test_gpu_* $B/libzkpipe.a "$PREP"/ && driver "$PREP"
  rc=$?
  rm -f "$PREP"/*.o "$PREP"/*.c "$PREP"/libzkpipe.a
  [ $rc = 0 ] && strip "$PREP"/*
  ls -la "$PREP"
  exit $rc
fi

BUILD_PID=""
if [ -n "$PRE" ] && ! "$PRE/test_gpu_arena" > /dev/null 2>&1; then
  log "prebuilt binaries do not run here; building instead"
  PRE=""
fi
if [ -n "$PRE" ]; then
  BIN=$PRE
  log "prebuilt binaries from $PRE"
  [ $CHECK_BUILD = 1 ] && ( renice -n 19 $BASHPID > /dev/null 2>&1
    if build; then echo BUILD_OK >> "$OUT/build.log"; else echo BUILD_FAILED >> "$OUT/build.log"; fi ) &
  [ $CHECK_BUILD = 1 ] && BUILD_PID=$!
else
  log "building ($B)"
  t0=$(date +%s)
  if ! build; then tail -40 "$OUT/build.log"; log "BUILD FAILED"; exit 1; fi
  log "built in $(( $(date +%s) - t0 )) s"
  BIN=$B/bin
  mkdir -p $BIN
  cp $B/tests/test_gpu_* $BIN/ 2>/dev/null
  cp $B/libzkpipe.a $BIN/
  driver $BIN || { log "driver link failed"; exit 1; }
fi

BIN=$(cd "$BIN" && pwd)
command -v cuobjdump > /dev/null &&
  cuobjdump --dump-resource-usage "$BIN/test_gpu_msm" 2>&1 | grep -E 'Function|REG' > "$OUT/resources.txt"

declare -A RES
# At most a few files come back from a device run: one log per kind.
: > "$OUT/tests.log"; : > "$OUT/memcheck.log"; : > "$OUT/bench.log"
if [ $DO_TEST = 1 ]; then
  # name:seconds[:mode]: "on" runs it again with every MSM's dense part
  # through the batch-affine rounds (ZKPIPE_MSM_AFFINE=on); "r1" that with
  # one round (ZKPIPE_MSM_AFF_ROUNDS=1; two by default); "g2" with groups
  # of 2 (ZKPIPE_MSM_AFF_GROUP=2: the second round runs at the tests' sizes);
  # "red2" with the
  # bucket reduction in two levels, its segments of 8 buckets
  # (ZKPIPE_MSM_RED=2, ZKPIPE_MSM_SEG=8: a second level from c = 8); "c17"
  # every MSM at c = 17 (ZKPIPE_MSM_C=17: the sorts one bit short, with the
  # fix-up of msm_sort.cuh, at every size); "full" the sorts by all c bits
  # (ZKPIPE_MSM_SORT_SHORT=0); "pack" the witness sent packed
  # (ZKPIPE_WITNESS_PACK=1: zeros and ones as bits, prove_gpu_pack.c);
  # The NTT modes run its twelve kernel instances between them (by default
  # the plain kernel, the passes with m = 0 several transforms a tile, the
  # radix-4 stages r first): "pipe" every pass it applies to pipelined
  # (ZKPIPE_NTT_PIPE=1, ntt_pipe.cuh, r first); "last" the session-16
  # default, only the pass with m = 0 pipelined, r first nowhere
  # (ZKPIPE_NTT_PIPE=2 ZKPIPE_NTT_RFIRST=0); "plain" one transform a block
  # and r first nowhere (ZKPIPE_NTT_BATCH=0 ZKPIPE_NTT_RFIRST=0); "rf2" r
  # first only in the passes with m > 0 (ZKPIPE_NTT_RFIRST=2). "nofold" the
  # prover's a'b' in a pointwise pass of its own (ZKPIPE_NTT_FOLD=0; by
  # default a's forward last pass stores it); "split" its H MSM with the 0/1
  # split (ZKPIPE_MSM_H_NOSPLIT=0). "noloader" the engine's slots load their
  # next witness on their own thread during h (ZKPIPE_SLOT_LOADER=0). "hpre"
  # keys carry an H table of 13-bit windows and H goes over it (ZKPIPE_H_PRE=13).
  # "parts" the witness in three parts: a key's first witness in a slot
  # summed part by part (learning the plan), then the middle part first and
  # its L MSM while the other two cross (ZKPIPE_UPLOAD_PARTS=3
  # ZKPIPE_UPLOAD_HEAD=1); "parts0" / "parts2" the first / last part first.
  # By default eight parts from 2^23 values in a slot alone on its GPU,
  # planned; one below or beside other slots. "mw0" converts the witness
  # and gathers A's scalars before their MSMs (ZKPIPE_MSM_W=0), the path
  # before the MSMs read it in Montgomery form where it lies. "beside0"
  # runs every MSM after h (ZKPIPE_SLOT_BESIDE_H=0): by default a slot
  # with the room runs L, A, B1 and B2 beside h on a stream of their own.
  # "first" lowers G1's ones threshold to 2^10 (ZKPIPE_MSM_ONES_AFF_FROM=10),
  # so that at the tests' sizes the ones beside an XYZZ dense part go first
  # through the affine rounds, as a porep:27 partition's rest of L does.
  for t in arena:30 field:60 eval:60 ntt:150 ntt:150:pipe ntt:150:last ntt:150:plain ntt:150:rf2 msm:150 msm:150:on msm:150:r1 msm:150:g2 msm:150:red2 \
           msm:150:c17 msm:150:full msm:150:first msm_w:120 msm_w:120:on \
           setup:120 prove:120 prove:120:mw0 prove:120:on prove:120:g2 prove:120:pack prove:120:pipe prove:120:last prove:120:plain prove:120:nofold prove:120:split prove:120:hpre prove:120:parts prove:120:beside0 prove:120:first slot:120 slot:120:on \
           slot:120:r1 slot:120:mw0 slot:120:pack slot:120:parts slot:120:parts0 slot:120:parts2 slot:120:first engine:150 engine:150:noloader engine:150:parts engine:150:beside0; do
    name=${t%%:*} rest=${t#*:} lim=${rest%%:*} mode=default key=$name
    [ "$rest" != "$lim" ] && mode=${rest#*:}
    case $mode in
      default) ;;
      on) key=${name}_affine ;;
      r1) key=${name}_rounds1 ;;
      g2) key=${name}_group2 ;;
      full) key=${name}_sortfull ;;
      *) key=${name}_$mode ;;
    esac
    log "test_gpu_$name ($mode)"
    t0=$(date +%s)
    echo "==== test_gpu_$name ($mode)" >> "$OUT/tests.log"
    # From tests/: some tests read data/ (mul3.zkey) relative to it.
    ( cd tests
      case $mode in on | r1 | g2) export ZKPIPE_MSM_AFFINE=on ;; esac
      case $mode in
        r1) export ZKPIPE_MSM_AFF_ROUNDS=1 ;;
        g2) export ZKPIPE_MSM_AFF_GROUP=2 ;;
        red2) export ZKPIPE_MSM_RED=2 ZKPIPE_MSM_SEG=8 ;;
        c17) export ZKPIPE_MSM_C=17 ;;
        full) export ZKPIPE_MSM_SORT_SHORT=0 ;;
        pack) export ZKPIPE_WITNESS_PACK=1 ;;
        pipe) export ZKPIPE_NTT_PIPE=1 ;;
        last) export ZKPIPE_NTT_PIPE=2 ZKPIPE_NTT_RFIRST=0 ;;
        plain) export ZKPIPE_NTT_BATCH=0 ZKPIPE_NTT_RFIRST=0 ;;
        rf2) export ZKPIPE_NTT_RFIRST=2 ;;
        nofold) export ZKPIPE_NTT_FOLD=0 ;;
        split) export ZKPIPE_MSM_H_NOSPLIT=0 ;;
        noloader) export ZKPIPE_SLOT_LOADER=0 ;;
        hpre) export ZKPIPE_H_PRE=13 ;;
        mw0) export ZKPIPE_MSM_W=0 ;;
        beside0) export ZKPIPE_SLOT_BESIDE_H=0 ;;
        first) export ZKPIPE_MSM_ONES_AFF_FROM=10 ;;
        parts) export ZKPIPE_UPLOAD_PARTS=3 ZKPIPE_UPLOAD_HEAD=1 ;;
        parts0) export ZKPIPE_UPLOAD_PARTS=3 ZKPIPE_UPLOAD_HEAD=0 ;;
        parts2) export ZKPIPE_UPLOAD_PARTS=3 ZKPIPE_UPLOAD_HEAD=2 ;;
      esac
      # The NTT's options run --small (ZP_NTT_TEST_SMALL_TOP, every pass geometry); the default to 2^28.
      small=""; [ $name = ntt ] && [ $mode != default ] && small=--small
      timeout $lim "$BIN/test_gpu_$name" $small ) > "$OUT/t.log" 2>&1
    rc=$?
    cat "$OUT/t.log" >> "$OUT/tests.log"
    RES[test_$key]="rc=$rc $(tail -1 "$OUT/t.log") ($(( $(date +%s) - t0 )) s)"
    log "  ${RES[test_$key]}"
    [ $rc = 0 ] || grep -E "FAIL|CHECK|WRONG|->" "$OUT/t.log" | head -12
  done
  rm -f "$OUT/t.log"
fi

if [ $DO_BENCH = 1 ]; then
  set -- $NTT; log "bench ntt 2^$1..2^$2"
  timeout 120 "$BIN/bench_gpu" ntt --backend gpu --from $1 --to $2 --reps 7 2>&1 | tee -a "$OUT/bench.log" | grep -v RESULT
  set -- $G1; log "bench msm g1 2^$1..2^$2"
  timeout 200 "$BIN/bench_gpu" msm --backend gpu --from $1 --to $2 --reps 5 2>&1 | tee -a "$OUT/bench.log" | grep -v RESULT
  set -- $G2; log "bench msm g2 2^$1..2^$2"
  timeout 120 "$BIN/bench_gpu" msm --backend gpu --g2 --from $1 --to $2 --reps 5 2>&1 | tee -a "$OUT/bench.log" | grep -v RESULT
fi

# Whole proofs and the engine, through the CLI.
ZK=$B/zkpipe
[ -n "$PRE" ] && ZK=$PRE/zkpipe
: > "$OUT/prove.log"
for L in $PROVE; do
  log "bench prove synth:porep:$L (gpu, bellperson)"
  echo "==== bench prove synth:porep:$L" >> "$OUT/prove.log"
  timeout 400 "$ZK" bench prove --circuit synth:porep:$L --backend gpu --convention bellperson \
    --reps 3 >> "$OUT/prove.log" 2>&1
  RES[prove_$L]="rc=$? $(grep -E '^RESULT,prove' "$OUT/prove.log" | tail -1)"
  log "  ${RES[prove_$L]}"
  grep -E "setup|total|median" "$OUT/prove.log" | tail -6
done
# --batch "LOG2 COUNT PARTITIONS SLOTS CONCURRENCY [DISTINCT_WITNESSES [GPUS]]"
# The bench batch arguments of SPEC "LOG2 COUNT PARTITIONS SLOTS CONCURRENCY
# [DISTINCT_WITNESSES [GPUS]]".
batch_args() {
  set -- $1
  echo "--circuit synth:porep:$1 --gpus ${7:-1} --slots $4 --count $2 --partitions $3" \
    "--concurrency $5 --verify-threads 4${6:+ --distinct-witnesses $6}"
}
for spec in "${BATCH[@]}"; do
  set -- $spec
  ng=${7:-1}
  log "bench batch synth:porep:$1: $2 jobs x $3 partitions, $ng GPU(s) x $4 slots, concurrency $5"
  echo "==== bench batch $spec" >> "$OUT/prove.log"
  tr="$OUT/trace_$1_${ng}x$4_${5//,/-}.json" # no commas: such names do not come back
  ZKPIPE_LOG_KEYS=1 timeout 590 "$ZK" bench batch $(batch_args "$spec") --trace "$tr" \
    >> "$OUT/prove.log" 2>&1
  RES[batch_$1_${ng}x$4_$5]="rc=$? $(grep -E '^wall' "$OUT/prove.log" | tail -1) $(grep -E '^steady' "$OUT/prove.log" | tail -1 | cut -d'(' -f1)"
  log "  ${RES[batch_$1_${ng}x$4_$5]}"
  tail -8 "$OUT/prove.log"
  [ -f "$tr" ] && "$ZK" trace svg "$tr" -o "${tr%.json}.svg" > /dev/null 2>&1
done

# --serve LOG2: the daemon on the GPU, driven over its unix socket by
# bench batch --addr; then SIGTERM, which must exit 0.
if [ -n "$SERVE" ]; then
  sock=/tmp/zkpipe-gpu-$$.sock
  log "serve --gpus 1 --slots 2 with synth:porep:$SERVE"
  "$ZK" serve --listen "unix://$sock" --gpus 1 --slots 2 --key p=synth:porep:$SERVE \
    > "$OUT/serve.log" 2>&1 &
  spid=$!
  for i in $(seq 1 60); do [ -S "$sock" ] && break; sleep 1; done
  timeout 300 "$ZK" bench batch --addr "unix://$sock" --key p --count 8 --concurrency 4 \
    --partitions 4 >> "$OUT/prove.log" 2>&1
  brc=$?
  "$ZK" status --addr "unix://$sock" >> "$OUT/serve.log" 2>&1
  kill -TERM $spid; wait $spid; src=$?
  RES[serve_$SERVE]="bench rc=$brc, serve exit $src; $(grep -E '^wall|jobs done' "$OUT/prove.log" | tail -2 | tr '\n' ' ')"
  log "  ${RES[serve_$SERVE]}"
fi

if [ -n "$MUT" ]; then
  : > "$OUT/mutants.log"
  for f in "$MUT"/mut_*; do
    name=$(basename "$f")
    log "$name (must fail)"
    echo "==== $name" >> "$OUT/mutants.log"
    timeout 150 "$f" --small >> "$OUT/mutants.log" 2>&1
    rc=$?
    if [ $rc != 0 ] && [ $rc != 77 ]; then v="red as it must be (rc=$rc)"; else v="STILL GREEN (rc=$rc)"; fi
    RES[$name]="$v $(grep -c FAIL "$OUT/mutants.log") FAIL lines so far"
    log "  $v"
  done
fi

if [ -n "$CMP" ]; then
  echo "==== compare: old = $CMP/bench_gpu, new = $BIN/bench_gpu" >> "$OUT/bench.log"
  for args in "ntt --from 24 --to 24" "ntt --from 27 --to 27" "msm --from 24 --to 24" \
              "msm --from 26 --to 26" "msm --g2 --from 22 --to 22"; do
    for v in old new; do
      b=$BIN; [ $v = old ] && b=$CMP
      log "compare $v: $args"
      timeout 100 "$b/bench_gpu" $args --backend gpu --reps 5 2>&1 | grep -E "^(ntt|msm)" |
        sed "s/^/$v /" | tee -a "$OUT/bench.log"
    done
  done
fi

if [ -n "$VAR" ]; then
  for t in "$VAR"/test_*; do
    name=$(basename "$t")
    log "$name"
    echo "==== $name" >> "$OUT/tests.log"
    extra=""; case $name in *ntt*) extra=--small ;; esac
    timeout 120 "$t" $extra >> "$OUT/tests.log" 2>&1
    RES[$name]="rc=$? $(tail -1 "$OUT/tests.log")"
    log "  ${RES[$name]}"
  done
  echo "==== variants" >> "$OUT/bench.log"
  for b in "$VAR"/bench_*; do
    v=$(basename "$b"); v=${v#bench_}
    case $v in
      msm*) sets="msm --from 24 --to 24;msm --from 26 --to 26" ;;
      g2*) sets="msm --g2 --from 22 --to 22" ;;
      ntt*) sets="ntt --from 24 --to 24;ntt --from 27 --to 27" ;;
      *) continue ;;
    esac
    IFS=';' read -ra arr <<< "$sets"
    for args in "${arr[@]}"; do
      for who in base $v; do
        exe=$BIN/bench_gpu; [ $who = base ] || exe=$b
        timeout 100 "$exe" $args --backend gpu --reps 5 2>&1 | grep -E "^(ntt|msm)" |
          sed "s/^/$who /" | tee -a "$OUT/bench.log"
      done
    done
  done
fi

# One MSM range under the variant's variables: "LABEL what 2^k median X ms | phases".
ab_msm() {
  local label=$1; shift
  env ${envs[@]+"${envs[@]}"} timeout 200 "$BIN/bench_gpu" msm --backend gpu --reps 5 "$@" 2>&1 |
    grep -E "^msm|phases of the last run" | paste -d'|' - - |
    sed -E "s/^/$label /; s/ +\(5 runs[^|]*\|/ |/; s/\| +phases of the last run \(ms\):/|/" |
    tee -a "$OUT/ab.log"
}
if [ ${#AB[@]} -gt 0 ]; then
  : > "$OUT/ab.log"
  for rep in 1 2; do
    for v in base "${AB[@]}"; do
      envs=(); [ "$v" = base ] || IFS=, read -ra envs <<< "$v"
      if [ "$G1" != none ]; then
        set -- $G1; log "ab $v: G1 2^$1..2^$2"; ab_msm "$v" --from $1 --to $2
      fi
      if [ -n "$AB_SPARSE" ]; then
        set -- $AB_SPARSE; log "ab $v: sparse G1 2^$1..2^$2"; ab_msm "$v" --sparse --from $1 --to $2
      fi
      if [ -n "$AB_NTT" ]; then
        set -- $AB_NTT; log "ab $v: NTT 2^$1..2^$2"
        env ${envs[@]+"${envs[@]}"} timeout 200 "$BIN/bench_gpu" ntt --backend gpu --reps 5 \
          --from $1 --to $2 2>&1 | grep -E "^ntt|kernels of the last run" | paste -d'|' - - |
          sed -E "s/^/$v /; s/ +\(5 runs[^|]*\|/ |/; s/\| +kernels of the last run \(ms\):/|/" |
          tee -a "$OUT/ab.log"
      fi
      if [ -n "$AB_G2" ]; then
        set -- $AB_G2; log "ab $v: G2 2^$1..2^$2"; ab_msm "$v" --g2 --from $1 --to $2
      fi
      for L in $PROVE; do
        log "ab $v: prove synth:porep:$L"
        env ${envs[@]+"${envs[@]}"} timeout 300 "$ZK" bench prove --circuit synth:porep:$L \
          --backend gpu --convention bellperson --reps 3 2>&1 | grep -E '^RESULT,prove' |
          sed "s/^/$v /" | tee -a "$OUT/ab.log"
      done
      if [ -n "$AB_BATCH" ]; then
        log "ab $v: bench batch $AB_BATCH"
        env ${envs[@]+"${envs[@]}"} timeout 590 "$ZK" bench batch $(batch_args "$AB_BATCH") 2>&1 |
          grep -E '^(wall|steady)' | sed "s/^/$v batch /" | tee -a "$OUT/ab.log"
      fi
    done
  done
  cat "$OUT/ab.log" >> "$OUT/bench.log"
fi

if [ $DO_NCU = 1 ] && command -v ncu > /dev/null; then
  : > "$OUT/ncu.log"
  S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SourceCounters"
  NCU="ncu --clock-control none --replay-mode application --launch-count 1"
  log "ncu: aff_add_kernel (G1, 2^24; its report also goes to ncu_aff24.ncu-rep)"
  timeout 200 $NCU -k regex:aff_add_kernel $S -o "$OUT/ncu_aff24" -f \
    "$BIN/bench_gpu" msm --backend gpu --from 24 --to 24 --reps 1 >> "$OUT/ncu.log" 2>&1
  # Per-SASS-line counters (stall samples, executed instructions), compressed
  # (the plain CSV is ~17 MB, above what a device call brings back). Session 11
  # found the samples gather after calls and loads; the instruction counts hold.
  ncu --import "$OUT/ncu_aff24.ncu-rep" --page source --csv --print-source sass \
    > "$OUT/ncu_aff24_sass.csv" 2>> "$OUT/ncu.log" && xz -6 -f "$OUT/ncu_aff24_sass.csv"
  log "ncu: accumulate_kernel (G1, 2^22, XYZZ)"
  ZKPIPE_MSM_AFFINE=off timeout 150 $NCU -k regex:accumulate_kernel $S \
    "$BIN/bench_gpu" msm --backend gpu --from 22 --to 22 --reps 1 >> "$OUT/ncu.log" 2>&1
  log "ncu: ntt_pass_kernel (2^24)"
  timeout 100 $NCU -k regex:ntt_pass_kernel $S \
    "$BIN/bench_gpu" ntt --backend gpu --from 24 --to 24 --reps 1 >> "$OUT/ncu.log" 2>&1
  log "ncu done: $(grep -c 'Section:' "$OUT/ncu.log") sections"
fi

if [ $DO_SAN = 1 ] && command -v compute-sanitizer > /dev/null; then
  # ntt:pipe, ntt:last, ntt:plain, ntt:rf2: the NTT modes of the tests above.
  for t in field eval ntt ntt:pipe ntt:last ntt:plain ntt:rf2 msm; do
    log "memcheck test_gpu_$t --small"
    echo "==== memcheck test_gpu_$t --small" >> "$OUT/memcheck.log"
    pipe=0 batch=1 rf=1
    case $t in *:pipe) pipe=1 ;; *:last) pipe=2 rf=0 ;; *:plain) batch=0 rf=0 ;; *:rf2) rf=2 ;; esac
    ZKPIPE_NTT_PIPE=$pipe ZKPIPE_NTT_BATCH=$batch ZKPIPE_NTT_RFIRST=$rf timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 \
      --leak-check no "$BIN/test_gpu_${t%%:*}" --small >> "$OUT/memcheck.log" 2>&1
    rc=$?
    RES[memcheck_${t/:/_}]="rc=$rc $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
    log "  ${RES[memcheck_${t/:/_}]}"
  done
fi

if [ -n "$BUILD_PID" ]; then
  log "waiting for the background build"
  wait $BUILD_PID
  RES[build]=$(tail -1 "$OUT/build.log")
fi

{
echo
echo "==== summary ($(date -u +%FT%TZ), $(head -c 40 <(nvidia-smi --query-gpu=name --format=csv,noheader)))"
for k in "${!RES[@]}"; do echo "$k: ${RES[$k]}"; done | sort
echo "what,backend,log2,median_ms,floor_ms,fraction"
grep '^RESULT,' "$OUT/bench.log" 2>/dev/null | cut -d, -f2-
[ -s "$OUT/ab.log" ] && echo "ab: base against ${AB[*]}" && cat "$OUT/ab.log"
} | tee "$OUT/summary.txt"
