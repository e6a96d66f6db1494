/* The endomorphism split of the CPU MSM (src/cpu/msm_endo.c): the scalar
 * splits recompose exactly, and the split sums equal the reference sum of
 * scalar multiplications, with and without an index list, on random and
 * edge scalars (0, 1, powers of |x| and their neighbours, r - 1, 2^256 - 1). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu/cpu.h"
#include "zkpipe.h"

#define X_ABS 0xd201000000010000ULL

/* a = a * m + c over 5 limbs; returns the carry out (expected 0). */
static uint64_t mul_add(uint64_t a[5], uint64_t m, uint64_t c)
{
    unsigned __int128 carry = c;
    for (int i = 0; i < 5; i++) {
        unsigned __int128 t = (unsigned __int128)a[i] * m + carry;
        a[i] = (uint64_t)t;
        carry = t >> 64;
    }
    return (uint64_t)carry;
}

static bool below_x(const zp_fr *d) { return d->l[0] < X_ABS && !d->l[1] && !d->l[2] && !d->l[3]; }

/* Edge scalars: |x|^j + delta for j = 0..4 (|x|^4 < 2^255), delta in
 * {-1, 0, 1}, then 0, r - 1 and 2^256 - 1: 18 in all. */
static size_t edge_scalars(zp_fr *out)
{
    size_t n = 0;
    uint64_t p[5] = {1, 0, 0, 0, 0};
    for (int j = 0; j <= 4; j++) {
        for (int delta = -1; delta <= 1; delta++) {
            zp_fr s = {{p[0], p[1], p[2], p[3]}};
            if (delta < 0) {
                for (int i = 0; i < 4 && s.l[i]-- == 0; i++)
                    ;
            } else if (delta > 0) {
                for (int i = 0; i < 4 && ++s.l[i] == 0; i++)
                    ;
            }
            out[n++] = s;
        }
        mul_add(p, X_ABS, 0);
    }
    memset(&out[n++], 0, sizeof(zp_fr));
    out[n] = ZP_FR_MODULUS;
    out[n++].l[0] -= 1;
    memset(&out[n++], 0xff, sizeof(zp_fr));
    return n;
}

static void rand_scalar(zp_fr *s, bool below_r)
{
    for (int i = 0; i < 4; i++)
        s->l[i] = check_rand64();
    if (below_r)
        s->l[3] &= 0x3fffffffffffffffULL;
}

static void check_split(const zp_fr *k)
{
    zp_fr d[4];
    uint64_t acc[5] = {0};
    zp__msm_split_x4(d, k);
    CHECK(below_x(&d[0]) && below_x(&d[1]) && below_x(&d[2]));
    memcpy(acc, d[3].l, 32);
    for (int j = 2; j >= 0; j--)
        CHECK(mul_add(acc, X_ABS, d[j].l[0]) == 0);
    CHECK(acc[4] == 0 && memcmp(acc, k->l, 32) == 0);

    zp_fr e[2];
    zp__msm_split_x2(e, k);
    /* e0 < x^2 = |x|^2 */
    uint64_t x2[5] = {1, 0, 0, 0, 0};
    mul_add(x2, X_ABS, 0);
    mul_add(x2, X_ABS, 0);
    CHECK(!e[0].l[2] && !e[0].l[3] &&
          (e[0].l[1] < x2[1] || (e[0].l[1] == x2[1] && e[0].l[0] < x2[0])));
    memcpy(acc, e[1].l, 32);
    acc[4] = 0;
    CHECK(mul_add(acc, X_ABS, 0) == 0);
    CHECK(mul_add(acc, X_ABS, 0) == 0);
    unsigned __int128 c = 0;
    for (int i = 0; i < 5; i++) {
        c += (unsigned __int128)acc[i] + (i < 2 ? e[0].l[i] : 0);
        acc[i] = (uint64_t)c;
        c >>= 64;
    }
    CHECK(acc[4] == 0 && memcmp(acc, k->l, 32) == 0);
}

static void test_split(void)
{
    zp_fr edge[24];
    size_t ne = edge_scalars(edge);
    for (size_t i = 0; i < ne; i++)
        check_split(&edge[i]);
    for (int i = 0; i < 2000; i++) {
        zp_fr k;
        rand_scalar(&k, i & 1);
        check_split(&k);
    }
}

/* n distinct subgroup points [a + i b]G with every 7th at infinity. */
#define POINTS(G, AFF, JAC)                                                  \
    static AFF *points_##G(size_t n)                                         \
    {                                                                        \
        AFF g, *out = malloc(n * sizeof *out);                               \
        JAC gj, acc, step;                                                   \
        uint64_t a[2] = {check_rand64(), check_rand64()}, b = check_rand64(); \
        zp_##G##_generator(&g);                                              \
        zp_##G##_jac_from_affine(&gj, &g);                                   \
        zp_##G##_jac_mul_vartime(&acc, &gj, a, 2);                           \
        zp_##G##_jac_mul_vartime(&step, &gj, &b, 1);                         \
        for (size_t i = 0; i < n; i++) {                                     \
            zp_##G##_jac_to_affine(&out[i], &acc);                           \
            if (i % 7 == 3)                                                  \
                memset(&out[i], 0, sizeof out[i]);                           \
            zp_##G##_jac_add(&acc, &acc, &step);                             \
        }                                                                    \
        return out;                                                          \
    }
POINTS(g1, zp_g1_affine, zp_g1_jac)
POINTS(g2, zp_g2_affine, zp_g2_jac)

/* Scalars: the edge list first, then random (half of them above r). */
static zp_fr *scalars(size_t n)
{
    zp_fr *s = malloc(n * sizeof *s), edge[24];
    size_t ne = edge_scalars(edge);
    for (size_t i = 0; i < n; i++) {
        if (i < ne)
            s[i] = edge[i];
        else
            rand_scalar(&s[i], i & 1);
    }
    return s;
}

#define TEST_ENDO(G, AFF, JAC, N)                                            \
    static void test_endo_##G(void)                                          \
    {                                                                        \
        size_t n = N;                                                        \
        AFF *p = points_##G(n);                                              \
        zp_fr *s = scalars(n);                                               \
        JAC want, got;                                                       \
        zp__msm_##G##_ref(&want, p, s, n);                                   \
        for (int t = 1; t <= 2; t++) {                                       \
            CHECK_EQ_INT(zp__cpu_msm_##G##_endo(&got, p, s, NULL, n, t), ZP_OK); \
            CHECK(zp_##G##_jac_eq(&got, &want));                             \
        }                                                                    \
        /* An index list: every third pair, against the reference. */      \
        uint32_t idx[N];                                                     \
        AFF sp[N];                                                           \
        zp_fr ss[N];                                                         \
        size_t m = 0;                                                        \
        for (size_t i = 0; i < n; i += 3, m++) {                             \
            idx[m] = (uint32_t)i;                                            \
            sp[m] = p[i];                                                    \
            ss[m] = s[i];                                                    \
        }                                                                    \
        zp__msm_##G##_ref(&want, sp, ss, m);                                 \
        CHECK_EQ_INT(zp__cpu_msm_##G##_endo(&got, p, s, idx, m, 2), ZP_OK);  \
        CHECK(zp_##G##_jac_eq(&got, &want));                                 \
        /* One pair at a time: each edge scalar alone. */                    \
        for (size_t i = 0; i < 20; i++) {                                    \
            zp__msm_##G##_ref(&want, &p[i], &s[i], 1);                       \
            CHECK_EQ_INT(zp__cpu_msm_##G##_endo(&got, &p[i], &s[i], NULL, 1, 1), ZP_OK); \
            CHECK(zp_##G##_jac_eq(&got, &want));                             \
        }                                                                    \
        CHECK_EQ_INT(zp__cpu_msm_##G##_endo(&got, p, s, NULL, 0, 2), ZP_OK); \
        CHECK(zp_##G##_jac_is_inf(&got));                                    \
        free(p);                                                             \
        free(s);                                                             \
    }
TEST_ENDO(g1, zp_g1_affine, zp_g1_jac, 120)
TEST_ENDO(g2, zp_g2_affine, zp_g2_jac, 60)

int main(void)
{
    RUN(test_split);
    RUN(test_endo_g1);
    RUN(test_endo_g2);
    return FINISH();
}
