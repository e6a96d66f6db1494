/*
 * The Fr NTT's stage products by Shoup's method and its lazy stages,
 * included by ntt.cu only (after its ntt_mul): the build switches, the
 * device wrappers of fr_shoup.h over Fr's constants, and st_add, st_sub,
 * st_norm, the stages' sum, difference and final reduction.
 */
#ifndef ZP_GPU_NTT_SHOUP_CUH
#define ZP_GPU_NTT_SHOUP_CUH

/* ZP_NTT_SHOUP (on by default; ZP_NTT_NOSHOUP turns it off): the stage
 * twiddles' products by Shoup's method (fr_shoup.h: 194 32-bit multiply
 * halves an Fr product instead of 264), from a table of the plain
 * roots w_1024^i and their companions per root and direction (32 KiB). The
 * twists and scales keep the Montgomery product. ZP_NTT_LAZY (on with it;
 * ZP_NTT_NOLAZY turns it off): the stages keep values in [0, 2m)
 * (fr_shoup.h's lazy forms), so the stage products skip their last
 * subtraction; each element is reduced once as its pass stores it. On the
 * H200 (bench/RESULTS.md, session 26, alternating), 2^27 with the twist
 * tables: Montgomery 37.75, Shoup 35.44 (its word-0 product by adds),
 * Shoup 33.40, lazy 32.56 ms. */
#ifndef ZP_NTT_NOSHOUP
#define ZP_NTT_SHOUP 1
#ifndef ZP_NTT_NOLAZY
#define ZP_NTT_LAZY 1
#endif
#endif
#define SHOUP_N 512 /* w_1024^i, i < 512: the stage roots of any pass */
#ifdef ZP_NTT_SHOUP
#include "gpu/fr_shoup.h"
/* m, 2m and 2^256 - m (m[0] = 1, so no borrow past word 0), as literals. */
struct fr_consts {
    uint32_t m[8], m2[8], nm[8];
};
static __device__ __forceinline__ fr_consts fr_consts_make(void)
{
    fr_consts c;
#pragma unroll
    for (int j = 0; j < 8; j++) {
        c.m[j] = zp__fr_params::m(j);
        c.m2[j] = (c.m[j] << 1) | (j ? zp__fr_params::m(j - 1) >> 31 : 0);
        c.nm[j] = j ? ~c.m[j] : 0u - c.m[0];
    }
    return c;
}
static __device__ __forceinline__ fr_t fr_shoup(const fr_t &a, const fr_t &w, const fr_t &wp)
{
    const fr_consts c = fr_consts_make();
    fr_t r;
#ifdef ZP_NTT_LAZY
    zp__shoup_mul_lazy(r.v, a.v, w.v, wp.v, c.nm);
#else
    zp__shoup_mul(r.v, a.v, w.v, wp.v, c.m, c.nm);
#endif
    return r;
}
#ifdef ZP_NTT_LAZY
static __device__ __forceinline__ fr_t fr_add_lazy(const fr_t &a, const fr_t &b)
{
    const fr_consts c = fr_consts_make();
    fr_t r;
    zp__lazy_add(r.v, a.v, b.v, c.m2);
    return r;
}
static __device__ __forceinline__ fr_t fr_sub_lazy(const fr_t &a, const fr_t &b)
{
    const fr_consts c = fr_consts_make();
    fr_t r;
    zp__lazy_sub(r.v, a.v, b.v, c.m2);
    return r;
}
static __device__ __forceinline__ fr_t fr_norm(const fr_t &a)
{
    const fr_consts c = fr_consts_make();
    fr_t r;
    zp__eo_sub_p_once(r.v, a.v, c.m, 8);
    return r;
}
#endif
#define SHOUP_TABLES ((uint64_t)8 * SHOUP_N)
/* A read-only load through the non-coherent cache. */
static __device__ __forceinline__ fr_t fr_ldg(const fr_t *p)
{
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    uint4 a = __ldg(q), b = __ldg(q + 1);
    fr_t r = {{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w}};
    return r;
}
#else
#define SHOUP_TABLES 0
#ifdef ZP_NTT_LAZY
#error "ZP_NTT_LAZY needs ZP_NTT_SHOUP (the Montgomery product takes inputs below m)"
#endif
#endif
/* The stages' sum and difference, and the reduction of a value they made. */
#ifdef ZP_NTT_LAZY
#define st_add fr_add_lazy
#define st_sub fr_sub_lazy
#define st_norm fr_norm
#else
#define st_add fr_add
#define st_sub fr_sub
#define st_norm(x) (x)
#endif

#endif
