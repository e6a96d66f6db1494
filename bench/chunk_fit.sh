#!/usr/bin/env bash
# Where a streaming slot's MSM time goes, chunk by chunk, from the
# `sched.chunk` lines of `zkpipe bench batch ... --log-level debug` (or of
# the daemon's log at debug): per MSM and kind (resident or streamed) the
# chunks a schedule run, their points, the time summing them, and a least-
# squares line through every chunk of the logs given, time = fixed + slope
# x points, where the chunks' sizes differ enough to fit one (give logs of
# two arenas, whose buffers differ, to fit a streamed H). What a chunk costs
# beyond its points is the line's fixed part. The last column lists the
# windows and windows a pass its chunks took, where the lines give them.
#
# usage: bash bench/chunk_fit.sh LOG...
# env: FROM (the first schedule run counted; default 3: the warm-up job's
#      two partitions left out)
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: bash bench/chunk_fit.sh LOG... (zkpipe's log at --log-level debug)" >&2
  exit 2
fi
for f in "$@"; do
  if [ ! -r "$f" ]; then
    echo "bench/chunk_fit.sh: cannot read $f" >&2
    exit 2
  fi
done
exec awk -v from="${FROM:-3}" '
function field(name,   i, kv) {
  for (i = 1; i <= NF; i++)
    if (index($i, name "=") == 1)
      return substr($i, length(name) + 2);
  return "";
}
$0 ~ / sched\.chunk / {
  run = field("run") + 0
  if (run < from)
    next
  g = field("msm") (field("streamed") == "1" ? " streamed" : " resident")
  p = field("points") / 1e6
  ms = field("sum_ms") + 0
  if (!(g in n)) {
    groups[++ng] = g
  }
  n[g]++; sp[g] += p; sm[g] += ms; spp[g] += p * p; spm[g] += p * ms
  # The windows and windows a pass its chunks took, where the lines give them.
  wp = field("windows") "/" field("per_pass")
  if (wp != "/" && !((g, wp) in wps)) {
    wps[g, wp] = 1
    wlist[g] = wlist[g] (wlist[g] == "" ? "" : ",") wp
  }
  key = FILENAME SUBSEP run
  if (!((g, key) in seen)) {
    seen[g, key] = 1
    runs[g]++
  }
  if (!(key in allrun)) {
    allrun[key] = 1
    nruns++
  }
  seen_any = 1
}
END {
  if (!seen_any) {
    print "bench/chunk_fit.sh: no sched.chunk lines from run " from " on (a streaming key, --log-level debug?)" > "/dev/stderr"
    exit 1
  }
  printf "%-14s %7s %9s %9s %10s %9s %11s  %s\n", "msm", "chunks", "a run", "Mpoints",
         "ms a run", "ns/point", "ms+ms/M", "windows/a pass"
  for (k = 1; k <= ng; k++) {
    g = groups[k]
    mean_p = sp[g] / n[g]
    var = spp[g] / n[g] - mean_p * mean_p
    fit = "-"
    # A line only where the sizes spread (a tenth of the mean, as a standard deviation).
    if (n[g] >= 3 && var > 0 && sqrt(var) > 0.1 * mean_p) {
      slope = (spm[g] / n[g] - mean_p * sm[g] / n[g]) / var
      fixed = sm[g] / n[g] - slope * mean_p
      fit = sprintf("%.2f+%.3f/M", fixed, slope)
    }
    printf "%-14s %7d %9.1f %9.2f %10.1f %9.3f %11s  %s\n", g, n[g], n[g] / runs[g], mean_p,
           sm[g] / runs[g], (sp[g] > 0 ? sm[g] / sp[g] : 0), fit, (g in wlist ? wlist[g] : "-")
  }
  printf "%d schedule runs (from run %d); \"a run\": over the runs with chunks of that MSM\n", nruns, from
}
' "$@"
