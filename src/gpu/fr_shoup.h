/*
 * Shoup's product for Fr by a fixed factor: the NTT's stage twiddles.
 *
 * For w < m (m = Fr's modulus, 8 words) and its companion
 * w' = floor(w 2^256 / m), made once on the host, a * w mod m is
 *
 *     q = floor(a w' / 2^256)            (an estimate of floor(a w / m))
 *     t = a w - q m                      (computed mod 2^256)
 *     result = t - m if t >= m, else t.
 *
 * a w' > a w 2^256 / m - a, so q >= floor(a w / m) - 1 and 0 <= t < 2m,
 * which fits in 256 bits (m < 2^255), so t mod 2^256 is t. The product is
 * not a Montgomery product: w is a plain value, and a's form is kept (a R
 * times w is (a w) R), so data in Montgomery form stays in it.
 *
 * Cost in 32-bit multiply halves: the low half of a w (64), the top of
 * a w' (79: only the words from 7 up; the words below are dropped, see
 * zp__shoup_q) and the low half of q (2^256 - m) (51: its word 1 is zero),
 * 194 against the 264 of the Montgomery product (mont_eo.h) that the
 * device's fr_mul runs.
 * ptxas fuses each product's two halves into one wide multiply-add where
 * they fall on an aligned word pair of one chain (zp__sh_row keeps them
 * so); without that the product takes more instructions than Montgomery's
 * and the NTT loses more than the multiplies save.
 *
 * Compiles for the device (PTX carry chains, mont_eo.h's steps) and the
 * host (tests/test_gpu_fr_shoup.c compares it with the CPU field and counts
 * dropped carries).
 */
#ifndef ZP_GPU_FR_SHOUP_H
#define ZP_GPU_FR_SHOUP_H

#include "gpu/mont_eo.h"

/*
 * One chain of row i of a product, T += bi a 2^(32 i) for the 8-word a:
 * the products a[j] bi for j = j0, j0 + 2, ... (j0 = 0 or 1), whose low
 * and high halves land on T's words i + j and i + j + 1, kept to the words
 * lo..hi, into acc (acc[v] is T's word v + off). With carry (the top of a
 * product) the chain's carry goes into the word above its last product.
 * nm: a is 2^256 - m, whose word 1, zero, is skipped (it begins its
 * chain, so no carry passes it). (Word 0, 2^32 - 1, is multiplied rather
 * than taken as adds, bi (2^32 - 1) = (bi - 1) 2^32 + (2^32 - bi): the
 * NTT is short of ALU issue, not of multiplies.)
 */
ZP__EO_FN void zp__sh_chain(uint32_t *acc, int off, uint32_t bi, const uint32_t *a, int i,
                            int j0, int lo, int hi, int carry, int nm)
{
    uint32_t cf = 0;
    int first = 1;
    ZP__EO_UNROLL
    for (int j = j0; j < 8; j += 2) {
        if (nm && j == 1)
            continue;
        ZP__EO_UNROLL
        for (int h = 0; h < 2; h++) {
            const int t = i + j + h, v = t - off;
            if (t < lo || t > hi)
                continue;
            if (h) {
                acc[v] = first ? zp__eo_mad_hi_cc(a[j], bi, acc[v], &cf)
                               : zp__eo_madc_hi_cc(a[j], bi, acc[v], &cf);
            } else {
                acc[v] = first ? zp__eo_mad_lo_cc(a[j], bi, acc[v], &cf)
                               : zp__eo_madc_lo_cc(a[j], bi, acc[v], &cf);
            }
            first = 0;
        }
    }
    if (carry && !first) {
        const int v = i + (j0 ? 7 : 6) + 2 - off;
        acc[v] = zp__eo_addc(acc[v], 0, &cf);
    }
}

/*
 * Row i of a product into T = x + 2^32 y (x[t] is T's word t, y[v] its word
 * v + 1), as mont_eo.h keeps it: each product's two halves fall on a word
 * pair (2k, 2k + 1) of x or of y, the pair a wide multiply-add takes as one
 * register pair, and the two chains are independent. That puts a's even
 * words into x and its odd words into y in even rows, the other way round
 * in odd rows. A row reads one word of its multiplier bi (a twiddle's
 * words are used once each). A chain's carry word holds at most the carry
 * of the row before, so adding one cannot overflow.
 */
ZP__EO_FN void zp__sh_row(uint32_t *x, uint32_t *y, uint32_t bi, const uint32_t *a, int i,
                          int lo, int hi, int carry, int nm)
{
    zp__sh_chain(x, 0, bi, a, i, i & 1, lo, hi, carry, nm);
    zp__sh_chain(y, 1, bi, a, i, (i & 1) ^ 1, lo, hi, carry, nm);
}

/*
 * q: the words 8..15 of the sum of a w''s half-products at T's words 7 and
 * up. The dropped ones (at word t < 7, at most 2t + 1 of them, each below
 * 2^(32 (t + 1))) sum to D < 14 2^224, so q = floor((a w' - D) / 2^256) >
 * a w / m - a / 2^256 - 2^-28 - 1; for a <= 2^256 - 2^229 (so every a < 2m)
 * that is > a w / m - 2, so q >= floor(a w / m) - 1, and q <= a w / m.
 * The sum's word 16 is zero (a w' < 2^512): x[16] and y[15] end zero, and
 * q[7]'s add cannot carry.
 */
ZP__EO_FN void zp__shoup_q(uint32_t *q, const uint32_t *a, const uint32_t *wp)
{
    uint32_t x[17], y[16], cf = 0;
    ZP__EO_UNROLL
    for (int t = 0; t < 16; t++)
        x[t] = y[t] = 0;
    x[16] = 0;
    ZP__EO_UNROLL
    for (int i = 0; i < 8; i++)
        zp__sh_row(x, y, wp[i], a, i, 7, 15, 1, 0);
    (void)zp__eo_add_cc(x[7], y[6], &cf);
    ZP__EO_UNROLL
    for (int k = 0; k < 7; k++)
        q[k] = zp__eo_addc_cc(x[8 + k], y[7 + k], &cf);
    q[7] = zp__eo_addc(x[15], y[14], &cf);
#ifndef __CUDA_ARCH__
    zp__eo_dropped += x[16] != 0 || y[15] != 0;
#endif
}

/* r = a w mod m, r < 2m (not reduced: the lazy form below; the NTT
 * reduces once as a pass stores, zp__eo_sub_p_once), for
 * a <= 2^256 - 2^229 (so any a < 2m), w < m, wp = w's companion
 * (zp__shoup_companion) and nm = 2^256 - m; r may alias a. */
ZP__EO_FN void zp__shoup_mul_lazy(uint32_t *r, const uint32_t *a, const uint32_t *w,
                                  const uint32_t *wp, const uint32_t *nm)
{
    uint32_t q[8], x[8], y[8], cf = 0;
    zp__shoup_q(q, a, wp);
    ZP__EO_UNROLL
    for (int k = 0; k < 8; k++)
        x[k] = y[k] = 0;
    ZP__EO_UNROLL
    for (int i = 0; i < 8; i++)
        zp__sh_row(x, y, w[i], a, i, 0, 7, 0, 0);
    ZP__EO_UNROLL
    for (int i = 0; i < 8; i++) /* a w - q m mod 2^256, in [0, 2m) */
        zp__sh_row(x, y, q[i], nm, i, 0, 7, 0, 1);
    r[0] = x[0];
    r[1] = zp__eo_add_cc(x[1], y[0], &cf);
    ZP__EO_UNROLL
    for (int k = 2; k < 8; k++) /* mod 2^256: the last carry is dropped */
        r[k] = zp__eo_addc_cc(x[k], y[k - 1], &cf);
}

/*
 * The lazy form of the NTT's stages: values in [0, 2m), which 256 bits
 * hold (m < 2^255), so that Shoup's product skips its last subtraction;
 * m2 = 2m. r = a + b mod m in [0, 2m): the sum (below 4m, so it may carry
 * out of 256 bits) less 2m unless that borrows without the carry.
 */
ZP__EO_FN void zp__lazy_add(uint32_t *r, const uint32_t *a, const uint32_t *b,
                            const uint32_t *m2)
{
    uint32_t t[8], u[8], cf = 0;
    t[0] = zp__eo_add_cc(a[0], b[0], &cf);
    ZP__EO_UNROLL
    for (int j = 1; j < 8; j++)
        t[j] = zp__eo_addc_cc(a[j], b[j], &cf);
    const uint32_t c = zp__eo_addc(0, 0, &cf); /* the sum's bit 256 */
    u[0] = zp__eo_sub_cc(t[0], m2[0], &cf);
    ZP__EO_UNROLL
    for (int j = 1; j < 8; j++)
        u[j] = zp__eo_subc_cc(t[j], m2[j], &cf);
    /* all ones if the sum is below 2m (no carry and a borrow), else 0: a
     * carry with no borrow would need a sum of 2^256 + 2m > 4m */
    const uint32_t keep = zp__eo_subc(c, 0, &cf);
    ZP__EO_UNROLL
    for (int j = 0; j < 8; j++)
        r[j] = (t[j] & keep) | (u[j] & ~keep);
}

/* r = a - b mod m in [0, 2m) for a, b < 2m: the difference, plus 2m where
 * it borrows. */
ZP__EO_FN void zp__lazy_sub(uint32_t *r, const uint32_t *a, const uint32_t *b,
                            const uint32_t *m2)
{
    uint32_t t[8], cf = 0;
    t[0] = zp__eo_sub_cc(a[0], b[0], &cf);
    ZP__EO_UNROLL
    for (int j = 1; j < 8; j++)
        t[j] = zp__eo_subc_cc(a[j], b[j], &cf);
    const uint32_t br = zp__eo_subc(0, 0, &cf);
    r[0] = zp__eo_add_cc(t[0], m2[0] & br, &cf);
    ZP__EO_UNROLL
    for (int j = 1; j < 7; j++)
        r[j] = zp__eo_addc_cc(t[j], m2[j] & br, &cf);
    r[7] = zp__eo_addc_cc(t[7], m2[7] & br, &cf); /* its carry cancels the borrow */
}

/* Host only. w' = floor(w 2^256 / m) for w < m < 2^255, by shift and subtract. */
static inline void zp__shoup_companion(uint32_t *wp, const uint32_t *w, const uint32_t *m)
{
    uint32_t rem[8];
    for (int k = 0; k < 8; k++)
        rem[k] = w[k], wp[k] = 0;
    for (int bit = 255; bit >= 0; bit--) {
        for (int k = 7; k > 0; k--) /* rem < m, so 2 rem < 2^256 */
            rem[k] = (rem[k] << 1) | (rem[k - 1] >> 31);
        rem[0] <<= 1;
        int ge = 1;
        for (int k = 7; k >= 0; k--)
            if (rem[k] != m[k]) {
                ge = rem[k] > m[k];
                break;
            }
        if (ge) {
            uint64_t br = 0;
            for (int k = 0; k < 8; k++) {
                uint64_t s = (uint64_t)rem[k] - m[k] - br;
                rem[k] = (uint32_t)s;
                br = s >> 63;
            }
            wp[bit / 32] |= 1u << (bit % 32);
        }
    }
}

/* nm = 2^256 - m. */
static inline void zp__shoup_neg_m(uint32_t *nm, const uint32_t *m)
{
    uint64_t br = 0;
    for (int k = 0; k < 8; k++) {
        uint64_t s = 0 - (uint64_t)m[k] - br;
        nm[k] = (uint32_t)s;
        br = s >> 63;
    }
}

#endif
