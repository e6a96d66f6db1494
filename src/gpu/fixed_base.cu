/*
 * Fixed-base multiplication on the device (gpu.h): out[i] = k[i]·base with
 * the host's window table (groth16/setup_impl.h, zp__fb_g1 / zp__fb_g2), so
 * that a test key is made where it will be used, the same bytes as the
 * host's zp__fb_*_mul.
 *
 * One thread handles a run of FB_RUN points: for each, ⌈255/w⌉ mixed
 * additions into an XYZZ accumulator (no doublings: the table holds
 * d·2^(w·i)·base), then the run is made affine with one inversion
 * (Montgomery's trick over the ZZZ values). With t = 1/ZZZ and ZZ³ = ZZZ²:
 * y = Y·t and x = X/ZZ = (X·ZZ²)·t², so a point keeps only X·ZZ² and Y (in
 * its output slot) and ZZZ and a prefix product (local arrays) between the
 * two passes. Infinity (k = 0) takes ZZZ = 1 in the product and stores
 * zeros, which is what X·ZZ² and Y are for it.
 */
#include "gpu/ctx.cuh"
#include "gpu/curve.cuh"

/* An Fp inversion costs ~570 products, a G1 point ~200: runs of 32 make it
 * ~9 % of the work; G2 points cost ~3x more, so 16 is enough there. */
#define FB_RUN_G1 32
#define FB_RUN_G2 16

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

template <class F, unsigned RUN>
static __global__ void fb_mul_kernel(aff_t<F> *out, const aff_t<F> *table, unsigned w,
                                     unsigned nwin, const fr_t *k, uint64_t n)
{
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t i0 = t * RUN;
    if (i0 >= n)
        return;
    unsigned cnt = n - i0 < RUN ? (unsigned)(n - i0) : RUN;
    F zzz[RUN], pre[RUN];
    F acc;
    f_set_one(acc);
    for (unsigned j = 0; j < cnt; j++) {
        fr_t s = fb_standard(fr_load(k + i0 + j));
        xyzz_t<F> p;
        xyzz_set_inf(p);
        for (unsigned i = 0; i < nwin; i++) {
            unsigned d = fb_digit(s, w, i);
            if (d)
                xyzz_add_aff(p, aff_load(table + ((size_t)i << w) + d));
        }
        F *o = reinterpret_cast<F *>(out + i0 + j);
        f_store(o, f_mul(p.x, f_sqr(p.zz)));
        f_store(o + 1, p.y);
        if (xyzz_is_inf(p))
            f_set_one(p.zzz);
        zzz[j] = p.zzz;
        pre[j] = acc;
        acc = f_mul(acc, p.zzz);
    }
    F inv = f_inv(acc);
    for (unsigned j = cnt; j-- > 0;) {
        F tz = f_mul(inv, pre[j]); /* 1/ZZZ_j */
        inv = f_mul(inv, zzz[j]);
        F *o = reinterpret_cast<F *>(out + i0 + j);
        F x = f_load(o), y = f_load(o + 1);
        f_store(o, f_mul(x, f_sqr(tz)));
        f_store(o + 1, f_mul(y, tz));
    }
}

template <class F, unsigned RUN>
static zp_err fb_mul(zp__gpu_stream *s, aff_t<F> *out, const aff_t<F> *table, unsigned w,
                     unsigned nwin, const fr_t *k, uint64_t n)
{
    zp__gpu *g = s->g;
    if (w < 1 || w > 16 || nwin != (255 + w - 1) / w)
        return ZP_E_INVALID_ARG;
    if (n == 0)
        return ZP_OK;
    ZP_CUDA(cudaSetDevice(g->device));
    uint64_t threads = (n + RUN - 1) / RUN;
    fb_mul_kernel<F, RUN><<<zp__ceil_div_u(threads, 64), 64, 0, s->st>>>(out, table, w, nwin,
                                                                        k, n);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

extern "C" zp_err zp__gpu_fb_g1_mul(zp__gpu_stream *s, zp_g1_affine *d_out,
                                    const zp_g1_affine *d_table, unsigned w, unsigned nwin,
                                    const zp_fr *d_k, uint64_t n)
{
    return fb_mul<fp_t, FB_RUN_G1>(s, (aff_t<fp_t> *)d_out, (const aff_t<fp_t> *)d_table, w,
                                   nwin, (const fr_t *)d_k, n);
}

extern "C" zp_err zp__gpu_fb_g2_mul(zp__gpu_stream *s, zp_g2_affine *d_out,
                                    const zp_g2_affine *d_table, unsigned w, unsigned nwin,
                                    const zp_fr *d_k, uint64_t n)
{
    return fb_mul<fp2_t, FB_RUN_G2>(s, (aff_t<fp2_t> *)d_out, (const aff_t<fp2_t> *)d_table, w,
                                    nwin, (const fr_t *)d_k, n);
}
