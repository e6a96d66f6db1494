/*
 * Shoup's product by a fixed factor (src/gpu/fr_shoup.h, the GPU NTT's
 * stage twiddles) run on the host against the CPU field: the companion
 * w' = floor(w 2^256 / m) checked exactly, then a w mod m for edge and
 * random a (below m, in [m, 2m) and at the top of the contract,
 * 2^256 - 2^229) and w (edges, random, the 512 roots w_1024^i of both
 * conventions and directions), as the NTT forms it: the lazy product (in
 * [0, 2m)) and the reduction a pass applies as it stores. Also the lazy
 * sum and difference of the stages. No carry may drop (zp__eo_dropped).
 * No GPU needed.
 */
#include <string.h>

#include "check.h"
#include "gpu/fr_shoup.h"
#include "zkpipe.h"

#define COUNT 60000

static uint32_t M[8], NM[8];

static void random_below_m(uint32_t *w)
{
    for (int j = 0; j < 8; j += 2) {
        uint64_t r = check_rand64();
        w[j] = (uint32_t)r;
        w[j + 1] = (uint32_t)(r >> 32);
    }
    w[7] %= M[7];
}

/* t = a + b (8 words), returns the carry. */
static uint32_t add8(uint32_t *t, const uint32_t *a, const uint32_t *b)
{
    uint64_t c = 0;
    for (int k = 0; k < 8; k++) {
        c += (uint64_t)a[k] + b[k];
        t[k] = (uint32_t)c;
        c >>= 32;
    }
    return (uint32_t)c;
}

/* x mod m for x < 2^256 (at most two subtractions: 2^256 < 3m). */
static void reduce(uint32_t *out, const uint32_t *x)
{
    memcpy(out, x, 32);
    for (int n = 0; n < 2; n++) {
        int ge = 1;
        for (int k = 7; k >= 0; k--)
            if (out[k] != M[k]) {
                ge = out[k] > M[k];
                break;
            }
        if (!ge)
            return;
        uint32_t t[8];
        add8(t, out, NM);
        memcpy(out, t, 32);
    }
}

/* The reference: a w mod m from the CPU's Montgomery product (a reduced
 * first), as plain words. */
static void reference(uint32_t *out, const uint32_t *a, const uint32_t *w)
{
    uint32_t ar[8];
    reduce(ar, a);
    zp_fr x, y, p;
    memcpy(x.l, ar, 32);
    memcpy(y.l, w, 32);
    zp_fr_mul(&p, &x, &y); /* a w / R */
    zp_fr_to_mont(&p, &p);  /* a w */
    memcpy(out, p.l, 32);
}

/* a: edge k, or random below m, or m plus random (lazy), or the top. */
static void operand_a(uint32_t *a, int i)
{
    memset(a, 0, 32);
    switch (i % 9) {
    case 0: a[0] = (uint32_t)(i / 9 % 3); break; /* 0, 1, 2 */
    case 1: memcpy(a, M, 32); a[0] -= 1 + (uint32_t)(i / 9 % 2); break; /* m - 1, m - 2 */
    case 2: memcpy(a, M, 32); break; /* m (lazy) */
    case 3: { /* 2m - 1 */
        uint32_t t[8];
        add8(t, M, M);
        memcpy(a, t, 32);
        a[0] -= 1;
        break;
    }
    case 4: a[7] = 0xffffffe0u; break; /* 2^256 - 2^229: the top of the contract */
    case 5: { /* m + random below m */
        uint32_t r[8];
        random_below_m(r);
        add8(a, M, r);
        break;
    }
    default: random_below_m(a); break;
    }
}

/* w: edges, then random. */
static void operand_w(uint32_t *w, int i)
{
    memset(w, 0, 32);
    switch (i % 7) {
    case 0: w[0] = (uint32_t)(i / 7 % 3); break;
    case 1: memcpy(w, M, 32); w[0] -= 1; break;
    case 2: w[7] = M[7] - 1; memset(w, 0xff, 28); break;
    default: random_below_m(w); break;
    }
}

/* w 2^256 - w' m in [0, m): schoolbook 512-bit w' m. */
static int companion_ok(const uint32_t *w, const uint32_t *wp)
{
    uint32_t pm[16] = {0};
    for (int i = 0; i < 8; i++) {
        uint64_t c = 0;
        for (int j = 0; j < 8; j++) {
            c += (uint64_t)wp[i] * M[j] + pm[i + j];
            pm[i + j] = (uint32_t)c;
            c >>= 32;
        }
        pm[i + 8] = (uint32_t)c;
    }
    /* d = w 2^256 - pm: low words 0 - pm[0..7], high w - pm[8..15]. */
    uint32_t d[16];
    uint64_t br = 0;
    for (int k = 0; k < 16; k++) {
        uint64_t s = (uint64_t)(k < 8 ? 0 : w[k - 8]) - pm[k] - br;
        d[k] = (uint32_t)s;
        br = s >> 63;
    }
    if (br) /* w' m > w 2^256 */
        return 0;
    for (int k = 8; k < 16; k++) /* d < m <= 2^256 means d's top half is zero */
        if (d[k])
            return 0;
    for (int k = 7; k >= 0; k--)
        if (d[k] != M[k])
            return d[k] < M[k];
    return 0;
}

/* a w mod m reduced below m as the NTT forms it: the lazy product, then
 * the reduction of a pass's store (ntt_shoup.cuh's st_norm). */
static void shoup_reduced(uint32_t *r, const uint32_t *a, const uint32_t *w, const uint32_t *wp)
{
    uint32_t t[8];
    zp__shoup_mul_lazy(t, a, w, wp, NM);
    zp__eo_sub_p_once(r, t, M, 8);
}

static int check_one(const uint32_t *a, const uint32_t *w)
{
    uint32_t wp[8], want[8], got[8];
    zp__shoup_companion(wp, w, M);
    if (!companion_ok(w, wp))
        return 1;
    reference(want, a, w);
    shoup_reduced(got, a, w, wp);
    int bad = memcmp(want, got, 32) != 0;
    uint32_t al[8];
    memcpy(al, a, 32);
    zp__shoup_mul_lazy(al, al, w, wp, NM); /* over a */
    zp__eo_sub_p_once(al, al, M, 8);
    return bad + (memcmp(want, al, 32) != 0);
}

static void setup(void)
{
    memcpy(M, ZP_FR_MODULUS.l, 32);
    zp__shoup_neg_m(NM, M);
    CHECK_EQ_INT((int)NM[0], -1);
    CHECK_EQ_INT((int)NM[1], 0);
}

static void test_random_and_edges(void)
{
    setup();
    zp__eo_dropped = 0;
    int bad = 0;
    for (int i = 0; i < COUNT; i++) {
        uint32_t a[8], w[8];
        operand_a(a, i);
        operand_w(w, i / 9);
        bad += check_one(a, w);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT((int)zp__eo_dropped, 0);
}

/* The NTT's stage twiddles: w_1024^i, i < 512, both conventions and
 * directions, as plain values. */
static void test_roots(void)
{
    setup();
    zp__eo_dropped = 0;
    int bad = 0;
    for (int c = 0; c < 2; c++)
        for (int d = 0; d < 2; d++) {
            zp_fr w, p;
            zp_fr_root_of_unity(&w, 10, c ? ZP_ROOTS_BELLPERSON : ZP_ROOTS_SNARKJS);
            if (d)
                zp_fr_inv(&w, &w);
            zp_fr_one(&p);
            for (int i = 0; i < 512; i++) {
                zp_fr plain;
                zp_fr_from_mont(&plain, &p);
                uint32_t wv[8], a[8];
                memcpy(wv, plain.l, 32);
                operand_a(a, i * 7 + c + 2 * d);
                bad += check_one(a, wv);
                zp_fr_mul(&p, &p, &w);
            }
        }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT((int)zp__eo_dropped, 0);
}

/* x < 2m */
static int below_2m(const uint32_t *x)
{
    uint32_t m2[8];
    add8(m2, M, M);
    for (int k = 7; k >= 0; k--)
        if (x[k] != m2[k])
            return x[k] < m2[k];
    return 0;
}

/* A lazy operand in [0, 2m): edges (0, 1, m - 1, m, m + 1, 2m - 1), or
 * random below m, or m plus random below m. */
static void operand_lazy(uint32_t *x, int i)
{
    uint32_t r[8];
    memset(x, 0, 32);
    switch (i % 8) {
    case 0: x[0] = (uint32_t)(i / 8 % 2); break;
    case 1: memcpy(x, M, 32); x[0] += (uint32_t)(i / 8 % 3) - 1; break; /* m - 1, m, m + 1 */
    case 2: add8(x, M, M); x[0] -= 1; break;
    case 3: random_below_m(r); add8(x, M, r); break;
    default: random_below_m(x); break;
    }
}

/* The lazy stage forms: results below 2m and equal mod m to the CPU's. */
static void test_lazy(void)
{
    setup();
    zp__eo_dropped = 0;
    uint32_t m2[8];
    add8(m2, M, M);
    int bad = 0;
    for (int i = 0; i < COUNT; i++) {
        uint32_t a[8], b[8], ra[8], rb[8], got[8], red[8];
        operand_lazy(a, i);
        operand_lazy(b, i / 8 + 3 * i);
        reduce(ra, a);
        reduce(rb, b);
        zp_fr x, y, sum, dif;
        memcpy(x.l, ra, 32);
        memcpy(y.l, rb, 32);
        zp_fr_add(&sum, &x, &y);
        zp_fr_sub(&dif, &x, &y);
        zp__lazy_add(got, a, b, m2);
        reduce(red, got);
        bad += !below_2m(got) || memcmp(red, sum.l, 32) != 0;
        zp__lazy_sub(got, a, b, m2);
        reduce(red, got);
        bad += !below_2m(got) || memcmp(red, dif.l, 32) != 0;
        uint32_t w[8], wp[8], want[8];
        operand_w(w, i);
        zp__shoup_companion(wp, w, M);
        reference(want, a, w);
        zp__shoup_mul_lazy(got, a, w, wp, NM);
        reduce(red, got);
        bad += !below_2m(got) || memcmp(red, want, 32) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT((int)zp__eo_dropped, 0);
}

/* The checks can fail: a companion one too large is refused, and a
 * product with w' + 2^200 (far off) differs from the reference. */
static void test_checks_bite(void)
{
    setup();
    uint32_t w[8], wp[8], a[8], want[8], got[8];
    random_below_m(w);
    zp__shoup_companion(wp, w, M);
    CHECK(companion_ok(w, wp));
    wp[0] += 1;
    CHECK(!companion_ok(w, wp));
    wp[0] -= 1;
    wp[6] += 1;
    memset(a, 0, 32);
    memcpy(a, M, 32);
    a[0] -= 1;
    reference(want, a, w);
    shoup_reduced(got, a, w, wp);
    CHECK(memcmp(want, got, 32) != 0);
}

int main(void)
{
    RUN(test_random_and_edges);
    RUN(test_roots);
    RUN(test_lazy);
    RUN(test_checks_bite);
    return FINISH();
}
