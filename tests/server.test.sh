#!/usr/bin/env bash
# End-to-end test of 'zkpipe serve' and its clients (submit, await, cancel,
# status, request) on the CPU backend, over a unix socket in a temporary
# folder and over TCP on 127.0.0.1 with an ephemeral port; nothing else is
# reached. Needs only bash, coreutils, awk and the zkpipe binary (its own
# 'zkpipe request' is the HTTP client, so the curl program is not needed).
# Every daemon started here is killed on exit; every wait is bounded.
#
# usage: bash server.test.sh /path/to/zkpipe   (from tests/; exit 77: skipped)
set -u
Z=${1:?usage: server.test.sh /path/to/zkpipe}
case $Z in /*) ;; *) Z=$PWD/$Z ;; esac
cd "$(dirname "$0")"

. ./server/lib.sh
skip_without_daemon

T=$(mktemp -d /tmp/zp_server_test.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  [ -n "${KEEP:-}" ] || rm -rf "$T"; echo "T=$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ------------------------------------------------------------ daemon 1
echo "== daemon on a unix socket"
"$Z" import data/mul3.zkey "$T/live.zpk" >/dev/null 2>&1 || { echo "import failed"; exit 1; }
start_daemon d1 --listen "unix://$T/d1.sock" --workers 1 --max-body 64K --max-json 4K \
  --grace 150 --key mul3=data/mul3.zkey --key syn=synth:porep:8 --key blk=synth:porep:10 \
  --key live="$T/live.zpk" || { cat "$T/d1.log"; exit 1; }
D1=$DPID
A=(--addr "unix://$T/d1.sock")

check "socket mode is 0600" test "$(stat -c %a "$T/d1.sock")" = 600
expect 200 "" GET /healthz
check "healthz: status ok, no GPU failed" \
  eval '"$Z" request "${A[@]}" GET /healthz | grep -q "\"status\":\"ok\",\"gpus_failed\":0"'

# One proof through the upload path, with its public inputs.
id=$("$Z" submit "${A[@]}" --key mul3 --witness data/mul3.wtns)
check "submit prints an id" test -n "$id"
"$Z" await "${A[@]}" "$id" -o "$T/p1.bin" --public "$T/pub1.json" --timeout 60 >/dev/null
check "await writes a 192-byte proof" test "$(size_of "$T/p1.bin")" = 192
check "public inputs match snarkjs' public.json" \
  test "$(tr -d ' \n' <"$T/pub1.json")" = "$(tr -d ' \n' <data/public.json)"

# The witness named by path (the daemon reads it).
id=$("$Z" submit "${A[@]}" --key mul3 --witness-path "$PWD/data/mul3.wtns" --priority high)
"$Z" await "${A[@]}" "$id" -o "$T/p2.bin" --timeout 60 >/dev/null
check "witness by path" test "$(size_of "$T/p2.bin")" = 192

# The key's file truncated, then rewritten in place, under the daemon: the
# loaded key owns its bytes, so jobs still prove and the daemon lives; a
# witness cut short is refused with a clear code.
id=$("$Z" submit "${A[@]}" --key live --witness data/mul3.wtns)
"$Z" await "${A[@]}" "$id" -o "$T/live1.bin" --timeout 60 >/dev/null
check "a .zpk key proves" test "$(size_of "$T/live1.bin")" = 192
zsize=$(size_of "$T/live.zpk")
truncate -s 8192 "$T/live.zpk"
id=$("$Z" submit "${A[@]}" --key live --witness data/mul3.wtns)
"$Z" await "${A[@]}" "$id" -o "$T/live2.bin" --timeout 60 >/dev/null
check "its file truncated: it still proves" test "$(size_of "$T/live2.bin")" = 192
head -c "$zsize" /dev/urandom | dd of="$T/live.zpk" conv=notrunc status=none
id=$("$Z" submit "${A[@]}" --key live --witness data/mul3.wtns)
"$Z" await "${A[@]}" "$id" -o "$T/live3.bin" --timeout 60 >/dev/null
check "its file rewritten in place: it still proves" test "$(size_of "$T/live3.bin")" = 192
expect 200 "" GET /healthz
cp data/mul3.wtns "$T/cut.wtns"
truncate -s 100 "$T/cut.wtns"
expect 400 bad_witness POST /v1/jobs --data "{\"key\":\"live\",\"witness\":\"$T/cut.wtns\"}"

# One witness file per partition, and the proof as hex: the same bytes.
w=$PWD/data/mul3.wtns
expect 202 "" POST /v1/jobs --data "{\"id\":\"multi\",\"key\":\"mul3\",\"partitions\":2,\"witnesses\":[\"$w\",\"$w\"]}"
"$Z" await "${A[@]}" multi -o "$T/multi.bin" --timeout 60 >/dev/null
check "one witness per partition: 2 proofs" test "$(size_of "$T/multi.bin")" = 384
hex=$(jget "$(rq GET '/v1/jobs/multi?encoding=hex')" data)
check "hex and base64 carry the same proof bytes" test "$hex" = "$(od -An -tx1 -v "$T/multi.bin" | tr -d ' \n')"
expect 400 bad_request POST /v1/jobs --data "{\"key\":\"mul3\",\"partitions\":3,\"witnesses\":[\"$w\",\"$w\"]}"
expect 400 bad_request GET '/v1/jobs/multi?encoding=base32'

# Several clients at once, each submitting and awaiting.
cpids=()
for i in 1 2 3 4 5 6; do
  (
    if [ $((i % 2)) = 0 ]; then
      id=$("$Z" submit "${A[@]}" --key mul3 --witness data/mul3.wtns --id "conc$i")
    else
      id=$("$Z" submit "${A[@]}" --key syn --synth "$i" --partitions 2 --id "conc$i")
    fi && "$Z" await "${A[@]}" "$id" -o "$T/conc$i.bin" --timeout 60 >/dev/null
  ) &
  cpids+=($!)
done
conc_ok=1
for p in "${cpids[@]}"; do wait "$p" || conc_ok=0; done
for i in 1 2 3 4 5 6; do
  want=$((i % 2 == 0 ? 192 : 384))
  [ "$(size_of "$T/conc$i.bin")" = "$want" ] || conc_ok=0
done
check "6 concurrent clients submit and await" test $conc_ok = 1

# bench batch --addr drives this daemon: 6 jobs of 2 partitions, 3 client
# threads; an unknown key makes it fail with the daemon's message.
"$Z" bench batch "${A[@]}" --key syn --count 6 --concurrency 3 --partitions 2 \
  >"$T/bremote.log" 2>&1
rc=$?
check "bench batch --addr: 6 jobs done over HTTP" \
  test "$rc" = 0 -a -n "$(grep 'jobs done 6, failed 0' "$T/bremote.log")" \
  -a -n "$(grep 's per job of 2 partitions' "$T/bremote.log")"
check "bench batch --addr: the steady state on the daemon's clock" \
  test -n "$(grep '^steady state: [0-9.]* s per job of 2 partitions' "$T/bremote.log")"
"$Z" bench batch "${A[@]}" --key nosuch --count 1 --concurrency 1 >"$T/bremote2.log" 2>&1
rc=$?
check "bench batch --addr with an unknown key fails and says why" \
  test "$rc" = 1 -a -n "$(grep -i 'nosuch' "$T/bremote2.log")"

# The same id twice is the same job (while queued behind another job, and
# after it finished); with another request it is a conflict.
before=$(jget "$(rq GET /v1/status)" jobs_submitted)
"$Z" submit "${A[@]}" --key blk --synth 8 --partitions 16 --priority critical --id dup-blk >/dev/null
id1=$("$Z" submit "${A[@]}" --key mul3 --witness data/mul3.wtns --id dup-1)
state1=$(jget "$(rq GET /v1/jobs/dup-1)" state)
id2=$("$Z" submit "${A[@]}" --key mul3 --witness data/mul3.wtns --id dup-1)
"$Z" await "${A[@]}" dup-1 --timeout 60 >/dev/null
id3=$("$Z" submit "${A[@]}" --key mul3 --witness data/mul3.wtns --id dup-1)
after=$(jget "$(rq GET /v1/status)" jobs_submitted)
check "same id three times (queued, queued, done): one job, submitted once" \
  test "$state1/$id1/$id2/$id3/$((after - before))" = "queued/dup-1/dup-1/dup-1/2"
expect 409 conflict POST /v1/jobs --data '{"id":"dup-1","key":"syn","synth_seed":9}'
expect 409 conflict POST "/v1/jobs?key=mul3&id=dup-1&priority=low" --data-file data/mul3.wtns

# Priority: with one worker busy on a critical job, a high job submitted
# after a low one still starts first.
"$Z" submit "${A[@]}" --key blk --synth 1 --partitions 24 --priority critical --id pri-blk >/dev/null
"$Z" submit "${A[@]}" --key syn --synth 2 --priority low --id pri-low >/dev/null
"$Z" submit "${A[@]}" --key syn --synth 3 --priority high --id pri-high >/dev/null
b=$(rq GET /v1/jobs/pri-blk)
pending=$((24 - $(jget "$b" partitions_done) - $(jget "$b" partitions_running)))
check "blocker still had queued partitions when both were submitted" test "$pending" -gt 0
for j in pri-blk pri-low pri-high; do "$Z" await "${A[@]}" "$j" --timeout 60 >/dev/null; done
s_low=$(jget "$(rq GET /v1/jobs/pri-low)" started_s)
s_high=$(jget "$(rq GET /v1/jobs/pri-high)" started_s)
check "high started before low ($s_high < $s_low)" awk "BEGIN { exit !($s_high < $s_low) }"

# Cancel: a queued job and a running one.
"$Z" submit "${A[@]}" --key blk --synth 4 --partitions 24 --priority critical --id can-run >/dev/null
"$Z" submit "${A[@]}" --key syn --synth 5 --priority low --id can-queued >/dev/null
check "cancel a queued job" test "$("$Z" cancel "${A[@]}" can-queued)" = "can-queued: cancelled"
"$Z" await "${A[@]}" can-queued --timeout 30 >/dev/null 2>"$T/aw.err"
check "await of a cancelled job fails and says so" test $? = 1 -a -n "$(grep cancelled "$T/aw.err")"
check "cancel a running job" test "$("$Z" cancel "${A[@]}" can-run)" = "can-run: cancelled"
expect 404 unknown_job DELETE /v1/jobs/no-such-job

# Malformed requests: 4xx with a JSON error, and the daemon stays healthy.
printf 'x%.0s' $(seq 1 5000) >"$T/big.json"
head -c 100000 /dev/zero >"$T/big.bin"
head -c 100 /dev/urandom >"$T/junk.wtns"
expect 400 bad_json POST /v1/jobs --data '{"key": "mul3", '
expect 400 bad_json POST /v1/jobs --data '{"key":"mul3","synth_seed":1} trailing'
expect 400 bad_request POST /v1/jobs --data '[1,2]'
expect 400 bad_request POST /v1/jobs --data '{"key":"mul3","witnes":"x"}'
expect 400 bad_request POST /v1/jobs --data '{"key":"mul3","synth_seed":1,"priority":"urgent"}'
expect 400 bad_request POST /v1/jobs --data '{"key":"mul3","synth_seed":1,"partitions":0}'
expect 413 payload_too_large POST /v1/jobs --data-file "$T/big.json" --type application/json
expect 413 payload_too_large POST "/v1/jobs?key=mul3" --data-file "$T/big.bin"
expect 413 payload_too_large POST "/v1/jobs?key=mul3" --data-file "$T/big.bin" --chunked
expect 404 unknown_key POST "/v1/jobs?key=nokey" --data-file data/mul3.wtns
expect 404 unknown_key POST /v1/jobs --data '{"key":"nokey","witness":"/x.wtns"}'
expect 422 witness_length POST "/v1/jobs?key=mul3" --data-file interop/fixtures/multiplier/w.wtns
expect 400 bad_witness POST "/v1/jobs?key=mul3" --data-file "$T/junk.wtns"
expect 400 witness_unreadable POST /v1/jobs --data "{\"key\":\"mul3\",\"witness\":\"$T/none.wtns\"}"
expect 415 unsupported_media_type POST /v1/jobs --data 'a=b' --type text/plain
# Paths that are not regular files: refused before a byte is read, at once
# (a FIFO without a writer would block open(), /dev/zero fill memory).
mkfifo "$T/fifo.wtns"
for w in /dev/zero "$T/fifo.wtns" "$T"; do
  t0=$(date +%s%N)
  rq POST /v1/jobs --data "{\"key\":\"mul3\",\"witness\":\"$w\"}" >/dev/null 2>&1
  ms=$((($(date +%s%N) - t0) / 1000000))
  check "witness $w refused in under a second (${ms} ms)" test "$ms" -lt 1000
  expect 400 witness_unreadable POST /v1/jobs --data "{\"key\":\"mul3\",\"witness\":\"$w\"}"
done
# What cJSON alone would misread: a NUL cutting a string, a repeated key.
expect 400 bad_json POST /v1/jobs --data '{"key":"mul3","id":"abc\u0000../x","synth_seed":1}'
expect 400 bad_json POST /v1/jobs --data '{"key":"mul3","key":"syn","synth_seed":1}'
expect 400 bad_json POST /v1/jobs --data "$(printf '{"key":"mul3","id":"\xc0\xaf","synth_seed":1}')"
expect 404 unknown_job GET /v1/jobs/no-such-job
expect 400 bad_request GET "/v1/jobs/a!b"
expect 400 bad_request GET "/v1/jobs/conc2?wait=soon"
expect 405 method_not_allowed PUT /v1/jobs --data '{}'
expect 405 method_not_allowed DELETE /v1/status
expect 404 not_found GET /v2/everything
expect 404 unknown_key POST /v1/keys/nokey/preload

# Keys, status, metrics.
expect 200 "" POST /v1/keys/syn/evict
check "evicted key is unloaded" test "$(key_tier "$(rq GET /v1/keys)" syn)" = unloaded
expect 200 "" POST /v1/keys/syn/preload
check "preloaded key is loaded" test "$(key_tier "$(rq GET /v1/keys)" syn)" = host
rq GET /v1/keys >"$T/keys.json"
check "a key on no GPU has no device or H table bytes" \
  sh -c "grep -o '\"name\":\"syn\"[^}]*' '$T/keys.json' | grep -q '\"device_bytes\":0,\"h_table_bytes\":0,'"
check "a key on no GPU streams nothing and has no GPU plans" \
  sh -c "grep -o '\"name\":\"syn\"[^}]*' '$T/keys.json' | grep -q '\"streamed_bytes\":0,\"ring_buffer_bytes\":0,.*\"gpus\":\[\]\$'"
rq GET /v1/status >"$T/status.json"
check "status of an engine without GPUs lists none" grep -q '"gpus":\[\],' "$T/status.json"
check "status prints workers and keys" sh -c "\"$Z\" status --addr unix://$T/d1.sock | grep -q '^workers' && \"$Z\" status --addr unix://$T/d1.sock | grep -q 'mul3'"
rq GET /metrics >"$T/metrics.txt"
check "/metrics parses as Prometheus text" prom_check "$T/metrics.txt"
check "/metrics has engine and http series" \
  sh -c "grep -q '^zkpipe_proofs_verified_total ' '$T/metrics.txt' && grep -q '^zkpipe_http_requests_total ' '$T/metrics.txt'"

# SIGTERM with jobs in flight and clients waiting: all finish, exit 0.
# term-0a..c go first on the one worker and hold the others in the queue,
# so they are still in flight when the signal comes: without them, term-1..3 could
# finish before three clients were waiting (on a fast machine, or one so
# loaded that the clients start late), and the log would rightly not name
# them as drained. The drain proves all six jobs (200 partitions on one
# worker): the grace leaves room for a Debug build on a loaded machine.
for b in a b c; do
  "$Z" submit "${A[@]}" --key blk --synth 9 --partitions 64 --priority critical --id term-0$b >/dev/null
done
"$Z" submit "${A[@]}" --key blk --synth 6 --partitions 6 --priority critical --id term-1 >/dev/null
"$Z" submit "${A[@]}" --key syn --synth 7 --id term-2 >/dev/null
"$Z" submit "${A[@]}" --key mul3 --witness data/mul3.wtns --id term-3 >/dev/null
apids=()
for j in term-1 term-2 term-3; do
  "$Z" await "${A[@]}" "$j" -o "$T/$j.bin" --timeout 180 >/dev/null 2>"$T/$j.err" &
  apids+=($!)
done
wait_requests 3
kill -TERM "$D1"
wait_exit "$D1" 180
check "SIGTERM with jobs in flight: exit 0" test "$EXIT_RC" = 0
aw_ok=1
for p in "${apids[@]}"; do wait "$p" || aw_ok=0; done
check "waiting clients got their proofs" \
  test "$aw_ok/$(size_of "$T/term-1.bin")/$(size_of "$T/term-3.bin")" = "1/1152/192"
check "the log names each drained job" \
  test "$(grep -c 'job.shutdown job=term-[123] state=done when=before_grace' "$T/d1.log")" = 3
check "socket removed on exit" test ! -e "$T/d1.sock"

# ------------------------------------------------------------ daemon 2
echo "== SIGTERM with no grace: unfinished jobs are cancelled explicitly"
start_daemon d2 --listen "unix://$T/d2.sock" --workers 1 --grace 0 --max-queued 30 \
  --key blk=synth:porep:10 --key syn=synth:porep:8 || { cat "$T/d2.log"; exit 1; }
D2=$DPID
A=(--addr "unix://$T/d2.sock")
"$Z" submit "${A[@]}" --key blk --synth 1 --partitions 24 --priority critical --id g-run >/dev/null
"$Z" submit "${A[@]}" --key syn --synth 2 --priority low --id g-queued >/dev/null
expect 429 busy POST /v1/jobs --data '{"key":"syn","synth_seed":3,"partitions":12}'
"$Z" await "${A[@]}" g-queued --timeout 60 >/dev/null 2>"$T/g.err" &
gpid=$!
wait_requests 1
kill -TERM "$D2"
wait_exit "$D2" 60
check "SIGTERM, grace 0: exit 0" test "$EXIT_RC" = 0
wait "$gpid"
check "the waiting client is told 'cancelled'" test $? = 1 -a -n "$(grep cancelled "$T/g.err")"
check "the log names the cancelled jobs" \
  test "$(grep -c 'job.shutdown job=g-[a-z]* state=cancelled when=after_grace' "$T/d2.log")" = 2

# ------------------------------------------------------------ daemon 3
echo "== TCP with a bearer token"
"$Z" serve --listen tcp://127.0.0.1:0 --key mul3=data/mul3.zkey >"$T/notok.log" 2>&1 &
nt=$!
PIDS+=($nt)
wait_exit "$nt" 20
check "TCP without a token refuses to start" \
  test "$EXIT_RC" = 2 -a -n "$(grep -i 'without --token' "$T/notok.log")"
: >"$T/empty-token"
"$Z" serve --listen "unix://$T/e.sock" --token-file "$T/empty-token" --key mul3=data/mul3.zkey \
  >"$T/etok.log" 2>&1 &
et=$!
PIDS+=($et)
wait_exit "$et" 20
check "an empty token file is refused, not taken as 'no token'" \
  test "$EXIT_RC" = 2 -a -n "$(grep 'holds no token' "$T/etok.log")"
printf 'ab\0cdefghijklmnopqrstuvwxyz\n' >"$T/nul-token"
"$Z" serve --listen "unix://$T/n.sock" --token-file "$T/nul-token" --key mul3=data/mul3.zkey \
  >"$T/ntok.log" 2>&1 &
nt=$!
PIDS+=($nt)
wait_exit "$nt" 20
check "a token file with a NUL is refused, not cut at it" \
  test "$EXIT_RC" = 2 -a -n "$(grep 'a NUL byte in the token' "$T/ntok.log")"
printf 's3cret-token\n' >"$T/token"
start_daemon d3 --listen tcp://127.0.0.1:0 --token-file "$T/token" --key mul3=data/mul3.zkey ||
  { cat "$T/d3.log"; exit 1; }
D3=$DPID
port=$(sed -n 's|.*listen=tcp://127.0.0.1:\([0-9]*\).*|\1|p' "$T/d3.log")
A=(--addr "http://127.0.0.1:$port")
TOKEN=(--token-file "$T/token")
GOOD_TOKEN=("${TOKEN[@]}")
expect 200 "" GET /healthz
TOKEN=()
expect 401 unauthorized GET /healthz
TOKEN=(--token s3cret-tokeN)
expect 401 unauthorized GET /v1/status
TOKEN=(--token s3cret-token-and-more)
expect 401 unauthorized POST "/v1/jobs?key=mul3" --data-file data/mul3.wtns
TOKEN=(--token s3cret-token)
expect 403 forbidden POST /v1/jobs --data "{\"key\":\"mul3\",\"witness\":\"$PWD/data/mul3.wtns\"}"
id=$("$Z" submit "${A[@]}" "${TOKEN[@]}" --key mul3 --witness data/mul3.wtns)
"$Z" await "${A[@]}" "${TOKEN[@]}" "$id" -o "$T/tcp.bin" --timeout 60 >/dev/null
check "prove over TCP with the token" test "$(size_of "$T/tcp.bin")" = 192
check "auth refusals are counted" \
  test "$(rq GET /metrics | sed -n 's/^zkpipe_http_rejected_total{reason="auth"} //p')" = 3
kill -TERM "$D3"
wait_exit "$D3" 30
check "TCP daemon: SIGTERM exit 0" test "$EXIT_RC" = 0
check "a short token is warned about" grep -q 'warning: the token has 12 characters' "$T/d3.log"
check "a token file others can read is warned about" grep -q 'warning: token file .* has mode 0644' "$T/d3.log"
check "loopback TCP is not warned about" sh -c "! grep -q 'plain HTTP' '$T/d3.log'"
chmod 600 "$T/token"
printf 'a-token-of-twenty-chars\n' >"$T/token2"
chmod 600 "$T/token2"
start_daemon d3b --listen tcp://127.0.0.1:0 --token-file "$T/token2" --key mul3=data/mul3.zkey ||
  { cat "$T/d3b.log"; exit 1; }
kill -TERM "$DPID"
wait_exit "$DPID" 30
# The plaintext warning for a non-loopback address is not exercised here: the
# tests listen on loopback only.
check "a long token in a private file: no token warning" sh -c "! grep -q 'warning: t' '$T/d3b.log'"
TOKEN=()
GOOD_TOKEN=()

# ------------------------------------------------------------ daemon 3c
echo "== connections that never authenticate, and the body budget"
# 100 connections that send half a request and hold it (bash's /dev/tcp;
# no other client program needed). Peers are not capped here, so all come
# in and evict each other past max-conns less reserved (24).
start_daemon d3c --listen tcp://127.0.0.1:0 --token-file "$T/token2" --key mul3=data/mul3.zkey \
  --max-conns 32 --reserved-conns 8 --header-timeout 3 --max-conns-per-peer 0 \
  --max-body 64K --body-budget 64K || { cat "$T/d3c.log"; exit 1; }
D3C=$DPID
port=$(sed -n 's|.*listen=tcp://127.0.0.1:\([0-9]*\).*|\1|p' "$T/d3c.log")
A=(--addr "http://127.0.0.1:$port")
GOOD_TOKEN=(--token-file "$T/token2")
TOKEN=("${GOOD_TOKEN[@]}")
metric() { rq GET /metrics | sed -n "s/^$1 //p"; }
trap '' PIPE # the daemon may close a half-open one before its bytes are written
fds=()
t_open=$(date +%s%N)
for i in $(seq 1 100); do
  exec {fd}<>"/dev/tcp/127.0.0.1/$port" || break
  printf 'GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Slow: ' >&"$fd" 2>/dev/null
  fds+=("$fd")
done
check "100 half-open connections opened" test "${#fds[@]}" = 100
sleep 0.5 # the evicted ones' threads close them
t0=$(date +%s%N)
h=$("$Z" request -i "${A[@]}" "${GOOD_TOKEN[@]}" GET /healthz 2>&1 | head -1)
ms=$((($(date +%s%N) - t0) / 1000000))
check "an authorised client is answered beside 100 half-open connections (${ms} ms)" \
  test "$h" = 200 -a "$ms" -lt 3000
id=$("$Z" submit "${A[@]}" "${GOOD_TOKEN[@]}" --key mul3 --witness data/mul3.wtns)
"$Z" await "${A[@]}" "${GOOD_TOKEN[@]}" "$id" -o "$T/halfopen.bin" --timeout 60 >/dev/null
check "and proves beside them" test "$(size_of "$T/halfopen.bin")" = 192
un=$(metric zkpipe_http_connections_unauthenticated)
ev=$(metric 'zkpipe_http_connections_evicted_total{reason="reserved"}')
check "unauthenticated connections held to max-conns less reserved (1 <= $un <= 24)" \
  test "${un:-0}" -ge 1 -a "${un:-99}" -le 24
check "the oldest were evicted to keep the reserve ($ev)" test "${ev:-0}" -ge 1
# The newest one trickles a byte every 0.2 s: the header timeout counts
# from its opening, not from its last byte.
last=${fds[${#fds[@]} - 1]}
for i in $(seq 1 50); do
  printf 'x' >&"$last" 2>/dev/null
  un=$(metric zkpipe_http_connections_unauthenticated)
  [ "${un:-1}" = 0 ] && break
  sleep 0.2
done
s=$((($(date +%s%N) - t_open) / 1000000))
check "the header timeout (3 s) closes them all, the trickling one too (after ${s} ms)" \
  test "${un:-1}" = 0 -a "$s" -ge 2900 -a "$s" -lt 9000
closed=0
for fd in "${fds[@]}"; do
  read -r -t 1 -u "$fd" _ 2>/dev/null
  [ $? -le 128 ] && closed=$((closed + 1)) # end of file or reset, not a timeout
  exec {fd}>&-
done
check "the clients see all 100 closed ($closed)" test "$closed" = 100
check "by the header timeout" test "$(metric 'zkpipe_http_connections_evicted_total{reason="header_timeout"}')" -ge 1

# The body budget (64K): an upload that declared 60000 bytes holds them
# while it streams; a second one that would pass the budget gets 503 with
# Retry-After before its body is read; the first one's end frees them.
tok=$(head -1 "$T/token2")
exec {up}<>"/dev/tcp/127.0.0.1/$port"
printf 'POST /v1/jobs?key=mul3 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/octet-stream\r\nContent-Length: 60000\r\n\r\nabc' \
  "$tok" >&"$up"
for i in $(seq 1 50); do
  [ "$(metric zkpipe_http_body_bytes_in_flight)" = 60000 ] && break
  sleep 0.1
done
check "an upload in progress holds its declared length" \
  test "$(metric zkpipe_http_body_bytes_in_flight)" = 60000
exec {b}<>"/dev/tcp/127.0.0.1/$port"
printf 'POST /v1/jobs?key=mul3 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/octet-stream\r\nContent-Length: 8000\r\nConnection: close\r\n\r\n' \
  "$tok" >&"$b"
resp=$(timeout 5 cat <&"$b" | tr -d '\r')
exec {b}>&-
check "a body past the budget: 503 body_budget" \
  sh -c "printf '%s' \"\$1\" | head -1 | grep -q '^HTTP/1.1 503' && printf '%s' \"\$1\" | grep -q '\"error\":\"body_budget\"'" _ "$resp"
check "with Retry-After" sh -c "printf '%s' \"\$1\" | grep -qi '^Retry-After: [1-9]'" _ "$resp"
head -c 8000 /dev/zero >"$T/8k.bin"
expect 503 body_budget POST "/v1/jobs?key=mul3" --data-file "$T/8k.bin" --chunked
exec {up}>&-
for i in $(seq 1 50); do
  [ "$(metric zkpipe_http_body_bytes_in_flight)" = 0 ] && break
  sleep 0.1
done
check "an aborted upload gives its bytes back" test "$(metric zkpipe_http_body_bytes_in_flight)" = 0
expect 202 "" POST "/v1/jobs?key=mul3" --data-file data/mul3.wtns
check "budget refusals are counted" \
  test "$(metric 'zkpipe_http_rejected_total{reason="body_budget"}')" = 2
trap - PIPE
kill -TERM "$D3C"
wait_exit "$D3C" 30
check "daemon with half-open connections: SIGTERM exit 0" test "$EXIT_RC" = 0

echo "== the per-peer cap"
start_daemon d3d --listen tcp://127.0.0.1:0 --token-file "$T/token2" --key mul3=data/mul3.zkey \
  --max-conns 16 --max-conns-per-peer 4 || { cat "$T/d3d.log"; exit 1; }
D3D=$DPID
port=$(sed -n 's|.*listen=tcp://127.0.0.1:\([0-9]*\).*|\1|p' "$T/d3d.log")
A=(--addr "http://127.0.0.1:$port")
fds=()
for i in $(seq 1 10); do
  exec {fd}<>"/dev/tcp/127.0.0.1/$port"
  fds+=("$fd")
done
sleep 0.3
check "an authorised client from the same address is answered" \
  test "$("$Z" request -i "${A[@]}" "${GOOD_TOKEN[@]}" GET /healthz 2>&1 | head -1)" = 200
# Each client connection of the checks is a new one of the same peer too:
# it evicts one half-open connection before it authenticates.
un=$(metric zkpipe_http_connections_unauthenticated)
check "one peer holds at most 4 unauthenticated connections ($un)" test "${un:-9}" -le 4
check "its oldest were evicted" \
  test "$(metric 'zkpipe_http_connections_evicted_total{reason="peer_limit"}')" -ge 6
for fd in "${fds[@]}"; do exec {fd}>&-; done
"$Z" serve --listen tcp://127.0.0.1:0 --token-file "$T/token2" --key mul3=data/mul3.zkey \
  --max-conns 8 --reserved-conns 8 >"$T/rsv.log" 2>&1
check "--reserved-conns must be below --max-conns" \
  test $? = 2 -a -n "$(grep 'reserved-conns must be below' "$T/rsv.log")"
kill -TERM "$D3D"
wait_exit "$D3D" 30
TOKEN=()
GOOD_TOKEN=()

# ------------------------------------------------------------ sockets
echo "== stale and foreign socket files"
start_daemon d4 --listen "unix://$T/s.sock" --key mul3=data/mul3.zkey || exit 1
kill -9 "$DPID"
wait_exit "$DPID" 10
check "a killed daemon leaves its socket behind" test -S "$T/s.sock"
start_daemon d5 --listen "unix://$T/s.sock" --key mul3=data/mul3.zkey
check "a stale socket is replaced" test $? = 0
D5=$DPID
"$Z" serve --listen "unix://$T/s.sock" --key mul3=data/mul3.zkey >"$T/d6.log" 2>&1 &
d6=$!
PIDS+=($d6)
wait_exit "$d6" 20
check "a live daemon's socket is not taken over" \
  test "$EXIT_RC" = 1 -a -n "$(grep 'already listening' "$T/d6.log")"
A=(--addr "unix://$T/s.sock")
expect 200 "" GET /healthz
kill -TERM "$D5"
wait_exit "$D5" 30
: >"$T/plain"
"$Z" serve --listen "unix://$T/plain" --key mul3=data/mul3.zkey >"$T/d7.log" 2>&1 &
d7=$!
PIDS+=($d7)
wait_exit "$d7" 20
check "a regular file is never replaced" \
  test "$EXIT_RC" = 1 -a -f "$T/plain" -a -n "$(grep 'not a socket' "$T/d7.log")"

# ------------------------------------------------------------ synthetic witnesses
echo "== --synth-witnesses: synth_seed jobs reuse the witnesses kept per key"
# seeds NAME [serve options]: a daemon NAME with key syn=synth:porep:8
# proves seeds 7 and 14 (public inputs in $T/NAME-1.json, -2.json), then stops.
seeds() {
  local name=$1 i
  shift
  start_daemon "$name" --listen "unix://$T/$name.sock" --key syn=synth:porep:8 "$@" ||
    { cat "$T/$name.log"; exit 1; }
  local pid=$DPID
  A=(--addr "unix://$T/$name.sock")
  for i in 1 2; do
    "$Z" submit "${A[@]}" --key syn --synth "$((i * 7))" --id "$name-$i" >/dev/null &&
      "$Z" await "${A[@]}" "$name-$i" --timeout 60 -o "$T/$name-$i.bin" \
        --public "$T/$name-$i.json" >/dev/null
    check "$name: a synth_seed job ($i)" test $? = 0
  done
  kill -TERM "$pid"
  wait_exit "$pid" 30
  check "$name: exit 0" test "$EXIT_RC" = 0
}
seeds sw --synth-witnesses 1
check "two seeds, one kept witness: the same public inputs" cmp -s "$T/sw-1.json" "$T/sw-2.json"
seeds sx
check "without it, two seeds give two public inputs" \
  test -n "$(cmp "$T/sx-1.json" "$T/sx-2.json")"

# ------------------------------------------------------------ logs
echo "== --log-format json: every line of the log is a JSON object"
start_daemon dj --listen "unix://$T/dj.sock" --key mul3=data/mul3.zkey --log-format json \
  --log-level debug --timeline || { cat "$T/dj.log"; exit 1; }
DJ=$DPID
A=(--addr "unix://$T/dj.sock")
"$Z" submit "${A[@]}" --key mul3 --witness data/mul3.wtns --id log-1 >/dev/null &&
  "$Z" await "${A[@]}" log-1 --timeout 60 -o "$T/log-1.bin" >/dev/null
check "a job through the daemon with JSON logs" test $? = 0
kill -TERM "$DJ"
wait_exit "$DJ" 30
check "JSON logs: exit 0" test "$EXIT_RC" = 0
if command -v python3 >/dev/null; then
  check "every log line is JSON with time, level and event" python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1], encoding="utf-8"):
    o = json.loads(line)
    assert o["level"] in ("error", "warn", "info", "debug") and o["event"] and o["time"], line
    n += 1
assert n >= 4, n' "$T/dj.log"
else
  check "every log line looks like a JSON object with time, level and event" sh -c \
    "! grep -Ev '^\{\"time\":\"[0-9T:.-]+Z\",\"level\":\"(error|warn|info|debug)\",\"event\":\"[a-z._]+\".*\}\$' '$T/dj.log'"
fi
check "the start line says version, backends and the key" \
  grep -q '"event":"serve.start","version":"[0-9.]*",.*"backends":"cpu[a-z,]*",.*"key.mul3":"data/mul3.zkey (host)"' "$T/dj.log"
check "debug: the job's end is logged" grep -q '"event":"job.finished","job":"log-1","key":"mul3","state":"done"' "$T/dj.log"
check "--timeline lines are events too" grep -q '"event":"timeline","ms":[0-9.]*,"stage":"[a-z._]*","job":"log-1"' "$T/dj.log"
"$Z" serve --listen "unix://$T/dj.sock" --key mul3=data/mul3.zkey --log-format xml >"$T/dj2.log" 2>&1
check "an unknown log format is a usage error" test $? = 2 -a -n "$(grep 'text or json, got xml' "$T/dj2.log")"
"$Z" serve --listen "unix://$T/dj.sock" --key mul3=data/mul3.zkey --log-level loud >"$T/dj3.log" 2>&1
check "an unknown log level is a usage error" test $? = 2 -a -n "$(grep 'error, warn, info or debug, got loud' "$T/dj3.log")"

# A sanitizer build reports into the daemons' logs without failing them.
check "no sanitizer report in any daemon or client log" \
  sh -c "! grep -l 'AddressSanitizer\|LeakSanitizer\|runtime error:' '$T'/*.log '$T'/*.err"

if [ "$fails" != 0 ]; then
  for f in "$T"/*.log; do echo "--- $f"; tail -20 "$f"; done
fi
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
