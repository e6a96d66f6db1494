/*
 * The pipelined NTT pass, included by ntt.cu only (after ntt_pass_kernel
 * and what it uses). The plain pass kernel runs one tile a block: load,
 * stages, store; an SM's three blocks overlap their loads with each
 * other's stages only as far as they happen to be out of step. It was
 * written on the guess that per pass at 2^27 about 2 ms of memory traffic
 * (8.6 GB) adds to the products instead of hiding under them; the
 * measurements below say that guess was wrong for the passes with m > 0,
 * where the plain kernel already comes within ~1.3-2 ms of its products'
 * time at the field benchmark's rate. Here a block stays resident and
 * walks tiles t = blockIdx.x, + gridDim.x, ...: while it runs the stages
 * of tile t in one buffer, tile t + gridDim.x is already on its way into
 * the other (cp.async, global to shared without registers). Tiles of 2^10
 * elements, so two buffers (64 KiB) and the pass's roots (8 KiB, loaded
 * once a block instead of once a tile) still let three blocks share an SM.
 *
 * The tile holds 2^j columns of the pass (m > 0, j = 10 - k: runs of 2^j
 * elements in global memory) or, in a pass with nothing below it (m = 0),
 * 2^j whole transforms side by side, so that the last pass also fills the
 * block (the plain kernel gives it a 2^k tile and half its threads idle in
 * the radix-4 stages). A forward coset's scale (slo/shi) and the DIT
 * twist apply in shared memory once the tile is in.
 *
 * Measured on the H200 (session 16, bench ntt, alternating twice, medians
 * of 5): on every pass it applies to it lost, 2^27 42.87 -> 46.31 ms: each
 * pass with m > 0 took ~2 ms more (runs of 2 elements instead of 4, or
 * the copies themselves; not separated), while the last pass gained (12.43
 * -> 11.83 ms). On the passes with m = 0 alone it wins: 2^27 42.88 / 42.95
 * -> 42.28 / 42.31 ms, 2^26 20.58 / 20.61 -> 20.39 / 20.41; the porep:27
 * partition's h 259.9 -> 258.6 ms (two calls). That was the default until
 * session 17 measured the plain kernel with several transforms a tile
 * (ZKPIPE_NTT_BATCH, ntt.cu) faster still on that pass (2^27: 11.81 ->
 * 10.61 ms): the block filled was what counted, not the overlap. So no
 * pass is pipelined by default now; the kernel stays for measurements.
 */
#ifndef ZP_GPU_NTT_PIPE_CUH
#define ZP_GPU_NTT_PIPE_CUH

#include "gpu/knob.h"

/* ZKPIPE_NTT_PIPE: 0 (the default) runs no pass pipelined, 1 every pass
 * it applies to, 2 only the passes with nothing below them (m = 0). */
static unsigned pipe_mode(void)
{
    static const unsigned mode = zp__env_knob("ZKPIPE_NTT_PIPE", 0, 2, 0);
    return mode;
}

#define PIPE_TILE_LOG 10
#define PIPE_THREADS 256
#define PIPE_BLOCKS_PER_SM 3

/* 16 bytes global -> shared, cached in L2 only; completes by groups. */
static __device__ __forceinline__ void cp_async16(void *dst, const void *src)
{
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
}

static __device__ __forceinline__ void cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Waits for all but the newest group of this thread's copies. */
static __device__ __forceinline__ void cp_async_wait_prev(void)
{
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
}

/* Where tile t starts (base) and, for m > 0, its column group (L0); the
 * global index of element e of it is base + (e >> j) << m + (e & cmask)
 * << cs, cs = k when m = 0 (whole transforms side by side), else 0. */
struct pipe_geom {
    unsigned k, m, j, cs;
};

static __device__ __forceinline__ uint64_t pipe_base(const pipe_geom &p, uint64_t t,
                                                     uint64_t *L0)
{
    if (p.m == 0) {
        *L0 = 0;
        return t << (p.k + p.j);
    }
    const uint64_t H = t >> (p.m - p.j);
    *L0 = t & ((1ull << (p.m - p.j)) - 1);
    return (H << (p.k + p.m)) + (*L0 << p.j);
}

static __device__ __forceinline__ uint64_t pipe_idx(const pipe_geom &p, uint64_t base, unsigned e)
{
    return base + ((uint64_t)(e >> p.j) << p.m) + ((uint64_t)(e & ((1u << p.j) - 1)) << p.cs);
}

/* Starts the copy of tile t into sh: 16-byte halves, consecutive threads
 * on consecutive halves. */
static __device__ __forceinline__ void pipe_fetch(fr_t *sh, const fr_t *a, const pipe_geom &p,
                                                  uint64_t t)
{
    uint64_t L0;
    const uint64_t base = pipe_base(p, t, &L0);
    const unsigned halves = 2u << (p.k + p.j);
#pragma unroll 8
    for (unsigned c = threadIdx.x; c < halves; c += PIPE_THREADS) {
        const unsigned e = c >> 1;
        cp_async16(reinterpret_cast<uint4 *>(sh + e) + (c & 1),
                   reinterpret_cast<const uint4 *>(a + pipe_idx(p, base, e)) + (c & 1));
    }
}

/*
 * One pass over ntiles tiles of 2^(k+j) elements, as ntt_pass_kernel does
 * it (same arguments, same results), pipelined. Shared memory: two tiles,
 * then the pass's 2^(k-1) roots (k <= SHTW_MAX_K).
 */
template <bool DIT, bool RF>
static __global__ void NTT_PASS_BOUNDS ntt_pipe_kernel(fr_t *a, const fr_t *wlo, const fr_t *whi,
                                                       pipe_geom p, uint64_t ntiles,
                                                       const fr_t *slo, const fr_t *shi,
                                                       const fr_t *nlo, const fr_t *tw,
                                                       unsigned lg, const fr_t *sp)
{
    extern __shared__ uint4 sh_raw[];
    const unsigned tile = 1u << (p.k + p.j);
    fr_t *buf = reinterpret_cast<fr_t *>(sh_raw), *stw = buf + 2 * tile;
    const unsigned shift = 28 - (p.k + p.m);
    const bool fix = slo || (DIT && p.m > 0);

    uint64_t t = blockIdx.x;
    if (t < ntiles)
        pipe_fetch(buf, a, p, t);
    cp_async_commit();
    const stage_tw sw = stage_roots_shared(stw, p.k, whi, sp, PIPE_THREADS);

    for (unsigned b = 0; t < ntiles; t += gridDim.x, b ^= 1) {
        fr_t *sh = buf + b * tile;
        /* The next tile into the other buffer, free since the barrier that
         * ended the previous round. */
        if (t + gridDim.x < ntiles)
            pipe_fetch(buf + (b ^ 1) * tile, a, p, t + gridDim.x);
        cp_async_commit();
        cp_async_wait_prev();
        __syncthreads();
        uint64_t L0;
        const uint64_t base = pipe_base(p, t, &L0);
        if (fix) {
            for (unsigned e = threadIdx.x; e < tile; e += PIPE_THREADS) {
                fr_t x = fr_load(sh + e);
                if (slo) {
                    const uint64_t idx = pipe_idx(p, base, e);
                    const uint32_t at = DIT ? __brev((uint32_t)idx) >> (32 - lg) : (uint32_t)idx;
                    x = ntt_mul(x, pow_tab_full(slo, shi, at));
                }
                if (DIT && p.m > 0)
                    x = twist(x, twist_exp(e, p.j, p.k, shift, L0), wlo, whi, nlo, tw);
                fr_store(sh + e, x);
            }
            __syncthreads();
        }
        if (DIT)
            ntt_stages_dit(sh, sw, p.k, p.j, tile, RF);
        else
            ntt_stages(sh, sw, p.k, p.j, tile, RF);
        ZP_UNROLL(ZP_NTT_BF_UNROLL)
        for (unsigned e = threadIdx.x; e < tile; e += PIPE_THREADS) {
            fr_t x = st_norm(fr_load(sh + e));
            if (!DIT && p.m > 0)
                x = twist(x, twist_exp(e, p.j, p.k, shift, L0), wlo, whi, nlo, tw);
            fr_store(a + pipe_idx(p, base, e), x);
        }
        __syncthreads();
    }
}

/* The pipelined kernel's instance for (dit, rf). */
typedef void (*pipe_fn)(fr_t *, const fr_t *, const fr_t *, pipe_geom, uint64_t, const fr_t *,
                        const fr_t *, const fr_t *, const fr_t *, unsigned, const fr_t *);
static pipe_fn pipe_kernel(bool dit, bool rf)
{
    if (dit)
        return rf ? ntt_pipe_kernel<true, true> : ntt_pipe_kernel<true, false>;
    return rf ? ntt_pipe_kernel<false, true> : ntt_pipe_kernel<false, false>;
}

/* The pipelined pass's geometry for a pass of k bits with m below it in a
 * transform of log2n bits, or false where it does not apply: its roots
 * must fit in shared memory (k <= SHTW_MAX_K) and its tile must be full
 * (2^PIPE_TILE_LOG elements). */
static bool pipe_plan(unsigned k, unsigned m, unsigned log2n, pipe_geom *p)
{
    if (k > SHTW_MAX_K || k >= PIPE_TILE_LOG)
        return false;
    const unsigned want = PIPE_TILE_LOG - k, room = m ? m : log2n - k;
    if (room < want)
        return false;
    *p = pipe_geom{k, m, want, m ? 0u : k};
    return true;
}

static size_t pipe_shared(unsigned k)
{
    return ((size_t)2 * (1u << PIPE_TILE_LOG) + (1u << (k - 1))) * sizeof(fr_t);
}

#endif
