/*
 * `zkpipe trace svg FILE.json`: a Gantt chart of an engine trace, one lane
 * per worker (and GPU slot) and per thread of the CPU pool, with each
 * lane's busy fraction (the drawing is in src/bench/trace_read.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/trace_read.h"
#include "cli/cli.h"

/* ------------------------------------------------------------- command */

static const char trace_help[] =
    "usage: zkpipe trace svg TRACE.json [-o OUT.svg]\n"
    "\n"
    "Draws an engine trace (zkpipe bench batch --trace, or the daemon's trace\n"
    "export) as a Gantt chart: one lane per worker, GPU slot and verify thread,\n"
    "one bar per stage of each partition. Prints each lane's busy fraction\n"
    "and the per-stage medians. OUT defaults to TRACE with .svg for .json.\n";

static int trace_svg(const char *in, const char *outpath)
{
    zp__buf buf;
    zp__ioerr why = {{0}};
    zp_err err = zp__file_read(&buf, in, (uint64_t)1 << 30, &why);
    zp__tr t;
    if (!err) {
        err = zp__tr_load(&t, (const char *)buf.data, buf.len, &why);
        zp__buf_free(&buf);
    }
    if (err) {
        fprintf(stderr, "zkpipe trace svg: %s: %s\n", in, why.msg[0] ? why.msg : zp_strerror(err));
        return 1;
    }
    char *svg;
    size_t len;
    err = zp__tr_svg(&t, &svg, &len);
    if (!err)
        err = zp__file_write_atomic(outpath, svg, len, &why);
    if (err) {
        fprintf(stderr, "zkpipe trace svg: %s: %s\n", outpath, why.msg[0] ? why.msg : zp_strerror(err));
        zp__tr_free(&t);
        return 1;
    }
    free(svg);
    printf("%zu events over %.3f s in %zu lanes -> %s\n", t.n, t.t1 - t.t0, t.n_lanes, outpath);
    for (size_t l = 0; l < t.n_lanes; l++)
        printf("  %-16s busy %5.1f %%\n", t.lanes[l].name, 100 * zp__tr_busy(&t, l));
    for (size_t s = 0; s < t.n_stages; s++)
        printf("  stage %-10s median %.3f ms\n", t.stages[s],
               1e3 * zp__tr_stage_median(&t, t.stages[s]));
    zp__tr_steady ss;
    if (zp__tr_steady_rate(&t, ZP__STEADY_TRIM, "warm-up", &ss) == ZP_OK && ss.per_part > 0)
        printf("  steady state %.4f s per partition (completions %zu..%zu of %zu, the first "
               "and last tenth left out; job warm-up's not counted)\n", ss.per_part,
               ss.from + 1, ss.to + 1, ss.parts);
    zp__tr_free(&t);
    return 0;
}

int zp__cmd_trace(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, trace_help))
        return 0;
    if (argc < 3 || strcmp(argv[1], "svg")) {
        fputs(trace_help, stderr);
        return 2;
    }
    const char *in = argv[2], *outpath = NULL;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            outpath = argv[++i];
        } else {
            fprintf(stderr, "zkpipe trace svg: unknown option '%s'\n%s", argv[i], trace_help);
            return 2;
        }
    }
    char def[4096];
    if (!outpath) {
        size_t n = strlen(in);
        if (n >= 5 && !strcmp(in + n - 5, ".json"))
            n -= 5;
        if (n + 5 > sizeof def) {
            fputs("zkpipe trace svg: path too long\n", stderr);
            return 2;
        }
        memcpy(def, in, n);
        memcpy(def + n, ".svg", 5);
        outpath = def;
    }
    return trace_svg(in, outpath);
}
