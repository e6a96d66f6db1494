/*
 * Device field arithmetic for BLS12-381: Fp as 12 x 32-bit limbs, Fr as
 * 8 x 32-bit limbs, both Montgomery form with R = 2^384 / 2^256 and always
 * fully reduced (< modulus). These are the same bytes as the host's 64-bit
 * limb zp_fp / zp_fr on a little-endian machine, so arrays move between host
 * and device without conversion.
 *
 * The product is Montgomery's over 32-bit words with PTX carry chains,
 * the even and odd words of each step in two independent chains
 * (mont_eo.h); the Fp square forms each cross product once and reduces
 * once (mont_eo_wide.h); the Fp inverse runs divsteps (fp_inv.h).
 *
 * Carry chains span several asm statements; they are `volatile` and nothing
 * else is placed between them, which is how nvcc keeps the carry flag.
 */
#ifndef ZP_GPU_FIELD_CUH
#define ZP_GPU_FIELD_CUH

#include <stdint.h>

#include "gpu/fp_inv.h"
#include "gpu/mont_eo_wide.h"

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

/* The product: mont_eo.h's two-chain Montgomery product. Fr's reduction
 * multiplies by its two low modulus words (1 and 2^32 - 1) like the
 * others: taking them as adds would save multiplier cycles but cost more
 * instructions, and the NTT issues more than it multiplies. */
template <class P>
static __device__ __forceinline__ void mont_mul_eo(uint32_t *r, const uint32_t *a,
                                                   const uint32_t *b)
{
    uint32_t m[P::N];
#pragma unroll
    for (int j = 0; j < P::N; j++)
        m[j] = P::m(j);
    zp__eo_mul(r, a, b, m, P::inv, P::N);
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
 * The Fp product is out of line: one copy of its ~600 instructions instead
 * of one per use keeps the point-addition kernels inside the instruction
 * cache and makes them compile in seconds instead of minutes; a call costs
 * a few dozen register moves.
 */
static __device__ __noinline__ fp_t fp_mul(const fp_t a, const fp_t b)
{
    fp_t r;
    mont_mul_eo<zp__fp_params>(r.v, a.v, b.v);
    return r;
}
/* The square: the exact square (each cross product once, mont_eo_wide.h)
 * and one wide reduction; out of line like fp_mul. */
static __device__ __noinline__ fp_t fp_sqr_eo(const fp_t a)
{
    uint32_t t[24], m[12];
#pragma unroll
    for (int j = 0; j < 12; j++)
        m[j] = zp__fp_params::m(j);
    fp_t r;
    zp__eo_sqr_wide(t, a.v, 12);
    zp__eo_redc_wide(r.v, t, m, zp__fp_params::inv, 12);
    return r;
}
static __device__ __forceinline__ fp_t fp_sqr(const fp_t &a) { return fp_sqr_eo(a); }
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
    mont_mul_eo<zp__fr_params>(r.v, a.v, b.v);
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
/* Karatsuba: three Fp products. */
static __device__ __forceinline__ fp2_t fp2_mul(const fp2_t &a, const fp2_t &b)
{
    fp_t t0 = fp_mul(a.c0, b.c0);
    fp_t t1 = fp_mul(a.c1, b.c1);
    fp_t t2 = fp_mul(fp_add(a.c0, a.c1), fp_add(b.c0, b.c1));
    return fp2_t{fp_sub(t0, t1), fp_sub(fp_sub(t2, t0), t1)};
}
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

/* a^-1, zero for zero: divsteps (fp_inv.h), ~25k instructions. Out of
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
    return fp_sub(fp_mul(a, b), fp_mul(c, d));
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

#endif
