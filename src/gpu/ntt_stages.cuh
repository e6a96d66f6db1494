/*
 * The stages of an NTT pass over a tile in shared memory, included by
 * ntt.cu only (after ntt_shoup.cuh): the radix-4 DIF stages (with one
 * radix-2 stage for an odd k), and their transposes (DIT) for the passes
 * that take bit-reversed input. Their values lie in [0, 2m) and st_add,
 * st_sub and tw_mul keep them there; the passes reduce them as they store.
 */
#ifndef ZP_GPU_NTT_STAGES_CUH
#define ZP_GPU_NTT_STAGES_CUH

/*
 * The stage twiddles of a pass of k bits: w_(2^(lhs+1))^r for r < 2^lhs is
 * entry r << (k - 1 - lhs) of the pass's roots w_(2^k)^i, i < 2^(k-1), in
 * shared memory (stw), or entry r << (9 - lhs) of the plain roots w_1024^i
 * in global memory (sp, ntt_tables.cuh); their companions always from sp.
 */
struct stage_tw {
    const fr_t *t;  /* stw, or the plain roots */
    unsigned base;  /* k - 1, or 9 for the plain roots */
    const fr_t *cp; /* the companions of w_1024^i, i < 512 */
};

/* A stage twiddle for Shoup's product: the plain root and its companion,
 * w_(2^(lhs+1))^r = w_1024^(r << (9 - lhs)). */
struct tw_t {
    fr_t w, p;
};
static __device__ __forceinline__ tw_t stage_w(const stage_tw &w, unsigned lhs, unsigned r)
{
    return tw_t{fr_load(w.t + (r << (w.base - lhs))),
                fr_ldg(w.cp + (r << (9 - lhs)))};
}
static __device__ __forceinline__ fr_t tw_mul(const fr_t &x, const tw_t &w)
{
    return fr_shoup(x, w.w, w.p);
}

/* Copies a pass's 2^(k-1) stage roots (k <= SHTW_MAX_K) into stw from the
 * plain roots sp; the stages' twiddles then. */
static __device__ __forceinline__ stage_tw stage_roots_shared(fr_t *stw, unsigned k,
                                                              const fr_t *sp, unsigned threads)
{
    for (unsigned i = threadIdx.x; i < (1u << (k - 1)); i += threads)
        fr_store(stw + i, fr_load(sp + (i << (10 - k))));
    return stage_tw{stw, k - 1, sp + SHOUP_N};
}

/* The stages' twiddles straight from the plain roots in global memory. */
static __device__ __forceinline__ stage_tw stage_roots_global(const fr_t *sp)
{
    return stage_tw{sp, 9, sp + SHOUP_N};
}

/* One radix-2 DIF stage over the tile: rows q and q + 2^lhs of each of the
 * 2^j columns, the difference times w_(2^(lhs+1))^(q mod 2^lhs). */
static __device__ __forceinline__ void radix2_stage(fr_t *sh, const stage_tw &sw, unsigned lhs,
                                                    unsigned j, unsigned tile)
{
    const unsigned hs = 1u << lhs, cmask = (1u << j) - 1;
#pragma unroll 1
    for (unsigned e = threadIdx.x; e < tile / 2; e += blockDim.x) {
        unsigned l = e & cmask, q = e >> j, r = q & (hs - 1);
        unsigned g0 = ((q >> lhs) << (lhs + 1)) + r;
        unsigned i0 = (g0 << j) + l, i1 = i0 + (hs << j);
        fr_t x = fr_load(sh + i0), y = fr_load(sh + i1);
        fr_store(sh + i0, st_add(x, y));
        fr_t d = st_sub(x, y);
        if (r)
            d = tw_mul(d, stage_w(sw, lhs, r));
        fr_store(sh + i1, d);
    }
}

/*
 * Where group e of a radix-4 stage pair at lhs lies: its column l is the
 * low j bits of e, its rows start at g0 = (G << (lhs + 1)) + r (returned;
 * r < 2^(lhs-1) in *r, G < 2^a, a = k - 1 - lhs). r takes the top bits of
 * e ("r first") and G the bits above l, so that where 2^(a+j) >= 32 a
 * warp's groups share r: those with r = 0, whose twiddles are one, skip
 * their products together (a warp skips only when all its threads do), and
 * a warp's twiddle loads are broadcasts. The shared-memory banks see rows
 * apart by multiples of four, columns side by side.
 */
static __device__ __forceinline__ unsigned r4_rows(unsigned e, unsigned k, unsigned j,
                                                   unsigned lhs, unsigned *r)
{
    const unsigned a = k - 1 - lhs;
    *r = e >> (j + a); /* e < 2^(k+j-2) = 2^(j+a+lhs-1) */
    return (((e >> j) & ((1u << a) - 1)) << (lhs + 1)) + *r;
}

/* x, y <- x + y, (x - y) * w (w skipped when trivial). */
static __device__ __forceinline__ void bfly(fr_t &x, fr_t &y, const tw_t &w, bool trivial)
{
    fr_t d = st_sub(x, y);
    x = st_add(x, y);
    y = trivial ? d : tw_mul(d, w);
}

/*
 * The stages two at a time in registers (radix 4), so each pair of stages
 * costs one shared-memory round trip and one barrier instead of two. Stages lhs and lhs - 1 on
 * rows g, g + h, g + 2h, g + 3h (h = 2^(lhs-1), r = g mod h): the first
 * pairs (g, g+2h) and (g+h, g+3h) with w_(4h)^r and w_(4h)^(r+h), the
 * second (g, g+h) and (g+2h, g+3h), both with w_(2h)^r. An odd k starts
 * with one radix-2 stage.
 */
/* The k stages of a pass over the tile (ends with a barrier). */
static __device__ __forceinline__ void ntt_stages(fr_t *sh, const stage_tw &sw, unsigned k,
                                                     unsigned j, unsigned tile)
{
    const unsigned cmask = (1u << j) - 1;
    unsigned st = 0;
    if (k & 1) {
        radix2_stage(sh, sw, k - 1, j, tile);
        __syncthreads();
        st = 1;
    }
    /* Rolled: the compiler of sm_100 and later (NVVM 20) unrolls the
     * pairs of a pass of up to 9 bits otherwise, which doubles the DIT
     * pass kernels (~11k instructions, spills) beyond the instruction
     * cache; sm_80 to sm_90 keep the loop rolled either way. */
#pragma unroll 1
    for (; st < k; st += 2) {
        const unsigned lhs = k - 1 - st, h = 1u << (lhs - 1);
        for (unsigned e = threadIdx.x; e < tile / 4; e += blockDim.x) {
            unsigned l = e & cmask, r, g0 = r4_rows(e, k, j, lhs, &r);
            unsigned i0 = (g0 << j) + l, hj = h << j;
            fr_t x0 = fr_load(sh + i0), x1 = fr_load(sh + i0 + hj);
            fr_t x2 = fr_load(sh + i0 + 2 * hj), x3 = fr_load(sh + i0 + 3 * hj);
            /* w_(4h)^r, w_(4h)^(r + h), w_(2h)^r */
            /* wb after the first butterfly: with Shoup's twiddle pairs
             * (16 words each) both live at once spilled under the cap. */
            tw_t wa = stage_w(sw, lhs, r);
            bfly(x0, x2, wa, r == 0);
            tw_t wb = stage_w(sw, lhs, r + h);
            bfly(x1, x3, wb, false);
            tw_t wc = stage_w(sw, lhs - 1, r);
            bfly(x0, x1, wc, r == 0);
            bfly(x2, x3, wc, r == 0);
            fr_store(sh + i0, x0);
            fr_store(sh + i0 + hj, x1);
            fr_store(sh + i0 + 2 * hj, x2);
            fr_store(sh + i0 + 3 * hj, x3);
        }
        __syncthreads();
    }
}

/*
 * The transposed stages (decimation in time): the transform with every
 * stage's butterfly (x, y) -> (x + y, (x - y) w) replaced by its transpose
 * (u, v) -> (u + w v, u - w v) and the stages in reverse order. As the DFT
 * matrix F is symmetric and the DIF passes make B F x (B the bit reversal),
 * the passes transposed and run last to first make F x from B x: bit-
 * reversed in, natural out, no bit reversal pass.
 */
static __device__ __forceinline__ void bfly_dit(fr_t &x, fr_t &y, const tw_t &w, bool trivial)
{
    fr_t t = trivial ? y : tw_mul(y, w);
    y = st_sub(x, t);
    x = st_add(x, t);
}

static __device__ __forceinline__ void radix2_stage_dit(fr_t *sh, const stage_tw &sw,
                                                        unsigned lhs, unsigned j, unsigned tile)
{
    const unsigned hs = 1u << lhs, cmask = (1u << j) - 1;
#pragma unroll 1
    for (unsigned e = threadIdx.x; e < tile / 2; e += blockDim.x) {
        unsigned l = e & cmask, q = e >> j, r = q & (hs - 1);
        unsigned g0 = ((q >> lhs) << (lhs + 1)) + r;
        unsigned i0 = (g0 << j) + l, i1 = i0 + (hs << j);
        fr_t x = fr_load(sh + i0), y = fr_load(sh + i1);
        if (r)
            y = tw_mul(y, stage_w(sw, lhs, r));
        fr_store(sh + i0, st_add(x, y));
        fr_store(sh + i1, st_sub(x, y));
    }
}

/* The k stages of ntt_stages transposed, in reverse order (ends with a
 * barrier): the pairs of stages (lhs, lhs - 1) for lhs = 1, 3, ..., their
 * four butterflies transposed and reversed, then an odd k's radix-2 stage
 * k - 1. */
static __device__ __forceinline__ void ntt_stages_dit(fr_t *sh, const stage_tw &sw, unsigned k,
                                                      unsigned j, unsigned tile)
{
    const unsigned cmask = (1u << j) - 1, top = k & ~1u;
#pragma unroll 1 /* see ntt_stages */
    for (unsigned lhs = 1; lhs < top; lhs += 2) {
        const unsigned h = 1u << (lhs - 1);
        for (unsigned e = threadIdx.x; e < tile / 4; e += blockDim.x) {
            unsigned l = e & cmask, r, g0 = r4_rows(e, k, j, lhs, &r);
            unsigned i0 = (g0 << j) + l, hj = h << j;
            fr_t x0 = fr_load(sh + i0), x1 = fr_load(sh + i0 + hj);
            fr_t x2 = fr_load(sh + i0 + 2 * hj), x3 = fr_load(sh + i0 + 3 * hj);
            tw_t wc = stage_w(sw, lhs - 1, r);
            bfly_dit(x0, x1, wc, r == 0);
            bfly_dit(x2, x3, wc, r == 0);
            tw_t wa = stage_w(sw, lhs, r);
            bfly_dit(x0, x2, wa, r == 0);
            tw_t wb = stage_w(sw, lhs, r + h);
            bfly_dit(x1, x3, wb, false);
            fr_store(sh + i0, x0);
            fr_store(sh + i0 + hj, x1);
            fr_store(sh + i0 + 2 * hj, x2);
            fr_store(sh + i0 + 3 * hj, x3);
        }
        __syncthreads();
    }
    if (k & 1) {
        radix2_stage_dit(sh, sw, k - 1, j, tile);
        __syncthreads();
    }
}

#endif
