/*
 * GPU NTT against the CPU: the O(n^2) reference up to 2^8, the CPU NTT up
 * to 2^24, forward, inverse and coset, both root conventions. Beyond that
 * the CPU NTT is slow, so the largest sizes check a few outputs of the
 * forward transform by evaluating the polynomial at w^k on all CPU
 * threads, and the inverse by a round trip.
 *
 * Options: --small (for compute-sanitizer) runs the sizes up to 2^12 (2^N
 * with --small-top N) and 2^21, the first size of three passes, so that
 * every kernel instance and pass geometry still runs.
 */
#include "cpu/cpu.h"
#include "gpu_test.h"

/* The largest size of the --small run besides 2^21 (--small-top). */
static unsigned small_top = 12;

static void fill_host(zp_fr *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        rand_fr_mont(&a[i]);
}

/* GPU transform of a copy of a (host) into out (host). */
static void gpu_ntt_host(zp_fr *out, const zp_fr *a, unsigned log2n, bool inverse,
                         zp_roots roots, const zp_fr *coset)
{
    size_t n = (size_t)1 << log2n;
    zp__gpu_buf d = gpu_test_alloc(n * sizeof(zp_fr));
    GPU_OK(zp__gpu_upload(T_s, d.ptr, a, n * sizeof(zp_fr)));
    GPU_OK(zp__gpu_ntt(T_s, d.ptr, log2n, inverse, roots, coset));
    GPU_OK(zp__gpu_download(T_s, out, d.ptr, n * sizeof(zp_fr)));
    GPU_OK(zp__gpu_stream_sync(T_s));
    zp__gpu_free(T_gpu, &d);
}

static int count_diff(const zp_fr *x, const zp_fr *y, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += !zp_fr_eq(&x[i], &y[i]);
    return bad;
}

/* count_diff(got, want, n), also printed (with what and the size) when
 * not 0. */
static int report_diff(const zp_fr *got, const zp_fr *want, size_t n, const char *what,
                       unsigned lg)
{
    int bad = count_diff(got, want, n);
    if (bad)
        fprintf(stderr, "  %s 2^%u: %d wrong\n", what, lg, bad);
    return bad;
}

static void test_vs_reference(void)
{
    for (unsigned lg = 1; lg <= 8; lg++) {
        size_t n = (size_t)1 << lg;
        zp_fr *a = xmalloc(n * sizeof *a), *g = xmalloc(n * sizeof *g), *r = xmalloc(n * sizeof *r);
        fill_host(a, n);
        for (int inv = 0; inv < 2; inv++) {
            zp_roots roots = (lg + inv) & 1 ? ZP_ROOTS_BELLPERSON : ZP_ROOTS_SNARKJS;
            zp__ntt_ref(r, a, lg, inv, roots);
            gpu_ntt_host(g, a, lg, inv, roots, NULL);
            int bad = count_diff(g, r, n);
            if (bad)
                fprintf(stderr, "  2^%u inverse=%d: %d wrong\n", lg, inv, bad);
            CHECK_EQ_INT(bad, 0);
        }
        free(a);
        free(g);
        free(r);
    }
}

/* The four transforms (forward, inverse, each plain and coset) of 2^lg
 * random values against the CPU's. */
static void vs_cpu_at(unsigned lg, const zp_fr *coset)
{
    size_t n = (size_t)1 << lg;
    zp_fr *a = xmalloc(n * sizeof *a), *g = xmalloc(n * sizeof *g), *c = xmalloc(n * sizeof *c);
    fill_host(a, n);
    for (int mode = 0; mode < 4; mode++) {
        bool inv = mode & 1, cos = mode & 2;
        zp_roots roots = (lg + mode) & 1 ? ZP_ROOTS_BELLPERSON : ZP_ROOTS_SNARKJS;
        memcpy(c, a, n * sizeof *a);
        zp_err e = cos ? zp__cpu_coset_ntt(c, lg, inv, coset, roots, 0)
                       : zp__cpu_ntt(c, lg, inv, roots, 0);
        CHECK_EQ_INT(e, ZP_OK);
        gpu_ntt_host(g, a, lg, inv, roots, cos ? coset : NULL);
        int bad = count_diff(g, c, n);
        if (bad)
            fprintf(stderr, "  2^%u inverse=%d coset=%d: %d wrong\n", lg, inv, cos, bad);
        CHECK_EQ_INT(bad, 0);
    }
    free(a);
    free(g);
    free(c);
}

/* Sizes 2^1 ... 2^24 (--small: to small_top, then 2^21, the first size
 * of three passes). */
static void test_vs_cpu(void)
{
    unsigned top = T_small ? small_top : 24;
    zp_fr coset;
    zp_fr_from_u64(&coset, 7);
    for (unsigned lg = 1; lg <= top; lg += (lg < 20 ? 1 : 2))
        vs_cpu_at(lg, &coset);
    if (top < 21)
        vs_cpu_at(21, &coset);
}

struct eval_ctx {
    const zp_fr *a;
    zp_fr x;
    zp_fr part[64];
    size_t chunk;
};

/* sum over the chunk of a[j] x^j, by Horner from its top, times x^begin. */
static void eval_chunk(void *vctx, size_t begin, size_t end)
{
    struct eval_ctx *c = vctx;
    for (size_t ch = begin; ch < end; ch++) {
        size_t lo = ch * c->chunk, hi = lo + c->chunk;
        zp_fr acc, xp;
        zp_fr_zero(&acc);
        for (size_t j = hi; j-- > lo;) {
            zp_fr_mul(&acc, &acc, &c->x);
            zp_fr_add(&acc, &acc, &c->a[j]);
        }
        uint64_t e[1] = {lo};
        zp_fr_pow(&xp, &c->x, e, 1);
        zp_fr_mul(&c->part[ch], &acc, &xp);
    }
}

static void eval_poly(zp_fr *out, const zp_fr *a, size_t n, const zp_fr *x)
{
    static struct eval_ctx c;
    c.a = a;
    c.x = *x;
    c.chunk = n / 64;
    zp__parallel_for(64, 1, eval_chunk, &c, 0);
    zp_fr_zero(out);
    for (int i = 0; i < 64; i++)
        zp_fr_add(out, out, &c.part[i]);
}

/* Large sizes: forward checked at a few points, inverse by round trip. */
static void test_large(void)
{
    if (T_small)
        return;
    static const unsigned sizes[] = {26, 27, 28};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        unsigned lg = sizes[si];
        size_t n = (size_t)1 << lg, bytes = n * sizeof(zp_fr);
        zp_roots roots = si & 1 ? ZP_ROOTS_BELLPERSON : ZP_ROOTS_SNARKJS;
        zp__gpu_buf d = gpu_test_alloc(bytes);
        zp_fr *a = xmalloc(bytes), *f = xmalloc(bytes);
        GPU_OK(zp__gpu_fill_random_fr(T_s, d.ptr, n, 1000 + lg));
        GPU_OK(zp__gpu_download(T_s, a, d.ptr, bytes));
        GPU_OK(zp__gpu_ntt(T_s, d.ptr, lg, false, roots, NULL));
        GPU_OK(zp__gpu_download(T_s, f, d.ptr, bytes));
        GPU_OK(zp__gpu_ntt(T_s, d.ptr, lg, true, roots, NULL));
        GPU_OK(zp__gpu_stream_sync(T_s));
        size_t ks[3] = {1, n - 1, (size_t)(check_rand64() & (n - 1))};
        zp_fr w;
        zp_fr_root_of_unity(&w, lg, roots);
        for (int i = 0; i < 3; i++) {
            zp_fr x, y;
            uint64_t e[1] = {ks[i]};
            zp_fr_pow(&x, &w, e, 1);
            eval_poly(&y, a, n, &x);
            CHECK(zp_fr_eq(&y, &f[ks[i]]));
        }
        GPU_OK(zp__gpu_download(T_s, f, d.ptr, bytes));
        GPU_OK(zp__gpu_stream_sync(T_s));
        CHECK_EQ_INT(count_diff(f, a, n), 0);
        /* coset round trip */
        zp_fr g;
        zp_fr_from_u64(&g, 5);
        GPU_OK(zp__gpu_ntt(T_s, d.ptr, lg, false, roots, &g));
        GPU_OK(zp__gpu_ntt(T_s, d.ptr, lg, true, roots, &g));
        GPU_OK(zp__gpu_download(T_s, f, d.ptr, bytes));
        GPU_OK(zp__gpu_stream_sync(T_s));
        CHECK_EQ_INT(count_diff(f, a, n), 0);
        printf("  2^%u: ok\n", lg);
        zp__gpu_free(T_gpu, &d);
        free(a);
        free(f);
    }
}

/* Whether a --small run leaves out 2^lg: it runs the sizes up to
 * small_top and 2^21, the first size of three passes. */
static bool skip_size(unsigned lg)
{
    return T_small && lg > small_top && lg != 21;
}

/* zp__gpu_ntt_to_coset (DIF inverse passes, then DIT forward passes, no bit
 * reversal) against its unfused composition (inverse, then the forward
 * coset transform, each natural in and out), both on the GPU; the
 * composition itself is checked against the CPU above. Sizes of one, two
 * and three passes, both root conventions. */
static void test_to_coset(void)
{
    static const unsigned full[] = {1, 2, 5, 8, 9, 10, 11, 12, 16, 19, 20, 21, 22, 25};
    zp_fr shift;
    zp_fr_from_u64(&shift, 7);
    for (size_t si = 0; si < sizeof full / sizeof *full; si++) {
        unsigned lg = full[si];
        if (skip_size(lg))
            continue;
        size_t n = (size_t)1 << lg, bytes = n * sizeof(zp_fr);
        zp_roots roots = si & 1 ? ZP_ROOTS_BELLPERSON : ZP_ROOTS_SNARKJS;
        zp_fr *a = xmalloc(bytes), *f = xmalloc(bytes), *u = xmalloc(bytes);
        fill_host(a, n);
        zp__gpu_buf d = gpu_test_alloc(bytes);
        GPU_OK(zp__gpu_upload(T_s, d.ptr, a, bytes));
        GPU_OK(zp__gpu_ntt(T_s, d.ptr, lg, true, roots, NULL));
        GPU_OK(zp__gpu_ntt(T_s, d.ptr, lg, false, roots, &shift));
        GPU_OK(zp__gpu_download(T_s, u, d.ptr, bytes));
        GPU_OK(zp__gpu_upload(T_s, d.ptr, a, bytes));
        GPU_OK(zp__gpu_ntt_to_coset(T_s, d.ptr, lg, roots, &shift));
        GPU_OK(zp__gpu_download(T_s, f, d.ptr, bytes));
        GPU_OK(zp__gpu_stream_sync(T_s));
        CHECK_EQ_INT(report_diff(f, u, n, "to_coset", lg), 0);
        /* scaled: the same times a random constant */
        zp_fr sc;
        rand_fr_mont(&sc);
        for (size_t i = 0; i < n; i++)
            zp_fr_mul(&u[i], &u[i], &sc);
        GPU_OK(zp__gpu_upload(T_s, d.ptr, a, bytes));
        GPU_OK(zp__gpu_ntt_to_coset_scaled(T_s, d.ptr, lg, roots, &shift, &sc));
        GPU_OK(zp__gpu_download(T_s, f, d.ptr, bytes));
        GPU_OK(zp__gpu_stream_sync(T_s));
        CHECK_EQ_INT(report_diff(f, u, n, "to_coset_scaled", lg), 0);
        zp__gpu_free(T_gpu, &d);
        free(a);
        free(f);
        free(u);
    }
    zp__gpu_buf d = gpu_test_alloc(64);
    zp_fr zero;
    zp_fr_zero(&zero);
    CHECK_EQ_INT(zp__gpu_ntt_to_coset(T_s, d.ptr, 1, ZP_ROOTS_SNARKJS, &zero), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_ntt_to_coset(T_s, d.ptr, 1, ZP_ROOTS_SNARKJS, NULL), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_ntt_to_coset(T_s, d.ptr, 0, ZP_ROOTS_SNARKJS, &shift), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_ntt_to_coset(T_s, d.ptr, 29, ZP_ROOTS_SNARKJS, &shift),
                 ZP_E_INVALID_ARG);
    zp__gpu_free(T_gpu, &d);
}

/* zp__gpu_ntt_to_coset_mul against to_coset then a pointwise product on
 * the host, sizes of one, two and three passes, both root conventions; the
 * product folds into the forward's last pass from 2^11 (two passes), and
 * is a pass of its own below. */
static void test_to_coset_mul(void)
{
    static const unsigned sizes[] = {1, 2, 9, 10, 11, 12, 16, 20, 21, 22, 25};
    zp_fr shift;
    zp_fr_from_u64(&shift, 7);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        unsigned lg = sizes[si];
        if (skip_size(lg))
            continue;
        size_t n = (size_t)1 << lg, bytes = n * sizeof(zp_fr);
        zp_roots roots = si & 1 ? ZP_ROOTS_SNARKJS : ZP_ROOTS_BELLPERSON;
        zp_fr *a = xmalloc(bytes), *mul = xmalloc(bytes), *f = xmalloc(bytes), *u = xmalloc(bytes);
        fill_host(a, n);
        fill_host(mul, n);
        zp__gpu_buf d = gpu_test_alloc(bytes), dm = gpu_test_alloc(bytes);
        GPU_OK(zp__gpu_upload(T_s, d.ptr, a, bytes));
        GPU_OK(zp__gpu_ntt_to_coset(T_s, d.ptr, lg, roots, &shift));
        GPU_OK(zp__gpu_download(T_s, u, d.ptr, bytes));
        GPU_OK(zp__gpu_upload(T_s, d.ptr, a, bytes));
        GPU_OK(zp__gpu_upload(T_s, dm.ptr, mul, bytes));
        GPU_OK(zp__gpu_ntt_to_coset_mul(T_s, d.ptr, lg, roots, &shift, dm.ptr));
        zp__gpu_ntt_paths paths;
        zp__gpu_ntt_last_paths(T_s, &paths);
        GPU_OK(zp__gpu_download(T_s, f, d.ptr, bytes));
        GPU_OK(zp__gpu_download(T_s, a, dm.ptr, bytes)); /* mul, to see it unchanged */
        GPU_OK(zp__gpu_stream_sync(T_s));
        CHECK_EQ_INT(report_diff(a, mul, n, "to_coset_mul's array", lg), 0);
        for (size_t i = 0; i < n; i++)
            zp_fr_mul(&u[i], &u[i], &mul[i]);
        CHECK_EQ_INT(report_diff(f, u, n, "to_coset_mul", lg), 0);
        CHECK_EQ_INT((int)paths.folded, lg > 10);
        zp__gpu_free(T_gpu, &dm);
        zp__gpu_free(T_gpu, &d);
        free(a);
        free(mul);
        free(f);
        free(u);
    }
    zp__gpu_buf d = gpu_test_alloc(64), dm = gpu_test_alloc(64);
    CHECK_EQ_INT(zp__gpu_ntt_to_coset_mul(T_s, d.ptr, 1, ZP_ROOTS_SNARKJS, &shift, NULL),
                 ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_ntt_to_coset_mul(T_s, d.ptr, 1, ZP_ROOTS_SNARKJS, &shift, d.ptr),
                 ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_ntt_to_coset_mul(T_s, d.ptr, 29, ZP_ROOTS_SNARKJS, &shift, dm.ptr),
                 ZP_E_INVALID_ARG);
    zp__gpu_free(T_gpu, &dm);
    zp__gpu_free(T_gpu, &d);
}

/* zp__gpu_ntt_coset_diff (one bit reversal that also subtracts and
 * scales) against its unfused composition: inverse of c, coset inverse of
 * a, then (a - c) * scale pointwise, all natural order, on the GPU. Sizes
 * of one, two and three passes (n^-1 in the bit reversal or folded into
 * the first twist), both root conventions, with and without a scale. */
static void test_coset_diff(void)
{
    static const unsigned sizes[] = {1, 2, 7, 8, 9, 10, 11, 16, 20, 21, 22, 25};
    zp_fr shift;
    zp_fr_from_u64(&shift, 7);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        unsigned lg = sizes[si];
        if (skip_size(lg))
            continue;
        size_t n = (size_t)1 << lg, bytes = n * sizeof(zp_fr);
        zp_roots roots = si & 1 ? ZP_ROOTS_BELLPERSON : ZP_ROOTS_SNARKJS;
        zp_fr *a = xmalloc(bytes), *c = xmalloc(bytes), *f = xmalloc(bytes), *u = xmalloc(bytes);
        fill_host(a, n);
        fill_host(c, n);
        zp_fr sc;
        rand_fr_mont(&sc);
        const zp_fr *scale = si % 3 ? &sc : NULL;
        zp__gpu_buf da = gpu_test_alloc(bytes), dc = gpu_test_alloc(bytes);
        GPU_OK(zp__gpu_upload(T_s, da.ptr, a, bytes));
        GPU_OK(zp__gpu_upload(T_s, dc.ptr, c, bytes));
        GPU_OK(zp__gpu_ntt(T_s, dc.ptr, lg, true, roots, NULL));
        GPU_OK(zp__gpu_ntt(T_s, da.ptr, lg, true, roots, &shift));
        GPU_OK(zp__gpu_fr_mul_sub_scale(T_s, da.ptr, da.ptr, NULL, dc.ptr, scale, n));
        GPU_OK(zp__gpu_download(T_s, u, da.ptr, bytes));
        GPU_OK(zp__gpu_upload(T_s, da.ptr, a, bytes));
        GPU_OK(zp__gpu_upload(T_s, dc.ptr, c, bytes));
        GPU_OK(zp__gpu_ntt_coset_diff(T_s, da.ptr, dc.ptr, lg, roots, &shift, scale));
        GPU_OK(zp__gpu_download(T_s, f, da.ptr, bytes));
        GPU_OK(zp__gpu_stream_sync(T_s));
        CHECK_EQ_INT(report_diff(f, u, n, "coset_diff", lg), 0);
        zp__gpu_free(T_gpu, &dc);
        zp__gpu_free(T_gpu, &da);
        free(a);
        free(c);
        free(f);
        free(u);
    }
    zp__gpu_buf d = gpu_test_alloc(128);
    zp_fr zero;
    zp_fr_zero(&zero);
    zp_fr *d1 = (zp_fr *)d.ptr + 2;
    CHECK_EQ_INT(zp__gpu_ntt_coset_diff(T_s, d.ptr, d1, 1, ZP_ROOTS_SNARKJS, &zero, NULL),
                 ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_ntt_coset_diff(T_s, d.ptr, NULL, 1, ZP_ROOTS_SNARKJS, &shift, NULL),
                 ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_ntt_coset_diff(T_s, d.ptr, d1, 29, ZP_ROOTS_SNARKJS, &shift, NULL),
                 ZP_E_INVALID_ARG);
    zp__gpu_free(T_gpu, &d);
}

/* zp__gpu_fr_mul_sub and zp__gpu_fr_mul_sub_scale (also without the
 * product or the difference) against the host, on random values, zeros
 * and p - 1 (a length that is not a block multiple). */
static void test_mul_sub(void)
{
    const size_t n = 1000;
    size_t bytes = n * sizeof(zp_fr);
    zp_fr *h[4], *want = xmalloc(bytes), *got = xmalloc(bytes), sc, m1;
    zp__gpu_buf d[4];
    zp_fr_one(&m1);
    zp_fr_neg(&m1, &m1);
    rand_fr_mont(&sc);
    for (int i = 0; i < 4; i++) {
        h[i] = xmalloc(bytes);
        fill_host(h[i], n);
        d[i] = gpu_test_alloc(bytes);
    }
    for (int i = 0; i < 3; i++) {
        zp_fr_zero(&h[i][i]);
        h[i][10 + i] = m1;
        GPU_OK(zp__gpu_upload(T_s, d[i].ptr, h[i], bytes));
    }
    for (int scaled = 0; scaled < 2; scaled++) {
        for (size_t i = 0; i < n; i++) {
            zp_fr_mul(&want[i], &h[0][i], &h[1][i]);
            zp_fr_sub(&want[i], &want[i], &h[2][i]);
            if (scaled)
                zp_fr_mul(&want[i], &want[i], &sc);
        }
        if (scaled)
            GPU_OK(zp__gpu_fr_mul_sub_scale(T_s, d[3].ptr, d[0].ptr, d[1].ptr, d[2].ptr, &sc, n));
        else
            GPU_OK(zp__gpu_fr_mul_sub(T_s, d[3].ptr, d[0].ptr, d[1].ptr, d[2].ptr, n));
        GPU_OK(zp__gpu_download(T_s, got, d[3].ptr, bytes));
        GPU_OK(zp__gpu_stream_sync(T_s));
        CHECK_EQ_INT(count_diff(got, want, n), 0);
    }
    for (int mode = 1; mode < 4; mode++) { /* 1: no product, 2: no difference, 3: neither */
        bool prod = !(mode & 1), diff = !(mode & 2);
        for (size_t i = 0; i < n; i++) {
            want[i] = h[0][i];
            if (prod)
                zp_fr_mul(&want[i], &want[i], &h[1][i]);
            if (diff)
                zp_fr_sub(&want[i], &want[i], &h[2][i]);
            zp_fr_mul(&want[i], &want[i], &sc);
        }
        GPU_OK(zp__gpu_fr_mul_sub_scale(T_s, d[3].ptr, d[0].ptr, prod ? d[1].ptr : NULL,
                                        diff ? d[2].ptr : NULL, &sc, n));
        GPU_OK(zp__gpu_download(T_s, got, d[3].ptr, bytes));
        GPU_OK(zp__gpu_stream_sync(T_s));
        CHECK_EQ_INT(count_diff(got, want, n), 0);
    }
    for (int i = 0; i < 4; i++) {
        zp__gpu_free(T_gpu, &d[i]);
        free(h[i]);
    }
    free(want);
    free(got);
}

/* Which passes ran which kernel: the pass with m = 0 takes several whole
 * transforms a tile where the transform has more than one pass (2^12: 6 +
 * 6 bits, four a tile; 2^20: 10 + 10, two, where the tile is 2^11; 2^21:
 * 7 + 7 + 7, sixteen) and one where it has one (2^9); the forward DIT
 * passes of to_coset count as the forward's. No pass stores times a
 * product or reads full twist tables here. The results are checked against
 * the CPU by the tests above. */
static void test_ntt_paths(void)
{
    zp__gpu_ntt_paths got;
    zp__gpu_info info;
    zp__gpu_get_info(T_gpu, &info);
    static const unsigned lgs[] = {9, 12, 20, 21};
    zp__gpu_buf d = gpu_test_alloc((size_t)32 << 21);
    GPU_OK(zp__gpu_fill_random_fr(T_s, d.ptr, (size_t)1 << 21, 77));
    zp_fr shift;
    zp_fr_from_u64(&shift, 7);
    for (int i = 0; i < 4; i++) {
        for (int to_coset = 0; to_coset < 2; to_coset++) {
            if (to_coset)
                GPU_OK(zp__gpu_ntt_to_coset(T_s, d.ptr, lgs[i], ZP_ROOTS_BELLPERSON, &shift));
            else
                GPU_OK(zp__gpu_ntt(T_s, d.ptr, lgs[i], false, ZP_ROOTS_SNARKJS, NULL));
            zp__gpu_ntt_last_paths(T_s, &got);
            CHECK_EQ_INT((int)got.batched, i > 0 && (lgs[i] != 20 || info.ntt_tile_log == 11));
            CHECK_EQ_INT((int)got.folded, 0);
            CHECK_EQ_INT((int)got.big, 0);
        }
    }
    GPU_OK(zp__gpu_stream_sync(T_s));
    zp__gpu_free(T_gpu, &d);
}

/* One transform of the twist test on the device copy of a: op 0 forward,
 * 1 inverse, 2 coset forward, 3 coset inverse, 4 to_coset, 5 to_coset_mul
 * (by m), 6 coset_diff (with c, scaled); the result to out and the big
 * passes it reported. */
static int twist_op(zp_fr *out, const zp_fr *a, const zp_fr *m, const zp_fr *c, unsigned lg,
                    zp_roots roots, int op, const zp_fr *shift, const zp_fr *scale)
{
    size_t bytes = ((size_t)1 << lg) * sizeof(zp_fr);
    zp__gpu_buf d = gpu_test_alloc(bytes), e = gpu_test_alloc(bytes);
    GPU_OK(zp__gpu_upload(T_s, d.ptr, a, bytes));
    GPU_OK(zp__gpu_upload(T_s, e.ptr, op == 5 ? m : c, bytes));
    if (op < 4)
        GPU_OK(zp__gpu_ntt(T_s, d.ptr, lg, op & 1, roots, op & 2 ? shift : NULL));
    else if (op == 4)
        GPU_OK(zp__gpu_ntt_to_coset(T_s, d.ptr, lg, roots, shift));
    else if (op == 5)
        GPU_OK(zp__gpu_ntt_to_coset_mul(T_s, d.ptr, lg, roots, shift, e.ptr));
    else
        GPU_OK(zp__gpu_ntt_coset_diff(T_s, d.ptr, e.ptr, lg, roots, shift, scale));
    zp__gpu_ntt_paths paths;
    zp__gpu_ntt_last_paths(T_s, &paths);
    GPU_OK(zp__gpu_download(T_s, out, d.ptr, bytes));
    GPU_OK(zp__gpu_stream_sync(T_s));
    zp__gpu_free(T_gpu, &e);
    zp__gpu_free(T_gpu, &d);
    return (int)paths.big;
}

/* The same seven transforms on the CPU. */
static void twist_want(zp_fr *out, const zp_fr *a, const zp_fr *m, const zp_fr *c, unsigned lg,
                       zp_roots roots, int op, const zp_fr *shift, const zp_fr *scale)
{
    size_t n = (size_t)1 << lg;
    memcpy(out, a, n * sizeof *out);
    if (op < 4) {
        CHECK_EQ_INT(op & 2 ? zp__cpu_coset_ntt(out, lg, op & 1, shift, roots, 0)
                            : zp__cpu_ntt(out, lg, op & 1, roots, 0),
                     ZP_OK);
    } else if (op < 6) {
        CHECK_EQ_INT(zp__cpu_ntt(out, lg, true, roots, 0), ZP_OK);
        CHECK_EQ_INT(zp__cpu_coset_ntt(out, lg, false, shift, roots, 0), ZP_OK);
        for (size_t i = 0; op == 5 && i < n; i++)
            zp_fr_mul(&out[i], &out[i], &m[i]);
    } else {
        zp_fr *ci = xmalloc(n * sizeof *ci);
        memcpy(ci, c, n * sizeof *ci);
        CHECK_EQ_INT(zp__cpu_ntt(ci, lg, true, roots, 0), ZP_OK);
        CHECK_EQ_INT(zp__cpu_coset_ntt(out, lg, true, shift, roots, 0), ZP_OK);
        for (size_t i = 0; i < n; i++) {
            zp_fr_sub(&out[i], &out[i], &ci[i]);
            zp_fr_mul(&out[i], &out[i], scale);
        }
        free(ci);
    }
}

/* Full twist tables (zp__gpu_ntt_twist_build) set on the stream: every
 * transform kind against the CPU at 2^19 (two passes, the first 10 bits)
 * and 2^21 (three of 7), both root conventions, with the tables' first
 * pass reported; tables of another size or of the other roots are not
 * used (and the results still right); the sizes without tables refused;
 * the arena as before once they are freed. */
static void test_twist(void)
{
    static const unsigned lgs[] = {19, 21};
    CHECK(zp__gpu_ntt_twist_bytes(18) == 0 && zp__gpu_ntt_twist_bytes(29) == 0);
    CHECK(zp__gpu_ntt_twist_bytes(19) == (uint64_t)64 << 19);
    zp__gpu_twist t;
    CHECK_EQ_INT(zp__gpu_ntt_twist_build(T_s, &t, 18, ZP_ROOTS_SNARKJS), ZP_E_INVALID_ARG);
    CHECK(t.mem.ptr == NULL);
    zp_fr shift, scale;
    zp_fr_from_u64(&shift, 7);
    rand_fr_mont(&scale);
    for (size_t si = 0; si < 2; si++) {
        unsigned lg = lgs[si];
        if (skip_size(lg))
            continue;
        size_t n = (size_t)1 << lg, bytes = n * sizeof(zp_fr);
        zp_fr *a = xmalloc(bytes), *m = xmalloc(bytes), *c = xmalloc(bytes),
              *got = xmalloc(bytes), *want = xmalloc(bytes);
        fill_host(a, n);
        fill_host(m, n);
        fill_host(c, n);
        for (int r = 0; r < 2; r++) {
            zp_roots roots = r ? ZP_ROOTS_BELLPERSON : ZP_ROOTS_SNARKJS;
            zp__gpu_info before, after;
            zp__gpu_get_info(T_gpu, &before);
            GPU_OK(zp__gpu_ntt_twist_build(T_s, &t, lg, roots));
            zp__gpu_stream_set_twist(T_s, &t);
            for (int op = 0; op < 7; op++) {
                int big = twist_op(got, a, m, c, lg, roots, op, &shift, &scale);
                twist_want(want, a, m, c, lg, roots, op, &shift, &scale);
                char what[40];
                snprintf(what, sizeof what, "twist op %d roots %d", op, r);
                CHECK_EQ_INT(report_diff(got, want, n, what, lg), 0);
                CHECK_EQ_INT(big, 1);
                /* Tables for other roots: not read. */
                big = twist_op(got, a, m, c, lg, r ? ZP_ROOTS_SNARKJS : ZP_ROOTS_BELLPERSON, op,
                               &shift, &scale);
                CHECK_EQ_INT(big, 0);
            }
            /* Tables of another size: not read, the result still right. */
            int big = twist_op(got, a, m, c, lg - 1, roots, 0, &shift, &scale);
            twist_want(want, a, m, c, lg - 1, roots, 0, &shift, &scale);
            CHECK_EQ_INT(report_diff(got, want, n / 2, "twist, another size", lg - 1), 0);
            CHECK_EQ_INT(big, 0);
            zp__gpu_stream_set_twist(T_s, NULL);
            CHECK_EQ_INT(twist_op(got, a, m, c, lg, roots, 0, &shift, &scale), 0);
            zp__gpu_ntt_twist_free(T_gpu, &t);
            CHECK(t.mem.ptr == NULL);
            zp__gpu_get_info(T_gpu, &after);
            CHECK(after.arena_used == before.arena_used);
        }
        free(a);
        free(m);
        free(c);
        free(got);
        free(want);
    }
}

static void test_args(void)
{
    zp__gpu_buf d = gpu_test_alloc(64);
    CHECK_EQ_INT(zp__gpu_ntt(T_s, d.ptr, 0, false, ZP_ROOTS_SNARKJS, NULL), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_ntt(T_s, d.ptr, 29, false, ZP_ROOTS_SNARKJS, NULL), ZP_E_INVALID_ARG);
    zp_fr zero;
    zp_fr_zero(&zero);
    CHECK_EQ_INT(zp__gpu_ntt(T_s, d.ptr, 1, false, ZP_ROOTS_SNARKJS, &zero), ZP_E_INVALID_ARG);
    zp__gpu_free(T_gpu, &d);
}

int main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--small-top")) {
            int v = atoi(argv[i + 1]);
            if (v < 1 || v > 24) {
                fprintf(stderr, "--small-top: 1 to 24\n");
                return 2;
            }
            small_top = (unsigned)v;
        }
    gpu_test_open(argc, argv, 0);
    RUN(test_vs_reference);
    RUN(test_vs_cpu);
    RUN(test_large);
    RUN(test_to_coset);
    RUN(test_to_coset_mul);
    RUN(test_coset_diff);
    RUN(test_mul_sub);
    RUN(test_ntt_paths);
    RUN(test_twist);
    RUN(test_args);
    gpu_test_close();
    return FINISH();
}
