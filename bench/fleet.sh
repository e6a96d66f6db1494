#!/usr/bin/env bash
# Loopback figures of the fleet's queue (docs/fleet.md) on a private
# PostgreSQL cluster (tests/fleet/pg.sh): the same client load against one
# daemon with the in-process queue and against 1, 2 and 3 daemons sharing
# the queue in the database, and the latency from submit to first claim on
# an idle fleet (from the database's own timestamps).
#
# usage: bash bench/fleet.sh /path/to/zkpipe [COUNT] [CIRCUIT]
#        (defaults: 300 jobs of synth:chain:6, one CPU worker of one thread
#        per daemon, 8 jobs in flight)
set -u
Z=${1:?usage: bench/fleet.sh /path/to/zkpipe [COUNT] [CIRCUIT]}
case $Z in /*) ;; *) Z=$PWD/$Z ;; esac
N=${2:-300}
CIRCUIT=${3:-synth:chain:6}
cd "$(dirname "$0")/../tests"
. ./fleet/pg.sh
pg_find || { echo "no PostgreSQL server binaries"; exit 1; }
T=$(mktemp -d /tmp/zp_fleet_bench.XXXXXX)
chmod 755 "$T"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  pg_stop
  rm -rf "$T"
}
trap cleanup EXIT
pg_start "$T/pg" || exit 1

daemon() { # name, options...
  local name=$1 i
  shift
  "$Z" serve --listen "unix://$T/$name.sock" --key "c=$CIRCUIT" --threads 1 "$@" >"$T/$name.log" 2>&1 &
  PIDS+=($!)
  for i in $(seq 1 300); do
    grep -q serve.start "$T/$name.log" && return 0
    sleep 0.1
  done
  cat "$T/$name.log"
  return 1
}
rate() { # address: seconds per job of the timed run (its wall time / N)
  "$Z" bench batch --addr "unix://$T/$1.sock" --key c --count "$N" --concurrency 8 2>&1 |
    awk -v n="$N" '$1 == "wall" { printf "%.6f\n", $2 / n; exit }'
}

Q=(--queue "$PGURL")
daemon local || exit 1
r0=$(rate local)
kill "${PIDS[0]}"
daemon f1 "${Q[@]}" || exit 1
r1=$(rate f1)
kill "${PIDS[1]}"
daemon a1 "${Q[@]}" --queue-ahead 0 || exit 1
ra=$(rate a1)
kill "${PIDS[2]}"
daemon g1 "${Q[@]}" || exit 1
daemon g2 "${Q[@]}" || exit 1
r2=$(rate g1)
daemon g3 "${Q[@]}" || exit 1
r3=$(rate g1)
js() { awk -v s="$1" 'BEGIN { printf "%.1f jobs/s (%.2f ms per job)", 1 / s, s * 1000 }'; }
echo "$N jobs of $CIRCUIT, 8 in flight, one 1-thread CPU worker per daemon:"
echo "  in-process queue, 1 daemon:  $(js "$r0")"
echo "  PostgreSQL queue, 1 daemon:  $(js "$r1")"
echo "  PostgreSQL queue, 1 daemon, --queue-ahead 0: $(js "$ra")"
echo "  PostgreSQL queue, 2 daemons: $(js "$r2")"
echo "  PostgreSQL queue, 3 daemons: $(js "$r3")"
awk -v a="$r0" -v b="$r1" -v c="$ra" 'BEGIN { printf "overhead per partition, 1 daemon (queue - in-process, per job): %.2f ms; with --queue-ahead 0: %.2f ms\n", (b - a) * 1000, (c - a) * 1000 }'

# Claim-to-stored time, as the daemons measure it (proving included), and
# the proving time of the local engine (its partitions' busy time).
for d in g1 g2 g3; do
  "$Z" request --addr "unix://$T/$d.sock" GET /metrics
done | awk '/^zkpipe_queue_claim_to_result_seconds_total/ { s += $2 } /^zkpipe_queue_results_stored_total/ { n += $2 }
  END { if (n) printf "claim to stored result, mean over %d partitions: %.2f ms (proving and verifying included)\n", n, s / n * 1000 }'

# Submit to first claim on an idle fleet: one job at a time, the fleet
# idle before each (three daemons waiting in LISTEN).
for i in $(seq 1 30); do
  "$Z" submit --addr "unix://$T/g$((i % 3 + 1)).sock" --key c --synth "$i" --id "lat$i" >/dev/null
  "$Z" await --addr "unix://$T/g1.sock" "lat$i" --timeout 30 >/dev/null
  sleep 0.1
done
psql_q "SELECT format('submit to first claim, idle fleet of 3 (30 jobs): median %s ms, max %s ms',
          round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 2), round(max(ms)::numeric, 2))
        FROM (SELECT extract(epoch FROM min(p.claimed) - j.submitted) * 1000 AS ms
              FROM zp_jobs j JOIN zp_partitions p ON p.job_id = j.id WHERE j.id LIKE 'lat%' GROUP BY j.id, j.submitted) t"
