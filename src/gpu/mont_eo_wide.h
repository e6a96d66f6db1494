/*
 * Double-width pieces on mont_eo.h's two carry chains, for the Fp square:
 *   zp__eo_sqr_wide  t = a^2, exact, 2n words, each cross product a[i]a[j]
 *                    (i < j) formed once, doubled, plus the squares a[i]^2:
 *                    n(n+1) multiply-adds instead of 2n^2;
 *   zp__eo_redc_wide r = t / 2^(32n) mod p for t < p * 2^(32n).
 *
 * The exact square keeps two accumulators as zp__eo_mul does, the cross
 * products of one parity of words in e, of the other in o, so each row is
 * two independent chains. A chain's carry goes to the word after its last;
 * that word holds at most an earlier row's carry (0 or 1), so adding it
 * cannot carry further. The reduction is zp__eo_mul's with the rows'
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
                                int n)
{
    uint32_t e[ZP__EO_MAXN], o[ZP__EO_MAXN], u[ZP__EO_MAXN], cf = 0;
    ZP__EO_UNROLL
    for (int j = 0; j < n; j++) {
        e[j] = t[j];
        o[j] = 0;
    }
    zp__eo_redc(e, o, p, inv, n);
    ZP__EO_UNROLL
    for (int i = 1; i < n; i++) {
        if (i & 1) {
            zp__eo_shift(e, o, n);
            zp__eo_redc(o, e, p, inv, n);
        } else {
            zp__eo_shift(o, e, n);
            zp__eo_redc(e, o, p, inv, n);
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

#endif
