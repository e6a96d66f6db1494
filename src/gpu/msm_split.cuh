/*
 * The 0/1 split (msm_impl.cuh step 1), included by msm_impl.cuh only.
 *
 * classify_kernel marks each scalar 0, 1 (ONE_FLAG) or dense (1) in a
 * packed counter; an exclusive scan of those counters gives every scalar
 * its place, and scatter_kernel writes the dense and ones index lists and
 * the two counts. The _w kernels do the same over witness values
 * (wsel_t): the scalars are read where they lie in Montgomery form, the
 * dense list holds witness indices (the digits turn each into its point
 * index) and the ones list point indices.
 */
#ifndef ZP_GPU_MSM_SPLIT_CUH
#define ZP_GPU_MSM_SPLIT_CUH

static __global__ void classify_kernel(const fr_t *sc, uint64_t n, uint64_t *flags)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_t s = fr_load(sc + i);
    uint32_t high = 0;
#pragma unroll
    for (int j = 1; j < 8; j++)
        high |= s.v[j];
    uint64_t f = 1; /* dense */
    if (high == 0 && s.v[0] <= 1)
        f = s.v[0] == 1 ? ONE_FLAG : 0;
    flags[i] = f;
}

static __global__ void scatter_kernel(const uint64_t *flags, const uint64_t *pos, uint64_t n,
                                      uint32_t *dense, uint32_t *ones, uint32_t *counts)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t f = flags[i], p = pos[i];
    if (f == 1)
        dense[(uint32_t)p] = (uint32_t)i;
    else if (f == ONE_FLAG)
        ones[(uint32_t)(p >> 32)] = (uint32_t)i;
    if (i == n - 1) {
        counts[0] = (uint32_t)(p + f);
        counts[1] = (uint32_t)((p + f) >> 32);
    }
}

/* Witness scalars (zp__gpu_msm_g1_w): scalar j is w[v], v the j-th index
 * of [off, off + nv) whose bit is set in words (every index without
 * words), in Montgomery form. The split runs over v, the dense list holds v
 * (the digits read w[v] and turn it into j), the ones list j. */
struct wsel_t {
    const fr_t *w;
    const uint64_t *words; /* NULL: every index of the range */
    const uint32_t *rank;  /* set bits in words before word k */
    uint64_t off, nv;
    uint64_t j0; /* set bits below off: the rank of the range's first point */
};

/* j of witness index v, or false where v is not selected. */
static __device__ __forceinline__ bool wsel_j(const wsel_t &ws, uint64_t v, uint64_t *j)
{
    if (!ws.words) {
        *j = v - ws.off;
        return true;
    }
    const uint64_t word = ws.words[v >> 6];
    const unsigned bit = (unsigned)(v & 63);
    if (!((word >> bit) & 1))
        return false;
    const uint64_t below = bit ? word & ((~(uint64_t)0) >> (64 - bit)) : 0;
    *j = (uint64_t)ws.rank[v >> 6] + (uint64_t)__popcll(below) - ws.j0;
    return true;
}

/* x in Montgomery form to standard: x 1 R^-1 with 1 as raw limbs. */
static __device__ __forceinline__ fr_t fr_from_mont_dev(const fr_t &x)
{
    fr_t one_raw;
    one_raw.v[0] = 1;
#pragma unroll
    for (int k = 1; k < 8; k++)
        one_raw.v[k] = 0;
    return fr_mul(x, one_raw);
}

/* classify_kernel over witness scalars: zero is all-zero limbs, one is R
 * mod r (fr_one). j >= n is never written (a density with more bits than
 * the caller's n). */
static __global__ void classify_w_kernel(wsel_t ws, uint64_t n, uint64_t *flags)
{
    const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, v = ws.off + t;
    uint64_t j;
    if (t >= ws.nv || !wsel_j(ws, v, &j) || j >= n)
        return;
    const fr_t s = fr_load(ws.w + v);
    flags[j] = fr_is_zero(s) ? 0 : fr_is_one(s) ? ONE_FLAG : 1;
}

/* scatter_kernel over witness scalars: dense gets v, ones gets j. */
static __global__ void scatter_w_kernel(wsel_t ws, const uint64_t *flags, const uint64_t *pos,
                                        uint64_t n, uint32_t *dense, uint32_t *ones,
                                        uint32_t *counts)
{
    const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, v = ws.off + t;
    uint64_t j;
    if (t >= ws.nv || !wsel_j(ws, v, &j) || j >= n)
        return;
    const uint64_t f = flags[j], p = pos[j];
    if (f == 1)
        dense[(uint32_t)p] = (uint32_t)v;
    else if (f == ONE_FLAG)
        ones[(uint32_t)(p >> 32)] = (uint32_t)j;
    if (j == n - 1) {
        counts[0] = (uint32_t)(p + f);
        counts[1] = (uint32_t)((p + f) >> 32);
    }
}

/* sc as a wsel_t for n scalars, or ZP_E_TOO_LARGE / ZP_E_INVALID_ARG
 * (gpu.h's rules). */
static zp_err wsel_of(wsel_t *ws, const zp__gpu_wsc *sc, uint64_t n)
{
    if (n > ZP_GPU_MSM_MAX)
        return ZP_E_TOO_LARGE;
    if (!sc || !sc->w || sc->off + sc->nv > ((uint64_t)1 << 32) || sc->off + sc->nv < sc->off ||
        (sc->words ? !sc->rank || sc->j0 > sc->off || n > sc->nv
                   : n != sc->nv || sc->j0 != 0))
        return ZP_E_INVALID_ARG;
    *ws = wsel_t{(const fr_t *)sc->w, sc->words, sc->rank, sc->off, sc->nv, sc->j0};
    return ZP_OK;
}

#endif
