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

/* Limbs of a value below 2^416 (six words) into lane k, and back. */
static void split(zp__fp52x8 *out, int k, const zp_fp *y)
{
    for (int j = 0; j < 8; j++) {
        unsigned bit = 52 * (unsigned)j, w = bit / 64, sh = bit % 64;
        uint64_t v = w < 6 ? y->l[w] >> sh : 0;
        if (sh > 12 && w + 1 < 6)
            v |= y->l[w + 1] << (64 - sh);
        out->l[j][k] = v & MASK52;
    }
}

static void join(zp_fp *y, const zp__fp52x8 *in, int k)
{
    memset(y, 0, sizeof *y);
    for (int j = 0; j < 8; j++) {
        unsigned bit = 52 * (unsigned)j, w = bit / 64, sh = bit % 64;
        uint64_t v = in->l[j][k];
        if (w < 6)
            y->l[w] |= v << sh;
        if (sh > 12 && w + 1 < 6)
            y->l[w + 1] |= v >> (64 - sh);
    }
}

void zp__fp52x8_from(zp__fp52x8 *out, const zp_fp in[8])
{
    for (int k = 0; k < 8; k++) {
        zp_fp y;
        zp_fp_mul(&y, &in[k], &to_r52);
        split(out, k, &y);
    }
}

void zp__fp52x8_to(zp_fp out[8], const zp__fp52x8 *in)
{
    for (int k = 0; k < 8; k++) {
        zp_fp y;
        join(&y, in, k);
        zp_fp_mul(&out[k], &y, &from_r52);
    }
}

void zp__fp_to_r52(zp_fp *out, const zp_fp *in) { zp_fp_mul(out, in, &to_r52); }

void zp__fp_from_r52(zp_fp *out, const zp_fp *in) { zp_fp_mul(out, in, &from_r52); }

#if defined(__x86_64__) && defined(__GNUC__) && !defined(ZP_NO_ASM)

#include <cpuid.h>
#include <immintrin.h>

/* 2^448 and 2^384 mod p in radix 2^52: a product by the first turns an
 * R-form value read as limbs into R' form, by the second back. */
static const uint64_t k448[8] = {0x7fde37dba9366ULL, 0x4e27525bc342bULL, 0x1f5b1e9778489ULL,
                                 0xb872b2b91b9dcULL, 0xb206f497dfcafULL, 0x4137cc89a9b0bULL,
                                 0xd9d20d7e39959ULL, 0x000000000411cULL};
static const uint64_t k384[8] = {0x900000002fffdULL, 0x0bc40c0002760ULL, 0x3c758baebf400ULL,
                                 0x57455f4898575ULL, 0xd77ce58537052ULL, 0x071a97a256ec6ULL,
                                 0xec3fa80e4935cULL, 0x0000000015f65ULL};

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

#define TGT __attribute__((target("avx512f,avx512ifma")))

TGT static void vload(__m512i v[8], const zp__fp52x8 *x)
{
    for (int j = 0; j < 8; j++)
        v[j] = _mm512_load_si512(x->l[j]);
}

TGT static void vstore(zp__fp52x8 *x, const __m512i v[8])
{
    for (int j = 0; j < 8; j++)
        _mm512_store_si512(x->l[j], v[j]);
}

TGT static void vconst(__m512i v[8], const uint64_t c[8])
{
    for (int j = 0; j < 8; j++)
        v[j] = _mm512_set1_epi64((long long)c[j]);
}

/* r = t - p unless that borrows, else t, for normalized t < 2p. */
TGT static void vsub_p_once(__m512i r[8], const __m512i t[8])
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
TGT static void vnormalize(__m512i t[8])
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
TGT static void vmul_lazy(__m512i t[8], const __m512i A[8], const __m512i B[8])
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

TGT static void vmul(__m512i r[8], const __m512i A[8], const __m512i B[8])
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
TGT static void vprod_wide(__m512i T[16], const __m512i A[8], const __m512i B[8])
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
TGT static void vredc_wide(__m512i r[8], __m512i T[16], bool reduce)
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
TGT static void vsum_nr(__m512i r[8], const __m512i x[8], const __m512i y[8], bool sub)
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
TGT void zp__fp2x8_mul(zp__fp52x8 *o0, zp__fp52x8 *o1, const zp__fp52x8 *a0,
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
TGT void zp__fp2x8_sqr(zp__fp52x8 *o0, zp__fp52x8 *o1, const zp__fp52x8 *a0,
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

TGT void zp__fp52x8_mul_lazy(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    __m512i A[8], B[8], t[8];
    vload(A, a);
    vload(B, b);
    vmul_lazy(t, A, B);
    vstore(out, t);
}

TGT void zp__fp52x8_reduce(zp__fp52x8 *out, const zp__fp52x8 *a)
{
    __m512i A[8], r[8];
    vload(A, a);
    vsub_p_once(r, A);
    vstore(out, r);
}

TGT void zp__fp52x8_mul(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    __m512i A[8], B[8], r[8];
    vload(A, a);
    vload(B, b);
    vmul(r, A, B);
    vstore(out, r);
}

TGT void zp__fp52x8_load(zp__fp52x8 *out, const zp_fp *const in[8])
{
    zp__fp52x8 raw;
    for (int k = 0; k < 8; k++)
        split(&raw, k, in[k]);
    __m512i X[8], K[8], r[8];
    vload(X, &raw);
    vconst(K, k448);
    vmul(r, X, K);
    vstore(out, r);
}

TGT void zp__fp52x8_store(zp_fp *const out[8], const zp__fp52x8 *in)
{
    zp__fp52x8 raw;
    __m512i X[8], K[8], r[8];
    vload(X, in);
    vconst(K, k384);
    vmul(r, X, K);
    vstore(&raw, r);
    for (int k = 0; k < 8; k++)
        join(out[k], &raw, k);
}

/* The raw load and store: word i of the eight elements by one gather (or
 * scatter) at their addresses, limbs by shifts. Limb j holds bits 52j ..
 * 52j + 51: word w = 52j / 64 from bit s = 52j % 64, and the next word's
 * low bits when s > 12. */
TGT static __m512i offsets_of(const void *const p[8], const char **base)
{
    *base = (const char *)p[0];
    return _mm512_sub_epi64(_mm512_loadu_si512((const void *)p),
                            _mm512_set1_epi64((long long)(uintptr_t)*base));
}

TGT void zp__fp52x8_load_raw(zp__fp52x8 *out, const zp_fp *const in[8])
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

TGT void zp__fp52x8_store_raw(zp_fp *const out[8], const zp__fp52x8 *in)
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
TGT void zp__fp52x8_add(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
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
TGT void zp__fp52x8_sub(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
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

TGT unsigned zp__fp52x8_zero_mask(const zp__fp52x8 *a)
{
    __m512i acc = _mm512_setzero_si512();
    for (int j = 0; j < 8; j++)
        acc = _mm512_or_si512(acc, _mm512_load_si512(a->l[j]));
    return (unsigned)_mm512_cmpeq_epi64_mask(acc, _mm512_setzero_si512());
}

#else

bool zp__ifma_available(void) { return false; }

/* Never called: zp__ifma_available() is false. */
void zp__fp52x8_mul(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    (void)out, (void)a, (void)b;
}
void zp__fp52x8_load(zp__fp52x8 *out, const zp_fp *const in[8]) { (void)out, (void)in; }
void zp__fp52x8_mul_lazy(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    (void)out, (void)a, (void)b;
}
void zp__fp52x8_reduce(zp__fp52x8 *out, const zp__fp52x8 *a) { (void)out, (void)a; }
void zp__fp2x8_mul(zp__fp52x8 *o0, zp__fp52x8 *o1, const zp__fp52x8 *a0, const zp__fp52x8 *a1,
                   const zp__fp52x8 *b0, const zp__fp52x8 *b1, bool lazy)
{
    (void)o0, (void)o1, (void)a0, (void)a1, (void)b0, (void)b1, (void)lazy;
}
void zp__fp2x8_sqr(zp__fp52x8 *o0, zp__fp52x8 *o1, const zp__fp52x8 *a0, const zp__fp52x8 *a1,
                   bool lazy)
{
    (void)o0, (void)o1, (void)a0, (void)a1, (void)lazy;
}
void zp__fp52x8_load_raw(zp__fp52x8 *out, const zp_fp *const in[8])
{
    for (int k = 0; k < 8; k++)
        split(out, k, in[k]);
}
void zp__fp52x8_store_raw(zp_fp *const out[8], const zp__fp52x8 *in)
{
    for (int k = 0; k < 8; k++)
        join(out[k], in, k);
}
void zp__fp52x8_store(zp_fp *const out[8], const zp__fp52x8 *in) { (void)out, (void)in; }
void zp__fp52x8_add(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    (void)out, (void)a, (void)b;
}
void zp__fp52x8_sub(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    (void)out, (void)a, (void)b;
}
unsigned zp__fp52x8_zero_mask(const zp__fp52x8 *a)
{
    (void)a;
    return 0;
}

#endif
