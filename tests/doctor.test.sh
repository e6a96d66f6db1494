#!/usr/bin/env bash
# zkpipe doctor (run from tests/ as `bash doctor.test.sh /path/to/zkpipe`):
#  - without a key: the machine's lines (build, cpu, host memory, locked
#    memory, gpu) and exit 0 on a machine that is not broken;
#  - with synth keys: the key's shape line, the CPU prover's line, exit 0
#    where the machine can prove them;
#  - the shape of a synth key planned without its points equals that of the
#    key 'zkpipe setup' writes for it (.zpk), in both conventions;
#  - without a GPU in a CUDA build, --gpu-mem plans for a GPU of that
#    arena: synth:porep:27 streams at 24G, goes lean with its matrices
#    streamed at 16G, and cannot be held at 8G (exit 1,
#    the bytes it needs on the last line);
#  - a bellperson .params: its counts alone (no point read), equal to its
#    circuit's; a cut one: exit 2 naming the count that overruns; planned
#    for a GPU, its partitions move their a and b too;
#  - a missing key file, a file that is no key, a bad option or size: exit 2
#    naming what was wrong.
set -u
ZKPIPE=${1:?usage: doctor.test.sh /path/to/zkpipe}
case $ZKPIPE in /*) ;; *) ZKPIPE=$PWD/$ZKPIPE ;; esac
[ -x "$ZKPIPE" ] || { echo "$ZKPIPE is not executable"; exit 2; }

T=$(mktemp -d /tmp/zp_doctor_XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 2
export ZKPIPE_CACHE=off
passed=0
failed=0

ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() {
  echo "FAIL $1"
  [ -s out ] && sed 's/^/       | /' out | tail -n 15
  failed=$((failed + 1))
}

# check RC PATTERN... -- LABEL CMD...: exits with RC and the output matches
# every PATTERN (extended regular expressions).
check() {
  local want=$1 pats=() label
  shift
  while [ "$1" != "--" ]; do pats+=("$1"); shift; done
  shift
  label=$1
  shift
  "$ZKPIPE" "$@" >out 2>&1
  local rc=$? p
  if [ "$rc" != "$want" ]; then bad "$label (exit $rc, wanted $want)"; return; fi
  for p in "${pats[@]}"; do
    grep -Eq -- "$p" out || { bad "$label (no /$p/)"; return; }
  done
  ok "$label"
}

check 0 "OK +build: zkpipe" "cpu: [0-9]+ CPUs online; ADX\+BMI2 (yes|no).*IFMA (yes|no)" \
  "host memory: [0-9.]+ GiB available" "locked memory \(RLIMIT_MEMLOCK\)" "gpu|cuda" \
  "no problem found" -- "doctor: the machine's lines" doctor
check 0 "Run 'zkpipe doctor|^usage: zkpipe doctor" -- "doctor --help" doctor --help

check 0 "^key synth:chain:10: domain 2\^10" "cpu prover: needs about" \
  "can be proved on (the CPU|gpu[0-9]+)" -- "doctor synth:chain:10" doctor synth:chain:10
tail -n 1 out | grep -q "can be proved" && ok "the verdict is the last line" ||
  bad "the verdict is the last line"

# porep:20 with a 1 GiB arena: on a CUDA build the plan's line (whole,
# streamed, or what it needs), else a note that no GPU is planned.
"$ZKPIPE" doctor --gpu-mem 1G synth:porep:20 >out 2>&1
rc=$?
if grep -q "^key synth:porep:20: domain 2^20" out && grep -q "cpu prover: needs about" out &&
   { [ "$rc" = 0 ] || [ "$rc" = 1 ]; } && tail -n 1 out | grep -q "^zkpipe doctor: synth:porep:20"
then ok "doctor --gpu-mem 1G synth:porep:20 (exit $rc)"
else bad "doctor --gpu-mem 1G synth:porep:20 (exit $rc)"; fi

# The shape from the synthetic circuit equals the written key's.
for c in "synth:chain:10 snarkjs" "synth:porep:12 bellperson"; do
  set -- $c
  if "$ZKPIPE" setup "$1" --convention "$2" --zpk k.zpk --threads 2 >out 2>&1; then
    "$ZKPIPE" doctor "$1" >out 2>&1
    a=$(grep "^key " out | sed 's/^key [^ ]* //;s/ (.*//')
    "$ZKPIPE" doctor k.zpk >out 2>&1
    rc=$?
    b=$(grep "^key " out | sed 's/^key [^ ]* //;s/ (.*//')
    if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$rc" = 0 ]; then ok "$1: the shape equals its .zpk's"
    else bad "$1: the shape equals its .zpk's ('$a' vs '$b', exit $rc)"; fi
  else
    bad "setup $1"
  fi
done

# A .zkey (the cache off: read and checked) likewise.
if "$ZKPIPE" setup synth:chain:9 --zkey c.zkey --vk-json vk.json --threads 2 >out 2>&1; then
  "$ZKPIPE" doctor synth:chain:9 >out 2>&1
  a=$(grep "^key " out | sed 's/^key [^ ]* //;s/ (.*//')
  "$ZKPIPE" doctor c.zkey >out 2>&1
  rc=$?
  b=$(grep "^key " out | sed 's/^key [^ ]* //;s/ (.*//')
  if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$rc" = 0 ]; then ok "synth:chain:9: the shape equals its .zkey's"
  else bad "synth:chain:9: the shape equals its .zkey's ('$a' vs '$b', exit $rc)"; fi
else
  bad "setup synth:chain:9 --zkey"
fi

# A bellperson .params (the supraseal-c2 drop-in's key): its counts alone,
# equal to its circuit's; a cut one fails naming the count that overruns.
if "$ZKPIPE" setup synth:porep:12 --params k.params --vk k.vk --threads 2 >out 2>&1; then
  "$ZKPIPE" doctor synth:porep:12 >out 2>&1
  a=$(grep "^key " out | sed 's/^key [^ ]* //;s/; matrices.*//')
  "$ZKPIPE" doctor k.params >out 2>&1
  rc=$?
  b=$(grep "^key " out | sed 's/^key [^ ]* //;s/; matrices.*//')
  if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$rc" = 0 ] && grep -q "bellperson .params" out &&
     tail -n 1 out | grep -q "k.params can be proved"
  then ok "synth:porep:12: its .params's counts equal its circuit's"
  else bad "synth:porep:12: its .params's counts equal its circuit's ('$a' vs '$b', exit $rc)"; fi
  head -c 2000 k.params >cut.params
  check 2 "cut\.params: h count [0-9]+ needs [0-9]+ bytes.*ZP_E_TRUNCATED" -- \
    "a cut .params names the count that overruns" doctor cut.params
else
  bad "setup synth:porep:12 --params"
fi

# Above --shape-log2 a synth key's shape is scaled from the smaller circuit:
# porep:16 scaled from 2^12 against its own circuit, every count within 1 %
# and the matrix bytes within 5 %.
nums() { grep "^key " out | sed 's/ (.*//' | grep -Eo "[0-9.]+ (variables|public|points|MiB)|[A-Z] [0-9]+" | grep -Eo "[0-9.]+"; }
"$ZKPIPE" doctor synth:porep:16 >out 2>&1 && nums >exact
"$ZKPIPE" doctor --shape-log2 12 synth:porep:16 >out 2>&1 && nums >scaled
if grep -q "estimated from synth at 2^12, scaled" out && [ "$(wc -l <exact)" = 7 ] &&
   paste exact scaled | awk '{ d = $1 - $2; if (d < 0) d = -d; lim = NR == 7 ? 0.05 : 0.01;
                              if (d > lim * $1) bad = 1 } END { exit bad }'
then ok "porep:16 scaled from 2^12 is within 1 % (matrices 5 %) of its circuit's"
else bad "porep:16 scaled from 2^12 ($(paste -sd' ' exact) vs $(paste -sd' ' scaled))"; fi

# A hypothetical GPU: needs a CUDA build (its working sets are sized by the
# CUDA MSMs) and no GPU (else the real ones are planned).
if "$ZKPIPE" version | grep -q "CUDA backend: compiled" &&
   "$ZKPIPE" version | grep -q "GPUs visible: 0"; then
  check 0 "a GPU with a 24.0 GiB arena: streamed: resident.*; streamed .*pinned" \
    "can be proved on such a GPU$" -- "synth:porep:27 streams at 24G" \
    doctor --gpu-mem 24G synth:porep:27
  check 0 "a GPU with a 16.0 GiB arena: streamed: .*lean slot.*matrices streamed.*GiB to the GPU at most, its witness sent packed" \
    "can be proved on such a GPU$" -- "synth:porep:27 goes lean at 16G" \
    doctor --gpu-mem 16G synth:porep:27
  # A real 16 GB card's arena is its free memory less the reserve: sizes
  # with a fraction of their unit.
  check 0 "a GPU with a 14.5 GiB arena: streamed: .*lean slot" -- "--gpu-mem 14.5G" \
    doctor --gpu-mem 14.5G synth:porep:27
  check 2 "--gpu-mem wants a size like 16G, got 14.5" -- "--gpu-mem 14.5 (no unit)" \
    doctor --gpu-mem 14.5 synth:porep:27
  "$ZKPIPE" doctor --gpu-mem 16G synth:porep:27 >out 2>&1
  # Its bytes a partition: the streamed points and matrices, the witness twice.
  moved=$(sed -n 's/.*a partition moves \([0-9.]*\) GiB to the GPU.*/\1/p' out | head -1)
  pinned=$(sed -n 's/.*, pinned host \([0-9.]*\) GiB.*/\1/p' out | head -1)
  awk -v m="$moved" -v p="$pinned" 'BEGIN { exit !(m > p + 7 && m < p + 8.5) }' &&
    ok "16G: a partition moves the pinned part and the witness twice ($moved GiB)" ||
    bad "16G: a partition moves '$moved' GiB (pinned '$pinned')"
  # One ring for two slots where asked and two fit: 48 GiB, not 32.
  check 0 "a GPU with a 48.0 GiB arena: streamed: .*ring 2 x [0-9.]+ GiB shared; 2 slot\(s\).*when its 2 slots sum each chunk together" \
    -- "synth:porep:27 shares its ring at 48G (--tune ring_share=on)" \
    doctor --gpu-mem 48G --tune ring_share=on synth:porep:27
  check 0 "a GPU with a 32.0 GiB arena: streamed: .*ring 2 x [0-9.]+ GiB; 1 slot\(s\)" \
    -- "but not at 32G, where two do not fit" doctor --gpu-mem 32G --tune ring_share=on synth:porep:27
  # The drop-in's .params (no matrices): a partition moves its a and b
  # too, its witness once; a key with matrices does not say so.
  if [ -f k.params ]; then
    check 0 "a GPU with a 1.0 GiB arena: whole: .*a partition moves .* to the GPU, its a and b with it" \
      -- "a .params's partition moves its a and b" doctor --gpu-mem 1G k.params
    "$ZKPIPE" doctor --gpu-mem 1G synth:porep:12 >out 2>&1
    grep -q "a and b with it" out && bad "synth:porep:12 says it moves a and b" ||
      ok "synth:porep:12 does not say it moves a and b"
  fi
  check 1 "need at least [0-9.]+ GiB of GPU memory" -- "synth:porep:27 does not fit 8G" \
    doctor --gpu-mem 8G synth:porep:27
  tail -n 1 out | grep -Eq "cannot be proved on that GPU: .*need at least" &&
    ok "8G: the reason is the last line" || bad "8G: the reason is the last line"
else
  echo "skip hypothetical GPU plans (no CUDA backend, or a GPU is present)"
fi

check 2 "nothere\.zpk: No such file" -- "a missing key names the file" doctor nothere.zpk
echo '{"a": 1}' >x.json
check 2 "x\.json is a JSON file, not a proving key" -- "a file that is no key" doctor x.json
check 2 "unknown option --frobnicate" -- "a bad option" doctor --frobnicate
check 2 "--gpu-mem wants a size" -- "a bad size" doctor --gpu-mem 12Q synth:chain:10
check 2 "not a synthetic circuit" -- "a bad synth spec" doctor synth:nope:10
check 2 "one KEY at most" -- "two keys" doctor synth:chain:10 synth:chain:11
check 2 "--tune: unknown name 'cpu_ifma'" -- "a tuning doctor does not plan with" \
  doctor --tune cpu_ifma=off synth:chain:10

echo "doctor: $passed passed, $failed failed"
[ "$failed" = 0 ]
