#!/usr/bin/env bash
# One daemon and one batch against it, as a user runs them (how the capped
# arenas' rows are checked end to end): `zkpipe serve` on one GPU with its arena capped
# (--gpu-mem ARENA), a synthetic key made on the GPU at start and two
# synthetic witnesses reused, then `zkpipe bench batch --addr` over its unix
# socket: COUNT jobs of 10 partitions (default 4), two in flight. Prints the
# batch's figures (its steady state leaves out the first two jobs' fill) and
# the daemon's plan; the logs stay in OUT (default bench/out/serve).
# usage: bash bench/serve.sh /path/to/zkpipe ARENA [CIRCUIT [COUNT]]
set -u
Z=${1:?usage: bash bench/serve.sh /path/to/zkpipe ARENA [CIRCUIT [COUNT]]}
ARENA=${2:?usage: bash bench/serve.sh /path/to/zkpipe ARENA [CIRCUIT [COUNT]]}
CIRCUIT=${3:-synth:porep:27}
COUNT=${4:-4}
case $Z in /*) ;; *) Z=$PWD/$Z ;; esac
OUT=${OUT:-bench/out/serve}
mkdir -p "$OUT"
T=$(mktemp -d /tmp/zp_serve.XXXXXX)
sock=$T/zp.sock
"$Z" serve --no-config --listen "unix://$sock" --gpus 1 --gpu-mem "$ARENA" \
  --key "bench=$CIRCUIT" --synth-witnesses 2 >"$OUT/serve-$ARENA.log" 2>&1 &
sp=$!
trap 'kill $sp 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 1 1200); do
  grep -q serve.start "$OUT/serve-$ARENA.log" && break
  kill -0 $sp 2>/dev/null || break
  sleep 0.5
done
grep -q serve.start "$OUT/serve-$ARENA.log" || {
  echo "the daemon did not start"
  tail -5 "$OUT/serve-$ARENA.log"
  exit 1
}
"$Z" bench batch --addr "unix://$sock" --key bench --count "$COUNT" --partitions 10 \
  --concurrency 2 >"$OUT/batch-$ARENA.log" 2>&1
rc=$?
kill -TERM $sp
wait $sp
grep -E "key.resident|gpu.admits" "$OUT/serve-$ARENA.log" | cut -c1-400
cat "$OUT/batch-$ARENA.log"
exit $rc
