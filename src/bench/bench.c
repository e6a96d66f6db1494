/* zkpipe bench: math primitives here; msm, ntt, prove, verify and batch elsewhere. */
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "math/fp_ifma.h"
#include "math/fr_ifma.h"
#include "tool/cmdline.h"
#include "tool/timing.h"
#include "zkpipe.h"

static const char bench_help[] =
    "usage: zkpipe bench <what> [options]\n"
    "\n"
    "  math    median ns of field, curve and pairing primitives (CPU)\n"
    "  ntt     Fr NTT medians (GPU when present, else CPU) against the floor\n"
    "  msm     G1/G2 MSM medians (GPU when present, else CPU) against the floor\n"
    "  field   product rates of the GPU field code and the floors they imply\n"
    "  batch   jobs through the proving engine: throughput, stages, busy %\n"
    "  prove   whole proofs of a synthetic circuit, median time of every stage\n"
    "  verify  one proof's verification: plain, prepared key, preparing (CPU)\n"
    "  corun   two kinds of prover work sharing one GPU (rates alone and together)\n"
    "  copy    host-to-device and device-to-host copy bandwidth (GPU)\n"
    "\n"
    "Run 'zkpipe bench <what> --help' for the options of each.\n";

/* Inputs for the timed loops: fixed pseudo-random values, so runs compare. */
struct math_ctx {
    zp__fp52x8 va, vb; /* eight lanes for the IFMA product */
    zp__fr52x8 ra8, rb8; /* the same for Fr */
    zp_fp f8[8];       /* eight independent scalar chains */
    unsigned sink;     /* keeps results alive */
    zp_fp fa, fb;
    zp_fr ra, rb;
    zp_g1_jac j1, j2;
    zp_g1_affine a1;
    zp_g2_jac k1, k2;
    zp_g2_affine a2;
    uint64_t scalar[4];
};

static void fp_mul_op(void *c, size_t n)
{
    struct math_ctx *m = c;
    for (size_t i = 0; i < n; i++)
        zp_fp_mul(&m->fa, &m->fa, &m->fb);
}

/* Eight independent products per step: throughput, not latency. */
static void fp_mul_x8_op(void *c, size_t n)
{
    struct math_ctx *m = c;
    for (size_t i = 0; i < n; i += 8)
        for (int k = 0; k < 8; k++)
            zp_fp_mul(&m->f8[k], &m->f8[k], &m->fb);
}

static void fp_mul_ifma8_op(void *c, size_t n)
{
    struct math_ctx *m = c;
    for (size_t i = 0; i < n; i += 8)
        zp__fp52x8_mul(&m->va, &m->va, &m->vb);
}

static void g1_subgroup_op(void *c, size_t n)
{
    struct math_ctx *m = c;
    for (size_t i = 0; i < n; i++)
        m->sink += zp_g1_affine_in_subgroup(&m->a1);
}

/* Per point, eight at a time. */
static void g1_subgroup_x8_op(void *c, size_t n)
{
    struct math_ctx *m = c;
    const zp_g1_affine *p[8] = {&m->a1, &m->a1, &m->a1, &m->a1,
                                &m->a1, &m->a1, &m->a1, &m->a1};
    bool ok[8];
    for (size_t i = 0; i < n; i += 8) {
        zp__g1_in_subgroup_x8(p, 8, ok);
        m->sink += ok[0];
    }
}

/* Per product, eight at a time (the NTT's lane product, fr_ifma.h). */
static void fr_mul_ifma8_op(void *c, size_t n)
{
    struct math_ctx *m = c;
    for (size_t i = 0; i < n; i += 8)
        zp__fr52x8_mul(&m->ra8, &m->ra8, &m->rb8);
}

static void fr_mul_op(void *c, size_t n)
{
    struct math_ctx *m = c;
    for (size_t i = 0; i < n; i++)
        zp_fr_mul(&m->ra, &m->ra, &m->rb);
}

static void fp_inv_op(void *c, size_t n)
{
    struct math_ctx *m = c;
    for (size_t i = 0; i < n; i++) {
        zp_fp_inv(&m->fa, &m->fa);
        zp_fp_add(&m->fa, &m->fa, &m->fb); /* never reaches zero in practice */
    }
}

static void g1_add_op(void *c, size_t n)
{
    struct math_ctx *m = c;
    for (size_t i = 0; i < n; i++)
        zp_g1_jac_add(&m->j1, &m->j1, &m->j2);
}

static void g1_madd_op(void *c, size_t n)
{
    struct math_ctx *m = c;
    for (size_t i = 0; i < n; i++)
        zp_g1_jac_add_affine(&m->j1, &m->j1, &m->a1);
}

static void g2_add_op(void *c, size_t n)
{
    struct math_ctx *m = c;
    for (size_t i = 0; i < n; i++)
        zp_g2_jac_add(&m->k1, &m->k1, &m->k2);
}

static void g1_mul_op(void *c, size_t n)
{
    struct math_ctx *m = c;
    for (size_t i = 0; i < n; i++)
        zp_g1_jac_mul_vartime(&m->j1, &m->j1, m->scalar, 4);
}

static void pairing_op(void *c, size_t n)
{
    struct math_ctx *m = c;
    zp_fp12 e;
    for (size_t i = 0; i < n; i++)
        zp_pairing(&e, &m->a1, &m->a2);
}

static void math_setup(struct math_ctx *m)
{
    zp_fp_from_u64(&m->fa, 0x1234567);
    zp_fp_from_u64(&m->fb, 0x89abcdef);
    zp_fp_inv(&m->fb, &m->fb); /* a full-width value */
    for (int k = 0; k < 8; k++)
        zp_fp_from_u64(&m->f8[k], 0x1234567 + (uint64_t)k);
    zp__fp52x8_from(&m->va, m->f8);
    zp_fp fb8[8];
    for (int k = 0; k < 8; k++)
        fb8[k] = m->fb;
    zp__fp52x8_from(&m->vb, fb8);
    zp_fr_from_u64(&m->ra, 0x1234567);
    zp_fr_from_u64(&m->rb, 0x89abcdef);
    zp_fr_inv(&m->rb, &m->rb);
    for (int k = 0; k < 8; k++) {
        zp__fr52x8_set_lane(&m->ra8, k, &m->ra);
        zp__fr52x8_set_lane(&m->rb8, k, &m->rb);
    }
    static const uint64_t k1[4] = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL,
                                   0xa4093822299f31d0ULL, 0x082efa98ec4e6c89ULL};
    static const uint64_t k2[1] = {0x452821e638d01377ULL};
    memcpy(m->scalar, k1, sizeof k1);
    zp_g1_affine g;
    zp_g1_generator(&g);
    zp_g1_jac_from_affine(&m->j1, &g);
    zp_g1_jac_mul_vartime(&m->j1, &m->j1, k1, 4);
    zp_g1_jac_from_affine(&m->j2, &g);
    zp_g1_jac_mul_vartime(&m->j2, &m->j2, k2, 1);
    zp_g1_jac_to_affine(&m->a1, &m->j2);
    zp_g2_affine h;
    zp_g2_generator(&h);
    zp_g2_jac_from_affine(&m->k1, &h);
    zp_g2_jac_mul_vartime(&m->k1, &m->k1, k1, 4);
    zp_g2_jac_from_affine(&m->k2, &h);
    zp_g2_jac_mul_vartime(&m->k2, &m->k2, k2, 1);
    zp_g2_jac_to_affine(&m->a2, &m->k2);
}

static int bench_math(int argc, char **argv)
{
    static const char help[] =
        "usage: zkpipe bench math [--reps N]\n"
        "Prints the median ns per operation over N timed repetitions (default 9)\n"
        "of a batch sized to run about 20 ms, after one warm-up batch.\n";
    if (zp__cli_wants_help(argc, argv, help))
        return 0;
    int reps = 9;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            if (zp__parse_int(argv[++i], 1, 1000, &reps) != 0) {
                fprintf(stderr, "zkpipe bench math: --reps wants 1..1000\n");
                return 2;
            }
        } else {
            fprintf(stderr, "zkpipe bench math: unknown option '%s'\n%s", argv[i], help);
            return 2;
        }
    }
    struct math_ctx m;
    math_setup(&m);
    static const struct {
        const char *name;
        void (*op)(void *, size_t);
    } ops[] = {
        {"fp_mul", fp_mul_op},         {"fp_mul_x8", fp_mul_x8_op},
        {"fp_mul_ifma8", fp_mul_ifma8_op}, {"fr_mul", fr_mul_op},
        {"fr_mul_ifma8", fr_mul_ifma8_op},
        {"g1_subgroup", g1_subgroup_op}, {"g1_subgroup_x8", g1_subgroup_x8_op},
        {"fp_inv", fp_inv_op},         {"g1_jac_add", g1_add_op},
        {"g1_mixed_add", g1_madd_op},  {"g2_jac_add", g2_add_op},
        {"g1_scalar_mul", g1_mul_op},  {"pairing", pairing_op},
    };
    printf("%-16s %14s\n", "operation", "median_ns");
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if ((ops[i].op == fp_mul_ifma8_op || ops[i].op == fr_mul_ifma8_op ||
             ops[i].op == g1_subgroup_x8_op) &&
            !zp__ifma_available()) {
            printf("%-16s %14s\n", ops[i].name, "n/a (no IFMA)");
            continue;
        }
        double ns = zp__bench_median_ns(ops[i].op, &m, reps);
        printf("%-16s %14.1f\n", ops[i].name, ns);
    }
    return 0;
}

int zp__cmd_bench(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(bench_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "math"))
        return bench_math(argc - 1, argv + 1);
    if (!strcmp(argv[1], "ntt"))
        return zp__bench_ntt(argc - 1, argv + 1);
    if (!strcmp(argv[1], "msm"))
        return zp__bench_msm(argc - 1, argv + 1);
    if (!strcmp(argv[1], "field"))
        return zp__bench_field(argc - 1, argv + 1);
    if (!strcmp(argv[1], "batch"))
        return zp__bench_batch(argc - 1, argv + 1);
    if (!strcmp(argv[1], "prove"))
        return zp__bench_prove(argc - 1, argv + 1);
    if (!strcmp(argv[1], "verify"))
        return zp__bench_verify(argc - 1, argv + 1);
    if (!strcmp(argv[1], "corun"))
        return zp__bench_corun(argc - 1, argv + 1);
    if (!strcmp(argv[1], "copy"))
        return zp__bench_copy(argc - 1, argv + 1);
    fprintf(stderr, "zkpipe bench: unknown benchmark '%s'\n%s", argv[1], bench_help);
    return 2;
}
