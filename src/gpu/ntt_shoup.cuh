/*
 * The Fr NTT's stage products by Shoup's method and its lazy stages,
 * included by ntt.cu only: the device wrappers of fr_shoup.h over Fr's
 * constants, and st_add, st_sub, st_norm, the stages' sum, difference and
 * final reduction.
 *
 * The stage twiddles' products are Shoup's (fr_shoup.h: 194 32-bit
 * multiply halves an Fr product instead of the Montgomery product's 264),
 * from a table of the plain roots w_1024^i and their companions per root
 * and direction (32 KiB). The twists and scales keep the Montgomery
 * product. The stages keep values in [0, 2m) (fr_shoup.h's lazy forms), so
 * the stage products skip their last subtraction; each element is reduced
 * once as its pass stores it.
 */
#ifndef ZP_GPU_NTT_SHOUP_CUH
#define ZP_GPU_NTT_SHOUP_CUH

#include "gpu/fr_shoup.h"

#define SHOUP_N 512 /* w_1024^i, i < 512: the stage roots of any pass */
#define SHOUP_TABLES ((uint64_t)8 * SHOUP_N)

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
/* a w mod m in [0, 2m), w's companion wp. */
static __device__ __forceinline__ fr_t fr_shoup(const fr_t &a, const fr_t &w, const fr_t &wp)
{
    const fr_consts c = fr_consts_make();
    fr_t r;
    zp__shoup_mul_lazy(r.v, a.v, w.v, wp.v, c.nm);
    return r;
}
static __device__ __forceinline__ fr_t st_add(const fr_t &a, const fr_t &b)
{
    const fr_consts c = fr_consts_make();
    fr_t r;
    zp__lazy_add(r.v, a.v, b.v, c.m2);
    return r;
}
static __device__ __forceinline__ fr_t st_sub(const fr_t &a, const fr_t &b)
{
    const fr_consts c = fr_consts_make();
    fr_t r;
    zp__lazy_sub(r.v, a.v, b.v, c.m2);
    return r;
}
/* A stage value in [0, 2m) reduced below m. */
static __device__ __forceinline__ fr_t st_norm(const fr_t &a)
{
    const fr_consts c = fr_consts_make();
    fr_t r;
    zp__eo_sub_p_once(r.v, a.v, c.m, 8);
    return r;
}
/* A read-only load through the non-coherent cache. */
static __device__ __forceinline__ fr_t fr_ldg(const fr_t *p)
{
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    uint4 a = __ldg(q), b = __ldg(q + 1);
    fr_t r = {{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w}};
    return r;
}

#endif
