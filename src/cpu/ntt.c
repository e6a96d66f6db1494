/*
 * The Fr NTT of the CPU backend.
 *
 * Every size uses decimation in frequency (natural order in, bit-reversed
 * order out) followed by one bit-reversal permutation. Small sizes run the
 * radix-2 DIF directly. Larger ones (2^k, k > DIRECT_MAX) use the four-step
 * split n = 2^M * 2^L, which is the same DIF with its stages regrouped so
 * that every pass works on data that fits in cache:
 *
 *   view a as 2^M rows of 2^L (index i = i_lo + 2^L i_hi);
 *   1. columns: for each i_lo, a DIF of length 2^M over i_hi (gathered into
 *      a contiguous buffer a few columns at a time), then the element that
 *      holds frequency f is multiplied by w^(i_lo * f);
 *   2. rows: a DIF of length 2^L on each contiguous row;
 *   3. bit-reverse the whole array.
 *
 * Why this equals the DIF: the first M stages of a length-n DIF only mix
 * indices with the same low L bits (the columns), and the last L stages
 * stay inside blocks of 2^L (the rows). The element for output frequency
 * f = f_lo + 2^M f_hi ends at rev_L(f_hi) + 2^L rev_M(f_lo) = rev_k(f), so
 * a single global bit reversal puts everything in natural order.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/ntt_ifma.h"

/* Up to 2^DIRECT_MAX elements (32 KiB) the plain DIF runs in L1/L2. */
#define DIRECT_MAX 10
/* A column batch buffer holds about this many elements (1 MiB). */
#define COL_BUF_ELEMS ((size_t)1 << 15)

static size_t bitrev(size_t x, unsigned bits)
{
    if (bits == 0)
        return 0;
    uint64_t v = (uint64_t)x;
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
    v = __builtin_bswap64(v);
    return (size_t)(v >> (64 - bits));
}

/* tw[j] = w^j for j < count. */
static void powers(zp_fr *tw, const zp_fr *w, size_t count)
{
    if (count == 0)
        return;
    zp_fr_one(&tw[0]);
    for (size_t j = 1; j < count; j++)
        zp_fr_mul(&tw[j], &tw[j - 1], w);
}

/*
 * Radix-2 DIF of length 2^m in place, output bit-reversed. tw[j * stride]
 * must be w_(2^m)^j for j < 2^(m-1) (stride lets a table made for a larger
 * power of two serve a smaller one).
 */
static void dif(zp_fr *a, unsigned m, const zp_fr *tw, size_t stride)
{
    size_t n = (size_t)1 << m;
    for (size_t h = n >> 1, step = stride; h >= 1; h >>= 1, step <<= 1) {
        for (size_t s = 0; s < n; s += 2 * h) {
            zp_fr *x = a + s, *y = a + s + h;
            zp_fr u = x[0];
            zp_fr_add(&x[0], &u, &y[0]);
            zp_fr_sub(&y[0], &u, &y[0]);
            for (size_t j = 1; j < h; j++) {
                zp_fr t;
                u = x[j];
                zp_fr_add(&x[j], &u, &y[j]);
                zp_fr_sub(&t, &u, &y[j]);
                zp_fr_mul(&y[j], &t, &tw[j * step]);
            }
        }
    }
}

/* dif (stride 1) on the lanes when there is a lane table t. */
static void dif_fast(zp_fr *a, unsigned m, const zp_fr *tw, const zp__fr52x8 *t)
{
    if (t)
        zp__ntt8_dif(a, m, t);
    else
        dif(a, m, tw, 1);
}

static void scale(zp_fr *a, size_t n, const zp_fr *s)
{
    if (zp__ntt_ifma) {
        zp__ntt8_scale(a, n, s, NULL);
        return;
    }
    for (size_t i = 0; i < n; i++)
        zp_fr_mul(&a[i], &a[i], s);
}

/* --------------------------------------------------------- four-step */

typedef struct ntt_plan {
    zp_fr *a;
    unsigned k, lo, hi;   /* n = 2^k, rows of 2^lo, columns of 2^hi */
    zp_fr w;              /* primitive 2^k-th root (inverted for inverse) */
    zp_fr ninv;           /* n^-1, used only when inverse */
    bool inverse;         /* scale the output by n^-1 */
    const zp_fr *tw_hi;   /* w_(2^hi)^j, j < 2^(hi-1) */
    const zp_fr *tw_lo;   /* w_(2^lo)^j, j < 2^(lo-1) */
    size_t batch;         /* columns per gather */
    size_t ntasks;        /* column tasks; each owns bufs[task] */
    zp_fr **bufs;
    /* With zp__ntt_ifma (else NULL): the lane tables of tw_hi and tw_lo,
     * the column twist's step w^rev(f) and each task's running twist
     * (w^c)^rev(f), 2^(hi-3) vectors each (ntt_ifma.h). */
    zp__fr52x8 *tw8_hi, *tw8_lo, *twist_step, **twists;
} ntt_plan;

/* The scalar DIF and twist of columns c0 .. c0+batch-1 (gathered into
 * buf): the element that holds frequency f in column c times w^(c f). */
static void columns_scalar(const ntt_plan *p, zp_fr *buf, size_t c0)
{
    size_t rows = (size_t)1 << p->hi;
    zp_fr base; /* w^c for the current column c */
    uint64_t e = c0;
    zp_fr_pow(&base, &p->w, &e, 1);
    for (size_t b = 0; b < p->batch; b++) {
        zp_fr *col = buf + b * rows;
        dif(col, p->hi, p->tw_hi, 1);
        /* Walk f in natural order so each power is one multiply. */
        zp_fr cur;
        zp_fr_one(&cur);
        for (size_t f = 1; f < rows; f++) {
            zp_fr_mul(&cur, &cur, &base);
            zp_fr *x = &col[bitrev(f, p->hi)];
            zp_fr_mul(x, x, &cur);
        }
        zp_fr_mul(&base, &base, &p->w);
    }
}

/*
 * Columns c0 .. c0+batch-1: gather, DIF, twiddle by w^(c * f) where f is
 * the frequency held at each position, scatter back. On the lanes, twist
 * holds (w^c0)^rev(i) for position i and leaves with the next column's.
 */
static void column_batch(const ntt_plan *p, zp_fr *buf, zp__fr52x8 *twist, size_t c0)
{
    size_t rows = (size_t)1 << p->hi, stride = (size_t)1 << p->lo;
    for (size_t r = 0; r < rows; r++)
        for (size_t b = 0; b < p->batch; b++)
            buf[b * rows + r] = p->a[r * stride + c0 + b];

    if (!twist) {
        columns_scalar(p, buf, c0);
    } else {
        for (size_t b = 0; b < p->batch; b++) {
            zp__ntt8_dif(buf + b * rows, p->hi, p->tw8_hi);
            zp__ntt8_twist(buf + b * rows, p->hi, twist, p->twist_step);
        }
    }

    for (size_t r = 0; r < rows; r++)
        for (size_t b = 0; b < p->batch; b++)
            p->a[r * stride + c0 + b] = buf[b * rows + r];
}

/* Task t owns buffer t and a fixed share of the column batches, so all
 * scratch is allocated before the array is touched. */
static void columns_task(void *ctx, size_t begin, size_t end)
{
    const ntt_plan *p = ctx;
    size_t nbatch = ((size_t)1 << p->lo) / p->batch;
    for (size_t t = begin; t < end; t++) {
        size_t b0 = nbatch * t / p->ntasks, b1 = nbatch * (t + 1) / p->ntasks;
        zp__fr52x8 *twist = p->twists ? p->twists[t] : NULL;
        if (twist && b0 < b1) { /* the twist of the task's first column */
            zp_fr base;
            uint64_t e = b0 * p->batch;
            zp_fr_pow(&base, &p->w, &e, 1);
            zp__ntt8_bitrev_powers(twist, p->hi, &base);
        }
        for (size_t b = b0; b < b1; b++)
            column_batch(p, p->bufs[t], twist, b * p->batch);
    }
}

static void rows_task(void *ctx, size_t begin, size_t end)
{
    const ntt_plan *p = ctx;
    size_t len = (size_t)1 << p->lo;
    for (size_t r = begin; r < end; r++) {
        zp_fr *row = p->a + r * len;
        dif_fast(row, p->lo, p->tw_lo, p->tw8_lo);
        if (p->inverse)
            scale(row, len, &p->ninv);
    }
}

typedef struct bitrev_ctx {
    zp_fr *a;
    unsigned k;
} bitrev_ctx;

/* Each pair {i, rev(i)} is swapped by the task that holds its smaller index,
 * so tasks never touch the same pair. */
static void bitrev_task(void *ctx, size_t begin, size_t end)
{
    const bitrev_ctx *c = ctx;
    for (size_t i = begin; i < end; i++) {
        size_t j = bitrev(i, c->k);
        if (i < j) {
            zp_fr t = c->a[i];
            c->a[i] = c->a[j];
            c->a[j] = t;
        }
    }
}

static void bitrev_permute(zp_fr *a, unsigned k, int threads)
{
    bitrev_ctx c = {a, k};
    zp__parallel_for((size_t)1 << k, (size_t)1 << 14, bitrev_task, &c, threads);
}

static zp__fr52x8 *lanes_alloc(size_t count)
{
    return aligned_alloc(64, count * sizeof(zp__fr52x8)); /* 320 bytes each */
}

/* The lane tables of a plan whose tw_hi and tw_lo are set (hi, lo >= 3);
 * false when out of memory (plan_lanes_free releases a partial set). */
static bool plan_lanes(ntt_plan *p)
{
    size_t nv = (size_t)1 << (p->hi - 3);
    p->tw8_hi = lanes_alloc(zp__ntt8_table_len(p->hi));
    p->tw8_lo = lanes_alloc(zp__ntt8_table_len(p->lo));
    p->twist_step = lanes_alloc(nv);
    p->twists = calloc(p->ntasks, sizeof *p->twists);
    if (!p->tw8_hi || !p->tw8_lo || !p->twist_step || !p->twists)
        return false;
    for (size_t i = 0; i < p->ntasks; i++)
        if (!(p->twists[i] = lanes_alloc(nv)))
            return false;
    zp__ntt8_table(p->tw8_hi, p->hi, p->tw_hi);
    zp__ntt8_table(p->tw8_lo, p->lo, p->tw_lo);
    zp__ntt8_bitrev_powers(p->twist_step, p->hi, &p->w);
    return true;
}

static void plan_lanes_free(ntt_plan *p)
{
    if (p->twists)
        for (size_t i = 0; i < p->ntasks; i++)
            free(p->twists[i]);
    free(p->twists);
    free(p->twist_step);
    free(p->tw8_lo);
    free(p->tw8_hi);
}

static zp_err four_step(ntt_plan *p, int threads)
{
    size_t cols = (size_t)1 << p->lo, rows = (size_t)1 << p->hi;
    p->batch = COL_BUF_ELEMS / rows;
    if (p->batch < 2)
        p->batch = 2; /* a 64-byte line holds two elements */
    if (p->batch > 16)
        p->batch = 16;
    if (p->batch > cols)
        p->batch = cols;
    size_t nbatch = cols / p->batch;
    size_t t = (size_t)zp__cpu_threads(threads);
    p->ntasks = t < nbatch ? t : nbatch;

    zp_err err = ZP_E_NOMEM;
    zp_fr *tw_hi = malloc((rows / 2 + 1) * sizeof *tw_hi);
    zp_fr *tw_lo = malloc((cols / 2 + 1) * sizeof *tw_lo);
    p->bufs = calloc(p->ntasks, sizeof *p->bufs);
    if (!tw_hi || !tw_lo || !p->bufs)
        goto out;
    for (size_t i = 0; i < p->ntasks; i++)
        if (!(p->bufs[i] = malloc(p->batch * rows * sizeof(zp_fr))))
            goto out;

    zp_fr w_hi, w_lo; /* w^(2^lo) has order 2^hi; w^(2^hi) has order 2^lo */
    uint64_t e_hi = (uint64_t)1 << p->lo, e_lo = (uint64_t)1 << p->hi;
    zp_fr_pow(&w_hi, &p->w, &e_hi, 1);
    zp_fr_pow(&w_lo, &p->w, &e_lo, 1);
    powers(tw_hi, &w_hi, rows / 2);
    powers(tw_lo, &w_lo, cols / 2);
    p->tw_hi = tw_hi;
    p->tw_lo = tw_lo;
    if (zp__ntt_ifma && !plan_lanes(p))
        goto out;

    zp__parallel_for(p->ntasks, 1, columns_task, p, threads);
    zp__parallel_for(rows, 1, rows_task, p, threads);
    bitrev_permute(p->a, p->k, threads);
    err = ZP_OK;
out:
    if (p->bufs)
        for (size_t i = 0; i < p->ntasks; i++)
            free(p->bufs[i]);
    free(p->bufs);
    plan_lanes_free(p);
    free(tw_hi);
    free(tw_lo);
    return err;
}

/* ------------------------------------------------------------ public */

static void ntt_root(zp_fr *w, unsigned log2n, bool inverse, zp_roots roots)
{
    zp_fr_root_of_unity(w, log2n, roots);
    if (inverse)
        zp_fr_inv(w, w);
}

static void n_inverse(zp_fr *out, unsigned log2n)
{
    zp_fr n;
    zp_fr_one(&n);
    for (unsigned i = 0; i < log2n; i++)
        zp_fr_dbl(&n, &n);
    zp_fr_inv(out, &n);
}

static zp_err direct(zp_fr *a, unsigned k, const zp_fr *w, bool inverse)
{
    size_t n = (size_t)1 << k;
    zp_fr tw[((size_t)1 << DIRECT_MAX) / 2 + 1];
    zp_fr_one(&tw[0]); /* n = 1 needs no twiddle; this keeps the table defined */
    powers(tw, w, n / 2);
    zp__fr52x8 *t = NULL;
    if (zp__ntt_ifma && k >= ZP_NTT8_MIN_LOG2) {
        if (!(t = lanes_alloc(zp__ntt8_table_len(k))))
            return ZP_E_NOMEM;
        zp__ntt8_table(t, k, tw);
    }
    dif_fast(a, k, tw, t);
    free(t);
    for (size_t i = 0; i < n; i++) {
        size_t j = bitrev(i, k);
        if (i < j) {
            zp_fr t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    if (inverse) {
        zp_fr ninv;
        n_inverse(&ninv, k);
        scale(a, n, &ninv);
    }
    return ZP_OK;
}

static bool bad_size(unsigned log2n)
{
    return log2n > ZP_NTT_MAX_LOG2 || (log2n >= 8 * sizeof(size_t) - 6);
}

/* zp__cpu_ntt, where an inverse leaves out its n^-1 unless scaled. */
static zp_err ntt(zp_fr *a, unsigned log2n, bool inverse, bool scaled, zp_roots roots,
                  int threads)
{
    zp_fr w;
    ntt_root(&w, log2n, inverse, roots);
    scaled = scaled && inverse;
    if (log2n <= DIRECT_MAX)
        return direct(a, log2n, &w, scaled);
    ntt_plan p = {.a = a, .k = log2n, .lo = log2n / 2, .hi = log2n - log2n / 2,
                  .w = w, .inverse = scaled};
    if (scaled)
        n_inverse(&p.ninv, log2n);
    return four_step(&p, threads);
}

zp_err zp__cpu_ntt(zp_fr *a, unsigned log2n, bool inverse, zp_roots roots, int threads)
{
    if (bad_size(log2n))
        return ZP_E_INVALID_ARG;
    return ntt(a, log2n, inverse, true, roots, threads);
}

typedef struct scale_ctx {
    zp_fr *a;
    zp_fr c, g;
} scale_ctx;

static void scale_task(void *ctx, size_t begin, size_t end)
{
    const scale_ctx *c = ctx;
    zp_fr cur; /* c g^i */
    uint64_t e = begin;
    zp_fr_pow(&cur, &c->g, &e, 1);
    zp_fr_mul(&cur, &cur, &c->c);
    if (zp__ntt_ifma) {
        zp__ntt8_scale(c->a + begin, end - begin, &cur, &c->g);
        return;
    }
    for (size_t i = begin; i < end; i++) {
        zp_fr_mul(&c->a[i], &c->a[i], &cur);
        zp_fr_mul(&cur, &cur, &c->g);
    }
}

/* a[i] <- a[i] c g^i for i < n. */
static void scale_by_powers(zp_fr *a, size_t n, const zp_fr *c, const zp_fr *g, int threads)
{
    scale_ctx x = {a, *c, *g};
    zp__parallel_for(n, (size_t)1 << 14, scale_task, &x, threads);
}

void zp__cpu_scale_by_powers(zp_fr *a, size_t n, const zp_fr *g, int threads)
{
    zp_fr one;
    zp_fr_one(&one);
    scale_by_powers(a, n, &one, g, threads);
}

/* The inverse's n^-1 rides on the coset scaling: one pass over a, one
 * product an element, instead of two of each. */
zp_err zp__cpu_coset_ntt(zp_fr *a, unsigned log2n, bool inverse, const zp_fr *g,
                         zp_roots roots, int threads)
{
    if (bad_size(log2n))
        return ZP_E_INVALID_ARG;
    size_t n = (size_t)1 << log2n;
    zp_fr one;
    zp_fr_one(&one);
    if (!inverse) {
        scale_by_powers(a, n, &one, g, threads);
        return ntt(a, log2n, false, false, roots, threads);
    }
    zp_err err = ntt(a, log2n, true, false, roots, threads);
    if (err)
        return err;
    zp_fr ginv, ninv;
    zp_fr_inv(&ginv, g);
    n_inverse(&ninv, log2n);
    scale_by_powers(a, n, &ninv, &ginv, threads);
    return ZP_OK;
}

zp_err zp__cpu_ntt_to_coset(zp_fr *a, unsigned log2n, const zp_fr *g, zp_roots roots,
                            int threads)
{
    if (bad_size(log2n))
        return ZP_E_INVALID_ARG;
    zp_err err = ntt(a, log2n, true, false, roots, threads);
    if (err)
        return err;
    zp_fr ninv;
    n_inverse(&ninv, log2n);
    scale_by_powers(a, (size_t)1 << log2n, &ninv, g, threads);
    return ntt(a, log2n, false, false, roots, threads);
}

zp_err zp__ntt_ref(zp_fr *out, const zp_fr *a, unsigned log2n, bool inverse, zp_roots roots)
{
    if (bad_size(log2n))
        return ZP_E_INVALID_ARG;
    size_t n = (size_t)1 << log2n;
    zp_fr w, ninv, *pw = malloc(n * sizeof *pw);
    if (!pw)
        return ZP_E_NOMEM;
    ntt_root(&w, log2n, inverse, roots);
    powers(pw, &w, n);
    /* n^-1 computed differently from the fast path, so that a bug there
     * cannot hide in both. */
    zp_fr_from_u64(&ninv, (uint64_t)n);
    zp_fr_inv(&ninv, &ninv);
    for (size_t k = 0; k < n; k++) {
        zp_fr acc, t;
        zp_fr_zero(&acc);
        for (size_t j = 0; j < n; j++) { /* w^(jk) = w^(jk mod n) */
            zp_fr_mul(&t, &a[j], &pw[(j * k) & (n - 1)]);
            zp_fr_add(&acc, &acc, &t);
        }
        if (inverse)
            zp_fr_mul(&acc, &acc, &ninv);
        out[k] = acc;
    }
    free(pw);
    return ZP_OK;
}
