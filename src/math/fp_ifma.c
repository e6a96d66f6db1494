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

#include "math/fp_ifma_vec.h"

#ifndef MASK52
#define MASK52 ((uint64_t)0xfffffffffffff)
#endif

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

#define TGT ZP__VEC_TARGET

TGT void zp__fp2x8_mul(zp__fp52x8 *o0, zp__fp52x8 *o1, const zp__fp52x8 *a0,
                       const zp__fp52x8 *a1, const zp__fp52x8 *b0, const zp__fp52x8 *b1,
                       bool lazy)
{
    zp__vi2_mul(o0, o1, a0, a1, b0, b1, lazy);
}

TGT void zp__fp2x8_sqr(zp__fp52x8 *o0, zp__fp52x8 *o1, const zp__fp52x8 *a0,
                       const zp__fp52x8 *a1, bool lazy)
{
    zp__vi2_sqr(o0, o1, a0, a1, lazy);
}

TGT void zp__fp52x8_mul_lazy(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    zp__vi_mul_lazy(out, a, b);
}

TGT void zp__fp52x8_reduce(zp__fp52x8 *out, const zp__fp52x8 *a) { zp__vi_reduce(out, a); }

TGT void zp__fp52x8_mul(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    zp__vi_mul(out, a, b);
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

TGT void zp__fp52x8_load_raw(zp__fp52x8 *out, const zp_fp *const in[8])
{
    zp__vi_load_raw(out, in);
}

TGT void zp__fp52x8_store_raw(zp_fp *const out[8], const zp__fp52x8 *in)
{
    zp__vi_store_raw(out, in);
}

TGT void zp__fp52x8_add(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    zp__vi_add(out, a, b);
}

TGT void zp__fp52x8_sub(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b)
{
    zp__vi_sub(out, a, b);
}

TGT unsigned zp__fp52x8_zero_mask(const zp__fp52x8 *a) { return zp__vi_zero_mask(a); }


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
