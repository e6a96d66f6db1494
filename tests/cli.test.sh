#!/usr/bin/env bash
# The proving-side CLI end to end (run from tests/ as `bash cli.test.sh
# /path/to/zkpipe`):
#  - setup -> .zpk/.zkey/vk.json (snarkjs) and .zpk/.params/.vk (bellperson)
#    -> witness -> prove (.zpk, .zkey, --circuit; proof.json and proof.bin)
#    -> verify with every key form and both proof forms;
#  - zkpipe's .wtns and .zkey prove under snarkjs; snarkjs verifies zkpipe's
#    proof and zkpipe verifies snarkjs' (and a circom circuit from .r1cs);
#  - tampered proofs (JSON and 192 bytes) and a wrong public input exit 1;
#  - a witness with one value changed makes prove exit 1 with no outputs;
#  - truncated or corrupted .zpk, wrong file types, missing files, bad
#    option sets exit 2 with a message that names the problem;
#  - bench prove runs, and --backend gpu works or says why not;
#  - --tune NAME=VALUE is taken by prove and bench prove, and a bad name or
#    value exits 2 naming it.
# Circuits are at most 2^9. Exit 77 (skipped) when node or snarkjs is missing.
set -u
ZKPIPE=${1:?usage: cli.test.sh /path/to/zkpipe}
case $ZKPIPE in /*) ;; *) ZKPIPE=$PWD/$ZKPIPE ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
SNARKJS_CLI=$HERE/js/node_modules/snarkjs/build/cli.cjs

command -v node >/dev/null 2>&1 || { echo "node not found: skipped"; exit 77; }
[ -f "$SNARKJS_CLI" ] || { echo "snarkjs not installed (cd tests/js && npm ci): skipped"; exit 77; }
[ -x "$ZKPIPE" ] || { echo "$ZKPIPE is not executable"; exit 2; }

T=$(mktemp -d /tmp/zp_cli_XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 2
# A private .zkey cache for this run (keycache.c), checked below.
export ZKPIPE_CACHE=$T/cache
passed=0
failed=0

ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() {
  echo "FAIL $1"
  [ -s out ] && sed 's/^/       | /' out | tail -n 12
  failed=$((failed + 1))
}
z() { "$ZKPIPE" "$@" >out 2>&1; }
snarkjs() { node "$SNARKJS_CLI" "$@"; }

# expect RC LABEL CMD...: the command exits with RC.
expect() {
  local want=$1 label=$2
  shift 2
  "$@" >out 2>&1
  local rc=$?
  if [ "$rc" = "$want" ]; then ok "$label"; else bad "$label (exit $rc, wanted $want)"; fi
}

# refuse RC PATTERN LABEL CMD...: exits with RC and the output matches PATTERN.
refuse() {
  local want=$1 pat=$2 label=$3
  shift 3
  "$@" >out 2>&1
  local rc=$?
  if [ "$rc" = "$want" ] && grep -Eq -- "$pat" out; then ok "$label"
  else bad "$label (exit $rc, wanted $want and /$pat/)"; fi
}

# Byte surgery with node: xor FILE OUT OFFSET MASK (negative offset from the end).
xor() {
  node -e 'const fs=require("fs");const [f,o,off,m]=process.argv.slice(1);
    const b=fs.readFileSync(f);const i=+off<0?b.length+ +off:+off;b[i]^=+m;fs.writeFileSync(o,b)' -- "$@"
}
# swap48 IN OUT: exchange A (bytes 0..47) and C (144..191) of a 192-byte proof.
swap48() {
  node -e 'const fs=require("fs");const [f,o]=process.argv.slice(1);const b=fs.readFileSync(f);
    const a=Buffer.from(b.subarray(0,48)),c=Buffer.from(b.subarray(144,192));
    c.copy(b,0);a.copy(b,144);fs.writeFileSync(o,b)' -- "$@"
}
# jsonedit IN OUT EXPR: p = parsed JSON; EXPR changes it.
jsonedit() {
  node -e 'const fs=require("fs");const [f,o,e]=process.argv.slice(1);
    const p=JSON.parse(fs.readFileSync(f,"utf8"));eval(e);fs.writeFileSync(o,JSON.stringify(p))' -- "$@"
}
none_of() { for f in "$@"; do [ ! -e "$f" ] || return 1; done; }

# ------------------------------------------------------- snarkjs convention
C=synth:chain:8
if z setup $C --zpk k.zpk --zkey k.zkey --vk-json vk.json --threads 2 && grep -q "TEST-ONLY" out &&
   [ -s k.zpk ] && [ -s k.zkey ] && [ -s vk.json ]; then ok "setup $C -> .zpk .zkey vk.json (TEST-ONLY said)"
else bad "setup $C"; fi
expect 0 "witness $C --seed 7 -> .wtns + public.json" "$ZKPIPE" witness $C --seed 7 w.wtns --public wpub.json
expect 0 "prove k.zpk w.wtns p.json pub.json --proof-bin p.bin" \
  "$ZKPIPE" prove --threads 2 k.zpk w.wtns p.json pub.json --proof-bin p.bin
[ "$(stat -c %s p.bin 2>/dev/null)" = 192 ] && ok "proof.bin is 192 bytes" || bad "proof.bin size"
cmp -s pub.json wpub.json && ok "public.json of prove = witness --public" || bad "public.json differs"
expect 0 "prove k.zkey w.wtns --proof-bin only" "$ZKPIPE" prove k.zkey w.wtns --proof-bin p2.bin
# The .zkey cache: one entry after the first .zkey load; the entry is what
# later loads use (a different key planted under its name makes proofs
# that k's vk refuses); a corrupt entry is ignored and written again; off
# writes nothing.
entry=$(ls cache/*.zpk 2>/dev/null)
[ "$(ls cache/*.zpk 2>/dev/null | wc -l)" = 1 ] && ok "a .zkey load leaves one cache entry" ||
  bad "cache entries: $(ls cache 2>&1)"
size=$(stat -c %s "$entry" 2>/dev/null)
z setup $C --zpk k2.zpk --threads 2
cp "$entry" entry.save && cp k2.zpk "$entry"
expect 0 "prove k.zkey with a planted cache entry" "$ZKPIPE" prove k.zkey w.wtns --proof-bin pc.bin
refuse 1 'INVALID|invalid|fail' "the planted entry was used (k's vk refuses that proof)" \
  "$ZKPIPE" verify vk.json pub.json pc.bin
head -c 100 entry.save > "$entry"
expect 0 "prove k.zkey with a corrupt cache entry" "$ZKPIPE" prove k.zkey w.wtns --proof-bin pc2.bin
refuse 0 '^OK$' "its proof verifies" "$ZKPIPE" verify vk.json pub.json pc2.bin
[ "$(stat -c %s "$entry")" = "$size" ] && cmp -s "$entry" entry.save &&
  ok "the corrupt entry was written again" || bad "cache entry not rewritten"
rm -rf off && ZKPIPE_CACHE=off "$ZKPIPE" prove k.zkey w.wtns --proof-bin po.bin >out 2>&1 &&
  [ ! -e off ] && ok "ZKPIPE_CACHE=off proves without a cache" || bad "cache off"
expect 0 "prove --circuit $C --seed 7 --key k.zpk" \
  "$ZKPIPE" prove --circuit $C --seed 7 --key k.zpk p3.json pub3.json
cmp -s pub3.json pub.json && ok "--circuit --seed 7 proves the same public inputs" || bad "--circuit public"
for key in vk.json k.zpk k.zkey; do
  for proof in p.json p.bin p2.bin p3.json; do
    refuse 0 '^OK$' "verify $key pub.json $proof" "$ZKPIPE" verify $key pub.json $proof
  done
done

# snarkjs proves with zkpipe's .zkey and .wtns; each verifies the other's proof
refuse 0 'OK' "snarkjs verifies zkpipe's proof" snarkjs groth16 verify vk.json pub.json p.json
expect 0 "snarkjs groth16 prove k.zkey w.wtns (zkpipe-made)" snarkjs groth16 prove k.zkey w.wtns sp.json spub.json
refuse 0 'OK' "snarkjs verifies its own proof of zkpipe's key" snarkjs groth16 verify vk.json spub.json sp.json
refuse 0 '^OK$' "zkpipe verify k.zpk verifies snarkjs' proof" "$ZKPIPE" verify k.zpk spub.json sp.json
cmp -s spub.json pub.json && ok "snarkjs' public.json = zkpipe's" || bad "public.json of snarkjs differs"

# ---------------------------------------------------- bellperson convention
B=synth:porep:9
if z setup $B --convention bellperson --zpk b.zpk --params b.params --vk b.vk --vk-json bvk.json &&
   grep -q "bellperson convention" out && [ -s b.zpk ] && [ -s b.params ] && [ -s b.vk ]; then
  ok "setup $B --convention bellperson -> .zpk .params .vk vk.json"
else bad "setup $B bellperson"; fi
expect 0 "witness $B" "$ZKPIPE" witness $B --seed 3 bw.wtns
expect 0 "prove b.zpk (tau H) -> bp.json bpub.json bp.bin" \
  "$ZKPIPE" prove b.zpk bw.wtns bp.json bpub.json --proof-bin bp.bin
for key in b.vk b.params b.zpk bvk.json; do
  for proof in bp.bin bp.json; do
    refuse 0 '^OK$' "verify $key bpub.json $proof" "$ZKPIPE" verify $key bpub.json $proof
  done
done
refuse 0 'OK' "snarkjs verifies the bellperson-convention proof" snarkjs groth16 verify bvk.json bpub.json bp.json
refuse 1 '^INVALID$' "the bellperson proof under the snarkjs key is INVALID" "$ZKPIPE" verify k.zpk bpub.json bp.bin
refuse 2 'snarkjs convention' "setup --convention bellperson --zkey is refused" \
  "$ZKPIPE" setup $B --convention bellperson --zkey x.zkey
refuse 2 'bellperson' "setup --params without bellperson convention is refused" \
  "$ZKPIPE" setup $B --convention snarkjs --params x.params
none_of x.zkey x.params && ok "refused setups wrote nothing" || bad "refused setup left a file"

# a circom circuit from its .r1cs, with the committed witness
expect 0 "setup data/mul3.r1cs --zpk --vk-json" "$ZKPIPE" setup "$HERE/data/mul3.r1cs" --zpk m.zpk --vk-json mvk.json
expect 0 "prove m.zpk data/mul3.wtns" "$ZKPIPE" prove m.zpk "$HERE/data/mul3.wtns" mp.json mpub.json
refuse 0 'OK' "snarkjs verifies the mul3 proof" snarkjs groth16 verify mvk.json mpub.json mp.json

# ------------------------------------------------------------ invalid proofs
jsonedit p.json t1.json '[p.pi_a,p.pi_c]=[p.pi_c,p.pi_a]'
refuse 1 '^INVALID$' "proof.json with A and C swapped is INVALID" "$ZKPIPE" verify vk.json pub.json t1.json
jsonedit p.json t2.json 'p.pi_a[0]=p.pi_a[0].replace(/.$/,d=>String((+d+1)%10))'
refuse 1 '^INVALID$' "proof.json with a digit of A changed is INVALID" "$ZKPIPE" verify vk.json pub.json t2.json
swap48 p.bin t1.bin
refuse 1 '^INVALID$' "proof.bin with A and C swapped is INVALID" "$ZKPIPE" verify k.zpk pub.json t1.bin
xor p.bin t2.bin 100 4
refuse 1 '^INVALID$' "proof.bin with a bit of B flipped is INVALID" "$ZKPIPE" verify k.zpk pub.json t2.bin
xor bp.bin t3.bin -1 1
refuse 1 '^INVALID$' "bellperson proof.bin with a bit of C flipped is INVALID" "$ZKPIPE" verify b.vk bpub.json t3.bin
jsonedit pub.json wrongpub.json 'p[0]=(BigInt(p[0])+1n).toString()'
refuse 1 '^INVALID$' "a wrong public input is INVALID (vk.json)" "$ZKPIPE" verify vk.json wrongpub.json p.json
refuse 1 '^INVALID$' "a wrong public input is INVALID (.vk, proof.bin)" "$ZKPIPE" verify b.vk wrongpub.json bp.bin
refuse 1 'Invalid proof' "snarkjs also rejects the wrong public input" \
  snarkjs groth16 verify vk.json wrongpub.json p.json

# -------------------------------------------------- unsatisfying witnesses
xor w.wtns bad.wtns -32 1     # the last value, low bit
refuse 1 'does not satisfy' "prove with one witness value changed exits 1" \
  "$ZKPIPE" prove k.zpk bad.wtns o.json opub.json --proof-bin o.bin
none_of o.json opub.json o.bin && ok "... and writes no output file" || bad "unsatisfied prove left outputs"
xor bw.wtns bbad.wtns -32 1
refuse 1 'does not satisfy' "prove (bellperson key) with one witness value changed exits 1" \
  "$ZKPIPE" prove b.zpk bbad.wtns o.json opub.json --proof-bin o.bin
none_of o.json opub.json o.bin && ok "... and writes no output file" || bad "unsatisfied prove left outputs"
echo previous >o.json
"$ZKPIPE" prove k.zkey bad.wtns o.json opub.json >out 2>&1
[ $? = 1 ] && [ "$(cat o.json)" = previous ] && none_of opub.json && ok "an existing proof.json is left as it was" \
  || bad "unsatisfied prove touched an existing proof.json"
rm -f o.json
refuse 1 'witness has [0-9]+ values' "a witness of another circuit exits 1" \
  "$ZKPIPE" prove k.zpk bw.wtns o.json opub.json

# ---------------------------------------------------------------- bad input
# Files that are not regular: refused before a read, so neither an endless
# device nor a FIFO without a writer can hold the command (timeout 10 ends
# a hang as a failure).
mkfifo fifo
refuse 2 '/dev/zero is a character device, not a regular file' "verify with /dev/zero as public.json exits 2" \
  timeout 10 "$ZKPIPE" verify vk.json /dev/zero p.json
refuse 2 'fifo is a FIFO, not a regular file' "verify with a FIFO as public.json exits 2" \
  timeout 10 "$ZKPIPE" verify vk.json fifo p.json
refuse 2 'fifo is a special file' "verify with a FIFO as the key exits 2" \
  timeout 10 "$ZKPIPE" verify fifo pub.json p.json
refuse 2 '/dev/zero is a special file' "prove with /dev/zero as the witness exits 2" \
  timeout 10 "$ZKPIPE" prove k.zpk /dev/zero o.json opub.json
head -c 5000 k.zpk >trunc.zpk
refuse 2 'trunc\.zpk.*TRUNCATED' "prove with a truncated .zpk exits 2 naming it" \
  "$ZKPIPE" prove trunc.zpk w.wtns o.json opub.json
refuse 2 'trunc\.zpk.*TRUNCATED' "verify with a truncated .zpk exits 2 naming it" \
  "$ZKPIPE" verify trunc.zpk pub.json p.json
xor k.zpk corrupt.zpk 20000 1  # inside a point section, past the header page
refuse 2 'corrupt\.zpk.*CHECKSUM' "prove with a corrupted .zpk exits 2 (checksum)" \
  "$ZKPIPE" prove corrupt.zpk w.wtns o.json opub.json
refuse 2 'w\.wtns is a \.wtns witness, not a proving key' "a .wtns given as the key" \
  "$ZKPIPE" prove w.wtns w.wtns o.json opub.json
refuse 2 'k\.zpk is a zkpipe \.zpk proving key, not a \.wtns witness' "a .zpk given as the witness" \
  "$ZKPIPE" prove k.zpk k.zpk o.json opub.json
refuse 2 'b\.params is a file of unknown format, not a proving key.*import' "a .params given to prove" \
  "$ZKPIPE" prove b.params bw.wtns o.json opub.json
refuse 2 'nosuch\.zpk: No such file' "a missing key" "$ZKPIPE" prove nosuch.zpk w.wtns o.json opub.json
refuse 2 'nosuch\.wtns: No such file' "a missing witness" "$ZKPIPE" prove k.zpk nosuch.wtns o.json opub.json
none_of o.json opub.json && ok "failed proves wrote nothing" || bad "a failed prove left outputs"
refuse 2 'w\.wtns is a \.wtns witness, not a verifying key' "verify: a .wtns as the key" \
  "$ZKPIPE" verify w.wtns pub.json p.json
refuse 2 'w\.wtns is a \.wtns witness, not a proof' "verify: a .wtns as the proof" \
  "$ZKPIPE" verify vk.json pub.json w.wtns
refuse 2 'nosuch\.json: No such file' "verify: a missing proof" "$ZKPIPE" verify vk.json pub.json nosuch.json
head -c 100 p.bin >short.bin
refuse 2 'short\.bin is neither JSON nor a 192-byte proof' "verify: a 100-byte proof" \
  "$ZKPIPE" verify vk.json pub.json short.bin
echo '["1","2"]' >two.json
refuse 2 'two\.json has 2 public inputs; the key expects 1' "verify: too many public inputs" \
  "$ZKPIPE" verify vk.json two.json p.json
echo "not a key" >text.txt
refuse 2 'text\.txt has no known magic, so it was read as a bellperson \.vk' "verify: a text file as the key" \
  "$ZKPIPE" verify text.txt pub.json p.json
head -c 900 b.vk >short.vk
refuse 2 'short\.vk' "verify: a truncated bellperson .vk" "$ZKPIPE" verify short.vk bpub.json bp.bin
mkdir odir.json
refuse 2 'odir\.json' "prove: an output that cannot be written exits 2 naming it" \
  "$ZKPIPE" prove k.zpk w.wtns o.json odir.json --proof-bin o.bin
none_of o.json o.bin && ok "... and the outputs written before it are removed" || bad "partial prove outputs left"
refuse 2 'odir\.json' "setup: an output that cannot be written exits 2 naming it" \
  "$ZKPIPE" setup $C --zpk o.zpk --vk-json odir.json
none_of o.zpk && ok "... and the .zpk written before it is removed" || bad "partial setup outputs left"
refuse 2 'no proof output' "prove without any output" "$ZKPIPE" prove k.zpk w.wtns
refuse 2 'no output' "setup without any output" "$ZKPIPE" setup $C
refuse 2 'not a synthetic circuit' "witness of a bad spec" "$ZKPIPE" witness synth:nope:8 x.wtns
none_of x.wtns && ok "bad witness spec wrote nothing" || bad "bad witness spec left a file"

# ---------------------------------------------------------------- bench prove
if z bench prove --circuit synth:chain:6 --reps 1 --threads 1 && grep -q '^total ' out &&
   grep -q '^RESULT,prove,cpu,synth:chain:6,snarkjs' out && grep -q '^key setup:' out; then
  ok "bench prove (cpu, chain:6): stages, total, RESULT line"
else bad "bench prove"; fi
if z bench prove --circuit synth:porep:8 --reps 1 --threads 1 --convention bellperson &&
   grep -q '^RESULT,prove,cpu,synth:porep:8,bellperson' out; then ok "bench prove --convention bellperson"
else bad "bench prove bellperson"; fi
"$ZKPIPE" bench prove --circuit synth:chain:6 --reps 1 --backend gpu >out 2>&1
rc=$?
if { [ $rc = 0 ] && grep -q '^RESULT,prove,gpu' out; } || { [ $rc = 2 ] && grep -Eq 'GPU|CUDA' out; }; then
  ok "bench prove --backend gpu runs or says why not (exit $rc)"
else bad "bench prove --backend gpu (exit $rc)"; fi
refuse 2 'backend is cpu or gpu' "bench prove --backend nope" "$ZKPIPE" bench prove --circuit synth:chain:6 --backend nope
# --tune NAME=VALUE: the tuning taken and printed; a bad name or value is named.
if z bench prove --circuit synth:chain:6 --reps 1 --threads 1 --tune cpu_ifma=off --tune h_table=13 \
     --tune ntt_twist=off && grep -q 'tuning ntt_twist=off h_table=13 ring_share=off cpu_ifma=off' out &&
   grep -q '^RESULT,prove,cpu' out; then ok "bench prove --tune (three names)"
else bad "bench prove --tune"; fi
expect 0 "prove --tune cpu_ifma=off h_table=off" "$ZKPIPE" prove --backend cpu --tune cpu_ifma=off \
  --tune h_table=off k.zpk w.wtns --proof-bin pt.bin
refuse 0 '^OK$' "its proof verifies" "$ZKPIPE" verify vk.json pub.json pt.bin
refuse 2 "unknown name 'nope'" "prove --tune nope=1" "$ZKPIPE" prove --tune nope=1 k.zpk w.wtns --proof-bin x.bin
refuse 2 'h_table=23: the value must be auto, off or a window size from 2 to 22' \
  "prove --tune h_table=23" "$ZKPIPE" prove --tune h_table=23 k.zpk w.wtns --proof-bin x.bin
refuse 2 'wants NAME=VALUE' "bench batch --tune ntt_twist" "$ZKPIPE" bench batch --circuit synth:chain:6 \
  --count 1 --concurrency 1 --tune ntt_twist
# --log-level: debug lines on stderr; a bad level named.
if "$ZKPIPE" bench batch --circuit synth:chain:6 --count 1 --concurrency 1 --log-level debug \
     >out 2>err && grep -q ' debug job.finished job=bench-0-0 ' err; then
  ok "bench batch --log-level debug"
else bad "bench batch --log-level debug"; fi
refuse 2 "--log-level wants error, warn, info or debug, got 'loud'" "bench batch --log-level loud" \
  "$ZKPIPE" bench batch --circuit synth:chain:6 --count 1 --concurrency 1 --log-level loud
refuse 2 "cpu_ifma=auto or cpu_ifma=off here, not 'h_table=13'" "bench msm --tune h_table=13" \
  "$ZKPIPE" bench msm --tune h_table=13
none_of x.bin && ok "a bad --tune wrote nothing" || bad "a bad --tune left a proof"
refuse 2 "bad option '--precompute'" "bench msm refuses a precompute window beyond 22" "$ZKPIPE" bench msm --precompute 23
# bench copy --host needs no GPU: zkpipe's copy against libc's, both checked.
if z bench copy --host 1,2 --bytes 8M --reps 1 &&
   [ "$(grep -c '^RESULT,copy_host,8388608,[12],' out)" = 2 ]; then ok "bench copy --host (no GPU)"
else bad "bench copy --host"; fi
refuse 2 'measures host memory alone' "bench copy --host with --pageable" \
  "$ZKPIPE" bench copy --host 1 --pageable 1
refuse 2 'for G1 on the GPU' "bench msm --precompute refuses G2" "$ZKPIPE" bench msm --precompute 22 --g2
refuse 2 'is for the GPU, without --precompute' "bench msm --window refuses the CPU" \
  "$ZKPIPE" bench msm --window 16 --g2 --backend cpu
refuse 2 'is for G1 on the GPU' "bench msm --chunks refuses G2" \
  "$ZKPIPE" bench msm --chunks 4 --g2 --backend cpu
refuse 2 'are for G1 on the GPU' "bench msm --g1-affine-from refuses the CPU" \
  "$ZKPIPE" bench msm --g1-affine-from 20 --backend cpu
refuse 2 'are for G1 on the GPU' "bench msm --g1-ones-affine-from refuses G2" \
  "$ZKPIPE" bench msm --g1-ones-affine-from 22 --g2
refuse 2 "bad option '--g1-affine-from'" "bench msm refuses a crossover beyond 2^40" \
  "$ZKPIPE" bench msm --g1-affine-from 41
refuse 2 'is for the GPU' "bench msm --affine-min-entries refuses the CPU" \
  "$ZKPIPE" bench msm --affine-min-entries 20 --backend cpu
refuse 2 "bad option '--a msm:99'" "bench corun refuses a size beyond its range" "$ZKPIPE" bench corun --a msm:99
refuse 2 "bad option '--b fft:20'" "bench corun refuses unknown work" "$ZKPIPE" bench corun --b fft:20
refuse 2 "bad option '--b g2:27'" "bench corun refuses a G2 size beyond its range" "$ZKPIPE" bench corun --b g2:27
"$ZKPIPE" bench corun --a g2:12 --b ntt:13 --seconds 1 >out 2>&1
rc=$?
if head -1 out | grep -q '^corun g2:12 + ntt:13, 1 s a phase$'; then ok "bench corun takes --a and --b for their own lanes"
else bad "bench corun's lanes: $(head -1 out)"; fi
"$ZKPIPE" bench corun --a ntt:12 --b msm:12 --seconds 1 >out 2>&1
rc=$?
if { [ $rc = 0 ] && grep -q '^RESULT,corun,ntt:12,msm:12' out; } || { [ $rc = 1 ] && grep -Eq 'GPU|CUDA' out; }; then
  ok "bench corun runs or says why not (exit $rc)"
else bad "bench corun (exit $rc)"; fi

echo "$passed passed, $failed failed"
[ $failed = 0 ]
