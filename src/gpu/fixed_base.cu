/*
 * Fixed-base multiplication on the device (gpu.h): out[i] = k[i]·base with
 * the host's window table (groth16/setup_impl.h, zp__fb_g1 / zp__fb_g2), so
 * that a test key is made where it will be used, the same bytes as the
 * host's zp__fb_*_mul.
 *
 * One thread makes one point: ⌈255/w⌉ mixed additions into an XYZZ
 * accumulator (no doublings: the table holds d·2^(w·i)·base). A warp then
 * makes its 32 points affine with one inversion (Montgomery's trick over
 * the ZZZ values, as prefix and suffix products by shuffles), so no point
 * waits in local or global memory. With t = 1/ZZZ and ZZ³ = ZZZ²:
 * y = Y·t and x = X/ZZ = (X·ZZ²)·t². Infinity (k = 0, or lanes past n)
 * takes ZZZ = 1 in the products, and X·ZZ² = Y = 0 make it all zero.
 */
#include "gpu/ctx.cuh"
#include "gpu/curve.cuh"

/* Window i of the standard-form scalar s (8 limbs of 32 bits), w <= 16. */
static __device__ __forceinline__ unsigned fb_digit(const fr_t &s, unsigned w, unsigned i)
{
    unsigned bit = i * w, limb = bit / 32, shift = bit % 32;
    uint32_t v = s.v[limb] >> shift;
    if (shift + w > 32 && limb + 1 < 8)
        v |= s.v[limb + 1] << (32 - shift);
    return v & ((1u << w) - 1);
}

/* Montgomery to standard form: a·R · 1 · R⁻¹ (fully reduced, as fr_mul is). */
static __device__ __forceinline__ fr_t fb_standard(const fr_t &a)
{
    fr_t one = {{1, 0, 0, 0, 0, 0, 0, 0}};
    return fr_mul(a, one);
}

/* a of the lane d below (up) or above (down) this one, or of lane 31. */
template <class F>
static __device__ __forceinline__ F f_shfl_up(const F &a, unsigned d)
{
    F r;
    const uint32_t *x = reinterpret_cast<const uint32_t *>(&a);
    uint32_t *y = reinterpret_cast<uint32_t *>(&r);
#pragma unroll
    for (unsigned k = 0; k < sizeof(F) / 4; k++)
        y[k] = __shfl_up_sync(0xffffffffu, x[k], d);
    return r;
}

template <class F>
static __device__ __forceinline__ F f_shfl_down(const F &a, unsigned d)
{
    F r;
    const uint32_t *x = reinterpret_cast<const uint32_t *>(&a);
    uint32_t *y = reinterpret_cast<uint32_t *>(&r);
#pragma unroll
    for (unsigned k = 0; k < sizeof(F) / 4; k++)
        y[k] = __shfl_down_sync(0xffffffffu, x[k], d);
    return r;
}

template <class F>
static __device__ __forceinline__ F f_shfl_last(const F &a)
{
    F r;
    const uint32_t *x = reinterpret_cast<const uint32_t *>(&a);
    uint32_t *y = reinterpret_cast<uint32_t *>(&r);
#pragma unroll
    for (unsigned k = 0; k < sizeof(F) / 4; k++)
        y[k] = __shfl_sync(0xffffffffu, x[k], 31);
    return r;
}

/* 1/z for every lane's z (all nonzero), one inversion per warp: the
 * product of the other lanes' values over the product of all. Every lane
 * runs the same inversion, which costs the warp what one lane would. */
template <class F>
static __device__ __forceinline__ F warp_batch_inv(const F &z)
{
    unsigned lane = threadIdx.x & 31;
    F pre = z, suf = z; /* inclusive prefix and suffix products */
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {
        F a = f_shfl_up(pre, d), b = f_shfl_down(suf, d);
        if (lane >= d)
            pre = f_mul(pre, a);
        if (lane + d < 32)
            suf = f_mul(suf, b);
    }
    F all = f_shfl_last(pre); /* the product of all 32 */
    F below = f_shfl_up(pre, 1), above = f_shfl_down(suf, 1);
    if (lane == 0)
        f_set_one(below);
    if (lane == 31)
        f_set_one(above);
    return f_mul(f_inv(all), f_mul(below, above));
}

/* Blocks of whole warps; lanes past n take k = 0 and store nothing. */
template <class F>
static __global__ void fb_mul_kernel(aff_t<F> *out, const aff_t<F> *table, unsigned w,
                                     unsigned nwin, const fr_t *k, uint64_t n)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    xyzz_t<F> p;
    xyzz_set_inf(p);
    if (i < n) {
        fr_t s = fb_standard(fr_load(k + i));
        for (unsigned j = 0; j < nwin; j++) {
            unsigned d = fb_digit(s, w, j);
            if (d)
                xyzz_add_aff_at(p, table + ((size_t)j << w) + d, false);
        }
    }
    F x = f_mul(p.x, f_sqr(p.zz)); /* X·ZZ², zero for infinity */
    if (xyzz_is_inf(p))
        f_set_one(p.zzz);
    F t = warp_batch_inv(p.zzz);
    if (i < n) {
        F *o = reinterpret_cast<F *>(out + i);
        f_store(o, f_mul(x, f_sqr(t)));
        f_store(o + 1, f_mul(p.y, t));
    }
}

template <class F>
static zp_err fb_mul(zp__gpu_stream *s, aff_t<F> *out, const aff_t<F> *table, unsigned w,
                     unsigned nwin, const fr_t *k, uint64_t n)
{
    zp__gpu *g = s->g;
    if (w < 1 || w > 16 || nwin != (255 + w - 1) / w)
        return ZP_E_INVALID_ARG;
    if (n == 0)
        return ZP_OK;
    ZP_CUDA(cudaSetDevice(g->device));
    fb_mul_kernel<F><<<zp__ceil_div_u(n, 64), 64, 0, s->st>>>(out, table, w, nwin, k, n);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

extern "C" zp_err zp__gpu_fb_g1_mul(zp__gpu_stream *s, zp_g1_affine *d_out,
                                    const zp_g1_affine *d_table, unsigned w, unsigned nwin,
                                    const zp_fr *d_k, uint64_t n)
{
    return fb_mul<fp_t>(s, (aff_t<fp_t> *)d_out, (const aff_t<fp_t> *)d_table, w, nwin,
                        (const fr_t *)d_k, n);
}

extern "C" zp_err zp__gpu_fb_g2_mul(zp__gpu_stream *s, zp_g2_affine *d_out,
                                    const zp_g2_affine *d_table, unsigned w, unsigned nwin,
                                    const zp_fr *d_k, uint64_t n)
{
    return fb_mul<fp2_t>(s, (aff_t<fp2_t> *)d_out, (const aff_t<fp2_t> *)d_table, w, nwin,
                         (const fr_t *)d_k, n);
}
