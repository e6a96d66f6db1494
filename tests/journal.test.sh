#!/usr/bin/env bash
# 'zkpipe serve --state-dir': accepted jobs survive SIGKILL. 50 jobs (half
# uploaded, so spooled; half named by path) are submitted while the daemon
# is killed at random moments and started again on the same state folder;
# then every job the daemon accepted is done exactly once: each proof
# verifies (zkpipe verify), a proof seen before a kill is the proof served
# after it, the same id submitted again is the same job, and the spool
# folder is empty. A journal cut by a few bytes still starts, with a log
# line. CPU backend, a unix socket in a temporary folder; every wait is
# bounded.
#
# usage: bash journal.test.sh /path/to/zkpipe   (from tests/; exit 77: skipped)
set -u
Z=${1:?usage: journal.test.sh /path/to/zkpipe}
case $Z in /*) ;; *) Z=$PWD/$Z ;; esac
cd "$(dirname "$0")"

. ./server/lib.sh
skip_without_daemon

temp_folder zp_journal_test

S=$T/state
A=(--addr "unix://$T/d.sock")
W=$PWD/data/mul3.wtns
N=50
RANDOM=${SEED:-$$}
echo "seed: RANDOM=${SEED:-$$}"

up() { # name: a daemon on the state folder
  start_daemon "$1" --no-config --listen "unix://$T/d.sock" --workers 1 \
    --key mul3=data/mul3.zkey --key blk=synth:chain:10 --state-dir "$S" --grace 0
}

# Job i: odd ones upload the witness, even ones name it; 2 partitions
# every third one.
submit() {
  local i=$1 parts=1
  [ $((i % 3)) = 0 ] && parts=2
  if [ $((i % 2)) = 1 ]; then
    "$Z" submit "${A[@]}" --id "j$i" --key mul3 --witness "$W" --partitions $parts 2>/dev/null
  else
    "$Z" submit "${A[@]}" --id "j$i" --key mul3 --witness-path "$W" --partitions $parts 2>/dev/null
  fi
}

echo "== --state-dir with --queue is ignored, with a note"
out=$("$Z" serve --no-config --listen "unix://$T/x.sock" --key mul3=data/mul3.zkey \
  --state-dir "$S/q" --queue postgresql://127.0.0.1:1/nowhere --queue-timeout 0.2 2>&1)
check "--state-dir with --queue: a note saying why" \
  eval 'printf "%s" "$out" | grep -q "state-dir .* is ignored with --queue"'
check "  and no state folder made" test ! -e "$S/q"

echo "== $N jobs, SIGKILL at random moments"
# The first daemon gets a blocker first: a synthetic 64-partition job at
# critical priority that keeps the one worker busy for seconds, so that
# jobs queue behind it and its kill finds them unfinished however slow the
# machine; the second daemon resumes it and it is cancelled there, so that
# the later rounds prove the queued jobs. Later kills come at random
# moments, mostly while submits are being journaled.
declare -A accepted=() seen=()
next=1
round=0
check_seen() { # one accepted job not yet seen done: keep its proof if done now
  local id
  for id in "${!accepted[@]}"; do
    [ -n "${seen[$id]:-}" ] && continue
    "$Z" await "${A[@]}" "$id" -o "$T/seen-$id.bin" --timeout 0 >/dev/null 2>&1 && seen[$id]=1
    return
  done
}
while [ "$next" -le "$N" ] && [ "$round" -lt 8 ]; do
  round=$((round + 1))
  up "d$round" || { cat "$T/d$round.log"; exit 1; }
  D=$DPID
  if [ "$round" = 1 ]; then
    # The first kill is certain to find queued jobs: right after 5 submits.
    "$Z" submit "${A[@]}" --id blk --key blk --synth 1 --partitions 64 --priority critical >/dev/null
    for i in 1 2 3 4 5; do submit "$i" >/dev/null && accepted[j$i]=1; done
    next=6
    kill -9 "$D"
  else
    [ "$round" = 2 ] && "$Z" cancel "${A[@]}" blk >/dev/null
    # Somewhere in the next 0.3 .. 1.5 s.
    ( sleep "$((RANDOM % 2)).$((3 + RANDOM % 3))"; kill -9 "$D" 2>/dev/null ) &
    killer=$!
    tries=0
    while [ "$next" -le "$N" ] && [ "$tries" -lt 100 ] && kill -0 "$D" 2>/dev/null; do
      tries=$((tries + 1))
      submit "$next" >/dev/null && accepted[j$next]=1
      [ -n "${accepted[j$next]:-}" ] && next=$((next + 1))
      check_seen
    done
    wait "$killer" 2>/dev/null
    kill -9 "$D" 2>/dev/null
  fi
  wait "$D" 2>/dev/null
  echo "round $round: ${#accepted[@]} accepted, ${#seen[@]} seen done, next j$next"
done
check "the second daemon resumed the jobs the first one left queued" \
  grep -q "journal.open.* resumed=[1-9]" "$T/d2.log"

echo "== a last daemon finishes them"
up final || { cat "$T/final.log"; exit 1; }
D=$DPID
while [ "$next" -le "$N" ]; do
  submit "$next" >/dev/null && accepted[j$next]=1
  next=$((next + 1))
done
check "all $N jobs accepted" test "${#accepted[@]}" = "$N"
bad=0
same=0
for i in $(seq 1 $N); do
  id=j$i
  if ! "$Z" await "${A[@]}" "$id" -o "$T/p-$id.bin" --public "$T/pub-$id.json" --timeout 60 >/dev/null; then
    echo "  $id: not done" >&2
    bad=$((bad + 1))
    continue
  fi
  parts=1
  [ $((i % 3)) = 0 ] && parts=2
  [ "$(size_of "$T/p-$id.bin")" = $((192 * parts)) ] || { echo "  $id: wrong size" >&2; bad=$((bad + 1)); }
  # Each partition's proof (all of one witness: the public inputs of
  # data/public.json).
  for k in $(seq 0 $((parts - 1))); do
    dd if="$T/p-$id.bin" of="$T/p-$id.$k.bin" bs=192 skip="$k" count=1 status=none
    if ! "$Z" verify data/mul3.zkey data/public.json "$T/p-$id.$k.bin" >/dev/null 2>&1; then
      echo "  $id: partition $k's proof does not verify" >&2
      bad=$((bad + 1))
    fi
  done
  if [ -n "${seen[$id]:-}" ]; then
    if cmp -s "$T/seen-$id.bin" "$T/p-$id.bin"; then
      same=$((same + 1))
    else
      echo "  $id: a proof seen before a kill changed after it (proved twice)" >&2
      bad=$((bad + 1))
    fi
  fi
done
check "every job done, every proof verifies, seen proofs unchanged (${#seen[@]} seen)" test "$bad" = 0
echo "  $same proofs seen before a kill were served unchanged after it"

# The same id again is the same job: done at once, the same proof; another
# request under it is a conflict.
out=$("$Z" submit "${A[@]}" --id j1 --key mul3 --witness "$W" --json)
check "resubmit of a finished id: the existing job" eval 'printf "%s" "$out" | grep -q "\"state\":\"done\""'
expect 409 conflict POST /v1/jobs --data '{"id":"j2","key":"mul3","synth_seed":5}'
# A submit the engine refuses (a synthetic witness for a file key) after it
# was journaled is forgotten: no job, now or after a restart.
expect 400 "" POST /v1/jobs --data '{"id":"refused","key":"mul3","synth_seed":1}'
expect 404 unknown_job GET /v1/jobs/refused
rq GET /metrics >"$T/metrics"
check "metrics: the journal's gauges, in the exposition format" \
  eval 'grep -q "^zkpipe_journal_jobs{state=\"finished\"} [1-9]" "$T/metrics" && prom_check "$T/metrics"'
sleep 0.3
check "spool folder empty once every result is journaled" test -z "$(ls -A "$S/spool")"

echo "== a clean stop: finished jobs still served, cancelled ones run again"
# A long job running and one queued behind it when SIGTERM (grace 0)
# cancels them: the drain's cancels are not journaled, so the next daemon
# runs them. The long job lasts seconds, so that it is unfinished at the
# signal however slow the machine (checked, not assumed).
"$Z" submit "${A[@]}" --id blk2 --key blk --synth 2 --partitions 64 --priority critical >/dev/null
"$Z" submit "${A[@]}" --id late --key mul3 --witness "$W" >/dev/null
out=$(rq GET /v1/jobs/blk2)
check "the long job is unfinished at SIGTERM" \
  eval 'printf "%s" "$out" | grep -Eq "\"state\":\"(queued|running)\""'
kill -TERM "$D"
wait_exit "$D" 20
check "SIGTERM: exit 0" test "$EXIT_RC" = 0
# This time the state folder comes from a config file, without key blk.
printf 'listen = unix://%s/d.sock\nkey = mul3=data/mul3.zkey\nstate-dir = %s\n' "$T" "$S" >"$T/z.conf"
start_daemon again --config "$T/z.conf" --workers 1 || { cat "$T/again.log"; exit 1; }
D=$DPID
"$Z" await "${A[@]}" j7 -o "$T/again-j7.bin" --timeout 10 >/dev/null
check "a finished job after a restart: the same proof" cmp -s "$T/p-j7.bin" "$T/again-j7.bin"
"$Z" await "${A[@]}" late -o "$T/late.bin" --timeout 30 >/dev/null
check "a job the drain cancelled runs after the restart, and verifies" \
  "$Z" verify data/mul3.zkey data/public.json "$T/late.bin"
out=$("$Z" request "${A[@]}" GET /v1/jobs/blk2)
check "a job whose key is gone after the restart: failed, saying why" \
  eval 'printf "%s" "$out" | grep -q "\"state\":\"failed\".*no key named blk"'
check "  and logged" grep -q "journal.resume_failed job=blk2" "$T/again.log"
expect 404 unknown_job GET /v1/jobs/never-submitted
expect 404 unknown_job GET /v1/jobs/refused

echo "== a torn journal tail"
kill -9 "$D"
wait "$D" 2>/dev/null
size=$(size_of "$S/journal")
truncate -s $((size - 5)) "$S/journal"
up torn || { cat "$T/torn.log"; exit 1; }
D=$DPID
check "a journal cut by 5 bytes: the daemon starts and logs it" grep -q "journal.torn" "$T/torn.log"
check "  the jobs before the cut are served" \
  eval '"$Z" await "${A[@]}" j3 -o "$T/torn-j3.bin" --timeout 30 >/dev/null && cmp -s "$T/p-j3.bin" "$T/torn-j3.bin"'
kill -9 "$D"
wait "$D" 2>/dev/null

echo "== uploads that are refused leave nothing in the spool folder"
start_daemon small --no-config --listen "unix://$T/d.sock" --workers 1 --key mul3=data/mul3.zkey \
  --state-dir "$S" --max-body 1K || { cat "$T/small.log"; exit 1; }
head -c 5000 /dev/urandom >"$T/big.bin"
expect 413 payload_too_large POST "/v1/jobs?key=mul3" --data-file "$T/big.bin"
expect 413 payload_too_large POST "/v1/jobs?key=mul3" --data-file "$T/big.bin" --chunked
head -c 500 /dev/urandom >"$T/junk.bin"
expect 400 bad_witness POST "/v1/jobs?key=mul3" --data-file "$T/junk.bin"
expect 404 unknown_key POST "/v1/jobs?key=nokey" --data-file "$W"
check "no spool file left" test -z "$(ls -A "$S/spool")"
kill -9 "$DPID"
wait "$DPID" 2>/dev/null

echo "== a second daemon on the same state folder is refused"
up one || { cat "$T/one.log"; exit 1; }
"$Z" serve --no-config --listen "unix://$T/other.sock" --key mul3=data/mul3.zkey --state-dir "$S" \
  >"$T/two.log" 2>&1
check "second daemon: exit 1, naming the lock" eval 'grep -q "another daemon uses the state folder" "$T/two.log"'

echo "== without --state-dir: the 404 says what a restart loses"
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
start_daemon mem --no-config --listen "unix://$T/d.sock" --workers 1 --key mul3=data/mul3.zkey \
  --key blk=synth:chain:10 || { cat "$T/mem.log"; exit 1; }
out=$("$Z" request "${A[@]}" GET /v1/jobs/j1)
check "404 names the restart" eval 'printf "%s" "$out" | grep -q "state-dir"'
# A job whose witness file is gone when it runs fails with ZP_E_NOT_FOUND:
# it is a failed job, not an unknown one.
cp "$W" "$T/gone.wtns"
"$Z" submit "${A[@]}" --id blk3 --key blk --synth 3 --partitions 4 --priority critical >/dev/null
"$Z" submit "${A[@]}" --id gone --key mul3 --witness-path "$T/gone.wtns" >/dev/null
rm "$T/gone.wtns"
out=$("$Z" request "${A[@]}" GET '/v1/jobs/gone?wait=30')
check "a job whose witness file vanished: failed, not 404" \
  eval 'printf "%s" "$out" | grep -q "\"state\":\"failed\""'

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
