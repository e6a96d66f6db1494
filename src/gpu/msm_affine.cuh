/*
 * Batch-affine bucket accumulation: the other way to sum the sorted runs of
 * a pass (msm_impl.cuh step 3), with affine additions whose inverses are
 * shared by Montgomery's trick: ~6 products and a share of one inversion
 * each, instead of the ~10 products of an XYZZ mixed addition.
 *
 * An affine round, then the XYZZ chunks. A run of s >= 2 entries of one
 * bucket (key) is dealt round robin into ceil(s / gs) groups of at most
 * gs = `group_len` entries (AFF_GROUP, PRE_AFF_GROUP), whose lengths differ
 * by one at most; each group's sum becomes one entry of a shorter sorted
 * array (ceil(s / gs) entries for the run), which the XYZZ chunks, carries
 * and fix-up of msm_impl.cuh then sum, so a huge bucket costs no more
 * rounds (latency) here. A run of one entry is its bucket's sum and is
 * written to it at once. Kernels:
 *
 *   keys   (per key)     run lengths, runs of one to their buckets, the
 *                        longest run, the number of groups per run;
 *   scan                 the groups' first slots (exclusive sum);
 *   map    (per entry)   each entry of a group -> its place in the index
 *                        table (entry j of slot o at j * slots + o: a warp
 *                        reads 32 consecutive words a step), and the
 *                        group's first entry -> its slot's length and key;
 *   add    (per thread)  K slots: each starts as its group's first entry
 *                        and adds the rest one step at a time; at each step
 *                        the K denominators are multiplied up, one inversion
 *                        serves them all, and the walk back yields each
 *                        one's inverse (2 products) for lambda (3 more).
 *
 * The entries are the pass's sorted digits and point indices (the point
 * gathered, and negated by the sign bit). Every case of an affine addition
 * is handled (either side infinity, equal points, opposite points). Entries
 * of a pass are fewer than 2^32 (the plan keeps them so).
 *
 * A second round runs over the first one's sums (in key order, global
 * keys, entry i is sum i) wherever they leave runs of two or more, before
 * the XYZZ chunks, so that ~1/64 of the entries instead of ~1/8 pay an
 * XYZZ addition (~10 products against ~6.5). It reuses the first round's
 * index table, group lengths and walk-up products (dead by then); its sums
 * and keys take room of their own (~7 % more for the rounds at groups of
 * 8), so it can change how many windows fit a pass.
 */
#ifndef ZP_GPU_MSM_AFFINE_CUH
#define ZP_GPU_MSM_AFFINE_CUH

#define AFF_THREADS 128

/* The group length; the most slots a thread takes (one inversion per step
 * serves them) is acc_cfg<F>::affine_k. */
#define AFF_GROUP 8

/* Over precomputed bases (one window of ~13 digits a scalar, hundreds of
 * entries a bucket) groups of 7 and at most 256 slots a thread, which
 * measured faster there than 8 and 512. */
#define PRE_AFF_GROUP 7
#define PRE_AFF_K 256

/* The entries: the pass's sorted digits (keys, windows of m) with the
 * point indices and signs (vals) into the key's points. */
template <class F> struct aff_src {
    const aff_t<F> *points;
    const uint32_t *keys;
    const uint32_t *vals;
    uint64_t m;
    unsigned c;
};

template <class F>
static __device__ __forceinline__ uint32_t src_key(const aff_src<F> &s, uint64_t i)
{
    return (uint32_t)gkey(s.keys, i, s.m, s.c);
}

/* The index word of entry i: vals[i], or i itself when vals is NULL (a
 * second round's entries are the first round's sums, in order, none
 * negated; there are fewer than 2^31 of them). */
template <class F>
static __device__ __forceinline__ uint32_t src_val(const aff_src<F> &s, uint64_t i)
{
    return s.vals ? s.vals[i] : (uint32_t)i;
}

/* Where the point of index word v (an entry's vals word) lies, and
 * whether to negate it. */
template <class F>
static __device__ __forceinline__ const aff_t<F> *ref_of(const aff_src<F> &s, uint32_t v,
                                                         bool *neg)
{
    *neg = v >> 31;
    return s.points + (v & 0x7fffffffu);
}

template <class F>
static __device__ __forceinline__ aff_t<F> load_signed(const aff_t<F> *p, bool neg)
{
    aff_t<F> r = aff_load(p);
    if (neg)
        r.y = f_neg(r.y);
    return r;
}

template <class F>
static __device__ __forceinline__ aff_t<F> point_of(const aff_src<F> &s, uint32_t v)
{
    bool neg;
    const aff_t<F> *p = ref_of(s, v, &neg);
    return load_signed(p, neg);
}

template <class F>
static __device__ __forceinline__ void aff_store(aff_t<F> *p, const aff_t<F> &v)
{
    F *q = reinterpret_cast<F *>(p);
    f_store(q, v.x);
    f_store(q + 1, v.y);
}

template <class F> static __device__ __forceinline__ bool f_equal(const F &a, const F &b)
{
    return f_is_zero(f_sub(a, b));
}

/* The denominator of a + p: x_p - x_a, 2 y_a when doubling, 1 when no
 * inverse is needed (a side at infinity, or p = -a). */
template <class F>
static __device__ __forceinline__ F aff_denom(const aff_t<F> &a, const aff_t<F> &p)
{
    F one;
    f_set_one(one);
    if (aff_is_inf(a) || aff_is_inf(p))
        return one;
    F dx = f_sub(p.x, a.x);
    if (!f_is_zero(dx))
        return dx;
    if (f_equal(a.y, p.y) && !f_is_zero(a.y))
        return f_dbl(a.y);
    return one;
}

/* a + p given inv = 1 / aff_denom(a, p). */
template <class F>
static __device__ __forceinline__ aff_t<F> aff_add_inv(const aff_t<F> &a, const aff_t<F> &p,
                                                       const F &inv)
{
    if (aff_is_inf(a))
        return p;
    if (aff_is_inf(p))
        return a;
    F dx = f_sub(p.x, a.x), lambda;
    if (!f_is_zero(dx)) {
        lambda = f_mul(f_sub(p.y, a.y), inv);
    } else if (f_equal(a.y, p.y) && !f_is_zero(a.y)) {
        F x2 = f_sqr(a.x);
        lambda = f_mul(f_add(f_dbl(x2), x2), inv);
    } else {
        aff_t<F> r;
        f_set_zero(r.x);
        f_set_zero(r.y);
        return r;
    }
    aff_t<F> r;
    r.x = f_sub(f_sub(f_sqr(lambda), a.x), p.x);
    r.y = f_sub(f_mul(lambda, f_sub(a.x, r.x)), a.y);
    return r;
}

/* Warp maximum (all lanes take part). */
static __device__ __forceinline__ uint32_t warp_max(uint32_t v)
{
    for (int o = 16; o; o >>= 1) {
        uint32_t w = __shfl_xor_sync(0xffffffffu, v, o);
        v = w > v ? w : v;
    }
    return v;
}

/*
 * Per key k of the pass: the run length s (from the bounds; digit 0 is never
 * summed), the bucket written when s = 1 (unless keep: keep_singles_kernel
 * adds it then), the number of groups; the longest run into *smax.
 */
template <class F>
static __global__ void aff_keys_kernel(aff_src<F> in, const uint64_t *bstart, const uint64_t *bend,
                                       uint64_t *cnt, uint64_t *ngroups, uint64_t nk, unsigned c,
                                       unsigned gs, xyzz_t<F> *buckets, uint32_t *smax, bool keep)
{
    uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t s = 0;
    if (k < nk) {
        uint64_t e = bend[k];
        s = (k & ((1u << c) - 1)) && e ? e - bstart[k] : 0;
        cnt[k] = s;
    }
    uint32_t mx = warp_max((uint32_t)s);
    if ((threadIdx.x & 31) == 0 && mx)
        atomicMax(smax, mx);
    if (k >= nk)
        return;
    if (s == 1 && !keep) {
        aff_t<F> p = point_of(in, src_val(in, bstart[k]));
        xyzz_t<F> b;
        xyzz_set_inf(b);
        if (!aff_is_inf(p)) {
            b.x = p.x;
            b.y = p.y;
            f_set_one(b.zz);
            f_set_one(b.zzz);
        }
        uint32_t mag = (uint32_t)k & ((1u << c) - 1);
        xyzz_store(buckets + (k >> c) * (1u << (c - 1)) + (mag - 1), b);
    }
    ngroups[k] = s >= 2 ? (s + gs - 1) / gs : 0;
}

/* The runs of one under keep (zp__gpu_msm_acc): each such key's point
 * added to its bucket's sum so far (cnt: aff_keys_kernel's run lengths).
 * A kernel of its own, so that aff_keys_kernel keeps its registers. */
template <class F>
static __global__ void keep_singles_kernel(aff_src<F> in, const uint64_t *bstart,
                                           const uint64_t *cnt, uint64_t nk, unsigned c,
                                           xyzz_t<F> *buckets)
{
    uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nk || cnt[k] != 1)
        return;
    aff_t<F> p = point_of(in, src_val(in, bstart[k]));
    if (aff_is_inf(p))
        return;
    xyzz_t<F> q;
    q.x = p.x;
    q.y = p.y;
    f_set_one(q.zz);
    f_set_one(q.zzz);
    uint32_t mag = (uint32_t)k & ((1u << c) - 1);
    xyzz_t<F> *at = buckets + (k >> c) * (1u << (c - 1)) + (mag - 1);
    xyzz_t<F> b = xyzz_load(at);
    xyzz_add(b, q);
    xyzz_store(at, b);
}

/* Per entry of a run of >= 2: its index word to place j of its group's
 * slot o in the table (idx[j * S + o], S slots); a group's first entry
 * (j = 0) also tells the slot how long the group is and its key. */
template <class F>
static __global__ void aff_map_kernel(aff_src<F> in, uint64_t N, const uint64_t *cnt,
                                      const uint64_t *bstart, const uint64_t *gstart,
                                      unsigned gs, uint64_t S, uint32_t *idx, uint8_t *glen,
                                      uint32_t *okey)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N)
        return;
    uint32_t k = src_key(in, i);
    /* A pass's entries number fewer than 2^32 (above), so 32 bits hold a
     * run; the sums below stay under s, so they do not wrap. */
    const uint32_t s = (uint32_t)cnt[k];
    if (s < 2)
        return;
    /* Round robin over the run's ceil(s / gs) groups: their lengths differ
     * by one at most, so a warp's slots idle for fewer of its steps than
     * beside one short group a run. */
    const uint32_t r = (uint32_t)(i - bstart[k]), g = (s - 1) / gs + 1;
    const uint32_t q = r % g, j = r / g;
    uint64_t o = gstart[k] + q;
    idx[j * S + o] = src_val(in, i);
    if (j)
        return;
    glen[o] = (uint8_t)((s - 1 - q) / g + 1); /* the r < s with r % g == q */
    okey[o] = k;
}

/* aff_denom(a, the point of index word v) from the two x alone unless
 * they are equal or zero (infinity, doubling, opposite points: then the
 * whole point). */
template <class F>
static __device__ __forceinline__ F aff_denom_next(const aff_t<F> &a, const aff_src<F> &in,
                                                   uint32_t v)
{
    bool neg;
    const aff_t<F> *p = ref_of(in, v, &neg);
    F px = f_load(reinterpret_cast<const F *>(p));
    F d = f_sub(px, a.x);
    if (f_is_zero(d) || f_is_zero(a.x) || f_is_zero(px))
        return aff_denom(a, load_signed(p, neg));
    return d;
}

/*
 * The warp's threads own K slots each, interleaved: lane l's slot j is
 * warp * 32K + 32 j + l, so the warp's loads of slot data, sums and prefix
 * products are contiguous while its lanes walk the same j. Montgomery's
 * trick needs a walk that multiplies the denominators up (pre[o]: the
 * product of those before o's, in walk order) and a walk back that takes
 * them out again; here each walk back of step s is also the walk up of
 * step s + 1: a slot adds its step-s entry (inverse = running inverse
 * times pre[o]), then, where its group goes on, stores the product so far
 * as its pre and multiplies its step-(s+1) denominator, from the new sum
 * still in registers, into the next product. So the walks alternate
 * direction, each sum is loaded and stored once a step (a group's first
 * entry is gathered again at step 1 instead), and the products are those
 * of the textbook trick. A step's walk visits only the slots
 * whose groups are longer than the step, each lane its own, so a warp
 * takes as many iterations as its busiest lane has such slots, not one
 * for every slot where any lane has one (the round robin leaves groups of
 * two lengths a run: at ~85 entries a bucket, 7 and 8 side by side). The
 * register cap is MINB blocks an SM (acc_cfg<F>'s affine_min_blocks, see
 * msm_chunks.cuh). Measured slower on an H200 (bench/RESULTS.md): separate
 * up and back walks per step, loading each sum twice; the next slot's sum
 * and point loaded one slot ahead; prefetches, cp.async staging, inline
 * products, and step 0's loads batched two or four slots at a time; the
 * step's independent products as out-of-line pairs (fewer spills, but the
 * pair calls cost more than they hid).
 */
/* One slot's step in a walk: its sum a + p (the inverse from the running
 * inverse and pre[o], the product before it in walk-up order), then, where
 * its group goes on, the next walk-up product before and after its next
 * denominator. */
template <class F>
static __device__ __forceinline__ void aff_slot_step(const aff_src<F> &in, uint32_t vn, F *pre,
                                                     aff_t<F> *out, uint64_t o, unsigned len,
                                                     unsigned step, aff_t<F> a,
                                                     const aff_t<F> &p, F &inv, F &prod)
{
    F dinv = f_mul(inv, f_load(pre + o));
    inv = f_mul(inv, aff_denom(a, p));
    a = aff_add_inv(a, p, dinv);
    aff_store(out + o, a);
    if (len > step + 1) {
        f_store(pre + o, prod);
        prod = f_mul(prod, aff_denom_next(a, in, vn));
    }
}

template <class F, int MINB>
static __global__ void __launch_bounds__(AFF_THREADS, MINB)
aff_add_kernel(aff_src<F> in, const uint32_t *idx, const uint8_t *glen, const uint64_t *ncnt,
               const uint64_t *nbase, uint64_t nk, unsigned K, F *pre, aff_t<F> *out)
{
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t nout = nbase[nk - 1] + ncnt[nk - 1];
    uint64_t o0 = (t >> 5) * 32 * K + (t & 31);
    if (o0 >= nout)
        return;
    unsigned ns = (unsigned)((nout - o0 + 31) / 32); /* slots of this thread */
    ns = ns < K ? ns : K;
    F prod;
    f_set_one(prod);
    unsigned most = 1; /* the longest group of this thread */
    for (unsigned j = 0; j < ns; j++) { /* step 0: the first entries; walk up of step 1 */
        uint64_t o = o0 + 32 * (uint64_t)j;
        unsigned len = glen[o];
        most = len > most ? len : most;
        aff_t<F> a = point_of(in, idx[o]);
        if (len > 1) {
            f_store(pre + o, prod);
            prod = f_mul(prod, aff_denom_next(a, in, idx[nout + o]));
        } else {
            aff_store(out + o, a);
        }
    }
    for (unsigned step = 1; step < most; step++) {
        F inv = f_inv(prod);
        f_set_one(prod);
        const bool down = step & 1; /* walk from the last slot to the first */
        const int dj = down ? -1 : 1;
        int j = down ? (int)ns - 1 : 0;
        for (;;) {
            unsigned len = 0; /* the next slot of this lane that adds at this step */
            while ((unsigned)j < ns && (len = glen[o0 + 32 * (uint64_t)j]) <= step)
                j += dj;
            if ((unsigned)j >= ns)
                break;
            uint64_t o = o0 + 32 * (uint64_t)j;
            /* Step 0 stores a group's first entry only where it is the
             * whole group: a gather moves fewer bytes than a store to out
             * and a load back. */
            aff_slot_step(in, len > step + 1 ? idx[(step + 1) * nout + o] : 0, pre, out, o, len,
                          step, step == 1 ? point_of(in, idx[o]) : aff_load(out + o),
                          point_of(in, idx[step * nout + o]), inv, prod);
            j += dj;
        }
    }
}

/* ------------------------------------------------------------ host flow */

/* Threads of aff_add_kernel<F, MINB> resident per SM (asked once). */
template <class F, int MINB> static unsigned aff_resident_per_sm(void)
{
    static const unsigned r = [] { /* C++: initialized once, thread-safe */
        int blocks = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, aff_add_kernel<F, MINB>,
                                                          AFF_THREADS, 0) != cudaSuccess ||
            blocks < 1) {
            cudaGetLastError();
            blocks = 1;
        }
        return (unsigned)blocks * AFF_THREADS;
    }();
    return r;
}

/*
 * Slots per thread for `slots` groups on `sms` SMs: at most `most` (>= 16;
 * acc_cfg<F>::affine_k or the layout's slots_max), and as even a fill of
 * whole waves of resident threads as that allows: a launch of 0.85 of a
 * wave leaves SMs idle that one full wave of fewer slots a thread keeps
 * busy.
 */
template <class F, int MINB> static unsigned aff_k(uint64_t slots, int sms, uint64_t most)
{
    uint64_t wave = (uint64_t)aff_resident_per_sm<F, MINB>() * (uint64_t)(sms > 0 ? sms : 1);
    uint64_t threads = (slots + most - 1) / most;
    uint64_t waves = (threads + wave - 1) / wave;
    uint64_t k = (slots + waves * wave - 1) / (waves * wave);
    return k >= most ? (unsigned)most : k < 16 ? 16 : (unsigned)k;
}

/* The most groups N entries over nk keys make in groups of gs >= 3: a run
 * of s >= 2 makes ceil(s / gs) <= s / gs + 1 groups, and <= s / 2 of them. */
static uint64_t aff_groups_bound(uint64_t N, uint64_t nk, unsigned gs)
{
    uint64_t a = N / 2, b = N / gs + nk;
    return a < b ? a : b;
}

/* `need` bytes at `reuse`, a region of `room` bytes that is dead while the
 * round runs, when they fit there; else a new region from *at. */
static size_t take_or_reuse(size_t *at, uint64_t need, size_t reuse, uint64_t room)
{
    return need <= room ? reuse : take(at, need);
}

/*
 * Scratch layout of the affine round for N entries over nk keys, from *at
 * (after the rest of l). Two of its arrays go where the pass has dead
 * space when they fit: the index table in the sort's inputs (keys_in,
 * vals_in: read by the sort only), the walk-up products in the sort's
 * outputs (keys_out, vals_out: read by the keys and map kernels, which run
 * before the add kernel writes them) or else in the split's flags and
 * positions (read before the first pass only). At 2^27 points and one
 * window a pass that is ~1.4 GB less, so the rounds fit a prover slot's
 * scratch.
 */
static void aff_plan(msm_layout *l, size_t *at, uint64_t N, uint64_t nk, size_t aff_bytes,
                     size_t f_bytes)
{
    l->group_len = l->copies ? PRE_AFF_GROUP : AFF_GROUP;
    l->slots_max = l->copies ? PRE_AFF_K : 0;
    uint64_t capx = aff_groups_bound(N, nk, l->group_len) + 1;
    uint64_t pre_b = f_bytes * capx;
    l->run_lens = take(at, 8 * nk);
    l->run_groups = take(at, 8 * nk);
    l->longest = take(at, 8);
    l->group_idx =
        take_or_reuse(at, 4 * (uint64_t)l->group_len * capx, l->keys_in, l->keys_out - l->keys_in);
    l->group_lens = take(at, capx);
    l->sum_keys = take(at, 4 * capx);
    l->sums = take(at, aff_bytes * capx);
    l->prefix = pre_b <= l->bucket_start - l->keys_out ? l->keys_out
                                          : take_or_reuse(at, pre_b, l->flags, l->dense - l->flags);
    /* at most this many groups of the first round's sums */
    uint64_t cap2 = aff_groups_bound(capx - 1, nk, l->group_len) + 1;
    l->sum_keys2 = take(at, 4 * cap2);
    l->sums2 = take(at, aff_bytes * cap2);
}

/* The arrays one affine round writes: the index table, the group
 * lengths, the walk-up products, and the sums with their keys. */
template <class F> struct aff_arrays {
    uint32_t *group_idx, *keys;
    uint8_t *group_lens;
    aff_t<F> *sums;
    F *prefix;
};

/* The add kernel over the nsums groups the map kernel laid out in a. */
template <class F, int MINB>
static zp_err aff_add_launch(zp__gpu_stream *s, const msm_layout *l, const aff_src<F> &in,
                             const aff_arrays<F> &a, const uint64_t *ncnt, const uint64_t *gstart,
                             uint64_t nk, uint64_t nsums)
{
    zp__gpu *g = s->g;
    unsigned K = aff_k<F, MINB>(nsums, g->prop.multiProcessorCount,
                                l->slots_max ? l->slots_max : acc_cfg<F>::affine_k);
    uint64_t T = (nsums + 32 * K - 1) / (32 * K) * 32; /* whole warps */
    aff_add_kernel<F, MINB><<<zp__ceil_div_u(T, AFF_THREADS), AFF_THREADS, 0, s->st>>>(
        in, a.group_idx, a.group_lens, ncnt, gstart, nk, K, a.prefix, a.sums);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

/*
 * One affine round over N sorted entries `in` whose bounds over nk keys are
 * bstart / bend: runs of one go to their buckets in bk, the groups of
 * longer runs are summed into a.sums (keys in a.keys, in key order). Sets
 * *nsums and *longest (the longest run). bend is overwritten (the groups'
 * first slots). Synchronizes the stream once. keep: as chunk_sums'.
 */
template <class F>
static zp_err aff_round(zp__gpu_stream *s, const msm_layout *l, char *base, const aff_src<F> &in,
                        uint64_t N, uint64_t nk, uint64_t *bstart, uint64_t *bend, xyzz_t<F> *bk,
                        const aff_arrays<F> &a, uint64_t *nsums, uint64_t *longest, bool keep)
{
    zp__gpu *g = s->g;
    cudaStream_t st = s->st;
    uint64_t *cnt = (uint64_t *)(base + l->run_lens), *ncnt = (uint64_t *)(base + l->run_groups);
    uint32_t *smax = (uint32_t *)(base + l->longest);
    uint64_t *hv = (uint64_t *)s->host;
    const unsigned gs = l->group_len;

    /* Run lengths (runs of one go to their buckets here), next starts into
     * bend (after the lengths are read from it), the longest run. */
    ZP_CUDA(cudaMemsetAsync(smax, 0, 4, st));
    aff_keys_kernel<F><<<zp__ceil_div_u(nk, 256), 256, 0, st>>>(in, bstart, bend, cnt, ncnt, nk,
                                                               l->c, gs, bk, smax, keep);
    ZP_CUDA_LAUNCHED();
    if (keep) { /* before bend is overwritten below */
        keep_singles_kernel<F><<<zp__ceil_div_u(nk, 128), 128, 0, st>>>(in, bstart, cnt, nk,
                                                                       l->c, bk);
        ZP_CUDA_LAUNCHED();
    }
    size_t tb = l->temp_bytes;
    ZP_CUDA(cub::DeviceScan::ExclusiveSum(base + l->temp, tb, ncnt, bend, (int)nk, st));
    ZP_CUDA(cudaMemcpyAsync(hv, bend + nk - 1, 8, cudaMemcpyDeviceToHost, st));
    ZP_CUDA(cudaMemcpyAsync(hv + 1, ncnt + nk - 1, 8, cudaMemcpyDeviceToHost, st));
    ZP_CUDA(cudaMemcpyAsync(hv + 2, smax, 4, cudaMemcpyDeviceToHost, st));
    ZP_CUDA(cudaStreamSynchronize(st));
    *nsums = hv[0] + hv[1];
    *longest = (uint32_t)hv[2];
    if (!*nsums)
        return ZP_OK;
    aff_map_kernel<F><<<zp__ceil_div_u(N, 256), 256, 0, st>>>(
        in, N, cnt, bstart, bend, gs, *nsums, a.group_idx, a.group_lens, a.keys);
    ZP_CUDA_LAUNCHED();
    return aff_add_launch<F, acc_cfg<F>::affine_min_blocks>(s, l, in, a, ncnt, bend, nk, *nsums);
}

/* Bounds of the n sums of a round (global keys) over nk keys. */
static zp_err sum_bounds(zp__gpu_stream *s, const msm_layout *l, const uint32_t *keys,
                         uint64_t n, uint64_t nk, uint64_t *bstart, uint64_t *bend)
{
    zp__gpu *g = s->g;
    cudaStream_t st = s->st;
    ZP_CUDA(cudaMemsetAsync(bstart, 0, 8 * nk, st));
    ZP_CUDA(cudaMemsetAsync(bend, 0, 8 * nk, st));
    bounds_kernel<<<zp__ceil_div_u(n, 256), 256, 0, st>>>(keys, n, 0, l->c, bstart, bend);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

/*
 * The arrays of a round with its sums at `sums` and their keys at `keys`
 * (l->sums and l->sum_keys for the first, l->sums2 and l->sum_keys2 for a second). Both
 * rounds share the index table, group lengths and walk-up products: the
 * first round's are dead once its add kernel has run, and large enough
 * (the second round's groups are fewer than the first's).
 */
template <class F>
static aff_arrays<F> aff_arrays_at(const msm_layout *l, char *base, size_t keys, size_t sums)
{
    return aff_arrays<F>{(uint32_t *)(base + l->group_idx), (uint32_t *)(base + keys),
                         (uint8_t *)(base + l->group_lens), (aff_t<F> *)(base + sums),
                         (F *)(base + l->prefix)};
}

/*
 * One pass over N sorted entries `in` (a pass's digits, point indices and
 * signs) into the pass's buckets bk: the affine rounds (a second one where
 * the first leaves runs of two sums or more), then the XYZZ chunks over the
 * sums with fresh bounds. Synchronizes the stream once a
 * round (the count of sums and the longest run size what follows). *rounds:
 * how many affine rounds ran (1 or 2). keep: each bucket written gets its
 * sum so far added (zp__gpu_msm_acc); every bucket with entries is written
 * once a pass, by one of the rounds' runs of one or by the chunks.
 */
template <class F>
static zp_err affine_pass(zp__gpu_stream *s, const msm_layout *l, char *base,
                          const aff_src<F> &in, uint64_t N, uint64_t nk, uint64_t *bstart,
                          uint64_t *bend, xyzz_t<F> *bk, xyzz_t<F> *carries, unsigned *rounds,
                          bool keep = false, bool pieces = false)
{
    const unsigned gs = l->group_len;
    *rounds = 1;
    aff_arrays<F> a = aff_arrays_at<F>(l, base, l->sum_keys, l->sums);
    uint64_t nsums, longest;
    ZP_TRY(aff_round<F>(s, l, base, in, N, nk, bstart, bend, bk, a, &nsums, &longest, keep));
    if (nsums)
        ZP_TRY(sum_bounds(s, l, a.keys, nsums, nk, bstart, bend));
    if (pieces)
        ZP_TRY(piece_mark(s, 0));
    if (!nsums)
        return ZP_OK;
    uint64_t run = (longest + gs - 1) / gs; /* the longest run of sums */
    if (run >= 2) {
        const aff_arrays<F> a2 = aff_arrays_at<F>(l, base, l->sum_keys2, l->sums2);
        aff_src<F> in2 = {a.sums, a.keys, NULL, 0, l->c};
        *rounds = 2;
        ZP_TRY(aff_round<F>(s, l, base, in2, nsums, nk, bstart, bend, bk, a2, &nsums, &longest,
                            keep));
        if (nsums)
            ZP_TRY(sum_bounds(s, l, a2.keys, nsums, nk, bstart, bend));
        if (pieces)
            ZP_TRY(piece_mark(s, 1));
        if (!nsums)
            return ZP_OK;
        a = a2;
        run = (longest + gs - 1) / gs;
    }

    /* The sums, in key order, through the XYZZ chunks. */
    uint64_t L = chunk_len(nsums);
    if ((nsums + L - 1) / L > l->chunks) /* cannot happen: nsums < N */
        L = (nsums + l->chunks - 1) / l->chunks;
    ZP_TRY(chunk_sums<F>(s, l, a.sums, a.keys, NULL, nsums, 0, run, L, nk, bstart, bend, bk,
                         carries, keep));
    return pieces ? piece_mark(s, 2) : ZP_OK;
}

/* keys[i] = 1 for i < n. */
static __global__ void fill_one_kernel(uint32_t *keys, uint64_t n)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        keys[i] = 1;
}

/*
 * The sum of the points ones[0 .. count) (the scalars equal to one) into
 * *out, as one run through the affine rounds: digit 1 of a window of count
 * entries, so groups of 8, then of their sums, then the XYZZ chunks, where
 * a strided XYZZ sum pays ~10 products a point. It runs after the dense
 * part, in that part's arrays (dead by then): the keys in keys_out, the
 * bounds, bucket 0, the carries and the rounds' own arrays, which an affine
 * layout sizes for l->entries >= count entries over more keys (the caller
 * checks); or first, in a layout of its own (ones_first_ok).
 */
template <class F>
static zp_err ones_affine(zp__gpu_stream *s, const msm_layout *l, char *base,
                          const aff_t<F> *points, const uint32_t *ones, uint64_t count,
                          xyzz_t<F> *out)
{
    zp__gpu *g = s->g;
    cudaStream_t st = s->st;
    uint32_t *keys = (uint32_t *)(base + l->keys_out);
    uint64_t *bstart = (uint64_t *)(base + l->bucket_start);
    uint64_t *bend = (uint64_t *)(base + l->bucket_end);
    xyzz_t<F> *bk = (xyzz_t<F> *)(base + l->buckets);
    fill_one_kernel<<<zp__ceil_div_u(count, 256), 256, 0, st>>>(keys, count);
    ZP_CUDA_LAUNCHED();
    ZP_CUDA(cudaMemsetAsync(bstart, 0, 2 * sizeof *bstart, st));
    ZP_CUDA(cudaMemsetAsync(bend, 0, 2 * sizeof *bend, st));
    bounds_kernel<<<zp__ceil_div_u(count, 256), 256, 0, st>>>(keys, count, count, l->c, bstart,
                                                             bend);
    ZP_CUDA_LAUNCHED();
    ZP_CUDA(cudaMemsetAsync(bk, 0, sizeof *bk, st));
    const aff_src<F> in = {points, keys, ones, count, l->c};
    unsigned rounds;
    ZP_TRY(affine_pass<F>(s, l, base, in, count, 2, bstart, bend, bk,
                          (xyzz_t<F> *)(base + l->carries), &rounds));
    ZP_CUDA(cudaMemcpyAsync(out, bk, sizeof *bk, cudaMemcpyDeviceToDevice, st));
    return ZP_OK;
}

#endif
