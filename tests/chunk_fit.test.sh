#!/usr/bin/env bash
# bench/chunk_fit.sh over logs made up here: chunk times on an exact line
# (8.5 ms + 5.07 ms a million points) at two buffer sizes in two files give
# that line back; chunks of one size give no line; the warm-up's runs are
# left out; a log without chunk lines, or none readable, is an error.
set -u
FIT=$(cd "$(dirname "$0")/.." && pwd)/bench/chunk_fit.sh
T=$(mktemp -d /tmp/zp_chunkfit_XXXXXX)
trap 'rm -rf "$T"' EXIT
passes=0
fails=0
check() {
  if eval "$2"; then
    echo "ok   $1"
    passes=$((passes + 1))
  else
    echo "FAIL $1"
    sed 's/^/       | /' "$T/out"
    fails=$((fails + 1))
  fi
}
# log FILE POINTS [FIELDS]: runs 1..5 of a schedule, each three H chunks of
# POINTS (the first two runs 1000 ms, the warm-up's) and one resident L
# chunk; FIELDS (windows and windows a pass) end the H chunks' lines.
log() {
  for run in 1 2 3 4 5; do
    for j in 0 1 2; do
      ms=$(awk -v p="$2" -v r="$run" 'BEGIN { printf "%.3f", r < 3 ? 1000 : 8.5 + 5.07 * p / 1e6 }')
      echo "2026-12-05T00:00:00.000Z debug sched.chunk run=$run j=$j msm=H streamed=1" \
        "buffers=1 points=$2 wait_ms=0.010 sum_ms=$ms end_ms=1.0${3:+ $3}"
    done
    echo "2026-12-05T00:00:00.000Z debug sched.chunk run=$run j=3 msm=L streamed=0" \
      "buffers=0 points=4000000 wait_ms=0.000 sum_ms=20.000 end_ms=2.0"
    echo "2026-12-05T00:00:00.000Z debug job.finished job=x"
  done > "$1"
}
log "$T/24.log" 11180000
log "$T/48.log" 22370000 "windows=13 per_pass=5"

bash "$FIT" "$T/24.log" "$T/48.log" > "$T/out" 2>&1
rc=$?
check "two arenas: exit 0" '[ $rc -eq 0 ]'
check "two arenas: the line back" 'grep -q "^H streamed .* 8\.50+5\.070/M  13/5$" "$T/out"'
check "two arenas: 18 H chunks, 3 a run, 6 runs" \
  'grep -q "^H streamed  *18  *3\.0 " "$T/out" && grep -q "^6 schedule runs" "$T/out"'
check "one size: L has no line, no windows logged" 'grep -q "^L resident .* -  -$" "$T/out"'
check "one size: L 20 ms a run, 5 ns a point" 'grep -q "^L resident  *6  *1\.0  *4\.00  *20\.0  *5\.000 " "$T/out"'

bash "$FIT" "$T/24.log" > "$T/out" 2>&1
check "one arena: no line for H" 'grep -q "^H streamed .* -  -$" "$T/out"'

FROM=1 bash "$FIT" "$T/24.log" > "$T/out" 2>&1
check "FROM=1 counts the warm-up" 'grep -q "^H streamed  *15 " "$T/out"'

grep -v sched.chunk "$T/24.log" > "$T/none.log"
bash "$FIT" "$T/none.log" > "$T/out" 2>&1
rc=$?
check "no chunk lines: exit 1, says why" '[ $rc -eq 1 ] && grep -q "no sched.chunk lines" "$T/out"'
bash "$FIT" "$T/missing.log" > "$T/out" 2>&1
rc=$?
check "unreadable log: exit 2, names it" '[ $rc -eq 2 ] && grep -q "cannot read .*missing.log" "$T/out"'

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
