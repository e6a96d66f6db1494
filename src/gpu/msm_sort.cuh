/*
 * Sorting a window's digits one bit short (msm_impl.cuh step 3), included
 * by msm_impl.cuh only.
 *
 * A signed c-bit digit's magnitude is 0 .. 2^(c-1): c bits of key, and the
 * top bit is set only for the one magnitude 2^(c-1) (the "top" digit, as
 * rare as any other for random scalars). The radix sort moves 8 bits a
 * pass, so at c = 9 or 17 the last of its passes sorts that one bit. Where
 * sort_bits says so, the sort takes the low c - 1 bits only: the top digits
 * then land among the zero digits (low bits 0), the first group of each
 * window's sorted entries, mixed in input order. The fix-up makes each of
 * the two keys one run again, which is all that the bounds and the
 * accumulation need (runs of equal keys, in any order of keys):
 *
 *   group  (per window)  the group's length, by a binary search for the
 *                        first entry whose low bits are not 0;
 *   gather (per entry)   the group's top entries' values into the sort's
 *                        input (dead once the sort ran), in any order;
 *   write  (per entry)   the group rewritten: the top digits first, then
 *                        zeros. Zero digits are never summed, so their
 *                        values may stay whatever valid index they hold.
 *
 * The fix-up costs a fraction of the radix pass it saves (a pass moves
 * every key and value; the fix-up touches the zero digits' group only).
 */
#ifndef ZP_GPU_MSM_SORT_CUH
#define ZP_GPU_MSM_SORT_CUH

#define SORT_RADIX_BITS 8 /* CUB's onesweep digit for 32-bit keys */
#define SORT_FIX_BLOCKS 64 /* blocks a window for gather and write */

/* Key bits the sort of c-bit digits takes: c - 1 where that saves a pass
 * (then sort_fix must follow), else c. */
static unsigned sort_bits(unsigned c)
{
    return c > 1 && (c - 1) % SORT_RADIX_BITS == 0 ? c - 1 : c;
}

/* Per window w of the pass: glen[w] = the length of the group of entries
 * whose low bits (mask) are 0, at the start of its m sorted entries;
 * ntop[w] = 0. */
static __global__ void sort_group_kernel(const uint32_t *keys, uint64_t m, unsigned gw,
                                         uint32_t mask, uint64_t *glen, uint32_t *ntop)
{
    unsigned w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= gw)
        return;
    const uint32_t *k = keys + (uint64_t)w * m;
    uint64_t lo = 0, hi = m; /* [0, lo) low bits 0; the first other in [lo, hi] */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (k[mid] & mask)
            hi = mid;
        else
            lo = mid + 1;
    }
    glen[w] = lo;
    ntop[w] = 0;
}

/* The values of window blockIdx.y's top entries (key != 0 in its group) to
 * tmp[w * m + j], j < ntop[w], one atomic a warp. Whole blocks iterate
 * together, so every ballot has all 32 lanes. */
static __global__ void sort_gather_kernel(const uint32_t *keys, const uint32_t *vals, uint64_t m,
                                          const uint64_t *glen, uint32_t *ntop, uint32_t *tmp)
{
    const unsigned w = blockIdx.y, lane = threadIdx.x & 31;
    const uint64_t g = glen[w], o = (uint64_t)w * m;
    for (uint64_t b0 = (uint64_t)blockIdx.x * blockDim.x; b0 < g;
         b0 += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t i = b0 + threadIdx.x;
        bool top = i < g && keys[o + i] != 0;
        unsigned bits = __ballot_sync(0xffffffffu, top);
        if (!bits)
            continue;
        uint32_t at = 0;
        if (lane == 0)
            at = atomicAdd(ntop + w, (uint32_t)__popc(bits));
        at = __shfl_sync(0xffffffffu, at, 0);
        if (top)
            tmp[o + at + __popc(bits & ((1u << lane) - 1))] = vals[o + i];
    }
}

/* Window blockIdx.y's group rewritten: ntop[w] entries of key `top` with
 * the gathered values, then zeros. */
static __global__ void sort_write_kernel(uint32_t *keys, uint32_t *vals, uint64_t m,
                                         const uint64_t *glen, const uint32_t *ntop,
                                         const uint32_t *tmp, uint32_t top)
{
    const unsigned w = blockIdx.y;
    const uint64_t g = glen[w], t = ntop[w], o = (uint64_t)w * m;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < g;
         i += (uint64_t)gridDim.x * blockDim.x) {
        if (i < t) {
            keys[o + i] = top;
            vals[o + i] = tmp[o + i];
        } else {
            keys[o + i] = 0;
        }
    }
}

/* The fix-up after sorting the gw windows of a pass (m entries each, keys
 * and vals, c-bit digits) by their low c - 1 bits; tmp has room for gw * m
 * words, grp for 16 bytes a window (the plan's sort_grp). */
static zp_err sort_fix(zp__gpu *g, cudaStream_t st, uint32_t *keys, uint32_t *vals,
                       uint32_t *tmp, char *grp, uint64_t m, unsigned gw, unsigned c)
{
    uint64_t *glen = (uint64_t *)grp;
    uint32_t *ntop = (uint32_t *)(glen + gw);
    sort_group_kernel<<<zp__ceil_div_u(gw, 32), 32, 0, st>>>(keys, m, gw, (1u << (c - 1)) - 1,
                                                             glen, ntop);
    ZP_CUDA_LAUNCHED();
    dim3 grid(SORT_FIX_BLOCKS, gw);
    sort_gather_kernel<<<grid, 256, 0, st>>>(keys, vals, m, glen, ntop, tmp);
    ZP_CUDA_LAUNCHED();
    sort_write_kernel<<<grid, 256, 0, st>>>(keys, vals, m, glen, ntop, tmp, 1u << (c - 1));
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

#endif
