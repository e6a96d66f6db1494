/*
 * The product rate of the device field code (gpu.h, zp__gpu_field_rate):
 * the ceiling that the MSM and NTT kernels are measured against. Each
 * thread runs FR_CHAINS independent chains x_k <- x_k * y of FR_ITERS
 * products each (independent, so the rate is the pipe's, not one chain's
 * latency), on operands read from a buffer of random Fr values (below r,
 * so valid Fp values as well); the XOR of the results is stored so that
 * nothing is optimized away. One launch fills the GPU (every SM, the
 * occupancy the compiler allows at FR_THREADS a block).
 */
#include "gpu/bench/field_rate.h"
#include "gpu/ctx.cuh"

#define FR_CHAINS 4
#define FR_ITERS 256
#define FR_THREADS 256
#define NIN (1u << 16) /* random input elements */
#define MAX_BLOCKS (64 * 1024u)

/* Element e (< NIN) of the random buffer as an Fp value (Fr's 8 words, 4 zero). */
static __device__ __forceinline__ fp_t rate_fp(const fr_t *in, uint64_t e)
{
    fr_t r = fr_load(in + e);
    fp_t x;
#pragma unroll
    for (int j = 0; j < 12; j++)
        x.v[j] = j < 8 ? r.v[j] : 0;
    return x;
}

template <int OP> struct rate_op;
struct rate_fp_in {
    typedef fp_t T;
    static __device__ __forceinline__ T load(const fr_t *in, uint64_t e)
    {
        return rate_fp(in, e % NIN);
    }
};
template <> struct rate_op<ZP_GPU_RATE_FP_MUL> : rate_fp_in {
    static __device__ __forceinline__ T step(const T &x, const T &y) { return fp_mul(x, y); }
};
template <> struct rate_op<ZP_GPU_RATE_FP_SQR> : rate_fp_in {
    static __device__ __forceinline__ T step(const T &x, const T &) { return fp_sqr(x); }
};
template <> struct rate_op<ZP_GPU_RATE_FR_MUL> {
    typedef fr_t T;
    static __device__ __forceinline__ T load(const fr_t *in, uint64_t e)
    {
        return fr_load(in + e % NIN);
    }
    static __device__ __forceinline__ T step(const T &x, const T &y) { return fr_mul(x, y); }
};
template <> struct rate_op<ZP_GPU_RATE_FP2_MUL> {
    typedef fp2_t T;
    static __device__ __forceinline__ T load(const fr_t *in, uint64_t e)
    {
        return fp2_t{rate_fp(in, 2 * e % NIN), rate_fp(in, (2 * e + 1) % NIN)};
    }
    static __device__ __forceinline__ T step(const T &x, const T &y) { return fp2_mul(x, y); }
};

/* FR_CHAINS chains of FR_ITERS products; the XOR of the results to out. */
template <int OP>
static __device__ __forceinline__ uint32_t rate_chains(const fr_t *in, uint64_t t)
{
    typedef typename rate_op<OP>::T T;
    T x[FR_CHAINS], y = rate_op<OP>::load(in, t * (FR_CHAINS + 1));
#pragma unroll
    for (int k = 0; k < FR_CHAINS; k++)
        x[k] = rate_op<OP>::load(in, t * (FR_CHAINS + 1) + 1 + k);
    for (int i = 0; i < FR_ITERS; i++) {
#pragma unroll
        for (int k = 0; k < FR_CHAINS; k++)
            x[k] = rate_op<OP>::step(x[k], y);
    }
    uint32_t acc = 0;
    const uint32_t *w = reinterpret_cast<const uint32_t *>(x);
#pragma unroll
    for (unsigned j = 0; j < sizeof x / 4; j++)
        acc ^= w[j];
    return acc;
}

template <int OP>
static __global__ void __launch_bounds__(FR_THREADS) rate_kernel(const fr_t *in, uint32_t *out)
{
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = rate_chains<OP>(in, t);
}

typedef void (*rate_fn)(const fr_t *, uint32_t *);
static const rate_fn rate_kernels[ZP_GPU_RATE_COUNT] = {
    rate_kernel<ZP_GPU_RATE_FP_MUL>,
    rate_kernel<ZP_GPU_RATE_FP_SQR>,
    rate_kernel<ZP_GPU_RATE_FR_MUL>,
    rate_kernel<ZP_GPU_RATE_FP2_MUL>,
};

extern "C" uint64_t zp__gpu_field_rate_bytes(void)
{
    /* the random elements, and one word per thread of the largest grid */
    return sizeof(fr_t) * NIN + 4ull * FR_THREADS * MAX_BLOCKS;
}

/* Blocks for eight waves of full residency of fn (the last wave's tail is
 * small), or 0 when the device answers nonsense. */
static unsigned grid_for(zp__gpu *g, rate_fn fn, zp_err *err)
{
    int sms = 0, per_sm = 0;
    cudaError_t ce = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, g->device);
    if (ce == cudaSuccess)
        ce = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)fn, FR_THREADS,
                                                           0);
    if (ce != cudaSuccess) {
        *err = zp__gpu_fail(g, ce, __FILE__, __LINE__, "occupancy");
        return 0;
    }
    if (sms <= 0 || per_sm <= 0 || per_sm > 64 || sms > 1024) {
        *err = ZP_E_GPU_FATAL;
        return 0;
    }
    unsigned blocks = (unsigned)(8 * sms * per_sm);
    return blocks < MAX_BLOCKS ? blocks : MAX_BLOCKS;
}

extern "C" zp_err zp__gpu_field_rate(zp__gpu_stream *s, zp__gpu_buf scratch, int op,
                                     double *per_s)
{
    zp__gpu *g = s->g;
    *per_s = 0;
    if (scratch.bytes < zp__gpu_field_rate_bytes() || op < 0 || op >= ZP_GPU_RATE_COUNT)
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    const rate_fn fn = rate_kernels[op];
    zp_err err = ZP_OK;
    unsigned blocks = grid_for(g, fn, &err);
    if (err)
        return err;
    fr_t *in = (fr_t *)scratch.ptr;
    uint32_t *out = (uint32_t *)((char *)scratch.ptr + sizeof(fr_t) * NIN);
    ZP_TRY(zp__gpu_fill_random_fr(s, (zp_fr *)in, NIN, 7));
    cudaEvent_t ev[2] = {NULL, NULL};
    cudaError_t ce = cudaSuccess;
    for (int i = 0; i < 2 && ce == cudaSuccess; i++)
        ce = cudaEventCreate(&ev[i]);
    float ms = 0;
    for (int round = 0; round < 2 && ce == cudaSuccess; round++) { /* the first warms up */
        if ((ce = cudaEventRecord(ev[0], s->st)) != cudaSuccess)
            break;
        fn<<<blocks, FR_THREADS, 0, s->st>>>(in, out);
        if ((ce = cudaGetLastError()) != cudaSuccess ||
            (ce = cudaEventRecord(ev[1], s->st)) != cudaSuccess ||
            (ce = cudaEventSynchronize(ev[1])) != cudaSuccess)
            break;
        ce = cudaEventElapsedTime(&ms, ev[0], ev[1]);
    }
    if (ce != cudaSuccess)
        err = zp__gpu_fail(g, ce, __FILE__, __LINE__, "rate kernels");
    for (int i = 0; i < 2; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    if (!err && ms > 0)
        *per_s = (double)blocks * FR_THREADS * FR_CHAINS * FR_ITERS / (ms * 1e-3);
    return err;
}
