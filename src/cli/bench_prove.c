/*
 * zkpipe bench prove: whole Groth16 proofs of a synthetic circuit, stage by
 * stage. The key is made in memory (zp__setup, no file) and timed apart;
 * every proof gets a fresh witness (its generation is timed apart too);
 * one warm-up proof runs first, then N timed ones, and each stage's median
 * is printed with the median total (the median of the totals, not the sum
 * of the stage medians).
 *
 * A backend is a small table of functions, so the GPU prover can be added
 * as one more row without touching the loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/keyfile.h"
#include "cli/timing.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "r1cs/synth.h"

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
    "  --help, -h          this text\n"
    "\n"
    "A line RESULT,prove,... repeats the medians in ms for scripts.\n";

typedef struct bench_args {
    const char *spec;
    const char *backend;
    int reps, threads;
    zp_h_conv conv;
    uint64_t seed;
} bench_args;

/* ------------------------------------------------------------ backends */

typedef struct bench_backend {
    const char *name;
    /* Whether the backend can run at all, asked before the (long) setup. */
    zp_err (*probe)(zp__ioerr *why);
    /* Gets ready to prove with pk (the GPU would upload the key here). */
    zp_err (*open)(void **ctx, const zp__pk *pk, int threads, zp__ioerr *why);
    /* One proof, verified, with its stage times. */
    zp_err (*prove)(void *ctx, zp__proof *out, const zp_fr *w, uint64_t n_w,
                    zp__prove_times *t, zp__ioerr *why);
    void (*close)(void *ctx);
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

static zp_err cpu_open(void **ctx, const zp__pk *pk, int threads, zp__ioerr *why)
{
    cpu_ctx *c = malloc(sizeof *c);
    if (!c)
        return zp__fail(why, ZP_E_NOMEM, "no memory");
    c->pk = pk;
    c->threads = threads;
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

/* The GPU prover (prove_gpu.c): the key is uploaded once at open and stays
 * on device 0 for every proof. */
static zp_err gpu_probe(zp__ioerr *why)
{
    if (!zp__gpu_compiled())
        return zp__fail(why, ZP_E_NO_GPU, "this zkpipe was built without CUDA");
    if (zp__gpu_count() < 1)
        return zp__fail(why, ZP_E_NO_GPU, "no usable CUDA device; use --backend cpu");
    return ZP_OK;
}

static zp_err gpu_open(void **ctx, const zp__pk *pk, int threads, zp__ioerr *why)
{
    zp__g16_gpu *g = NULL;
    double t0 = zp__now();
    zp_err e = zp__g16_gpu_open(&g, pk, 0, threads, why);
    if (!e) {
        printf("gpu:       key uploaded to device 0 in %.3f s (not part of the proof time)\n",
               zp__now() - t0);
        fflush(stdout);
    }
    *ctx = g;
    return e;
}

static zp_err gpu_prove(void *ctx, zp__proof *out, const zp_fr *w, uint64_t n_w,
                        zp__prove_times *t, zp__ioerr *why)
{
    return zp__g16_gpu_prove(ctx, out, w, n_w, NULL, t, why);
}

static void gpu_close(void *ctx) { zp__g16_gpu_close(ctx); }

static const bench_backend backends[] = {
    {"cpu", cpu_probe, cpu_open, cpu_prove, cpu_close},
    {"gpu", gpu_probe, gpu_open, gpu_prove, gpu_close},
};

static const bench_backend *find_backend(const char *name)
{
    for (size_t i = 0; i < sizeof backends / sizeof *backends; i++)
        if (!strcmp(backends[i].name, name))
            return &backends[i];
    return NULL;
}

/* --------------------------------------------------------------- stages */

enum { ST_EVAL, ST_H, ST_MSM_A, ST_MSM_B1, ST_MSM_B2, ST_MSM_L, ST_MSM_H, ST_FINISH,
       ST_VERIFY, ST_TOTAL, ST_COUNT };

static const char *const stage_names[ST_COUNT] = {
    "eval", "h", "msm_a", "msm_b1", "msm_b2", "msm_l", "msm_h", "finish", "verify", "total",
};

static void stage_values(double v[ST_COUNT], const zp__prove_times *t)
{
    const double s[ST_TOTAL] = {t->eval,   t->h,      t->msm_a,  t->msm_b1, t->msm_b2,
                                t->msm_l,  t->msm_h,  t->finish, t->verify};
    v[ST_TOTAL] = 0;
    for (int i = 0; i < ST_TOTAL; i++) {
        v[i] = s[i];
        v[ST_TOTAL] += s[i];
    }
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

/* Everything one benchmark run holds. */
typedef struct bench_run {
    bench_args a;
    zp__synth_spec sp;
    zp__r1cs cs;
    zp__pk pk;
    zp_fr *w;
    double *stage; /* ST_COUNT rows of a.reps seconds */
    double *wit;   /* a.reps witness generation times */
} bench_run;

static void run_free(bench_run *r)
{
    zp__r1cs_free(&r->cs);
    zp__pk_free(&r->pk);
    free(r->w);
    free(r->stage);
    free(r->wit);
}

/* The circuit, then the key in memory; both timed and printed. */
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
    if ((e = zp__setup(&r->pk, &r->cs, r->a.conv, r->a.threads, NULL)))
        return zp__cli_fail("bench prove", "setup", e, NULL);
    double t2 = zp__now();
    /* Witnesses read only A and B: give C's memory back for the proofs. */
    zp__csr_free(&r->cs.c);
    printf("key setup: %.3f s in memory, domain %llu, %s convention (TEST-ONLY key)\n", t2 - t1,
           (unsigned long long)r->pk.domain_size, r->a.conv == ZP_H_TAU ? "bellperson" : "snarkjs");
    fflush(stdout);
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
    double t0 = zp__now();
    zp_err e = zp__synth_witness(r->w, &r->cs, &r->sp, r->a.seed + (uint64_t)i);
    double tw = zp__now() - t0;
    if (e)
        return zp__cli_fail("bench prove", "witness", e, NULL);
    zp__proof p;
    zp__prove_times t;
    if ((e = b->prove(ctx, &p, r->w, r->cs.n_vars, &t, &why)))
        return zp__cli_fail("bench prove", "proving", e, &why);
    if (i == 0)
        return 0;
    double v[ST_COUNT];
    stage_values(v, &t);
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

/* The warm-up and the timed proofs through backend b. */
static int prove_all(bench_run *r, const bench_backend *b)
{
    void *ctx = NULL;
    zp__ioerr why = {""};
    zp_err e = b->open(&ctx, &r->pk, r->a.threads, &why);
    if (e)
        return zp__cli_fail("bench prove", b->name, e, &why);
    int rc = 0;
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
    printf("bench prove: backend %s, %d threads, %d timed proofs after 1 warm-up\n", b->name,
           r.a.threads, r.a.reps);
    fflush(stdout);
    if (!(rc = build_key(&r)) && !(rc = prove_all(&r, b)))
        report(&r, b);
    run_free(&r);
    return rc;
}
