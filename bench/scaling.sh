#!/usr/bin/env bash
# Throughput on 1, 2, 4 and 8 GPUs of one host (bench/RESULTS.md, scaling):
# the copy bandwidth of each GPU alone and of all at once, then for each
# count of GPUs `zkpipe bench batch` over synth:porep:LOG2 (jobs of 10
# partitions, every proof verified), with whole arenas and with each arena
# capped (the streamed-key path, where the host's PCIe and memory bandwidth
# are shared), and the trace of the largest run drawn as an SVG.
#
# usage: bash bench/scaling.sh ZKPIPE [OUTDIR]
# Env:  COUNTS  the GPU counts to run (default: 1 2 4 8, those the host has)
#       CAPS    arena caps to run besides the whole arena (default "24G";
#               "" for none)
#       WHOLE   0: no whole-arena runs (the caps alone; default 1)
#       LOG2 (27), JOBS (jobs per GPU, default 2), SLOTS (2), VERIFY (4)
#       ONLY    "copy", "batch" or "" (both)
# Each run's output is OUTDIR/batch-G-ARENA.log (default OUTDIR: bench-scaling);
# the table at the end is also OUTDIR/table.md. Without a GPU the batches run
# on G CPU workers instead (for trying the script, not for figures).
set -uo pipefail
Z=${1:?usage: bench/scaling.sh ZKPIPE [OUTDIR]}
OUT=${2:-bench-scaling}
mkdir -p "$OUT"
LOG2=${LOG2:-27} JOBS=${JOBS:-2} SLOTS=${SLOTS:-2} VERIFY=${VERIFY:-4}
CAPS=${CAPS-24G}
have=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ -z "${COUNTS:-}" ]; then
    COUNTS=""
    for g in 1 2 4 8; do
        [ "$g" -le "${have:-0}" ] && COUNTS="$COUNTS $g"
    done
    [ -z "$COUNTS" ] && COUNTS=1
fi
table="$OUT/table.md"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo ?), $have GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" | tee "$table"

if [ "${ONLY:-}" != batch ] && [ "$have" -gt 0 ]; then
    echo "| copy, pinned, 4 GiB | host to device GB/s | device to host GB/s |" | tee -a "$table"
    echo "|---|---:|---:|" | tee -a "$table"
    for ((g = 0; g < have; g++)); do
        "$Z" bench copy --bytes 4G --reps 5 --gpu "$g" > "$OUT/copy-$g.log" 2>&1
        echo "| GPU $g alone | $(sed -n 's/.*h2d \([0-9.]*\) GB\/s, d2h \([0-9.]*\) GB\/s.*/\1 | \2/p' "$OUT/copy-$g.log") |" | tee -a "$table"
    done
    if [ "$have" -gt 1 ]; then
        "$Z" bench copy --bytes 4G --reps 5 --all > "$OUT/copy-all.log" 2>&1
        echo "| all $have at once (total) | $(sed -n 's/.*h2d \([0-9.]*\) GB\/s, d2h \([0-9.]*\) GB\/s in total.*/\1 | \2/p' "$OUT/copy-all.log") |" | tee -a "$table"
    fi
fi
[ "${ONLY:-}" = copy ] && exit 0

echo | tee -a "$table"
echo "| GPUs | arena | s/proof (steady) | x one GPU | key made | GPU busy % | h2d GiB/partition | peak RSS GiB | verified |" | tee -a "$table"
echo "|---:|---|---:|---:|---:|---|---:|---:|---|" | tee -a "$table"
declare -A one
last=""
arenas=$CAPS
[ "${WHOLE:-1}" = 0 ] || arenas="whole $CAPS"
for cap in $arenas; do
    [ "$cap" = whole ] && cap=""
    for g in $COUNTS; do
        arena=${cap:-whole}
        log="$OUT/batch-$g-$arena.log"
        dev=(--gpus "$g" --slots "$SLOTS")
        [ -n "$cap" ] && dev+=(--gpu-mem "$cap")
        [ "$have" -eq 0 ] && dev=(--workers "$g")
        trace="$OUT/trace-$g-$arena.json"
        "$Z" bench batch --circuit "synth:porep:$LOG2" "${dev[@]}" --count $((JOBS * g)) \
            --partitions 10 --concurrency $((2 * g)) --verify-threads "$VERIFY" \
            --distinct-witnesses 3 --trace "$trace" > "$log" 2>&1
        rc=$?
        per=$(sed -n 's/^steady state: .*, \([0-9.]*\) s per job of.*/\1/p' "$log")
        # Too few completions for a steady state: the whole run's figure, marked.
        [ -z "$per" ] && per=$(sed -n 's/^wall [0-9.]* s: \([0-9.]*\) s per job of.*/\1/p' "$log") &&
            [ -n "$per" ] && per="$per (wall)"
        key=$(sed -n 's/.*TEST-ONLY key made in \([0-9.]*\) s.*/\1/p' "$log")
        busy=$(sed -n 's/^gpu\([0-9]*\) busy \([0-9.]*\) %.*/\2/p' "$log" | paste -sd/ -)
        h2d=$(sed -n 's/^host to device: \([0-9.]*\) GiB per partition.*/\1/p' "$log")
        rss=$(sed -n 's/^host memory: peak RSS of the process \([0-9.]*\) GiB.*/\1/p' "$log")
        ver=$(sed -n 's/^partition proofs verified \([0-9]*\), rejected \([0-9]*\), jobs failed \([0-9]*\).*/\1 ok, \2 rejected, \3 failed/p' "$log")
        x=""
        if [ -n "$per" ]; then
            [ "$g" = "$(echo $COUNTS | cut -d' ' -f1)" ] && one[$arena]=${per%% *}
            [ -n "${one[$arena]:-}" ] && x=$(awk -v a="${one[$arena]}" -v b="${per%% *}" -v g="$g" \
                'BEGIN{printf "%.2f (%.0f %% of %d)", a / b, 100 * a / b / g, g}')
        fi
        [ $rc -ne 0 ] && per="exit $rc"
        echo "| $g | $arena | ${per:-?} | ${x:-} | ${key:-?} | ${busy:-} | ${h2d:-} | ${rss:-?} | ${ver:-?} |" | tee -a "$table"
        last=$trace
    done
done
if [ -n "$last" ] && [ -f "$last" ]; then
    "$Z" trace svg "$last" -o "${last%.json}.svg" > "$OUT/trace-svg.log" 2>&1 &&
        echo "trace: ${last%.json}.svg" | tee -a "$table"
fi
