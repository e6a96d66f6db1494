/* The CPU MSM (0/1 split, Pippenger, plain sums) against the sum of scalar
 * multiplications, in G1 and G2. */
#include <stdlib.h>

#include "check.h"
#include "cpu/cpu.h"
#include "cpu/msm_ifma.h"
#include "math/mont.h"
#include "zkpipe.h"

enum {
    KIND_ZERO,
    KIND_ONE,
    KIND_TWO,
    KIND_R_MINUS_1,
    KIND_RANDOM,
    KIND_SMALL,     /* below 2^16: only the low windows are nonzero */
    KIND_HIGH,      /* r - 1 - small: long runs of borrowed digits */
    KIND_POW2,      /* 2^k: a digit at each window boundary */
    KIND_ALL_BITS,  /* 2^255 - 1, above r: the API sums it exactly anyway */
    KIND_ONE_HIGH,  /* 1 + 2^(64k): low limb 1 but not one */
    KIND_COUNT,
    KIND_MIXED = KIND_COUNT, /* each element of a random kind */
};

/* Plain (standard form) scalars, as the MSM takes them. */
static void scalar_kind(zp_fr *s, int kind)
{
    memset(s, 0, sizeof *s);
    switch (kind) {
    case KIND_ZERO: break;
    case KIND_ONE: s->l[0] = 1; break;
    case KIND_TWO: s->l[0] = 2; break;
    case KIND_R_MINUS_1: *s = ZP_FR_MODULUS; s->l[0] -= 1; break;
    case KIND_RANDOM:
        for (int i = 0; i < 4; i++)
            s->l[i] = check_rand64();
        s->l[3] &= 0x3fffffffffffffffULL; /* below r */
        break;
    case KIND_SMALL: s->l[0] = check_rand64() & 0xffff; break;
    case KIND_HIGH:
        *s = ZP_FR_MODULUS;
        s->l[0] -= 1 + (check_rand64() & 0xffff);
        break;
    case KIND_POW2: {
        unsigned k = (unsigned)(check_rand64() % 255);
        s->l[k / 64] = (uint64_t)1 << (k % 64);
        break;
    }
    case KIND_ALL_BITS:
        for (int i = 0; i < 4; i++)
            s->l[i] = ~0ULL;
        s->l[3] >>= 1;
        break;
    case KIND_ONE_HIGH:
        s->l[0] = 1;
        s->l[1 + check_rand64() % 3] = 1;
        break;
    default: scalar_kind(s, (int)(check_rand64() % KIND_COUNT)); break;
    }
}

static zp_fr *scalars(size_t n, int kind)
{
    zp_fr *s = malloc((n ? n : 1) * sizeof *s);
    for (size_t i = 0; i < n; i++)
        scalar_kind(&s[i], kind);
    return s;
}

/* out = r - s for 0 < s < r, plain integers. */
static void scalar_neg(zp_fr *out, const zp_fr *s)
{
    zp__sub_n(out->l, ZP_FR_MODULUS.l, s->l, 4);
}

#define G(op) zp_g1_##op
#define T(name) name##_g1
#define AFF zp_g1_affine
#define JAC zp_g1_jac
#define MSM zp__cpu_msm_g1
#define PIP zp__cpu_msm_g1_pippenger
#define PIPM zp__cpu_msm_g1_pippenger_mode
#define SUM zp__cpu_sum_g1
#define REF zp__msm_g1_ref
#define SMALL 0
#include "test_msm_impl.h"
#undef G
#undef T
#undef AFF
#undef JAC
#undef MSM
#undef PIP
#undef PIPM
#undef SUM
#undef REF
#undef SMALL

#define G(op) zp_g2_##op
#define T(name) name##_g2
#define AFF zp_g2_affine
#define JAC zp_g2_jac
#define MSM zp__cpu_msm_g2
#define PIP zp__cpu_msm_g2_pippenger
#define PIPM zp__cpu_msm_g2_pippenger_mode
#define SUM zp__cpu_sum_g2
#define REF zp__msm_g2_ref
#define SMALL 1
#include "test_msm_impl.h"

/* The reference itself: sum of scalar multiples equals a known multiple
 * when all points are multiples of G: sum s_i k_i G = (sum s_i k_i) G. */
static void test_ref_linear(void)
{
    zp_g1_affine g, p[3];
    zp_g1_jac gj, t, want, got;
    zp_g1_generator(&g);
    zp_g1_jac_from_affine(&gj, &g);
    uint64_t k[3] = {3, 5, 7};
    for (int i = 0; i < 3; i++) {
        zp_g1_jac_mul_vartime(&t, &gj, &k[i], 1);
        zp_g1_jac_to_affine(&p[i], &t);
    }
    zp_fr s[3] = {{{2}}, {{10}}, {{1}}};
    uint64_t total = 2 * 3 + 10 * 5 + 1 * 7;
    zp_g1_jac_mul_vartime(&want, &gj, &total, 1);
    zp__msm_g1_ref(&got, p, s, 3);
    CHECK(zp_g1_jac_eq(&got, &want));
    CHECK_EQ_INT(zp__cpu_msm_g1(&got, p, s, 3, 2), ZP_OK);
    CHECK(zp_g1_jac_eq(&got, &want));
}

/*
 * The eight-lane IFMA batch flush (msm_ifma.c), on R' copies of the points
 * (with and without an index list) and on library-form ones, against the
 * scalar flush and the reference, on batches of 16 and more additions: distinct points,
 * points repeated from a few (doublings in the batches), and each point
 * next to its negation (cancellations). Run only on a CPU with IFMA.
 */
#define IFMA_FLUSH_TEST(G, AFF, JAC, N0, N1, N2)                                          \
    static void test_ifma_flush_##G(void)                                                  \
    {                                                                                      \
        static const size_t sizes[] = {N0, N1, N2};                                        \
        static const size_t caps[] = {16, 64, 256};                                        \
        bool saved = zp__msm_ifma;                                                         \
        size_t saved_max = zp__msm_raw_max;                                                \
        for (size_t t = 0; t < 3; t++) {                                                   \
            size_t n = sizes[t];                                                           \
            AFF *base = points_##G(n, 0), *p = malloc(n * sizeof *p);                      \
            zp_fr *s = scalars(n, KIND_RANDOM);                                            \
            uint32_t *rev = malloc(n * sizeof *rev);                                       \
            for (size_t i = 0; i < n; i++)                                                 \
                rev[i] = (uint32_t)(n - 1 - i);                                            \
            for (int kind = 0; kind < 3; kind++) {                                         \
                for (size_t i = 0; i < n; i++) {                                           \
                    p[i] = kind == 1 ? base[i % 17] : base[i];                             \
                    if (kind == 1 && i % 5 == 0)                                           \
                        s[i] = s[i % 17]; /* the same pair again: a doubling */            \
                    if (kind == 2 && i % 2) {                                              \
                        zp_##G##_affine_neg(&p[i], &p[i - 1]);                             \
                        s[i] = s[i - 1];                                                   \
                    }                                                                      \
                }                                                                          \
                JAC want, got;                                                             \
                zp__msm_##G##_ref(&want, p, s, n);                                         \
                /* lanes on R' copies, scalar flush, lanes on library form, R' copies  \
                 * through an index list (every pair, reversed) */                         \
                for (int v = 0; v < 4; v++) {                                              \
                    zp__msm_ifma = v != 1;                                                 \
                    zp__msm_raw_max = v == 2 ? 0 : saved_max;                              \
                    CHECK_EQ_INT(zp__cpu_msm_##G##_pippenger_mode(&got, p, s,              \
                                                                  v == 3 ? rev : NULL, n,  \
                                                                  10, ZP__MSM_AFFINE,      \
                                                                  caps[t], 1 + v % 2),     \
                                 ZP_OK);                                                   \
                    CHECK(zp_##G##_jac_eq(&got, &want));                                   \
                }                                                                          \
            }                                                                              \
            free(base);                                                                    \
            free(p);                                                                       \
            free(s);                                                                       \
            free(rev);                                                                     \
        }                                                                                  \
        zp__msm_ifma = saved;                                                              \
        zp__msm_raw_max = saved_max;                                                       \
    }
IFMA_FLUSH_TEST(g1, zp_g1_affine, zp_g1_jac, 300, 3000, 20000)
IFMA_FLUSH_TEST(g2, zp_g2_affine, zp_g2_jac, 200, 1000, 4000)

static void test_window_choice(void)
{
    unsigned prev = 0;
    for (size_t n = 1; n < ((size_t)1 << 32); n *= 4) {
        unsigned c = zp__msm_window(n);
        CHECK(c >= 1 && c <= 16);
        CHECK(c >= prev); /* more points never call for smaller windows */
        prev = c;
    }
    CHECK_EQ_INT(zp__msm_window((size_t)1 << 30), 16);
}

int main(void)
{
    RUN(test_ref_linear);
    RUN(test_window_choice);
    RUN(test_sizes_g1);
    RUN(test_kinds_g1);
    RUN(test_sparse_g1);
    RUN(test_repeated_g1);
    RUN(test_infinity_g1);
    RUN(test_windows_g1);
    RUN(test_pieces_g1);
    RUN(test_threads_g1);
    RUN(test_affine_sizes_g1);
    RUN(test_affine_collisions_g1);
    RUN(test_affine_equal_scalars_g1);
    if (zp__ifma_available())
        RUN(test_ifma_flush_g1);
    else
        printf("skip test_ifma_flush_g1 (no AVX-512 IFMA; not counted)\n");
    RUN(test_sizes_g2);
    RUN(test_kinds_g2);
    RUN(test_sparse_g2);
    RUN(test_repeated_g2);
    RUN(test_infinity_g2);
    RUN(test_windows_g2);
    RUN(test_pieces_g2);
    RUN(test_threads_g2);
    RUN(test_affine_sizes_g2);
    RUN(test_affine_collisions_g2);
    RUN(test_affine_equal_scalars_g2);
    if (zp__ifma_available())
        RUN(test_ifma_flush_g2);
    else
        printf("skip test_ifma_flush_g2 (no AVX-512 IFMA; not counted)\n");
    return FINISH();
}
