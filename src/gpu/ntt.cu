/*
 * The Fr NTT on the GPU, natural order in and out, in place.
 *
 * Decimation in frequency in passes of k <= 10 bits. A pass with m index
 * bits below its own treats each block of M = 2^(k+m) elements as a
 * 2^k x 2^m matrix (four-step): it loads the 2^k elements of a column
 * (stride 2^m) into shared memory, runs a 2^k-point DIF there (output in
 * bit-reversed order), multiplies element p of column L by the twist
 * w_M^(L * rev_k(p)), and writes it back where it came from. Columns are
 * loaded 2^j at a time so that global accesses are runs of 2^j elements.
 * The pass with m = 0 (the DIF's last, the DIT's first) puts several
 * whole transforms in a tile (BATCH), so that its radix-4 stages keep
 * every thread busy; the radix-4 stages take r first (r4_rows). The stage
 * products are Shoup's and the stages lazy (ntt_shoup.cuh).
 * After the passes the array is in bit-reversed order; a tiled bit-reversal
 * pass (ntt_bitrev.cuh: through shared memory, both sides as runs of 16
 * elements) puts it in natural order and applies the scale of the inverse
 * (n^-1) and of an inverse coset (g^-j). A forward coset's g^j is applied
 * as the first pass loads. Every power of the root comes from two
 * 2^14-entry tables of the root of order 2^28 (w^e = lo[e mod 2^14] *
 * hi[e >> 14]), built at open, or from the one-load tables below.
 *
 * zp__gpu_ntt_to_coset(_scaled) runs the inverse's DIF passes (bit-
 * reversed out) then the forward transform as DIT passes (the DIF passes
 * transposed, bit-reversed in): no bit reversal at all, and the coset scale
 * g^i (with n^-1 and a constant) one product as the DIT's first pass loads.
 * zp__gpu_ntt_coset_diff, the TAU h step's end, runs two inverses and one
 * bit reversal that also scales and subtracts.
 */
#include "gpu/ctx.cuh"

/* The stage twiddles of a pass of k <= SHTW_MAX_K bits come from a copy of
 * its 2^(k-1) roots in shared memory (loaded once per block) instead of the
 * global table, whose strided reads mostly miss L1 (the tile takes most of
 * it). A 10-bit pass keeps the global table: its 16 KiB of roots would
 * cost the SM its third block. */
#define SHTW_MAX_K 9 /* also the largest shared size: below 10 bits */

#include "gpu/ntt_shoup.cuh"

#define PASS_MAX_BITS 10
/* log2 of the most elements one block holds in shared memory (2^11:
 * 64 KiB); a device takes this or one less (tile_log_for). */
#define TILE_LOG 11
#define BR_B 4 /* bit-reversal tiles: 2^4 x 2^4 elements */

/*
 * A third table per root, W[x] = w^(x * 2^10) for x < 2^18 (8 MiB each,
 * after the 2^14-entry tables), gives the twist of a pass spanning
 * M <= 2^18 elements in one load instead of lo * hi (one product less per
 * element at that boundary); and the inverse folds n^-1 into the first
 * pass's twist (a per-call lo table pre-scaled by n^-1) instead of a
 * product in the bit reversal. At 2^27 (passes 9/9/9) that is 2 of ~14.5
 * products per element fewer for the inverse, 1 for the forward.
 */
#define TW_LOG 18
#define TW_N (1u << TW_LOG)

/* w^e for e < 2^28 from tables whose entry 0 is one. */
static __device__ __forceinline__ fr_t pow_tab(const fr_t *lo, const fr_t *hi, uint32_t e)
{
    uint32_t a = e & ZP__TAB_MASK, b = e >> ZP__TAB_LOG;
    if (b == 0)
        return fr_load(lo + a);
    if (a == 0)
        return fr_load(hi + b);
    return fr_mul(fr_load(lo + a), fr_load(hi + b));
}

/* lo[e mod 2^14] * hi[e >> 14] always: lo may carry a constant factor. */
static __device__ __forceinline__ fr_t pow_tab_full(const fr_t *lo, const fr_t *hi, uint32_t e)
{
    return fr_mul(fr_load(lo + (e & ZP__TAB_MASK)), fr_load(hi + (e >> ZP__TAB_LOG)));
}

/* out[i] = pre * base^i for i < n. */
static __global__ void pow_table_kernel(fr_t *out, fr_t base, fr_t pre, uint32_t n)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_t acc = pre, b = base;
    for (uint32_t e = i; e; e >>= 1) {
        if (e & 1)
            acc = fr_mul(acc, b);
        b = fr_mul(b, b);
    }
    fr_store(out + i, acc);
}

#include "gpu/ntt_stages.cuh"

/* Twist of a pass (one element): x * w^E, w of order 2^28. nlo, when not
 * NULL, is lo pre-scaled by a constant applied to every element; tw (M <=
 * 2^TW_LOG, so E is a multiple of 2^(28 - TW_LOG)) is the one-load table. */
static __device__ __forceinline__ fr_t twist(fr_t x, uint32_t E, const fr_t *wlo,
                                             const fr_t *whi, const fr_t *nlo, const fr_t *tw)
{
    if (nlo)
        return fr_mul(x, pow_tab_full(nlo, whi, E));
    if (tw)
        return E ? fr_mul(x, fr_load(tw + (E >> (28 - TW_LOG)))) : x;
    return E ? fr_mul(x, pow_tab(wlo, whi, E)) : x;
}

/* Radix 4 holds four elements and three twiddles: without a cap it takes
 * ~95 registers, 2 blocks of 256 per SM where shared memory allows 3. */
#define NTT_PASS_BOUNDS __launch_bounds__(256, 3)

/* The twist exponent of element e of a pass's tile (column L0 * 2^j + l,
 * row p). */
static __device__ __forceinline__ uint32_t twist_exp(unsigned e, unsigned j, unsigned k,
                                                     unsigned shift, uint64_t L0)
{
    const unsigned p = e >> j, l = e & ((1u << j) - 1);
    const uint32_t L = ((uint32_t)L0 << j) + l;
    return (L * (__brev(p) >> (32 - k))) << shift;
}

/* Where column l of a tile starts: l << cs for a batch of transforms. */
static __device__ __forceinline__ uint64_t pass_col(unsigned l, unsigned cs, bool batch)
{
    return batch ? (uint64_t)l << cs : l;
}

/*
 * One pass. DIF (natural order in): load (times slo/shi at the index when
 * slo), the stages, the twist (m > 0), store. DIT, the pass transposed
 * (the passes run last to first): load (times slo/shi at the index's bit
 * reversal over lg bits when slo: the natural index of a bit-reversed
 * input), the twist, the transposed stages, store. A tile is 2^j
 * columns of the pass or, with BATCH (a pass with m = 0), 2^j whole
 * transforms side by side, column l at l << cs (cs = k). MUL (a DIT pass
 * with m > 0, the forward's last of to_coset_mul): each element is stored
 * times mul at its index, the pointwise product folded into the store; mul
 * is not read otherwise.
 * BIG (the first pass of a transform, m > 0, not BATCH): the twist factor
 * of each element is one load from the full table tw at the element's
 * index (ntt_twist.cuh) instead of a product of two table entries; nlo is
 * not read (the inverse's table holds n^-1).
 */
template <bool DIT, bool BATCH, bool MUL = false, bool BIG = false>
static __global__ void NTT_PASS_BOUNDS ntt_pass_kernel(fr_t *a, const fr_t *wlo, const fr_t *whi,
                                                       unsigned k, unsigned m, unsigned j,
                                                       unsigned cs, const fr_t *slo,
                                                       const fr_t *shi, const fr_t *nlo,
                                                       const fr_t *tw, unsigned lg,
                                                       const fr_t *mul, const fr_t *sp)
{
    extern __shared__ uint4 sh_raw[];
    fr_t *sh = reinterpret_cast<fr_t *>(sh_raw);
    const unsigned tile = 1u << (k + j), cmask = (1u << j) - 1;
    const uint64_t blk = blockIdx.x;
    uint64_t L0, base;
    if (BATCH) {
        L0 = 0;
        base = blk << (k + j);
    } else {
        const uint64_t H = blk >> (m - j);
        L0 = blk & ((1ull << (m - j)) - 1);
        base = (H << (k + m)) + (L0 << j);
    }
    const unsigned shift = 28 - (k + m);

    /* Unrolled so that several global loads are in flight per thread. */
#pragma unroll 4
    for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
        uint64_t idx = base + ((uint64_t)(e >> j) << m) + pass_col(e & cmask, cs, BATCH);
        fr_t x = fr_load(a + idx);
        if (slo) {
            uint32_t at = DIT ? __brev((uint32_t)idx) >> (32 - lg) : (uint32_t)idx;
            x = fr_mul(x, pow_tab_full(slo, shi, at));
        }
        fr_store(sh + e, x);
    }
    /* The DIT twist: a loop of its own (in the unrolled load loop it grew
     * the kernel by half); each thread's own elements, so no barrier. Rolled,
     * like the stages' loops: unrolling them twice makes the pass slower. */
    if (DIT && m > 0) {
#pragma unroll 1
        for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
            const fr_t x = fr_load(sh + e);
            fr_store(sh + e, BIG ? fr_mul(x, fr_load(tw + base + ((uint64_t)(e >> j) << m) +
                                                      (e & cmask)))
                                 : twist(x, twist_exp(e, j, k, shift, L0), wlo, whi, nlo, tw));
        }
    }
    /* Two inlined copies of the stages, so that each knows where its roots
     * are (a pointer that may be either compiles to generic loads, which
     * cost what the shared copy saves). */
    if (k <= SHTW_MAX_K) {
        const stage_tw sw = stage_roots_shared(sh + tile, k, sp, blockDim.x);
        __syncthreads();
        if (DIT)
            ntt_stages_dit(sh, sw, k, j, tile);
        else
            ntt_stages(sh, sw, k, j, tile);
    } else {
        __syncthreads();
        if (DIT)
            ntt_stages_dit(sh, stage_roots_global(sp), k, j, tile);
        else
            ntt_stages(sh, stage_roots_global(sp), k, j, tile);
    }

#pragma unroll 1
    for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
        uint64_t idx = base + ((uint64_t)(e >> j) << m) + pass_col(e & cmask, cs, BATCH);
        fr_t x = st_norm(fr_load(sh + e));
        if (!DIT && m > 0)
            x = BIG ? fr_mul(x, fr_load(tw + idx))
                    : twist(x, twist_exp(e, j, k, shift, L0), wlo, whi, nlo, tw);
        if (MUL)
            x = fr_mul(x, fr_load(mul + idx));
        fr_store(a + idx, x);
    }
}

/* Shared memory of a pass of k bits over a tile: the tile, and for
 * k <= SHTW_MAX_K the pass's 2^(k-1) stage roots after it. */
static size_t pass_shared(unsigned k, unsigned tile)
{
    return ((size_t)tile + (k <= SHTW_MAX_K ? 1u << (k - 1) : 0)) * sizeof(fr_t);
}

/*
 * The tile of a device: 2^TILE_LOG elements where an SM's shared memory
 * holds two blocks of the largest pass (72 KiB each; 9.0 and 10.0 hold
 * three, 8.0 two), else half that: the 100 KiB SMs of 8.6, 8.9 and 12.0
 * hold one such block, 8 warps, so no block's loads or stores overlap
 * another's stages; at 2^10 (32 to 40 KiB) they hold two or three. The
 * smaller tile loads runs of half the length (2^j elements).
 */
static unsigned tile_log_for(const cudaDeviceProp *p)
{
    const size_t most = pass_shared(SHTW_MAX_K, 1u << TILE_LOG) + p->reservedSharedMemPerBlock;
    return p->sharedMemPerMultiprocessor >= 2 * most ? TILE_LOG : TILE_LOG - 1;
}

/* The pass kernel's instance for (dit, batch), or with mul the DIT one
 * that stores times mul (a pass with m > 0, so not batch); with big the
 * one whose twist is one load (not batch). */
typedef void (*pass_fn)(fr_t *, const fr_t *, const fr_t *, unsigned, unsigned, unsigned,
                        unsigned, const fr_t *, const fr_t *, const fr_t *, const fr_t *,
                        unsigned, const fr_t *, const fr_t *);
#define NTT_PASS_INSTANCES 8 /* zp__gpu_ntt_tables_build sets each one's shared memory */
static pass_fn pass_kernel(bool dit, bool batch, bool mul, bool big)
{
    if (big)
        return mul ? ntt_pass_kernel<true, false, true, true>
                   : dit ? ntt_pass_kernel<true, false, false, true>
                         : ntt_pass_kernel<false, false, false, true>;
    if (mul)
        return ntt_pass_kernel<true, false, true>;
    static const pass_fn fn[4] = {
        ntt_pass_kernel<false, false>, ntt_pass_kernel<true, false>,
        ntt_pass_kernel<false, true>, ntt_pass_kernel<true, true>,
    };
    return fn[dit + 2 * batch];
}

/* Instance v < NTT_PASS_INSTANCES of pass_kernel. */
static pass_fn pass_kernel_at(unsigned v)
{
    return v < 4 ? pass_kernel(v & 1, v & 2, false, false)
                 : v == 4 ? pass_kernel(true, false, true, false)
                          : pass_kernel(v != 5, false, v == 7, true);
}

#include "gpu/ntt_bitrev.cuh"

static fr_t to_dev(const zp_fr *x)
{
    fr_t r;
    memcpy(&r, x, sizeof r);
    return r;
}

#define TW_EXTRA ((uint64_t)4 * TW_N) /* the four one-load tables */

#include "gpu/ntt_tables.cuh"

/*
 * What one transform does around its passes: load_lo/hi (or NULL) scale
 * a[j] by load_lo[i mod 2^14] * load_hi[i >> 14] as the first pass loads
 * (i = j, or j's bit reversal for ORDER_DIT); nlo (or NULL) replaces the
 * root's lo table in the first DIF pass's twist (a constant folded into
 * every element); mode is the bit reversal's scale (0 none, 1 times sc, 2
 * times out_lo/out_hi at the destination, 3 that minus sub_c times sc as it
 * loads); order says which way round.
 */
enum ntt_order {
    ORDER_NATURAL, /* DIF passes and the bit reversal: natural in and out */
    ORDER_TO_REV,  /* DIF passes only: natural in, bit-reversed out */
    ORDER_DIT,     /* the DIF passes transposed, last first: bit-reversed in, natural out */
};
struct ntt_plan {
    const fr_t *load_lo, *load_hi, *nlo;
    int mode;
    fr_t sc;
    const fr_t *out_lo, *out_hi;
    enum ntt_order order;
    const fr_t *sub_c;
    const fr_t *mul; /* ORDER_DIT: the last pass's product array, where it folds (NULL: none) */
};

/* The passes of a transform of log2n bits (<= 3 for log2n <= 28): pass p
 * takes ks[p] bits, with ms[p] bits below them. */
static unsigned pass_geometry(unsigned log2n, unsigned ks[4], unsigned ms[4])
{
    const unsigned passes = (log2n + PASS_MAX_BITS - 1) / PASS_MAX_BITS;
    unsigned done = 0;
    for (unsigned p = 0; p < passes; p++) {
        ks[p] = log2n / passes + (p < log2n % passes ? 1 : 0);
        ms[p] = log2n - done - ks[p];
        done += ks[p];
    }
    return passes;
}

/* The full twist table (ntt_twist.cuh) of a first pass of log2n bits with
 * roots ci in direction di, nlo said, where s has one set: the forward's
 * for a forward, the inverse's (n^-1 in it) for an inverse folding n^-1. */
static const fr_t *twist_of(const zp__gpu_stream *s, unsigned log2n, int ci, int di, bool nlo)
{
    const zp__gpu_twist *t = s->twist;
    if (!t || !t->mem.ptr || t->log2n != log2n || (t->roots == ZP_ROOTS_BELLPERSON) != ci ||
        nlo != (di == 1))
        return NULL;
    return (const fr_t *)t->mem.ptr + (di ? (size_t)1 << log2n : 0);
}

static zp_err ntt_run(zp__gpu_stream *s, fr_t *a, unsigned log2n, int ci, int di,
                      const struct ntt_plan *pl)
{
    zp__gpu *g = s->g;
    const fr_t *wlo = g->root_lo[ci][di], *whi = g->root_hi[ci][di];
    const fr_t *tw = tw_table(g, ci, di), *sp = shoup_table(g, ci, di);
    const bool dit = pl->order == ORDER_DIT;
    unsigned ks[4], ms[4];
    const unsigned passes = pass_geometry(log2n, ks, ms), tl = g->ntt_tile_log;
    s->ntt_marks = 0;
    s->ntt_paths = zp__gpu_ntt_paths{0, 0, 0};
    if (s->profile)
        ZP_CUDA(cudaEventRecord(s->ev[0], s->st));
    for (unsigned i = 0; i < passes; i++) {
        const unsigned p = dit ? passes - 1 - i : i, k = ks[p], m = ms[p];
        unsigned j = m < tl - k ? m : tl - k, cs = 0;
        if (m == 0) { /* whole transforms side by side; k <= PASS_MAX_BITS <= tl */
            j = log2n - k < tl - k ? log2n - k : tl - k;
            cs = k;
        }
        s->ntt_paths.batched += cs && j;
        unsigned tile = 1u << (k + j);
        unsigned threads = tile / 2 < 256 ? tile / 2 : 256;
        const fr_t *ptw = tw && k + m <= TW_LOG ? tw : NULL;
        const fr_t *slo = i == 0 ? pl->load_lo : NULL, *shi = i == 0 ? pl->load_hi : NULL;
        const fr_t *nlo = !dit && p == 0 && m > 0 ? pl->nlo : NULL;
        /* The product folds into the last pass where it has m > 0. */
        const fr_t *mul = dit && i == passes - 1 && m > 0 ? pl->mul : NULL;
        s->ntt_paths.folded += mul != NULL;
        /* The first pass's twist from a full table where s has one. */
        const fr_t *big = p == 0 && m > 0 ? twist_of(s, log2n, ci, di, nlo) : NULL;
        s->ntt_paths.big += big != NULL;
        const pass_fn fn = pass_kernel(dit, cs != 0, mul != NULL, big != NULL);
        fn<<<1u << (log2n - k - j), threads, pass_shared(k, tile), s->st>>>(
            a, wlo, whi, k, m, j, cs, slo, shi, nlo, big ? big : ptw, log2n, mul, sp);
        ZP_CUDA_LAUNCHED();
        if (s->profile)
            ZP_CUDA(cudaEventRecord(s->ev[i + 1], s->st));
    }
    if (pl->order != ORDER_NATURAL) {
        /* No bit reversal: its mark is the last pass's. */
    } else if (log2n < 2 * BR_B) {
        uint32_t n = 1u << log2n;
        bitrev_small_kernel<<<zp__ceil_div_u(n, 256), 256, 0, s->st>>>(
            a, log2n, pl->mode, pl->sc, pl->out_lo, pl->out_hi, pl->sub_c);
    } else {
        bitrev_tiled_kernel<<<1u << (log2n - 2 * BR_B), 256, 0, s->st>>>(
            a, log2n, pl->mode, pl->sc, pl->out_lo, pl->out_hi, pl->sub_c);
    }
    ZP_CUDA_LAUNCHED();
    if (s->profile) {
        ZP_CUDA(cudaEventRecord(s->ev[passes + 1], s->st));
        s->ntt_marks = passes + 2;
    }
    return ZP_OK;
}

extern "C" void zp__gpu_ntt_last_paths(const zp__gpu_stream *s, zp__gpu_ntt_paths *out)
{
    *out = s->ntt_paths;
}

extern "C" void zp__gpu_ntt_last_phases(zp__gpu_stream *s, zp__gpu_ntt_phases *out)
{
    memset(out, 0, sizeof *out);
    unsigned marks = s->ntt_marks;
    if (marks < 3 || marks > 6 || cudaEventSynchronize(s->ev[marks - 1]) != cudaSuccess)
        return;
    out->passes = marks - 2;
    for (unsigned p = 0; p < out->passes; p++)
        cudaEventElapsedTime(&out->pass[p], s->ev[p], s->ev[p + 1]);
    cudaEventElapsedTime(&out->bitrev, s->ev[marks - 2], s->ev[marks - 1]);
}

/* Per-stream scratch tables: coset powers (lo, hi) and the n^-1-scaled lo
 * table of the inverse root (2^14 entries each; 1.5 MiB of the 2 MiB). */
struct ntt_scratch {
    fr_t *slo, *shi, *nlo;
};

static struct ntt_scratch scratch_of(zp__gpu_stream *s)
{
    fr_t *t = (fr_t *)s->dev.ptr;
    return ntt_scratch{t, t + ZP__TAB_N, t + 2 * ZP__TAB_N};
}

/* Inverse transforms of more than one pass fold n^-1 into the first
 * twist: builds nlo[i] = n^-1 w^-i and says whether it did. */
static zp_err fold_ninv(zp__gpu_stream *s, fr_t *nlo, unsigned log2n, zp_roots roots,
                        const zp_fr *ninv, bool *folded)
{
    zp__gpu *g = s->g;
    *folded = log2n > PASS_MAX_BITS;
    if (!*folded)
        return ZP_OK;
    zp_fr w;
    zp_fr_root_of_unity(&w, 28, roots);
    zp_fr_inv(&w, &w);
    pow_table_kernel<<<ZP__TAB_N / 128, 128, 0, s->st>>>(nlo, to_dev(&w), to_dev(ninv),
                                                          ZP__TAB_N);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

static void ninv_of(zp_fr *ninv, unsigned log2n)
{
    zp_fr_from_u64(ninv, (uint64_t)1 << log2n);
    zp_fr_inv(ninv, ninv);
}

extern "C" zp_err zp__gpu_ntt(zp__gpu_stream *s, zp_fr *d_a, unsigned log2n, bool inverse,
                              zp_roots roots, const zp_fr *coset)
{
    zp__gpu *g = s->g;
    if (log2n < 1 || log2n > ZP_GPU_NTT_MAX_LOG2 || !d_a)
        return ZP_E_INVALID_ARG;
    if (coset && zp_fr_is_zero(coset))
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    const int ci = roots == ZP_ROOTS_BELLPERSON, di = inverse;
    struct ntt_scratch sc = scratch_of(s);
    struct ntt_plan pl = {NULL, NULL, NULL, 0, fr_t{}, sc.slo, sc.shi};
    zp_fr one, ninv;
    zp_fr_one(&one);
    ninv_of(&ninv, log2n);

    if (coset && !inverse) {
        ZP_TRY(pow_tables(g, s->st, sc.slo, sc.shi, coset, &one));
        pl.load_lo = sc.slo;
        pl.load_hi = sc.shi;
    }
    if (inverse) {
        bool folded;
        ZP_TRY(fold_ninv(s, sc.nlo, log2n, roots, &ninv, &folded));
        if (folded)
            pl.nlo = sc.nlo;
        if (coset) {
            zp_fr ginv;
            zp_fr_inv(&ginv, coset);
            ZP_TRY(pow_tables(g, s->st, sc.slo, sc.shi, &ginv, folded ? &one : &ninv));
            pl.mode = 2;
        } else if (!folded) {
            pl.mode = 1;
            pl.sc = to_dev(&ninv);
        }
    }
    return ntt_run(s, (fr_t *)d_a, log2n, ci, di, &pl);
}

/* For an inverse whose n^-1 goes where the caller scales: folds n^-1 into
 * sc's nlo table where it can (*folded), and sets *pre to the factor left
 * for the caller, n^-1 unless folded, times scale (NULL = 1). */
static zp_err inverse_pre(zp__gpu_stream *s, const struct ntt_scratch &sc, unsigned log2n,
                          zp_roots roots, const zp_fr *scale, zp_fr *pre, bool *folded)
{
    zp_fr ninv;
    ninv_of(&ninv, log2n);
    ZP_TRY(fold_ninv(s, sc.nlo, log2n, roots, &ninv, folded));
    if (*folded)
        zp_fr_one(pre);
    else
        *pre = ninv;
    if (scale)
        zp_fr_mul(pre, pre, scale);
    return ZP_OK;
}

/* to_coset_scaled, and with mul (not NULL) times mul pointwise: folded
 * into the forward's last pass where that pass has m > 0, else one
 * pointwise pass after. */
static zp_err to_coset(zp__gpu_stream *s, zp_fr *d_a, unsigned log2n, zp_roots roots,
                       const zp_fr *shift, const zp_fr *scale, const zp_fr *mul)
{
    zp__gpu *g = s->g;
    if (log2n < 1 || log2n > ZP_GPU_NTT_MAX_LOG2 || !d_a || !shift || zp_fr_is_zero(shift))
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    const int ci = roots == ZP_ROOTS_BELLPERSON;
    struct ntt_scratch sc = scratch_of(s);
    zp_fr pre;
    bool folded;
    ZP_TRY(inverse_pre(s, sc, log2n, roots, scale, &pre, &folded));
    /* The inverse leaves the coefficients in bit-reversed order and the
     * forward DIT passes take them so: no bit reversal. Coefficient i, at
     * rev(i), is scaled by g^i (times n^-1 unless folded, times scale) as
     * the forward's first pass loads it. */
    ZP_TRY(pow_tables(g, s->st, sc.slo, sc.shi, shift, &pre));
    struct ntt_plan inv = {NULL, NULL, folded ? sc.nlo : NULL, 0, fr_t{}, NULL, NULL, ORDER_TO_REV};
    ZP_TRY(ntt_run(s, (fr_t *)d_a, log2n, ci, 1, &inv));
    struct ntt_plan fwd = {sc.slo, sc.shi, NULL, 0, fr_t{}, NULL, NULL,
                           ORDER_DIT, NULL, (const fr_t *)mul};
    ZP_TRY(ntt_run(s, (fr_t *)d_a, log2n, ci, 0, &fwd));
    if (mul && !s->ntt_paths.folded)
        return zp__gpu_fr_mul_sub(s, d_a, d_a, mul, NULL, (uint64_t)1 << log2n);
    return ZP_OK;
}

extern "C" zp_err zp__gpu_ntt_to_coset_scaled(zp__gpu_stream *s, zp_fr *d_a, unsigned log2n,
                                              zp_roots roots, const zp_fr *shift,
                                              const zp_fr *scale)
{
    return to_coset(s, d_a, log2n, roots, shift, scale, NULL);
}

extern "C" zp_err zp__gpu_ntt_to_coset_mul(zp__gpu_stream *s, zp_fr *d_a, unsigned log2n,
                                           zp_roots roots, const zp_fr *shift, const zp_fr *d_mul)
{
    if (!d_mul || d_mul == d_a)
        return ZP_E_INVALID_ARG;
    return to_coset(s, d_a, log2n, roots, shift, NULL, d_mul);
}

/*
 * a <- (coset inverse of a - inverse of c) * scale: both inverses' DIF
 * passes (bit-reversed out, n^-1 folded into their first twist where it
 * can be), then a's bit reversal loads a times n^-1 g^-i scale at its
 * destination i minus c times n^-1 scale: no bit reversal of c and no
 * pointwise pass after.
 */
extern "C" zp_err zp__gpu_ntt_coset_diff(zp__gpu_stream *s, zp_fr *d_a, zp_fr *d_c,
                                         unsigned log2n, zp_roots roots, const zp_fr *shift,
                                         const zp_fr *scale)
{
    zp__gpu *g = s->g;
    if (log2n < 1 || log2n > ZP_GPU_NTT_MAX_LOG2 || !d_a || !d_c || !shift ||
        zp_fr_is_zero(shift))
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    const int ci = roots == ZP_ROOTS_BELLPERSON;
    struct ntt_scratch sc = scratch_of(s);
    zp_fr pre, ginv;
    bool folded;
    ZP_TRY(inverse_pre(s, sc, log2n, roots, scale, &pre, &folded));
    zp_fr_inv(&ginv, shift);
    ZP_TRY(pow_tables(g, s->st, sc.slo, sc.shi, &ginv, &pre));
    struct ntt_plan inv = {NULL, NULL, folded ? sc.nlo : NULL, 0, fr_t{}, NULL, NULL, ORDER_TO_REV};
    ZP_TRY(ntt_run(s, (fr_t *)d_c, log2n, ci, 1, &inv));
    struct ntt_plan diff = {NULL, NULL, folded ? sc.nlo : NULL, 3, to_dev(&pre),
                            sc.slo, sc.shi, ORDER_NATURAL, (const fr_t *)d_c};
    return ntt_run(s, (fr_t *)d_a, log2n, ci, 1, &diff);
}

extern "C" zp_err zp__gpu_ntt_to_coset(zp__gpu_stream *s, zp_fr *d_a, unsigned log2n,
                                       zp_roots roots, const zp_fr *shift)
{
    return zp__gpu_ntt_to_coset_scaled(s, d_a, log2n, roots, shift, NULL);
}

/* b or c NULL: no product, no difference; !scaled: no factor (uniform
 * branches). */
static __global__ void mul_sub_scale_kernel(fr_t *out, const fr_t *a, const fr_t *b,
                                            const fr_t *c, fr_t s, bool scaled, uint64_t n)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_t x = fr_load(a + i);
    if (b)
        x = fr_mul(x, fr_load(b + i));
    if (c)
        x = fr_sub(x, fr_load(c + i));
    fr_store(out + i, scaled ? fr_mul(x, s) : x);
}

extern "C" zp_err zp__gpu_fr_mul_sub_scale(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_a,
                                           const zp_fr *d_b, const zp_fr *d_c,
                                           const zp_fr *scale, uint64_t n)
{
    zp__gpu *g = s->g;
    if (n == 0)
        return ZP_OK;
    ZP_CUDA(cudaSetDevice(g->device));
    zp_fr one;
    zp_fr_one(&one);
    mul_sub_scale_kernel<<<zp__ceil_div_u(n, 256), 256, 0, s->st>>>(
        (fr_t *)d_out, (const fr_t *)d_a, (const fr_t *)d_b, (const fr_t *)d_c,
        to_dev(scale ? scale : &one), scale != NULL, n);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

extern "C" zp_err zp__gpu_fr_mul_sub(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_a,
                                     const zp_fr *d_b, const zp_fr *d_c, uint64_t n)
{
    return zp__gpu_fr_mul_sub_scale(s, d_out, d_a, d_b, d_c, NULL, n);
}

#include "gpu/ntt_twist.cuh"
