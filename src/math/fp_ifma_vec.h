/*
 * The IFMA vector kernels of fp_ifma.c as always-inline functions, for
 * code that strings many of them together (the MSM flush and fold,
 * msm_ifma.c): inlined, their operands can stay in registers from one
 * operation to the next instead of going through memory at every call.
 * A caller must itself be compiled for AVX512F + AVX512IFMA
 * (ZP__VEC_TARGET) and run only when zp__ifma_available(). zp__vi_X does
 * what fp_ifma.h's zp__fp52x8_X does (zp__vi2_X: zp__fp2x8_X), with the
 * same bounds; the algorithms are described in fp_ifma.c.
 */
#ifndef ZP_MATH_FP_IFMA_VEC_H
#define ZP_MATH_FP_IFMA_VEC_H

#include "math/fp_ifma.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(ZP_NO_ASM)
#define ZP__IFMA_VEC 1

#include <immintrin.h>

#define ZP__VEC_TARGET __attribute__((target("avx512f,avx512ifma")))
#define ZP__VEC static inline __attribute__((target("avx512f,avx512ifma"), always_inline))

#define MASK52 ((uint64_t)0xfffffffffffff)

/* p in radix 2^52, and -p^-1 mod 2^52. */
static const uint64_t p52[8] = {0xeffffffffaaabULL, 0xfeb153ffffb9fULL, 0x6b0f6241eabffULL,
                                0x12bf6730d2a0fULL, 0x764774b84f385ULL, 0x1ba7b6434bacdULL,
                                0x1ea397fe69a4bULL, 0x000000001a011ULL};
static const uint64_t pinv52 = 0x3fffcfffcfffdULL;

ZP__VEC void vload(__m512i v[8], const zp__fp52x8 *x)
{
    for (int j = 0; j < 8; j++)
        v[j] = _mm512_load_si512(x->l[j]);
}

ZP__VEC void vstore(zp__fp52x8 *x, const __m512i v[8])
{
    for (int j = 0; j < 8; j++)
        _mm512_store_si512(x->l[j], v[j]);
}

ZP__VEC void vconst(__m512i v[8], const uint64_t c[8])
{
    for (int j = 0; j < 8; j++)
        v[j] = _mm512_set1_epi64((long long)c[j]);
}

/* r = t - p unless that borrows, else t, for normalized t < 2p. */
ZP__VEC void vsub_p_once(__m512i r[8], const __m512i t[8])
{
    const __m512i mask = _mm512_set1_epi64((long long)MASK52);
    __m512i d[8], borrow = _mm512_setzero_si512();
    for (int j = 0; j < 8; j++) {
        __m512i x = _mm512_sub_epi64(_mm512_sub_epi64(t[j], _mm512_set1_epi64((long long)p52[j])),
                                     borrow);
        borrow = _mm512_srli_epi64(x, 63);
        d[j] = _mm512_and_si512(x, mask);
    }
    __mmask8 keep_t = _mm512_test_epi64_mask(borrow, borrow);
    for (int j = 0; j < 8; j++)
        r[j] = _mm512_mask_blend_epi64(keep_t, d[j], t[j]);
}

/* Carries of unnormalized limbs up to the top one. */
ZP__VEC void vnormalize(__m512i t[8])
{
    const __m512i mask = _mm512_set1_epi64((long long)MASK52);
    for (int j = 0; j < 7; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srai_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], mask);
    }
}

/* The product without its final subtraction, normalized: t = (A B + Q p) /
 * 2^416 < A B / 2^416 + p, so below p + 2^352 for A, B < 4p (a valid
 * operand again). */
ZP__VEC void vmul_lazy(__m512i t[8], const __m512i A[8], const __m512i B[8])
{
    const __m512i mask = _mm512_set1_epi64((long long)MASK52), zero = _mm512_setzero_si512();
    const __m512i pinv = _mm512_set1_epi64((long long)pinv52);
    __m512i P[8], T[9];
    vconst(P, p52);
    for (int j = 0; j < 9; j++)
        T[j] = zero;
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 8; j++) {
            T[j] = _mm512_madd52lo_epu64(T[j], A[j], B[i]);
            T[j + 1] = _mm512_madd52hi_epu64(T[j + 1], A[j], B[i]);
        }
        __m512i q = _mm512_and_si512(_mm512_madd52lo_epu64(zero, T[0], pinv), mask);
        for (int j = 0; j < 8; j++) {
            T[j] = _mm512_madd52lo_epu64(T[j], P[j], q);
            T[j + 1] = _mm512_madd52hi_epu64(T[j + 1], P[j], q);
        }
        T[1] = _mm512_add_epi64(T[1], _mm512_srli_epi64(T[0], 52));
        for (int j = 0; j < 8; j++)
            T[j] = T[j + 1];
        T[8] = zero;
    }
    vnormalize(T);
    for (int j = 0; j < 8; j++)
        t[j] = T[j];
}

ZP__VEC void vmul(__m512i r[8], const __m512i A[8], const __m512i B[8])
{
    __m512i t[8];
    vmul_lazy(t, A, B); /* t < 2p for canonical A, B: eight limbs */
    vsub_p_once(r, t);
}

/* 4 p^2 in sixteen 52-bit limbs: added to a0 b0 - a1 b1 so that the Fp2
 * product's real part reduces from a non-negative value below 8 p^2 (a0, b0,
 * a1, b1 below 2p, as the lazy forms allow). */
static const uint64_t p2x4_52[16] = {
    0x8000071c638e4ULL, 0x75d8e0baac9aaULL, 0x844f3f5f3b5acULL, 0xdd0c58b0ce0d8ULL,
    0x59afe47b4f9c6ULL, 0xba16a1c246812ULL, 0x672186171eca4ULL, 0x25e3bc0475a18ULL,
    0x729bbd4c524ccULL, 0x414298b3f45b7ULL, 0xb967924d27a2fULL, 0x439439c11ad19ULL,
    0xa88bc97a78b72ULL, 0x0d7f1d2f49e3aULL, 0x0000a90de92e3ULL, 0};

/* T = A B exactly, as sixteen unnormalized columns (each a sum of at most
 * sixteen 52-bit terms, below 2^56); A and B have normalized limbs. */
ZP__VEC void vprod_wide(__m512i T[16], const __m512i A[8], const __m512i B[8])
{
    for (int j = 0; j < 16; j++)
        T[j] = _mm512_setzero_si512();
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            T[i + j] = _mm512_madd52lo_epu64(T[i + j], A[j], B[i]);
            T[i + j + 1] = _mm512_madd52hi_epu64(T[i + j + 1], A[j], B[i]);
        }
}

/*
 * r = T / 2^416 mod p for a column sum T with 0 <= T < 8 p^2 whose columns
 * may be negative (signed 64-bit, magnitude below 2^58): eight Montgomery
 * rounds, each clearing the low column (q reads only its low 52 bits, which
 * are right for a negative column too; the carry out is an arithmetic
 * shift). The result is below 8p^2/2^416 + p < p + 2^349: with reduce one
 * conditional subtraction makes it canonical, without it stays lazy.
 */
ZP__VEC void vredc_wide(__m512i r[8], __m512i T[16], bool reduce)
{
    const __m512i mask = _mm512_set1_epi64((long long)MASK52), zero = _mm512_setzero_si512();
    const __m512i pinv = _mm512_set1_epi64((long long)pinv52);
    __m512i P[8];
    vconst(P, p52);
    for (int i = 0; i < 8; i++) {
        __m512i q = _mm512_and_si512(_mm512_madd52lo_epu64(zero, T[i], pinv), mask);
        for (int j = 0; j < 8; j++) {
            T[i + j] = _mm512_madd52lo_epu64(T[i + j], P[j], q);
            T[i + j + 1] = _mm512_madd52hi_epu64(T[i + j + 1], P[j], q);
        }
        T[i + 1] = _mm512_add_epi64(T[i + 1], _mm512_srai_epi64(T[i], 52));
    }
    vnormalize(T + 8);
    if (reduce) {
        vsub_p_once(r, T + 8);
    } else {
        for (int j = 0; j < 8; j++)
            r[j] = T[8 + j];
    }
}

/* x + y, or x - y + 2p when sub (non-negative for y < 2p), with carries,
 * not reduced: a multiplicand for vmul / vprod_wide (below 4p for x, y
 * below 2p). */
ZP__VEC void vsum_nr(__m512i r[8], const __m512i x[8], const __m512i y[8], bool sub)
{
    for (int j = 0; j < 8; j++)
        r[j] = sub ? _mm512_add_epi64(_mm512_sub_epi64(x[j], y[j]),
                                      _mm512_set1_epi64((long long)(2 * p52[j])))
                   : _mm512_add_epi64(x[j], y[j]);
    vnormalize(r);
}

/* Karatsuba with two reductions instead of three: c0 = a0 b0 - a1 b1 + 4p^2
 * and c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 are formed exactly, then
 * each is reduced once (canonical, or lazy: below p + 2^349). Operands
 * below 2p. */
ZP__VEC void zp__vi2_mul(zp__fp52x8 *o0, zp__fp52x8 *o1, const zp__fp52x8 *a0,
                       const zp__fp52x8 *a1, const zp__fp52x8 *b0, const zp__fp52x8 *b1,
                       bool lazy)
{
    __m512i A0[8], A1[8], B0[8], B1[8], SA[8], SB[8];
    __m512i T0[16], T1[16], TS[16], r0[8], r1[8];
    vload(A0, a0);
    vload(A1, a1);
    vload(B0, b0);
    vload(B1, b1);
    vsum_nr(SA, A0, A1, false);
    vsum_nr(SB, B0, B1, false);
    vprod_wide(T0, A0, B0);
    vprod_wide(T1, A1, B1);
    vprod_wide(TS, SA, SB);
    for (int j = 0; j < 16; j++) {
        TS[j] = _mm512_sub_epi64(TS[j], _mm512_add_epi64(T0[j], T1[j]));
        T0[j] = _mm512_add_epi64(_mm512_sub_epi64(T0[j], T1[j]),
                                 _mm512_set1_epi64((long long)p2x4_52[j]));
    }
    vredc_wide(r0, T0, !lazy);
    vredc_wide(r1, TS, !lazy);
    vstore(o0, r0);
    vstore(o1, r1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1 + 2p) + 2 a0 a1 u: two products.
 * Operands below 2p. */
ZP__VEC void zp__vi2_sqr(zp__fp52x8 *o0, zp__fp52x8 *o1, const zp__fp52x8 *a0,
                       const zp__fp52x8 *a1, bool lazy)
{
    __m512i A0[8], A1[8], S[8], D[8], A2[8], r0[8], r1[8];
    vload(A0, a0);
    vload(A1, a1);
    vsum_nr(S, A0, A1, false);
    vsum_nr(D, A0, A1, true);
    vsum_nr(A2, A0, A0, false);
    if (lazy) {
        vmul_lazy(r0, S, D);
        vmul_lazy(r1, A2, A1);
    } else {
        vmul(r0, S, D);
        vmul(r1, A2, A1);
    }
    vstore(o0, r0);
    vstore(o1, r1);
}

ZP__VEC void zp__vi_mul_lazy(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    __m512i A[8], B[8], t[8];
    vload(A, a);
    vload(B, b);
    vmul_lazy(t, A, B);
    vstore(out, t);
}

ZP__VEC void zp__vi_reduce(zp__fp52x8 *out, const zp__fp52x8 *a)
{
    __m512i A[8], r[8];
    vload(A, a);
    vsub_p_once(r, A);
    vstore(out, r);
}

ZP__VEC void zp__vi_mul(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    __m512i A[8], B[8], r[8];
    vload(A, a);
    vload(B, b);
    vmul(r, A, B);
    vstore(out, r);
}

/* The raw load and store: word i of the eight elements by one gather (or
 * scatter) at their addresses, limbs by shifts. Limb j holds bits 52j ..
 * 52j + 51: word w = 52j / 64 from bit s = 52j % 64, and the next word's
 * low bits when s > 12. */
ZP__VEC __m512i offsets_of(const void *const p[8], const char **base)
{
    *base = (const char *)p[0];
    return _mm512_sub_epi64(_mm512_loadu_si512((const void *)p),
                            _mm512_set1_epi64((long long)(uintptr_t)*base));
}

ZP__VEC void zp__vi_load_raw(zp__fp52x8 *out, const zp_fp *const in[8])
{
    const char *base;
    __m512i off = offsets_of((const void *const *)in, &base), w[6];
    const __m512i mask = _mm512_set1_epi64((long long)MASK52);
    for (int i = 0; i < 6; i++)
        w[i] = _mm512_i64gather_epi64(_mm512_add_epi64(off, _mm512_set1_epi64(8 * i)), base, 1);
    for (int j = 0; j < 8; j++) {
        unsigned bit = 52 * (unsigned)j, wi = bit / 64, sh = bit % 64;
        __m512i v = _mm512_srli_epi64(w[wi], sh);
        if (sh > 12 && wi + 1 < 6)
            v = _mm512_or_si512(v, _mm512_slli_epi64(w[wi + 1], 64 - sh));
        _mm512_store_si512(out->l[j], _mm512_and_si512(v, mask));
    }
}

ZP__VEC void zp__vi_store_raw(zp_fp *const out[8], const zp__fp52x8 *in)
{
    const char *base;
    __m512i off = offsets_of((const void *const *)out, &base), w[6];
    for (int i = 0; i < 6; i++)
        w[i] = _mm512_setzero_si512();
    for (int j = 0; j < 8; j++) {
        unsigned bit = 52 * (unsigned)j, wi = bit / 64, sh = bit % 64;
        __m512i v = _mm512_load_si512(in->l[j]);
        w[wi] = _mm512_or_si512(w[wi], _mm512_slli_epi64(v, sh));
        if (sh > 12 && wi + 1 < 6)
            w[wi + 1] = _mm512_or_si512(w[wi + 1], _mm512_srli_epi64(v, 64 - sh));
    }
    for (int i = 0; i < 6; i++)
        _mm512_i64scatter_epi64((void *)base, _mm512_add_epi64(off, _mm512_set1_epi64(8 * i)),
                                w[i], 1);
}

/* Limb sums of values below p stay below 2^53; normalized, below 2p. */
ZP__VEC void zp__vi_add(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    __m512i A[8], B[8], r[8];
    vload(A, a);
    vload(B, b);
    for (int j = 0; j < 8; j++)
        A[j] = _mm512_add_epi64(A[j], B[j]);
    vnormalize(A);
    vsub_p_once(r, A);
    vstore(out, r);
}

/* a - b limb by limb (negative limbs allowed: the carries are arithmetic
 * shifts); a negative result gets p added back. */
ZP__VEC void zp__vi_sub(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    const __m512i mask = _mm512_set1_epi64((long long)MASK52);
    __m512i A[8], B[8];
    vload(A, a);
    vload(B, b);
    for (int j = 0; j < 8; j++)
        A[j] = _mm512_sub_epi64(A[j], B[j]);
    vnormalize(A); /* the top limb keeps the sign */
    __mmask8 neg = _mm512_cmplt_epi64_mask(A[7], _mm512_setzero_si512());
    for (int j = 0; j < 8; j++)
        A[j] = _mm512_mask_add_epi64(A[j], neg, A[j], _mm512_set1_epi64((long long)p52[j]));
    vnormalize(A);
    A[7] = _mm512_and_si512(A[7], mask);
    vstore(out, A);
}

ZP__VEC unsigned zp__vi_zero_mask(const zp__fp52x8 *a)
{
    __m512i acc = _mm512_setzero_si512();
    for (int j = 0; j < 8; j++)
        acc = _mm512_or_si512(acc, _mm512_load_si512(a->l[j]));
    return (unsigned)_mm512_cmpeq_epi64_mask(acc, _mm512_setzero_si512());
}

#endif

#endif
