#!/usr/bin/env bash
# The fleet (docs/fleet.md): `zkpipe serve --queue` daemons sharing one job
# queue in a private PostgreSQL cluster (initdb in a temporary folder, a
# unix socket only, stopped on exit). CPU backend, small circuits.
#
#   schema     a database migrated by this binary, then marked newer: the
#              daemon refuses to start, saying so
#   one        one daemon: jobs of uploaded and shared-path witnesses, one
#              and several partitions, complete and verify
#   three      three daemons, 200 jobs submitted to different daemons and
#              awaited on others: each completes once, every proof verifies
#   kill       kill -9 of a daemon holding claims: they are proved elsewhere
#              after the heartbeat timeout, nothing lost or stored twice
#   dup        the same id submitted to two daemons at once: one job
#   cancel     a job cancelled while its partitions run on two daemons
#   restart    the database restarted mid-run: the daemons reconnect and
#              every job completes
#   ahead      a daemon of one worker holds one claim plus --queue-ahead:
#              three with the default (two per worker), one with 0; a
#              critical job claimed last overtakes those claimed ahead
#
# usage: bash fleet.test.sh /path/to/zkpipe [SECTION...]   (from tests/;
# exit 77: skipped where the daemon, libcurl, libpq or the PostgreSQL
# server binaries are absent)
set -u
Z=${1:?usage: fleet.test.sh /path/to/zkpipe [SECTION...]}
case $Z in /*) ;; *) Z=$PWD/$Z ;; esac
shift
SECTIONS=${*:-"schema one three kill dup cancel restart ahead"}
cd "$(dirname "$0")"

. ./server/lib.sh
skip_without_daemon
. ./fleet/pg.sh
if ! pg_find; then
  echo "no PostgreSQL server binaries (initdb, pg_ctl, postgres): skipped"
  exit 77
fi

T=$(mktemp -d /tmp/zp_fleet_test.XXXXXX)
chmod 755 "$T"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  pg_stop
  [ -n "${KEEP:-}" ] || rm -rf "$T"
  echo "T=$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

pg_start "$T/pg" || { echo "FAIL the private PostgreSQL cluster did not start"; exit 1; }
if "$Z" serve --listen "unix://$T/probe.sock" --key c=synth:chain:4 \
    --queue "postgresql:///none?host=$T/nonexistent" 2>&1 | grep -q "without libpq"; then
  echo "this zkpipe was built without libpq (the fleet's queue): skipped"
  exit 77
fi
# Fast liveness, so that the kill test takes seconds: heartbeats every
# 0.2 s, claims lost after 1.5 s of silence.
Q=(--queue "$PGURL" --queue-heartbeat 0.2 --queue-timeout 1.5 --queue-poll 0.5 --queue-backoff 0.2)
"$Z" setup synth:chain:6 --zpk "$T/c6.zpk" --vk-json "$T/c6_vk.json" >/dev/null 2>&1 &&
  "$Z" setup synth:chain:14 --zpk "$T/c14.zpk" --vk-json "$T/c14_vk.json" >/dev/null 2>&1 ||
  { echo "FAIL setup of the test keys"; exit 1; }
for s in 1 2 3 4; do
  "$Z" witness synth:chain:6 "$T/w$s.wtns" --seed "$s" --public "$T/pub$s.json" >/dev/null 2>&1 ||
    { echo "FAIL witness $s"; exit 1; }
done
"$Z" witness synth:chain:14 "$T/slow.wtns" --public "$T/slowpub.json" >/dev/null 2>&1 ||
  { echo "FAIL the slow witness"; exit 1; }

# Daemon NAME on $T/NAME.sock with the fleet options and more options.
fleet_daemon() {
  local name=$1
  shift
  start_daemon "$name" --listen "unix://$T/$name.sock" --threads 1 "${Q[@]}" "$@"
}
addr() { echo "--addr unix://$T/$1.sock"; }
# Each 192-byte proof of FILE against VK and PUBLIC.json: all verify.
verify_all() { # file vk public
  local n i
  n=$(($(size_of "$1") / 192))
  [ "$n" -ge 1 ] || return 1
  for i in $(seq 0 $((n - 1))); do
    dd if="$1" of="$1.$i" bs=192 skip="$i" count=1 status=none
    "$Z" verify "$2" "$3" "$1.$i" >/dev/null 2>&1 || return 1
  done
}
metric() { # daemon name: the value summed over label sets
  "$Z" request $(addr "$1") GET /metrics | awk -v m="$2" '$1 == m || index($1, m "{") == 1 { s += $2 } END { print s + 0 }'
}
machine_of() { psql_q "SELECT id FROM zp_machines WHERE pid = $1"; }
status_num() { # daemon field
  "$Z" request $(addr "$1") GET /v1/status | grep -o "\"$2\":[0-9]*" | head -1 | cut -d: -f2
}

# ------------------------------------------------------------ schema
if [[ " $SECTIONS " == *" schema "* ]]; then
  echo "== schema: migrations, and a newer schema refused"
  psql_q "CREATE DATABASE old" >/dev/null
  OLDURL="postgresql:///old?host=$PGSOCK&user=zkpipe"
  start_daemon s1 --listen "unix://$T/s1.sock" --key c=$T/c6.zpk --queue "$OLDURL" || cat "$T/s1.log"
  check "the daemon migrates a fresh database to version 1" \
    test "$("$PGBIN/psql" -X -A -t -h "$PGSOCK" -U zkpipe -d old -c 'SELECT version FROM zp_schema_version')" = 1
  kill "$DPID"
  wait_exit "$DPID" 10
  check "it stops cleanly (status 0)" test "$EXIT_RC" = 0
  "$PGBIN/psql" -X -q -h "$PGSOCK" -U zkpipe -d old -c 'UPDATE zp_schema_version SET version = 99'
  "$Z" serve --listen "unix://$T/s2.sock" --key c=$T/c6.zpk --queue "$OLDURL" >"$T/s2.log" 2>&1
  rc=$?
  check "a database of a newer schema: the daemon refuses (status 1)" test "$rc" = 1
  check "... saying the schema is newer than it knows" \
    grep -q "schema version 99, newer than this zkpipe knows (up to 1)" "$T/s2.log"
  "$Z" serve --listen "unix://$T/s3.sock" --key c=$T/c6.zpk --queue "postgresql:///nodb?host=$PGSOCK&user=zkpipe" >"$T/s3.log" 2>&1
  check "an unreachable database: refused with libpq's reason" grep -q 'database \\"nodb\\" does not exist' "$T/s3.log"
fi

# ------------------------------------------------------------ one
if [[ " $SECTIONS " =~ " "(one|three|dup|cancel|restart)" " ]]; then
  fleet_daemon d1 --key c=$T/c6.zpk || { cat "$T/d1.log"; exit 1; }
  D1=$DPID
fi
if [[ " $SECTIONS " == *" one "* ]]; then
  echo "== one daemon"
  id=$("$Z" submit $(addr d1) --key c --witness "$T/w1.wtns")
  "$Z" await $(addr d1) "$id" -o "$T/one1.bin" --public "$T/one1.json" --timeout 60 >/dev/null
  check "an uploaded witness (inline in the database): the proof verifies" verify_all "$T/one1.bin" "$T/c6_vk.json" "$T/pub1.json"
  check "... with its public inputs" test "$(tr -d ' \n' <"$T/one1.json")" = "$(tr -d ' \n' <"$T/pub1.json")"
  "$Z" submit $(addr d1) --key c --witness-path "$T/w2.wtns" --partitions 3 --id three-parts >/dev/null
  "$Z" await $(addr d1) three-parts -o "$T/one2.bin" --timeout 60 >/dev/null
  check "a shared-path witness, 3 partitions: 3 proofs that verify" \
    eval 'test "$(size_of "$T/one2.bin")" = 576 && verify_all "$T/one2.bin" "$T/c6_vk.json" "$T/pub2.json"'
  check "the path and its size and hash are in the database, not the bytes" \
    test "$(psql_q "SELECT data IS NULL, path = '$T/w2.wtns', size = $(size_of "$T/w2.wtns") FROM zp_witnesses WHERE job_id = 'three-parts'")" = "t|t|t"
  # A shared witness that changed after submit is refused before proving:
  # submitted through d0 (which serves another key) while d1, the one
  # daemon with key c, is stopped, and changed before d1 goes on.
  fleet_daemon d0 --key x=$T/c6.zpk || cat "$T/d0.log"
  D0=$DPID
  cp "$T/w3.wtns" "$T/wchg.wtns"
  kill -STOP "$D1"
  "$Z" submit $(addr d0) --key c --witness-path "$T/wchg.wtns" --id changed >/dev/null
  cp "$T/w4.wtns" "$T/wchg.wtns"
  kill -CONT "$D1"
  "$Z" await $(addr d0) changed --timeout 60 >"$T/chg.out" 2>&1
  check "a shared witness that changed after submit: the job fails naming the check" \
    grep -q "changed since submit" "$T/chg.out"
  check "... after 3 attempts, each with its reason" \
    test "$(psql_q "SELECT count(*) FROM zp_attempts WHERE job_id = 'changed' AND reason LIKE '%changed since submit%'")" = 3
  kill "$D0"
  # A witness that is not one (value 0 is not 1): another attempt would
  # fail the same way, so the job fails at the first, naming it.
  cp "$T/w1.wtns" "$T/wbad.wtns"
  printf '\002' | dd of="$T/wbad.wtns" bs=1 seek=76 conv=notrunc status=none
  "$Z" submit $(addr d1) --key c --witness "$T/wbad.wtns" --id badwit >/dev/null
  "$Z" await $(addr d1) badwit --timeout 60 >"$T/bad.out" 2>&1
  check "a witness whose value 0 is not 1: the job fails saying so" \
    grep -q "must be 1" "$T/bad.out"
  check "... after one attempt" \
    test "$(psql_q "SELECT count(*) FROM zp_attempts WHERE job_id = 'badwit'")" = 1
  check "a job for a key no machine serves: 404" \
    eval '"$Z" request $(addr d1) POST /v1/jobs --data "{\"key\":\"nokey\",\"synth_seed\":1}" 2>&1 | grep -q unknown_key'
  expect_404=$("$Z" request $(addr d1) GET /v1/jobs/nosuchjob 2>&1)
  check "an unknown job: 404 from the database" grep -q unknown_job <<<"$expect_404"
fi

# ------------------------------------------------------------ three
if [[ " $SECTIONS " =~ " "(three|dup|cancel|restart)" " ]]; then
  fleet_daemon d2 --key c=$T/c6.zpk || { cat "$T/d2.log"; exit 1; }
  D2=$DPID
  fleet_daemon d3 --key c=$T/c6.zpk || { cat "$T/d3.log"; exit 1; }
  D3=$DPID
fi
if [[ " $SECTIONS " == *" three "* ]]; then
  echo "== three daemons, 200 jobs"
  N=200
  t0=$(date +%s.%N)
  lp=()
  for d in 1 2 3; do
    (
      for i in $(seq "$d" 3 "$N"); do
        "$Z" submit $(addr d$d) --key c --witness "$T/w$((i % 4 + 1)).wtns" --id "m$i" >/dev/null ||
          echo "submit m$i failed"
      done
    ) &
    lp+=($!)
  done
  wait "${lp[@]}"
  lp=()
  for d in 1 2 3; do
    (
      for i in $(seq "$d" 3 "$N"); do
        "$Z" await $(addr d$((d % 3 + 1))) "m$i" -o "$T/m$i.bin" --timeout 120 >/dev/null 2>&1 ||
          echo "await m$i failed"
      done
    ) &
    lp+=($!)
  done
  wait "${lp[@]}"
  t1=$(date +%s.%N)
  echo "   200 jobs in $(echo "$t1 - $t0" | bc) s"
  bad=0
  for i in $(seq 1 "$N"); do
    verify_all "$T/m$i.bin" "$T/c6_vk.json" "$T/pub$((i % 4 + 1)).json" || bad=$((bad + 1))
  done
  check "200 jobs submitted to 3 daemons, awaited on others: every proof verifies" test "$bad" = 0
  check "every job done once in the database" \
    test "$(psql_q "SELECT count(*) FROM zp_jobs WHERE id LIKE 'm%' AND state = 'done'")" = "$N"
  check "every partition proved once (one attempt, no failure recorded)" \
    test "$(psql_q "SELECT count(*) FROM zp_partitions WHERE job_id LIKE 'm%' AND state = 'done' AND attempts = 1")/$(psql_q "SELECT count(*) FROM zp_attempts WHERE job_id LIKE 'm%'")" = "$N/0"
  stored=$(($(metric d1 zkpipe_queue_results_stored_total) + $(metric d2 zkpipe_queue_results_stored_total) + $(metric d3 zkpipe_queue_results_stored_total)))
  late=$(($(metric d1 zkpipe_queue_results_late_total) + $(metric d2 zkpipe_queue_results_late_total) + $(metric d3 zkpipe_queue_results_late_total)))
  check "the daemons stored $N results (one per partition, counting the one section), none late" \
    test "$stored/$late" = "$(psql_q "SELECT count(*) FROM zp_partitions WHERE state = 'done'")/0"
  check "the work spread over the three daemons" \
    test "$(psql_q "SELECT count(DISTINCT machine) FROM zp_partitions WHERE job_id LIKE 'm%'")" = 3
  st=$("$Z" status $(addr d2))
  check "zkpipe status shows the fleet's machines" test "$(grep -c '^  m[0-9]' <<<"$st")" -ge 3
  check "... and the queue by priority" grep -q "^  queue   jobs: critical 0, high 0, normal 0, low 0" <<<"$st"
fi

# ------------------------------------------------------------ kill
# wait_sql SECONDS SQL VALUE: until the query answers VALUE.
wait_sql() {
  local i
  for i in $(seq 1 $(($1 * 20))); do
    [ "$(psql_q "$2")" = "$3" ] && return 0
    sleep 0.05
  done
  return 1
}
if [[ " $SECTIONS " == *" kill "* ]]; then
  echo "== kill -9 of a daemon holding claims"
  fleet_daemon d4 --key slow=$T/c14.zpk || { cat "$T/d4.log"; exit 1; }
  D4=$DPID
  M4=$(machine_of "$D4")
  for i in 1 2 3; do
    "$Z" submit $(addr d4) --key slow --witness "$T/slow.wtns" --id "k$i" >/dev/null
  done
  check "d4 claims a partition" \
    wait_sql 30 "SELECT count(*) > 0 FROM zp_partitions WHERE machine = $M4 AND state = 'claimed'" t
  kill -9 "$D4"
  wait "$D4" 2>/dev/null
  fleet_daemon d5 --key slow=$T/c14.zpk || { cat "$T/d5.log"; exit 1; }
  D5=$DPID
  ok=1
  for i in 1 2 3; do
    "$Z" await $(addr d5) "k$i" -o "$T/k$i.bin" --timeout 60 >/dev/null 2>&1 &&
      verify_all "$T/k$i.bin" "$T/c14_vk.json" "$T/slowpub.json" || ok=0
  done
  check "every job of the killed daemon completes elsewhere, and its proof verifies" test "$ok" = 1
  check "the killed daemon's claim went back after the timeout (its attempt recorded)" \
    test "$(psql_q "SELECT count(*) > 0 FROM zp_attempts WHERE job_id LIKE 'k%' AND machine = $M4 AND reason LIKE '%stopped heartbeating%'")" = t
  check "each partition is done once, the reaped one after a second attempt" \
    test "$(psql_q "SELECT count(*) FILTER (WHERE state = 'done'), max(attempts) FROM zp_partitions WHERE job_id LIKE 'k%'")" = "3|2"
  check "each job's proof is one proof (stored once)" \
    test "$(psql_q "SELECT string_agg(length(proofs)::text, ',') FROM zp_jobs WHERE id LIKE 'k%'")" = "192,192,192"
  check "the dead machine's row is gone" test "$(psql_q "SELECT count(*) FROM zp_machines WHERE id = $M4")" = 0

  # A daemon that lost its claim while alive (stopped past the timeout):
  # its late proof is discarded, or its local work cancelled first.
  M5=$(machine_of "$D5")
  "$Z" submit $(addr d5) --key slow --witness "$T/slow.wtns" --id late1 >/dev/null
  wait_sql 30 "SELECT count(*) FROM zp_partitions WHERE job_id = 'late1' AND state = 'claimed' AND machine = $M5" 1
  fleet_daemon d8 --key slow=$T/c14.zpk || { cat "$T/d8.log"; exit 1; }
  kill -STOP "$D5"
  wait_sql 30 "SELECT count(*) FROM zp_partitions WHERE job_id = 'late1' AND (state = 'queued' OR machine <> $M5)" 1
  kill -CONT "$D5"
  "$Z" await $(addr d5) late1 -o "$T/late1.bin" --timeout 60 >/dev/null 2>&1
  check "a claim lost while its daemon was stopped: proved elsewhere, and verifies" \
    verify_all "$T/late1.bin" "$T/c14_vk.json" "$T/slowpub.json"
  check "... stored once, by the other daemon" \
    test "$(psql_q "SELECT attempts, machine <> $M5, length(j.proofs) FROM zp_partitions p JOIN zp_jobs j ON j.id = p.job_id WHERE job_id = 'late1'")" = "2|t|192"
  sleep 1
  check "the stopped daemon discarded its late proof or cancelled its local work" \
    test $(($(metric d5 zkpipe_queue_results_late_total) + $(status_num d5 jobs_cancelled))) -ge 1
  check "... and joined the fleet again" grep -q fleet.rejoin "$T/d5.log"
fi

# ------------------------------------------------------------ dup
if [[ " $SECTIONS " == *" dup "* ]]; then
  echo "== the same id submitted to two daemons at once"
  ok=1
  for k in 1 2 3 4 5; do
    "$Z" submit $(addr d1) --key c --witness "$T/w1.wtns" --id "dup$k" >"$T/dupa$k" 2>&1 &
    a=$!
    "$Z" submit $(addr d2) --key c --witness "$T/w1.wtns" --id "dup$k" >"$T/dupb$k" 2>&1 &
    b=$!
    wait "$a" && wait "$b" && test "$(cat "$T/dupa$k")" = "dup$k" -a "$(cat "$T/dupb$k")" = "dup$k" || ok=0
  done
  check "both submits of each id succeed with that id" test "$ok" = 1
  check "... and each id is one job of one partition" \
    test "$(psql_q "SELECT count(*) FROM zp_jobs WHERE id LIKE 'dup%'")/$(psql_q "SELECT count(*) FROM zp_partitions WHERE job_id LIKE 'dup%'")" = "5/5"
  out=$("$Z" submit $(addr d3) --key c --witness "$T/w2.wtns" --id dup1 2>&1)
  check "the same id with another request: refused as a conflict" grep -q "different request" <<<"$out"
  "$Z" await $(addr d3) dup5 -o "$T/dup5.bin" --timeout 60 >/dev/null
  check "the job proves once" verify_all "$T/dup5.bin" "$T/c6_vk.json" "$T/pub1.json"
fi

# ------------------------------------------------------------ cancel
if [[ " $SECTIONS " == *" cancel "* ]]; then
  echo "== cancel while partitions run on two daemons"
  fleet_daemon d6 --key slow2=$T/c14.zpk || { cat "$T/d6.log"; exit 1; }
  D6=$DPID
  fleet_daemon d7 --key slow2=$T/c14.zpk || { cat "$T/d7.log"; exit 1; }
  D7=$DPID
  "$Z" submit $(addr d1) --key slow2 --witness "$T/slow.wtns" --partitions 6 --id cx >/dev/null
  check "its partitions run on two daemons" \
    wait_sql 30 "SELECT count(DISTINCT machine) FROM zp_partitions WHERE job_id = 'cx' AND state = 'claimed'" 2
  "$Z" cancel $(addr d2) cx >/dev/null
  done_at_cancel=$(psql_q "SELECT count(*) FROM zp_partitions WHERE job_id = 'cx' AND state = 'done'")
  out=$("$Z" await $(addr d3) cx --timeout 10 2>&1)
  check "the job is cancelled, as any daemon says" grep -q cancelled <<<"$out"
  check "the running partitions were cancelled on both daemons" \
    wait_sql 10 "SELECT 1 WHERE $(status_num d6 jobs_cancelled) >= 1 AND $(status_num d7 jobs_cancelled) >= 1" 1
  sleep 1
  check "no partition is claimed or stored after the cancel" \
    test "$(psql_q "SELECT count(*) FILTER (WHERE state = 'claimed'), count(*) FILTER (WHERE state = 'done') FROM zp_partitions WHERE job_id = 'cx'")" = "0|$done_at_cancel"
  kill "$D6" "$D7"
fi

# ------------------------------------------------------------ restart
if [[ " $SECTIONS " == *" restart "* ]]; then
  echo "== the database restarted mid-run"
  for i in $(seq 1 30); do
    "$Z" submit $(addr d$((i % 3 + 1))) --key c --witness "$T/w$((i % 4 + 1)).wtns" --id "r$i" >/dev/null ||
      echo "submit r$i failed"
  done
  pg_restart
  bad=0
  for i in $(seq 1 30); do
    "$Z" await $(addr d$(((i + 1) % 3 + 1))) "r$i" -o "$T/r$i.bin" --timeout 60 >/dev/null 2>&1 &&
      verify_all "$T/r$i.bin" "$T/c6_vk.json" "$T/pub$((i % 4 + 1)).json" || bad=$((bad + 1))
  done
  check "every job completes after the restart and its proof verifies" test "$bad" = 0
  check "... each once" \
    test "$(psql_q "SELECT count(*) FROM zp_partitions WHERE job_id LIKE 'r%' AND state = 'done'")" = 30
  alive=0
  for p in $D1 $D2 $D3; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
  check "the daemons stayed up" test "$alive" = 3
  rc=$(($(metric d1 zkpipe_queue_reconnects_total) + $(metric d2 zkpipe_queue_reconnects_total) + $(metric d3 zkpipe_queue_reconnects_total)))
  check "... and reconnected ($rc connections made again)" test "$rc" -ge 3
fi

# ------------------------------------------------------------ ahead
max_claims() { # machine seconds: the most claims it held, sampled every 50 ms
  local most=0 n i
  for i in $(seq 1 $(($2 * 20))); do
    n=$(psql_q "SELECT count(*) FROM zp_partitions WHERE machine = $1 AND state = 'claimed'")
    [ "$n" -gt "$most" ] && most=$n
    sleep 0.05
  done
  echo "$most"
}
if [[ " $SECTIONS " == *" ahead "* ]]; then
  echo "== claims ahead of the workers"
  # Six slow jobs for a key no other daemon serves, on one daemon of one
  # worker, then a critical one: the claims it holds while they run.
  for ahead in auto 0; do
    fleet_daemon "a$ahead" --key "ah$ahead=$T/c14.zpk" --queue-ahead "$ahead" || cat "$T/a$ahead.log"
    A=$DPID
    m=$(machine_of "$A")
    for i in 1 2 3 4 5 6; do
      "$Z" submit $(addr "a$ahead") --key "ah$ahead" --witness-path "$T/slow.wtns" --id "ah$ahead.$i" >/dev/null
    done
    # A critical job after them: claimed when a slot frees, it starts
    # before the ones claimed ahead that still wait locally.
    "$Z" submit $(addr "a$ahead") --key "ah$ahead" --witness-path "$T/slow.wtns" --id "ah$ahead.crit" \
      --priority critical >/dev/null
    most=$(max_claims "$m" 2)
    for i in 1 2 3 4 5 6 crit; do
      "$Z" await $(addr "a$ahead") "ah$ahead.$i" --timeout 120 >/dev/null
    done
    want=$([ "$ahead" = auto ] && echo 3 || echo 1)
    check "--queue-ahead $ahead: a daemon of one worker holds up to $want claims (saw $most at most)" \
      test "$most" = "$want"
    check "... and the seven jobs complete once each" \
      test "$(psql_q "SELECT count(*) FROM zp_partitions WHERE job_id LIKE 'ah$ahead.%' AND state = 'done'")" = 7
    if [ "$ahead" = auto ]; then
      # The partitions held here when the critical one was claimed: one of
      # them runs (one worker), the others wait. The critical one must be
      # proved before every waiting one, whatever the timing of the submits
      # (on a busy machine the first jobs may be done before it arrives).
      held=$(psql_q "WITH c AS (SELECT claimed, done FROM zp_partitions WHERE job_id = 'ahauto.crit'),
          s AS (SELECT p.done FROM zp_partitions p, c WHERE p.job_id LIKE 'ahauto.%'
                AND p.job_id <> 'ahauto.crit' AND p.claimed < c.claimed AND p.done > c.claimed)
        SELECT (SELECT count(*) FROM s) || ' ' || (SELECT count(*) FROM s, c WHERE s.done > c.done)")
      read -r n_held n_after <<<"$held"
      check "... the critical job, claimed last, is proved before the $((n_held > 0 ? n_held - 1 : 0)) held ahead and waiting (overtook $n_after)" \
        test "$n_after" -ge $((n_held - 1))
    fi
    kill "$A"
    wait_exit "$A" 30
  done
fi

echo "fails=$fails passes=$passes"
[ "$fails" = 0 ]
