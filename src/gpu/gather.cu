/*
 * Scalar preparation for the prover's MSMs on the device: Montgomery to
 * standard form, and the density gathers that pick the A and B scalars out
 * of the witness. Also the pinned host allocations of prover slots.
 *
 * The gather writes x[i] to rank(i) = the number of set density bits
 * before i: the per-word prefix count comes precomputed with the key (one
 * uint32 per 64-bit word), the rest is one popcount in the thread. So the
 * kernel is a single pass, one thread per variable, with no scan.
 */
#include "gpu/ctx.cuh"

static __global__ void from_mont_kernel(fr_t *out, const fr_t *in, uint64_t n)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    /* x·1·R⁻¹ with 1 as raw limbs: the standard limbs of x. */
    fr_t one_raw;
    one_raw.v[0] = 1;
    for (int k = 1; k < 8; k++)
        one_raw.v[k] = 0;
    fr_store(out + i, fr_mul(fr_load(in + i), one_raw));
}

extern "C" zp_err zp__gpu_fr_from_mont(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_in,
                                       uint64_t n)
{
    zp__gpu *g = s->g;
    if (n == 0)
        return ZP_OK;
    if (!d_out || !d_in)
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    from_mont_kernel<<<zp__ceil_div_u(n, 256), 256, 0, s->st>>>((fr_t *)d_out,
                                                                (const fr_t *)d_in, n);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

static __global__ void gather_kernel(fr_t *out, const fr_t *in, uint64_t n,
                                     const uint64_t *words, const uint32_t *rank)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t w = words[i >> 6];
    unsigned bit = (unsigned)(i & 63);
    if (!((w >> bit) & 1))
        return;
    uint64_t below = bit ? w & ((~(uint64_t)0) >> (64 - bit)) : 0;
    uint64_t pos = (uint64_t)rank[i >> 6] + (uint64_t)__popcll(below);
    fr_store(out + pos, fr_load(in + i));
}

extern "C" zp_err zp__gpu_fr_gather(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_in,
                                    uint64_t n, const uint64_t *d_words, const uint32_t *d_rank)
{
    zp__gpu *g = s->g;
    if (n == 0)
        return ZP_OK;
    if (n > UINT32_MAX)
        return ZP_E_TOO_LARGE;
    if (!d_out || !d_in || !d_words || !d_rank)
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    gather_kernel<<<zp__ceil_div_u(n, 256), 256, 0, s->st>>>(
        (fr_t *)d_out, (const fr_t *)d_in, n, d_words, d_rank);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

extern "C" zp_err zp__gpu_host_alloc(zp__gpu *g, void **out, uint64_t bytes)
{
    *out = NULL;
    ZP_CUDA(cudaSetDevice(g->device));
    /* Portable: usable by every context, so a slot's buffer does not tie
     * the thread that fills it to a device. */
    ZP_CUDA(cudaHostAlloc(out, bytes ? bytes : 1, cudaHostAllocPortable));
    return ZP_OK;
}

extern "C" void zp__gpu_host_free(void *p)
{
    if (p)
        cudaFreeHost(p);
}

extern "C" zp_err zp__gpu_host_register(void *p, uint64_t bytes, bool read_only)
{
    if (!p || !bytes)
        return ZP_E_INVALID_ARG;
    zp__gpu *g = NULL; /* no device of its own: ZP_CUDA marks none unhealthy */
    unsigned flags = cudaHostRegisterPortable | (read_only ? cudaHostRegisterReadOnly : 0);
    ZP_CUDA(cudaHostRegister(p, bytes, flags));
    return ZP_OK;
}

extern "C" void zp__gpu_host_unregister(void *p)
{
    if (p)
        cudaHostUnregister(p);
}
