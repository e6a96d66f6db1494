/*
 * The bucket reduction of the GPU MSM, included by msm_impl.cuh only
 * (after its layout and TREE): per window, the sum over b of
 * (b + 1) S_b, by segments of l->seg buckets (running sums, then the
 * segment's offset times its sum) and a tree of partial sums; or, from
 * 2^19 buckets a window by default (two_level_reduce), in two levels
 * (segments_split_kernel).
 */
#ifndef ZP_GPU_MSM_REDUCE_CUH
#define ZP_GPU_MSM_REDUCE_CUH

/* Over buckets lo .. lo+seg-1 of bk: run = sum of S_b, tot = sum of
 * (b - lo + 1) * S_b (running sums, top down). */
template <class F>
static __device__ __forceinline__ void segment_sums(const xyzz_t<F> *bk, uint32_t lo, uint32_t seg,
                                                    xyzz_t<F> &run, xyzz_t<F> &tot)
{
    xyzz_set_inf(run);
    xyzz_set_inf(tot);
    for (uint32_t b = lo + seg; b-- > lo;) {
        xyzz_add_ool(run, xyzz_load(bk + b));
        xyzz_add_ool(tot, run);
    }
}

/* parts[w*T + t] = sum over the segment's buckets b of (b + 1) * S_b. */
template <class F>
static __global__ void segments_kernel(const xyzz_t<F> *buckets, unsigned nw, uint32_t B,
                                       uint32_t seg, uint64_t T, xyzz_t<F> *parts)
{
    uint64_t id = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= nw * T)
        return;
    uint64_t w = id / T, t = id % T;
    uint32_t lo = (uint32_t)t * seg;
    xyzz_t<F> run, tot;
    segment_sums(buckets + w * B, lo, seg, run, tot);
    if (lo) {
        xyzz_t<F> x;
        xyzz_mul_u32(x, run, lo);
        xyzz_add_ool(tot, x);
    }
    xyzz_store(parts + id, tot);
}

/*
 * The bucket reduction in two levels (two_level_reduce). Over segments t of
 * seg buckets from lo_t = t seg, the sum over b of (b + 1) S_b is the sum
 * of the segments' tot_t (segment_sums) plus seg times the sum of t run_t,
 * which is a bucket reduction itself, over the T runs: so no segment pays
 * a product by its offset (~26 additions at c = 20, next to its 2 seg).
 * parts[w*T + t] = tot_t; runs[w*T + t - 1] = run_t for t >= 1, and
 * runs[w*T + T - 1] = infinity (weight T, adds nothing).
 */
template <class F>
static __global__ void segments_split_kernel(const xyzz_t<F> *buckets, unsigned nw, uint32_t B,
                                             uint32_t seg, uint64_t T, xyzz_t<F> *parts,
                                             xyzz_t<F> *runs)
{
    uint64_t id = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= nw * T)
        return;
    uint64_t w = id / T, t = id % T;
    xyzz_t<F> run, tot;
    segment_sums(buckets + w * B, (uint32_t)t * seg, seg, run, tot);
    xyzz_store(parts + id, tot);
    if (t) {
        xyzz_store(runs + w * T + t - 1, run);
    } else {
        xyzz_set_inf(run);
        xyzz_store(runs + w * T + T - 1, run);
    }
}

/* res[w] = a[w] + 2^k b[w] for w < nw. */
template <class F>
static __global__ void combine_kernel(const xyzz_t<F> *a, const xyzz_t<F> *b, unsigned k,
                                      unsigned nw, xyzz_t<F> *res)
{
    unsigned w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nw)
        return;
    xyzz_t<F> x = xyzz_load(b + w);
    for (unsigned i = 0; i < k; i++)
        xyzz_dbl_ool(x);
    xyzz_add_ool(x, xyzz_load(a + w));
    xyzz_store(res + w, x);
}

/* out[g] = sum of in[g*per .. (g+1)*per), one block of TREE threads per g.
 * The block sums in place in `in` (its own range only). */
template <class F>
static __global__ void __launch_bounds__(TREE) tree_kernel(xyzz_t<F> *in, uint64_t per, xyzz_t<F> *out)
{
    xyzz_t<F> *v = in + (uint64_t)blockIdx.x * per;
    unsigned i = threadIdx.x;
    xyzz_t<F> acc;
    xyzz_set_inf(acc);
    for (uint64_t j = i; j < per; j += TREE)
        xyzz_add_ool(acc, xyzz_load(v + j));
    __syncthreads();
    if (i < per)
        xyzz_store(v + i, acc);
    __syncthreads();
    unsigned active = per < TREE ? (unsigned)per : TREE;
    for (unsigned stride = TREE / 2; stride; stride >>= 1) {
        if (i < stride && i + stride < active) {
            xyzz_t<F> a = xyzz_load(v + i);
            xyzz_add_ool(a, xyzz_load(v + i + stride));
            xyzz_store(v + i, a);
        }
        __syncthreads();
    }
    if (i == 0) {
        if (per == 0)
            xyzz_set_inf(acc);
        else
            acc = xyzz_load(v);
        xyzz_store(out + blockIdx.x, acc);
    }
}

/*
 * Reduces groups * per partial sums (group-major, per a power of two or
 * below TREE) to groups sums in `out`, through `tmp` for the levels.
 */
template <class F>
static zp_err reduce_groups(zp__gpu *g, cudaStream_t st, xyzz_t<F> *parts, xyzz_t<F> *tmp,
                            uint64_t groups, uint64_t per, xyzz_t<F> *out)
{
    while (per > TREE) {
        uint64_t blocks = groups * (per / TREE);
        tree_kernel<F><<<(unsigned)blocks, TREE, 0, st>>>(parts, TREE, tmp);
        ZP_CUDA_LAUNCHED();
        xyzz_t<F> *x = parts;
        parts = tmp;
        tmp = x;
        per /= TREE;
    }
    tree_kernel<F><<<(unsigned)groups, TREE, 0, st>>>(parts, per, out);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

/* The window sums res[0 .. l->windows) from the buckets in two levels
 * (segments_split_kernel; l->runs set, so l->segs > 1 and
 * l->window_buckets > seg). The two
 * levels' sums go to the runs array, dead by then. */
template <class F>
static zp_err reduce_two_levels(zp__gpu *g, cudaStream_t st, const msm_layout *l, char *base,
                                const xyzz_t<F> *buckets, xyzz_t<F> *parts, xyzz_t<F> *tmp,
                                xyzz_t<F> *res)
{
    const uint32_t seg = l->seg;
    const uint64_t T = l->segs, T2 = l->segs2;
    xyzz_t<F> *runs = (xyzz_t<F> *)(base + l->runs), *parts3 = (xyzz_t<F> *)(base + l->run_parts);
    segments_split_kernel<F><<<zp__ceil_div_u(l->windows * T, 64), 64, 0, st>>>(
        buckets, l->windows, l->window_buckets, seg, T, parts, runs);
    ZP_CUDA_LAUNCHED();
    segments_kernel<F><<<zp__ceil_div_u(l->windows * T2, 64), 64, 0, st>>>(
        runs, l->windows, (uint32_t)T, T < seg ? (uint32_t)T : seg, T2, parts3);
    ZP_CUDA_LAUNCHED();
    ZP_TRY(reduce_groups<F>(g, st, parts, tmp, l->windows, T, runs));
    ZP_TRY(reduce_groups<F>(g, st, parts3, tmp, l->windows, T2, runs + l->windows));
    combine_kernel<F><<<zp__ceil_div_u(l->windows, 64), 64, 0, st>>>(
        runs, runs + l->windows, (unsigned)__builtin_ctz(seg), l->windows, res);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

#endif
