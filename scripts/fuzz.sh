#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz with clang (ASan + UBSan, the
# library instrumented for coverage) and runs each for a set time.
#
#   scripts/fuzz.sh [--seconds N] [--jobs N] [--merge] [--build-only] [PARSER...]
#
# PARSER: zkey wtns r1cs zpk params vk json proof http (default: all).
# Each fuzzer starts from tests/fuzz/corpus/<parser>/ and writes what it
# finds to a scratch corpus under the build folder, never into the repo.
# With --merge, the inputs of that scratch corpus that add coverage to
# tests/fuzz/corpus/<parser>/ are merged into it (-merge=1). Prints the
# executions per parser (stat::number_of_executed_units) and the path of
# any crash, leak or timeout input; exits 1 when any fuzzer found one. ZP_FUZZ_BUILD_DIR
# (default build-fuzz) is the build folder, ZP_FUZZ_CC the compiler.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=60 jobs=1 merge=0 build_only=0
all=(zkey wtns r1cs zpk params vk json proof http)
parsers=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --merge) merge=1; shift ;;
    --build-only) build_only=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) parsers+=("$1"); shift ;;
  esac
done
[ ${#parsers[@]} -gt 0 ] || parsers=("${all[@]}")
for p in "${parsers[@]}"; do
  [ -f "tests/fuzz/fuzz_$p.c" ] || { echo "fuzz.sh: no harness tests/fuzz/fuzz_$p.c" >&2; exit 2; }
done

build=${ZP_FUZZ_BUILD_DIR:-build-fuzz}
cc=${ZP_FUZZ_CC:-clang}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B "$build" -DCMAKE_C_COMPILER="$cc" -DZP_CUDA=OFF -DZP_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link $san" \
  -DCMAKE_EXE_LINKER_FLAGS="$san" >/dev/null
targets=()
for p in "${parsers[@]}"; do targets+=("fuzz_$p"); done
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
[ "$build_only" = 0 ] || exit 0

# Bigger inputs for the key formats, whose smallest files are tens of KiB.
max_len() {
  case "$1" in
    zpk) echo 131072 ;;
    zkey|params|r1cs) echo 16384 ;;
    *) echo 8192 ;;
  esac
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
summary=()
for p in "${parsers[@]}"; do
  seeds=$root/tests/fuzz/corpus/$p
  work=$root/$build/fuzz-work/$p
  mkdir -p "$work/corpus" "$work/artifacts"
  log=$work/fuzz.log
  rm -f "$work"/fuzz-*.log
  par=()
  [ "$jobs" -le 1 ] || par=(-jobs="$jobs" -workers="$jobs")
  echo "== $p: ${seconds}s, $jobs job(s) =="
  set +e
  (cd "$work" && "$root/$build/tests/fuzz_$p" -max_total_time="$seconds" -print_final_stats=1 \
     -max_len="$(max_len "$p")" -timeout=10 -rss_limit_mb=4096 "${par[@]}" \
     -artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds") >"$log" 2>&1
  rc=$?
  set -e
  # With -jobs each worker logs to fuzz-<n>.log in the working folder.
  logs=("$log")
  if [ "$jobs" -gt 1 ]; then logs=("$work"/fuzz-*.log); fi
  execs=$(cat "${logs[@]}" | awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}')
  found=$(find "$work/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
          -o -name 'oom-*' -o -name 'slow-unit-*' \) -newer "$log" 2>/dev/null || true)
  line="$p: $execs executions in ${seconds}s"
  if [ -n "$found" ] || { [ $rc -ne 0 ] && [ "$jobs" -eq 1 ]; }; then
    status=1
    line="$line; FOUND (exit $rc): ${found:-see $log}"
  fi
  summary+=("$line")
  echo "$line"
  if [ "$merge" = 1 ]; then
    # Into the seeds folder, which keeps its files: only inputs that add
    # coverage to it come in (named by their hash).
    before=$(ls "$seeds" | wc -l)
    "$root/$build/tests/fuzz_$p" -merge=1 -max_len="$(max_len "$p")" -rss_limit_mb=4096 \
      "$seeds" "$work/corpus" >"$work/merge.log" 2>&1 || { echo "$p: merge failed, see $work/merge.log"; status=1; }
    echo "$p: corpus $before -> $(ls "$seeds" | wc -l) files, $(du -sh "$seeds" | cut -f1)"
  fi
done
echo "== summary =="
printf '%s\n' "${summary[@]}"
exit $status
