/*
 * The two-chain Montgomery product of src/gpu/mont_eo.h (the device's
 * fp_mul and fr_mul) and the exact square and wide reduction of
 * mont_eo_wide.h (the device's fp_sqr) run on the host against the CPU
 * fields, for Fp (12 words) and Fr (8 words): random operands, and edge
 * values that drive the carries (0, 1, m - 1, m - 2, all-ones words below
 * the top, all-ones odd or even words only, single high words). Every
 * product must match and no instruction without a carry out may have
 * dropped one (zp__eo_dropped). No GPU needed.
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
        zp__eo_mul(wr, wa, wb, m, 0xfffcfffdu, 12);
        memcpy(got.l, wr, 48);
        bad += memcmp(&want, &got, sizeof got) != 0;
        zp__eo_mul(wa, wa, wa, m, 0xfffcfffdu, 12); /* aliased squaring */
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
        zp__eo_mul(wr, wa, wb, m, 0xffffffffu, 8);
        memcpy(got.l, wr, 32);
        bad += memcmp(&want, &got, sizeof got) != 0;
        zp__eo_mul(wb, wa, wb, m, 0xffffffffu, 8); /* result over b */
        bad += memcmp(wb, wr, sizeof wr) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT((int)zp__eo_dropped, 0);
}

/* Schoolbook 2n-word product, the reference for the exact square. */
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

/* The Fp square (field.cuh's fp_sqr): the exact square against the
 * schoolbook product, then its wide reduction against the CPU. */
static void test_sqr_fp(void)
{
    uint32_t m[12];
    words_of(m, ZP_FP_MODULUS.l, 12);
    int bad = 0;
    zp__eo_dropped = 0;
    for (int i = 0; i < COUNT; i++) {
        uint32_t wa[12], t[24], ref[24], r[12];
        operand(wa, m, 12, i, 0);
        zp__eo_sqr_wide(t, wa, 12);
        school(ref, wa, wa, 12);
        bad += memcmp(t, ref, sizeof t) != 0;
        zp_fp a, want;
        memcpy(a.l, wa, 48);
        zp__eo_redc_wide(r, t, m, 0xfffcfffdu, 12);
        zp_fp_sqr(&want, &a);
        bad += memcmp(want.l, r, 48) != 0;
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
    zp__eo_mul(r, big, big, m, 0xffffffffu, 8);
    CHECK(zp__eo_dropped > 0);
    zp__eo_dropped = 0;
}

int main(void)
{
    RUN(test_fp);
    RUN(test_fr);
    RUN(test_sqr_fp);
    RUN(test_dropped_counter_works);
    return FINISH();
}
