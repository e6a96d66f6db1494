/*
 * XYZZ bucket accumulation of msm_impl.cuh (step 3): fixed-length chunks of
 * the sorted entries, one thread each, summing with mixed additions; a
 * chunk writes the buckets that end inside it and leaves the part of a
 * bucket that runs on past its end as a carry; a tree over each bucket's
 * run of carries sums them in log2 passes and a fix-up adds the sum to the
 * bucket. Also the register and shared-memory settings (acc_cfg) that the
 * MSM kernels share. Included by msm_impl.cuh (it needs gkey).
 */
#ifndef ZP_GPU_MSM_CHUNKS_CUH
#define ZP_GPU_MSM_CHUNKS_CUH

template <class F>
static __device__ __forceinline__ void flush_bucket(xyzz_t<F> *buckets, uint64_t key, unsigned c,
                                                    uint32_t B, const xyzz_t<F> &acc)
{
    uint32_t mag = (uint32_t)key & ((1u << c) - 1);
    if (mag)
        xyzz_store(buckets + (key >> c) * B + (mag - 1), acc);
}

/*
 * The register caps of the MSM kernels (__launch_bounds__'s fewest resident
 * blocks an SM) per group, which trade spills for occupancy: the kernels
 * are latency bound on their carry chains. The XYZZ accumulation and the
 * ones' sums: G1 4 blocks of ACC_THREADS (at most 128 registers, no
 * spills), G2 1 block (250 registers, no spills), with the accumulator in
 * shared memory (192 / 384 bytes a thread) rather than registers. The
 * batch-affine add kernel (msm_affine.cuh): G1 3 blocks of AFF_THREADS (168
 * registers, no spills), G2 1; affine_k is the most slots one of its
 * threads takes. The alternatives measured slower (bench/RESULTS.md).
 */
template <class F> struct acc_cfg {
    static constexpr int min_blocks = 4;
    static constexpr int affine_min_blocks = 3;
    static constexpr unsigned affine_k = 512;
};
template <> struct acc_cfg<fp2_t> {
    static constexpr int min_blocks = 1;
    static constexpr int affine_min_blocks = 1;
    static constexpr unsigned affine_k = 256;
};
/* Threads per accumulation block. */
#define ACC_THREADS 128

/* The start of a run of key `key` in a chunk that ends at `end`: from
 * infinity, or, where the buckets keep earlier calls' sums (keep,
 * zp__gpu_msm_acc) and this chunk writes the bucket (its run ends here),
 * from the bucket's sum so far. Only the writer reads it, so no other
 * thread of the launch races with the read. */
template <class F>
static __device__ __forceinline__ void run_start(xyzz_t<F> &acc, const xyzz_t<F> *buckets,
                                                 uint64_t key, unsigned c, uint32_t B,
                                                 bool keep, const uint64_t *bend, uint64_t end)
{
    const uint32_t mag = (uint32_t)key & ((1u << c) - 1);
    if (keep && mag && bend[key] <= end)
        acc = xyzz_load(buckets + (key >> c) * B + (mag - 1));
    else
        xyzz_set_inf(acc);
}

template <class F>
static __global__ void __launch_bounds__(ACC_THREADS, acc_cfg<F>::min_blocks)
accumulate_kernel(const aff_t<F> *points, const uint32_t *keys,
                                         const uint32_t *vals, uint64_t N, uint64_t m,
                                         unsigned c, uint64_t L, const uint64_t *bend,
                                         xyzz_t<F> *buckets, xyzz_t<F> *carries, bool keep)
{
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t begin = t * L;
    if (begin >= N)
        return;
    uint64_t end = begin + L < N ? begin + L : N;
    const uint32_t B = 1u << (c - 1);
    /* m = 0: global keys, entry i is point i (vals unused) */
    uint64_t w = m ? begin / m : 0, wend = m ? (w + 1) * m : N;
    uint64_t cur = gkey(keys, begin, m, c);
    __shared__ xyzz_t<F> sh_acc[ACC_THREADS];
    xyzz_t<F> &acc = sh_acc[threadIdx.x];
    run_start(acc, buckets, cur, c, B, keep, bend, end);
    for (uint64_t i = begin; i < end; i++) {
        if (i == wend) {
            w++;
            wend += m;
        }
        uint64_t k = (w << c) | keys[i];
        if (k != cur) {
            flush_bucket(buckets, cur, c, B, acc);
            cur = k;
            run_start(acc, buckets, cur, c, B, keep, bend, end);
        }
        if (!m) {
            xyzz_add_aff_at(acc, points + i, false);
        } else if (k & ((1u << c) - 1)) {
            uint32_t v = vals[i];
            xyzz_add_aff_at(acc, points + (v & 0x7fffffffu), v >> 31);
        }
    }
    if (bend[cur] == end)
        flush_bucket(buckets, cur, c, B, acc);
    else
        xyzz_store(carries + t, acc);
}

/*
 * The carries of a bucket that spans chunks cs..ce (chunk ce wrote the
 * bucket; cs..ce-1 left carries) are summed by a tree over that run of the
 * carries array, one pass per level, so a huge bucket (the top window has
 * only a few, each with a large share of the scalars) costs log2 of its run
 * in depth instead of the run itself. Pass `s`: the carry at run offset
 * r = t - cs with r % 2s == 0 takes in the one at t + s, if that is still
 * in the run. Chunk t's carry belongs to the bucket of its last entry.
 */
static __device__ __forceinline__ bool carry_run(const uint32_t *keys, uint64_t N, uint64_t m,
                                                 unsigned c, uint64_t L, const uint64_t *bstart,
                                                 const uint64_t *bend, uint64_t t, uint64_t *cs,
                                                 uint64_t *ce)
{
    uint64_t end = (t + 1) * L < N ? (t + 1) * L : N;
    uint64_t k = gkey(keys, end - 1, m, c);
    if (!(k & ((1u << c) - 1)) || bend[k] == end)
        return false; /* digit 0 (never summed) or the bucket ends here */
    *cs = bstart[k] / L;
    *ce = (bend[k] - 1) / L;
    return true;
}

template <class F>
static __global__ void carry_tree_kernel(const uint32_t *keys, uint64_t N, uint64_t m, unsigned c,
                                         uint64_t L, uint64_t chunks, const uint64_t *bstart,
                                         const uint64_t *bend, uint64_t s, xyzz_t<F> *carries)
{
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, cs, ce;
    if (t >= chunks || !carry_run(keys, N, m, c, L, bstart, bend, t, &cs, &ce))
        return;
    if ((t - cs) % (2 * s) || t + s >= ce)
        return;
    xyzz_t<F> acc = xyzz_load(carries + t);
    xyzz_add_ool(acc, xyzz_load(carries + t + s));
    xyzz_store(carries + t, acc);
}

/* Adds to each bucket that spans chunks the sum of its carries, which the
 * passes above left at the start of its run. */
template <class F>
static __global__ void fixup_kernel(const uint64_t *bstart, const uint64_t *bend, uint64_t nkeys,
                                    unsigned c, uint64_t L, xyzz_t<F> *buckets,
                                    const xyzz_t<F> *carries)
{
    uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nkeys)
        return;
    uint32_t mag = (uint32_t)k & ((1u << c) - 1);
    uint64_t e = bend[k];
    if (!mag || e == 0)
        return;
    uint64_t cs = bstart[k] / L, ce = (e - 1) / L;
    if (cs == ce)
        return;
    xyzz_t<F> *b = buckets + (k >> c) * (1u << (c - 1)) + (mag - 1);
    xyzz_t<F> acc = xyzz_load(b);
    xyzz_add_ool(acc, xyzz_load(carries + cs));
    xyzz_store(b, acc);
}

/*
 * Sums the sorted runs of one pass in XYZZ: the chunks, the tree over each
 * bucket's carries, the fix-up (bounds already in bstart/bend). m = 0: the
 * entries are the affine round's sums with global keys (vals unused). `run`
 * bounds the longest run (it sets the tree's passes); L is the chunk length
 * (at most l->chunks chunks). keep: each bucket written gets its sum so
 * far added (run_start), instead of being overwritten.
 */
template <class F>
static zp_err chunk_sums(zp__gpu_stream *s, const msm_layout *l, const aff_t<F> *points,
                         const uint32_t *keys, const uint32_t *vals, uint64_t N, uint64_t m,
                         uint64_t run, uint64_t L, uint64_t nkeys, const uint64_t *bstart,
                         const uint64_t *bend, xyzz_t<F> *bk, xyzz_t<F> *carries,
                         bool keep = false)
{
    zp__gpu *g = s->g;
    cudaStream_t st = s->st;
    const uint64_t chunks = (N + L - 1) / L;
    accumulate_kernel<F><<<zp__ceil_div_u(chunks, ACC_THREADS), ACC_THREADS, 0, st>>>(
        points, keys, vals, N, m, l->c, L, bend, bk, carries, keep);
    ZP_CUDA_LAUNCHED();
    /* A bucket has at most `run` entries, so its run of carries is at most
     * ceil(run / L) long: passes s = 1, 2, 4, ... below that. */
    for (uint64_t p = 1; p < (run + L - 1) / L + 1; p *= 2) {
        carry_tree_kernel<F><<<zp__ceil_div_u(chunks, 128), 128, 0, st>>>(
            keys, N, m, l->c, L, chunks, bstart, bend, p, carries);
        ZP_CUDA_LAUNCHED();
    }
    fixup_kernel<F><<<zp__ceil_div_u(nkeys, 128), 128, 0, st>>>(bstart, bend, nkeys, l->c, L,
                                                                bk, carries);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

#endif
