#!/usr/bin/env bash
# The layering test: every #include "..." in src/ goes to the including
# file's own module, to a module below it in ORDER, or to the public
# header zkpipe.h (supraseal/ also its own zkpipe_supraseal*.h); and no header includes itself through others (a cycle).
# Fails naming each file and header that break it.
#
# A module is a folder of src/; src/gpu/bench/ (the device benchmarks,
# whose CUDA must stay under src/gpu/) belongs to bench. A folder not in
# ORDER fails too: place a new module before adding it.
#
# usage: bash layers.sh [SRC_DIR]   (default: the src/ beside tests/)
set -u

# Lowest first. What each builds on:
#   base     libc only: the thread pool, byte codecs (hex, base64, decimal),
#            the process log
#   math     Fp, Fr, towers, curves, pairing
#   r1cs     constraint systems in CSR form, synthetic circuits
#   cpu      the CPU backend: NTT and MSM
#   gpu      the CUDA backend (its matrix-vector product reads r1cs's CSR)
#   io       file formats, and the key types in memory (io/key.h) that
#            io builds and groth16 uses
#   groth16  prover stages (CPU and GPU), verifier, setup
#   engine   jobs, scheduler, workers, key cache (libzkpipe ends here)
#   supraseal  the supraseal-c2 drop-ins over the engine (their own archives)
#   fleet    the shared job queue in PostgreSQL (libzkpipe_fleet, libpq)
#   server   the daemon (libzkpipe_server)
#   tool     what the CLI and the benchmark drivers share: --help, timing
#   client   the daemon's client side (libzkpipe_client)
#   bench    benchmark drivers, the trace reader, src/gpu/bench/ (libzkpipe_bench)
#   cli      the zkpipe program
ORDER="base math r1cs cpu gpu io groth16 engine supraseal fleet server tool client bench cli"

SRC=${1:-$(cd "$(dirname "$0")/../src" && pwd)}
[ -d "$SRC" ] || { echo "layers.sh: no such folder: $SRC"; exit 2; }
cd "$SRC" || exit 2

declare -A rank
i=0
for m in $ORDER; do
  rank[$m]=$i
  i=$((i + 1))
done

module_of() { # sets mod to the module of a path relative to src/
  case $1 in
    gpu/bench/*) mod=bench ;;
    */*) mod=${1%%/*} ;;
    *) mod="" ;;
  esac
}

fail=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

# Every source file sits in a known module.
files=$(find . -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sed 's|^\./||' | sort)
for f in $files; do
  module_of "$f"
  if [ -z "${rank[$mod]+x}" ]; then
    echo "src/$f: module '$mod' is not in the order of tests/layers.sh"
    fail=1
  fi
done

# Every include goes down or sideways. Input lines: FILE HEADER.
n=0
while read -r f h; do
  [ "$h" = zkpipe.h ] && continue
  # The public headers of the supraseal-c2 drop-ins, for their module only.
  case $f:$h in supraseal/*:zkpipe_supraseal*.h) continue ;; esac
  n=$((n + 1))
  case $h in
    */*) target=$h ;;
    *) target=${f%/*}/$h ;; # a bare name is beside the includer
  esac
  if [ ! -f "$target" ]; then
    echo "src/$f includes \"$h\": no such file under src/"
    fail=1
    continue
  fi
  module_of "$f"
  fm=$mod
  module_of "$target"
  hm=$mod
  if [ -n "${rank[$fm]+x}" ] && [ -n "${rank[$hm]+x}" ] && [ "${rank[$hm]}" -gt "${rank[$fm]}" ]; then
    echo "src/$f includes \"$h\": $fm may not include a header of $hm (above it)"
    fail=1
  fi
  echo "$target $f" >>"$edges"
done < <(echo "$files" | xargs grep -HE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' |
         sed -nE 's|^([^:]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*|\1 \2|p')

# A cycle of includes (a.h -> b.h -> a.h) within a module: tsort names it.
if ! tsort "$edges" >/dev/null 2>"$edges.err"; then
  echo "include cycle:"
  sed 's/^/  /' "$edges.err"
  fail=1
fi
rm -f "$edges.err"

if [ $fail = 0 ]; then
  echo "layers: ok ($n includes in $(echo "$files" | wc -l) files; order: $ORDER)"
fi
exit $fail
