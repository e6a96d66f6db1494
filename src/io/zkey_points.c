/*
 * Decoding and checking the point sections of a .zkey in parallel. The
 * subgroup check dominates the cost of loading a key (hundreds of millions
 * of points for a large circuit), so the sections are cut into chunks
 * decoded on all cores. The error reported is always the one at the lowest
 * failing index, whatever the thread timing: a chunk is skipped only when a
 * lower chunk has already failed.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "cpu/cpu.h"
#include "io/zkey_impl.h"

#define CHUNK 1024 /* points; a multiple of 64 so density words align */

typedef struct pts_ctx {
    const zp__zkey_pts *job;
    const uint64_t *start; /* output index of each chunk's first point */
    zp_err *err;           /* per chunk */
    uint64_t *bad;         /* per chunk: source index of the failure */
    _Atomic uint64_t first_fail; /* lowest failing chunk so far */
} pts_ctx;

static bool wanted(const zp__zkey_pts *j, uint64_t i)
{
    return !j->density || zp__bitmap_get(j->density, i);
}

static void do_chunk(pts_ctx *c, uint64_t ch)
{
    const zp__zkey_pts *j = c->job;
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
            c->err[ch] = e;
            c->bad[ch] = i;
            uint64_t cur = atomic_load(&c->first_fail);
            while (ch < cur && !atomic_compare_exchange_weak(&c->first_fail, &cur, ch))
                ;
            return;
        }
    }
}

static void run_chunks(void *ctx, size_t begin, size_t end)
{
    pts_ctx *c = ctx;
    for (size_t ch = begin; ch < end; ch++)
        if (ch < atomic_load(&c->first_fail))
            do_chunk(c, ch);
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
    zp__parallel_for((size_t)nch, 1, run_chunks, &c, job->threads);
    uint64_t f = atomic_load(&c.first_fail);
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
