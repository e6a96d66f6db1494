#!/usr/bin/env bash
# Instructions per field operation: callgrind's inclusive count of the
# library function (zp_fp_mul, zp_g1_jac_add, ...) over two runs of
# bench/field_ops.c that differ only in the repetition count, divided by the
# difference, so setup calls cancel out and the harness loop is not counted.
# Two columns: the x86-64 BMI2/ADX kernels forced on ("fast"; valgrind's
# CPUID hides ADX, so without forcing the library would pick the portable
# path under callgrind) and forced off ("portable").
# Usage: bench/field_callgrind.sh BUILD_DIR [OP...]
set -euo pipefail
build=${1:?usage: field_callgrind.sh BUILD_DIR [OP...]}
shift
ops=("$@")
[ ${#ops[@]} -gt 0 ] || ops=(fp_mul fp_sqr fr_mul fr_sqr fp_add fp_sub fp_inv fr_inv fp_sqrt fp_legendre g1_add g2_add pairing)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cflags="-O2 -march=x86-64-v3"
[ "$(uname -m)" = x86_64 ] || cflags="-O2"
# Headers from the tree the build was configured from (older trees lack the
# x86 switch; field_ops.c then measures what the library picks).
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
gcc $cflags -I"$src/include" -I"$src/src" "$here/field_ops.c" "$build/libzkpipe.a" \
    -lpthread -lm -o "$tmp/field_ops"
fn_of() {
    case $1 in
    g1_add) echo zp_g1_jac_add ;;
    g2_add) echo zp_g2_jac_add ;;
    pairing) echo zp_pairing ;;
    *_vartime) echo "zp__$1" ;;
    *) echo "zp_$1" ;;
    esac
}
count() { # op n mode -> inclusive instructions of the op's function
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$tmp/field_ops" "$1" "$2" "$3" \
        >/dev/null 2>&1
    callgrind_annotate --inclusive=yes --threshold=100 "$tmp/cg.out" 2>/dev/null |
        awk -v f="???:$(fn_of "$1")" '$3 == f { gsub(",", "", $1); print $1; found = 1 }
                                      END { if (!found) print 0 }'
}
per_op() { # op mode
    local lo hi a b
    case $1 in
    fp_inv*|fr_inv*|fp_sqrt|fp_legendre|g2_add) lo=20; hi=220 ;;
    pairing) lo=2; hi=12 ;;
    *) lo=1000; hi=21000 ;;
    esac
    a=$(count "$1" $lo "$2")
    b=$(count "$1" $hi "$2")
    echo "$a $b $lo $hi" | awk '{printf "%.1f", ($2-$1)/($4-$3)}'
}
printf '%-12s %14s %14s\n' op fast portable
for op in "${ops[@]}"; do
    printf '%-12s %14s %14s\n' "$op" "$(per_op "$op" fast)" "$(per_op "$op" portable)"
done
