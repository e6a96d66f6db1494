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

#include "base/log.h"
#include "bench/bench.h"
#include "bench/bench_remote.h"
#include "bench/trace_read.h"
#include "gpu/gpu.h"
#include "io/io.h"
#include "tool/cmdline.h"
#include "tool/progress.h"
#include "tool/timing.h"
#include "tool/tune.h"
#include "zkpipe.h"

static const char batch_help[] =
    "usage: zkpipe bench batch --circuit synth:NAME:LOG2 --count N --concurrency J[,J2,...]\n"
    "                          [--partitions P] [--workers W] [--threads T]\n"
    "                          [--gpus G|all] [--slots K] [--gpu-mem BYTES]\n"
    "                          [--verify-threads V] [--no-verify] [--trace FILE.json]\n"
    "                          [--distinct-witnesses D] [--tune NAME=VALUE]...\n"
    "                          [--log-level L]\n"
    "       zkpipe bench batch --addr A --key NAME --count N --concurrency J\n"
    "                          [--partitions P] [--token T | --token-file F]\n"
    "\n"
    "Proves N jobs of P partitions (default 1) of a synthetic circuit with a\n"
    "TEST-ONLY key, keeping J jobs submitted at a time (J1,J2,...: N jobs at each\n"
    "level in turn, same engine and key), on W CPU workers\n"
    "(default 1, or 0 when --gpus is given) of T threads each (default: the\n"
    "CPUs divided among workers) and on G GPUs of K partition slots each\n"
    "(default 2). With GPUs only, the key is set up on each GPU and its points\n"
    "never exist on the host. The key is preloaded (on every GPU) and one\n"
    "warm-up job (one partition, or D with --distinct-witnesses D, which makes\n"
    "the D witnesses) runs first; neither is counted. Every proof is verified (V\n"
    "threads, default 1) unless --no-verify. Each partition generates its own\n"
    "synthetic witness (part of the acquire stage) unless --distinct-witnesses D\n"
    "(1..16): then D witnesses are made once and reused, so that the figures are\n"
    "those of proving (witness in, verified proof out), not of witness synthesis.\n"
    "Prints throughput (per job and per partition: over the whole timed run, and\n"
    "in steady state, between partition completions with the first and last tenth\n"
    "left out so that the pipeline's fill and drain do not count), per-stage\n"
    "medians, each worker's busy fraction (every stage on its lane, acquire and\n"
    "finish too), each GPU's busy fraction (device stages of all its slots,\n"
    "merged), the bytes a partition moved host to device (witness and streamed\n"
    "key points, steady state) with the bus's share of a partition's time (those\n"
    "bytes over the pinned copy rate of GPU 0, measured before the engine starts)\n"
    "and the peak RSS; before the timed jobs, each GPU's arena, slots admitted,\n"
    "staging rings and the key's plan there (what stays resident, what streams).\n"
    "--trace writes the Chrome trace (zkpipe trace svg draws it). --log-level\n"
    "(error, warn, info: the default, or debug) sets the engine's log on stderr;\n"
    "debug adds, for a key that streams, a line for every chunk of a partition's\n"
    "MSM schedule (its wait for copies and its time on the GPU).\n"
    "\n"
    ZP__CLI_TUNE_HELP_HEAD ZP__CLI_TUNE_HELP_GPU ZP__CLI_TUNE_HELP_CPU
    "\n"
    "With --addr, the jobs go to a running daemon (zkpipe serve) instead: J client\n"
    "threads submit jobs for its synthetic key NAME over HTTP with synthetic\n"
    "witnesses, wait for each and submit the next; throughput and latency are\n"
    "measured on the client side, the steady state on the daemon's clock (its jobs'\n"
    "finished_s, from the first J jobs' last finish to the last job's: more than J\n"
    "jobs), and the daemon's GPU and proof counters are read from its /metrics,\n"
    "with the bytes moved host to device per partition over the run (its counters\n"
    "before and after, divided by the partitions done).\n";

typedef struct batch_opts {
    const char *circuit, *trace, *key;
    zp__copts client;
    bool remote;
    int count, concurrency, partitions;
    int levels[8], n_levels; /* --concurrency 1,2,4: one timed run per level */
    int round;               /* the level being run (job ids) */
    bool workers_set;
    int distinct;
    zp_engine_config cfg;
    zp__cli_tune tune;
    bool tuned; /* --tune given */
} batch_opts;

/* "J" or "J1,J2,...": the concurrency levels (at most 8), each 1..4096;
 * o->concurrency becomes the largest. Nonzero when malformed. */
static int parse_levels(batch_opts *o, const char *v)
{
    char buf[128];
    if (strlen(v) >= sizeof buf)
        return 1;
    snprintf(buf, sizeof buf, "%s", v);
    o->n_levels = 0;
    o->concurrency = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int j;
        if (o->n_levels == 8 || zp__parse_int(t, 1, 4096, &j))
            return 1;
        o->levels[o->n_levels++] = j;
        if (j > o->concurrency)
            o->concurrency = j;
    }
    return o->n_levels ? 0 : 1;
}

static int parse_opts(batch_opts *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    zp_engine_config_default(&o->cfg);
    zp__cli_tune_default(&o->tune);
    zp__copts_init(&o->client, NULL, NULL);
    o->partitions = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--addr"))
            o->remote = true;
        int c = zp__copts_take(&o->client, argc, argv, &i);
        if (c < 0)
            return 2;
        if (c > 0)
            continue;
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
        else if (!strcmp(a, "--key"))
            o->key = v;
        else if (!strcmp(a, "--trace"))
            o->trace = v;
        else if (!strcmp(a, "--log-level")) {
            zp__log_level lv;
            if (!zp__log_level_parse(&lv, v)) {
                fprintf(stderr, "zkpipe bench batch: --log-level wants error, warn, info or debug, "
                                "got '%s'\n", v);
                return 2;
            }
            zp__log_setup(lv, ZP__LOG_TEXT, 2);
        }
        else if (!strcmp(a, "--count"))
            bad = zp__parse_int(v, 1, 1000000, &o->count);
        else if (!strcmp(a, "--concurrency"))
            bad = parse_levels(o, v);
        else if (!strcmp(a, "--partitions"))
            bad = zp__parse_int(v, 1, 64, &o->partitions);
        else if (!strcmp(a, "--workers"))
            bad = zp__parse_int(v, 0, 256, &o->cfg.cpu_workers), o->workers_set = true;
        else if (!strcmp(a, "--gpus") && !strcmp(v, "all"))
            o->cfg.gpus = -1;
        else if (!strcmp(a, "--gpus"))
            bad = zp__parse_int(v, 0, 16, &o->cfg.gpus);
        else if (!strcmp(a, "--distinct-witnesses"))
            bad = zp__parse_int(v, 0, 16, &o->distinct), o->cfg.synth_witness_cache = (uint32_t)o->distinct;
        else if (!strcmp(a, "--slots"))
            bad = zp__parse_int(v, 1, 64, &o->cfg.gpu_slots);
        else if (!strcmp(a, "--gpu-mem"))
            bad = zp__parse_size(v, &o->cfg.gpu_mem_bytes);
        else if (!strcmp(a, "--threads"))
            bad = zp__parse_int(v, 1, 4096, &o->cfg.threads_per_worker);
        else if (!strcmp(a, "--verify-threads"))
            bad = zp__parse_int(v, 1, 256, &o->cfg.verify_threads);
        else if (!strcmp(a, "--tune")) {
            if (zp__cli_tune_parse(&o->tune, ZP__TUNE_GPU | ZP__TUNE_CPU, "bench batch", v))
                return 2;
            o->tuned = true;
        } else {
            fprintf(stderr, "zkpipe bench batch: unknown option '%s'\n%s", a, batch_help);
            return 2;
        }
        if (bad) {
            fprintf(stderr, "zkpipe bench batch: bad value '%s' for %s\n", v, a);
            return 2;
        }
    }
    if (o->remote ? !o->key || o->circuit : !o->circuit || o->key) {
        fputs(o->remote ? "zkpipe bench batch: --addr needs --key NAME (and no --circuit)\n"
                        : "zkpipe bench batch: --circuit is required (--key goes with --addr)\n",
              stderr);
        return 2;
    }
    if (!o->count || !o->concurrency) {
        fputs(batch_help, stderr);
        return 2;
    }
    if (o->remote && o->tuned) {
        fputs("zkpipe bench batch: --tune tunes a local engine (the daemon takes its own)\n",
              stderr);
        return 2;
    }
    o->cfg.gpu_tuning = o->tune.gpu;
    /* GPUs prove alone unless CPU workers are asked for too. */
    if ((o->cfg.gpus > 0 || (o->cfg.gpus < 0 && zp__gpu_count() > 0)) && !o->workers_set)
        o->cfg.cpu_workers = 0;
    uint64_t events = (uint64_t)o->count * (uint64_t)o->partitions * 8 * (uint64_t)o->n_levels + 1024;
    o->cfg.trace_events = events > (1u << 24) ? (1u << 24) : (uint32_t)events;
    o->cfg.max_queued_partitions = (uint32_t)(o->concurrency * o->partitions + 1);
    o->cfg.max_jobs = (uint32_t)o->concurrency + 16;
    return 0;
}

/* The bus's share of a partition's time: the bytes a partition moved over
 * the copy rate measured before the run (gbs; 0: none), against the
 * steady-state time a GPU spends on a partition (the time per partition
 * times the GPUs sharing the work), each GPU having a bus of its own. */
static void report_bus(const zp__tr *t, double gbs, const zp__tr_steady *ss, const zp__tr_io *io)
{
    int gpus = 0;
    for (int g = 0; g < 64; g++) {
        char prefix[16];
        snprintf(prefix, sizeof prefix, "gpu%d/", g);
        for (size_t l = 0; l < t->n_lanes; l++)
            if (!strncmp(t->lanes[l].name, prefix, strlen(prefix))) {
                gpus++;
                break;
            }
    }
    if (gbs <= 0 || !gpus || ss->per_part <= 0 || !io->parts)
        return;
    const double copy = io->h2d / (gbs * 1e9), per_gpu = ss->per_part * gpus;
    printf("bus bound: %.3f s of copy a partition at %.2f GB/s against %.4f s a partition "
           "on each of %d GPU%s: the bus busy %.0f %% of it\n",
           copy, gbs, per_gpu, gpus, gpus > 1 ? "s" : "", 100 * copy / per_gpu);
}

/* Stage medians and busy fractions over the timed run (engine clock from
 * `from` on: the warm-up job is left out); gbs: the copy rate measured
 * before the run (0: none). */
static void report_trace(zp_engine *e, const batch_opts *o, double from, double gbs)
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
        zp__tr_clip(&t, from);
        printf("stage medians (ms):");
        for (size_t s = 0; s < t.n_stages; s++)
            printf(" %s %.3f", t.stages[s], 1e3 * zp__tr_stage_median(&t, t.stages[s]));
        printf("\nbusy (every stage of a lane):");
        for (size_t l = 0; l < t.n_lanes; l++)
            printf(" %s %.1f %%", t.lanes[l].name, 100 * zp__tr_busy(&t, l));
        printf("  (over %.3f s of trace)\n", t.t1 - t.t0);
        zp__tr_steady ss = {0};
        if (zp__tr_steady_rate(&t, ZP__STEADY_TRIM, "warm-up", &ss) == ZP_OK && ss.per_part > 0)
            printf("steady state: %.4f s per partition, %.3f s per job of %d partitions "
                   "(completions %zu..%zu of %zu: the first and last tenth left out)\n",
                   ss.per_part, ss.per_part * o->partitions, o->partitions, ss.from + 1,
                   ss.to + 1, ss.parts);
        zp__tr_io io = {0};
        if (zp__tr_io_steady(&t, ZP__STEADY_TRIM, "warm-up", &io) == ZP_OK && io.parts) {
            printf("host to device: %.3f GiB per partition, of which the streamed key "
                   "%.3f GiB (mean over %zu GPU partitions, the first and last tenth left out)\n",
                   io.h2d / (1u << 30), io.streamed / (1u << 30), io.parts);
            report_bus(&t, gbs, &ss, &io);
        }
        static const char *const device_stages[] = {"eval", "h", "msm", NULL};
        for (int g = 0; g < 16; g++) {
            char prefix[16];
            snprintf(prefix, sizeof prefix, "gpu%d/", g);
            bool any = false;
            for (size_t l = 0; l < t.n_lanes; l++)
                any |= !strncmp(t.lanes[l].name, prefix, strlen(prefix));
            if (any)
                printf("gpu%d busy %.1f %% (device stages of its slots, merged)\n", g,
                       100 * zp__tr_busy_group(&t, prefix, device_stages));
        }
        zp__tr_free(&t);
    }
    zp_free(text);
    if (o->trace)
        printf("trace written to %s\n", o->trace);
}

/* Each GPU's arena, slots and staging rings, and the key's plan there:
 * what stays resident and what streams. */
static void print_gpus(zp_engine *e)
{
    zp_gpu_info g;
    for (size_t i = 0; zp_engine_gpu_info(e, i, &g) == ZP_OK; i++) {
        zp_key_gpu_plan p;
        bool plan = zp_engine_key_plan(e, 0, g.ordinal, &p) == ZP_OK && p.resident;
        printf("gpu%d: arena %.2f GiB (%.2f used), %u of %u slots admitted, staging rings "
               "%.2f GiB; key: %s\n",
               g.ordinal, (double)g.arena_bytes / (1u << 30), (double)g.arena_used / (1u << 30),
               g.slots_admitted, g.slots, (double)g.ring_bytes / (1u << 30),
               plan ? p.summary : "not resident");
    }
}

/* Submits job i; returns its id in id. */
static zp_err submit(zp_engine *e, const batch_opts *o, int i, char *id)
{
    zp_witness w = {.kind = ZP_WITNESS_SYNTH, .seed = (uint64_t)i * (uint64_t)o->partitions};
    char want[32];
    snprintf(want, sizeof want, "bench-%d-%d", o->round, i);
    zp_job_request r = {.id = want, .key = "bench", .priority = ZP_PRIO_NORMAL,
                        .partitions = (uint32_t)o->partitions, .witnesses = &w,
                        .n_witnesses = 1};
    return zp_engine_submit(e, &r, id);
}

/* Resident set size now, in bytes (0 when /proc cannot say), and the
 * largest seen while the timed jobs ran: the host memory the partitions in
 * flight really hold, unlike ru_maxrss, which includes the key setup. */
static double rss_peak;

static double rss_now(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0, res = 0;
    bool ok = f && fscanf(f, "%llu %llu", &pages, &res) == 2;
    if (f)
        fclose(f);
    double b = ok ? (double)res * (double)sysconf(_SC_PAGESIZE) : 0;
    if (b > rss_peak)
        rss_peak = b;
    return b;
}

/* rss_now at most every 50 ms: the wait loop below polls every 2 ms. */
static void rss_sample(void)
{
    static double last;
    double t = zp__now();
    if (t - last >= 0.05) {
        last = t;
        rss_now();
    }
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
            if (i == 0)
                rss_sample();
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

/* One job, not counted: warms every path (the key is resident already,
 * preloaded). With --distinct-witnesses D it has D partitions, one per
 * cached witness, so that none is synthesized inside the timed window (at
 * porep:27 that left both GPUs of a 2-GPU run idle for ~10 s); else one. */
static zp_err warm_up(zp_engine *e, const batch_opts *o)
{
    zp_witness w = {.kind = ZP_WITNESS_SYNTH, .seed = o->distinct ? 0 : 999999};
    zp_job_request r = {.id = "warm-up", .key = "bench", .priority = ZP_PRIO_NORMAL,
                        .partitions = o->distinct ? (uint32_t)o->distinct : 1,
                        .witnesses = &w, .n_witnesses = 1};
    char id[ZP_JOB_ID_MAX + 1];
    zp_job_info info;
    zp_err err = zp_engine_submit(e, &r, id);
    if (!err)
        err = zp_engine_await(e, id, -1, &info, NULL);
    if (err)
        fprintf(stderr, "zkpipe bench batch: warm-up job: %s\n",
                info.message[0] ? info.message : zp_strerror(err));
    return err;
}

/* Bytes of the copy that measures the bus before a run with GPUs. */
#define BUS_PROBE_BYTES ((uint64_t)1 << 30)

static int bench(const batch_opts *o)
{
    /* The bus first, while the GPU's memory is free: the pinned
     * host-to-device rate of the first GPU, which the bound printed after
     * each run divides the bytes moved by. */
    double gbs = 0;
    if (o->cfg.gpus > 0 || (o->cfg.gpus < 0 && zp__gpu_count() > 0)) {
        gbs = zp__bench_h2d_gbs(0, BUS_PROBE_BYTES, 3);
        if (gbs > 0)
            printf("bus: %.2f GB/s host to device on GPU 0 (pinned, 1 GiB, median of 3)\n", gbs);
    }
    zp_engine *e;
    zp_err err = zp_engine_open(&e, &o->cfg);
    if (err) {
        bool gpu = err == ZP_E_UNSUPPORTED || err == ZP_E_GPU || err == ZP_E_GPU_OOM ||
                   err == ZP_E_GPU_FATAL;
        fprintf(stderr, "zkpipe bench batch: cannot start the engine: %s%s%s\n",
                zp_strerror(err), gpu ? ": " : "", gpu ? zp__gpu_last_error() : "");
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
    char tuning[96];
    zp__cli_tune_describe(tuning, sizeof tuning, &o->tune);
    printf("tuning %s; key on the GPUs %.2f GiB, of which H tables %.2f GiB\n", tuning,
           (double)ki.device_bytes / (1u << 30), (double)ki.h_table_bytes / (1u << 30));
    printf("jobs %d x %d partitions, concurrency %d, CPU workers %d, GPUs %d x %d slots, "
           "verify %s, witnesses %s\n", o->count, o->partitions, o->concurrency,
           o->cfg.cpu_workers, o->cfg.gpus, o->cfg.gpu_slots, o->cfg.verify ? "on" : "off",
           o->distinct ? "reused (--distinct-witnesses)" : "generated per partition");
    double tw = zp__now();
    if (warm_up(e, o)) {
        zp_engine_close(e);
        return 1;
    }
    zp_engine_key_info(e, 0, &ki);
    printf("warm-up job (%d partition%s) %.2f s; key: %.2f GiB host, "
           "%.2f GiB device (H table %.2f GiB)\n", o->distinct ? o->distinct : 1,
           o->distinct > 1 ? "s" : "", zp__now() - tw, (double)ki.bytes / (1u << 30),
           (double)ki.device_bytes / (1u << 30), (double)ki.h_table_bytes / (1u << 30));
    print_gpus(e);
    double *lat = calloc((size_t)o->count, sizeof *lat);
    int failed = lat ? 0 : -1;
    double rss_before = rss_now();
    rss_peak = rss_before;
    for (int r = 0; r < o->n_levels && failed >= 0; r++) {
        batch_opts lo = *o;
        lo.concurrency = o->levels[r];
        lo.round = r;
        if (o->n_levels > 1)
            printf("== concurrency %d\n", lo.concurrency);
        zp_engine_info st0;
        zp_engine_status(e, &st0);
        double t1 = zp__now();
        int f = run_jobs(e, &lo, lat);
        double wall = zp__now() - t1;
        if (f < 0) {
            failed = -1;
            break;
        }
        failed += f;
        double parts = (double)o->count * o->partitions;
        printf("wall %.3f s: %.3f s per job of %d partitions (%.2f jobs/min), %.4f s per "
               "partition; job latency median %.3f s\n", wall, wall / o->count, o->partitions,
               o->count * 60 / wall, wall / parts, zp__median(lat, o->count));
        report_trace(e, &lo, st0.uptime_s, gbs);
    }
    if (failed < 0) {
        free(lat);
        zp_engine_close(e);
        return 1;
    }
    /* What the arena's reserve left outside it and what the driver has
     * taken of that since, with the slots' streams and kernels at work. */
    zp_gpu_info gi;
    for (size_t i = 0; zp_engine_gpu_info(e, i, &gi) == ZP_OK; i++)
        if (gi.outside_free_at_open) {
            char prefix[24];
            snprintf(prefix, sizeof prefix, "gpu%d: ", gi.ordinal);
            zp__bench_print_outside(prefix, gi.outside_free_at_open, gi.outside_free);
        }
    zp_engine_info st;
    zp_engine_status(e, &st);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double rss = (double)ru.ru_maxrss * 1024;
    int in_flight = (int)st.workers - o->cfg.verify_threads; /* proving workers and slots */
    double gib = (double)(1u << 30);
    /* The reused witnesses are the benchmark's, not the engine's. */
    double wcache = (double)o->distinct * ki.n_vars * 32;
    printf("partition proofs verified %llu, rejected %llu, jobs failed %d\n",
           (unsigned long long)st.proofs_verified, (unsigned long long)st.proofs_rejected,
           failed);
    /* A streaming key's pinned copy (points and matrices that cross the
     * bus, per GPU) is the key's too, not its partitions'. */
    zp_key_info kn;
    const double streamed = zp_engine_key_info(e, 0, &kn) == ZP_OK ? (double)kn.streamed_bytes : 0;
    printf("host memory: peak RSS of the process %.2f GiB (key setup included); during the "
           "timed jobs: %.2f GiB at the start, %.2f GiB at the peak, of which key %.2f GiB, its "
           "streamed part pinned %.2f GiB and reused witnesses %.2f GiB; per partition in "
           "flight (%d) %.2f GiB\n",
           rss / gib, rss_before / gib, rss_peak / gib, (double)ki.bytes / gib, streamed / gib,
           wcache / gib, in_flight,
           (rss_peak - (double)ki.bytes - streamed - wcache) / (in_flight > 0 ? in_flight : 1) /
               gib);
    free(lat);
    zp_engine_close(e);
    return failed ? 1 : 0;
}

/* The bench key's load and setup (tens of seconds at porep:27) on the
 * reporter: engine key progress, the key's name left out (there is one). */
static void key_progress(void *ctx, const char *key, const char *step, uint64_t done,
                         uint64_t total)
{
    (void)key;
    zp__bar_note(ctx, step, done, total);
}

int zp__bench_batch(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, batch_help))
        return 0;
    zp__bar bar;
    zp__bar_from_args(&bar, &argc, argv);
    batch_opts o;
    int rc = parse_opts(&o, argc, argv);
    if (rc) {
        zp__bar_close(&bar);
        return rc;
    }
    zp__cli_tune_apply(&o.tune);
    if (o.remote) {
        zp__bar_close(&bar);
        zp__remote_args ra = {o.key, "bench", o.count, o.concurrency, o.partitions};
        char prefix[32];
        snprintf(prefix, sizeof prefix, "bench-%x", (unsigned)getpid());
        ra.prefix = prefix;
        return zp__bench_remote(&o.client, &ra);
    }
    if (bar.mode != ZP__BAR_OFF) {
        o.cfg.key_progress = key_progress;
        o.cfg.key_progress_ctx = &bar;
    }
    rc = bench(&o);
    zp__bar_close(&bar);
    return rc;
}
