/*
 * The NTT's bit-reversal pass, included by ntt.cu only (after
 * pow_tab_full and BR_B): the permutation that puts a transform's
 * bit-reversed output in natural order, with the scale of an inverse
 * (n^-1, a coset's g^-j: br_scale's modes) and, for coset_diff, the
 * difference of two inputs (br_load's mode 3) applied on the way. Small
 * transforms swap element pairs; larger ones swap 2^BR_B x 2^BR_B tiles
 * through shared memory so that both sides are runs of 2^BR_B elements.
 */
#ifndef ZP_GPU_NTT_BITREV_CUH
#define ZP_GPU_NTT_BITREV_CUH

/* mode 0: no scale; 1: times s; 2: times slo/shi table at the destination;
 * 3: none here (br_load combined it). */
static __device__ __forceinline__ fr_t br_scale(fr_t x, uint64_t dest, int mode, const fr_t &s,
                                                const fr_t *slo, const fr_t *shi)
{
    if (mode == 1)
        return fr_mul(x, s);
    if (mode == 2)
        return fr_mul(x, pow_tab_full(slo, shi, (uint32_t)dest));
    return x;
}

/* a[src] as the bit reversal loads it; mode 3: a[src] times the table at
 * its destination minus c[src] times s (zp__gpu_ntt_coset_diff). */
static __device__ __forceinline__ fr_t br_load(const fr_t *a, const fr_t *c, uint64_t src,
                                               unsigned logn, int mode, const fr_t &s,
                                               const fr_t *slo, const fr_t *shi)
{
    fr_t x = fr_load(a + src);
    if (mode != 3)
        return x;
    uint32_t dest = __brev((uint32_t)src) >> (32 - logn);
    return fr_sub(fr_mul(x, pow_tab_full(slo, shi, dest)), fr_mul(fr_load(c + src), s));
}

static __global__ void bitrev_small_kernel(fr_t *a, unsigned logn, int mode, fr_t s,
                                           const fr_t *slo, const fr_t *shi, const fr_t *c)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >> logn)
        return;
    uint32_t r = __brev(i) >> (32 - logn);
    if (i > r)
        return;
    fr_t x = br_load(a, c, i, logn, mode, s, slo, shi);
    if (i == r) {
        fr_store(a + i, br_scale(x, i, mode, s, slo, shi));
        return;
    }
    fr_t y = br_load(a, c, r, logn, mode, s, slo, shi);
    fr_store(a + r, br_scale(x, r, mode, s, slo, shi));
    fr_store(a + i, br_scale(y, i, mode, s, slo, shi));
}

/*
 * Index bits (hi: BR_B | mid | lo: BR_B). A block swaps the tile of mid with
 * the tile of rev(mid): element (hi, mid, lo) goes to (rev lo, rev mid, rev hi).
 */
static __global__ void bitrev_tiled_kernel(fr_t *a, unsigned logn, int mode, fr_t s,
                                           const fr_t *slo, const fr_t *shi, const fr_t *c)
{
    __shared__ uint4 raw[2 * 2 * (1 << (2 * BR_B))];
    fr_t *ta = reinterpret_cast<fr_t *>(raw), *tb = ta + (1 << (2 * BR_B));
    const unsigned mb = logn - 2 * BR_B, hs = logn - BR_B, T = 1u << (2 * BR_B);
    const uint32_t mid = blockIdx.x;
    const uint32_t rmid = mb ? __brev(mid) >> (32 - mb) : 0;
    if (mid > rmid)
        return;
    for (unsigned e = threadIdx.x; e < T; e += blockDim.x) {
        uint64_t hi = e >> BR_B, lo = e & ((1u << BR_B) - 1);
        uint64_t sa = (hi << hs) | ((uint64_t)mid << BR_B) | lo;
        fr_store(ta + e, br_load(a, c, sa, logn, mode, s, slo, shi));
        if (rmid != mid) {
            uint64_t sb = (hi << hs) | ((uint64_t)rmid << BR_B) | lo;
            fr_store(tb + e, br_load(a, c, sb, logn, mode, s, slo, shi));
        }
    }
    __syncthreads();
    for (unsigned e = threadIdx.x; e < T; e += blockDim.x) {
        uint64_t dh = e >> BR_B, dl = e & ((1u << BR_B) - 1);
        unsigned src = ((__brev((uint32_t)dl) >> (32 - BR_B)) << BR_B) |
                       (__brev((uint32_t)dh) >> (32 - BR_B));
        uint64_t da = (dh << hs) | ((uint64_t)rmid << BR_B) | dl;
        fr_store(a + da, br_scale(fr_load(ta + src), da, mode, s, slo, shi));
        if (rmid != mid) {
            uint64_t db = (dh << hs) | ((uint64_t)mid << BR_B) | dl;
            fr_store(a + db, br_scale(fr_load(tb + src), db, mode, s, slo, shi));
        }
    }
}

#endif
