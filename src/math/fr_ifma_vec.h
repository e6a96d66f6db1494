/*
 * The vector Fr arithmetic of fr_ifma.h as static inline functions on
 * registers, for the files that run it in loops (fr_ifma.c, cpu/ntt_ifma.c)
 * without a call and a round trip through memory per operation. Included
 * only where ZP_FR_IFMA_VEC is defined (x86-64 with GCC or Clang); every
 * function carries the AVX512F + AVX512IFMA target attribute, so callers
 * check zp__ifma_available() first.
 *
 * A value is five 52-bit limbs, __m512i v[5], eight lanes. "Normalized":
 * every limb below 2^52 (what vpmadd52 needs of a multiplicand: it reads
 * only the low 52 bits).
 *
 * Product (CIOS in radix 2^52, five rounds, all lanes at once):
 *   t[j] += lo52(a[j] b[i]), t[j+1] += hi52(a[j] b[i]);
 *   q = lo52(t[0] (-r^-1 mod 2^52)); t[j] += lo52(r[j] q), t[j+1] += hi52(..);
 *   t[1] += t[0] >> 52 (t[0] is now 0 mod 2^52), shift t down one limb.
 * A limb takes at most four 52-bit terms a round for six rounds: below
 * 2^55. The result is t = (a b + Q r) / 2^260 < a b / 2^260 + r, below 2r
 * whenever a b < r 2^260 (a, b < 4r suffices: r < 2^255), so one
 * conditional subtraction makes it canonical.
 */
#ifndef ZP_MATH_FR_IFMA_VEC_H
#define ZP_MATH_FR_IFMA_VEC_H

#include <immintrin.h>

#include "math/fr_ifma.h"

#define FR_TGT __attribute__((target("avx512f,avx512ifma")))
#define FR_MASK52 ((uint64_t)0xfffffffffffff)

/* r in radix 2^52, and -r^-1 mod 2^52. */
static const uint64_t fr_r52[5] = {0xfffff00000001ULL, 0x2fffe5bfefffULL, 0x9a1d80553bda4ULL,
                                   0x7d483339d8080ULL, 0x73eda753299dULL};
static const uint64_t fr_rinv52 = 0xffffeffffffffULL;

FR_TGT static inline __m512i fr_bcast(uint64_t x) { return _mm512_set1_epi64((long long)x); }

/* Carries of limbs 0..3 into the next one; a negative value keeps its
 * sign in the top limb (the shifts are arithmetic). */
FR_TGT static inline void fr_normalize(__m512i t[5])
{
    for (int j = 0; j < 4; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srai_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], fr_bcast(FR_MASK52));
    }
}

/* t - r unless that borrows, else t; t normalized, below 2r. */
FR_TGT static inline void fr_sub_r_once(__m512i out[5], const __m512i t[5])
{
    __m512i d[5], borrow = _mm512_setzero_si512();
    for (int j = 0; j < 5; j++) {
        __m512i x = _mm512_sub_epi64(_mm512_sub_epi64(t[j], fr_bcast(fr_r52[j])), borrow);
        borrow = _mm512_srli_epi64(x, 63);
        d[j] = _mm512_and_si512(x, fr_bcast(FR_MASK52));
    }
    __mmask8 keep_t = _mm512_test_epi64_mask(borrow, borrow);
    for (int j = 0; j < 5; j++)
        out[j] = _mm512_mask_blend_epi64(keep_t, d[j], t[j]);
}

/* out = a b / 2^260 mod r, canonical, for normalized a, b with a b <
 * r 2^260 (both below 4r, or one below 2r and the other canonical). */
FR_TGT static inline void fr_mul(__m512i out[5], const __m512i a[5], const __m512i b[5])
{
    const __m512i zero = _mm512_setzero_si512();
    __m512i t[6];
    for (int j = 0; j < 6; j++)
        t[j] = zero;
    for (int i = 0; i < 5; i++) {
        for (int j = 0; j < 5; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], a[j], b[i]);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a[j], b[i]);
        }
        /* Only the low 52 bits of the product are added to zero: q < 2^52. */
        __m512i q = _mm512_madd52lo_epu64(zero, t[0], fr_bcast(fr_rinv52));
        for (int j = 0; j < 5; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], fr_bcast(fr_r52[j]), q);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], fr_bcast(fr_r52[j]), q);
        }
        t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52));
        for (int j = 0; j < 5; j++)
            t[j] = t[j + 1];
        t[5] = zero;
    }
    fr_normalize(t);
    fr_sub_r_once(out, t);
}

/* a + b mod r for canonical a, b (limb sums below 2^53, the sum below 2r). */
FR_TGT static inline void fr_add(__m512i out[5], const __m512i a[5], const __m512i b[5])
{
    __m512i t[5];
    for (int j = 0; j < 5; j++)
        t[j] = _mm512_add_epi64(a[j], b[j]);
    fr_normalize(t);
    fr_sub_r_once(out, t);
}

/* a - b + r, normalized but not reduced: in (0, 2r) for canonical a, b, a
 * multiplicand for fr_mul against a canonical value. */
FR_TGT static inline void fr_sub_lazy(__m512i out[5], const __m512i a[5], const __m512i b[5])
{
    for (int j = 0; j < 5; j++)
        out[j] = _mm512_add_epi64(_mm512_sub_epi64(a[j], b[j]), fr_bcast(fr_r52[j]));
    fr_normalize(out);
}

/* a - b mod r for canonical a, b: r added back where the difference is
 * negative (its top limb is, after the arithmetic carries). */
FR_TGT static inline void fr_sub(__m512i out[5], const __m512i a[5], const __m512i b[5])
{
    __m512i t[5];
    for (int j = 0; j < 5; j++)
        t[j] = _mm512_sub_epi64(a[j], b[j]);
    fr_normalize(t);
    __mmask8 neg = _mm512_cmplt_epi64_mask(t[4], _mm512_setzero_si512());
    for (int j = 0; j < 5; j++)
        t[j] = _mm512_mask_add_epi64(t[j], neg, t[j], fr_bcast(fr_r52[j]));
    fr_normalize(t); /* non-negative now: the top limb needs no mask */
    for (int j = 0; j < 5; j++)
        out[j] = t[j];
}

/* Word i of eight elements in w[i] to limbs: shifts cut the 256 bits into
 * limbs of 52 (limb j is bits 52j .. 52j + 51). */
FR_TGT static inline void fr_from_words(__m512i out[5], const __m512i w[4])
{
    const __m512i mask = fr_bcast(FR_MASK52);
    out[0] = _mm512_and_si512(w[0], mask);
    out[1] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[0], 52), _mm512_slli_epi64(w[1], 12)), mask);
    out[2] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[1], 40), _mm512_slli_epi64(w[2], 24)), mask);
    out[3] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[2], 28), _mm512_slli_epi64(w[3], 36)), mask);
    out[4] = _mm512_srli_epi64(w[3], 16);
}

/* The inverse, for normalized limbs of a value below 2^256. */
FR_TGT static inline void fr_to_words(__m512i w[4], const __m512i v[5])
{
    w[0] = _mm512_or_si512(v[0], _mm512_slli_epi64(v[1], 52));
    w[1] = _mm512_or_si512(_mm512_srli_epi64(v[1], 12), _mm512_slli_epi64(v[2], 40));
    w[2] = _mm512_or_si512(_mm512_srli_epi64(v[2], 24), _mm512_slli_epi64(v[3], 28));
    w[3] = _mm512_or_si512(_mm512_srli_epi64(v[3], 36), _mm512_slli_epi64(v[4], 16));
}

/* Eight consecutive library elements (four words each) to limbs: four
 * unaligned loads hold two elements each; two rounds of two-source
 * permutes gather word i of all eight into w[i]. */
FR_TGT static inline void fr_loadu(__m512i out[5], const zp_fr *x)
{
    const __m512i even = _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13);
    const __m512i odd = _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i lo = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
    const __m512i hi = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
    __m512i in[4], w[4];
    for (int i = 0; i < 4; i++)
        in[i] = _mm512_loadu_si512((const void *)(x + 2 * i));
    /* a: words 0 and 1 of four elements, b: words 2 and 3. */
    __m512i a01 = _mm512_permutex2var_epi64(in[0], even, in[1]);
    __m512i a23 = _mm512_permutex2var_epi64(in[2], even, in[3]);
    __m512i b01 = _mm512_permutex2var_epi64(in[0], odd, in[1]);
    __m512i b23 = _mm512_permutex2var_epi64(in[2], odd, in[3]);
    w[0] = _mm512_permutex2var_epi64(a01, lo, a23);
    w[1] = _mm512_permutex2var_epi64(a01, hi, a23);
    w[2] = _mm512_permutex2var_epi64(b01, lo, b23);
    w[3] = _mm512_permutex2var_epi64(b01, hi, b23);
    fr_from_words(out, w);
}

/* The inverse of fr_loadu, for normalized limbs of a value below 2^256. */
FR_TGT static inline void fr_storeu(zp_fr *x, const __m512i v[5])
{
    const __m512i even = _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13);
    const __m512i odd = _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i lo = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
    const __m512i hi = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
    __m512i w[4];
    fr_to_words(w, v);
    __m512i a01 = _mm512_permutex2var_epi64(w[0], lo, w[1]);
    __m512i a23 = _mm512_permutex2var_epi64(w[0], hi, w[1]);
    __m512i b01 = _mm512_permutex2var_epi64(w[2], lo, w[3]);
    __m512i b23 = _mm512_permutex2var_epi64(w[2], hi, w[3]);
    _mm512_storeu_si512((void *)(x + 0), _mm512_permutex2var_epi64(a01, even, b01));
    _mm512_storeu_si512((void *)(x + 2), _mm512_permutex2var_epi64(a01, odd, b01));
    _mm512_storeu_si512((void *)(x + 4), _mm512_permutex2var_epi64(a23, even, b23));
    _mm512_storeu_si512((void *)(x + 6), _mm512_permutex2var_epi64(a23, odd, b23));
}

/* Elements x[8k], k < 8 (a stride of eight) into lane k, and back: by
 * gathers and scatters, one per word. */
FR_TGT static inline void fr_gather8(__m512i out[5], const zp_fr *x)
{
    /* element 8k is 32k words on */
    const __m512i idx = _mm512_setr_epi64(0, 32, 64, 96, 128, 160, 192, 224);
    __m512i w[4];
    for (int i = 0; i < 4; i++)
        w[i] = _mm512_i64gather_epi64(idx, (const void *)&x->l[i], 8);
    fr_from_words(out, w);
}

FR_TGT static inline void fr_scatter8(zp_fr *x, const __m512i v[5])
{
    const __m512i idx = _mm512_setr_epi64(0, 32, 64, 96, 128, 160, 192, 224);
    __m512i w[4];
    fr_to_words(w, v);
    for (int i = 0; i < 4; i++)
        _mm512_i64scatter_epi64((void *)&x->l[i], idx, w[i], 8);
}

FR_TGT static inline void fr_ld(__m512i out[5], const zp__fr52x8 *v)
{
    for (int j = 0; j < 5; j++)
        out[j] = _mm512_load_si512(v->l[j]);
}

FR_TGT static inline void fr_st(zp__fr52x8 *v, const __m512i in[5])
{
    for (int j = 0; j < 5; j++)
        _mm512_store_si512(v->l[j], in[j]);
}

/* Lane k of v in all eight lanes. */
FR_TGT static inline void fr_bcast_lane(__m512i out[5], const zp__fr52x8 *v, int k)
{
    for (int j = 0; j < 5; j++)
        out[j] = fr_bcast(v->l[j][k]);
}

#endif
