/*
 * Device field arithmetic for BLS12-381: Fp as 12 x 32-bit limbs, Fr as
 * 8 x 32-bit limbs, both Montgomery form with R = 2^384 / 2^256 and always
 * fully reduced (< modulus). These are the same bytes as the host's 64-bit
 * limb zp_fp / zp_fr on a little-endian machine, so arrays move between host
 * and device without conversion.
 *
 * The multiply is CIOS over 32-bit words with PTX carry chains. Each
 * iteration adds a*b[i] and then m*p to an (N+1)-word accumulator as two
 * chains each: the low halves of the products land on word j, the high
 * halves on word j+1. Bounds that make N+1 words enough: with a, b < p and
 * 2p < 2^(32N) (true for both fields), the accumulator stays below 2p
 * between iterations and below 2^32 * 2p inside one.
 *
 * Carry chains span several asm statements; they are `volatile` and nothing
 * else is placed between them, which is how nvcc keeps the carry flag.
 */
#ifndef ZP_GPU_FIELD_CUH
#define ZP_GPU_FIELD_CUH

#include <stdint.h>

#include "gpu/field_wide.h"
#include "gpu/mont_eo_wide.h"
#include "gpu/fp_inv.h"

/* Modulus parameters: limb count, limbs, -p^-1 mod 2^32, Montgomery one. */
struct zp__fp_params {
    static constexpr int N = 12;
    static __device__ __forceinline__ uint32_t m(int i)
    {
        switch (i) {
        case 0: return 0xffffaaabu; case 1: return 0xb9feffffu;
        case 2: return 0xb153ffffu; case 3: return 0x1eabfffeu;
        case 4: return 0xf6b0f624u; case 5: return 0x6730d2a0u;
        case 6: return 0xf38512bfu; case 7: return 0x64774b84u;
        case 8: return 0x434bacd7u; case 9: return 0x4b1ba7b6u;
        case 10: return 0x397fe69au; default: return 0x1a0111eau;
        }
    }
    static __device__ __forceinline__ uint32_t one(int i)
    {
        switch (i) {
        case 0: return 0x0002fffdu; case 1: return 0x76090000u;
        case 2: return 0xc40c0002u; case 3: return 0xebf4000bu;
        case 4: return 0x53c758bau; case 5: return 0x5f489857u;
        case 6: return 0x70525745u; case 7: return 0x77ce5853u;
        case 8: return 0xa256ec6du; case 9: return 0x5c071a97u;
        case 10: return 0xfa80e493u; default: return 0x15f65ec3u;
        }
    }
    static constexpr uint32_t inv = 0xfffcfffdu;
};

struct zp__fr_params {
    static constexpr int N = 8;
    static __device__ __forceinline__ uint32_t m(int i)
    {
        switch (i) {
        case 0: return 0x00000001u; case 1: return 0xffffffffu;
        case 2: return 0xfffe5bfeu; case 3: return 0x53bda402u;
        case 4: return 0x09a1d805u; case 5: return 0x3339d808u;
        case 6: return 0x299d7d48u; default: return 0x73eda753u;
        }
    }
    static __device__ __forceinline__ uint32_t one(int i)
    {
        switch (i) {
        case 0: return 0xfffffffeu; case 1: return 0x00000001u;
        case 2: return 0x00034802u; case 3: return 0x5884b7fau;
        case 4: return 0xecbc4ff5u; case 5: return 0x998c4fefu;
        case 6: return 0xacc5056fu; default: return 0x1824b159u;
        }
    }
    static constexpr uint32_t inv = 0xffffffffu;
};

struct fp_t { uint32_t v[12]; };
struct fr_t { uint32_t v[8]; };
struct fp2_t { fp_t c0, c1; }; /* c0 + c1*u, u^2 = -1 */

/* ------------------------------------------------------ generic N-limb core */

/*
 * The product: mont_eo.h's two-chain form unless ZP_MONT_EO=0 (a build
 * variant), which selects the one-chain CIOS of mont_mul_n below.
 */
#ifndef ZP_MONT_EO
#define ZP_MONT_EO 1
#endif
/* Fr's reduction multiplies by its two low modulus words (1 and 2^32 - 1)
 * like the others. ZP_FR_LOW1=1 (a variant) adds them instead (mont_eo.h's
 * low1): fewer multiplier cycles but more instructions, 312 a product
 * instead of 264. On the H200 (session 12, alternating) it wins the
 * independent-product rate (5.91 against 5.66 x 10^10 /s) and loses the
 * NTT, which issues more than it multiplies (2^27 42.63 against 42.34 ms,
 * 2^24 4.87 against 4.81). */
#ifndef ZP_FR_LOW1
#define ZP_FR_LOW1 0
#endif
template <class P>
static __device__ __forceinline__ void mont_mul_eo(uint32_t *r, const uint32_t *a,
                                                   const uint32_t *b)
{
    uint32_t m[P::N];
#pragma unroll
    for (int j = 0; j < P::N; j++)
        m[j] = P::m(j);
    zp__eo_mul(r, a, b, m, P::inv, P::N,
               ZP_FR_LOW1 && P::m(0) == 1 && P::m(1) == 0xffffffffu);
}

template <class P>
static __device__ __forceinline__ void mont_mul_n(uint32_t *r, const uint32_t *a,
                                                  const uint32_t *b)
{
    constexpr int N = P::N;
    uint32_t t[N + 1];
#pragma unroll
    for (int j = 0; j <= N; j++)
        t[j] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        uint32_t bi = b[i];
        /* t += a * b[i]: low halves, then high halves one word up. */
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(a[0]), "r"(bi));
#pragma unroll
        for (int j = 1; j < N; j++)
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a[j]), "r"(bi));
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N]));
        asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a[0]), "r"(bi));
#pragma unroll
        for (int j = 1; j < N - 1; j++)
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a[j]), "r"(bi));
        asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(t[N]) : "r"(a[N - 1]), "r"(bi));

        /* t += m * p makes the low word zero; then shift one word down. */
        uint32_t q = t[0] * P::inv;
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(q), "r"(P::m(0)));
#pragma unroll
        for (int j = 1; j < N; j++)
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(q), "r"(P::m(j)));
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N]));
        asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(q), "r"(P::m(0)));
#pragma unroll
        for (int j = 1; j < N - 1; j++)
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(q), "r"(P::m(j)));
        asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(t[N]) : "r"(q), "r"(P::m(N - 1)));
#pragma unroll
        for (int j = 0; j < N; j++)
            t[j] = t[j + 1];
        t[N] = 0;
    }
    /* t < 2p: subtract p once unless that borrows. */
    uint32_t u[N], br;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(u[0]) : "r"(t[0]), "r"(P::m(0)));
#pragma unroll
    for (int j = 1; j < N; j++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(u[j]) : "r"(t[j]), "r"(P::m(j)));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(br));
#pragma unroll
    for (int j = 0; j < N; j++)
        r[j] = (t[j] & br) | (u[j] & ~br);
}

/* r = a + b mod p (no carry out of N words since 2p < 2^(32N)). */
template <class P>
static __device__ __forceinline__ void mod_add_n(uint32_t *r, const uint32_t *a,
                                                 const uint32_t *b)
{
    constexpr int N = P::N;
    uint32_t t[N], u[N], br;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a[0]), "r"(b[0]));
#pragma unroll
    for (int j = 1; j < N; j++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[j]) : "r"(a[j]), "r"(b[j]));
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(u[0]) : "r"(t[0]), "r"(P::m(0)));
#pragma unroll
    for (int j = 1; j < N; j++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(u[j]) : "r"(t[j]), "r"(P::m(j)));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(br));
#pragma unroll
    for (int j = 0; j < N; j++)
        r[j] = (t[j] & br) | (u[j] & ~br);
}

/* r = a - b mod p: subtract, then add p back under the borrow mask. */
template <class P>
static __device__ __forceinline__ void mod_sub_n(uint32_t *r, const uint32_t *a,
                                                 const uint32_t *b)
{
    constexpr int N = P::N;
    uint32_t t[N], br;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a[0]), "r"(b[0]));
#pragma unroll
    for (int j = 1; j < N; j++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(t[j]) : "r"(a[j]), "r"(b[j]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(br));
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r[0]) : "r"(t[0]), "r"(P::m(0) & br));
#pragma unroll
    for (int j = 1; j < N - 1; j++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r[j]) : "r"(t[j]), "r"(P::m(j) & br));
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r[N - 1]) : "r"(t[N - 1]), "r"(P::m(N - 1) & br));
}

template <int N>
static __device__ __forceinline__ bool limbs_is_zero(const uint32_t *a)
{
    uint32_t acc = 0;
#pragma unroll
    for (int j = 0; j < N; j++)
        acc |= a[j];
    return acc == 0;
}

template <int N>
static __device__ __forceinline__ bool limbs_eq(const uint32_t *a, const uint32_t *b)
{
    uint32_t acc = 0;
#pragma unroll
    for (int j = 0; j < N; j++)
        acc |= a[j] ^ b[j];
    return acc == 0;
}

/* ------------------------------------------------------------------- Fp */

/*
 * The Fp product is out of line unless ZP_FP_MUL_INLINE is defined: one copy
 * of its ~600 instructions instead of one per use keeps the point-addition
 * kernels inside the instruction cache and makes them compile in seconds
 * instead of minutes; a call costs a few dozen register moves.
 */
#ifdef ZP_FP_MUL_INLINE
#define ZP__FP_MUL_ATTR __forceinline__
#else
#define ZP__FP_MUL_ATTR __noinline__
#endif
/*
 * Build variants, measured against the default on the GPU before any
 * becomes the default (bench/msm_variants.sh builds them):
 *   ZP_FP_WIDE=1   fp_mul and fp_sqr from field_wide.h (plain 64-bit
 *                  products that ptxas may turn into IMAD.WIDE) instead of
 *                  the PTX carry chains; fp_sqr then forms 78 products
 *                  instead of 144.
 *   ZP_FP_SQR=1    only the squaring from field_wide.h, the product as is.
 *   ZP_FP2_LAZY=1  fp2_mul as three exact products and two reductions
 *                  (field_wide.h code).
 *   ZP_FP_SQR_EO=0 the squaring as a product instead of mont_eo_wide.h's
 *                  exact square and one wide reduction (the default with
 *                  ZP_MONT_EO; G1 MSM 2^26 437.6 -> 428.2 ms on the H200).
 *   ZP_FP2_EO=1    fp2_mul as Karatsuba on mont_eo_wide.h's exact
 *                  products, two wide reductions (slower, see below).
 * All give the same results as the default (tests/test_gpu_field_wide.c on
 * the host; the variant builds of test_gpu_field / test_gpu_msm on a GPU).
 */
#ifndef ZP_FP_WIDE
#define ZP_FP_WIDE 0
#endif
#ifndef ZP_FP_SQR
#define ZP_FP_SQR ZP_FP_WIDE
#endif
#ifndef ZP_FP_SQR_EO
#define ZP_FP_SQR_EO ZP_MONT_EO
#endif
/* ZP_FP2_FUSED=1 (a variant, not measured yet): the Karatsuba product's
 * three Montgomery products in one out-of-line call. */
#ifndef ZP_FP2_FUSED
#define ZP_FP2_FUSED 0
#endif
/* Off by default: on the H200 it made the G2 MSM slower (2^22: 110.2 ->
 * 119.0 ms, 2026-11-29), its accumulation kernel spilling more registers. */
#ifndef ZP_FP2_EO
#define ZP_FP2_EO 0
#endif
#ifndef ZP_FP2_LAZY
#define ZP_FP2_LAZY 0
#endif
/* ZP_FP_KARA=1 (a variant): fp_mul as mont_eo_wide.h's Karatsuba exact
 * product (108 word products instead of 144) and one wide reduction.
 * ZP_FP_MULSUB=1 (a variant): fp_mulsub(a, b, c, d) = a b - c d as one
 * wide reduction of the exact a b - c d + p^2 instead of two products.
 * Both off: on the H200 (2026-11-29, alternating, medians of 5) G1 MSM
 * 2^24 went 122.4 -> 143.3 ms with KARA, 154.3 with both, 126.4 with
 * MULSUB alone; G2 2^22 107.2 -> 135.2 with both. They issue fewer
 * multiplies (516 instead of 588 per product) but more instructions in
 * all (the adds of the halves, the wide reduction's shifts), and the
 * accumulation follows the instruction count, not the multiplier's. */
#ifndef ZP_FP_KARA
#define ZP_FP_KARA 0
#endif
#ifndef ZP_FP_MULSUB
#define ZP_FP_MULSUB 0
#endif
/* The words of p (m) and of p^2 (p2) for the mont_eo_wide.h pieces. */
static __device__ __forceinline__ void fp_words(uint32_t m[12], uint32_t *p2)
{
#pragma unroll
    for (int j = 0; j < 12; j++)
        m[j] = zp__fp_params::m(j);
    if (p2) {
#pragma unroll
        for (int j = 0; j < 24; j++)
            p2[j] = zp__eo_fp_p2(j);
    }
}
static __device__ ZP__FP_MUL_ATTR fp_t fp_mul(const fp_t a, const fp_t b)
{
    fp_t r;
#if ZP_FP_WIDE
    zp__fpw_mul(r.v, a.v, b.v);
#elif ZP_FP_KARA
    uint32_t t[24], m[12];
    fp_words(m, NULL);
    zp__eo_prod_kara(t, a.v, b.v, 12);
    zp__eo_redc_wide(r.v, t, m, zp__fp_params::inv, 12, 0);
#elif ZP_MONT_EO
    mont_mul_eo<zp__fp_params>(r.v, a.v, b.v);
#else
    mont_mul_n<zp__fp_params>(r.v, a.v, b.v);
#endif
    return r;
}
#if ZP_FP_SQR
static __device__ ZP__FP_MUL_ATTR fp_t fp_sqr_wide(const fp_t a)
{
    fp_t r;
    zp__fpw_sqr(r.v, a.v);
    return r;
}
static __device__ __forceinline__ fp_t fp_sqr(const fp_t &a) { return fp_sqr_wide(a); }
#elif ZP_FP_SQR_EO
/* The exact square (each cross product once) and one wide reduction. */
static __device__ ZP__FP_MUL_ATTR fp_t fp_sqr_eo(const fp_t a)
{
    uint32_t t[24], m[12];
    fp_words(m, NULL);
    fp_t r;
    zp__eo_sqr_wide(t, a.v, 12);
    zp__eo_redc_wide(r.v, t, m, zp__fp_params::inv, 12, 0);
    return r;
}
static __device__ __forceinline__ fp_t fp_sqr(const fp_t &a) { return fp_sqr_eo(a); }
#else
static __device__ __forceinline__ fp_t fp_sqr(const fp_t &a) { return fp_mul(a, a); }
#endif
static __device__ __forceinline__ fp_t fp_add(const fp_t &a, const fp_t &b)
{
    fp_t r;
    mod_add_n<zp__fp_params>(r.v, a.v, b.v);
    return r;
}
static __device__ __forceinline__ fp_t fp_sub(const fp_t &a, const fp_t &b)
{
    fp_t r;
    mod_sub_n<zp__fp_params>(r.v, a.v, b.v);
    return r;
}
static __device__ __forceinline__ fp_t fp_dbl(const fp_t &a) { return fp_add(a, a); }
#if ZP_FP_MULSUB
static __device__ ZP__FP_MUL_ATTR fp_t fp_mulsub(const fp_t a, const fp_t b, const fp_t c,
                                                 const fp_t d)
{
    uint32_t t[24], m[12], p2[24];
    fp_words(m, p2);
    fp_t r;
    zp__eo_mulsub_wide(t, a.v, b.v, c.v, d.v, p2, 12, ZP_FP_KARA);
    zp__eo_redc_wide(r.v, t, m, zp__fp_params::inv, 12, 0);
    return r;
}
#else
static __device__ __forceinline__ fp_t fp_mulsub(const fp_t &a, const fp_t &b, const fp_t &c,
                                                 const fp_t &d)
{
    return fp_sub(fp_mul(a, b), fp_mul(c, d));
}
#endif
static __device__ __forceinline__ fp_t fp_zero(void)
{
    fp_t r;
#pragma unroll
    for (int j = 0; j < 12; j++)
        r.v[j] = 0;
    return r;
}
static __device__ __forceinline__ fp_t fp_one(void)
{
    fp_t r;
#pragma unroll
    for (int j = 0; j < 12; j++)
        r.v[j] = zp__fp_params::one(j);
    return r;
}
static __device__ __forceinline__ fp_t fp_neg(const fp_t &a) { return fp_sub(fp_zero(), a); }
static __device__ __forceinline__ bool fp_is_zero(const fp_t &a) { return limbs_is_zero<12>(a.v); }
static __device__ __forceinline__ bool fp_eq(const fp_t &a, const fp_t &b)
{
    return limbs_eq<12>(a.v, b.v);
}

/* ------------------------------------------------------------------- Fr */

static __device__ __forceinline__ fr_t fr_mul(const fr_t &a, const fr_t &b)
{
    fr_t r;
#if ZP_MONT_EO
    mont_mul_eo<zp__fr_params>(r.v, a.v, b.v);
#else
    mont_mul_n<zp__fr_params>(r.v, a.v, b.v);
#endif
    return r;
}
static __device__ __forceinline__ fr_t fr_add(const fr_t &a, const fr_t &b)
{
    fr_t r;
    mod_add_n<zp__fr_params>(r.v, a.v, b.v);
    return r;
}
static __device__ __forceinline__ fr_t fr_sub(const fr_t &a, const fr_t &b)
{
    fr_t r;
    mod_sub_n<zp__fr_params>(r.v, a.v, b.v);
    return r;
}
static __device__ __forceinline__ fr_t fr_zero(void)
{
    fr_t r;
#pragma unroll
    for (int j = 0; j < 8; j++)
        r.v[j] = 0;
    return r;
}
static __device__ __forceinline__ fr_t fr_one(void)
{
    fr_t r;
#pragma unroll
    for (int j = 0; j < 8; j++)
        r.v[j] = zp__fr_params::one(j);
    return r;
}
static __device__ __forceinline__ fr_t fr_neg(const fr_t &a) { return fr_sub(fr_zero(), a); }
static __device__ __forceinline__ bool fr_is_zero(const fr_t &a) { return limbs_is_zero<8>(a.v); }
static __device__ __forceinline__ bool fr_eq(const fr_t &a, const fr_t &b)
{
    return limbs_eq<8>(a.v, b.v);
}
static __device__ __forceinline__ bool fr_is_one(const fr_t &a)
{
    uint32_t acc = 0;
#pragma unroll
    for (int j = 0; j < 8; j++)
        acc |= a.v[j] ^ zp__fr_params::one(j);
    return acc == 0;
}
/* a == -1, i.e. p - one in Montgomery form. */
static __device__ __forceinline__ bool fr_is_minus_one(const fr_t &a)
{
    fr_t m1 = fr_neg(fr_one());
    return fr_eq(a, m1);
}

/* Fr loads and stores as two 16-byte accesses (arrays are 32-byte aligned). */
static __device__ __forceinline__ fr_t fr_load(const fr_t *p)
{
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    uint4 a = q[0], b = q[1];
    fr_t r = {{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w}};
    return r;
}
static __device__ __forceinline__ void fr_store(fr_t *p, const fr_t &v)
{
    uint4 *q = reinterpret_cast<uint4 *>(p);
    q[0] = make_uint4(v.v[0], v.v[1], v.v[2], v.v[3]);
    q[1] = make_uint4(v.v[4], v.v[5], v.v[6], v.v[7]);
}
static __device__ __forceinline__ fp_t fp_load(const fp_t *p)
{
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    fp_t r;
#pragma unroll
    for (int k = 0; k < 3; k++) {
        uint4 a = q[k];
        r.v[4 * k] = a.x;
        r.v[4 * k + 1] = a.y;
        r.v[4 * k + 2] = a.z;
        r.v[4 * k + 3] = a.w;
    }
    return r;
}
static __device__ __forceinline__ void fp_store(fp_t *p, const fp_t &v)
{
    uint4 *q = reinterpret_cast<uint4 *>(p);
#pragma unroll
    for (int k = 0; k < 3; k++)
        q[k] = make_uint4(v.v[4 * k], v.v[4 * k + 1], v.v[4 * k + 2], v.v[4 * k + 3]);
}

/* ------------------------------------------------------------------ Fp2 */

static __device__ __forceinline__ fp2_t fp2_add(const fp2_t &a, const fp2_t &b)
{
    return fp2_t{fp_add(a.c0, b.c0), fp_add(a.c1, b.c1)};
}
static __device__ __forceinline__ fp2_t fp2_sub(const fp2_t &a, const fp2_t &b)
{
    return fp2_t{fp_sub(a.c0, b.c0), fp_sub(a.c1, b.c1)};
}
static __device__ __forceinline__ fp2_t fp2_dbl(const fp2_t &a)
{
    return fp2_t{fp_dbl(a.c0), fp_dbl(a.c1)};
}
#if ZP_FP2_LAZY
/* Karatsuba on exact products, two reductions (field_wide.h); out of line
 * for the same reason as fp_mul. */
static __device__ __noinline__ fp2_t fp2_mul_lazy(const fp2_t a, const fp2_t b)
{
    fp2_t r;
    zp__fp2w_mul(r.c0.v, r.c1.v, a.c0.v, a.c1.v, b.c0.v, b.c1.v);
    return r;
}
static __device__ __forceinline__ fp2_t fp2_mul(const fp2_t &a, const fp2_t &b)
{
    return fp2_mul_lazy(a, b);
}
#elif ZP_FP2_EO
/* Karatsuba on exact products, two wide reductions (mont_eo_wide.h). */
static __device__ __noinline__ fp2_t fp2_mul_eo(const fp2_t a, const fp2_t b)
{
    uint32_t m[12], p2[24];
    fp_words(m, p2);
    fp2_t r;
    zp__eo_fp2_mul(r.c0.v, r.c1.v, a.c0.v, a.c1.v, b.c0.v, b.c1.v, m, p2, zp__fp_params::inv, 12);
    return r;
}
static __device__ __forceinline__ fp2_t fp2_mul(const fp2_t &a, const fp2_t &b)
{
    return fp2_mul_eo(a, b);
}
#elif ZP_FP2_FUSED
/* Karatsuba, its three Montgomery products in one call: six independent
 * carry chains for the scheduler instead of two per call. */
static __device__ __noinline__ fp2_t fp2_mul_fused(const fp2_t a, const fp2_t b)
{
    fp_t t0, t1, t2, sa = fp_add(a.c0, a.c1), sb = fp_add(b.c0, b.c1);
    mont_mul_eo<zp__fp_params>(t0.v, a.c0.v, b.c0.v);
    mont_mul_eo<zp__fp_params>(t1.v, a.c1.v, b.c1.v);
    mont_mul_eo<zp__fp_params>(t2.v, sa.v, sb.v);
    return fp2_t{fp_sub(t0, t1), fp_sub(fp_sub(t2, t0), t1)};
}
static __device__ __forceinline__ fp2_t fp2_mul(const fp2_t &a, const fp2_t &b)
{
    return fp2_mul_fused(a, b);
}
#else
/* Karatsuba: three Fp products. */
static __device__ __forceinline__ fp2_t fp2_mul(const fp2_t &a, const fp2_t &b)
{
    fp_t t0 = fp_mul(a.c0, b.c0);
    fp_t t1 = fp_mul(a.c1, b.c1);
    fp_t t2 = fp_mul(fp_add(a.c0, a.c1), fp_add(b.c0, b.c1));
    return fp2_t{fp_sub(t0, t1), fp_sub(fp_sub(t2, t0), t1)};
}
#endif
/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: two Fp products. */
static __device__ __forceinline__ fp2_t fp2_sqr(const fp2_t &a)
{
    fp_t t = fp_mul(a.c0, a.c1);
    return fp2_t{fp_mul(fp_add(a.c0, a.c1), fp_sub(a.c0, a.c1)), fp_dbl(t)};
}
static __device__ __forceinline__ fp2_t fp2_zero(void) { return fp2_t{fp_zero(), fp_zero()}; }
static __device__ __forceinline__ fp2_t fp2_one(void) { return fp2_t{fp_one(), fp_zero()}; }
static __device__ __forceinline__ fp2_t fp2_neg(const fp2_t &a)
{
    return fp2_t{fp_neg(a.c0), fp_neg(a.c1)};
}
static __device__ __forceinline__ bool fp2_is_zero(const fp2_t &a)
{
    return fp_is_zero(a.c0) && fp_is_zero(a.c1);
}
static __device__ __forceinline__ fp2_t fp2_load(const fp2_t *p)
{
    const fp_t *q = reinterpret_cast<const fp_t *>(p);
    return fp2_t{fp_load(q), fp_load(q + 1)};
}
static __device__ __forceinline__ void fp2_store(fp2_t *p, const fp2_t &v)
{
    fp_t *q = reinterpret_cast<fp_t *>(p);
    fp_store(q, v.c0);
    fp_store(q + 1, v.c1);
}

/* a^-1, zero for zero: divsteps (fp_inv.h), ~30k instructions. Out of
 * line: a batch inversion calls it once for many products. */
static __device__ __noinline__ fp_t fp_inv(const fp_t a)
{
    fp_t r;
    zp__fpi_inv(r.v, a.v);
    return r;
}

/* 1 / (a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2). */
static __device__ __forceinline__ fp2_t fp2_inv(const fp2_t &a)
{
    fp_t t = fp_inv(fp_add(fp_sqr(a.c0), fp_sqr(a.c1)));
    return fp2_t{fp_mul(a.c0, t), fp_neg(fp_mul(a.c1, t))};
}

/* Overloads so that curve code is written once for G1 (Fp) and G2 (Fp2). */
static __device__ __forceinline__ fp_t f_mul(const fp_t &a, const fp_t &b) { return fp_mul(a, b); }
static __device__ __forceinline__ fp_t f_sqr(const fp_t &a) { return fp_sqr(a); }
/* a b - c d */
static __device__ __forceinline__ fp_t f_mulsub(const fp_t &a, const fp_t &b, const fp_t &c,
                                                const fp_t &d)
{
    return fp_mulsub(a, b, c, d);
}
static __device__ __forceinline__ fp_t f_add(const fp_t &a, const fp_t &b) { return fp_add(a, b); }
static __device__ __forceinline__ fp_t f_sub(const fp_t &a, const fp_t &b) { return fp_sub(a, b); }
static __device__ __forceinline__ fp_t f_dbl(const fp_t &a) { return fp_dbl(a); }
static __device__ __forceinline__ fp_t f_neg(const fp_t &a) { return fp_neg(a); }
static __device__ __forceinline__ bool f_is_zero(const fp_t &a) { return fp_is_zero(a); }
static __device__ __forceinline__ void f_set_zero(fp_t &a) { a = fp_zero(); }
static __device__ __forceinline__ void f_set_one(fp_t &a) { a = fp_one(); }
static __device__ __forceinline__ fp_t f_inv(const fp_t &a) { return fp_inv(a); }
static __device__ __forceinline__ fp_t f_load(const fp_t *p) { return fp_load(p); }
static __device__ __forceinline__ void f_store(fp_t *p, const fp_t &v) { fp_store(p, v); }

static __device__ __forceinline__ fp2_t f_mul(const fp2_t &a, const fp2_t &b) { return fp2_mul(a, b); }
static __device__ __forceinline__ fp2_t f_sqr(const fp2_t &a) { return fp2_sqr(a); }
static __device__ __forceinline__ fp2_t f_mulsub(const fp2_t &a, const fp2_t &b, const fp2_t &c,
                                                 const fp2_t &d)
{
    return fp2_sub(fp2_mul(a, b), fp2_mul(c, d));
}
static __device__ __forceinline__ fp2_t f_add(const fp2_t &a, const fp2_t &b) { return fp2_add(a, b); }
static __device__ __forceinline__ fp2_t f_sub(const fp2_t &a, const fp2_t &b) { return fp2_sub(a, b); }
static __device__ __forceinline__ fp2_t f_dbl(const fp2_t &a) { return fp2_dbl(a); }
static __device__ __forceinline__ fp2_t f_neg(const fp2_t &a) { return fp2_neg(a); }
static __device__ __forceinline__ bool f_is_zero(const fp2_t &a) { return fp2_is_zero(a); }
static __device__ __forceinline__ void f_set_zero(fp2_t &a) { a = fp2_zero(); }
static __device__ __forceinline__ void f_set_one(fp2_t &a) { a = fp2_one(); }
static __device__ __forceinline__ fp2_t f_inv(const fp2_t &a) { return fp2_inv(a); }
static __device__ __forceinline__ fp2_t f_load(const fp2_t *p) { return fp2_load(p); }
static __device__ __forceinline__ void f_store(fp2_t *p, const fp2_t &v) { fp2_store(p, v); }


/*
 * f_mul2: two independent products. With ZP_FP_PAIR=1 (a build variant) the
 * Fp pair is one out-of-line call of two two-chain products (four
 * independent carry chains for the scheduler; before mont_eo.h it was
 * field_wide.h code, no faster then). Otherwise, and for Fp2, two calls.
 */
#ifndef ZP_FP_PAIR
#define ZP_FP_PAIR 0
#endif
#if ZP_FP_PAIR
struct fp_pair_t { fp_t a, b; };
static __device__ __noinline__ fp_pair_t fp_mul_pair(const fp_t a, const fp_t b, const fp_t c,
                                                     const fp_t d)
{
    fp_pair_t r;
    mont_mul_eo<zp__fp_params>(r.a.v, a.v, b.v);
    mont_mul_eo<zp__fp_params>(r.b.v, c.v, d.v);
    return r;
}
static __device__ __forceinline__ void f_mul2(fp_t &r, fp_t &s, const fp_t &a, const fp_t &b,
                                              const fp_t &c, const fp_t &d)
{
    fp_pair_t t = fp_mul_pair(a, b, c, d);
    r = t.a;
    s = t.b;
}
#else
static __device__ __forceinline__ void f_mul2(fp_t &r, fp_t &s, const fp_t &a, const fp_t &b,
                                              const fp_t &c, const fp_t &d)
{
    r = fp_mul(a, b);
    s = fp_mul(c, d);
}
#endif
static __device__ __forceinline__ void f_mul2(fp2_t &r, fp2_t &s, const fp2_t &a, const fp2_t &b,
                                              const fp2_t &c, const fp2_t &d)
{
    r = fp2_mul(a, b);
    s = fp2_mul(c, d);
}

#endif
