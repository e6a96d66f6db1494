/*
 * zkpipe bench ntt | msm: median times of the Fr NTT and of G1/G2 MSMs on
 * the GPU (data resident, made on the device) or, when there is no GPU or
 * --backend cpu is given, on the CPU backend. Each size is warmed up first;
 * the line for a size gives the median, the floor of one H200 scaled
 * to the size, and the fraction of the floor reached (floor / median).
 * A CSV line `RESULT,...` per size makes the output easy to collect.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_gpu.h"
#include "cpu/cpu.h"
#include "gpu/gpu.h"
#include "tool/cmdline.h"
#include "tool/timing.h"
#include "zkpipe.h"


enum backend { BK_AUTO, BK_GPU, BK_CPU };

struct opts {
    int from, to, reps, warmup;
    enum backend backend;
    bool g2, sparse, tail, inverse, coset, twist;
    zp_roots roots;
    int per_pass;    /* msm: windows per pass, 0 = all */
    int scratch_gib; /* msm: at least this much scratch, 0 = what the sizing asks */
    int pre_c;       /* msm: precomputed bases with c-bit windows, 0 = none */
    int chunks;      /* msm: the points in this many chunks, three ways (bench_msm_chunks.c) */
    int acc_c;       /* msm --chunks: the one sum's window, 0 = a chunk's */
    int acc_mib;     /* msm --chunks: the one sum's scratch in MiB, 0 = all it asks */
    int window;      /* msm --chunks: the other MSMs' window, 0 = by size */
    int affine_lg;   /* msm: G1 batch-affine from 2^affine_lg dense scalars, 0 = default */
    int ones_lg;     /* msm: G1 ones through those rounds from 2^ones_lg, 0 = default */
    int entries_lg;  /* msm: those rounds only in passes of 2^entries_lg entries, 0 = default */
};

static const char ntt_help[] =
    "usage: zkpipe bench ntt [options]\n"
    "  --from L --to L     sizes 2^L (default 20..24; GPU up to 28)\n"
    "  --reps N            timed runs per size (default 7)\n"
    "  --backend B         auto (GPU when present), gpu or cpu\n"
    "  --roots R           snarkjs (default) or bellperson\n"
    "  --inverse, --coset  the inverse / coset transform\n"
    "  --twist             GPU: full twist tables from 2^19, as a resident key has\n"
    "                      them (the prover's transforms; 64 bytes an element)\n"
    "  --tune cpu_ifma=auto|off  CPU: the AVX-512 IFMA kernels where the CPU has\n"
    "                      them (default auto), or off\n"
    "Floor: 30 ms for 2^27 (the field products one H200 does), scaled by n log n.\n";

static const char msm_help[] =
    "usage: zkpipe bench msm [options]\n"
    "  --g2                G2 instead of G1\n"
    "  --from L --to L     sizes 2^L (default 16..20)\n"
    "  --reps N            timed runs per size (default 5)\n"
    "  --backend B         auto (GPU when present), gpu or cpu\n"
    "  --sparse            PoRep-like scalars: 60% zero, 30% one, 10% random\n"
    "  --tail              with --sparse, laid out as a synth:porep witness: the\n"
    "                      last eighth random, the rest 56% zero, 43% one, 1% random\n"
    "  --windows-per-pass W  GPU scratch for W windows sorted and accumulated\n"
    "                      at a time, XYZZ sizing (default: the fastest plan's,\n"
    "                      with the batch-affine round where it runs)\n"
    "  --scratch-gib G     at least G GiB of GPU scratch\n"
    "  --precompute C      G1 over precomputed bases (zp__gpu_msm_g1_pre): a table\n"
    "                      of ceil(255/C) copies of the points, made per size and\n"
    "                      timed apart; C-bit windows into one bucket set (2..22)\n"
    "  --chunks K          G1 on the GPU without the 0/1 split (H's MSM), the points\n"
    "                      cut into K chunks (2..4096), three ways: K MSMs summed on\n"
    "                      the host (msm-g1-k), one sum over the K chunks in one set\n"
    "                      of buckets (msm-g1-acc, zp__gpu_msm_acc), one MSM over\n"
    "                      all (msm-g1-1); the three sums must agree\n"
    "  --acc-c C           --chunks: msm-g1-acc's window (2..22; default a chunk's,\n"
    "                      as a streaming slot sums H)\n"
    "  --acc-scratch-mib M --chunks: msm-g1-acc with M MiB of scratch at most (as a\n"
    "                      slot sums H in what its work region leaves; it takes\n"
    "                      the windows a pass, and the affine round, that fit)\n"
    "  --window C          GPU: the dense scalars' window (2..22; default by size):\n"
    "                      alone, the MSM's (G1 or G2, to sweep the window model);\n"
    "                      with --chunks, msm-g1-k's and msm-g1-1's, to set the one\n"
    "                      MSM beside a sum at --acc-c C: what chunking costs apart\n"
    "                      from the window\n"
    "  --chunks K --sparse the MSMs over the witness instead (with the 0/1 split):\n"
    "                      K MSMs summed (msm-g1s-k), the K chunks' dense scalars\n"
    "                      into one set of kept buckets at --acc-c (default the\n"
    "                      window of an eighth of the points) and their ones summed\n"
    "                      apart (msm-g1s-acc), one MSM (msm-g1s-1), and each\n"
    "                      way's phases, the chunks' added up\n"
    "  --g1-affine-from L  GPU: G1's buckets summed by batch-affine rounds from\n"
    "                      2^L dense scalars (default 2^21; 2^23 where slots\n"
    "                      share a device), the crossover a chunk's MSM takes\n"
    "  --g1-ones-affine-from L  GPU: G1's scalars equal to one summed by those\n"
    "                      rounds from 2^L of them (default 2^25)\n"
    "  --affine-min-entries L  GPU: those rounds only where a pass holds 2^L\n"
    "                      entries or more (windows a pass times dense scalars;\n"
    "                      default 2^24)\n"
    "  --tune cpu_ifma=auto|off  CPU: the AVX-512 IFMA kernels where the CPU has\n"
    "                      them (default auto), or off\n"
    "Floor: G1 2^26 in 0.28 s with XYZZ buckets, scaled by n;\n"
    "G2 three times G1 (an Fp2 product is three Fp products).\n";

/* The same as zp__cli_wants_help, kept local so that bench/gpu.sh can link
 * this file without the command table. */
static bool wants_help(int argc, char **argv, const char *help)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(help, stdout);
            return true;
        }
    }
    return false;
}

static int parse(struct opts *o, int argc, char **argv, const char *help)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--from") && v) bad = zp__parse_int(argv[++i], 1, 31, &o->from);
        else if (!strcmp(a, "--to") && v) bad = zp__parse_int(argv[++i], 1, 31, &o->to);
        else if (!strcmp(a, "--reps") && v) bad = zp__parse_int(argv[++i], 1, 1000, &o->reps);
        else if (!strcmp(a, "--backend") && v) {
            i++;
            if (!strcmp(v, "auto")) o->backend = BK_AUTO;
            else if (!strcmp(v, "gpu")) o->backend = BK_GPU;
            else if (!strcmp(v, "cpu")) o->backend = BK_CPU;
            else bad = 1;
        } else if (!strcmp(a, "--roots") && v) {
            i++;
            if (!strcmp(v, "snarkjs")) o->roots = ZP_ROOTS_SNARKJS;
            else if (!strcmp(v, "bellperson")) o->roots = ZP_ROOTS_BELLPERSON;
            else bad = 1;
        } else if (!strcmp(a, "--g2")) o->g2 = true;
        else if (!strcmp(a, "--sparse")) o->sparse = true;
        else if (!strcmp(a, "--tail")) o->tail = true;
        else if (!strcmp(a, "--windows-per-pass") && v)
            bad = zp__parse_int(argv[++i], 1, 256, &o->per_pass);
        else if (!strcmp(a, "--scratch-gib") && v)
            bad = zp__parse_int(argv[++i], 1, 128, &o->scratch_gib);
        else if (!strcmp(a, "--precompute") && v)
            bad = zp__parse_int(argv[++i], 2, 22, &o->pre_c);
        else if (!strcmp(a, "--chunks") && v)
            bad = zp__parse_int(argv[++i], 2, 4096, &o->chunks);
        else if (!strcmp(a, "--acc-c") && v)
            bad = zp__parse_int(argv[++i], 2, 22, &o->acc_c);
        else if (!strcmp(a, "--window") && v)
            bad = zp__parse_int(argv[++i], 2, 22, &o->window);
        else if (!strcmp(a, "--g1-affine-from") && v)
            bad = zp__parse_int(argv[++i], 1, 40, &o->affine_lg);
        else if (!strcmp(a, "--g1-ones-affine-from") && v)
            bad = zp__parse_int(argv[++i], 1, 40, &o->ones_lg);
        else if (!strcmp(a, "--affine-min-entries") && v)
            bad = zp__parse_int(argv[++i], 1, 40, &o->entries_lg);
        else if (!strcmp(a, "--acc-scratch-mib") && v)
            bad = zp__parse_int(argv[++i], 1, 1 << 20, &o->acc_mib);
        else if (!strcmp(a, "--inverse")) o->inverse = true;
        else if (!strcmp(a, "--coset")) o->coset = true;
        else if (!strcmp(a, "--twist")) o->twist = true;
        else if (!strcmp(a, "--tune") && v) {
            /* Only the CPU's switch applies to these benchmarks; it is
             * parsed here, not by cli/tune.c, so that bench/gpu.sh links
             * this file alone. */
            i++;
            if (!strcmp(v, "cpu_ifma=off") || !strcmp(v, "cpu_ifma=auto")) {
                zp_cpu_set_ifma(!strcmp(v, "cpu_ifma=auto"));
            } else {
                fprintf(stderr, "zkpipe bench: --tune takes cpu_ifma=auto or cpu_ifma=off here, "
                                "not '%s'\n", v);
                return -1;
            }
        } else bad = 1;
        if (bad) {
            fprintf(stderr, "zkpipe bench: bad option '%s'\n%s", a, help);
            return -1;
        }
    }
    if (o->from > o->to) {
        fprintf(stderr, "zkpipe bench: --from is above --to\n");
        return -1;
    }
    if (o->backend == BK_AUTO)
        o->backend = zp__gpu_count() > 0 ? BK_GPU : BK_CPU;
    if (o->backend == BK_GPU && zp__gpu_count() == 0) {
        fprintf(stderr, "zkpipe bench: no GPU (%s)\n", zp__gpu_compiled() ? "none found"
                                                                           : "built without CUDA");
        return -1;
    }
    return 0;
}

void zp__bench_report(const char *what, const char *backend, int lg, double *ms, int reps,
                      double floor_ms)
{
    double med = zp__median(ms, reps);
    printf("%-7s %-3s 2^%-2d  median %10.3f ms  (%d runs, min %.3f)  floor %9.4f ms  "
           "fraction %.2f\n",
           what, backend, lg, med, reps, ms[0], floor_ms, floor_ms / med);
    printf("RESULT,%s,%s,%d,%.4f,%.4f,%.3f\n", what, backend, lg, med, floor_ms, floor_ms / med);
    fflush(stdout);
}

zp__gpu *zp__bench_open_gpu_msm(zp__gpu_stream **s, const zp__gpu_msm_opts *mo)
{
    zp__gpu *g = NULL;
    zp__gpu_config cfg;
    zp__gpu_config_default(&cfg);
    cfg.msm = *mo;
    zp_err e = zp__gpu_open(&g, &cfg);
    if (e == ZP_OK)
        e = zp__gpu_stream_open(g, s);
    if (e != ZP_OK) {
        fprintf(stderr, "zkpipe bench: GPU: %s (%s)\n", zp_strerror(e), zp__gpu_last_error());
        zp__gpu_close(g);
        return NULL;
    }
    zp__gpu_info info;
    zp__gpu_get_info(g, &info);
    printf("GPU: %s, %d SMs, compute %d.%d, arena %.1f GiB\n", info.name, info.sm_count,
           info.cc_major, info.cc_minor, (double)info.arena_bytes / (1 << 30));
    zp__gpu_msm_opts d;
    zp__gpu_msm_opts_default(&d);
    if (mo->g1_affine_from != d.g1_affine_from ||
        mo->g1_ones_affine_from != d.g1_ones_affine_from ||
        mo->affine_min_entries != d.affine_min_entries)
        printf("MSMs: G1's batch-affine rounds from %llu dense scalars, its ones through them "
               "from %llu; passes of %llu entries at least\n",
               (unsigned long long)mo->g1_affine_from, (unsigned long long)mo->g1_ones_affine_from,
               (unsigned long long)mo->affine_min_entries);
    return g;
}

zp__gpu *zp__bench_open_gpu(zp__gpu_stream **s)
{
    zp__gpu_msm_opts mo;
    zp__gpu_msm_opts_default(&mo);
    return zp__bench_open_gpu_msm(s, &mo);
}

/* ------------------------------------------------------------------ NTT */

static double ntt_floor_ms(int lg)
{
    return 30.0 * ((double)((uint64_t)1 << lg) * lg) / ((double)((uint64_t)1 << 27) * 27);
}

struct ntt_call {
    zp__gpu_stream *s;
    zp_fr *d;
    int lg;
    const struct opts *o;
    zp_fr g;
};

static zp_err ntt_gpu_once(void *ctx)
{
    struct ntt_call *c = ctx;
    return zp__gpu_ntt(c->s, c->d, (unsigned)c->lg, c->o->inverse, c->o->roots,
                       c->o->coset ? &c->g : NULL);
}

static int ntt_gpu(const struct opts *o)
{
    zp__gpu_stream *s = NULL;
    zp__gpu *g = zp__bench_open_gpu(&s);
    if (!g)
        return 1;
    int rc = 0;
    zp__gpu_buf d = {NULL, 0};
    zp_err e = zp__gpu_alloc(g, &d, sizeof(zp_fr) << o->to);
    if (!e)
        e = zp__gpu_fill_random_fr(s, d.ptr, (uint64_t)1 << o->to, 42);
    zp__gpu_stream_profile(s, true);
    struct ntt_call c = {s, d.ptr, 0, o, {{0}}};
    zp_fr_from_u64(&c.g, 7);
    for (int lg = o->from; lg <= o->to && !e; lg++) {
        double ms[1000];
        float t;
        c.lg = lg;
        zp__gpu_twist tw = {{NULL, 0}, 0, ZP_ROOTS_SNARKJS};
        if (o->twist && zp__gpu_ntt_twist_bytes((unsigned)lg)) {
            e = zp__gpu_ntt_twist_build(s, &tw, (unsigned)lg, o->roots);
            zp__gpu_stream_set_twist(s, &tw);
        }
        for (int w = 0; w < o->warmup && !e; w++)
            e = zp__gpu_time_ms(s, ntt_gpu_once, &c, &t);
        for (int r = 0; r < o->reps && !e; r++) {
            e = zp__gpu_time_ms(s, ntt_gpu_once, &c, &t);
            ms[r] = t;
        }
        if (!e) {
            zp__bench_report(o->inverse ? "intt" : "ntt", "gpu", lg, ms, o->reps, ntt_floor_ms(lg));
            zp__gpu_ntt_phases ph;
            zp__gpu_ntt_last_phases(s, &ph);
            if (ph.passes) {
                printf("        kernels of the last run (ms):");
                for (unsigned p = 0; p < ph.passes; p++)
                    printf(" pass %u %.3f,", p + 1, ph.pass[p]);
                printf(" bit reversal %.3f\n", ph.bitrev);
            }
        }
        zp__gpu_stream_set_twist(s, NULL);
        zp_err es = zp__gpu_stream_sync(s); /* the runs are done with the tables */
        zp__gpu_ntt_twist_free(g, &tw);
        if (!e)
            e = es;
    }
    if (e) {
        fprintf(stderr, "zkpipe bench ntt: %s (%s)\n", zp_strerror(e), zp__gpu_last_error());
        rc = 1;
    }
    zp__gpu_free(g, &d);
    zp__gpu_stream_close(s);
    zp__gpu_close(g);
    return rc;
}

static int ntt_cpu(const struct opts *o)
{
    size_t n = (size_t)1 << o->to;
    zp_fr *a = malloc(n * sizeof *a), g;
    if (!a) {
        fprintf(stderr, "zkpipe bench ntt: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        zp_fr_from_u64(&a[i], i * 0x9e3779b97f4a7c15ULL + 1);
    zp_fr_from_u64(&g, 7);
    for (int lg = o->from; lg <= o->to; lg++) {
        double ms[1000];
        for (int r = -o->warmup; r < o->reps; r++) {
            double t0 = zp__now();
            zp_err e = o->coset ? zp__cpu_coset_ntt(a, (unsigned)lg, o->inverse, &g, o->roots, 0)
                                : zp__cpu_ntt(a, (unsigned)lg, o->inverse, o->roots, 0);
            if (e) {
                fprintf(stderr, "zkpipe bench ntt: %s\n", zp_strerror(e));
                free(a);
                return 1;
            }
            if (r >= 0)
                ms[r] = (zp__now() - t0) * 1e3;
        }
        zp__bench_report(o->inverse ? "intt" : "ntt", "cpu", lg, ms, o->reps, ntt_floor_ms(lg));
    }
    free(a);
    return 0;
}

int zp__bench_ntt(int argc, char **argv)
{
    if (wants_help(argc, argv, ntt_help))
        return 0;
    struct opts o = {.from = 20, .to = 24, .reps = 7, .warmup = 2, .backend = BK_AUTO,
                     .roots = ZP_ROOTS_SNARKJS};
    if (parse(&o, argc, argv, ntt_help))
        return 2;
    if (o.to > (o.backend == BK_GPU ? ZP_GPU_NTT_MAX_LOG2 : ZP_NTT_MAX_LOG2)) {
        fprintf(stderr, "zkpipe bench ntt: --to is above the largest size\n");
        return 2;
    }
    return o.backend == BK_GPU ? ntt_gpu(&o) : ntt_cpu(&o);
}

/* ------------------------------------------------------------------ MSM */

double zp__bench_msm_floor_ms(int lg, bool g2)
{
    return 280.0 * (double)((uint64_t)1 << lg) / (double)((uint64_t)1 << 26) * (g2 ? 3 : 1);
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Standard form (bench_gpu.h): the top two bits clear, so below r. */
void zp__bench_host_scalars(zp_fr *s, size_t n, bool sparse, bool tail, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t h = mix64(seed ^ mix64(i));
        memset(&s[i], 0, sizeof s[i]);
        const bool dense = tail ? i >= n - n / 8 || h % 100 == 99 : h % 10 >= 9;
        if (sparse && !dense) {
            s[i].l[0] = tail ? h % 99 >= 56 : h % 10 >= 6;
            continue;
        }
        for (int k = 0; k < 4; k++)
            s[i].l[k] = mix64(h + (uint64_t)k);
        s[i].l[3] &= 0x3fffffffffffffffULL;
    }
}

/* count points R + k*S (distinct; one addition each, one inversion). */
#define DEFINE_BASES(G, AFF, JAC)                                                 \
    static zp_err G##_bases(AFF *out, size_t count, uint64_t seed)                \
    {                                                                             \
        JAC *j = malloc(count * sizeof *j), g, r, s;                              \
        if (!j)                                                                   \
            return ZP_E_NOMEM;                                                    \
        AFF gen;                                                                  \
        uint64_t k1[4], k2[4];                                                    \
        for (int i = 0; i < 4; i++) {                                             \
            k1[i] = mix64(seed + (uint64_t)i);                                    \
            k2[i] = mix64(~seed + (uint64_t)i);                                   \
        }                                                                         \
        zp_##G##_generator(&gen);                                                 \
        zp_##G##_jac_from_affine(&g, &gen);                                       \
        zp_##G##_jac_mul_vartime(&r, &g, k1, 4);                                  \
        zp_##G##_jac_mul_vartime(&s, &g, k2, 4);                                  \
        for (size_t i = 0; i < count; i++) {                                      \
            j[i] = r;                                                             \
            zp_##G##_jac_add(&r, &r, &s);                                         \
        }                                                                         \
        zp_##G##_batch_to_affine(out, j, count);                                  \
        free(j);                                                                  \
        return ZP_OK;                                                             \
    }
DEFINE_BASES(g1, zp_g1_affine, zp_g1_jac)
DEFINE_BASES(g2, zp_g2_affine, zp_g2_jac)

/* Device points: a[i mod na] + b[i / na] from two independent progressions. */
zp_err zp__bench_gpu_points(zp__gpu *g, zp__gpu_stream *s, void *d_out, uint64_t n, bool g2)
{
    uint64_t na = n < 1024 ? n : 1024, nb = (n + na - 1) / na;
    size_t psz = g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
    char *h = malloc((na + nb) * psz);
    if (!h)
        return ZP_E_NOMEM;
    zp_err e = g2 ? g2_bases((zp_g2_affine *)h, na, 1) : g1_bases((zp_g1_affine *)h, na, 1);
    if (!e)
        e = g2 ? g2_bases((zp_g2_affine *)(h + na * psz), nb, 2)
               : g1_bases((zp_g1_affine *)(h + na * psz), nb, 2);
    zp__gpu_buf db = {NULL, 0};
    if (!e)
        e = zp__gpu_alloc(g, &db, (na + nb) * psz);
    if (!e)
        e = zp__gpu_upload(s, db.ptr, h, (na + nb) * psz);
    if (!e)
        e = g2 ? zp__gpu_gen_points_g2(s, d_out, n, db.ptr, na,
                                       (zp_g2_affine *)((char *)db.ptr + na * psz), nb)
               : zp__gpu_gen_points_g1(s, d_out, n, db.ptr, na,
                                       (zp_g1_affine *)((char *)db.ptr + na * psz), nb);
    if (!e)
        e = zp__gpu_stream_sync(s);
    zp__gpu_free(g, &db);
    free(h);
    return e;
}

int zp__bench_msm_end(zp__gpu *g, zp__gpu_stream *s, zp_err e, zp__gpu_buf *b0, zp__gpu_buf *b1,
                      zp__gpu_buf *b2, zp__gpu_buf *b3)
{
    if (e)
        fprintf(stderr, "zkpipe bench msm: %s (%s)\n", zp_strerror(e), zp__gpu_last_error());
    zp__gpu_buf *b[4] = {b0, b1, b2, b3};
    for (int i = 0; i < 4; i++)
        if (b[i])
            zp__gpu_free(g, b[i]);
    zp__gpu_stream_close(s);
    zp__gpu_close(g);
    return e ? 1 : 0;
}

/* The MSM options bench msm's flags set: the defaults, the window bits of
 * --window (0: by size), the crossovers of --g1-affine-from,
 * --g1-ones-affine-from and --affine-min-entries where given. */
static void msm_opts_of(const struct opts *o, zp__gpu_msm_opts *mo)
{
    zp__gpu_msm_opts_default(mo);
    mo->window = (unsigned)o->window;
    if (o->affine_lg)
        mo->g1_affine_from = mo->g1_affine_from_shared = (uint64_t)1 << o->affine_lg;
    if (o->ones_lg)
        mo->g1_ones_affine_from = (uint64_t)1 << o->ones_lg;
    if (o->entries_lg)
        mo->affine_min_entries = (uint64_t)1 << o->entries_lg;
}

/* A result line's name for bench msm's group and scalars. */
static const char *msm_name(const struct opts *o)
{
    return o->g2 ? (o->sparse ? "msm-g2s" : "msm-g2") : (o->sparse ? "msm-g1s" : "msm-g1");
}

static int msm_gpu(const struct opts *o, const zp__gpu_msm_opts *mo)
{
    zp__gpu_stream *s = NULL;
    zp__gpu *g = zp__bench_open_gpu_msm(&s, mo);
    if (!g)
        return 1;
    const uint64_t n = (uint64_t)1 << o->to;
    const size_t psz = o->g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
    zp__gpu_stream_profile(s, true);
    zp__gpu_buf dp = {NULL, 0}, ds = {NULL, 0}, scratch = {NULL, 0}, table = {NULL, 0};
    zp_fr *hs = NULL;
    double t0 = zp__now();
    zp_err e = zp__gpu_alloc(g, &dp, n * psz);
    if (!e)
        e = zp__gpu_alloc(g, &ds, n * sizeof(zp_fr));
    uint64_t sb = o->per_pass ? zp__gpu_msm_scratch_bytes_pass(n, o->g2, (unsigned)o->per_pass)
                              : zp__gpu_msm_scratch_bytes_best(n, o->g2);
    const unsigned copies = o->pre_c ? zp__gpu_msm_pre_copies((unsigned)o->pre_c) : 0;
    if (copies) {
        uint64_t pb = zp__gpu_msm_scratch_bytes_pre(n, (unsigned)o->pre_c);
        sb = pb > sb ? pb : sb;
        if (!pb)
            e = ZP_E_TOO_LARGE; /* copies * n above ZP_GPU_MSM_MAX */
        if (!e)
            e = zp__gpu_alloc(g, &table, n * copies * psz);
    }
    if (sb < ((uint64_t)o->scratch_gib << 30))
        sb = (uint64_t)o->scratch_gib << 30;
    if (!e)
        e = zp__gpu_alloc(g, &scratch, sb);
    if (!e)
        e = zp__bench_gpu_points(g, s, dp.ptr, n, o->g2);
    if (!e && o->sparse) {
        hs = malloc(n * sizeof *hs);
        if (!hs)
            e = ZP_E_NOMEM;
        else
            zp__bench_host_scalars(hs, n, true, o->tail, 3);
        if (!e)
            e = zp__gpu_upload(s, ds.ptr, hs, n * sizeof *hs);
    } else if (!e) {
        e = zp__gpu_fill_random_fr(s, ds.ptr, n, 3);
    }
    if (!e)
        e = zp__gpu_stream_sync(s);
    if (!e)
        printf("inputs: 2^%d %s points and scalars made in %.2f s; scratch %.2f GiB\n", o->to,
               o->g2 ? "G2" : "G1", zp__now() - t0, (double)scratch.bytes / (1 << 30));
    const char *what = msm_name(o);
    if (copies)
        what = "msm-g1pre";
    for (int lg = o->from; lg <= o->to && !e; lg++) {
        double ms[1000];
        const uint64_t nl = (uint64_t)1 << lg;
        if (copies) { /* the table's stride is the size */
            double tp = zp__now();
            e = zp__gpu_msm_g1_precompute(s, table.ptr, dp.ptr, nl, (unsigned)o->pre_c);
            if (!e)
                printf("table: 2^%d points, %u copies (c = %d), %.2f GiB, made in %.1f ms\n", lg,
                       copies, o->pre_c, (double)(nl * copies * psz) / (1 << 30),
                       (zp__now() - tp) * 1e3);
        }
        for (int r = -o->warmup; r < o->reps && !e; r++) {
            zp_g1_jac r1;
            zp_g2_jac r2;
            double t = zp__now();
            e = copies  ? zp__gpu_msm_g1_pre(s, &r1, table.ptr, (unsigned)o->pre_c, ds.ptr, nl,
                                             scratch)
                : o->g2 ? zp__gpu_msm_g2(s, &r2, dp.ptr, ds.ptr, nl, scratch)
                        : zp__gpu_msm_g1(s, &r1, dp.ptr, ds.ptr, nl, scratch);
            if (r >= 0)
                ms[r] = (zp__now() - t) * 1e3;
        }
        if (!e) {
            zp__bench_report(what, "gpu", lg, ms, o->reps, zp__bench_msm_floor_ms(lg, o->g2));
            zp__gpu_msm_phases ph;
            zp__gpu_msm_last_phases(s, &ph);
            unsigned nw, per;
            zp__gpu_msm_last_passes(s, &nw, &per);
            printf("        phases of the last run (ms): split %.2f, digits+sort %.2f, "
                   "accumulate %.2f (round 1 %.2f, round 2 %.2f, xyzz %.2f), reduce %.2f, "
                   "ones %.2f; total %.2f; %u windows, %u a pass, %s buckets%s\n",
                   ph.split, ph.sort, ph.accumulate, ph.round1, ph.round2, ph.xyzz, ph.reduce,
                   ph.ones, ph.total, nw, per,
                   zp__gpu_msm_last_affine(s) ? "affine" : "xyzz",
                   zp__gpu_msm_last_affine_rounds(s) > 1 ? " (two rounds)" : "");
        }
        if (!e && copies) { /* the same sum as the plain MSM's */
            zp_g1_jac a, b;
            e = zp__gpu_msm_g1_pre(s, &a, table.ptr, (unsigned)o->pre_c, ds.ptr, nl, scratch);
            if (!e)
                e = zp__gpu_msm_g1(s, &b, dp.ptr, ds.ptr, nl, scratch);
            if (!e && !zp_g1_jac_eq(&a, &b)) {
                fprintf(stderr, "zkpipe bench msm: the precomputed MSM differs from the plain one "
                                "at 2^%d\n", lg);
                e = ZP_E_GPU;
            }
        }
    }
    free(hs);
    return zp__bench_msm_end(g, s, e, &scratch, &table, &ds, &dp);
}

static int msm_cpu(const struct opts *o)
{
    const size_t n = (size_t)1 << o->to;
    const size_t psz = o->g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
    void *p = malloc(n * psz);
    zp_fr *sc = malloc(n * sizeof *sc);
    zp_err e = p && sc ? ZP_OK : ZP_E_NOMEM;
    if (!e)
        e = o->g2 ? g2_bases(p, n, 1) : g1_bases(p, n, 1);
    if (!e)
        zp__bench_host_scalars(sc, n, o->sparse, o->tail, 3);
    const char *what = msm_name(o);
    for (int lg = o->from; lg <= o->to && !e; lg++) {
        double ms[1000];
        for (int r = -o->warmup; r < o->reps && !e; r++) {
            zp_g1_jac r1;
            zp_g2_jac r2;
            double t = zp__now();
            e = o->g2 ? zp__cpu_msm_g2(&r2, p, sc, (size_t)1 << lg, 0)
                      : zp__cpu_msm_g1(&r1, p, sc, (size_t)1 << lg, 0);
            if (r >= 0)
                ms[r] = (zp__now() - t) * 1e3;
        }
        if (!e)
            zp__bench_report(what, "cpu", lg, ms, o->reps, zp__bench_msm_floor_ms(lg, o->g2));
    }
    free(p);
    free(sc);
    if (e) {
        fprintf(stderr, "zkpipe bench msm: %s\n", zp_strerror(e));
        return 1;
    }
    return 0;
}

int zp__bench_msm(int argc, char **argv)
{
    if (wants_help(argc, argv, msm_help))
        return 0;
    struct opts o = {.from = 16, .to = 20, .reps = 5, .warmup = 1, .backend = BK_AUTO,
                     .roots = ZP_ROOTS_SNARKJS};
    if (parse(&o, argc, argv, msm_help))
        return 2;
    if (o.to > 30) {
        fprintf(stderr, "zkpipe bench msm: --to is above 30\n");
        return 2;
    }
    if (o.pre_c && (o.g2 || o.backend != BK_GPU)) {
        fprintf(stderr, "zkpipe bench msm: --precompute is for G1 on the GPU\n");
        return 2;
    }
    if ((o.chunks || o.acc_c || o.acc_mib) &&
        (o.g2 || o.pre_c || o.backend != BK_GPU || !o.chunks || (o.sparse && o.acc_mib))) {
        fprintf(stderr, "zkpipe bench msm: --chunks (and --acc-c, --acc-scratch-mib with it, "
                        "the last not with --sparse) is for G1 on the GPU, without "
                        "--precompute\n");
        return 2;
    }
    if (o.window && (o.pre_c || o.backend != BK_GPU || (o.chunks && o.sparse))) {
        fprintf(stderr, "zkpipe bench msm: --window is for the GPU, without --precompute, and "
                        "not with --chunks --sparse\n");
        return 2;
    }
    if ((o.affine_lg || o.ones_lg) && (o.backend != BK_GPU || o.g2)) {
        fprintf(stderr, "zkpipe bench msm: --g1-affine-from and --g1-ones-affine-from are for "
                        "G1 on the GPU\n");
        return 2;
    }
    if (o.entries_lg && o.backend != BK_GPU) {
        fprintf(stderr, "zkpipe bench msm: --affine-min-entries is for the GPU\n");
        return 2;
    }
    if (o.tail && !o.sparse) {
        fprintf(stderr, "zkpipe bench msm: --tail is a layout of --sparse's scalars\n");
        return 2;
    }
    zp__gpu_msm_opts mo;
    msm_opts_of(&o, &mo);
    if (o.chunks) {
        const zp__bench_chunks c = {.from = o.from, .to = o.to, .reps = o.reps,
                                    .warmup = o.warmup, .chunks = o.chunks, .acc_c = o.acc_c,
                                    .acc_mib = o.acc_mib, .tail = o.tail, .msm = mo};
        return o.sparse ? zp__bench_msm_chunks_sparse(&c) : zp__bench_msm_chunks(&c);
    }
    return o.backend == BK_GPU ? msm_gpu(&o, &mo) : msm_cpu(&o);
}
