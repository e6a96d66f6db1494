#!/usr/bin/env bash
# Loopback figures of the fleet's queue (docs/fleet.md) on a private
# PostgreSQL cluster (tests/fleet/pg.sh): the same client load against one
# daemon with the in-process queue and against 1, 2 and 3 daemons sharing
# the queue in the database, and the latency from submit to first claim on
# an idle fleet (from the database's own timestamps).
#
# usage: [ROUNDS=3] bash bench/fleet.sh /path/to/zkpipe [COUNT] [CIRCUIT]
#        (defaults: 300 jobs of synth:chain:6, one CPU worker of one thread
#        per daemon, 8 jobs in flight; the 1-daemon figures: medians of
#        ROUNDS rounds)
set -u
Z=${1:?usage: bench/fleet.sh /path/to/zkpipe [COUNT] [CIRCUIT]}
case $Z in /*) ;; *) Z=$PWD/$Z ;; esac
N=${2:-300}
CIRCUIT=${3:-synth:chain:6}
ROUNDS=${ROUNDS:-3}
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

daemon() { # name, options... (KEY: the key's name, c unless set)
  local name=$1 i
  shift
  "$Z" serve --listen "unix://$T/$name.sock" --key "${KEY:-c}=$CIRCUIT" --threads 1 "$@" >"$T/$name.log" 2>&1 &
  PIDS+=($!)
  for i in $(seq 1 300); do
    grep -q serve.start "$T/$name.log" && return 0
    sleep 0.1
  done
  cat "$T/$name.log"
  return 1
}
rate() { # address [key]: seconds per job of the timed run (its wall time / N)
  "$Z" bench batch --addr "unix://$T/$1.sock" --key "${2:-c}" --count "$N" --concurrency 8 2>&1 |
    awk -v n="$N" '$1 == "wall" { printf "%.6f\n", $2 / n; exit }'
}

Q=(--queue "$PGURL")
# One daemon with each queue, up together but loaded one at a time, in
# ROUNDS rounds: on a shared machine the load drifts between runs, so the
# overhead is the median of each round's difference. The two queue daemons
# share the database, so each has a key of its own name: neither claims
# the other's partitions.
daemon local || exit 1
daemon f1 "${Q[@]}" || exit 1
KEY=c0 daemon a1 "${Q[@]}" --queue-ahead 0 || exit 1
R0=() R1=() RA=()
for r in $(seq 1 "$ROUNDS"); do
  R0+=("$(rate local)") R1+=("$(rate f1)") RA+=("$(rate a1 c0)")
  echo "round $r: in-process ${R0[-1]} s, PostgreSQL ${R1[-1]} s, --queue-ahead 0 ${RA[-1]} s per job (load $(cut -d' ' -f1 /proc/loadavg))"
done
kill "${PIDS[0]}" "${PIDS[1]}" "${PIDS[2]}"
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
D1=() DA=()
for i in "${!R0[@]}"; do
  D1+=("$(awk -v a="${R0[$i]}" -v b="${R1[$i]}" 'BEGIN { print b - a }')")
  DA+=("$(awk -v a="${R0[$i]}" -v b="${RA[$i]}" 'BEGIN { print b - a }')")
done
r0=$(med "${R0[@]}") r1=$(med "${R1[@]}") ra=$(med "${RA[@]}")
daemon g1 "${Q[@]}" || exit 1
daemon g2 "${Q[@]}" || exit 1
r2=$(rate g1)
daemon g3 "${Q[@]}" || exit 1
r3=$(rate g1)
js() { awk -v s="$1" 'BEGIN { printf "%.1f jobs/s (%.2f ms per job)", 1 / s, s * 1000 }'; }
echo "$N jobs of $CIRCUIT, 8 in flight, one 1-thread CPU worker per daemon (1 daemon: medians of $ROUNDS rounds):"
echo "  in-process queue, 1 daemon:  $(js "$r0")"
echo "  PostgreSQL queue, 1 daemon:  $(js "$r1")"
echo "  PostgreSQL queue, 1 daemon, --queue-ahead 0: $(js "$ra")"
echo "  PostgreSQL queue, 2 daemons: $(js "$r2")"
echo "  PostgreSQL queue, 3 daemons: $(js "$r3")"
awk -v b="$(med "${D1[@]}")" -v c="$(med "${DA[@]}")" -v n="$ROUNDS" 'BEGIN { printf "overhead per partition, 1 daemon (queue - in-process, per job, median of %d rounds): %.2f ms; with --queue-ahead 0: %.2f ms\n", n, b * 1000, c * 1000 }'

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
