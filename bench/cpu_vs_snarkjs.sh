#!/usr/bin/env bash
# zkpipe's CPU prover against snarkjs on the same circuit, key and witness,
# side by side in one run (docs/tuning.md, How to benchmark: compare within one run, never
# across days).
#
#   bench/cpu_vs_snarkjs.sh [options] [LOG2 ...]        (default LOG2: 10 12 14 16)
#
# For each LOG2: `zkpipe setup synth:NAME:LOG2` writes one TEST-ONLY key as
# both key.zkey and key.zpk (the same key), `zkpipe witness` writes w.wtns;
# then, interleaved round by round so that a busy machine slows all three
# alike, the wall time of
#   snarkjs   node snarkjs/build/cli.cjs groth16 prove key.zkey w.wtns ...
#   zkpipe    zkpipe prove key.zkey w.wtns ...   (reads the .zkey, checks every point)
#   zkpipe    zkpipe prove key.zpk  w.wtns ...   (maps the .zpk, checks its checksums)
# each timed from process start to exit, i.e. with key loading, as a user
# sees it. Medians of --reps runs (default 3). Sanity: snarkjs must verify
# zkpipe's proof and zkpipe must verify snarkjs' proof, or the row says so.
# Prints a markdown table; ratio = snarkjs time / zkpipe time.
#
# options:
#   --zkpipe PATH    the zkpipe binary (default: $ZKPIPE, else build/zkpipe)
#   --circuit NAME   chain (default), porep or dense
#   --reps N         runs per prover and size (default 3)
#   --threads T      zkpipe worker threads (default: one per CPU, as snarkjs)
#   --keep DIR       keep keys, witnesses and proofs in DIR (default: a temp dir)
#   --baseline PATH  also time this other zkpipe binary (e.g. an older build)
#                    on the same key and witness, in the same rounds: two
#                    more columns, and its own ratios to snarkjs
set -u
# The .zkey column measures a first load (every point checked): no key cache.
export ZKPIPE_CACHE=off
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ZKPIPE=${ZKPIPE:-$ROOT/build/zkpipe}
CIRCUIT=chain
REPS=3
THREADS=()
KEEP=
BASE=
SIZES=()
while [ $# -gt 0 ]; do
  case $1 in
    --zkpipe) ZKPIPE=$2; shift 2 ;;
    --circuit) CIRCUIT=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --threads) THREADS=(--threads "$2"); shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    --baseline) BASE=$2; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "cpu_vs_snarkjs: unknown option $1" >&2; exit 2 ;;
    *) SIZES+=("$1"); shift ;;
  esac
done
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10 12 14 16)
case $ZKPIPE in /*) ;; *) ZKPIPE=$PWD/$ZKPIPE ;; esac
if [ -n "$BASE" ]; then
  case $BASE in /*) ;; *) BASE=$PWD/$BASE ;; esac
  [ -x "$BASE" ] || { echo "cpu_vs_snarkjs: $BASE is not executable (--baseline PATH)" >&2; exit 2; }
fi
SNARKJS_CLI=$ROOT/tests/js/node_modules/snarkjs/build/cli.cjs
[ -x "$ZKPIPE" ] || { echo "cpu_vs_snarkjs: $ZKPIPE is not executable (--zkpipe PATH)" >&2; exit 2; }
command -v node >/dev/null || { echo "cpu_vs_snarkjs: node is not installed" >&2; exit 2; }
[ -f "$SNARKJS_CLI" ] || { echo "cpu_vs_snarkjs: no snarkjs (cd tests/js && npm ci)" >&2; exit 2; }
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "cpu_vs_snarkjs: --reps wants a positive integer" >&2; exit 2; }

if [ -n "$KEEP" ]; then
  mkdir -p "$KEEP" && W=$(cd "$KEEP" && pwd)
else
  W=$(mktemp -d /tmp/zp_vs_snarkjs_XXXXXX)
  trap 'rm -rf "$W"' EXIT
fi

# run_timed LOG CMD...: runs CMD with its output in LOG; prints the wall
# seconds; returns CMD's status.
run_timed() {
  local log=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >"$log" 2>&1
  local rc=$?
  t1=$(date +%s.%N)
  echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}'
  return $rc
}

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {m=int((NR+1)/2); if (NR%2) print v[m]; else printf "%.3f\n", (v[m]+v[m+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}'; }

echo "# zkpipe CPU prover vs snarkjs 0.7.6 ($(date -u +%Y-%m-%dT%H:%MZ))"
echo
echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'); node $(node --version); zkpipe threads: ${THREADS[1]:-one per CPU}"
echo "- circuit synth:$CIRCUIT:LOG2, TEST-ONLY keys from zkpipe setup; wall time per proof incl. key loading; median of $REPS"
echo
rows=()
for L in "${SIZES[@]}"; do
  D=$W/$CIRCUIT-$L
  mkdir -p "$D"
  spec=synth:$CIRCUIT:$L
  echo "[$spec] setup and witness ..." >&2
  if ! "$ZKPIPE" setup "${THREADS[@]}" "$spec" --zkey "$D/key.zkey" --zpk "$D/key.zpk" \
       --vk-json "$D/vk.json" >"$D/setup.log" 2>&1; then
    cat "$D/setup.log" >&2; echo "cpu_vs_snarkjs: setup failed for $spec" >&2; exit 1
  fi
  constraints=$(grep -o '[0-9]* constraints' "$D/setup.log" | head -1 | cut -d' ' -f1)
  "$ZKPIPE" witness "$spec" "$D/w.wtns" >"$D/witness.log" 2>&1 ||
    { cat "$D/witness.log" >&2; exit 1; }
  ts=(); tz=(); tp=(); bz=(); bp=(); fail=
  for r in $(seq "$REPS"); do
    echo "[$spec] round $r/$REPS ..." >&2
    t=$(run_timed "$D/snarkjs.log" node "$SNARKJS_CLI" groth16 prove "$D/key.zkey" "$D/w.wtns" \
        "$D/sp.json" "$D/spub.json") || fail="snarkjs prove failed"
    ts+=("$t")
    t=$(run_timed "$D/zkey.log" "$ZKPIPE" prove "${THREADS[@]}" "$D/key.zkey" "$D/w.wtns" \
        "$D/zp_zkey.json" "$D/zpub_zkey.json") || fail="zkpipe prove (.zkey) failed"
    tz+=("$t")
    t=$(run_timed "$D/zpk.log" "$ZKPIPE" prove "${THREADS[@]}" "$D/key.zpk" "$D/w.wtns" \
        "$D/zp.json" "$D/zpub.json") || fail="zkpipe prove (.zpk) failed"
    tp+=("$t")
    if [ -n "$BASE" ]; then
      t=$(run_timed "$D/bzkey.log" "$BASE" prove "${THREADS[@]}" "$D/key.zkey" "$D/w.wtns" \
          "$D/bz.json" "$D/bzpub.json") || fail="baseline prove (.zkey) failed"
      bz+=("$t")
      t=$(run_timed "$D/bzpk.log" "$BASE" prove "${THREADS[@]}" "$D/key.zpk" "$D/w.wtns" \
          "$D/bp.json" "$D/bppub.json") || fail="baseline prove (.zpk) failed"
      bp+=("$t")
    fi
  done
  check=OK
  [ -n "$fail" ] && check=$fail
  if [ -z "$fail" ]; then
    node "$SNARKJS_CLI" groth16 verify "$D/vk.json" "$D/zpub.json" "$D/zp.json" >"$D/sverify.log" 2>&1 &&
      grep -q 'OK' "$D/sverify.log" || check="snarkjs REJECTS zkpipe's proof"
    "$ZKPIPE" verify "$D/vk.json" "$D/spub.json" "$D/sp.json" >"$D/zverify.log" 2>&1 ||
      check="zkpipe REJECTS snarkjs' proof"
  fi
  ms=$(median "${ts[@]}"); mz=$(median "${tz[@]}"); mp=$(median "${tp[@]}")
  load_z=$(grep -o 'loading [0-9.]*' "$D/zkey.log" | cut -d' ' -f2)
  load_p=$(grep -o 'loading [0-9.]*' "$D/zpk.log" | cut -d' ' -f2)
  row="| $L | $constraints | $ms | $mz (load ${load_z:-?}) | $mp (load ${load_p:-?}) | $(ratio "$ms" "$mz") | $(ratio "$ms" "$mp") |"
  if [ -n "$BASE" ]; then
    mbz=$(median "${bz[@]}"); mbp=$(median "${bp[@]}")
    row="$row $mbz | $mbp | $(ratio "$ms" "$mbz") | $(ratio "$ms" "$mbp") |"
    echo "[$spec] baseline .zkey ${bz[*]} | baseline .zpk ${bp[*]}" >&2
  fi
  rows+=("$row $check |")
  echo "[$spec] snarkjs ${ts[*]} | zkpipe .zkey ${tz[*]} | zkpipe .zpk ${tp[*]}" >&2
done
if [ -n "$BASE" ]; then
  echo "| LOG2 | constraints | snarkjs s | zkpipe .zkey s | zkpipe .zpk s | ratio .zkey | ratio .zpk | baseline .zkey s | baseline .zpk s | baseline ratio .zkey | baseline ratio .zpk | check |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
else
  echo "| LOG2 | constraints | snarkjs s | zkpipe .zkey s | zkpipe .zpk s | ratio .zkey | ratio .zpk | check |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---|"
fi
printf '%s\n' "${rows[@]}"
echo
echo "load = zkpipe's own key-loading time of the last run (s), inside its wall time."
echo "ratio = snarkjs s / zkpipe s (above 1: zkpipe is faster)."
[ -z "$BASE" ] || echo "baseline: $BASE, timed in the same rounds on the same files."
