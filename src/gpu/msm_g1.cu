/* The G1 MSM entry point, the scratch size and split counts (msm_impl.cuh). */
#include "gpu/msm_impl.cuh"

/*
 * The most any split of n scalars needs. The window (so the layout) changes
 * with the dense count m; within one window the layout grows with m, so the
 * maximum is at the top of each window's range of m. pick_window does not
 * decrease with m, so binary search finds where each range starts.
 */
static uint64_t scratch_for(const zp__gpu_msm_opts *o, uint64_t n, size_t xyzz_bytes, unsigned G,
                            uint64_t aff_from)
{
    msm_layout l;
    uint64_t best = 0;
    for (uint64_t top = n; top >= 1;) {
        plan(&l, o, n, top, xyzz_bytes, G);
        if (l.total > best)
            best = l.total;
        if (top >= aff_from) { /* the affine round's layout, where it fits a pass */
            plan(&l, o, n, top, xyzz_bytes, G, true);
            if (!(l.entries >> 32) && l.total > best)
                best = l.total;
        }
        unsigned c = pick_window(top, xyzz_bytes);
        uint64_t lo = 1, hi = top;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (pick_window(mid, xyzz_bytes) == c)
                hi = mid;
            else
                lo = mid + 1;
        }
        top = lo - 1;
    }
    return best;
}

/* The options every sizing below assumes: the defaults. */
static const zp__gpu_msm_opts *default_opts(void)
{
    static const zp__gpu_msm_opts o = [] { /* C++: initialized once, thread-safe */
        zp__gpu_msm_opts d;
        zp__gpu_msm_opts_default(&d);
        return d;
    }();
    return &o;
}

static size_t xyzz_bytes_of(bool g2)
{
    return g2 ? sizeof(xyzz_t<fp2_t>) : sizeof(xyzz_t<fp_t>);
}

/* The fewest dense scalars the affine round runs from under o, with one
 * prover slot or several (the lower, so a scratch sized by it holds
 * either). */
static uint64_t affine_from_g(const zp__gpu_msm_opts *o, bool g2)
{
    if (g2)
        return affine_from<fp2_t>(o, false);
    uint64_t lone = affine_from<fp_t>(o, false), shared = affine_from<fp_t>(o, true);
    return lone < shared ? lone : shared;
}

extern "C" uint64_t zp__gpu_msm_scratch_bytes(uint64_t n, bool g2)
{
    return scratch_for(default_opts(), n, xyzz_bytes_of(g2), 0, UINT64_MAX);
}

extern "C" uint64_t zp__gpu_msm_scratch_bytes_best(uint64_t n, bool g2)
{
    const zp__gpu_msm_opts *o = default_opts();
    return scratch_for(o, n, xyzz_bytes_of(g2), 0, affine_from_g(o, g2));
}

extern "C" uint64_t zp__gpu_msm_scratch_bytes_pass(uint64_t n, bool g2, unsigned windows)
{
    return scratch_for(default_opts(), n, xyzz_bytes_of(g2), windows, UINT64_MAX);
}

extern "C" uint64_t zp__gpu_msm_scratch_bytes_affine_opts(const zp__gpu_msm_opts *o, uint64_t n,
                                                          bool g2, unsigned windows)
{
    return scratch_for(o, n, xyzz_bytes_of(g2), windows, affine_from_g(o, g2));
}

extern "C" uint64_t zp__gpu_msm_scratch_bytes_affine(uint64_t n, bool g2, unsigned windows)
{
    return zp__gpu_msm_scratch_bytes_affine_opts(default_opts(), n, g2, windows);
}

extern "C" uint64_t zp__gpu_msm_scratch_bytes_opts(const zp__gpu_msm_opts *o, uint64_t n, bool g2,
                                                   unsigned windows, bool best)
{
    return scratch_for(o, n, xyzz_bytes_of(g2), best ? 0 : windows,
                       best ? affine_from_g(o, g2) : UINT64_MAX);
}

extern "C" uint64_t zp__gpu_msm_scratch_bytes_nosplit_opts(const zp__gpu_msm_opts *o, uint64_t n,
                                                           bool g2, unsigned windows)
{
    const size_t xb = xyzz_bytes_of(g2);
    msm_layout l;
    plan(&l, o, n, n, xb, windows, false, false);
    uint64_t best = l.total;
    if (n >= affine_from_g(o, g2)) { /* the affine round's layout, where it fits a pass */
        plan(&l, o, n, n, xb, windows, true, false);
        if (!(l.entries >> 32) && l.total > best)
            best = l.total;
    }
    return best;
}

extern "C" uint64_t zp__gpu_msm_scratch_bytes_nosplit(uint64_t n, bool g2, unsigned windows)
{
    return zp__gpu_msm_scratch_bytes_nosplit_opts(default_opts(), n, g2, windows);
}

extern "C" void zp__gpu_msm_last_split(const zp__gpu_stream *s, uint64_t *zeros, uint64_t *ones,
                                       uint64_t *dense)
{
    *zeros = s->last_zeros;
    *ones = s->last_ones;
    *dense = s->last_dense;
}

extern "C" void zp__gpu_msm_last_passes(const zp__gpu_stream *s, unsigned *windows,
                                        unsigned *per_pass)
{
    *windows = s->last_windows;
    *per_pass = s->last_per_pass;
}

extern "C" bool zp__gpu_msm_last_affine(const zp__gpu_stream *s)
{
    return s->last_aff_rounds > 0;
}
extern "C" unsigned zp__gpu_msm_last_affine_rounds(const zp__gpu_stream *s)
{
    return s->last_aff_rounds;
}
extern "C" bool zp__gpu_msm_last_ones_affine(const zp__gpu_stream *s)
{
    return s->last_ones_affine;
}
extern "C" unsigned zp__gpu_msm_last_sort_bits(const zp__gpu_stream *s, unsigned *c)
{
    *c = s->last_c;
    return s->last_c ? sort_bits(s->last_c) : 0;
}

extern "C" unsigned zp__gpu_msm_window(uint64_t m, bool g2, bool affine)
{
    return window_for(m, g2 ? sizeof(xyzz_t<fp2_t>) : sizeof(xyzz_t<fp_t>), affine);
}

extern "C" void zp__gpu_msm_last_phases(const zp__gpu_stream *s, zp__gpu_msm_phases *out)
{
    *out = s->phases;
}

/* pre_c: d_points is a table of precomputed bases made with c = pre_c
 * (n its points, n / copies scalars; msm_device's one window). */
static zp_err msm_g1(zp__gpu_stream *s, zp_g1_jac *out, const zp_g1_affine *d_points,
                     const zp_fr *d_scalars, uint64_t n, zp__gpu_buf scratch, bool split,
                     unsigned pre_c = 0, const wsel_t *ws = NULL)
{
    zp_g1_jac_inf(out);
    if (n > ZP_GPU_MSM_MAX)
        return ZP_E_TOO_LARGE;
    if (n == 0)
        return ZP_OK;
    xyzz_t<fp_t> *h = NULL;
    unsigned nw = 0, c = 0;
    ZP_TRY(msm_device<fp_t>(s, &h, &nw, &c, (const aff_t<fp_t> *)d_points,
                            (const fr_t *)d_scalars, n, scratch, split, pre_c, ws));
    const zp_g1_xyzz *w = (const zp_g1_xyzz *)h;
    zp_g1_xyzz acc;
    zp_g1_xyzz_inf(&acc);
    for (unsigned i = nw; i-- > 0;) {
        for (unsigned b = 0; b < c; b++)
            zp_g1_xyzz_dbl(&acc, &acc);
        zp_g1_xyzz_add(&acc, &acc, &w[i]);
    }
    zp_g1_xyzz_add(&acc, &acc, &w[nw]);
    zp_g1_xyzz_to_jac(out, &acc);
    return ZP_OK;
}

extern "C" zp_err zp__gpu_msm_g1(zp__gpu_stream *s, zp_g1_jac *out, const zp_g1_affine *d_points,
                                 const zp_fr *d_scalars, uint64_t n, zp__gpu_buf scratch)
{
    return msm_g1(s, out, d_points, d_scalars, n, scratch, true);
}

extern "C" zp_err zp__gpu_msm_g1_w(zp__gpu_stream *s, zp_g1_jac *out,
                                   const zp_g1_affine *d_points, const zp__gpu_wsc *sc,
                                   uint64_t n, zp__gpu_buf scratch)
{
    wsel_t ws;
    zp_g1_jac_inf(out);
    ZP_TRY(wsel_of(&ws, sc, n));
    return msm_g1(s, out, d_points, NULL, n, scratch, true, 0, &ws);
}

extern "C" zp_err zp__gpu_msm_g1_nosplit(zp__gpu_stream *s, zp_g1_jac *out,
                                         const zp_g1_affine *d_points, const zp_fr *d_scalars,
                                         uint64_t n, zp__gpu_buf scratch)
{
    return msm_g1(s, out, d_points, d_scalars, n, scratch, false);
}

extern "C" bool zp__gpu_msm_temp_bounds_hold(uint64_t m, unsigned c)
{
    const size_t sort = sort_temp_cub(m, c), scan = scan_temp_cub(m);
    return sort && scan && sort <= sort_temp_bound(m) && scan <= scan_temp_bound(m);
}

/* ------------------------------------------ one sum over several calls */

extern "C" unsigned zp__gpu_msm_acc_window(uint64_t total)
{
    return pick_window(total ? total : 1, sizeof(xyzz_t<fp_t>));
}

extern "C" uint64_t zp__gpu_msm_acc_bytes(unsigned c)
{
    if (c < 2 || c > MAX_C)
        return 0;
    return (uint64_t)windows_of(c) * ((uint64_t)1 << (c - 1)) * sizeof(xyzz_t<fp_t>);
}

/* The scratch of kept-bucket calls of n points at window c (and _end's
 * reduction), `windows` a pass (0: all), with the 0/1 split's arrays or
 * without; with the affine round's layout where it runs and fits a pass
 * (with the split at the windows asked, without it at all of them only). */
static uint64_t acc_scratch(const zp__gpu_msm_opts *opts, uint64_t n, unsigned c,
                            unsigned windows, bool split)
{
    if (c < 2 || c > MAX_C)
        return 0;
    zp__gpu_msm_opts o = *opts;
    o.window = c;
    const size_t xb = sizeof(xyzz_t<fp_t>);
    msm_layout l;
    plan(&l, &o, 1, 1, xb, 0, false, false, 0, true); /* _end's reduction */
    uint64_t best = l.total;
    if (n) { /* every scalar dense */
        plan(&l, &o, n, n, xb, windows, false, split, 0, true);
        best = l.total > best ? l.total : best;
    }
    if ((split || !windows) && n >= affine_from_g(&o, false)) {
        plan(&l, &o, n, n, xb, windows, true, split, 0, true);
        if (!(l.entries >> 32) && l.total > best)
            best = l.total;
    }
    return best;
}

extern "C" uint64_t zp__gpu_msm_acc_scratch_bytes(uint64_t n, unsigned c)
{
    return acc_scratch(default_opts(), n, c, 0, false);
}

extern "C" uint64_t zp__gpu_msm_acc_scratch_bytes_opts(const zp__gpu_msm_opts *opts, uint64_t n,
                                                       unsigned c, unsigned windows)
{
    return acc_scratch(opts, n, c, windows, false);
}

extern "C" uint64_t zp__gpu_msm_acc_affine_scratch_bytes_opts(const zp__gpu_msm_opts *opts,
                                                              uint64_t n, unsigned c,
                                                              unsigned passes)
{
    if (c < 2 || c > MAX_C || !n || !passes)
        return 0;
    zp__gpu_msm_opts o = *opts;
    o.window = c;
    const unsigned windows = (windows_of(c) + passes - 1) / passes;
    msm_layout l;
    plan(&l, &o, n, n, sizeof(xyzz_t<fp_t>), windows, true, false, 0, true);
    return l.total;
}

extern "C" uint64_t zp__gpu_msm_acc_split_scratch_bytes(uint64_t n, unsigned c,
                                                        unsigned windows)
{
    return acc_scratch(default_opts(), n, c, windows, true);
}

extern "C" uint64_t zp__gpu_msm_acc_split_scratch_bytes_opts(const zp__gpu_msm_opts *opts,
                                                             uint64_t n, unsigned c,
                                                             unsigned windows)
{
    return acc_scratch(opts, n, c, windows, true);
}

extern "C" zp_err zp__gpu_msm_g1_acc_begin(zp__gpu_msm_acc *acc, zp__gpu_buf buckets, unsigned c)
{
    memset(acc, 0, sizeof *acc);
    const uint64_t need = zp__gpu_msm_acc_bytes(c);
    if (!need || !buckets.ptr || buckets.bytes < need)
        return ZP_E_INVALID_ARG;
    acc->buckets = buckets;
    acc->c = c;
    return ZP_OK;
}

/* What an _add refuses: no _begin, too many points. */
static zp_err acc_args(const zp__gpu_msm_acc *acc, uint64_t n)
{
    if (!acc->c)
        return ZP_E_INVALID_ARG;
    return n > ZP_GPU_MSM_MAX ? ZP_E_TOO_LARGE : ZP_OK;
}

extern "C" zp_err zp__gpu_msm_g1_acc_add(zp__gpu_stream *s, zp__gpu_msm_acc *acc,
                                         const zp_g1_affine *d_points, const zp_fr *d_scalars,
                                         uint64_t n, zp__gpu_buf scratch)
{
    ZP_TRY(acc_args(acc, n));
    if (n == 0)
        return ZP_OK;
    ZP_TRY(msm_acc_add<fp_t>(s, (xyzz_t<fp_t> *)acc->buckets.ptr, acc->c, acc->started,
                             (const aff_t<fp_t> *)d_points, (const fr_t *)d_scalars, n,
                             scratch));
    acc->started = true;
    return ZP_OK;
}

/* A chunk with the 0/1 split into the acc's buckets (scalars or ws), its
 * ones' sum into *ones. */
static zp_err acc_add_split(zp__gpu_stream *s, zp__gpu_msm_acc *acc,
                            const zp_g1_affine *d_points, const zp_fr *d_scalars,
                            const wsel_t *ws, uint64_t n, zp__gpu_buf scratch, zp_g1_jac *ones)
{
    zp_g1_jac_inf(ones);
    ZP_TRY(acc_args(acc, n));
    if (n == 0)
        return ZP_OK;
    const msm_into<fp_t> into = {(xyzz_t<fp_t> *)acc->buckets.ptr, acc->c, acc->started};
    xyzz_t<fp_t> *h = NULL;
    unsigned nw = 0, c = 0;
    ZP_TRY(msm_device<fp_t>(s, &h, &nw, &c, (const aff_t<fp_t> *)d_points,
                            (const fr_t *)d_scalars, n, scratch, true, 0, ws, &into));
    acc->started = true;
    zp_g1_xyzz_to_jac(ones, (const zp_g1_xyzz *)h + nw);
    return ZP_OK;
}

extern "C" zp_err zp__gpu_msm_g1_acc_add_split(zp__gpu_stream *s, zp__gpu_msm_acc *acc,
                                               const zp_g1_affine *d_points,
                                               const zp_fr *d_scalars, uint64_t n,
                                               zp__gpu_buf scratch, zp_g1_jac *ones)
{
    return acc_add_split(s, acc, d_points, d_scalars, NULL, n, scratch, ones);
}

extern "C" zp_err zp__gpu_msm_g1_acc_add_w(zp__gpu_stream *s, zp__gpu_msm_acc *acc,
                                           const zp_g1_affine *d_points, const zp__gpu_wsc *sc,
                                           uint64_t n, zp__gpu_buf scratch, zp_g1_jac *ones)
{
    wsel_t ws;
    zp_g1_jac_inf(ones);
    ZP_TRY(wsel_of(&ws, sc, n));
    return acc_add_split(s, acc, d_points, NULL, &ws, n, scratch, ones);
}

extern "C" zp_err zp__gpu_msm_g1_acc_end(zp__gpu_stream *s, zp__gpu_msm_acc *acc, zp_g1_jac *out,
                                         zp__gpu_buf scratch)
{
    zp_g1_jac_inf(out);
    if (!acc->c)
        return ZP_E_INVALID_ARG;
    if (!acc->started)
        return ZP_OK;
    xyzz_t<fp_t> *h = NULL;
    unsigned nw = 0;
    ZP_TRY(msm_acc_end<fp_t>(s, (const xyzz_t<fp_t> *)acc->buckets.ptr, acc->c, &h, &nw,
                             scratch));
    acc->started = false;
    const zp_g1_xyzz *w = (const zp_g1_xyzz *)h;
    zp_g1_xyzz sum;
    zp_g1_xyzz_inf(&sum);
    for (unsigned i = nw; i-- > 0;) {
        for (unsigned b = 0; b < acc->c; b++)
            zp_g1_xyzz_dbl(&sum, &sum);
        zp_g1_xyzz_add(&sum, &sum, &w[i]);
    }
    zp_g1_xyzz_to_jac(out, &sum);
    return ZP_OK;
}

/* ------------------------------------------------- precomputed bases */

extern "C" unsigned zp__gpu_msm_pre_copies(unsigned c)
{
    return c >= 2 && c <= MAX_C ? windows_of(c) : 0;
}

/* The table's copies for c and n scalars, or why not. */
static zp_err pre_copies(unsigned c, uint64_t n, unsigned *copies)
{
    *copies = zp__gpu_msm_pre_copies(c);
    if (!*copies)
        return ZP_E_INVALID_ARG;
    return n > ZP_GPU_MSM_MAX / *copies ? ZP_E_TOO_LARGE : ZP_OK;
}

/* An XYZZ point made affine with one inversion: t = 1/ZZZ, y = Y t and,
 * as ZZ^3 = ZZZ^2, x = X / ZZ = X ZZ^2 t^2 (infinity, ZZ = ZZZ = 0, gives
 * t = 0 and the all-zero point). */
static __device__ __forceinline__ aff_t<fp_t> pre_affine(const xyzz_t<fp_t> &p)
{
    fp_t t = f_inv(p.zzz);
    aff_t<fp_t> r;
    r.y = f_mul(p.y, t);
    r.x = f_mul(f_mul(p.x, f_sqr(p.zz)), f_sqr(t));
    return r;
}

/* table[j n + i] = 2^(c j) points[i] for j < copies: c doublings between
 * copies, each copy made affine on its own (a one-time setup). */
static __global__ void pre_table_kernel(aff_t<fp_t> *table, const aff_t<fp_t> *points,
                                        uint64_t n, unsigned c, unsigned copies)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    aff_t<fp_t> p = aff_load(points + i);
    aff_store(table + i, p);
    if (copies < 2)
        return;
    xyzz_t<fp_t> acc = xyzz_dbl_aff(p); /* infinity stays infinity */
    for (unsigned j = 1; j < copies; j++) {
        for (unsigned b = j == 1 ? 1 : 0; b < c; b++)
            xyzz_dbl(acc, acc);
        aff_store(table + (uint64_t)j * n + i, pre_affine(acc));
    }
}

extern "C" zp_err zp__gpu_msm_g1_precompute(zp__gpu_stream *s, zp_g1_affine *d_table,
                                            const zp_g1_affine *d_points, uint64_t n, unsigned c)
{
    zp__gpu *g = s->g;
    unsigned copies;
    ZP_TRY(pre_copies(c, n, &copies));
    if (n == 0)
        return ZP_OK;
    ZP_CUDA(cudaSetDevice(g->device));
    pre_table_kernel<<<zp__ceil_div_u(n, 128), 128, 0, s->st>>>(
        (aff_t<fp_t> *)d_table, (const aff_t<fp_t> *)d_points, n, c, copies);
    ZP_CUDA_LAUNCHED();
    ZP_CUDA(cudaStreamSynchronize(s->st));
    return ZP_OK;
}

extern "C" uint64_t zp__gpu_msm_scratch_bytes_pre_opts(const zp__gpu_msm_opts *o, uint64_t n,
                                                       unsigned c)
{
    unsigned copies;
    if (n == 0 || pre_copies(c, n, &copies))
        return 0;
    const uint64_t t = n * copies;
    msm_layout l;
    plan(&l, o, t, t, sizeof(xyzz_t<fp_t>), 0, false, false, c);
    uint64_t best = l.total;
    plan(&l, o, t, t, sizeof(xyzz_t<fp_t>), 0, true, false, c);
    if (!(l.entries >> 32) && l.total > best)
        best = l.total;
    return best;
}

extern "C" uint64_t zp__gpu_msm_scratch_bytes_pre(uint64_t n, unsigned c)
{
    return zp__gpu_msm_scratch_bytes_pre_opts(default_opts(), n, c);
}

extern "C" zp_err zp__gpu_msm_g1_pre(zp__gpu_stream *s, zp_g1_jac *out, const zp_g1_affine *d_table,
                                     unsigned c, const zp_fr *d_scalars, uint64_t n,
                                     zp__gpu_buf scratch)
{
    zp_g1_jac_inf(out);
    unsigned copies;
    ZP_TRY(pre_copies(c, n, &copies));
    return msm_g1(s, out, d_table, d_scalars, n * copies, scratch, false, c);
}
