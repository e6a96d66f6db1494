#!/usr/bin/env bash
# The fleet's queue on a GPU (docs/fleet.md): one daemon proving a big
# circuit with the in-process queue, then one with --queue in a private
# PostgreSQL cluster (tests/fleet/pg.sh), the same client load against
# each, one after the other in one run. Prints each one's s/proof (wall
# time per job of PARTS partitions, `zkpipe bench batch`'s own line) and
# the queue's as a multiple of the in-process one (issue 36: <= 1.02).
#
# usage: bash bench/fleet_gpu.sh /path/to/zkpipe [CIRCUIT [COUNT]]
#        (defaults synth:porep:27, 3 jobs; PARTS=10 partitions a job,
#        CONC=2 jobs in flight, DEV="--gpus 1" the daemon's workers,
#        AHEADS="auto" the --queue-ahead values to run, PG_BIN the server's
#        folder and PG_OWNER its user as root, as tests/fleet/pg.sh)
set -u
Z=${1:?usage: bench/fleet_gpu.sh /path/to/zkpipe [CIRCUIT [COUNT]]}
case $Z in /*) ;; *) Z=$PWD/$Z ;; esac
CIRCUIT=${2:-synth:porep:27}
COUNT=${3:-3}
cd "$(dirname "$0")/../tests"
. ./fleet/pg.sh
pg_find || { echo "no PostgreSQL server binaries"; exit 1; }
"$Z" serve --help 2>&1 | grep -q -- "--queue-ahead" || { echo "$Z was built without the fleet queue"; exit 1; }
T=$(mktemp -d /tmp/zp_fleet_gpu.XXXXXX)
chmod 755 "$T"
trap 'pg_stop; rm -rf "$T"' EXIT
pg_start "$T/pg" || exit 1

run() { # name, serve options...: one daemon, one batch; prints "name: S s/proof"
  local name=$1 sock=$T/$1.sock i sp
  shift
  # Two synthetic witnesses made once and reused: the daemon proves, it
  # does not spend seconds a partition making witnesses.
  "$Z" serve --no-config --listen "unix://$sock" ${DEV:---gpus 1} --key "bench=$CIRCUIT" \
    --synth-witnesses 2 "$@" >"$T/$name.log" 2>&1 &
  sp=$!
  for i in $(seq 1 600); do
    grep -q serve.start "$T/$name.log" && break
    kill -0 $sp 2>/dev/null || break
    sleep 0.5
  done
  grep -q serve.start "$T/$name.log" || { echo "$name: the daemon did not start"; tail -5 "$T/$name.log"; kill $sp 2>/dev/null; return 1; }
  "$Z" bench batch --addr "unix://$sock" --key bench --count "$COUNT" \
    --partitions "${PARTS:-10}" --concurrency "${CONC:-2}" >"$T/$name.batch" 2>&1
  local rc=$?
  kill -TERM $sp; wait $sp
  [ $rc = 0 ] || { echo "$name: bench batch failed (exit $rc)"; tail -5 "$T/$name.batch"; return 1; }
  grep -E "^(wall|steady)" "$T/$name.batch" | sed "s/^/$name: /" >&2
  awk -v n="$name" '$1 == "wall" { for (i = 3; i <= NF; i++) if ($i == "per" && $(i+1) == "job") { print n ": " $(i-2) " s/proof"; exit } }' "$T/$name.batch"
}

echo "commit $(git rev-parse --short HEAD 2>/dev/null), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $CIRCUIT, $COUNT jobs of ${PARTS:-10} partitions, ${CONC:-2} in flight"
S=$(run in-process) || exit 1
echo "$S"
for a in ${AHEADS:-auto}; do
  Q=$(run "queue-ahead-$a" --queue "$PGURL" --queue-ahead "$a") || exit 1
  echo "$Q" | awk -v l="$(echo "$S" | awk '{print $2}')" '{ printf "%s (%.4f x in-process)\n", $0, $2 / l }'
done
