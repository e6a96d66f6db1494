/*
 * Multi-scalar multiplication on the CPU. The algorithm lives once in
 * msm_impl.h and is instantiated below for G1 and G2; this file holds what
 * both share: scalar classification, signed digits and the choice of window
 * size and work split.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/msm_ifma.h"
#include "math/field.h"
#include "math/mont.h"

#define MSM_MAX_WINDOW 16
/* Pairs per split-and-Pippenger slice: dense indices are uint32_t. */
#define MSM_SLICE ((size_t)1 << 31)

static bool msm_is_zero(const zp_fr *s)
{
    return (s->l[0] | s->l[1] | s->l[2] | s->l[3]) == 0;
}

static bool msm_is_one(const zp_fr *s)
{
    return s->l[0] == 1 && (s->l[1] | s->l[2] | s->l[3]) == 0;
}

/* Bits [pos, pos + len) of a 256-bit integer, len <= 32; zero above 256. */
static uint64_t msm_bits_at(const uint64_t *s, unsigned pos, unsigned len)
{
    if (pos >= 256)
        return 0;
    unsigned limb = pos / 64, off = pos % 64;
    uint64_t v = s[limb] >> off;
    if (off + len > 64 && limb + 1 < 4)
        v |= s[limb + 1] << (64 - off);
    return v & (((uint64_t)1 << len) - 1);
}

/* The signed digit of window w (see msm_impl.h): in [-2^(c-1), 2^(c-1)]. */
static int msm_digit(const uint64_t *s, unsigned w, unsigned c)
{
    unsigned pos = w * c;
    /* c + 1 bits starting one below the window: the borrow bit comes along. */
    uint64_t x = pos ? msm_bits_at(s, pos - 1, c + 1) : msm_bits_at(s, 0, c) << 1;
    int raw = (int)(x >> 1), low = (int)(x & 1), top = (int)(x >> c);
    return raw + low - (top << c);
}

/* Word-level tests and the negation of coordinates, inlined for the
 * per-pair path (the library's zp_fp_eq / _is_zero / _neg are calls into
 * other files, each a few percent of a proof as calls; zero tests and the
 * negation are mont.h's). Coordinates are n words, all
 * fully reduced, in any Montgomery form: equality and zero are word tests,
 * and -y = p - y in every form. */
static inline bool msm_words_eq(const uint64_t *a, const uint64_t *b, size_t n)
{
    if (a[0] != b[0])
        return false; /* the common case: one word decides */
    for (size_t i = 1; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* out = -a mod p for each Fp in a (n words, a multiple of 6). */
static inline void msm_fp_neg_words(uint64_t *out, const uint64_t *a, size_t n)
{
    for (size_t f = 0; f < n; f += 6)
        zp__mod_neg(out + f, a + f, ZP_FP_MODULUS.l, 6);
}

/* ------------------------------------------------ bit length of scalars */

typedef struct bits_ctx {
    const zp_fr *scalars;
    const uint32_t *idx;
    size_t n, nchunks;
    zp_fr *ors; /* one OR of all scalars per chunk */
} bits_ctx;

static void bits_task(void *ctx, size_t begin, size_t end)
{
    bits_ctx *b = ctx;
    for (size_t t = begin; t < end; t++) {
        size_t i0 = b->n * t / b->nchunks, i1 = b->n * (t + 1) / b->nchunks;
        zp_fr acc = {{0}};
        for (size_t i = i0; i < i1; i++) {
            const zp_fr *s = &b->scalars[b->idx ? b->idx[i] : i];
            for (int l = 0; l < 4; l++)
                acc.l[l] |= s->l[l];
        }
        b->ors[t] = acc;
    }
}

#define BITS_CHUNKS 64

/* The bit length of the largest scalar (0 when all are zero): windows above
 * it would hold only zero digits. */
static unsigned msm_bits(const zp_fr *scalars, const uint32_t *idx, size_t n, int threads)
{
    zp_fr ors[BITS_CHUNKS];
    bits_ctx b = {scalars, idx, n, n < BITS_CHUNKS ? n : BITS_CHUNKS, ors};
    zp__parallel_for(b.nchunks, 1, bits_task, &b, threads);
    zp_fr acc = {{0}};
    for (size_t t = 0; t < b.nchunks; t++)
        for (int l = 0; l < 4; l++)
            acc.l[l] |= ors[t].l[l];
    for (int l = 3; l >= 0; l--)
        if (acc.l[l])
            return (unsigned)(64 * l + 64 - __builtin_clzll(acc.l[l]));
    return 0;
}

/* ------------------------------------------------ window and work split */

typedef struct msm_layout {
    unsigned c;      /* window size, 1..MSM_MAX_WINDOW */
    unsigned nw;     /* windows: nw * c > bits, so the top digit has no carry */
    size_t nranges;  /* point ranges per window (one task each) */
    bool affine;     /* buckets by batched affine additions (else XYZZ) */
    size_t cap;      /* affine: additions per shared inversion */
} msm_layout;

static unsigned windows_for(unsigned bits, unsigned c) { return bits / c + 1; }

/*
 * Costs in field multiplications (squarings counted as one). A mixed XYZZ
 * add is 8M + 2S. A batched affine add is 3M for its share of Montgomery's
 * trick plus 2M + 1S for the slope and the new point, with one inversion
 * (~100M, variable time) per batch. Folding a window's buckets by running
 * sums costs a bucket add plus a full XYZZ add (12M + 2S) per bucket.
 */
#define COST_XYZZ_ADD 10.0
#define COST_AFFINE_ADD 6.5
#define COST_FOLD_XYZZ 28.0
#define COST_FOLD_AFFINE 24.0
#define COST_INV 120.0
/* Below this many buckets a batch is too small to share one inversion. */
#define MSM_AFFINE_MIN_C 5
#define MSM_BATCH_MAX 256

/* Batch capacity for 2^(c-1) buckets: a quarter of the buckets keeps
 * collisions (a bucket already in the batch) rare enough. */
static size_t batch_cap(unsigned c)
{
    size_t cap = ((size_t)1 << (c - 1)) / 4;
    return cap < 8 ? 8 : cap > MSM_BATCH_MAX ? MSM_BATCH_MAX : cap;
}

#ifndef COST_AFFINE_ADD_IFMA
#define COST_AFFINE_ADD_IFMA 3.0
#endif

static double window_cost(size_t n, unsigned bits, unsigned c, bool affine)
{
    double nb = (double)((size_t)1 << (c - 1)), fn = (double)n, per;
    double add = zp__msm_ifma ? COST_AFFINE_ADD_IFMA : COST_AFFINE_ADD;
    if (affine)
        per = fn * add + fn / (double)batch_cap(c) * COST_INV +
              nb * COST_FOLD_AFFINE;
    else
        per = fn * COST_XYZZ_ADD + nb * COST_FOLD_XYZZ;
    return (double)windows_for(bits, c) * per;
}

/* The cheaper bucket method for a given window size. */
static bool best_mode(size_t n, unsigned bits, unsigned c)
{
    return c >= MSM_AFFINE_MIN_C &&
           window_cost(n, bits, c, true) < window_cost(n, bits, c, false);
}

static unsigned best_window(size_t n, unsigned bits)
{
    unsigned best = 1;
    double best_cost = window_cost(n, bits, 1, false);
    for (unsigned c = 2; c <= MSM_MAX_WINDOW; c++) {
        double t = window_cost(n, bits, c, best_mode(n, bits, c));
        if (t < best_cost) {
            best = c;
            best_cost = t;
        }
    }
    return best;
}

unsigned zp__msm_window(size_t n) { return best_window(n, 255); }

/*
 * Tasks are (window, range) pairs run greedily by `threads` workers. With
 * few windows per thread, ranges split each window further; every range
 * pays its own bucket fold, so pick the count with the least estimated
 * finishing time.
 */
static void msm_plan(msm_layout *lay, size_t n, unsigned bits, unsigned window,
                     zp__msm_mode mode, size_t cap, int threads)
{
    lay->c = window ? window : best_window(n, bits);
    lay->nw = windows_for(bits, lay->c);
    lay->affine = mode == ZP__MSM_AFFINE ||
                  (mode == ZP__MSM_AUTO && best_mode(n, bits, lay->c));
    lay->cap = cap ? (cap < 65536 ? cap : 65536) : batch_cap(lay->c);
    lay->nranges = 1;
    double best = 0, nb = (double)((size_t)1 << (lay->c - 1));
    for (size_t nr = 1; nr <= 64 && nr <= n; nr++) {
        size_t tasks = lay->nw * nr, rounds = (tasks + (size_t)threads - 1) / (size_t)threads;
        double t = (double)rounds * ((double)n / (double)nr + 2 * nb);
        if (nr == 1 || t < best) {
            best = t;
            lay->nranges = nr;
        }
    }
}

/* 1/a in Fp2 through the norm, with the variable-time Fp inversion: the
 * MSM inverts only public values (differences of key points). */
void zp__fp2_inv_vartime(zp_fp2 *out, const zp_fp2 *a)
{
    zp_fp t0, t1, nrm;
    zp_fp_sqr(&t0, &a->c0);
    zp_fp_sqr(&t1, &a->c1);
    zp_fp_add(&nrm, &t0, &t1);
    zp__fp_inv_vartime(&nrm, &nrm);
    zp_fp_mul(&out->c0, &a->c0, &nrm);
    zp_fp_mul(&t1, &a->c1, &nrm);
    zp_fp_neg(&out->c1, &t1);
}

/* Bucket states of the affine method (msm_impl.h). */
enum { BK_FULL = 1, BK_BUSY = 2, BK_SPILL = 4 };

/* ------------------------------------------------ dense index list */

typedef struct dense_ctx {
    const zp_fr *scalars;
    size_t n, nblocks;
    size_t *offs;   /* per block: its dense count, then its first slot */
    uint32_t *idx;  /* NULL in the counting pass */
} dense_ctx;

static void dense_task(void *ctx, size_t begin, size_t end)
{
    dense_ctx *d = ctx;
    for (size_t t = begin; t < end; t++) {
        size_t i0 = d->n * t / d->nblocks, i1 = d->n * (t + 1) / d->nblocks, k = 0;
        for (size_t i = i0; i < i1; i++) {
            const zp_fr *s = &d->scalars[i];
            if (msm_is_zero(s) || msm_is_one(s))
                continue;
            if (d->idx)
                d->idx[d->offs[t] + k] = (uint32_t)i;
            k++;
        }
        if (!d->idx)
            d->offs[t] = k;
    }
}

/* *idx = the indices i < n (n <= 2^32) whose scalar is neither 0 nor 1, in
 * increasing order; the caller frees it. */
static zp_err msm_dense_indices(uint32_t **idx, size_t *ndense, const zp_fr *scalars,
                                size_t n, int threads)
{
    dense_ctx d = {scalars, n, 0, NULL, NULL};
    d.nblocks = (size_t)zp__cpu_threads(threads) * 8;
    if (d.nblocks > n)
        d.nblocks = n ? n : 1;
    d.offs = malloc(d.nblocks * sizeof *d.offs);
    if (!d.offs)
        return ZP_E_NOMEM;
    zp__parallel_for(d.nblocks, 1, dense_task, &d, threads);
    size_t total = 0;
    for (size_t t = 0; t < d.nblocks; t++) {
        size_t c = d.offs[t];
        d.offs[t] = total;
        total += c;
    }
    d.idx = malloc((total ? total : 1) * sizeof *d.idx);
    if (!d.idx) {
        free(d.offs);
        return ZP_E_NOMEM;
    }
    zp__parallel_for(d.nblocks, 1, dense_task, &d, threads);
    free(d.offs);
    *idx = d.idx;
    *ndense = total;
    return ZP_OK;
}

/* ------------------------------------------------ the two groups */

#define ZP__G(op) zp_g1_##op
#define ZP__S(name) name##_g1
#define ZP__AFF zp_g1_affine
#define ZP__JAC zp_g1_jac
#define ZP__XYZZ zp_g1_xyzz
#define ZP__FE zp_fp
#define ZP__F(op) zp_fp_##op
#define ZP__FINV zp__fp_inv_vartime
#define ZP__MSM zp__cpu_msm_g1
#define ZP__PIPPENGER zp__cpu_msm_g1_pippenger
#define ZP__PIPPENGER_MODE zp__cpu_msm_g1_pippenger_mode
#define ZP__SUM zp__cpu_sum_g1
#define ZP__REF zp__msm_g1_ref
#define ZP__DENSE zp__cpu_msm_g1_endo
#define ZP__FLUSH8 zp__g1_flush8
#define ZP__TO_R52 zp__fp_to_r52
#define ZP__FROM_R52 zp__fp_from_r52
#define ZP__POINTS_R52 zp__g1_to_r52
#define ZP__FOLD8 zp__g1_fold8
#include "msm_impl.h"
#undef ZP__G
#undef ZP__S
#undef ZP__AFF
#undef ZP__JAC
#undef ZP__XYZZ
#undef ZP__FE
#undef ZP__F
#undef ZP__FINV
#undef ZP__MSM
#undef ZP__PIPPENGER
#undef ZP__PIPPENGER_MODE
#undef ZP__SUM
#undef ZP__REF
#undef ZP__DENSE
#undef ZP__FLUSH8
#undef ZP__TO_R52
#undef ZP__FROM_R52
#undef ZP__POINTS_R52
#undef ZP__FOLD8

#define ZP__G(op) zp_g2_##op
#define ZP__S(name) name##_g2
#define ZP__AFF zp_g2_affine
#define ZP__JAC zp_g2_jac
#define ZP__XYZZ zp_g2_xyzz
#define ZP__FE zp_fp2
#define ZP__F(op) zp_fp2_##op
#define ZP__FINV zp__fp2_inv_vartime
#define ZP__MSM zp__cpu_msm_g2
#define ZP__PIPPENGER zp__cpu_msm_g2_pippenger
#define ZP__PIPPENGER_MODE zp__cpu_msm_g2_pippenger_mode
#define ZP__SUM zp__cpu_sum_g2
#define ZP__REF zp__msm_g2_ref
#define ZP__DENSE zp__cpu_msm_g2_endo
#define ZP__FLUSH8 zp__g2_flush8
#define ZP__TO_R52 zp__fp2_to_r52
#define ZP__FROM_R52 zp__fp2_from_r52
#define ZP__POINTS_R52 zp__g2_to_r52
#define ZP__FOLD8 zp__g2_fold8
#include "msm_impl.h"
