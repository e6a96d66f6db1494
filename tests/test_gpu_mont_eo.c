/*
 * The two-chain Montgomery product of src/gpu/mont_eo.h (the device product
 * of fp_mul and fr_mul) and the double-width pieces of mont_eo_wide.h (exact
 * product, also by Karatsuba, and square, a b - c d, wide reduction, the
 * Fp2 product) run on the host
 * against the CPU fields, for Fp (12 words) and Fr (8 words): random
 * operands, and edge values that drive
 * the carries (0, 1, m - 1, m - 2, all-ones words below the top, all-ones
 * odd or even words only, single high words). Every product must match and
 * no instruction without a carry out may have dropped one
 * (zp__eo_dropped). No GPU needed.
 */
#include <string.h>

#include "check.h"
#include "gpu/mont_eo_wide.h"
#include "zkpipe.h"

#define COUNT 40000
#define EDGES 11

static void words_of(uint32_t *w, const uint64_t *l, int n)
{
    memcpy(w, l, 4 * (size_t)n);
}

/* Edge value k below the modulus m (n words). */
static void edge(uint32_t *w, const uint32_t *m, int n, int k)
{
    memset(w, 0, 4 * (size_t)n);
    switch (k) {
    case 0: break;
    case 1: w[0] = 1; break;
    case 2: memcpy(w, m, 4 * (size_t)n); w[0] -= 1; break;
    case 3: memcpy(w, m, 4 * (size_t)n); w[0] -= 2; break;
    case 4: /* every word all ones, the top one below m's */
        memset(w, 0xff, 4 * (size_t)n);
        w[n - 1] = m[n - 1] - 1;
        break;
    case 5: memcpy(w, m, 4 * (size_t)n); w[n - 1] -= 1; break;
    case 6: /* odd words only: the y chains at their largest */
        for (int j = 1; j < n; j += 2)
            w[j] = 0xffffffffu;
        w[n - 1] = m[n - 1] - 1;
        break;
    case 7: /* even words only */
        for (int j = 0; j < n; j += 2)
            w[j] = 0xffffffffu;
        break;
    case 8: w[n - 2] = 0xffffffffu; break;
    case 9: w[n - 1] = m[n - 1] - 1; break;
    default: w[n / 2] = 1; break;
    }
}

static void random_below(uint32_t *w, const uint32_t *m, int n)
{
    for (int j = 0; j < n; j += 2) {
        uint64_t r = check_rand64();
        w[j] = (uint32_t)r;
        w[j + 1] = (uint32_t)(r >> 32);
    }
    w[n - 1] %= m[n - 1]; /* top word below m's: w < m */
}

static void operand(uint32_t *w, const uint32_t *m, int n, int i, int salt)
{
    if (i < EDGES * EDGES)
        edge(w, m, n, salt ? i / EDGES : i % EDGES);
    else if (i < EDGES * EDGES * 4) /* an edge against random values */
        (i & 1) ? edge(w, m, n, (i / 2) % EDGES) : random_below(w, m, n);
    else
        random_below(w, m, n);
}

static void test_fp(void)
{
    uint32_t m[12];
    words_of(m, ZP_FP_MODULUS.l, 12);
    int bad = 0;
    zp__eo_dropped = 0;
    for (int i = 0; i < COUNT; i++) {
        uint32_t wa[12], wb[12], wr[12];
        zp_fp a, b, want, got;
        operand(wa, m, 12, i, 0);
        operand(wb, m, 12, i, 1);
        memcpy(a.l, wa, 48);
        memcpy(b.l, wb, 48);
        zp_fp_mul(&want, &a, &b);
        zp__eo_mul(wr, wa, wb, m, 0xfffcfffdu, 12, 0);
        memcpy(got.l, wr, 48);
        bad += memcmp(&want, &got, sizeof got) != 0;
        zp__eo_mul(wa, wa, wa, m, 0xfffcfffdu, 12, 0); /* aliased squaring */
        zp_fp_sqr(&want, &a);
        memcpy(got.l, wa, 48);
        bad += memcmp(&want, &got, sizeof got) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT((int)zp__eo_dropped, 0);
}

static void test_fr(void)
{
    uint32_t m[8];
    words_of(m, ZP_FR_MODULUS.l, 8);
    int bad = 0;
    zp__eo_dropped = 0;
    for (int i = 0; i < COUNT; i++) {
        uint32_t wa[8], wb[8], wr[8];
        zp_fr a, b, want, got;
        operand(wa, m, 8, i, 0);
        operand(wb, m, 8, i, 1);
        memcpy(a.l, wa, 32);
        memcpy(b.l, wb, 32);
        zp_fr_mul(&want, &a, &b);
        zp__eo_mul(wr, wa, wb, m, 0xffffffffu, 8, 1); /* low1 (ZP_FR_LOW1=1) */
        memcpy(got.l, wr, 32);
        bad += memcmp(&want, &got, sizeof got) != 0;
        uint32_t wg[8];
        zp__eo_mul(wg, wa, wb, m, 0xffffffffu, 8, 0); /* the generic form (the device default) */
        bad += memcmp(wg, wr, sizeof wr) != 0;
        zp__eo_mul(wb, wa, wb, m, 0xffffffffu, 8, 1); /* result over b */
        bad += memcmp(wb, wr, sizeof wr) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT((int)zp__eo_dropped, 0);
}

/* Schoolbook 2n-word product, the reference for zp__eo_prod. */
static void school(uint32_t *t, const uint32_t *a, const uint32_t *b, int n)
{
    memset(t, 0, 8 * (size_t)n);
    for (int i = 0; i < n; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < n; j++) {
            uint64_t s = (uint64_t)a[j] * b[i] + t[i + j] + carry;
            t[i + j] = (uint32_t)s;
            carry = s >> 32;
        }
        t[i + n] = (uint32_t)carry;
    }
}

static void test_wide_fp(void)
{
    uint32_t m[12], p2[24], want2[24];
    words_of(m, ZP_FP_MODULUS.l, 12);
    for (int i = 0; i < 24; i++)
        p2[i] = zp__eo_fp_p2(i);
    school(want2, m, m, 12);
    CHECK_MEM(p2, want2, sizeof p2);
    int bad = 0;
    zp__eo_dropped = 0;
    for (int i = 0; i < COUNT; i++) {
        uint32_t wa[12], wb[12], wc[12], wd[12], t[24], ref[24], r0[12], r1[12];
        operand(wa, m, 12, i, 0);
        operand(wb, m, 12, i, 1);
        operand(wc, m, 12, i + 7, 0);
        operand(wd, m, 12, i + 3, 1);
        zp__eo_prod(t, wa, wb, 12);
        school(ref, wa, wb, 12);
        bad += memcmp(t, ref, sizeof t) != 0;
        zp__eo_prod_kara(t, wa, wb, 12);
        bad += memcmp(t, ref, sizeof t) != 0;
        zp__eo_sqr_wide(t, wa, 12);
        school(ref, wa, wa, 12);
        bad += memcmp(t, ref, sizeof t) != 0;

        zp_fp a, b, want, got;
        memcpy(a.l, wa, 48);
        memcpy(b.l, wb, 48);
        zp__eo_redc_wide(r0, t, m, 0xfffcfffdu, 12, 0); /* the squaring */
        zp_fp_sqr(&want, &a);
        memcpy(got.l, r0, 48);
        bad += memcmp(&want, &got, sizeof got) != 0;
        zp__eo_prod(t, wa, wb, 12);
        zp__eo_redc_wide(r0, t, m, 0xfffcfffdu, 12, 0);
        zp_fp_mul(&want, &a, &b);
        memcpy(got.l, r0, 48);
        bad += memcmp(&want, &got, sizeof got) != 0;
        zp__eo_prod_kara(t, wa, wb, 12);
        zp__eo_redc_wide(r0, t, m, 0xfffcfffdu, 12, 0);
        bad += memcmp(&want, r0, 48) != 0;

        /* a b - c d in one reduction, either product */
        zp_fp c, d, cd;
        memcpy(c.l, wc, 48);
        memcpy(d.l, wd, 48);
        zp_fp_mul(&cd, &c, &d);
        zp_fp_sub(&want, &want, &cd);
        for (int kara = 0; kara < 2; kara++) {
            zp__eo_mulsub_wide(t, wa, wb, wc, wd, p2, 12, kara);
            zp__eo_redc_wide(r0, t, m, 0xfffcfffdu, 12, 0);
            bad += memcmp(&want, r0, 48) != 0;
        }

        zp_fp2 x, y, w2;
        memcpy(x.c0.l, wa, 48);
        memcpy(x.c1.l, wb, 48);
        memcpy(y.c0.l, wc, 48);
        memcpy(y.c1.l, i % 5 ? wd : wb, 48); /* a1 b1 > a0 b0 often */
        zp_fp2_mul(&w2, &x, &y);
        zp__eo_fp2_mul(r0, r1, wa, wb, wc, i % 5 ? wd : wb, m, p2, 0xfffcfffdu, 12);
        bad += memcmp(r0, w2.c0.l, 48) != 0 || memcmp(r1, w2.c1.l, 48) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT((int)zp__eo_dropped, 0);
}

/* The wide reduction for Fr too, generic and with the low1 shortcut. */
static void test_wide_fr(void)
{
    uint32_t m[8];
    words_of(m, ZP_FR_MODULUS.l, 8);
    int bad = 0;
    zp__eo_dropped = 0;
    for (int i = 0; i < COUNT; i++) {
        uint32_t wa[8], wb[8], t[16], r[8];
        operand(wa, m, 8, i, 0);
        operand(wb, m, 8, i, 1);
        zp_fr a, b, want;
        memcpy(a.l, wa, 32);
        memcpy(b.l, wb, 32);
        zp_fr_mul(&want, &a, &b);
        zp__eo_prod_kara(t, wa, wb, 8);
        uint32_t ref[16];
        school(ref, wa, wb, 8);
        bad += memcmp(t, ref, sizeof t) != 0;
        for (int low1 = 0; low1 < 2; low1++) {
            zp__eo_redc_wide(r, t, m, 0xffffffffu, 8, low1);
            bad += memcmp(r, want.l, 32) != 0;
        }
        zp__eo_sqr_wide(t, wa, 8);
        zp_fr_mul(&want, &a, &a);
        zp__eo_redc_wide(r, t, m, 0xffffffffu, 8, 1);
        bad += memcmp(r, want.l, 32) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT((int)zp__eo_dropped, 0);
}

/* The counter is live: a product whose y chain must overflow (operands far
 * above the modulus, outside the contract) is seen. */
static void test_dropped_counter_works(void)
{
    uint32_t m[8], big[8];
    words_of(m, ZP_FR_MODULUS.l, 8);
    memset(big, 0xff, sizeof big);
    zp__eo_dropped = 0;
    uint32_t r[8];
    zp__eo_mul(r, big, big, m, 0xffffffffu, 8, 0);
    CHECK(zp__eo_dropped > 0);
    zp__eo_dropped = 0;
}

int main(void)
{
    RUN(test_fp);
    RUN(test_fr);
    RUN(test_wide_fp);
    RUN(test_wide_fr);
    RUN(test_dropped_counter_works);
    return FINISH();
}
