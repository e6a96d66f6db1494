/*
 * The product rate of the device field code (gpu.h, zp__gpu_field_rate):
 * the ceiling that the MSM and NTT kernels are measured against. Each
 * thread runs FR_CHAINS independent chains x_k <- x_k * y of FR_ITERS
 * products each (independent, so the rate is the pipe's, not one chain's
 * latency), on operands read from a buffer of random Fr values (below r,
 * so valid Fp values as well); the XOR of the results is stored so that
 * nothing is optimized away. One launch fills the GPU (every SM, the
 * occupancy the compiler allows at FR_THREADS a block).
 *
 * Three ops measure the FP64 product of field_dp.cuh: alone (fp_mul_dp),
 * with every other warp on the integer product (fp_mul_mix), and as a
 * kernel of its own next to the integer one on a second stream
 * (fp_mul_both: what the two pipes give together when each kernel keeps its
 * own occupancy); zp__gpu_field_dp_check compares it with fp_mul.
 */
#include "gpu/ctx.cuh"
#include "gpu/field_dp.cuh"

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

template <> struct rate_op<ZP_GPU_RATE_FP_MUL_DP> {
    typedef fpd_t T;
    static __device__ __forceinline__ T load(const fr_t *in, uint64_t e)
    {
        return fpd_from(rate_fp(in, e % NIN));
    }
};

/* FR_CHAINS chains of FR_ITERS products; the XOR of the results to out. */
template <int OP>
static __device__ __forceinline__ uint32_t rate_chains(const fr_t *in, uint64_t t,
                                                       const fpd_consts &K)
{
    typedef typename rate_op<OP>::T T;
    T x[FR_CHAINS], y = rate_op<OP>::load(in, t * (FR_CHAINS + 1));
#pragma unroll
    for (int k = 0; k < FR_CHAINS; k++)
        x[k] = rate_op<OP>::load(in, t * (FR_CHAINS + 1) + 1 + k);
    for (int i = 0; i < FR_ITERS; i++) {
#pragma unroll
        for (int k = 0; k < FR_CHAINS; k++) {
            if constexpr (OP == ZP_GPU_RATE_FP_MUL_DP)
                x[k] = fpd_mul(x[k], y, K);
            else
                x[k] = rate_op<OP>::step(x[k], y);
        }
    }
    uint32_t acc = 0;
    const uint32_t *w = reinterpret_cast<const uint32_t *>(x);
#pragma unroll
    for (unsigned j = 0; j < sizeof x / 4; j++)
        acc ^= w[j];
    return acc;
}

template <int OP>
static __global__ void __launch_bounds__(FR_THREADS) rate_kernel(const fr_t *in, uint32_t *out,
                                                                 fpd_consts K)
{
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if constexpr (OP == ZP_GPU_RATE_FP_MUL_MIX)
        out[t] = (threadIdx.x >> 5) & 1 ? rate_chains<ZP_GPU_RATE_FP_MUL_DP>(in, t, K)
                                        : rate_chains<ZP_GPU_RATE_FP_MUL>(in, t, K);
    else
        out[t] = rate_chains<OP>(in, t, K);
}

typedef void (*rate_fn)(const fr_t *, uint32_t *, fpd_consts);
static const rate_fn rate_kernels[ZP_GPU_RATE_COUNT] = {
    rate_kernel<ZP_GPU_RATE_FP_MUL>,    rate_kernel<ZP_GPU_RATE_FP_SQR>,
    rate_kernel<ZP_GPU_RATE_FR_MUL>,    rate_kernel<ZP_GPU_RATE_FP2_MUL>,
    rate_kernel<ZP_GPU_RATE_FP_MUL_DP>, rate_kernel<ZP_GPU_RATE_FP_MUL_MIX>,
    rate_kernel<ZP_GPU_RATE_FP_MUL>, /* _BOTH: this one and the FP64 one at once */
};

/* p in 48-bit limbs and -p^-1 mod 2^48, from the library's modulus. */
static fpd_consts dp_consts(void)
{
    fpd_consts k;
    const uint64_t *w = ZP_FP_MODULUS.l;
    for (int i = 0; i < 8; i++) {
        unsigned bit = 48 * i, q = bit / 64, r = bit % 64;
        uint64_t v = w[q] >> r;
        if (r > 16 && q + 1 < 6)
            v |= w[q + 1] << (64 - r);
        k.p[i] = (double)(v & 0xffffffffffffull);
    }
    uint64_t p0 = (uint64_t)k.p[0], x = 1;
    for (int i = 0; i < 6; i++) /* Newton: x = p0^-1 mod 2^64 */
        x *= 2 - p0 * x;
    k.pinv = (double)((0 - x) & 0xffffffffffffull);
    return k;
}

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
    return blocks < MAX_BLOCKS / 2 ? blocks : MAX_BLOCKS / 2;
}

extern "C" zp_err zp__gpu_field_rate(zp__gpu_stream *s, zp__gpu_buf scratch, int op,
                                     double *per_s)
{
    zp__gpu *g = s->g;
    *per_s = 0;
    if (scratch.bytes < zp__gpu_field_rate_bytes() || op < 0 || op >= ZP_GPU_RATE_COUNT)
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    /* _BOTH: the integer product on this stream, the FP64 one on a second,
     * at once. */
    const bool both = op == ZP_GPU_RATE_FP_MUL_BOTH;
    const rate_fn fn = rate_kernels[both ? ZP_GPU_RATE_FP_MUL : op];
    const rate_fn fn2 = rate_kernels[ZP_GPU_RATE_FP_MUL_DP];
    const fpd_consts K = dp_consts();
    zp_err err = ZP_OK;
    unsigned blocks = grid_for(g, fn, &err), blocks2 = both ? grid_for(g, fn2, &err) : 0;
    if (err)
        return err;
    fr_t *in = (fr_t *)scratch.ptr;
    uint32_t *out = (uint32_t *)((char *)scratch.ptr + sizeof(fr_t) * NIN);
    ZP_TRY(zp__gpu_fill_random_fr(s, (zp_fr *)in, NIN, 7));
    cudaEvent_t ev[3] = {NULL, NULL, NULL};
    cudaStream_t st2 = NULL;
    cudaError_t ce = cudaSuccess;
    for (int i = 0; i < 3 && ce == cudaSuccess; i++)
        ce = cudaEventCreate(&ev[i]);
    if (ce == cudaSuccess && both)
        ce = cudaStreamCreateWithFlags(&st2, cudaStreamNonBlocking);
    float ms = 0;
    for (int round = 0; round < 2 && ce == cudaSuccess; round++) { /* the first warms up */
        ce = cudaEventRecord(ev[0], s->st);
        if (ce == cudaSuccess && both)
            ce = cudaStreamWaitEvent(st2, ev[0], 0);
        if (ce != cudaSuccess)
            break;
        fn<<<blocks, FR_THREADS, 0, s->st>>>(in, out, K);
        if (both)
            fn2<<<blocks2, FR_THREADS, 0, st2>>>(in, out + (uint64_t)blocks * FR_THREADS, K);
        if ((ce = cudaGetLastError()) != cudaSuccess)
            break;
        if (both && ((ce = cudaEventRecord(ev[2], st2)) != cudaSuccess ||
                     (ce = cudaStreamWaitEvent(s->st, ev[2], 0)) != cudaSuccess))
            break;
        if ((ce = cudaEventRecord(ev[1], s->st)) != cudaSuccess ||
            (ce = cudaEventSynchronize(ev[1])) != cudaSuccess)
            break;
        ce = cudaEventElapsedTime(&ms, ev[0], ev[1]);
    }
    if (ce != cudaSuccess)
        err = zp__gpu_fail(g, ce, __FILE__, __LINE__, "rate kernels");
    for (int i = 0; i < 3; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    if (st2)
        cudaStreamDestroy(st2);
    if (!err && ms > 0)
        *per_s = (double)(blocks + blocks2) * FR_THREADS * FR_CHAINS * FR_ITERS / (ms * 1e-3);
    return err;
}

/*
 * fp_mul against fpd_mul on n pairs made from the random buffer: (r1, r2),
 * (-r1, r2), (r1, -r2), (-r1, -r2), so that operands near p occur as well
 * as small ones; mismatches counted into *bad.
 */
static __global__ void dp_check_kernel(const fr_t *in, uint64_t n, fpd_consts K,
                                       unsigned long long *bad)
{
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    fp_t a = rate_fp(in, (2 * t) % NIN), b = rate_fp(in, (2 * t + 1) % NIN);
    if (t & 1)
        a = fp_neg(a);
    if (t & 2)
        b = fp_neg(b);
    fp_t want = fp_mul(a, b), got = fpd_to(fpd_mul(fpd_from(a), fpd_from(b), K));
    bool same = true;
#pragma unroll
    for (int j = 0; j < 12; j++)
        same &= want.v[j] == got.v[j];
    if (!same)
        atomicAdd(bad, 1ull);
}

extern "C" zp_err zp__gpu_field_dp_check(zp__gpu_stream *s, zp__gpu_buf scratch, uint64_t n,
                                         uint64_t *mismatches)
{
    zp__gpu *g = s->g;
    *mismatches = UINT64_MAX;
    if (scratch.bytes < zp__gpu_field_rate_bytes())
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    fr_t *in = (fr_t *)scratch.ptr;
    unsigned long long *bad = (unsigned long long *)((char *)scratch.ptr + sizeof(fr_t) * NIN);
    ZP_TRY(zp__gpu_fill_random_fr(s, (zp_fr *)in, NIN, 11));
    ZP_CUDA(cudaMemsetAsync(bad, 0, sizeof *bad, s->st));
    dp_check_kernel<<<zp__ceil_div_u(n, 256), 256, 0, s->st>>>(in, n, dp_consts(), bad);
    ZP_CUDA_LAUNCHED();
    unsigned long long h = 0;
    ZP_CUDA(cudaMemcpyAsync(&h, bad, sizeof h, cudaMemcpyDeviceToHost, s->st));
    ZP_CUDA(cudaStreamSynchronize(s->st));
    *mismatches = h;
    return ZP_OK;
}
