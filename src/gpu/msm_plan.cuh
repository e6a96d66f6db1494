/*
 * The MSM's planning (msm_impl.cuh): the window c for a count of
 * dense scalars, the reduction's segments, the accumulation's chunks, and
 * the layout of every array in the caller's scratch (plan, plan_fit).
 * Included by msm_impl.cuh only, after its constants.
 */
#ifndef ZP_GPU_MSM_PLAN_CUH
#define ZP_GPU_MSM_PLAN_CUH

struct msm_layout {
    uint64_t n, m;           /* points; dense scalars */
    unsigned c, windows;     /* window bits; windows */
    unsigned window_buckets; /* buckets per window, 2^(c-1) */
    unsigned per_pass;       /* windows sorted and accumulated per pass */
    uint64_t entries;        /* per_pass * m sorted entries (one pass) */
    uint64_t chunk_len, chunks; /* accumulation chunk length and count (one pass) */
    uint32_t seg;            /* buckets per reduction segment (seg_for) */
    uint64_t segs;           /* reduction segments per window */
    uint64_t segs2;          /* second-level segments (two_level_reduce; 0: one level) */
    bool affine;             /* the batch-affine rounds (msm_affine.cuh) first */
    unsigned group_len;      /* their group length */
    unsigned slots_max;      /* their most slots a thread (0: acc_cfg<F>::affine_k) */
    bool ident;              /* no split: dense scalar i is scalar i (msm_device) */
    unsigned copies;         /* precomputed bases (msm_pre): m = copies * scalars, one window */

    /* Byte offsets in the scratch. The split: */
    size_t flags, pos, dense, ones, counts;
    /* the sort's input and output, its temporary storage, sort_fix's group
     * lengths and counts (msm_sort.cuh): */
    size_t keys_in, vals_in, keys_out, vals_out, temp, temp_bytes, sort_groups;
    /* each key's run of sorted entries, the buckets, the chunks' carries: */
    size_t bucket_start, bucket_end, buckets, carries;
    /* the reduction's partial sums (and a second array for its tree), the
     * two-level reduction's (0: none), the window sums: */
    size_t parts, parts_tmp, runs, run_parts, window_sums;
    /* the affine rounds' run lengths and groups per key, the longest run,
     * index table, group lengths, sums and their keys, walk-up products;
     * the second round's sums and keys: */
    size_t run_lens, run_groups, longest, group_idx, group_lens, sums, sum_keys, prefix;
    size_t sums2, sum_keys2;
    size_t total; /* bytes in all */
};

/*
 * Scalars above (r - 1) / 2 enter the digits as r - s with the point
 * negated (r P = 0 in the prime-order groups), so every scalar is below
 * 2^254 and nw signed c-bit windows need c nw >= 255 bits instead of 256:
 * 15 windows instead of 16 at c = 17, where the top window of 16 held
 * only the carries (about half the scalars, all in one bucket).
 */
static unsigned windows_of(unsigned c)
{
    return (255 + c - 1) / c;
}

/* Cost model: nw windows of m mixed additions (~10 products each) plus the
 * bucket reduction: two full additions per bucket and the segment offsets
 * (~40 products per bucket), in kernels about half as efficient: 80. Two of
 * its choices measure slower than their neighbours and are corrected at
 * the end. */
static unsigned pick_window(uint64_t m, size_t xyzz_bytes)
{
    const double red_cost = 80.0; /* products a bucket of the reduction */
    unsigned best = 2;
    double best_cost = 1e300;
    for (unsigned c = 2; c <= MAX_C; c++) {
        double nw = windows_of(c);
        double cost = nw * (10.0 * (double)m + red_cost * (double)(1u << (c - 1)));
        if (cost < best_cost) {
            best_cost = cost;
            best = c;
        }
    }
    /* The model asks for 15 at 2^20 (17 windows), where 16 with 16 windows
     * is faster, and for 17 in G2 below 2^23, where 16 is (from 2^23 17
     * wins). The choice stays non-decreasing in m (msm_g1.cu's
     * scratch_for). */
    if (best == 15)
        best = 16;
    if (xyzz_bytes == sizeof(xyzz_t<fp2_t>) && m < ((uint64_t)1 << 23) && best > 16)
        best = 16;
    return best;
}

/* The window for m dense scalars: pick_window's, except that G1's affine
 * rounds (xyzz_bytes of G1) run best at c = 17 from 2^23 to 2^25 dense
 * scalars, where the model asks for 18 or 19: smaller buckets make longer
 * runs for the affine groups and a cheaper reduction. From 2^26 dense the
 * model's 20 is best. */
static unsigned window_for(uint64_t m, size_t xyzz_bytes, bool affine)
{
    unsigned c = pick_window(m, xyzz_bytes);
    if (affine && xyzz_bytes == sizeof(xyzz_t<fp_t>) && m >= ((uint64_t)1 << 23) &&
        m < ((uint64_t)1 << 25) && c > 17)
        c = 17;
    return c;
}

/*
 * Accumulation chunks: chunk_len = entries >> CHUNK_SHIFT entries each
 * (16 .. 1024), i.e. about 2^CHUNK_SHIFT chunks (one thread each) per pass.
 * More chunks leave less of the last wave of blocks idle at the end of a
 * launch, for more carries: a lone G1 MSM gains from 2^21, but the engine,
 * whose slots fill each other's tails, and G2 lose, so 2^18.
 */
#define CHUNK_SHIFT 18

/* Whether a window of B buckets is reduced in two levels (msm_reduce.cuh).
 * The second level saves each segment its product by its offset but costs
 * a pass over the runs: it gains at c = 20 (B = 2^19) and loses below, so
 * from o->two_level_from buckets (2^19 by default), where there are
 * several segments. */
static bool two_level_reduce(const zp__gpu_msm_opts *o, uint32_t B)
{
    return B >= o->two_level_from;
}

/*
 * Buckets per reduction segment for nw windows of B buckets: SEG, or in
 * two levels fewer, down to 8, while the windows would have fewer than
 * RED_MIN_SEGS segments (threads) in all. A segment costs its buckets' two
 * additions each (and, in one level, a product by its offset, ~26
 * additions at c = 20, which is why one level keeps SEG), so shorter
 * segments only add threads: they pay where a lone window (the
 * precomputed bases) has too few segments to fill the GPU, and lose with
 * many windows.
 */
#define RED_MIN_SEGS (1u << 16)
static uint32_t seg_for(const zp__gpu_msm_opts *o, unsigned nw, uint32_t B)
{
    uint32_t seg = SEG;
    while (two_level_reduce(o, B) && seg > 8 && (uint64_t)nw * B / seg < RED_MIN_SEGS)
        seg /= 2;
    return seg;
}

/* o->window where it is one (2 .. MAX_C), else 0: window_for chooses. */
static unsigned forced_window(const zp__gpu_msm_opts *o)
{
    return o->window >= 2 && o->window <= MAX_C ? o->window : 0;
}

/* The chunk length for N sorted entries. */
static uint64_t chunk_len(uint64_t N)
{
    uint64_t L = N >> CHUNK_SHIFT;
    return L < 16 ? 16 : L > 1024 ? 1024 : L;
}

static size_t take(size_t *at, uint64_t bytes)
{
    size_t off = *at;
    *at += (bytes + 255) & ~(uint64_t)255;
    return off;
}

static void aff_plan(msm_layout *l, size_t *at, uint64_t N, uint64_t nk, size_t aff_bytes,
                     size_t f_bytes);

/* CUB's temporary bytes for a scan of n words and a sort of m pairs by c
 * bits: as CUB asks them of the device (its tuning depends on the GPU),
 * or, where no device answers, a bound on what it asks of any (the
 * bounds, which test_gpu_msm_args checks against CUB on a GPU): a sort takes a
 * second array of keys and of values (8 m bytes; a sort of one pass may
 * not) and a look-back of 1 KiB a tile of at least 2048 entries, a scan 16
 * bytes a tile of at least 256 words, each with a few KiB beside. So a
 * machine without a GPU (zkpipe doctor, the planner's tests) plans the
 * layouts a GPU does, larger by the bounds' slack at most. */
static size_t scan_temp_bound(uint64_t n) { return (size_t)(n / 16 + 65536); }

static size_t sort_temp_bound(uint64_t m) { return (size_t)(8 * m + m / 2 + 65536); }

static size_t scan_temp_cub(uint64_t n)
{
    size_t b = 0;
    if (cub::DeviceScan::ExclusiveSum(NULL, b, (const uint64_t *)NULL, (uint64_t *)NULL,
                                      (int)n) != cudaSuccess) {
        cudaGetLastError();
        b = 0;
    }
    return b;
}

static size_t sort_temp_cub(uint64_t m, unsigned c)
{
    size_t b = 0;
    if (cub::DeviceRadixSort::SortPairs(NULL, b, (const uint32_t *)NULL, (uint32_t *)NULL,
                                        (const uint32_t *)NULL, (uint32_t *)NULL, (int)m, 0,
                                        (int)c) != cudaSuccess) {
        cudaGetLastError();
        b = 0;
    }
    return b;
}

static size_t scan_temp_bytes(uint64_t n)
{
    const size_t b = scan_temp_cub(n);
    return b ? b : scan_temp_bound(n);
}

static size_t sort_temp_bytes(uint64_t m, unsigned c)
{
    const size_t b = sort_temp_cub(m, c);
    return b ? b : sort_temp_bound(m);
}

/* G: windows per pass (0 or above the window count: all of them). Fewer
 * windows per pass need less sorting space (4 arrays of G * m words) and
 * fewer bucket bounds; the buckets of all windows stay. affine: the layout
 * of the batch-affine round as well (xyzz_bytes = 4 field elements).
 * split: room for the 0/1 split's arrays (24 bytes a scalar: 3 GiB at 2^27);
 * an MSM without the split (zp__gpu_msm_g1_nosplit) leaves them out, which
 * at 2^27 is most of another window a pass. ext: the buckets lie outside
 * the scratch (zp__gpu_msm_acc), so the layout leaves them out too. */
static void plan(msm_layout *l, const zp__gpu_msm_opts *o, uint64_t n, uint64_t m,
                 size_t xyzz_bytes, unsigned G, bool affine = false, bool split = true,
                 unsigned pre_c = 0, bool ext = false)
{
    memset(l, 0, sizeof *l);
    l->n = n;
    l->m = m;
    l->c = pre_c ? pre_c : forced_window(o);
    if (!l->c)
        l->c = window_for(m, xyzz_bytes, affine);
    l->windows = windows_of(l->c);
    if (pre_c) { /* every window's digits into one bucket set (msm_pre) */
        l->copies = l->windows;
        l->windows = 1;
    }
    l->window_buckets = 1u << (l->c - 1);
    l->per_pass = G && G < l->windows ? G : l->windows;
    l->entries = (uint64_t)l->per_pass * m;
    l->chunk_len = chunk_len(l->entries);
    l->chunks = (l->entries + l->chunk_len - 1) / l->chunk_len;
    l->seg = seg_for(o, l->windows, l->window_buckets);
    l->segs = l->window_buckets > l->seg ? l->window_buckets / l->seg : 1;

    const size_t scan_b = scan_temp_bytes(n ? n : 1), sort_b = sort_temp_bytes(m ? m : 1, l->c);
    l->temp_bytes = scan_b > sort_b ? scan_b : sort_b;
    l->affine = affine;
    if (affine) {
        const size_t key_b = scan_temp_bytes((uint64_t)l->per_pass << l->c);
        l->temp_bytes = key_b > l->temp_bytes ? key_b : l->temp_bytes;
    }

    /* The ones' partial sums: as many as the launch below can ask for with
     * n points (a power of two, >= ONES_MIN_PER_PART points each), so a
     * small MSM does not carry the room of a large one. */
    uint64_t ones_parts = 1;
    while (ones_parts < ONES_PARTS && ones_parts * ONES_MIN_PER_PART < n)
        ones_parts *= 2;
    uint64_t parts = l->windows * l->segs > ones_parts ? l->windows * l->segs : ones_parts;
    size_t at = 0;
    if (split) { /* else all four stay at offset 0, never read */
        l->flags = take(&at, 8 * n);
        l->pos = take(&at, 8 * n);
        l->dense = take(&at, 4 * n);
        l->ones = take(&at, 4 * n);
    }
    l->counts = take(&at, 16);
    l->sort_groups = take(&at, 16 * (uint64_t)l->per_pass);
    l->temp = take(&at, l->temp_bytes);
    l->keys_in = take(&at, 4 * l->entries);
    l->vals_in = take(&at, 4 * l->entries);
    l->keys_out = take(&at, 4 * l->entries);
    l->vals_out = take(&at, 4 * l->entries);
    l->bucket_start = take(&at, 8 * ((uint64_t)l->per_pass << l->c));
    l->bucket_end = take(&at, 8 * ((uint64_t)l->per_pass << l->c));
    if (!ext)
        l->buckets = take(&at, xyzz_bytes * l->windows * l->window_buckets);
    l->carries = take(&at, xyzz_bytes * l->chunks);
    if (affine)
        aff_plan(l, &at, l->entries, (uint64_t)l->per_pass << l->c, xyzz_bytes / 2, xyzz_bytes / 4);
    l->parts = take(&at, xyzz_bytes * parts);
    l->parts_tmp = take(&at, xyzz_bytes * parts);
    if (two_level_reduce(o, l->window_buckets) && l->segs > 1) {
        l->segs2 = l->segs > l->seg ? l->segs / l->seg : 1;
        l->runs = take(&at, xyzz_bytes * l->windows * l->segs);
        l->run_parts = take(&at, xyzz_bytes * l->windows * l->segs2);
    }
    l->window_sums = take(&at, xyzz_bytes * (l->windows + 1));
    l->total = at;
}

/* The layout with the most windows a pass (all of them down to one) that
 * fits `bytes`, with fewer than 2^32 entries a pass for the affine round;
 * false when none does. */
static bool plan_fit(msm_layout *l, const zp__gpu_msm_opts *o, uint64_t n, uint64_t m,
                     size_t xyzz_bytes, uint64_t bytes, bool affine, bool split,
                     unsigned pre_c = 0, bool ext = false)
{
    plan(l, o, n, m, xyzz_bytes, 0, affine, split, pre_c, ext);
    for (unsigned G = l->windows;; G--) {
        if (l->total <= bytes && !(affine && l->entries >> 32))
            return true;
        if (G <= 1)
            return false;
        plan(l, o, n, m, xyzz_bytes, G - 1, affine, split, pre_c, ext);
    }
}

#endif
