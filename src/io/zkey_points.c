/*
 * Decoding and checking the point sections of a .zkey in parallel. The
 * subgroup check dominates the cost of loading a key (hundreds of millions
 * of points for a large circuit), so the sections are cut into chunks
 * decoded on all cores. The error reported is always the one at the lowest
 * failing index, whatever the thread timing: a chunk is skipped only when a
 * lower chunk has already failed. With the IFMA kernels on (zp__msm_ifma:
 * a CPU with AVX-512 IFMA, unless zp_cpu_set_ifma turned them off) the
 * subgroup tests run eight at a time (zp__in_subgroup_x8).
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "base/pool.h"
#include "cpu/msm_ifma.h"
#include "io/zkey_impl.h"
#include "math/fp_ifma.h"

#define CHUNK 1024 /* points; a multiple of 64 so density words align */

typedef struct pts_ctx {
    const zp__zkey_pts *job;
    const uint64_t *start; /* output index of each chunk's first point */
    zp_err *err;           /* per chunk */
    uint64_t *bad;         /* per chunk: source index of the failure */
    _Atomic uint64_t first_fail; /* lowest failing chunk so far */
    _Atomic uint64_t done;       /* source points scanned, for progress */
} pts_ctx;

static bool wanted(const zp__zkey_pts *j, uint64_t i)
{
    return !j->density || zp__bitmap_get(j->density, i);
}

/* Records chunk ch's first failure: error e at source index i. */
static void fail(pts_ctx *c, uint64_t ch, zp_err e, uint64_t i)
{
    c->err[ch] = e;
    c->bad[ch] = i;
    uint64_t cur = atomic_load(&c->first_fail);
    while (ch < cur && !atomic_compare_exchange_weak(&c->first_fail, &cur, ch))
        ;
}

/* Decodes one point and checks it is canonical and on the curve; the
 * subgroup test is left to flush8. */
static zp_err decode_on_curve(bool g2, void *d, const uint8_t *p)
{
    if (g2) {
        zp_g2_affine *q = d;
        if (zp_fp_from_mont_le(&q->x.c0, p) || zp_fp_from_mont_le(&q->x.c1, p + 48) ||
            zp_fp_from_mont_le(&q->y.c0, p + 96) || zp_fp_from_mont_le(&q->y.c1, p + 144))
            return ZP_E_NOT_CANONICAL;
        return zp_g2_affine_on_curve(q) ? ZP_OK : ZP_E_NOT_ON_CURVE;
    }
    zp_g1_affine *q = d;
    if (zp_fp_from_mont_le(&q->x, p) || zp_fp_from_mont_le(&q->y, p + 48))
        return ZP_E_NOT_CANONICAL;
    return zp_g1_affine_on_curve(q) ? ZP_OK : ZP_E_NOT_ON_CURVE;
}

/* Subgroup tests of up to eight decoded points at once; false after
 * recording the first failure, in index order. */
static bool flush8(pts_ctx *c, uint64_t ch, bool g2, const void *pend[8], const uint64_t *idx,
                   int n)
{
    bool ok[8];
    zp__in_subgroup_x8(g2, pend, n, ok);
    for (int k = 0; k < n; k++)
        if (!ok[k]) {
            fail(c, ch, ZP_E_NOT_IN_SUBGROUP, idx[k]);
            return false;
        }
    return true;
}

/* The subgroup tests eight at a time on IFMA lanes: the same results and
 * the same first failing index as the one-by-one loop. */
static void do_chunk_x8(pts_ctx *c, uint64_t ch)
{
    const zp__zkey_pts *j = c->job;
    uint64_t lo = ch * CHUNK, hi = lo + CHUNK < j->n_src ? lo + CHUNK : j->n_src;
    size_t dsz = j->g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
    size_t ssz = j->g2 ? ZP__ZKEY_G2 : ZP__ZKEY_G1;
    char *dst = (char *)j->dst + c->start[ch] * dsz;
    const void *pend[8] = {NULL};
    uint64_t idx[8];
    int n = 0;
    for (uint64_t i = lo; i < hi; i++) {
        if (!wanted(j, i))
            continue;
        void *d = dst;
        dst += dsz;
        zp_err e = decode_on_curve(j->g2, d, j->src + i * ssz);
        if (e) { /* the pending points have lower indices: they go first */
            if (flush8(c, ch, j->g2, pend, idx, n))
                fail(c, ch, e, i);
            return;
        }
        pend[n] = d;
        idx[n++] = i;
        if (n == 8) {
            if (!flush8(c, ch, j->g2, pend, idx, n))
                return;
            n = 0;
        }
    }
    if (n)
        flush8(c, ch, j->g2, pend, idx, n);
}

static void do_chunk(pts_ctx *c, uint64_t ch)
{
    const zp__zkey_pts *j = c->job;
    if (zp__msm_ifma) {
        do_chunk_x8(c, ch);
        return;
    }
    uint64_t lo = ch * CHUNK, hi = lo + CHUNK < j->n_src ? lo + CHUNK : j->n_src;
    uint64_t k = c->start[ch];
    size_t sz = j->g2 ? ZP__ZKEY_G2 : ZP__ZKEY_G1;
    for (uint64_t i = lo; i < hi; i++) {
        if (!wanted(j, i))
            continue;
        zp_err e = j->g2 ? zp__zkey_g2((zp_g2_affine *)j->dst + k, j->src + i * sz)
                         : zp__zkey_g1((zp_g1_affine *)j->dst + k, j->src + i * sz);
        k++;
        if (e) {
            fail(c, ch, e, i);
            return;
        }
    }
}

/* Reports a chunk's points scanned; the step's end is reported once, by
 * zp__zkey_points after the last call. */
static void chunk_done(pts_ctx *c, size_t ch)
{
    zp__progress_span *s = c->job->progress;
    if (!s)
        return;
    uint64_t lo = (uint64_t)ch * CHUNK, n_src = c->job->n_src;
    uint64_t n = n_src - lo < CHUNK ? n_src - lo : CHUNK;
    uint64_t d = s->done + atomic_fetch_add(&c->done, n) + n;
    if (d < s->total)
        zp__progress_note(s->p, s->step, d, s->total);
}

static void run_chunks(void *ctx, size_t begin, size_t end)
{
    pts_ctx *c = ctx;
    for (size_t ch = begin; ch < end; ch++)
        if (ch < atomic_load(&c->first_fail)) {
            do_chunk(c, ch);
            chunk_done(c, ch);
        }
}

zp_err zp__zkey_points(const zp__zkey_pts *job, uint64_t *bad)
{
    uint64_t nch = (job->n_src + CHUNK - 1) / CHUNK;
    uint64_t *start = malloc((nch + 1) * sizeof *start);
    zp_err *err = calloc(nch + 1, sizeof *err);
    uint64_t *badv = malloc((nch + 1) * sizeof *badv);
    zp_err e = ZP_OK;
    if (!start || !err || !badv) {
        e = ZP_E_NOMEM;
        goto out;
    }
    /* Where each chunk's points land in the compact output. */
    uint64_t k = 0;
    for (uint64_t ch = 0; ch < nch; ch++) {
        start[ch] = k;
        uint64_t hi = (ch + 1) * CHUNK < job->n_src ? (ch + 1) * CHUNK : job->n_src;
        for (uint64_t i = ch * CHUNK; i < hi; i++)
            k += wanted(job, i);
    }
    pts_ctx c = {.job = job, .start = start, .err = err, .bad = badv};
    atomic_init(&c.first_fail, UINT64_MAX);
    atomic_init(&c.done, 0);
    zp__parallel_for((size_t)nch, 1, run_chunks, &c, job->threads);
    uint64_t f = atomic_load(&c.first_fail);
    zp__progress_span *s = job->progress;
    if (s && f == UINT64_MAX) {
        s->done += job->n_src;
        if (s->done >= s->total)
            zp__progress_note(s->p, s->step, s->total, s->total);
    }
    if (f != UINT64_MAX) {
        e = err[f];
        *bad = badv[f];
    }
out:
    free(start);
    free(err);
    free(badv);
    return e;
}
