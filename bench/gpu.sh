#!/usr/bin/env bash
# Benchmarks of the CUDA backend on a GPU machine. The GPU tests are ctest's
# (ctest -L gpu); this script only measures.
#
#   bash bench/gpu.sh --prepare DIR [--build-dir BDIR] [--no-build]
#       build zkpipe in BDIR (default build-gpu), copy it into DIR, stop
#   bash bench/gpu.sh [--prebuilt DIR] [--build-dir BDIR] [what to run]
#
# What to run (every figure through `zkpipe bench`):
#   ranges (default)      NTT, G1 MSM and G2 MSM medians over --ntt, --g1, --g2
#     --ntt "FROM TO"     Fr NTT sizes (default "20 27"), bellperson roots
#     --g1 "FROM TO"      G1 MSM sizes (default "20 26")
#     --g2 "FROM TO"      G2 MSM sizes (default "20 22")
#     --quick             ranges "20 22", "16 20", "16 18"
#     --no-ranges         none of them
#   --prove "LOG2..."     a synth:porep:LOG2 partition each (key set up on the GPU)
#   --batch SPEC          the engine (repeatable); SPEC is "LOG2 COUNT PARTITIONS
#                         SLOTS CONCURRENCY [DISTINCT_WITNESSES [GPUS]]"
#   --serve LOG2          the daemon with synth:porep:LOG2, driven over its socket
#   --ncu                 Nsight Compute sections of the G1 affine add kernel
#                         (2^24) and an NTT pass (2^24), when ncu is installed
#   --compare OLD_DIR     old against new, alternating (below); no ranges then
#                         unless --ntt, --g1, --g2 or --quick asks for them
#     --only LIST         the figures to compare, comma-separated (default all):
#                         ntt27 ntt27_plain g1_24 g1_26 g1pre_24 g1pre_26 g2_22
#                         prove27 engine27
#     --rounds N          rounds of old and new (default 2; ABBA order)
#
# --compare runs OLD_DIR/zkpipe (or, for NTT and MSM figures, OLD_DIR/bench_gpu
# when there is no zkpipe there) and this build's zkpipe over:
#   ntt27        zkpipe bench ntt --backend gpu --from 27 --to 27 --reps 5
#                  --roots bellperson --twist (the twist tables a resident key has;
#                  without --twist for both when either binary does not know it)
#   ntt27_plain  the same without the twist tables
#   g1_24 g1_26  zkpipe bench msm --backend gpu --from K --to K --reps 5
#   g1pre_24     the same over precomputed bases, --precompute 20
#   g1pre_26     --precompute 22 (a 72 GiB table)
#   g2_22        zkpipe bench msm --backend gpu --g2 --from 22 --to 22 --reps 5
#   prove27      zkpipe bench prove --circuit synth:porep:27 --backend gpu
#                  --convention bellperson --reps 3 (total, median of 3)
#   engine27     zkpipe bench batch --circuit synth:porep:27 --gpus 1 --slots 2
#                  --count 4 --partitions 10 --concurrency 4 --verify-threads 4
#                  --distinct-witnesses 3 (steady-state s per 10-partition job)
# prove27 and engine27 each set up a 2^27 key on the GPU first (~40 s a run):
# prove27 takes ~50 s a run, engine27 ~100 s; a device call of 10 minutes
# holds the NTT and MSM figures, or prove27, or engine27 (--rounds 1 for two
# runs only). The last lines printed are the table: figure, old median, new
# median, new / old (each median over the rounds of each run's median).
#
# Logs go under $OUT (default bench/out): env.txt, build.log, bench.log,
# prove.log, compare.log, summary.txt.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/bench/out}
mkdir -p "$OUT"
B=build-gpu
PRE="" PREP="" CMP="" PROVE="" SERVE="" ONLY="" ROUNDS=2
BATCH=()
DO_BUILD=1 DO_NCU=0 RANGES=default
NTT="20 27" G1="20 26" G2="20 22"
ALL_FIGS="ntt27 ntt27_plain g1_24 g1_26 g1pre_24 g1pre_26 g2_22 prove27 engine27"
while [ $# -gt 0 ]; do
  case "$1" in
    --prebuilt) PRE=$2; shift ;;
    --prepare) PREP=$2; shift ;;
    --build-dir) B=$2; shift ;;
    --no-build) DO_BUILD=0 ;;
    --compare) CMP=$2; shift ;;
    --only) ONLY=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --ncu) DO_NCU=1 ;;
    --no-ranges) RANGES=off ;;
    --quick) NTT="20 22" G1="16 20" G2="16 18"; RANGES=on ;;
    --ntt) NTT=$2; RANGES=on; shift ;;
    --g1) G1=$2; RANGES=on; shift ;;
    --g2) G2=$2; RANGES=on; shift ;;
    --prove) PROVE=$2; shift ;;
    --batch) BATCH+=("$2"); shift ;;
    --serve) SERVE=$2; shift ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
  esac
  shift
done
[ "$RANGES" = default ] && { [ -n "$CMP" ] && RANGES=off || RANGES=on; }
case $ROUNDS in '' | *[!0-9]* | 0) echo "gpu.sh: --rounds wants a positive number" >&2; exit 2 ;; esac
for f in ${ONLY//,/ }; do
  case " $ALL_FIGS " in *" $f "*) ;; *) echo "gpu.sh: unknown figure $f (figures: $ALL_FIGS)" >&2; exit 2 ;; esac
done
log() { echo "[$(date -u +%H:%M:%S)] $*"; }

build() {
  log "building zkpipe ($B)"
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" 2>&1 &&
    cmake --build "$B" -j"$(nproc)" --target zkpipe >> "$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; log "BUILD FAILED"; return 1; }
}

# --prepare DIR: zkpipe (CUDA runtime linked in statically) for a later
# --prebuilt or --compare run elsewhere.
if [ -n "$PREP" ]; then
  [ $DO_BUILD = 1 ] && { build || exit 1; }
  mkdir -p "$PREP" && cp "$B/zkpipe" "$PREP/" && strip "$PREP/zkpipe" || exit 1
  ls -la "$PREP"
  exit 0
fi

{
  date -u
  git rev-parse HEAD 2>/dev/null || echo "no git"
  git status --short -- src include 2>/dev/null | head -20
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,memory.total --format=csv
  nproc
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

if [ -n "$PRE" ] && ! "$PRE/zkpipe" version > /dev/null 2>&1; then
  log "$PRE/zkpipe does not run here; building instead"
  PRE=""
fi
if [ -n "$PRE" ]; then
  ZK=$(cd "$PRE" && pwd)/zkpipe
  log "prebuilt zkpipe from $PRE"
else
  build || exit 1
  ZK=$(cd "$B" && pwd)/zkpipe
fi
"$ZK" version | tee -a "$OUT/env.txt"

: > "$OUT/bench.log"; : > "$OUT/prove.log"
declare -A RES

# ------------------------------------------------------------------ ranges
if [ "$RANGES" = on ]; then
  set -- $NTT; log "bench ntt 2^$1..2^$2"
  timeout 200 "$ZK" bench ntt --backend gpu --roots bellperson --from $1 --to $2 --reps 7 2>&1 |
    tee -a "$OUT/bench.log" | grep -v RESULT
  set -- $G1; log "bench msm g1 2^$1..2^$2"
  timeout 300 "$ZK" bench msm --backend gpu --from $1 --to $2 --reps 5 2>&1 |
    tee -a "$OUT/bench.log" | grep -v RESULT
  set -- $G2; log "bench msm g2 2^$1..2^$2"
  timeout 200 "$ZK" bench msm --backend gpu --g2 --from $1 --to $2 --reps 5 2>&1 |
    tee -a "$OUT/bench.log" | grep -v RESULT
fi

# ------------------------------------------------- whole proofs, the engine
for L in $PROVE; do
  log "bench prove synth:porep:$L (gpu, bellperson)"
  echo "==== bench prove synth:porep:$L" >> "$OUT/prove.log"
  timeout 400 "$ZK" bench prove --circuit synth:porep:$L --backend gpu --convention bellperson \
    --reps 3 >> "$OUT/prove.log" 2>&1
  RES[prove_$L]="rc=$? $(grep -E '^RESULT,prove' "$OUT/prove.log" | tail -1)"
  log "  ${RES[prove_$L]}"
done

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
  timeout 590 "$ZK" bench batch $(batch_args "$spec") --trace "$tr" >> "$OUT/prove.log" 2>&1
  RES[batch_$1_${ng}x$4_$5]="rc=$? $(grep -E '^wall' "$OUT/prove.log" | tail -1) $(grep -E '^steady' "$OUT/prove.log" | tail -1 | cut -d'(' -f1)"
  log "  ${RES[batch_$1_${ng}x$4_$5]}"
  [ -f "$tr" ] && "$ZK" trace svg "$tr" -o "${tr%.json}.svg" > /dev/null 2>&1
done

# --serve LOG2: the daemon on the GPU, driven over its unix socket by
# bench batch --addr; then SIGTERM, which must exit 0.
if [ -n "$SERVE" ]; then
  sock=/tmp/zkpipe-gpu-$$.sock
  log "serve --gpus 1 --slots 2 with synth:porep:$SERVE"
  "$ZK" serve --listen "unix://$sock" --gpus 1 --slots 2 --key p=synth:porep:$SERVE \
    --synth-witnesses 2 > "$OUT/serve.log" 2>&1 &
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

if [ $DO_NCU = 1 ] && command -v ncu > /dev/null; then
  : > "$OUT/ncu.log"
  S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SourceCounters"
  NCU="ncu --clock-control none --replay-mode application --launch-count 1"
  log "ncu: aff_add_kernel (G1, 2^24)"
  timeout 200 $NCU -k regex:aff_add_kernel $S \
    "$ZK" bench msm --backend gpu --from 24 --to 24 --reps 1 >> "$OUT/ncu.log" 2>&1
  log "ncu: ntt_pass_kernel (2^24)"
  timeout 100 $NCU -k regex:ntt_pass_kernel $S \
    "$ZK" bench ntt --backend gpu --from 24 --to 24 --reps 1 >> "$OUT/ncu.log" 2>&1
  log "ncu done: $(grep -c 'Section:' "$OUT/ncu.log") sections"
fi

# ------------------------------------------------------------- --compare
# fig_run WHO FIG: runs figure FIG with WHO's binaries (old or new), logs
# everything to compare.log and prints the figure's value (ms or s), or
# nothing when the run failed.
fig_run() {
  local who=$1 fig=$2 dir zk args out v
  if [ "$who" = old ]; then dir=$CMP; else dir=$(dirname "$ZK"); fi
  zk=$dir/zkpipe
  # NTT and MSM through zkpipe bench, or an old tree's bench_gpu driver.
  local drv=("$zk" bench)
  [ -x "$zk" ] || drv=("$dir/bench_gpu")
  case $fig in
    ntt27 | ntt27_plain)
      args=(ntt --backend gpu --from 27 --to 27 --reps 5 --roots bellperson)
      [ $fig = ntt27 ] && [ $TWIST = 1 ] && args+=(--twist)
      out=$(timeout 200 "${drv[@]}" "${args[@]}" 2>&1) ;;
    g1_24 | g1_26)
      args=(msm --backend gpu --from ${fig#g1_} --to ${fig#g1_} --reps 5)
      out=$(timeout 300 "${drv[@]}" "${args[@]}" 2>&1) ;;
    g1pre_24 | g1pre_26)
      local k=${fig#g1pre_} c=20
      [ "$k" = 26 ] && c=22
      args=(msm --backend gpu --from $k --to $k --reps 5 --precompute $c)
      out=$(timeout 300 "${drv[@]}" "${args[@]}" 2>&1) ;;
    g2_22)
      args=(msm --backend gpu --g2 --from 22 --to 22 --reps 5)
      out=$(timeout 200 "${drv[@]}" "${args[@]}" 2>&1) ;;
    prove27)
      args=(bench prove --circuit synth:porep:27 --backend gpu --convention bellperson --reps 3)
      out=$(timeout 400 "$zk" "${args[@]}" 2>&1) ;;
    engine27)
      args=(bench batch --circuit synth:porep:27 --gpus 1 --slots 2 --count 4 --partitions 10
            --concurrency 4 --verify-threads 4 --distinct-witnesses 3)
      out=$(timeout 590 "$zk" "${args[@]}" 2>&1) ;;
  esac
  { echo "==== $who $fig: ${args[*]}"; echo "$out"; } >> "$OUT/compare.log"
  case $fig in
    prove27) v=$(echo "$out" | grep -E '^RESULT,prove' | tail -1 | grep -oE 'total=[0-9.]+' | cut -d= -f2) ;;
    engine27) v=$(echo "$out" | grep -E '^steady state' | tail -1 |
                  sed -nE 's/.*, ([0-9.]+) s per job of.*/\1/p') ;;
    *) v=$(echo "$out" | grep -E '^RESULT,' | tail -1 | cut -d, -f5) ;;
  esac
  echo "$v"
}

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

if [ -n "$CMP" ]; then
  [ -x "$CMP/zkpipe" ] || [ -x "$CMP/bench_gpu" ] || { log "no zkpipe in $CMP"; exit 2; }
  : > "$OUT/compare.log"
  # --twist for both binaries or for neither.
  TWIST=1
  for d in "$CMP" "$(dirname "$ZK")"; do
    drv=("$d/zkpipe" bench); [ -x "$d/zkpipe" ] || drv=("$d/bench_gpu")
    "${drv[@]}" ntt --help 2>/dev/null | grep -q -- --twist || TWIST=0
  done
  [ $TWIST = 1 ] || log "ntt27 without --twist: $CMP's driver does not take it"
  figs=${ONLY//,/ }
  [ -n "$figs" ] || figs=$ALL_FIGS
  declare -A VAL
  for fig in $figs; do
    for r in $(seq 1 "$ROUNDS"); do
      order="old new"; [ $((r % 2)) = 0 ] && order="new old"
      for who in $order; do
        log "compare $fig, round $r: $who"
        v=$(fig_run $who $fig)
        log "  ${v:-FAILED}"
        [ -n "$v" ] && VAL[$who,$fig]+="$v "
      done
    done
  done
fi

{
echo
echo "==== summary ($(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1))"
for k in "${!RES[@]}"; do echo "$k: ${RES[$k]}"; done | sort
if grep -q '^RESULT,' "$OUT/bench.log"; then
  echo "what,backend,log2,median_ms,floor_ms,fraction"
  grep '^RESULT,' "$OUT/bench.log" | cut -d, -f2-
fi
if [ -n "$CMP" ]; then
  echo
  echo "old: $CMP/zkpipe; new: $ZK; $ROUNDS round(s), each value the median of its run"
  printf '%-12s %12s %12s %8s\n' figure old new new/old
  for fig in $figs; do
    o=$(echo "${VAL[old,$fig]:-}" | tr ' ' '\n' | grep . | median)
    n=$(echo "${VAL[new,$fig]:-}" | tr ' ' '\n' | grep . | median)
    ratio=-
    [ -n "$o" ] && [ -n "$n" ] && ratio=$(awk -v a="$o" -v b="$n" 'BEGIN { printf "%.4f", b / a }')
    unit=ms; case $fig in engine27) unit=s ;; esac
    printf '%-12s %12s %12s %8s  (%s)\n' "$fig" "${o:-FAILED}" "${n:-FAILED}" "$ratio" "$unit"
  done
fi
} | tee "$OUT/summary.txt"
