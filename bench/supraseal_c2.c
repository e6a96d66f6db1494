/*
 * supraseal-c2 drop-in against the native engine, in one run
 * (docs/supraseal-c2.md, bench/supraseal_c2.sh):
 *
 *   1. native: an engine (every GPU, else CPU workers) proves jobs of
 *      CIRCUITS partitions of synth:porep:LOG2 from synthetic witnesses
 *      (its own TEST-ONLY key); a warm-up job, then CALLS timed jobs one
 *      after another; closed after.
 *   2. drop-in: the same circuit's key file, KEY (.zpk, default: checksums only;
 *      or .params, parsed with every point checked), made here (its points on
 *      GPU 0, else the CPU) when it does not exist yet and kept for later
 *      runs; create_SRS,
 *      then generate_groth16_proofs_c with CIRCUITS Assignments a call as
 *      bellperson makes them (a, b, c of DISTINCT witnesses, shared round
 *      robin; bitmaps; Montgomery form): a warm-up call of one circuit,
 *      then CALLS timed.
 *
 * Prints s/proof of both and their ratio, host RAM (peak RSS after each
 * part, and the bytes of the a, b, c and assignments the caller holds),
 * and bytes moved host to device per partition (the engines' GPU
 * counters; 0 without a GPU). With a .params key, the last call's proofs
 * are verified against the file's verifying key; --proofs-out writes them
 * (384 bytes each) so that two builds' proofs can be compared, and
 * --trace the drop-in engine's trace (zkpipe trace svg prints its stage
 * medians: a, b, c's upload is the "eval" stage there).
 *
 * Built with ZP_SS_BENCH_UPSTREAM (bench_supraseal_c2_real, CMake option
 * ZP_SUPRASEAL_UPSTREAM_LIB), part 2 calls supraseal-c2's own library,
 * built from its public source outside this tree, instead of the drop-in:
 * the key must then be a .params, and there are no engine counters (h2d
 * not shown).
 *
 * --gpu-mem G caps each GPU's arena at G GiB in both parts (the native
 * engine's gpu_mem_bytes, the drop-in's zkpipe_supraseal_gpu_mem), as on a
 * smaller card: the key then streams from pinned host memory.
 *
 * usage: bench_supraseal_c2 [--log2 N] [--circuits C] [--calls K]
 *                           [--distinct D] [--key PATH.zpk|PATH.params] [--skip-native]
 *                           [--gpu-mem G] [--proofs-out FILE] [--trace FILE.json]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "base/pool.h"
#include "gpu/gpu.h"
#include "groth16/gpu_prover.h"
#include "groth16/groth16.h"
#include "io/bellperson.h"
#include "io/zpk.h"
#include "r1cs/synth.h"
#include "zkpipe_supraseal_c2.h"
#ifndef ZP_SS_BENCH_UPSTREAM
#include "supraseal/ss.h"
#define DROPIN_NAME "drop-in  upstream"
#else
#define DROPIN_NAME "supraseal-c2 itself"
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double peak_rss_gib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss * 1024.0 / (1u << 30);
}

static uint64_t gpu_h2d(zp_engine *e)
{
    if (!e)
        return 0;
    uint64_t sum = 0;
    zp_gpu_info gi;
    for (size_t i = 0; zp_engine_gpu_info(e, i, &gi) == ZP_OK; i++)
        sum += gi.h2d_bytes;
    return sum;
}

static void die(const char *what, zp_err e)
{
    fprintf(stderr, "bench_supraseal_c2: %s: %s\n", what, zp_strerror(e));
    exit(1);
}

/* -------------------------------------------------------------- native */

static uint64_t g_gpu_mem; /* --gpu-mem, bytes; 0: the whole GPU */

static double native(unsigned log2, unsigned circuits, unsigned calls, unsigned distinct)
{
    zp_engine_config c;
    zp_engine_config_default(&c);
    c.gpus = -1;
    c.gpu_mem_bytes = g_gpu_mem;
    c.cpu_workers = 0;
    c.max_partitions = circuits;
    c.synth_witness_cache = distinct;
    c.verify_threads = 4;
    zp_engine *e = NULL;
    zp_gpu_info gi;
    zp_err err = zp_engine_open(&e, &c);
    if (err || zp_engine_gpu_info(e, 0, &gi) != ZP_OK) {
        zp_engine_close(err ? NULL : e);
        c.gpus = 0;
        c.cpu_workers = 2;
        if ((err = zp_engine_open(&e, &c)))
            die("native engine", err);
    }
    char src[64];
    snprintf(src, sizeof src, "synth:porep:%u", log2);
    if ((err = zp_engine_add_key(e, "native", src)) || (err = zp_engine_preload_key(e, "native")))
        die("native key", err);
    double t0 = 0;
    uint64_t h0 = 0;
    for (unsigned k = 0; k <= calls; k++) {
        if (k == 1) {
            t0 = now();
            h0 = gpu_h2d(e);
        }
        zp_witness w = {.kind = ZP_WITNESS_SYNTH, .seed = 1000 * k};
        zp_job_request r = {.key = "native", .priority = ZP_PRIO_NORMAL,
                            .partitions = circuits, .witnesses = &w, .n_witnesses = 1};
        char id[ZP_JOB_ID_MAX + 1];
        zp_job_info info;
        if ((err = zp_engine_submit(e, &r, id)) ||
            (err = zp_engine_await(e, id, -1, &info, NULL)))
            die(info.message[0] ? info.message : "native job", err);
    }
    double s = (now() - t0) / ((double)calls * circuits);
    printf("native   %s: %.4f s/proof (%u jobs of %u), %.2f MB h2d/partition, peak RSS %.2f GiB\n",
           src, s, calls, circuits, (double)(gpu_h2d(e) - h0) / calls / circuits / 1e6,
           peak_rss_gib());
    fflush(stdout);
    zp_engine_close(e);
    return s;
}

/* ------------------------------------------------- bellperson's side */

typedef struct abc_ctx {
    const zp__r1cs *cs;
    const zp_fr *w;
    zp_fr *a, *b, *c;
} abc_ctx;

static void abc_rows(void *p, size_t begin, size_t end)
{
    const abc_ctx *x = p;
    for (size_t i = begin; i < end; i++) {
        zp__csr_row_dot(&x->a[i], &x->cs->a, i, x->w);
        zp__csr_row_dot(&x->b[i], &x->cs->b, i, x->w);
        zp_fr_mul(&x->c[i], &x->a[i], &x->b[i]); /* = C·w: the witness satisfies */
    }
}

static uint64_t cols(uint64_t *words, const zp__csr *m, uint32_t n_vars, uint64_t from,
                     uint64_t count)
{
    zp__bitmap d;
    uint64_t pop = 0;
    if (zp__csr_column_density(&d, m, n_vars, 0))
        die("density", ZP_E_NOMEM);
    for (uint64_t i = 0; i < count; i++)
        if (zp__bitmap_get(&d, from + i)) {
            words[i / 64] |= 1ULL << (i % 64);
            pop++;
        }
    zp__bitmap_free(&d);
    return pop;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* The key zp__setup makes, its points made on GPU 0 (fixed-base
 * multiplications there) and read back: the CPU setup of a big key is
 * impractical on a few cores. False, *pk untouched, where there is no
 * GPU or the device fails (the reason printed); then the CPU makes it. */
static bool setup_on_gpu(zp__pk *pk, const zp__r1cs *cs)
{
    if (zp__gpu_count() < 1)
        return false;
    zp__gpu_config cfg;
    zp__gpu_config_default(&cfg);
    cfg.device = 0;
    zp__gpu *dev = NULL;
    zp__gpu_stream *st = NULL;
    zp__g16_dkey k;
    zp__pk out;
    memset(&k, 0, sizeof k);
    memset(&out, 0, sizeof out);
    zp__g16_gpu_opts o;
    zp__g16_gpu_opts_default(&o);
    zp__ioerr why = {{0}};
    bool made = false;
    zp_err e = zp__gpu_open(&dev, &cfg);
    if (!e)
        e = zp__gpu_stream_open(dev, &st);
    if (!e)
        e = zp__g16_dkey_setup(&k, &out, dev, st, cs, ZP_H_TAU, 0, NULL, &o, &why);
    if (!e) {
        made = true;
        out.a = malloc(out.n_a * sizeof *out.a);
        out.b1 = malloc(out.n_b * sizeof *out.b1);
        out.b2 = malloc(out.n_b * sizeof *out.b2);
        out.l = malloc(out.n_l * sizeof *out.l);
        out.h = malloc(out.n_h * sizeof *out.h);
        if ((out.n_a && !out.a) || (out.n_b && (!out.b1 || !out.b2)) || (out.n_l && !out.l) ||
            (out.n_h && !out.h))
            e = ZP_E_NOMEM;
        else
            e = zp__g16_dkey_read(&k, st, out.a, out.b1, out.b2, out.l, out.h);
        zp__g16_dkey_free(&k);
    }
    if (st)
        zp__gpu_stream_close(st);
    if (dev)
        zp__gpu_close(dev);
    if (e) {
        fprintf(stderr, "bench_supraseal_c2: the key on the GPU failed (%s%s%s); the CPU makes it\n",
                zp_strerror(e), why.msg[0] ? ": " : "", why.msg);
        if (made)
            zp__pk_free(&out);
        return false;
    }
    *pk = out;
    return true;
}

/* A TEST-ONLY key for the circuit, as a .params, or as a .zpk without its
 * matrices (what proving from a, b, c uses; the GPUs then hold no
 * matrices), which create_SRS loads without point checks. Its points are
 * made on the GPU where there is one. */
static void make_key(const char *path, const zp__r1cs *cs)
{
    zp__pk pk;
    zp__ioerr why = {{0}};
    double t0 = now();
    zp_err err = ZP_OK;
    const bool gpu = setup_on_gpu(&pk, cs);
    if (!gpu)
        err = zp__setup(&pk, cs, ZP_H_TAU, 0, NULL);
    if (err)
        die("setup", err);
    if (ends_with(path, ".zpk")) {
        zp__csr_free(&pk.ma);
        zp__csr_free(&pk.mb);
        if (zp__csr_alloc(&pk.ma, 0, 0) || zp__csr_alloc(&pk.mb, 0, 0))
            die("matrices", ZP_E_NOMEM);
        err = zp__zpk_save(path, &pk, 0, &why);
    } else {
        err = zp__params_save(path, &pk, 0, &why);
    }
    if (err)
        die(why.msg, err);
    printf("setup    %s written in %.1f s (TEST-ONLY key, %s setup)\n", path, now() - t0,
           gpu ? "GPU" : "CPU");
    zp__pk_free(&pk);
}

/* The verifying key at the start of a .params file (the fields a .vk
 * holds, which is all zp__params_vk_parse reads), without the points
 * after it: at porep:27 the rest is tens of GB. */
static zp_err params_vk(zp__vk *vk, const char *path, zp__ioerr *why)
{
    enum { HEAD = 3 * 96 + 3 * 192 + 4, G1 = 96 };
    uint8_t head[HEAD];
    FILE *f = fopen(path, "rb");
    if (!f)
        return zp__fail(why, ZP_E_IO, "cannot open %s", path);
    if (fread(head, 1, HEAD, f) != HEAD) {
        fclose(f);
        return zp__fail(why, ZP_E_TRUNCATED, "%s ends inside its verifying key", path);
    }
    uint32_t n_ic = (uint32_t)head[HEAD - 4] << 24 | (uint32_t)head[HEAD - 3] << 16 |
                    (uint32_t)head[HEAD - 2] << 8 | head[HEAD - 1];
    size_t len = HEAD + (size_t)n_ic * G1;
    uint8_t *buf = n_ic <= (1u << 20) ? malloc(len) : NULL;
    zp_err e;
    if (!buf)
        e = zp__fail(why, ZP_E_FORMAT, "%s: %u IC points", path, n_ic);
    else {
        memcpy(buf, head, HEAD);
        e = fread(buf + HEAD, 1, len - HEAD, f) != len - HEAD
                ? zp__fail(why, ZP_E_TRUNCATED, "%s ends inside its IC points", path)
                : zp__params_vk_parse(vk, buf, len, why);
    }
    free(buf);
    fclose(f);
    return e;
}

/* Verifies proofs (circuit i proves witness i % distinct) against the
 * .params' verifying key; returns how many do not verify (all of them
 * when the key cannot be read). */
static unsigned verify_proofs(const char *params, const zp_ss_proof *proofs, unsigned circuits,
                              zp_fr *const *w, unsigned distinct, uint64_t n_inp)
{
    zp__vk vk;
    zp__ioerr why = {{0}};
    zp_err err = params_vk(&vk, params, &why);
    if (err) {
        fprintf(stderr, "bench_supraseal_c2: the verifying key: %s: %s\n", zp_strerror(err),
                why.msg);
        return circuits;
    }
    _Static_assert(sizeof proofs->a == sizeof(zp_g1_affine) &&
                       sizeof proofs->b == sizeof(zp_g2_affine),
                   "a 384-byte proof holds zkpipe's affine points");
    unsigned bad = 0;
    for (unsigned i = 0; i < circuits; i++) {
        zp__proof p;
        memcpy(&p.a, proofs[i].a, sizeof p.a);
        memcpy(&p.b, proofs[i].b, sizeof p.b);
        memcpy(&p.c, proofs[i].c, sizeof p.c);
        bad += zp__verify(&vk, w[i % distinct] + 1, n_inp - 1, &p) != ZP_OK;
    }
    zp__vk_free(&vk);
    return bad;
}

/* The drop-in engine's trace (zkpipe trace svg draws it and prints each
 * stage's median: how long a, b, c took to go up against h and the MSMs);
 * supraseal-c2 itself has none. */
static void write_trace(const char *path, zp_engine *e)
{
    char *text = NULL;
    size_t len = 0;
    if (!e) {
        fprintf(stderr, "bench_supraseal_c2: --trace: supraseal-c2 itself keeps no trace\n");
        return;
    }
    bool ok = zp_engine_trace_json(e, &text, &len) == ZP_OK;
    FILE *f = ok ? fopen(path, "wb") : NULL;
    if (f) {
        ok = fwrite(text, 1, len, f) == len;
        ok = !fclose(f) && ok;
    }
    if (!ok || !f)
        fprintf(stderr, "bench_supraseal_c2: cannot write the trace to %s\n", path);
    zp_free(text);
}

static void write_proofs(const char *path, const zp_ss_proof *proofs, unsigned circuits)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(proofs, sizeof *proofs, circuits, f) != circuits || fclose(f)) {
        fprintf(stderr, "bench_supraseal_c2: cannot write %s\n", path);
        exit(1);
    }
}

/* Part 2; returns how many of the last call's proofs do not verify (0
 * where the key is a .zpk, which is not checked here). */
static unsigned dropin(unsigned log2, unsigned circuits, unsigned calls, unsigned distinct,
                       const char *params, double native_s, const char *proofs_out,
                       const char *trace_out)
{
    char spec[32];
    snprintf(spec, sizeof spec, "porep:%u", log2);
    zp__synth_spec sp;
    if (zp__synth_parse(&sp, spec))
        die("spec", ZP_E_INVALID_ARG);
    /* One circuit for the key (made here when missing; its setup needs C)
     * and the caller's a, b, c (c = a∘b, C unread). */
    struct stat st;
    const bool make = stat(params, &st) != 0;
    sp.keep_c = make;
    zp__r1cs cs;
    zp_err err = zp__synth_circuit(&cs, &sp);
    if (err)
        die("circuit", err);
    if (make) {
        make_key(params, &cs);
        zp__csr_free(&cs.c);
    }
    uint64_t n_inp = (uint64_t)cs.n_public + 1, n_aux = cs.n_vars - n_inp;
    uint64_t m = cs.n_constraints + n_inp, wa = n_aux / 64 + 1, wi = n_inp / 64 + 1;
    uint64_t *maps = calloc(2 * wa + wi, 8);
    zp_ss_assignment base = {
        .a_aux_density = maps, .a_aux_bit_len = n_aux,
        .a_aux_popcount = cols(maps, &cs.a, cs.n_vars, n_inp, n_aux),
        .b_inp_density = maps + wa, .b_inp_bit_len = n_inp,
        .b_inp_popcount = cols(maps + wa, &cs.b, cs.n_vars, 0, n_inp),
        .b_aux_density = maps + wa + wi, .b_aux_bit_len = n_aux,
        .b_aux_popcount = cols(maps + wa + wi, &cs.b, cs.n_vars, n_inp, n_aux),
        .abc_size = m, .inp_assignment_size = n_inp, .aux_assignment_size = n_aux};
    zp_ss_assignment *as = calloc(circuits, sizeof *as);
    zp_fr **w = calloc(distinct, sizeof *w), **abc = calloc(distinct, sizeof *abc);
    double t0 = now();
    for (unsigned d = 0; d < distinct; d++) {
        w[d] = malloc((size_t)cs.n_vars * sizeof(zp_fr));
        abc[d] = malloc(3 * (size_t)m * sizeof(zp_fr));
        if (!w[d] || !abc[d] || zp__synth_witness(w[d], &cs, &sp, 77 + d))
            die("witness", ZP_E_NOMEM);
        abc_ctx x = {&cs, w[d], abc[d], abc[d] + m, abc[d] + 2 * m};
        zp__parallel_for((size_t)cs.n_constraints, 1 << 14, abc_rows, &x, 0);
        for (uint64_t s = 0; s < n_inp; s++) { /* x_s · 0 = 0 */
            x.a[cs.n_constraints + s] = w[d][s];
            zp_fr_zero(&x.b[cs.n_constraints + s]);
            zp_fr_zero(&x.c[cs.n_constraints + s]);
        }
    }
    for (unsigned i = 0; i < circuits; i++) {
        unsigned d = i % distinct;
        as[i] = base;
        as[i].a = (const zp_ss_fr *)abc[d];
        as[i].b = (const zp_ss_fr *)(abc[d] + m);
        as[i].c = (const zp_ss_fr *)(abc[d] + 2 * m);
        as[i].inp_assignment_data = (const zp_ss_fr *)w[d];
        as[i].aux_assignment_data = (const zp_ss_fr *)(w[d] + n_inp);
    }
    double held = (double)distinct * (3.0 * m + cs.n_vars) * sizeof(zp_fr) / (1u << 30);
    printf("caller   %u distinct a, b, c + assignments made in %.1f s: %.1f GiB held\n",
           distinct, now() - t0, held);
    zp__r1cs_free(&cs);
    zp_ss_fr *r = calloc(circuits, sizeof *r), *s = calloc(circuits, sizeof *s);
    for (unsigned i = 0; i < circuits; i++) {
        zp_fr_from_u64((zp_fr *)&r[i], 5 + i);
        zp_fr_from_u64((zp_fr *)&s[i], 500 + i);
    }
    zp_ss_srs srs = {0};
    t0 = now();
    zp_ss_result res = create_SRS(&srs, params, true);
    if (res.code) {
        fprintf(stderr, "create_SRS: %s\n", res.message);
        exit(1);
    }
    printf("create_SRS %.1f s\n", now() - t0);
    zp_engine *e = NULL;
#ifndef ZP_SS_BENCH_UPSTREAM
    if ((err = zp__ss_engine(&e)))
        die("engine", err);
#endif
    zp_ss_proof *proofs = calloc(circuits, sizeof *proofs);
    uint64_t h0 = 0;
    /* The warm-up call proves one circuit: it brings the key to the GPUs
     * (the drop-in) or sets the device up (supraseal-c2) at a tenth of a
     * full call's time. Each call's time is printed as it ends, so that a
     * run cut short still shows where it was. */
    for (unsigned k = 0; k <= calls; k++) {
        if (k == 1) {
            t0 = now();
            h0 = gpu_h2d(e);
        }
        const double tc = now();
        res = generate_groth16_proofs_c(as, k ? circuits : 1, r, s, proofs, &srs);
        if (res.code) {
            fprintf(stderr, "generate_groth16_proofs_c: %s\n", res.message);
            exit(1);
        }
        printf("call     %u of %u (%s): %.1f s\n", k, calls,
               k ? "timed" : "warm-up, one circuit", now() - tc);
    }
    double sp_s = (now() - t0) / ((double)calls * circuits);
    printf(DROPIN_NAME " generate_groth16_proofs_c: %.4f s/proof (%u calls of %u), "
           "%.2f MB h2d/partition%s, peak RSS %.2f GiB\n",
           sp_s, calls, circuits, (double)(gpu_h2d(e) - h0) / calls / circuits / 1e6,
           e ? "" : " (not counted)", peak_rss_gib());
    if (native_s > 0)
        printf("ratio    %s / native = %.3f%s\n", e ? "drop-in" : "supraseal-c2", sp_s / native_s,
               e ? " (target <= 1.10)" : "");
    unsigned bad = 0;
    if (ends_with(params, ".params")) {
        bad = verify_proofs(params, proofs, circuits, w, distinct, n_inp);
        printf("verify   %u of %u proofs of the last call verify against %s's vk\n",
               circuits - bad, circuits, params);
    }
    if (proofs_out)
        write_proofs(proofs_out, proofs, circuits);
    if (trace_out)
        write_trace(trace_out, e);
    drop_SRS(&srs);
    for (unsigned d = 0; d < distinct; d++) {
        free(w[d]);
        free(abc[d]);
    }
    free(w);
    free(abc);
    free(as);
    free(maps);
    free(r);
    free(s);
    free(proofs);
    return bad;
}

int main(int argc, char **argv)
{
    unsigned log2 = 27, circuits = 10, calls = 3, distinct = 1;
    const char *params = NULL, *proofs_out = NULL, *trace_out = NULL;
    bool skip_native = false;
    setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it is made, also into a file */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--skip-native")) {
            skip_native = true;
            continue;
        }
        if (!v) {
            fprintf(stderr, "bench_supraseal_c2: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--log2"))
            log2 = (unsigned)atoi(v);
        else if (!strcmp(a, "--circuits"))
            circuits = (unsigned)atoi(v);
        else if (!strcmp(a, "--calls"))
            calls = (unsigned)atoi(v);
        else if (!strcmp(a, "--distinct"))
            distinct = (unsigned)atoi(v);
        else if (!strcmp(a, "--key"))
            params = v;
        else if (!strcmp(a, "--proofs-out"))
            proofs_out = v;
        else if (!strcmp(a, "--trace"))
            trace_out = v;
        else if (!strcmp(a, "--gpu-mem")) {
            const int g = atoi(v);
            if (g < 1 || g > 4096) {
                fprintf(stderr, "bench_supraseal_c2: --gpu-mem wants GiB, 1..4096, got %s\n", v);
                return 2;
            }
            g_gpu_mem = (uint64_t)g << 30;
        } else {
            fprintf(stderr, "bench_supraseal_c2: unknown option %s\n", a);
            return 2;
        }
    }
    if (log2 < 8 || log2 > 28 || !circuits || !calls || !distinct || distinct > circuits) {
        fprintf(stderr, "bench_supraseal_c2: --log2 8..28, --circuits/--calls >= 1, "
                        "--distinct 1..circuits\n");
        return 2;
    }
    char def[64];
    if (!params) {
        snprintf(def, sizeof def, "porep-%u.zpk", log2);
        params = def;
    }
#ifdef ZP_SS_BENCH_UPSTREAM
    if (!ends_with(params, ".params")) {
        fprintf(stderr, "bench_supraseal_c2: supraseal-c2 reads only .params keys: --key %s\n",
                params);
        return 2;
    }
#endif
#ifndef ZP_SS_BENCH_UPSTREAM
    if (g_gpu_mem && zkpipe_supraseal_gpu_mem(g_gpu_mem)) {
        fprintf(stderr, "bench_supraseal_c2: the drop-in's engine is open already\n");
        return 2;
    }
#else
    if (g_gpu_mem) {
        fprintf(stderr, "bench_supraseal_c2: supraseal-c2 takes no --gpu-mem\n");
        return 2;
    }
#endif
    double native_s = skip_native ? 0 : native(log2, circuits, calls, distinct);
    return dropin(log2, circuits, calls, distinct, params, native_s, proofs_out, trace_out) ? 3
                                                                                          : 0;
}
