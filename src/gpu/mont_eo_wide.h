/*
 * Double-width pieces on mont_eo.h's two carry chains, for the squaring and
 * the Fp2 product:
 *   zp__eo_prod      t = a * b, exact, 2n words;
 *   zp__eo_sqr_wide  t = a^2, exact, 2n words, each cross product a[i]a[j]
 *                    (i < j) formed once, doubled, plus the squares a[i]^2:
 *                    n(n+1) multiply-adds instead of 2n^2;
 *   zp__eo_prod_kara t = a * b, exact, by one Karatsuba level: three
 *                    products of n/2 words (3n^2/4 multiply-adds instead
 *                    of n^2) and some adds, which run beside the
 *                    multiplier;
 *   zp__eo_mulsub_wide t = a b - c d + p^2, exact, for one reduction of a
 *                    difference of products instead of two;
 *   zp__eo_redc_wide r = t / 2^(32n) mod p for t < p * 2^(32n);
 *   zp__eo_fp2_mul   Karatsuba on exact products: three products and two
 *                    reductions instead of three Montgomery products.
 *
 * The exact products keep two accumulators as zp__eo_mul does, words of a
 * (or the cross products) of one parity in e, of the other in o, so each
 * row is two independent chains. A chain's carry goes to the word after its
 * last; that word holds at most an earlier row's carry (0 or 1), so adding
 * it cannot carry further. The reduction is zp__eo_mul's with the rows'
 * products left out: n steps of redc and a shift.
 *
 * Host twins: tests/test_gpu_mont_eo.c compares each with the CPU field and
 * checks that no carry is dropped.
 */
#ifndef ZP_GPU_MONT_EO_WIDE_H
#define ZP_GPU_MONT_EO_WIDE_H

#include "gpu/mont_eo.h"

#define ZP__EO_WIDE (2 * ZP__EO_MAXN + 1)

/* Host: counts a word the bounds say is zero but is not. */
#ifdef __CUDA_ARCH__
#define ZP__EO_MUST_BE_ZERO(x) ((void)0)
#else
#define ZP__EO_MUST_BE_ZERO(x) (zp__eo_dropped += (x) != 0)
#endif

/* Word i of p^2 for BLS12-381's Fp (24 words; the Fp2 product's offset). */
ZP__EO_FN uint32_t zp__eo_fp_p2(int i)
{
    switch (i) {
    case 0: return 0x1c718e39u; case 1: return 0x26aa0000u; case 2: return 0x76382eabu;
    case 3: return 0x7ced6b1du; case 4: return 0x62113cfdu; case 5: return 0x162c3383u;
    case 6: return 0x3e71b743u; case 7: return 0x66bf91edu; case 8: return 0x7091a049u;
    case 9: return 0x292e85a8u; case 10: return 0x86185c7bu; case 11: return 0x1d68619cu;
    case 12: return 0x0978ef01u; case 13: return 0xf5314933u; case 14: return 0x16ddca6eu;
    case 15: return 0x50a62cfdu; case 16: return 0x349e8bd0u; case 17: return 0x66e59e49u;
    case 18: return 0x0e7046b4u; case 19: return 0xe2dc90e5u; case 20: return 0xa22f25e9u;
    case 21: return 0x4bd278eau; case 22: return 0xb8c35fc7u; default: return 0x02a437a4u;
    }
}

/* t = e + o over 2n words (o[0] = 0); o[2n] and the carry out are zero. */
ZP__EO_FN void zp__eo_merge(uint32_t *t, const uint32_t *e, const uint32_t *o, int n)
{
    uint32_t cf = 0;
    t[0] = e[0];
    t[1] = zp__eo_add_cc(e[1], o[1], &cf);
    ZP__EO_UNROLL
    for (int w = 2; w < 2 * n - 1; w++)
        t[w] = zp__eo_addc_cc(e[w], o[w], &cf);
    t[2 * n - 1] = zp__eo_addc(e[2 * n - 1], o[2 * n - 1], &cf);
    ZP__EO_MUST_BE_ZERO(o[2 * n]);
}

/* t = a * b (2n words) for any n-word a, b. */
ZP__EO_FN void zp__eo_prod(uint32_t *t, const uint32_t *a, const uint32_t *b, int n)
{
    uint32_t e[ZP__EO_WIDE], o[ZP__EO_WIDE], cf = 0;
    ZP__EO_UNROLL
    for (int w = 0; w <= 2 * n; w++)
        e[w] = o[w] = 0;
    ZP__EO_UNROLL
    for (int i = 0; i < n; i++) {
        uint32_t bi = b[i];
        e[i] = zp__eo_mad_lo_cc(a[0], bi, e[i], &cf); /* a_even: words i .. i+n-1 */
        e[i + 1] = zp__eo_madc_hi_cc(a[0], bi, e[i + 1], &cf);
        ZP__EO_UNROLL
        for (int j = 2; j < n; j += 2) {
            e[i + j] = zp__eo_madc_lo_cc(a[j], bi, e[i + j], &cf);
            e[i + j + 1] = zp__eo_madc_hi_cc(a[j], bi, e[i + j + 1], &cf);
        }
        e[i + n] = zp__eo_addc(e[i + n], 0, &cf);
        o[i + 1] = zp__eo_mad_lo_cc(a[1], bi, o[i + 1], &cf); /* a_odd: i+1 .. i+n */
        o[i + 2] = zp__eo_madc_hi_cc(a[1], bi, o[i + 2], &cf);
        ZP__EO_UNROLL
        for (int j = 3; j < n; j += 2) {
            o[i + j] = zp__eo_madc_lo_cc(a[j], bi, o[i + j], &cf);
            o[i + j + 1] = zp__eo_madc_hi_cc(a[j], bi, o[i + j + 1], &cf);
        }
        o[i + n + 1] = zp__eo_addc(o[i + n + 1], 0, &cf);
    }
    zp__eo_merge(t, e, o, n);
}

/*
 * t = a * b (2n words, n a multiple of 4). With h = n/2, a = a0 + a1 X and
 * b = b0 + b1 X (X = 2^(32h)):
 *   z0 = a0 b0, z2 = a1 b1 (h-word products, straight into t),
 *   z1 = (a0 + a1)(b0 + b1) - z0 - z2 = a0 b1 + a1 b0 < 2^(64h + 1),
 * and t = z0 + z1 X + z2 X^2. The sums have h words and a carry bit each
 * (ca, cb); (sa + ca X)(sb + cb X) = sa sb + (ca sb + cb sa) X + ca cb X^2
 * takes the carries as masked adds, so the multiplier sees three h-word
 * products only.
 */
ZP__EO_FN void zp__eo_prod_kara(uint32_t *t, const uint32_t *a, const uint32_t *b, int n)
{
    const int h = n / 2;
    uint32_t sa[ZP__EO_MAXN / 2], sb[ZP__EO_MAXN / 2], z[ZP__EO_MAXN + 1], cf = 0;
    zp__eo_prod(t, a, b, h);
    zp__eo_prod(t + n, a + h, b + h, h);
    sa[0] = zp__eo_add_cc(a[0], a[h], &cf);
    ZP__EO_UNROLL
    for (int j = 1; j < h; j++)
        sa[j] = zp__eo_addc_cc(a[j], a[h + j], &cf);
    const uint32_t ma = 0u - zp__eo_addc(0, 0, &cf); /* all ones if a0 + a1 carried */
    sb[0] = zp__eo_add_cc(b[0], b[h], &cf);
    ZP__EO_UNROLL
    for (int j = 1; j < h; j++)
        sb[j] = zp__eo_addc_cc(b[j], b[h + j], &cf);
    const uint32_t mb = 0u - zp__eo_addc(0, 0, &cf);
    zp__eo_prod(z, sa, sb, h);
    z[n] = ma & mb & 1;
    z[h] = zp__eo_add_cc(z[h], sb[0] & ma, &cf); /* + ca sb X */
    ZP__EO_UNROLL
    for (int j = 1; j < h; j++)
        z[h + j] = zp__eo_addc_cc(z[h + j], sb[j] & ma, &cf);
    z[n] = zp__eo_addc(z[n], 0, &cf);
    z[h] = zp__eo_add_cc(z[h], sa[0] & mb, &cf); /* + cb sa X */
    ZP__EO_UNROLL
    for (int j = 1; j < h; j++)
        z[h + j] = zp__eo_addc_cc(z[h + j], sa[j] & mb, &cf);
    z[n] = zp__eo_addc(z[n], 0, &cf);
    z[0] = zp__eo_sub_cc(z[0], t[0], &cf); /* - z0 */
    ZP__EO_UNROLL
    for (int w = 1; w < n; w++)
        z[w] = zp__eo_subc_cc(z[w], t[w], &cf);
    z[n] = zp__eo_subc(z[n], 0, &cf);
    z[0] = zp__eo_sub_cc(z[0], t[n], &cf); /* - z2 */
    ZP__EO_UNROLL
    for (int w = 1; w < n; w++)
        z[w] = zp__eo_subc_cc(z[w], t[n + w], &cf);
    z[n] = zp__eo_subc(z[n], 0, &cf);
    ZP__EO_MUST_BE_ZERO(z[n] >> 1);
    t[h] = zp__eo_add_cc(t[h], z[0], &cf); /* + z1 X */
    ZP__EO_UNROLL
    for (int w = 1; w <= n; w++)
        t[h + w] = zp__eo_addc_cc(t[h + w], z[w], &cf);
    ZP__EO_UNROLL
    for (int w = h + n + 1; w < 2 * n - 1; w++)
        t[w] = zp__eo_addc_cc(t[w], 0, &cf);
    t[2 * n - 1] = zp__eo_addc(t[2 * n - 1], 0, &cf);
}

/* t = a b - c d + p2 (2n words; p2 = p^2) for a, b, c, d < p: in (0, 2p^2),
 * so below p * 2^(32n) for zp__eo_redc_wide when 2p < 2^(32n). kara: the
 * products by zp__eo_prod_kara (n a multiple of 4), else zp__eo_prod. */
ZP__EO_FN void zp__eo_mulsub_wide(uint32_t *t, const uint32_t *a, const uint32_t *b,
                                  const uint32_t *c, const uint32_t *d, const uint32_t *p2,
                                  int n, int kara)
{
    uint32_t u[2 * ZP__EO_MAXN], cf = 0;
    if (kara) {
        zp__eo_prod_kara(t, a, b, n);
        zp__eo_prod_kara(u, c, d, n);
    } else {
        zp__eo_prod(t, a, b, n);
        zp__eo_prod(u, c, d, n);
    }
    t[0] = zp__eo_add_cc(t[0], p2[0], &cf);
    ZP__EO_UNROLL
    for (int w = 1; w < 2 * n - 1; w++)
        t[w] = zp__eo_addc_cc(t[w], p2[w], &cf);
    t[2 * n - 1] = zp__eo_addc(t[2 * n - 1], p2[2 * n - 1], &cf);
    t[0] = zp__eo_sub_cc(t[0], u[0], &cf);
    ZP__EO_UNROLL
    for (int w = 1; w < 2 * n; w++)
        t[w] = zp__eo_subc_cc(t[w], u[w], &cf);
    ZP__EO_MUST_BE_ZERO(cf);
}

/* acc += a[i] * a[j] * 2^(32(i+j)) for j = j0, j0 + 2, ... < n (j0 < n):
 * one chain over words i+j0 .., its carry onto the word after. */
ZP__EO_FN void zp__eo_cross_row(uint32_t *acc, const uint32_t *a, int i, int j0, int n)
{
    uint32_t cf = 0;
    int end = i + j0 + 2;
    acc[i + j0] = zp__eo_mad_lo_cc(a[i], a[j0], acc[i + j0], &cf);
    acc[i + j0 + 1] = zp__eo_madc_hi_cc(a[i], a[j0], acc[i + j0 + 1], &cf);
    ZP__EO_UNROLL
    for (int j = j0 + 2; j < n; j += 2) {
        acc[i + j] = zp__eo_madc_lo_cc(a[i], a[j], acc[i + j], &cf);
        acc[i + j + 1] = zp__eo_madc_hi_cc(a[i], a[j], acc[i + j + 1], &cf);
        end = i + j + 2;
    }
    acc[end] = zp__eo_addc(acc[end], 0, &cf);
}

/* t = a^2 (2n words) for any n-word a. */
ZP__EO_FN void zp__eo_sqr_wide(uint32_t *t, const uint32_t *a, int n)
{
    uint32_t e[ZP__EO_WIDE], o[ZP__EO_WIDE], s[2 * ZP__EO_MAXN], cf = 0;
    ZP__EO_UNROLL
    for (int w = 0; w <= 2 * n; w++)
        e[w] = o[w] = 0;
    /* Row i: j = i+1, i+3, ... (words from 2i+1) to o; j = i+2, i+4, ...
     * (words from 2i+2) to e. */
    ZP__EO_UNROLL
    for (int i = 0; i < n - 1; i++) {
        zp__eo_cross_row(o, a, i, i + 1, n);
        if (i + 2 < n)
            zp__eo_cross_row(e, a, i, i + 2, n);
    }
    zp__eo_merge(s, e, o, n); /* the cross sum, below 2^(64n - 1) */
    ZP__EO_MUST_BE_ZERO(s[2 * n - 1] >> 31);
    t[0] = 0;
    ZP__EO_UNROLL
    for (int w = 1; w < 2 * n; w++)
        t[w] = zp__eo_shl1(s[w], s[w - 1]);
    t[0] = zp__eo_mad_lo_cc(a[0], a[0], t[0], &cf); /* + the squares */
    t[1] = zp__eo_madc_hi_cc(a[0], a[0], t[1], &cf);
    ZP__EO_UNROLL
    for (int i = 1; i < n - 1; i++) {
        t[2 * i] = zp__eo_madc_lo_cc(a[i], a[i], t[2 * i], &cf);
        t[2 * i + 1] = zp__eo_madc_hi_cc(a[i], a[i], t[2 * i + 1], &cf);
    }
    t[2 * n - 2] = zp__eo_madc_lo_cc(a[n - 1], a[n - 1], t[2 * n - 2], &cf);
    t[2 * n - 1] = zp__eo_madc_hi(a[n - 1], a[n - 1], t[2 * n - 1], &cf);
}

/* zp__eo_row without the product: x' = y + x[1] in y's registers, and
 * y' = x[2..] in x's. */
ZP__EO_FN void zp__eo_shift(uint32_t *x, uint32_t *y, int n)
{
    uint32_t cf = 0;
    y[0] = zp__eo_add_cc(y[0], x[1], &cf);
    ZP__EO_UNROLL
    for (int j = 0; j < n - 2; j++)
        x[j] = zp__eo_addc_cc(x[j + 2], 0, &cf);
    x[n - 2] = zp__eo_addc(0, 0, &cf);
    x[n - 1] = 0;
}

/* r = t / 2^(32n) mod p, fully reduced, for a 2n-word t < p * 2^(32n). */
ZP__EO_FN void zp__eo_redc_wide(uint32_t *r, const uint32_t *t, const uint32_t *p, uint32_t inv,
                                int n, int low1)
{
    uint32_t e[ZP__EO_MAXN], o[ZP__EO_MAXN], u[ZP__EO_MAXN], cf = 0;
    ZP__EO_UNROLL
    for (int j = 0; j < n; j++) {
        e[j] = t[j];
        o[j] = 0;
    }
    zp__eo_redc(e, o, p, inv, n, low1);
    ZP__EO_UNROLL
    for (int i = 1; i < n; i++) {
        if (i & 1) {
            zp__eo_shift(e, o, n);
            zp__eo_redc(o, e, p, inv, n, low1);
        } else {
            zp__eo_shift(o, e, n);
            zp__eo_redc(e, o, p, inv, n, low1);
        }
    }
    /* n even: x in o (o[0] = 0), y in e; (t_lo + m p) / R = o[1..] + e,
     * plus t's high half, below 2p. */
    u[0] = zp__eo_add_cc(o[1], e[0], &cf);
    ZP__EO_UNROLL
    for (int j = 1; j < n - 1; j++)
        u[j] = zp__eo_addc_cc(o[j + 1], e[j], &cf);
    u[n - 1] = zp__eo_addc(e[n - 1], 0, &cf);
    u[0] = zp__eo_add_cc(u[0], t[n], &cf);
    ZP__EO_UNROLL
    for (int j = 1; j < n - 1; j++)
        u[j] = zp__eo_addc_cc(u[j], t[n + j], &cf);
    u[n - 1] = zp__eo_addc(u[n - 1], t[2 * n - 1], &cf);
    zp__eo_sub_p_once(r, u, p, n);
}

/*
 * (a0 + a1 u)(b0 + b1 u) with u^2 = -1, inputs below p:
 *   c0 = a0 b0 - a1 b1 + p^2 (p2: the 2n words of p^2; keeps c0 >= 0),
 *   c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 = a0 b1 + a1 b0,
 * both below 2p^2 < p 2^(32n) (needs 2p < 2^(32n)), then one reduction each.
 */
ZP__EO_FN void zp__eo_fp2_mul(uint32_t *r0, uint32_t *r1, const uint32_t *a0, const uint32_t *a1,
                              const uint32_t *b0, const uint32_t *b1, const uint32_t *p,
                              const uint32_t *p2, uint32_t inv, int n)
{
    uint32_t t0[2 * ZP__EO_MAXN], t1[2 * ZP__EO_MAXN], t2[2 * ZP__EO_MAXN];
    uint32_t sa[ZP__EO_MAXN], sb[ZP__EO_MAXN], cf = 0;
    zp__eo_prod(t0, a0, b0, n);
    zp__eo_prod(t1, a1, b1, n);
    sa[0] = zp__eo_add_cc(a0[0], a1[0], &cf); /* below 2p: no carry out */
    ZP__EO_UNROLL
    for (int j = 1; j < n - 1; j++)
        sa[j] = zp__eo_addc_cc(a0[j], a1[j], &cf);
    sa[n - 1] = zp__eo_addc(a0[n - 1], a1[n - 1], &cf);
    sb[0] = zp__eo_add_cc(b0[0], b1[0], &cf);
    ZP__EO_UNROLL
    for (int j = 1; j < n - 1; j++)
        sb[j] = zp__eo_addc_cc(b0[j], b1[j], &cf);
    sb[n - 1] = zp__eo_addc(b0[n - 1], b1[n - 1], &cf);
    zp__eo_prod(t2, sa, sb, n);
    /* t2 -= t0 + t1; t0 += p^2 - t1. Differences of exact integers that
     * end non-negative, so the last borrows are zero. */
    t2[0] = zp__eo_sub_cc(t2[0], t0[0], &cf);
    ZP__EO_UNROLL
    for (int w = 1; w < 2 * n; w++)
        t2[w] = zp__eo_subc_cc(t2[w], t0[w], &cf);
    ZP__EO_MUST_BE_ZERO(cf);
    t2[0] = zp__eo_sub_cc(t2[0], t1[0], &cf);
    ZP__EO_UNROLL
    for (int w = 1; w < 2 * n; w++)
        t2[w] = zp__eo_subc_cc(t2[w], t1[w], &cf);
    ZP__EO_MUST_BE_ZERO(cf);
    t0[0] = zp__eo_add_cc(t0[0], p2[0], &cf);
    ZP__EO_UNROLL
    for (int w = 1; w < 2 * n - 1; w++)
        t0[w] = zp__eo_addc_cc(t0[w], p2[w], &cf);
    t0[2 * n - 1] = zp__eo_addc(t0[2 * n - 1], p2[2 * n - 1], &cf);
    t0[0] = zp__eo_sub_cc(t0[0], t1[0], &cf);
    ZP__EO_UNROLL
    for (int w = 1; w < 2 * n; w++)
        t0[w] = zp__eo_subc_cc(t0[w], t1[w], &cf);
    ZP__EO_MUST_BE_ZERO(cf);
    zp__eo_redc_wide(r0, t0, p, inv, n, 0);
    zp__eo_redc_wide(r1, t2, p, inv, n, 0);
}

#endif
