#!/usr/bin/env bash
# Variants built here, run on a GPU machine without building there: the
# device's minutes go to tests and figures, not to nvcc. `pack` builds the
# tree (build-gpu, as configured) and each patch applied in turn, and puts
# each one's zkpipe and GPU test binaries in bench/out/dv/NAME/, with the
# GPU tests' command lines (ctest's, the build directory made relative) and
# the Debian libraries the daemon needs (bench/out/libs, gathered from
# ldd at each pack) in
# one archive, bench/out/dv.tar.xz (the binaries share most of their bytes:
# a few MiB a variant). Carry that archive (the device tool's `carry`);
# there `tests` and `batch` unpack it when it is newer than what they find.
#
# usage: bash bench/carry.sh pack [PATCH[+PATCH]...]
#          (here) main and each variant (A.patch+B.patch: both, named a+b)
#        bash bench/carry.sh tests NAME [REGEX]
#          (device) NAME's GPU tests (ctest -L gpu, and the compute-sanitizer
#          runs, memcheck_*; a variant's as its patched tree lists them)
#          whose names match REGEX, each under a time limit (TEST_TIMEOUT,
#          300 s); a line each, then a count
#        bash bench/carry.sh batch NAME:ARENA[:TUNE]...
#          (device) bench/variants.sh's batch with NAME's zkpipe
#        bash bench/carry.sh dropin NAME[:ARENA]...
#          (device) bench_supraseal_c2 --circuits 10 --calls CALLS (2) over
#          KEY (bench/out/porep-LOG2.zpk, made by the first run when missing),
#          the drop-in alone, each GPU's arena capped where ARENA (24G) says;
#          with TRACE=1 also its engine trace (OUT/TAG.json) and the
#          trace's stage medians (zkpipe trace svg)
#        bash bench/carry.sh zkpipe NAME ARGS...
#          (device) NAME's zkpipe with ARGS (e.g. bench msm --chunks 12 ...),
#          its Debian libraries found, the output also in OUT/zkpipe-*.log;
#          with NCU=1 under Nsight Compute (clocks left alone), which prints
#          each kernel's count and time summed over the run (NCU_ARGS adds
#          options, e.g. --launch-count 4000); a Firecracker machine's only
#          (the H100 kinds': on gVisor ncu reads no counters)
#        bash bench/carry.sh round NAME STEP...
#          (device) one device call's usual steps for NAME, in the order
#          given, each under what is left of BUDGET seconds (570: a call's
#          600 less the bundle) and skipped, said so, where less is left
#          than it needs: arenas (batch at 48, 32, 24 and 16 GiB), tests
#          (the GPU suite, TEST_TIMEOUT 150), memcheck (the sanitizer's
#          runs), whole (two jobs of 10 on the whole card, two slots);
#          then its figures and failures, a line each, and bundle
#        bash bench/carry.sh bundle
#          (device) OUT's logs in one file, OUT.tgz (traces left out), and
#          OUT removed: the device tool brings back at most 8 files a call
# env: OUT (logs; default bench/out/carry; on the device a folder under the
# tool's $OUT, e.g. OUT=$OUT/run1, so that they come back), LOG2 (27),
# COUNT (1), BATCH_ARGS (more options for bench batch: --log-level debug
# logs every chunk, and batch then prints bench/chunk_fit.sh's table).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=bench/with_variants.sh
. bench/with_variants.sh
DV=bench/out/dv
OUT=${OUT:-bench/out/carry}
mkdir -p "$OUT"
what=${1:-}
shift || true

unpack() {
  [ -f bench/out/dv.tar.xz ] || return 0
  if [ ! -f "$DV/.unpacked" ] || [ bench/out/dv.tar.xz -nt "$DV/.unpacked" ]; then
    rm -rf "$DV" bench/out/libs
    (cd bench/out && tar xJf dv.tar.xz) && touch "$DV/.unpacked"
  fi
}

# The GPU tests' command lines, NAME|COMMAND with the build directory as
# @B@ (a test's binary is @B@/tests/NAME) and compute-sanitizer as @S@:
# from a tree configured (not built) in $OUT/list with the sanitizer named,
# so that its runs are listed where this machine has none.
gpu_tests() {
  local l=$OUT/list san=/usr/local/cuda/bin/compute-sanitizer
  cmake -S . -B "$l" -DCMAKE_CUDA_ARCHITECTURES=90-real -DZP_COMPUTE_SANITIZER=$san \
    >"$OUT/list.log" 2>&1 || { tail -20 "$OUT/list.log" >&2; return 1; }
  # ctest lists no command whose program is missing here: the test file
  # itself says them.
  B=$(realpath "$l") S=$san python3 -c '
import os, re
b, s = os.environ["B"], os.environ["S"]
text = open(os.path.join(b, "tests", "CTestTestfile.cmake")).read()
labels = dict(re.findall(r"set_tests_properties\(\[=\[(\w+)\]=\] PROPERTIES\s+LABELS \"([^\"]*)\"", text))
for name, args in re.findall(r"add_test\(\[=\[(\w+)\]=\] (.*)\)\n", text):
    if "supraseal" in name or not ("gpu" in labels.get(name, "").split(";") or name.startswith("memcheck_test_gpu")):
        continue
    cmd = [a.replace(b, "@B@").replace(s, "@S@") for a in re.findall(r"\"([^\"]*)\"", args)]
    print(name + "|" + " ".join(cmd))
'
}

# The Debian libraries build-gpu's zkpipe links beyond the C and C++
# runtimes (the daemon's: libmicrohttpd, cJSON, libcurl, libpq and theirs)
# into bench/out/libs, for a device machine that has none of them; again at
# every pack, since the build's libraries change with what this machine has.
libs() {
  rm -rf bench/out/libs && mkdir -p bench/out/libs
  ldd build-gpu/zkpipe | awk '$3 ~ /^\// {print $3}' |
    grep -vE '/(libc|libm|libresolv|libstdc\+\+|libgcc_s)\.so' |
    while read -r l; do cp -L "$l" bench/out/libs/; done
}

# Copies build-gpu's zkpipe, bench_supraseal_c2 and GPU test binaries to
# $DV/$1; with a list $2 of the variant's own tests (its patch may add
# some), that list too, as $DV/$1/tests.txt, which `tests` then runs.
take() {
  local d=$DV/$1 list=${2:-$DV/tests.txt}
  rm -rf "$d" && mkdir -p "$d/tests"
  cp build-gpu/zkpipe build-gpu/bench_supraseal_c2 "$d/"
  [ "$list" = "$DV/tests.txt" ] || cp "$list" "$d/tests.txt"
  cut -d'|' -f2 "$list" | grep -o '@B@/tests/[a-z0-9_]*' | sort -u |
    while read -r t; do cp "build-gpu/tests/${t#@B@/tests/}" "$d/tests/"; done
}

case "$what" in
pack)
  j=$(nproc)
  rm -rf "$DV" bench/out/dv.tar.xz # only what this call packs
  mkdir -p "$DV"
  cmake --build build-gpu -j"$j" >"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
  gpu_tests >"$DV/tests.txt" || exit 1
  libs
  take main && echo "main: packed"
  pack_one() {
    if cmake --build build-gpu -j"$j" >>"$OUT/build.log" 2>&1; then
      local list=$OUT/tests-$1.txt
      gpu_tests >"$list" || list=$DV/tests.txt
      take "$1" "$list" && echo "$1: packed"
    else
      echo "$1: does not build"
      tail -20 "$OUT/build.log"
    fi
  }
  with_variants pack_one "$@"
  cmake --build build-gpu -j"$j" >>"$OUT/build.log" 2>&1
  rm -f "$DV/.unpacked"
  parts=(dv)
  [ -n "$(ls -A bench/out/libs)" ] && parts+=(libs)
  (cd bench/out && tar cf - "${parts[@]}" | xz -9 -T0 >dv.tar.xz)
  ls -l bench/out/dv.tar.xz
  ;;
tests)
  unpack
  v=$1
  re=${2:-.}
  d=$PWD/$DV/$v
  [ -d "$d" ] || { echo "no variant $v in $DV"; exit 2; }
  list=$DV/tests.txt
  [ -f "$d/tests.txt" ] && list=$d/tests.txt # a variant's own, where it has one
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  pass=0 fail=0
  child=
  trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; exit 143' TERM INT
  while IFS='|' read -r name cmd; do
    [[ $name =~ $re ]] || continue
    t0=$(date +%s)
    log=$OUT/test-${v//+/_}-$name.log
    cmd=${cmd//@B@/$d}
    # In the background and waited for, so that a TERM to this script (an
    # outer timeout) reaches the test through the trap at once, instead of
    # leaving it running with the GPU held.
    # shellcheck disable=SC2086 # the command line's words
    (cd tests && exec timeout "${TEST_TIMEOUT:-300}" ${cmd//@S@/$san}) >"$log" 2>&1 &
    child=$!
    wait "$child"
    rc=$?
    # 77: skipped (no GPU)
    if [ $rc = 0 ] || [ $rc = 77 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    echo "$v $name rc=$rc $(($(date +%s) - t0)) s: $(tail -1 "$log")"
  done <"$list"
  echo "$v: $pass passed, $fail failed"
  [ $fail = 0 ]
  ;;
batch)
  unpack
  export LD_LIBRARY_PATH=$PWD/bench/out/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  for va in "$@"; do
    IFS=: read -r v arena tune <<<"$va"
    tag=$(free_tag "$OUT/batch-" "${v//+/_}-$arena${tune:+-${tune//=/}}")
    log=$OUT/batch-$tag.log
    # shellcheck disable=SC2086 # BATCH_ARGS: words
    "$DV/$v/zkpipe" bench batch --circuit "synth:porep:${LOG2:-27}" --gpus 1 --gpu-mem "$arena" \
      --count "${COUNT:-1}" --partitions 10 --concurrency 2 --verify-threads 4 \
      --distinct-witnesses 2 --trace "$OUT/batch-$tag.json" ${tune:+--tune "$tune"} \
      ${BATCH_ARGS:-} >"$log" 2>&1 ||
      echo "$tag: exit $?"
    grep -E "s/proof|per job|stage medians|host to device|verified|gpu0 busy|error" "$log" |
      sed "s/^/$tag: /"
    # With --log-level debug: where the MSM schedule's time went, chunk by chunk.
    if grep -q " sched\.chunk " "$log"; then
      bash bench/chunk_fit.sh "$log" 2>&1 | sed "s/^/$tag: /"
    fi
  done
  ;;
dropin)
  unpack
  export LD_LIBRARY_PATH=$PWD/bench/out/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  key=${KEY:-bench/out/porep-${LOG2:-27}.zpk}
  # A key of another size is removed before this one is made: the device's
  # disk holds one porep:27 key but not a porep:26 one beside it, and a
  # write that runs out fails every run of the call.
  if [ ! -f "$key" ] && [ -z "${KEY:-}" ]; then
    for old in bench/out/porep-*.zpk; do
      [ -f "$old" ] && [ "$old" != "$key" ] && rm -f "$old" && echo "removed $old"
    done
  fi
  for va in "$@"; do
    IFS=: read -r v arena <<<"$va"
    tag=$(free_tag "$OUT/" "dropin-${v//+/_}${arena:+-$arena}")
    trace=()
    [ -n "${TRACE:-}" ] && trace=(--trace "$OUT/$tag.json")
    "$DV/$v/bench_supraseal_c2" --log2 "${LOG2:-27}" --circuits 10 --calls "${CALLS:-2}" \
      --key "$key" --skip-native ${arena:+--gpu-mem "${arena%G}"} "${trace[@]}" \
      >"$OUT/$tag.log" 2>&1 || echo "$tag: exit $?"
    [ -n "${TRACE:-}" ] && [ -f "$OUT/$tag.json" ] &&
      "$DV/$v/zkpipe" trace svg "$OUT/$tag.json" -o "$OUT/$tag.svg" >>"$OUT/$tag.log" 2>&1
    grep -E "s/proof|call |setup |create_SRS|caller|verify |key\.|error|stage |busy|steady" \
      "$OUT/$tag.log" | sed "s/^/$tag: /"
  done
  ;;
zkpipe)
  unpack
  export LD_LIBRARY_PATH=$PWD/bench/out/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  v=${1:-}
  [ -x "$DV/$v/zkpipe" ] || { echo "no variant '$v' in $DV"; exit 2; }
  shift
  words="${1:-}-${2:-}"
  tag=$(free_tag "$OUT/zkpipe-" "${v//+/_}-${words//[^A-Za-z0-9_-]/_}")
  run=("$DV/$v/zkpipe")
  if [ "${NCU:-}" = 1 ]; then
    # shellcheck disable=SC2206 # NCU_ARGS: words on purpose
    run=(ncu --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel
      ${NCU_ARGS:-} "${run[@]}")
  fi
  "${run[@]}" "$@" 2>&1 | tee "$OUT/zkpipe-$tag.log"
  exit "${PIPESTATUS[0]}"
  ;;
round)
  v=$1
  shift
  t0=$(date +%s)
  sum=$OUT/round.txt
  left() { echo $((${BUDGET:-570} - ($(date +%s) - t0))); }
  # step NEEDS CMD...: CMD under what is left, where at least NEEDS seconds are.
  step() {
    local need=$1
    shift
    if [ "$(left)" -lt "$need" ]; then
      echo "skipped, $(left) s left of the $need it needs: ${*: -3}" >>"$sum"
      return
    fi
    timeout "$(($(left) - 5))" "$@" 2>&1 | tee -a "$OUT/round.log" |
      grep -E 's/proof|verified|passed, [0-9]+ failed| rc=[1-9]|exit|no variant' >>"$sum"
  }
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader >"$sum" 2>&1
  for st in "$@"; do
    case $st in
    arenas) for a in 48G 32G 24G 16G; do step 150 bash "$0" batch "$v:$a"; done ;;
    tests) TEST_TIMEOUT=${TEST_TIMEOUT:-150} step 400 bash "$0" tests "$v" '^test_gpu' ;;
    memcheck) step 120 bash "$0" tests "$v" '^memcheck' ;;
    whole)
      step 200 bash "$0" zkpipe "$v" bench batch --circuit "synth:porep:${LOG2:-27}" --gpus 1 \
        --slots 2 --count 2 --partitions 10 --concurrency 4 --verify-threads 4 \
        --distinct-witnesses 3
      ;;
    *) echo "round: no step $st (arenas, tests, memcheck, whole)" | tee -a "$sum" ;;
    esac
  done
  echo "$(left) s left" >>"$sum"
  cat "$sum"
  bash "$0" bundle >/dev/null
  ;;
bundle)
  rm -f "$OUT"/*.json
  tar czf "$OUT.tgz" -C "$(dirname "$OUT")" "$(basename "$OUT")" && rm -rf "$OUT"
  ls -l "$OUT.tgz"
  ;;
*)
  sed -n '2,/^set /p' "$0" | sed -n '/^#/p'
  exit 2
  ;;
esac
