/*
 * Test and benchmark data made on the device, so that large inputs cost
 * neither host time nor PCIe transfers: pseudo-random field elements and
 * many distinct curve points as sums A_i + B_j of a few host-made bases.
 */
#include "gpu/ctx.cuh"
#include "gpu/curve.cuh"

#define GEN_CHUNK 16 /* points per thread: one inversion for all of them */

static __device__ __forceinline__ uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static __global__ void random_fr_kernel(fr_t *out, uint64_t n, uint64_t seed)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_t r;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        uint64_t x = mix64(seed ^ mix64(i * 4 + k));
        r.v[2 * k] = (uint32_t)x;
        r.v[2 * k + 1] = (uint32_t)(x >> 32);
    }
    r.v[7] &= 0x3fffffffu; /* < 2^254 < r */
    fr_store(out + i, r);
}

extern "C" zp_err zp__gpu_fill_random_fr(zp__gpu_stream *s, zp_fr *d_out, uint64_t n,
                                         uint64_t seed)
{
    zp__gpu *g = s->g;
    if (n == 0)
        return ZP_OK;
    ZP_CUDA(cudaSetDevice(g->device));
    random_fr_kernel<<<zp__ceil_div_u(n, 256), 256, 0, s->st>>>((fr_t *)d_out, n, seed);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

/*
 * Point i = A[i mod na] + B[(i / na) mod nb] by the affine chord rule, the
 * chunk's denominators inverted together (Montgomery's trick). Where the
 * two x agree (negligible for random bases) the point is A[i mod na].
 */
template <class F>
static __global__ void gen_points_kernel(aff_t<F> *out, uint64_t n, const aff_t<F> *a,
                                         uint64_t na, const aff_t<F> *b, uint64_t nb)
{
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t i0 = t * GEN_CHUNK;
    if (i0 >= n)
        return;
    unsigned cnt = n - i0 < GEN_CHUNK ? (unsigned)(n - i0) : GEN_CHUNK;
    F pref[GEN_CHUNK];
    F acc;
    f_set_one(acc);
    for (unsigned k = 0; k < cnt; k++) {
        uint64_t i = i0 + k;
        aff_t<F> p = aff_load(a + i % na), q = aff_load(b + (i / na) % nb);
        F d = f_sub(q.x, p.x);
        if (f_is_zero(d))
            f_set_one(d);
        pref[k] = acc;
        acc = f_mul(acc, d);
    }
    F inv = f_inv(acc);
    for (unsigned k = cnt; k-- > 0;) {
        uint64_t i = i0 + k;
        aff_t<F> p = aff_load(a + i % na), q = aff_load(b + (i / na) % nb);
        F d = f_sub(q.x, p.x);
        bool same = f_is_zero(d);
        if (same)
            f_set_one(d);
        F dinv = f_mul(inv, pref[k]);
        inv = f_mul(inv, d);
        aff_t<F> r = p;
        if (!same) {
            F lam = f_mul(f_sub(q.y, p.y), dinv);
            r.x = f_sub(f_sub(f_sqr(lam), p.x), q.x);
            r.y = f_sub(f_mul(lam, f_sub(p.x, r.x)), p.y);
        }
        F *o = reinterpret_cast<F *>(out + i);
        f_store(o, r.x);
        f_store(o + 1, r.y);
    }
}

template <class F>
static zp_err gen_points(zp__gpu_stream *s, aff_t<F> *out, uint64_t n, const aff_t<F> *a,
                         uint64_t na, const aff_t<F> *b, uint64_t nb)
{
    zp__gpu *g = s->g;
    if (n == 0)
        return ZP_OK;
    if (na == 0 || nb == 0)
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    uint64_t threads = (n + GEN_CHUNK - 1) / GEN_CHUNK;
    gen_points_kernel<F><<<zp__ceil_div_u(threads, 64), 64, 0, s->st>>>(out, n, a, na, b, nb);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

extern "C" zp_err zp__gpu_gen_points_g1(zp__gpu_stream *s, zp_g1_affine *d_out, uint64_t n,
                                        const zp_g1_affine *d_a, uint64_t na,
                                        const zp_g1_affine *d_b, uint64_t nb)
{
    return gen_points<fp_t>(s, (aff_t<fp_t> *)d_out, n, (const aff_t<fp_t> *)d_a, na,
                            (const aff_t<fp_t> *)d_b, nb);
}

extern "C" zp_err zp__gpu_gen_points_g2(zp__gpu_stream *s, zp_g2_affine *d_out, uint64_t n,
                                        const zp_g2_affine *d_a, uint64_t na,
                                        const zp_g2_affine *d_b, uint64_t nb)
{
    return gen_points<fp2_t>(s, (aff_t<fp2_t> *)d_out, n, (const aff_t<fp2_t> *)d_a, na,
                             (const aff_t<fp2_t> *)d_b, nb);
}
