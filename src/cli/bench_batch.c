/*
 * `zkpipe bench batch`: many jobs of a synthetic circuit through one
 * engine, J in flight at a time, as a client of the daemon would send
 * them. Reports throughput, per-stage medians and the busy fraction of
 * each worker from the engine's own trace, and the peak RSS of the process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/timing.h"
#include "engine/trace_read.h"
#include "io/io.h"
#include "zkpipe.h"

static const char batch_help[] =
    "usage: zkpipe bench batch --circuit synth:NAME:LOG2 --count N --concurrency J\n"
    "                          [--partitions P] [--workers W] [--threads T]\n"
    "                          [--verify-threads V] [--no-verify] [--trace FILE.json]\n"
    "\n"
    "Proves N jobs of P partitions (default 1) of a synthetic circuit with a\n"
    "TEST-ONLY key, keeping J jobs submitted at a time, on W CPU workers\n"
    "(default 1) of T threads each (default: the CPUs divided among workers).\n"
    "Every proof is verified (V threads, default 1) unless --no-verify.\n"
    "Prints throughput, per-stage medians, each worker's busy fraction and the\n"
    "peak RSS; --trace writes the Chrome trace (zkpipe trace svg draws it).\n";

typedef struct batch_opts {
    const char *circuit, *trace;
    int count, concurrency, partitions;
    zp_engine_config cfg;
} batch_opts;

static int parse_opts(batch_opts *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    zp_engine_config_default(&o->cfg);
    o->partitions = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--no-verify")) {
            o->cfg.verify = false;
            continue;
        }
        if (!v) {
            fprintf(stderr, "zkpipe bench batch: %s wants a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--circuit"))
            o->circuit = v;
        else if (!strcmp(a, "--trace"))
            o->trace = v;
        else if (!strcmp(a, "--count"))
            bad = zp__parse_int(v, 1, 1000000, &o->count);
        else if (!strcmp(a, "--concurrency"))
            bad = zp__parse_int(v, 1, 4096, &o->concurrency);
        else if (!strcmp(a, "--partitions"))
            bad = zp__parse_int(v, 1, 64, &o->partitions);
        else if (!strcmp(a, "--workers"))
            bad = zp__parse_int(v, 1, 256, &o->cfg.cpu_workers);
        else if (!strcmp(a, "--threads"))
            bad = zp__parse_int(v, 1, 4096, &o->cfg.threads_per_worker);
        else if (!strcmp(a, "--verify-threads"))
            bad = zp__parse_int(v, 1, 256, &o->cfg.verify_threads);
        else {
            fprintf(stderr, "zkpipe bench batch: unknown option '%s'\n%s", a, batch_help);
            return 2;
        }
        if (bad) {
            fprintf(stderr, "zkpipe bench batch: bad value '%s' for %s\n", v, a);
            return 2;
        }
    }
    if (!o->circuit || !o->count || !o->concurrency) {
        fputs(batch_help, stderr);
        return 2;
    }
    uint64_t events = (uint64_t)o->count * (uint64_t)o->partitions * 8 + 1024;
    o->cfg.trace_events = events > (1u << 24) ? (1u << 24) : (uint32_t)events;
    o->cfg.max_queued_partitions = (uint32_t)(o->concurrency * o->partitions + 1);
    o->cfg.max_jobs = (uint32_t)o->concurrency + 16;
    return 0;
}

static void report_trace(zp_engine *e, const batch_opts *o)
{
    char *text;
    size_t len;
    zp__ioerr why = {{0}};
    if (zp_engine_trace_json(e, &text, &len)) {
        fputs("zkpipe bench batch: no memory for the trace\n", stderr);
        return;
    }
    if (o->trace && zp__file_write_atomic(o->trace, text, len, &why))
        fprintf(stderr, "zkpipe bench batch: %s: %s\n", o->trace, why.msg);
    zp__tr t;
    if (zp__tr_load(&t, text, len, &why) == ZP_OK) {
        printf("stage medians (ms):");
        for (size_t s = 0; s < t.n_stages; s++)
            printf(" %s %.3f", t.stages[s], 1e3 * zp__tr_stage_median(&t, t.stages[s]));
        printf("\nbusy:");
        for (size_t l = 0; l < t.n_lanes; l++)
            printf(" %s %.1f %%", t.lanes[l].name, 100 * zp__tr_busy(&t, l));
        printf("  (over %.3f s of trace)\n", t.t1 - t.t0);
        zp__tr_free(&t);
    }
    zp_free(text);
    if (o->trace)
        printf("trace written to %s\n", o->trace);
}

/* Submits job i; returns its id in id. */
static zp_err submit(zp_engine *e, const batch_opts *o, int i, char *id)
{
    zp_witness w = {.kind = ZP_WITNESS_SYNTH, .seed = (uint64_t)i * (uint64_t)o->partitions};
    char want[32];
    snprintf(want, sizeof want, "bench-%d", i);
    zp_job_request r = {.id = want, .key = "bench", .priority = ZP_PRIO_NORMAL,
                        .partitions = (uint32_t)o->partitions, .witnesses = &w,
                        .n_witnesses = 1};
    return zp_engine_submit(e, &r, id);
}

/* Waits until one of the n in-flight jobs finishes and returns its index
 * in ids; *lat gets its latency (engine clock, submit to finish). Polls
 * the others while waiting on the oldest, so one slow job does not keep
 * the client from refilling the queue (head-of-line blocking would show
 * up as idle workers). */
static int await_any(zp_engine *e, char (*ids)[ZP_JOB_ID_MAX + 1], int n, double *lat,
                     int *failed)
{
    for (;;) {
        for (int i = 0; i < n; i++) {
            zp_job_info info;
            zp_err err = zp_engine_await(e, ids[i], i == 0 ? 0.002 : 0, &info, NULL);
            if (err == ZP_E_TIMEOUT)
                continue;
            if (err) {
                fprintf(stderr, "zkpipe bench batch: job %s: %s\n", ids[i],
                        info.message[0] ? info.message : zp_strerror(err));
                (*failed)++;
            }
            *lat = info.finished_s - info.submitted_s;
            return i;
        }
    }
}

/* Runs the jobs, up to o->concurrency at once; fills latencies (seconds). */
static int run_jobs(zp_engine *e, const batch_opts *o, double *lat)
{
    char (*ids)[ZP_JOB_ID_MAX + 1] = calloc((size_t)o->concurrency, sizeof *ids);
    int next = 0, done = 0, failed = 0, n = 0;
    bool tty = isatty(2);
    while (ids && done < o->count) {
        while (next < o->count && n < o->concurrency) {
            zp_err err = submit(e, o, next, ids[n]);
            if (err) {
                fprintf(stderr, "zkpipe bench batch: submit: %s\n", zp_strerror(err));
                free(ids);
                return -1;
            }
            next++;
            n++;
        }
        int i = await_any(e, ids, n, &lat[done], &failed);
        /* Keep the oldest first: move the rest down over the finished one. */
        memmove(ids[i], ids[i + 1], (size_t)(n - i - 1) * sizeof *ids);
        n--;
        done++;
        if (tty)
            fprintf(stderr, "\r[%d/%d]", done, o->count);
    }
    if (tty)
        fputc('\n', stderr);
    int rc = ids ? failed : -1;
    free(ids);
    return rc;
}

static int bench(const batch_opts *o)
{
    zp_engine *e;
    zp_err err = zp_engine_open(&e, &o->cfg);
    if (err) {
        fprintf(stderr, "zkpipe bench batch: cannot start the engine: %s\n", zp_strerror(err));
        return 1;
    }
    double t0 = zp__now();
    if ((err = zp_engine_add_key(e, "bench", o->circuit)) ||
        (err = zp_engine_preload_key(e, "bench"))) {
        fprintf(stderr, "zkpipe bench batch: key %s: %s\n", o->circuit, zp_strerror(err));
        zp_engine_close(e);
        return err == ZP_E_INVALID_ARG ? 2 : 1;
    }
    zp_key_info ki;
    zp_engine_key_info(e, 0, &ki);
    printf("circuit %s: domain 2^%d, %u variables; TEST-ONLY key made in %.2f s (%.1f MiB)\n",
           o->circuit, __builtin_ctzll(ki.domain_size), ki.n_vars, zp__now() - t0,
           (double)ki.bytes / (1 << 20));
    printf("jobs %d x %d partitions, concurrency %d, workers %d, verify %s\n", o->count,
           o->partitions, o->concurrency, o->cfg.cpu_workers, o->cfg.verify ? "on" : "off");
    double *lat = calloc((size_t)o->count, sizeof *lat);
    double t1 = zp__now();
    int failed = lat ? run_jobs(e, o, lat) : -1;
    double wall = zp__now() - t1;
    if (failed < 0) {
        free(lat);
        zp_engine_close(e);
        return 1;
    }
    double proofs = (double)o->count * o->partitions;
    printf("wall %.3f s: %.2f proofs/min, %.4f s/proof, job latency median %.3f s\n", wall,
           proofs * 60 / wall, wall / proofs, zp__median(lat, o->count));
    report_trace(e, o);
    zp_engine_info st;
    zp_engine_status(e, &st);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("proofs verified %llu, rejected %llu, jobs failed %d; peak RSS %.1f MiB\n",
           (unsigned long long)st.proofs_verified, (unsigned long long)st.proofs_rejected,
           failed, (double)ru.ru_maxrss / 1024);
    free(lat);
    zp_engine_close(e);
    return failed ? 1 : 0;
}

int zp__bench_batch(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, batch_help))
        return 0;
    batch_opts o;
    int rc = parse_opts(&o, argc, argv);
    return rc ? rc : bench(&o);
}
