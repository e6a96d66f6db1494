/*
 * The IFMA kernels of fp_ifma.h. The vector code is compiled for AVX512F +
 * AVX512IFMA by a target attribute, so the rest of the library keeps its
 * baseline; callers check zp__ifma_available() first.
 *
 * Product (CIOS in radix 2^52, n = 8 limbs, all eight lanes at once):
 *   for i in 0..7:
 *     t[j] += lo52(a[j] b[i]), t[j+1] += hi52(a[j] b[i])      (j = 0..7)
 *     q = lo52(t[0] * (-p^-1 mod 2^52))
 *     t[j] += lo52(p[j] q),    t[j+1] += hi52(p[j] q)
 *     t[0] is now 0 mod 2^52: t[1] += t[0] >> 52, shift t down a limb.
 * The accumulators are 64-bit lanes holding unnormalized limbs: a limb takes
 * at most four 52-bit terms per round for at most nine rounds, below 2^58.
 * vpmadd52 reads only the low 52 bits of its multiplicands, which are the
 * normalized a, b, p and q, never t (whose low bits are all q needs).
 * At the end t = (a b + Q p) / 2^416 < 2p (p < 2^381, 4p < 2^416): carries
 * are propagated and p subtracted once unless that borrows.
 */
#include <string.h>

#include "math/fp_ifma.h"

#define MASK52 ((uint64_t)0xfffffffffffff)

/* p in radix 2^52, and -p^-1 mod 2^52. */
static const uint64_t p52[8] = {0xeffffffffaaabULL, 0xfeb153ffffb9fULL, 0x6b0f6241eabffULL,
                                0x12bf6730d2a0fULL, 0x764774b84f385ULL, 0x1ba7b6434bacdULL,
                                0x1ea397fe69a4bULL, 0x000000001a011ULL};
static const uint64_t pinv52 = 0x3fffcfffcfffdULL;

/* 2^416 and 2^352 mod p as library constants: a Montgomery product by the
 * first multiplies by 2^32 (R form to R' form), by the second divides. */
static const zp_fp to_r52 = {{0x44f6480ea8e9b9afULL, 0xa96f7d65766c8fe4ULL, 0xe82efd4228b540feULL,
                              0x6723e5f0ade53b2eULL, 0x25ff6eb6fdd4230aULL, 0x14c8ee06ef23c24aULL}};
static const zp_fp from_r52 = {{0, 0, 0, 0, 0, 0x0000000100000000ULL}};

void zp__fp52x8_from(zp__fp52x8 *out, const zp_fp in[8])
{
    for (int k = 0; k < 8; k++) {
        zp_fp y;
        zp_fp_mul(&y, &in[k], &to_r52);
        for (int j = 0; j < 8; j++) {
            unsigned bit = 52 * (unsigned)j, w = bit / 64, sh = bit % 64;
            uint64_t v = w < 6 ? y.l[w] >> sh : 0;
            if (sh > 12 && w + 1 < 6)
                v |= y.l[w + 1] << (64 - sh);
            out->l[j][k] = v & MASK52;
        }
    }
}

void zp__fp52x8_to(zp_fp out[8], const zp__fp52x8 *in)
{
    for (int k = 0; k < 8; k++) {
        zp_fp y;
        memset(&y, 0, sizeof y);
        for (int j = 0; j < 8; j++) {
            unsigned bit = 52 * (unsigned)j, w = bit / 64, sh = bit % 64;
            uint64_t v = in->l[j][k];
            if (w < 6)
                y.l[w] |= v << sh;
            if (sh > 12 && w + 1 < 6)
                y.l[w + 1] |= v >> (64 - sh);
        }
        zp_fp_mul(&out[k], &y, &from_r52);
    }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(ZP_NO_ASM)

#include <cpuid.h>
#include <immintrin.h>

bool zp__ifma_available(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c >> 27 & 1)) /* OSXSAVE */
        return false;
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 0xe6) != 0xe6) /* SSE, AVX, opmask and both ZMM halves saved */
        return false;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    return (b >> 16 & 1) && (b >> 21 & 1); /* AVX512F, AVX512IFMA */
}

__attribute__((target("avx512f,avx512ifma"))) void
zp__fp52x8_mul(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    const __m512i mask = _mm512_set1_epi64((long long)MASK52), zero = _mm512_setzero_si512();
    const __m512i pinv = _mm512_set1_epi64((long long)pinv52);
    __m512i A[8], P[8], t[9];
    for (int j = 0; j < 8; j++) {
        A[j] = _mm512_load_si512(a->l[j]);
        P[j] = _mm512_set1_epi64((long long)p52[j]);
        t[j] = zero;
    }
    t[8] = zero;
    for (int i = 0; i < 8; i++) {
        __m512i bi = _mm512_load_si512(b->l[i]);
        for (int j = 0; j < 8; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], A[j], bi);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], A[j], bi);
        }
        __m512i q = _mm512_and_si512(_mm512_madd52lo_epu64(zero, t[0], pinv), mask);
        for (int j = 0; j < 8; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], P[j], q);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], P[j], q);
        }
        t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52));
        for (int j = 0; j < 8; j++)
            t[j] = t[j + 1];
        t[8] = zero;
    }
    /* Normalize to 52-bit limbs (t < 2p fits eight of them). */
    for (int j = 0; j < 7; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], mask);
    }
    /* d = t - p limb by limb with a borrow; keep t where the last borrows. */
    __m512i d[8], borrow = zero;
    for (int j = 0; j < 8; j++) {
        __m512i x = _mm512_sub_epi64(_mm512_sub_epi64(t[j], P[j]), borrow);
        borrow = _mm512_srli_epi64(x, 63);
        d[j] = _mm512_and_si512(x, mask);
    }
    __mmask8 keep_t = _mm512_test_epi64_mask(borrow, borrow);
    for (int j = 0; j < 8; j++)
        _mm512_store_si512(out->l[j], _mm512_mask_blend_epi64(keep_t, d[j], t[j]));
}

#else

bool zp__ifma_available(void) { return false; }

void zp__fp52x8_mul(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    (void)out;
    (void)a;
    (void)b;
}

#endif
