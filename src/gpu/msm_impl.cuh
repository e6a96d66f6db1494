/*
 * Multi-scalar multiplication in G1 and G2 on the GPU, with the 0/1 split.
 *
 *  1. split: each scalar is classified 0, 1 or dense; one exclusive scan of
 *     packed counters (ones in the high 32 bits, dense in the low) gives
 *     every index its slot; a scatter builds the ones and dense index lists.
 *  2. ones: strided per-thread sums of the points whose scalar is 1, then a
 *     tree reduction; or, after a dense part summed by affine rounds, those
 *     rounds over the ones as one run (ones_affine, see ones_affine_ok);
 *     or, many G1 ones beside few dense scalars, those rounds before the
 *     dense part, in a layout of their own (ones_first_ok).
 *  3. dense: Pippenger. Signed c-bit digits (|d| <= 2^(c-1)) turn each
 *     (window, scalar) into a bucket key and a point index with a sign bit;
 *     a radix sort per window groups equal keys (one bit short where that
 *     saves a pass, msm_sort.cuh). Bucket accumulation runs
 *     over fixed-length chunks of the sorted array, so a huge bucket cannot
 *     stall one thread: a chunk writes the buckets that end inside it and
 *     leaves the part of a bucket that runs on past its end as a carry; a
 *     tree over each bucket's run of carries sums them in log2 passes and a
 *     fix-up adds the sum to the bucket. Buckets are XYZZ (mixed additions);
 *     msm_chunks.cuh.
 *     Large MSMs first cut each run into groups of 8 and sum the groups by
 *     batch-affine additions (msm_affine.cuh); the chunks then sum the
 *     groups' sums (see use_affine for when).
 *  4. bucket reduction: sum_b b*S_b per window over segments of 32 buckets
 *     (running sums, then the segment offset times the segment total), a
 *     tree of partial sums, and on the host the windows by Horner.
 *
 * Witness scalars (zp__gpu_msm_g1_w, wsel_t): the prover's L, A and B
 * MSMs read the witness where it lies, in Montgomery form, through a
 * density bitmap or a range: the split runs over the witness indices and
 * compares with zero and R mod r, and the digits convert each dense scalar
 * as they read it, so no conversion pass or gather comes first.
 *
 * All scratch comes from the caller's buffer (the arena); the stream is
 * synchronized once after the split (the counts size the sorts) and once at
 * the end. Element positions are 64-bit; point indices are 31-bit. A
 * scratch too small for every window's sort at once runs steps 3 a few
 * windows at a time (as many as fit; the buckets of all windows stay).
 *
 * Included by msm_g1.cu and msm_g2.cu, one group each, so that the two large
 * instantiations compile in parallel.
 */
#ifndef ZP_GPU_MSM_IMPL_CUH
#define ZP_GPU_MSM_IMPL_CUH

#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "gpu/ctx.cuh"
#include "gpu/curve.cuh"

#define ONE_FLAG ((uint64_t)1 << 32)
#define SEG 32            /* buckets per reduction segment (seg_for) */
#define TREE 256          /* fan-in of one tree-reduction block */
/* Most partial sums of the ones, and the fewest points each sums: more and
 * shorter sums were no faster, and these take less scratch. */
#define ONES_PARTS (1u << 16)
#define ONES_MIN_PER_PART 64
#define MAX_C 22

#include "gpu/msm_plan.cuh"

/* ------------------------------------------------------------- kernels */

#include "gpu/msm_split.cuh"

/* Word k of s, without indexing a register array at run time. */
static __device__ __forceinline__ uint32_t word_at(const fr_t &s, unsigned k)
{
    uint32_t r = 0;
#pragma unroll
    for (unsigned j = 0; j < 8; j++)
        r = k == j ? s.v[j] : r;
    return r;
}

/* a < b as 256-bit integers. */
static __device__ __forceinline__ bool words_lt(const fr_t &a, const fr_t &b)
{
    bool lt = false;
#pragma unroll
    for (int j = 0; j < 8; j++)
        lt = a.v[j] < b.v[j] || (a.v[j] == b.v[j] && lt);
    return lt;
}

/*
 * Signed digits: d = bits + carry; above 2^(c-1) it becomes d - 2^c with a
 * carry into the next window. s > r - s becomes r - s with every digit's
 * sign flipped (windows_of), so s < 2^254 and with nw * c >= 255 the top
 * window never carries out. Only windows w0 .. w0+g-1 are written (window w0 + k at
 * k * m), the ones below still run for their carries. IDENT: no dense
 * list, dense scalar i is scalar i (an MSM without the split). PRE: over
 * precomputed bases (msm_pre), where the table holds 2^(c w) P_i at
 * w m + i, so window w's entry names the point w m + i (IDENT, w0 = 0, g
 * every window; the entries then form one window of g m).
 */
template <bool IDENT, bool PRE = false, bool WS = false>
static __global__ void digits_kernel(const fr_t *sc, const uint32_t *dense, uint64_t m,
                                     unsigned c, unsigned w0, unsigned g, uint32_t *keys,
                                     uint32_t *vals, wsel_t ws = wsel_t{})
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    uint32_t idx = IDENT ? (uint32_t)i : dense[i];
    fr_t s;
    if (WS) { /* idx is the witness index v: the scalar is w[v], the point j */
        uint64_t j = 0;
        wsel_j(ws, idx, &j);
        s = fr_from_mont_dev(fr_load(ws.w + idx));
        idx = (uint32_t)j;
    } else {
        s = fr_load(sc + idx);
    }
    uint32_t flip = 0;
    fr_t t = fr_neg(s);
    if (words_lt(t, s)) {
        s = t;
        flip = 1;
    }
    const uint32_t mask = (1u << c) - 1, half = 1u << (c - 1);
    uint32_t carry = 0;
    for (unsigned w = 0; w < w0 + g; w++) {
        unsigned bit = w * c, k = bit >> 5, sh = bit & 31;
        uint64_t two = ((uint64_t)word_at(s, k + 1) << 32) | word_at(s, k);
        uint32_t d = (uint32_t)(two >> sh) & mask;
        d += carry;
        uint32_t neg = 0;
        if (d > half) {
            d = (1u << c) - d;
            neg = 1;
            carry = 1;
        } else {
            carry = 0;
        }
        if (w >= w0) {
            keys[(uint64_t)(w - w0) * m + i] = d;
            vals[(uint64_t)(w - w0) * m + i] =
                (PRE ? (uint32_t)((uint64_t)w * m + i) : idx) | ((neg ^ flip) << 31);
        }
    }
}

/* Global key of sorted entry i: window in the high bits, digit below
 * (windows of m entries each), or keys[i] itself when m = 0 (the sums of
 * the affine round, msm_affine.cuh, carry their global keys). */
static __device__ __forceinline__ uint64_t gkey(const uint32_t *keys, uint64_t i, uint64_t m,
                                                unsigned c)
{
    return m ? ((i / m) << c) | keys[i] : keys[i];
}

static __global__ void bounds_kernel(const uint32_t *keys, uint64_t N, uint64_t m, unsigned c,
                                     uint64_t *bstart, uint64_t *bend)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N)
        return;
    uint64_t k = gkey(keys, i, m, c);
    if (i == 0) {
        bstart[k] = 0;
    } else {
        uint64_t kp = gkey(keys, i - 1, m, c);
        if (kp != k) {
            bstart[k] = i;
            bend[kp] = i;
        }
    }
    if (i == N - 1)
        bend[k] = N;
}

#include "gpu/msm_chunks.cuh"
#include "gpu/msm_sort.cuh"

/*
 * The batch-affine rounds (msm_affine.cuh) run before the XYZZ chunks when
 * the dense count m is at least affine_from<F>(shared) and the layout with
 * them that fits the scratch holds at least o->affine_min_entries entries a
 * pass (windows a pass times m); the sizes are options of the device
 * (zp__gpu_msm_opts, gpu.h). The rounds' additions are cheaper, but each
 * round has fixed work (key scans, a host wait), which below ~2^21 dense
 * scalars, or in passes of few entries, costs more than they save. Where
 * several prover slots share the device, a G1 MSM takes them from 2^23
 * only: the other slot's kernels run beside them, and the engine's time per
 * proof was longer with its B1 MSM (6.3 M dense) through them.
 * zp__gpu_msm_scratch_bytes_best sizes a scratch for all windows a pass.
 */
/* The fewest dense scalars the rounds run from: where one prover slot has
 * the device, or several share it (shared). */
template <class F> static uint64_t affine_from(const zp__gpu_msm_opts *o, bool shared)
{
    if (sizeof(F) != sizeof(fp_t))
        return o->g2_affine_from;
    return shared ? o->g1_affine_from_shared : o->g1_affine_from;
}

template <class F> static bool use_affine(zp__gpu *g, uint64_t m)
{
    return m >= affine_from<F>(&g->msm, zp__gpu_slots(g) > 1);
}

/* Whether an affine layout l (of the most windows a pass that fit) may run. */
static bool affine_pass_ok(const zp__gpu_msm_opts *o, const msm_layout *l)
{
    return l->entries >= o->affine_min_entries;
}

/* The layout for m dense of n scalars in `bytes` of scratch: with the
 * affine rounds where they run and their layout fits, else XYZZ buckets
 * (as many windows a pass as fit); false when not even that fits. */
template <class F>
static bool layout_for(msm_layout *l, zp__gpu *g, const zp__gpu_msm_opts *o, uint64_t n,
                       uint64_t m, uint64_t bytes, bool split, unsigned pre_c, bool ext)
{
    const size_t xb = sizeof(xyzz_t<F>);
    if (use_affine<F>(g, m) && plan_fit(l, o, n, m, xb, bytes, true, split, pre_c, ext) &&
        affine_pass_ok(o, l))
        return true;
    return plan_fit(l, o, n, m, xb, bytes, false, split, pre_c, ext);
}

/* Whether `count` ones are summed by ones_affine (msm_affine.cuh): where
 * the dense part ran the affine rounds in a layout that holds them
 * (l->entries >= count), from ones_aff_min<F>(o) of them (and at least 2).
 * The least count is 2^18 in G2 but 2^25 in G1, where the rounds' fixed
 * work outweighs their cheaper additions below tens of millions of points
 * (as measured on an H200, bench/RESULTS.md). */
template <class F> static uint64_t ones_aff_min(const zp__gpu_msm_opts *o)
{
    return sizeof(F) == sizeof(fp_t) ? o->g1_ones_affine_from : o->g2_ones_affine_from;
}

template <class F>
static bool ones_affine_ok(const zp__gpu_msm_opts *o, const msm_layout *l, uint64_t count)
{
    if (!l->affine || count < 2 || count > l->entries)
        return false;
    return count >= ones_aff_min<F>(o);
}

/*
 * Whether `count` G1 ones of an MSM whose dense part runs by XYZZ (too few
 * dense scalars for the affine rounds) are summed first, by ones_affine in
 * a layout of their own (*lo: one window of count entries, planned over n
 * with the split, so its split arrays lie where the MSM's do and the
 * dense list survives it): from ones_aff_min<F>(o) of them (2^25 by
 * default), where that layout fits `bytes`. A porep:27 partition's rest of
 * L (0.63 M dense values, 56.5 M ones) is such an MSM. G2 keeps the
 * strided sum there (not measured).
 */
template <class F>
static bool ones_first_ok(const zp__gpu_msm_opts *o, msm_layout *lo, uint64_t n, uint64_t count,
                          uint64_t bytes)
{
    if (sizeof(F) != sizeof(fp_t) || count < 2 || count < ones_aff_min<F>(o) || count >> 32)
        return false;
    plan(lo, o, n, count, sizeof(xyzz_t<F>), 1, true, true);
    return lo->total <= bytes;
}

#include "gpu/msm_reduce.cuh"

/* The same register cap and accumulator place as the accumulation (blocks
 * of ONES_THREADS, half its size). */
#define ONES_THREADS 64
template <class F>
static __global__ void __launch_bounds__(ONES_THREADS, 2 * acc_cfg<F>::min_blocks)
ones_kernel(const aff_t<F> *points, const uint32_t *ones, uint64_t count, uint64_t parts,
            xyzz_t<F> *out)
{
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= parts)
        return;
    __shared__ xyzz_t<F> sh_acc[ONES_THREADS];
    xyzz_t<F> &acc = sh_acc[threadIdx.x];
    xyzz_set_inf(acc);
    for (uint64_t i = t; i < count; i += parts)
        xyzz_add_aff_at(acc, points + ones[i], false);
    xyzz_store(out + t, acc);
}

/* ------------------------------------------------------------ host flow */

/* Phase mark i on the stream when profiling (events made at stream open);
 * mark 0 starts the count of the passes' sorting time (sort_mark). */
static inline void mark(zp__gpu_stream *s, int i)
{
    if (!s->profile)
        return;
    if (i == 0)
        s->sort_ms = s->acc_ms[0] = s->acc_ms[1] = s->acc_ms[2] = 0;
    cudaEventRecord(s->ev[i], s->st);
}

/* When profiling: the time from event 7 (a pass's start, or the end of
 * the piece before) to here added to *to, and event 7 recorded again as
 * the next piece's start. Waits for the stream, which only profiled runs
 * do. */
static zp_err piece_to(zp__gpu_stream *s, float *to)
{
    if (!s->profile)
        return ZP_OK;
    zp__gpu *g = s->g;
    float ms = 0;
    ZP_CUDA(cudaEventRecord(s->ev[2], s->st));
    ZP_CUDA(cudaEventSynchronize(s->ev[2]));
    ZP_CUDA(cudaEventElapsedTime(&ms, s->ev[7], s->ev[2]));
    *to += ms;
    ZP_CUDA(cudaEventRecord(s->ev[7], s->st));
    return ZP_OK;
}

/* A pass's digits and sorts, into the sorting time. */
static zp_err sort_mark(zp__gpu_stream *s) { return piece_to(s, &s->sort_ms); }

/* A piece k of a pass's accumulation (round 1, round 2, xyzz). */
static zp_err piece_mark(zp__gpu_stream *s, int k) { return piece_to(s, &s->acc_ms[k]); }

/* The phases between marks 0 .. 6 into s->phases, when profiling; the
 * stream has passed mark 6. */
static zp_err read_phases(zp__gpu_stream *s)
{
    if (!s->profile)
        return ZP_OK;
    zp__gpu *g = s->g;
    zp__gpu_msm_phases *p = &s->phases;
    float dense = 0;
    ZP_CUDA(cudaEventElapsedTime(&p->split, s->ev[0], s->ev[1]));
    ZP_CUDA(cudaEventElapsedTime(&dense, s->ev[1], s->ev[3]));
    ZP_CUDA(cudaEventElapsedTime(&p->reduce, s->ev[3], s->ev[4]));
    ZP_CUDA(cudaEventElapsedTime(&p->ones, s->ev[4], s->ev[5]));
    ZP_CUDA(cudaEventElapsedTime(&p->total, s->ev[0], s->ev[6]));
    p->sort = s->sort_ms;
    p->accumulate = dense > s->sort_ms ? dense - s->sort_ms : 0;
    p->round1 = s->acc_ms[0];
    p->round2 = s->acc_ms[1];
    p->xyzz = s->acc_ms[2];
    return ZP_OK;
}

#include "gpu/msm_affine.cuh"

/* The bucket reduction of dense_part: every window's buckets to its sum in
 * l's window_sums. */
template <class F>
static zp_err reduce_windows(zp__gpu_stream *s, const msm_layout *l, char *base,
                             const xyzz_t<F> *buckets)
{
    zp__gpu *g = s->g;
    cudaStream_t st = s->st;
    xyzz_t<F> *parts = (xyzz_t<F> *)(base + l->parts), *parts2 = (xyzz_t<F> *)(base + l->parts_tmp);
    xyzz_t<F> *res = (xyzz_t<F> *)(base + l->window_sums);
    if (l->runs)
        return reduce_two_levels<F>(g, st, l, base, buckets, parts, parts2, res);
    uint32_t seg = l->window_buckets < l->seg ? l->window_buckets : l->seg;
    segments_kernel<F><<<zp__ceil_div_u(l->windows * l->segs, 64), 64, 0, st>>>(
        buckets, l->windows, l->window_buckets, seg, l->segs, parts);
    ZP_CUDA_LAUNCHED();
    return reduce_groups<F>(g, st, parts, parts2, l->windows, l->segs, res);
}

/* Pippenger over the dense list; window sums to res[0 .. windows). The
 * windows go per_pass at a time through digits, sort, bounds and
 * accumulation (into their own buckets); the bucket reduction then runs
 * over all of them. ext (zp__gpu_msm_acc): the buckets lie there, not in
 * the layout; keep: they hold earlier calls' sums, added to rather than
 * cleared; no reduce: the sums stay in the buckets (no window sums). */
template <class F>
static zp_err dense_part(zp__gpu_stream *s, const msm_layout *l, char *base,
                         const aff_t<F> *points, const fr_t *scalars, const wsel_t *ws,
                         xyzz_t<F> *ext = NULL, bool keep = false, bool reduce = true)
{
    zp__gpu *g = s->g;
    cudaStream_t st = s->st;
    const uint64_t m = l->m;
    uint32_t *kin = (uint32_t *)(base + l->keys_in), *vin = (uint32_t *)(base + l->vals_in);
    uint32_t *kout = (uint32_t *)(base + l->keys_out), *vout = (uint32_t *)(base + l->vals_out);
    uint64_t *bstart = (uint64_t *)(base + l->bucket_start);
    uint64_t *bend = (uint64_t *)(base + l->bucket_end);
    xyzz_t<F> *buckets = ext ? ext : (xyzz_t<F> *)(base + l->buckets);
    xyzz_t<F> *carries = (xyzz_t<F> *)(base + l->carries);

    if (!keep)
        ZP_CUDA(cudaMemsetAsync(buckets, 0, sizeof(xyzz_t<F>) * l->windows * l->window_buckets,
                                st));
    for (unsigned w0 = 0; w0 < l->windows; w0 += l->per_pass) {
        const unsigned gw = l->windows - w0 < l->per_pass ? l->windows - w0 : l->per_pass;
        const uint64_t N = (uint64_t)gw * m;
        const uint64_t nkeys = (uint64_t)gw << l->c;
        xyzz_t<F> *bk = buckets + (uint64_t)w0 * l->window_buckets;
        if (s->profile)
            ZP_CUDA(cudaEventRecord(s->ev[7], st)); /* the pass's start (sort_mark) */
        if (l->copies) { /* the table's scalars: m / copies */
            const uint64_t ns = m / l->copies;
            digits_kernel<true, true><<<zp__ceil_div_u(ns, 256), 256, 0, st>>>(
                scalars, NULL, ns, l->c, 0, l->copies, kin, vin);
        } else if (ws) {
            digits_kernel<false, false, true><<<zp__ceil_div_u(m, 256), 256, 0, st>>>(
                NULL, (uint32_t *)(base + l->dense), m, l->c, w0, gw, kin, vin, *ws);
        } else {
            (l->ident ? digits_kernel<true> : digits_kernel<false>)<<<zp__ceil_div_u(m, 256),
                                                                       256, 0, st>>>(
                scalars, (uint32_t *)(base + l->dense), m, l->c, w0, gw, kin, vin,
                wsel_t{});
        }
        ZP_CUDA_LAUNCHED();
        const unsigned sb = sort_bits(l->c);
        for (unsigned w = 0; w < gw; w++) {
            size_t tb = l->temp_bytes;
            uint64_t o = (uint64_t)w * m;
            ZP_CUDA(cub::DeviceRadixSort::SortPairs(base + l->temp, tb, kin + o, kout + o,
                                                    vin + o, vout + o, (int)m, 0, (int)sb, st));
        }
        if (sb < l->c)
            ZP_TRY(sort_fix(g, st, kout, vout, vin, base + l->sort_groups, m, gw, l->c));
        ZP_TRY(sort_mark(s));
        ZP_CUDA(cudaMemsetAsync(bstart, 0, 8 * nkeys, st));
        ZP_CUDA(cudaMemsetAsync(bend, 0, 8 * nkeys, st));
        bounds_kernel<<<zp__ceil_div_u(N, 256), 256, 0, st>>>(kout, N, m, l->c, bstart, bend);
        ZP_CUDA_LAUNCHED();
        if (l->affine) {
            unsigned rounds;
            ZP_TRY(affine_pass<F>(s, l, base, aff_src<F>{points, kout, vout, m, l->c}, N, nkeys,
                                  bstart, bend, bk, carries, &rounds, keep, true));
            s->last_aff_rounds = rounds > s->last_aff_rounds ? rounds : s->last_aff_rounds;
        } else {
            ZP_TRY(chunk_sums<F>(s, l, points, kout, vout, N, m, m, l->chunk_len, nkeys, bstart,
                                 bend, bk, carries, keep));
            ZP_TRY(piece_mark(s, 2));
        }
    }
    mark(s, 3);
    return reduce ? reduce_windows<F>(s, l, base, buckets) : ZP_OK;
}

/* Where a kept-bucket call (zp__gpu_msm_acc) puts its dense part: into
 * `buckets` at window c, added to their sums so far where keep (else
 * cleared first), and not reduced. */
template <class F> struct msm_into {
    xyzz_t<F> *buckets;
    unsigned c;
    bool keep;
};

/*
 * Runs the whole MSM; on success host[0 .. nw) holds the window sums,
 * host[nw] the sum of the ones, and *nw_out / *c_out the window shape.
 * Without `split` every scalar is dense: no classification, scan, scatter
 * or wait for the counts (for random scalars, where the split finds
 * nothing to skip); zeros and ones then cost what any digit costs, and
 * the sum is the same. With ws the scalars are witness values (wsel_t;
 * scalars unused), always split. With into the dense part goes to its
 * buckets instead (msm_into) and only host[nw], the ones' sum, is written.
 */
template <class F>
static zp_err msm_device(zp__gpu_stream *s, xyzz_t<F> **host, unsigned *nw_out, unsigned *c_out,
                         const aff_t<F> *points, const fr_t *scalars, uint64_t n,
                         zp__gpu_buf scratch, bool split = true, unsigned pre_c = 0,
                         const wsel_t *ws = NULL, const msm_into<F> *into = NULL)
{
    zp__gpu *g = s->g;
    zp__gpu_msm_opts oi = g->msm;
    if (into)
        oi.window = into->c;
    const zp__gpu_msm_opts *o = &oi;
    const bool ext = into != NULL;
    cudaStream_t st = s->st;
    char *base = (char *)scratch.ptr;
    msm_layout l;
    if (pre_c)
        split = false; /* n: the table's points (msm_pre), n / copies scalars */
    if (ws)
        split = true;
    /* The device first: CUB's scratch sizes in the plan are the current
     * device's (its architecture's tuning and its SM count). */
    ZP_CUDA(cudaSetDevice(g->device));
    plan(&l, o, n, n, sizeof(xyzz_t<F>), 0, false, split, pre_c, ext);
    if (scratch.bytes < l.temp + l.temp_bytes) /* what the split needs */
        return ZP_E_GPU_OOM;
    mark(s, 0);

    uint64_t m = n, ones = 0;
    if (split) {
        uint64_t *flags = (uint64_t *)(base + l.flags), *pos = (uint64_t *)(base + l.pos);
        uint32_t *counts = (uint32_t *)(base + l.counts);
        uint32_t *dense = (uint32_t *)(base + l.dense), *ones_l = (uint32_t *)(base + l.ones);
        if (ws)
            classify_w_kernel<<<zp__ceil_div_u(ws->nv, 256), 256, 0, st>>>(*ws, n, flags);
        else
            classify_kernel<<<zp__ceil_div_u(n, 256), 256, 0, st>>>(scalars, n, flags);
        ZP_CUDA_LAUNCHED();
        size_t tb = l.temp_bytes;
        ZP_CUDA(cub::DeviceScan::ExclusiveSum(base + l.temp, tb, flags, pos, (int)n, st));
        if (ws)
            scatter_w_kernel<<<zp__ceil_div_u(ws->nv, 256), 256, 0, st>>>(*ws, flags, pos, n,
                                                                          dense, ones_l, counts);
        else
            scatter_kernel<<<zp__ceil_div_u(n, 256), 256, 0, st>>>(flags, pos, n, dense, ones_l,
                                                                   counts);
        ZP_CUDA_LAUNCHED();
        uint32_t *hc = (uint32_t *)s->host;
        ZP_CUDA(cudaMemcpyAsync(hc, counts, 8, cudaMemcpyDeviceToHost, st));
        mark(s, 1);
        ZP_CUDA(cudaStreamSynchronize(st));
        m = hc[0];
        ones = hc[1];
    } else {
        mark(s, 1);
    }
    s->last_dense = m;
    s->last_ones = ones;
    s->last_zeros = n - m - ones;

    /* The layout for the actual dense count keeps the split arrays where
     * they are (they come first) and places the rest after them: all
     * windows in one pass when the scratch holds that, else as many per
     * pass as it holds. */
    if (!layout_for<F>(&l, g, o, n, m, scratch.bytes, split, pre_c, ext))
        return ZP_E_GPU_OOM;
    const bool affine = l.affine;
    l.ident = !split;
    /* Ones first (ones_first_ok): their sum straight to the host's slot nw,
     * before the dense part reuses the room; the profile counts their time
     * in the accumulation phase. */
    msm_layout lo;
    const bool first = !affine && split && ones_first_ok<F>(o, &lo, n, ones, scratch.bytes);
    if (first) {
        xyzz_t<F> *sum = (xyzz_t<F> *)(base + lo.window_sums);
        ZP_TRY(ones_affine<F>(s, &lo, base, points, (uint32_t *)(base + lo.ones), ones, sum));
        ZP_CUDA(cudaMemcpyAsync((xyzz_t<F> *)s->host + l.windows, sum, sizeof *sum,
                                cudaMemcpyDeviceToHost, st));
    }
    s->last_windows = l.windows;
    s->last_per_pass = l.per_pass;
    s->last_aff_rounds = 0; /* dense_part keeps the most rounds of its passes */
    s->last_c = m ? l.c : 0;
    xyzz_t<F> *res = (xyzz_t<F> *)(base + l.window_sums);
    if (m) {
        ZP_TRY(dense_part<F>(s, &l, base, points, scalars, ws, ext ? into->buckets : NULL,
                             ext && into->keep, !ext));
    } else {
        mark(s, 3);
        if (!ext)
            ZP_CUDA(cudaMemsetAsync(res, 0, sizeof(xyzz_t<F>) * l.windows, st));
        else if (!into->keep)
            ZP_CUDA(cudaMemsetAsync(into->buckets, 0,
                                    sizeof(xyzz_t<F>) * l.windows * l.window_buckets, st));
    }
    mark(s, 4);
    s->last_ones_affine = first || ones_affine_ok<F>(o, &l, ones);
    if (first) {
        /* summed already */
    } else if (s->last_ones_affine) {
        ZP_TRY(ones_affine<F>(s, &l, base, points, (uint32_t *)(base + l.ones), ones,
                              res + l.windows));
    } else if (ones) {
        uint64_t parts = 1;
        while (parts < ONES_PARTS && parts * ONES_MIN_PER_PART < ones)
            parts *= 2;
        xyzz_t<F> *pp = (xyzz_t<F> *)(base + l.parts), *p2 = (xyzz_t<F> *)(base + l.parts_tmp);
        ones_kernel<F><<<zp__ceil_div_u(parts, ONES_THREADS), ONES_THREADS, 0, st>>>(
            points, (uint32_t *)(base + l.ones), ones, parts, pp);
        ZP_CUDA_LAUNCHED();
        ZP_TRY(reduce_groups<F>(g, st, pp, p2, 1, parts, res + l.windows));
    } else {
        ZP_CUDA(cudaMemsetAsync(res + l.windows, 0, sizeof(xyzz_t<F>), st));
    }
    mark(s, 5);
    if (sizeof(xyzz_t<F>) * (l.windows + 1) > ZP__STREAM_HOST_BYTES)
        return ZP_E_INVALID_ARG; /* cannot happen: nw <= 128 */
    /* The window sums (none into kept buckets) and the ones' sum unless
     * it is there already. */
    const unsigned from = ext ? l.windows : 0, count = l.windows + !first - from;
    if (count)
        ZP_CUDA(cudaMemcpyAsync((xyzz_t<F> *)s->host + from, res + from,
                                sizeof(xyzz_t<F>) * count, cudaMemcpyDeviceToHost, st));
    mark(s, 6);
    ZP_CUDA(cudaStreamSynchronize(st));
    ZP_TRY(read_phases(s));
    *host = (xyzz_t<F> *)s->host;
    *nw_out = l.windows;
    *c_out = l.c;
    return ZP_OK;
}

/*
 * zp__gpu_msm_acc (gpu.h): one chunk's points and scalars (standard form,
 * no split) into the buckets at window c: dense_part's digits, sorts and
 * accumulation, the buckets cleared first unless they keep earlier
 * chunks' sums (keep), no reduction. Waits for the stream at the end, so
 * the caller may reuse the chunk's memory.
 */
template <class F>
static zp_err msm_acc_add(zp__gpu_stream *s, xyzz_t<F> *buckets, unsigned c, bool keep,
                          const aff_t<F> *points, const fr_t *scalars, uint64_t n,
                          zp__gpu_buf scratch)
{
    zp__gpu *g = s->g;
    zp__gpu_msm_opts o = g->msm;
    o.window = c;
    ZP_CUDA(cudaSetDevice(g->device));
    msm_layout l;
    if (!layout_for<F>(&l, g, &o, n, n, scratch.bytes, false, 0, true))
        return ZP_E_GPU_OOM;
    l.ident = true;
    s->last_dense = n;
    s->last_ones = s->last_zeros = 0;
    s->last_windows = l.windows;
    s->last_per_pass = l.per_pass;
    s->last_aff_rounds = 0;
    s->last_c = l.c;
    mark(s, 0);
    mark(s, 1); /* no split */
    ZP_TRY(dense_part<F>(s, &l, (char *)scratch.ptr, points, scalars, NULL, buckets, keep,
                         false));
    for (int i = 4; i <= 6; i++) /* no reduction, no ones */
        mark(s, i);
    ZP_CUDA(cudaStreamSynchronize(s->st));
    ZP_TRY(read_phases(s));
    /* Marks recorded back to back still time a few microseconds apart:
     * the phases that did not run are none. */
    s->phases.split = s->phases.reduce = s->phases.ones = 0;
    return ZP_OK;
}

/* The buckets at window c reduced to window sums, into host[0 .. *nw). */
template <class F>
static zp_err msm_acc_end(zp__gpu_stream *s, const xyzz_t<F> *buckets, unsigned c,
                          xyzz_t<F> **host, unsigned *nw, zp__gpu_buf scratch)
{
    zp__gpu *g = s->g;
    zp__gpu_msm_opts o = g->msm;
    o.window = c;
    ZP_CUDA(cudaSetDevice(g->device));
    msm_layout l;
    plan(&l, &o, 1, 1, sizeof(xyzz_t<F>), 0, false, false, 0, true);
    if (l.total > scratch.bytes)
        return ZP_E_GPU_OOM;
    char *base = (char *)scratch.ptr;
    mark(s, 0); /* only the reduction's phase */
    mark(s, 1);
    mark(s, 3);
    ZP_TRY(reduce_windows<F>(s, &l, base, buckets));
    mark(s, 4);
    mark(s, 5);
    ZP_CUDA(cudaMemcpyAsync(s->host, base + l.window_sums, sizeof(xyzz_t<F>) * l.windows,
                            cudaMemcpyDeviceToHost, s->st));
    mark(s, 6);
    ZP_CUDA(cudaStreamSynchronize(s->st));
    ZP_TRY(read_phases(s));
    s->phases.split = s->phases.sort = s->phases.accumulate = s->phases.ones = 0; /* as above */
    *host = (xyzz_t<F> *)s->host;
    *nw = l.windows;
    return ZP_OK;
}

#endif
