/*
 * zkpipe bench prove: whole Groth16 proofs of a synthetic circuit, stage by
 * stage. The key is made in memory (zp__setup, no file) and timed apart;
 * every proof gets a fresh witness (its generation is timed apart too);
 * one warm-up proof runs first, then N timed ones, and each stage's median
 * is printed with the median total (the median of the totals, not the sum
 * of the stage medians).
 *
 * A backend is a small table of functions that makes the key and proves.
 * The CPU row makes it with zp__setup on the host; the GPU row makes it on
 * the device (zp__g16_dkey_setup: the points never exist on the host, a
 * synth:porep:27 key is ~44 GiB of them) and proves through a partition
 * slot. The peak RSS of the process is printed at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench/bench.h"
#include "gpu/gpu.h"
#include "groth16/gpu_prover.h"
#include "groth16/groth16.h"
#include "r1cs/synth.h"
#include "tool/cmdline.h"
#include "tool/timing.h"
#include "tool/tune.h"

static const char bench_prove_help[] =
    "usage: zkpipe bench prove --circuit synth:NAME:LOG2 [options]\n"
    "\n"
    "Makes a TEST-ONLY key for the circuit in memory (timed apart), then runs\n"
    "one warm-up proof and N timed ones, each with a fresh witness (seeds S,\n"
    "S+1, ...; generating it is not part of the proof time), and prints the\n"
    "median of every stage (eval, h, each MSM, finish, verify) and of the total.\n"
    "Every proof is verified (that is the verify stage) before it counts.\n"
    "\n"
    "options:\n"
    "  --backend B         cpu (default) or gpu\n"
    "  --reps N            timed proofs (default 5)\n"
    "  --threads T         worker threads (default: one per CPU)\n"
    "  --convention C      snarkjs (default) or bellperson: the key's H query\n"
    "  --seed S            first witness seed (default 1)\n"
    ZP__CLI_TUNE_HELP_HEAD ZP__CLI_TUNE_HELP_GPU ZP__CLI_TUNE_HELP_CPU
    "  --help, -h          this text\n"
    "\n"
    "With --backend gpu the key is made on device 0 (its points never reach\n"
    "the host) and proofs run through one partition slot there.\n"
    "\n"
    "A line RESULT,prove,... repeats the medians in ms for scripts (and\n"
    "RESULT,setup,... the key setup time and the peak RSS).\n";

typedef struct bench_args {
    const char *spec;
    const char *backend;
    int reps, threads;
    zp_h_conv conv;
    uint64_t seed;
    zp__cli_tune tune;
} bench_args;

/* ------------------------------------------------------------ backends */

/* Everything one benchmark run holds. */
typedef struct bench_run {
    bench_args a;
    zp__synth_spec sp;
    zp__r1cs cs;
    zp__pk pk;
    zp_fr *w;
    double setup_s;
    double *stage; /* ST_COUNT rows of a.reps seconds */
    double *wit;   /* a.reps witness generation times */
} bench_run;


typedef struct bench_backend {
    const char *name;
    /* Whether the backend can run at all, asked before the (long) setup. */
    zp_err (*probe)(zp__ioerr *why);
    /* Makes r->pk for r->cs (timed into r->setup_s and printed), frees
     * what the proofs do not need and gets ready to prove. */
    zp_err (*open)(void **ctx, bench_run *r, zp__ioerr *why);
    /* One proof, verified, with its stage times. */
    zp_err (*prove)(void *ctx, zp__proof *out, const zp_fr *w, uint64_t n_w,
                    zp__prove_times *t, zp__ioerr *why);
    void (*close)(void *ctx);
    /* Where the witness should be made (NULL: anywhere): the GPU slot's
     * pinned buffer, as the engine decodes into it, so that the upload in
     * eval runs at full PCIe speed. */
    zp_fr *(*wbuf)(void *ctx);
} bench_backend;

typedef struct cpu_ctx {
    const zp__pk *pk;
    int threads;
} cpu_ctx;

static zp_err cpu_probe(zp__ioerr *why)
{
    (void)why;
    return ZP_OK;
}

static void print_setup(const bench_run *r, const char *where)
{
    printf("key setup: %.3f s %s, domain %llu, %s convention (TEST-ONLY key)\n", r->setup_s,
           where, (unsigned long long)r->pk.domain_size,
           r->a.conv == ZP_H_TAU ? "bellperson" : "snarkjs");
    fflush(stdout);
}

static zp_err cpu_open(void **ctx, bench_run *r, zp__ioerr *why)
{
    double t0 = zp__now();
    zp_err e = zp__setup(&r->pk, &r->cs, r->a.conv, r->a.threads, NULL);
    if (e)
        return zp__fail(why, e, "setup");
    r->setup_s = zp__now() - t0;
    /* Witnesses read only A and B: give C's memory back for the proofs. */
    zp__csr_free(&r->cs.c);
    print_setup(r, "in memory");
    cpu_ctx *c = malloc(sizeof *c);
    if (!c)
        return zp__fail(why, ZP_E_NOMEM, "no memory");
    c->pk = &r->pk;
    c->threads = r->a.threads;
    *ctx = c;
    return ZP_OK;
}

static zp_err cpu_prove(void *ctx, zp__proof *out, const zp_fr *w, uint64_t n_w,
                        zp__prove_times *t, zp__ioerr *why)
{
    const cpu_ctx *c = ctx;
    zp__prove_opts o;
    zp__prove_opts_default(&o);
    o.threads = c->threads;
    return zp__prove(out, c->pk, w, n_w, &o, t, why);
}

static void cpu_close(void *ctx) { free(ctx); }

/* The GPU prover (gpu_prover.h): device 0, a key made there, one slot. */
typedef struct gpu_ctx {
    zp__gpu *dev;
    zp__gpu_stream *s;
    zp__g16_dkey key;
    zp__g16_slot *slot;
    const zp__pk *pk;
    int threads;
    zp__g16_gpu_opts opts; /* the defaults with --tune's GPU tuning */
} gpu_ctx;

static zp_err gpu_probe(zp__ioerr *why)
{
    if (!zp__gpu_compiled())
        return zp__fail(why, ZP_E_NO_GPU, "this zkpipe was built without CUDA");
    if (zp__gpu_count() < 1)
        return zp__fail(why, ZP_E_NO_GPU, "no usable CUDA device; use --backend cpu");
    return ZP_OK;
}

static void gpu_close(void *ctx)
{
    gpu_ctx *c = ctx;
    if (!c)
        return;
    if (c->slot && c->key.h_pre.ptr)
        printf("H MSM over the H table: %s\n",
               zp__g16_slot_took_pre(c->slot) ? "yes" : "no (the slot's scratch lacks its layout)");
    unsigned from, to, parts = c->slot ? zp__g16_slot_parts_run(c->slot, &from, &to) : 0;
    if (parts && from < to)
        printf("witness upload: %u parts, parts %u..%u first, their L MSM while the rest "
               "crossed\n", parts, from, to - 1);
    else if (parts)
        printf("witness upload: %u parts planned, none worth sending first (one copy)\n", parts);
    /* What the arena's reserve left outside it and what the driver has
     * taken of that since (kernels loaded at first launch, their local
     * memory): the reserve's size is checked against it. */
    uint64_t at_open, now;
    if (c->dev && zp__gpu_outside(c->dev, &at_open, &now) == ZP_OK)
        zp__bench_print_outside("", at_open, now);
    zp__g16_slot_close(c->slot);
    zp__g16_dkey_free(&c->key);
    zp__gpu_stream_close(c->s);
    if (c->dev)
        zp__gpu_close(c->dev);
    free(c);
}

static zp_err gpu_key(gpu_ctx *c, bench_run *r, zp__ioerr *why)
{
    zp__gpu_config cfg;
    zp__gpu_config_default(&cfg);
    cfg.device = 0;
    zp_err e = zp__gpu_open(&c->dev, &cfg);
    if (!e)
        e = zp__gpu_stream_open(c->dev, &c->s);
    if (e)
        return zp__fail(why, e, "device 0: %s", zp__gpu_last_error());
    double t0 = zp__now();
    zp__g16_gpu_opts_default(&c->opts);
    c->opts.tuning = r->a.tune.gpu;
    if ((e = zp__g16_dkey_setup(&c->key, &r->pk, c->dev, c->s, &r->cs, r->a.conv,
                                r->a.threads, NULL, &c->opts, why)))
        return e;
    r->setup_s = zp__now() - t0;
    c->pk = &r->pk;
    /* Kept for every rep, as an engine keeps its keys: the H table too. */
    t0 = zp__now();
    if ((e = zp__g16_dkey_h_table(&c->key, c->s, &c->opts)))
        return zp__fail(why, e, "the key's H table: %s", zp__gpu_last_error());
    const double table_s = zp__now() - t0;
    /* The device has the key's matrices, and witnesses read only the
     * circuit's A and B: the host copies of C and of the key's A, B go. */
    zp__csr_free(&r->cs.c);
    zp__csr_free(&r->pk.ma);
    zp__csr_free(&r->pk.mb);
    print_setup(r, "on device 0 (points made there, never on the host)");
    /* One partition at a time: the slot takes what the key leaves. */
    zp__gpu_info info;
    zp__gpu_get_info(c->dev, &info);
    if ((e = zp__g16_slot_open_within(&c->slot, c->dev, &r->pk, info.arena_largest_free,
                                      &c->opts, why)))
        return e;
    zp__gpu_get_info(c->dev, &info);
    printf("slot: room for %u G1 windows a pass; arena %.1f of %.1f GiB in use; NTT twist "
           "tables %.1f GiB; H table %.1f GiB (c = %u, made in %.2f s)\n",
           zp__g16_slot_windows(c->slot), (double)info.arena_used / (1u << 30),
           (double)info.arena_bytes / (1u << 30), (double)c->key.twist.mem.bytes / (1u << 30),
           (double)c->key.h_pre.bytes / (1u << 30), c->key.h_pre_c, table_s);
    printf("slot: L, A, B1 and B2 MSMs %s\n",
           zp__g16_slot_beside(c->slot) ? "beside h, on a stream of their own"
                                        : "after h (no room for them beside it)");
    return ZP_OK;
}

static zp_err gpu_open(void **ctx, bench_run *r, zp__ioerr *why)
{
    gpu_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return zp__fail(why, ZP_E_NOMEM, "no memory");
    c->threads = r->a.threads;
    zp_err e = gpu_key(c, r, why);
    if (e) {
        gpu_close(c);
        return e;
    }
    *ctx = c;
    return ZP_OK;
}

static zp_err gpu_prove(void *ctx, zp__proof *out, const zp_fr *w, uint64_t n_w,
                        zp__prove_times *t, zp__ioerr *why)
{
    gpu_ctx *c = ctx;
    zp__prove_opts o;
    zp__prove_opts_default(&o);
    o.threads = c->threads;
    return zp__g16_slot_prove(c->slot, &c->key, out, w, n_w, &o, t, why);
}

static zp_fr *gpu_wbuf(void *ctx)
{
    return zp__g16_slot_witness_buf(((gpu_ctx *)ctx)->slot);
}

static const bench_backend backends[] = {
    {"cpu", cpu_probe, cpu_open, cpu_prove, cpu_close, NULL},
    {"gpu", gpu_probe, gpu_open, gpu_prove, gpu_close, gpu_wbuf},
};

static const bench_backend *find_backend(const char *name)
{
    for (size_t i = 0; i < sizeof backends / sizeof *backends; i++)
        if (!strcmp(backends[i].name, name))
            return &backends[i];
    return NULL;
}

/* --------------------------------------------------------------- stages */

/* total: the stages' times, h and the MSMs beside it overlapping
 * (zp__prove_times_total); wall: the prove call as the caller sees it. */
enum { ST_EVAL, ST_H, ST_MSM_A, ST_MSM_B1, ST_MSM_B2, ST_MSM_L, ST_MSM_H, ST_FINISH,
       ST_VERIFY, ST_TOTAL, ST_WALL, ST_COUNT };

static const char *const stage_names[ST_COUNT] = {
    "eval", "h", "msm_a", "msm_b1", "msm_b2", "msm_l", "msm_h", "finish", "verify", "total",
    "wall",
};

static void stage_values(double v[ST_COUNT], const zp__prove_times *t, double wall)
{
    const double s[ST_TOTAL] = {t->eval,   t->h,      t->msm_a,  t->msm_b1, t->msm_b2,
                                t->msm_l,  t->msm_h,  t->finish, t->verify};
    for (int i = 0; i < ST_TOTAL; i++)
        v[i] = s[i];
    v[ST_TOTAL] = zp__prove_times_total(t);
    v[ST_WALL] = wall;
}

/* --------------------------------------------------------------- driver */

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "zkpipe bench prove: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    fprintf(stderr, "Run 'zkpipe bench prove --help' for usage.\n");
    return 2;
}

/* One option and its value; 0 when taken, 2 after printing an error. */
static int parse_opt(bench_args *a, const char *s, const char *v)
{
    int seed = 0;
    if (!strcmp(s, "--circuit")) {
        a->spec = v;
    } else if (!strcmp(s, "--backend")) {
        a->backend = v;
    } else if (!strcmp(s, "--reps")) {
        if (zp__parse_int(v, 1, 1000, &a->reps))
            return usage_error("--reps needs a number from 1 to 1000, not", v);
    } else if (!strcmp(s, "--threads")) {
        if (zp__parse_int(v, 1, 4096, &a->threads))
            return usage_error("--threads needs a number from 1 to 4096, not", v);
    } else if (!strcmp(s, "--seed")) {
        if (zp__parse_int(v, 0, 1 << 30, &seed))
            return usage_error("--seed needs a number from 0 to 2^30, not", v);
        a->seed = (uint64_t)seed;
    } else if (!strcmp(s, "--tune")) {
        if (zp__cli_tune_parse(&a->tune, ZP__TUNE_GPU | ZP__TUNE_CPU, "bench prove", v))
            return 2;
    } else if (!strcmp(s, "--convention")) {
        if (!strcmp(v, "snarkjs"))
            a->conv = ZP_H_COSET;
        else if (!strcmp(v, "bellperson"))
            a->conv = ZP_H_TAU;
        else
            return usage_error("--convention is snarkjs or bellperson, not", v);
    } else {
        return usage_error("unknown option:", s);
    }
    return 0;
}

static int parse_args(bench_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->backend = "cpu";
    a->reps = 5;
    a->conv = ZP_H_COSET;
    a->seed = 1;
    zp__cli_tune_default(&a->tune);
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            return usage_error("unknown option or missing value:", argv[i]);
        int rc = parse_opt(a, argv[i], argv[i + 1]);
        if (rc)
            return rc;
    }
    if (!a->spec)
        return usage_error("--circuit synth:NAME:LOG2 is required", NULL);
    if (!find_backend(a->backend))
        return usage_error("--backend is cpu or gpu, not", a->backend);
    return 0;
}

static void run_free(bench_run *r)
{
    zp__r1cs_free(&r->cs);
    zp__pk_free(&r->pk);
    free(r->w);
    free(r->stage);
    free(r->wit);
}

/* The circuit, timed and printed; the backend makes the key. */
static int build_key(bench_run *r)
{
    zp_err e;
    if (zp__synth_parse(&r->sp, r->a.spec))
        return usage_error("not a synthetic circuit (synth:porep|dense|chain:LOG2):", r->a.spec);
    r->sp.threads = r->a.threads;
    r->sp.keep_c = true; /* setup needs C */
    double t0 = zp__now();
    if ((e = zp__synth_circuit(&r->cs, &r->sp)))
        return zp__cli_fail("bench prove", r->a.spec, e, NULL);
    double t1 = zp__now();
    printf("circuit:   %s: %llu constraints, %u public, %u variables (built in %.3f s)\n",
           r->a.spec, (unsigned long long)r->cs.n_constraints, r->cs.n_public, r->cs.n_vars,
           t1 - t0);
    fflush(stdout);
    return 0;
}

/* The proofs' buffers, taken after the key (not during its setup). */
static int alloc_buffers(bench_run *r)
{
    r->w = malloc((size_t)r->cs.n_vars * sizeof *r->w);
    r->stage = malloc((size_t)ST_COUNT * (size_t)r->a.reps * sizeof *r->stage);
    r->wit = malloc((size_t)r->a.reps * sizeof *r->wit);
    if (!r->w || !r->stage || !r->wit)
        return zp__cli_fail("bench prove", "buffers", ZP_E_NOMEM, NULL);
    return 0;
}

/* Proof number i (0 = warm-up) with the witness of seed + i. */
static int one_proof(bench_run *r, const bench_backend *b, void *ctx, int i)
{
    zp__ioerr why = {""};
    zp_fr *w = b->wbuf ? b->wbuf(ctx) : r->w;
    double t0 = zp__now();
    zp_err e = zp__synth_witness(w, &r->cs, &r->sp, r->a.seed + (uint64_t)i);
    double tw = zp__now() - t0;
    if (e)
        return zp__cli_fail("bench prove", "witness", e, NULL);
    zp__proof p;
    zp__prove_times t;
    t0 = zp__now();
    if ((e = b->prove(ctx, &p, w, r->cs.n_vars, &t, &why)))
        return zp__cli_fail("bench prove", "proving", e, &why);
    const double wall = zp__now() - t0;
    if (i == 0)
        return 0;
    double v[ST_COUNT];
    stage_values(v, &t, wall);
    for (int s = 0; s < ST_COUNT; s++)
        r->stage[s * r->a.reps + i - 1] = v[s];
    r->wit[i - 1] = tw;
    return 0;
}

static void report(bench_run *r, const bench_backend *b)
{
    int n = r->a.reps;
    double med[ST_COUNT], min[ST_COUNT];
    for (int s = 0; s < ST_COUNT; s++) {
        double *row = r->stage + s * n;
        med[s] = zp__median(row, n); /* sorts row */
        min[s] = row[0];
    }
    printf("witness:   median %.3f ms per witness (not part of the proof time)\n",
           zp__median(r->wit, n) * 1e3);
    printf("%-8s %12s %12s %7s\n", "stage", "median_ms", "min_ms", "share");
    for (int s = 0; s < ST_COUNT; s++) {
        double share = med[ST_TOTAL] > 0 ? 100.0 * med[s] / med[ST_TOTAL] : 0.0;
        printf("%-8s %12.3f %12.3f %6.1f%%\n", stage_names[s], med[s] * 1e3, min[s] * 1e3,
               share);
    }
    printf("RESULT,prove,%s,%s,%s,%d,%d", b->name, r->a.spec,
           r->a.conv == ZP_H_TAU ? "bellperson" : "snarkjs", r->a.threads, n);
    for (int s = 0; s < ST_COUNT; s++)
        printf(",%s=%.3f", stage_names[s], med[s] * 1e3);
    printf("\n");
}

static double peak_rss_gib(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru))
        return 0;
    return (double)ru.ru_maxrss * 1024 / (double)(1u << 30); /* ru_maxrss: KiB */
}

static void report_setup(const bench_run *r, const bench_backend *b)
{
    double rss = peak_rss_gib();
    printf("peak RSS:  %.2f GiB (host)\n", rss);
    printf("RESULT,setup,%s,%s,%s,%d,setup_ms=%.3f,peak_rss_gib=%.3f\n", b->name, r->a.spec,
           r->a.conv == ZP_H_TAU ? "bellperson" : "snarkjs", r->a.threads, r->setup_s * 1e3,
           rss);
}

/* The warm-up and the timed proofs through backend b. */
static int prove_all(bench_run *r, const bench_backend *b)
{
    void *ctx = NULL;
    zp__ioerr why = {""};
    zp_err e = b->open(&ctx, r, &why);
    if (e)
        return zp__cli_fail("bench prove", b->name, e, &why);
    int rc = alloc_buffers(r);
    for (int i = 0; i <= r->a.reps && !rc; i++)
        rc = one_proof(r, b, ctx, i);
    b->close(ctx);
    return rc;
}

int zp__bench_prove(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, bench_prove_help))
        return 0;
    bench_run r;
    memset(&r, 0, sizeof r);
    int rc = parse_args(&r.a, argc, argv);
    if (rc)
        return rc;
    zp__cli_tune_apply(&r.a.tune);
    const bench_backend *b = find_backend(r.a.backend);
    zp__ioerr why = {""};
    zp_err e = b->probe(&why);
    if (e)
        return zp__cli_fail("bench prove", b->name, e, &why);
    if (r.a.threads <= 0) {
        /* What "one per CPU" resolves to, so the report names it. */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        r.a.threads = cpus > 0 && cpus < 4096 ? (int)cpus : 1;
    }
    char tuning[96];
    zp__cli_tune_describe(tuning, sizeof tuning, &r.a.tune);
    printf("bench prove: backend %s, %d threads, %d timed proofs after 1 warm-up; tuning %s\n",
           b->name, r.a.threads, r.a.reps, tuning);
    fflush(stdout);
    if (!(rc = build_key(&r)) && !(rc = prove_all(&r, b))) {
        report(&r, b);
        report_setup(&r, b);
    }
    run_free(&r);
    return rc;
}
