/*
 * The host-side allocator that carves one GPU arena.
 * The device memory is taken once with a single cudaMalloc; this allocator
 * only hands out offsets into it, so allocating and freeing never touch the
 * device and never synchronize it.
 *
 * First fit over a sorted array of free extents; freeing coalesces with the
 * neighbours. Callers remember the size they asked for (zp__gpu_buf does).
 * Not thread-safe: the owner (struct zp__gpu) holds a lock around calls.
 *
 * Header-only (static inline) so that the CPU-only build can unit-test it
 * without the CUDA backend; written as C that also compiles as C++.
 */
#ifndef ZP_GPU_ARENA_H
#define ZP_GPU_ARENA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zkpipe.h"

typedef struct zp__arena_ext {
    uint64_t off, len;
} zp__arena_ext;

typedef struct zp__arena {
    uint64_t size;       /* bytes managed */
    uint64_t align;      /* every offset and length is a multiple (power of 2) */
    uint64_t used;       /* bytes handed out */
    zp__arena_ext *ext;  /* free extents, sorted by offset, never adjacent */
    size_t n, cap;
} zp__arena;

/* Rounds up to the arena's alignment; 0 on overflow. */
static inline uint64_t zp__arena_round(const zp__arena *a, uint64_t bytes)
{
    uint64_t r = (bytes + a->align - 1) & ~(a->align - 1);
    return r < bytes ? 0 : r;
}

static inline zp_err zp__arena_init(zp__arena *a, uint64_t size, uint64_t align)
{
    memset(a, 0, sizeof *a);
    if (align == 0 || (align & (align - 1)) != 0)
        return ZP_E_INVALID_ARG;
    a->align = align;
    a->size = size & ~(align - 1);
    a->cap = 16;
    a->ext = (zp__arena_ext *)malloc(a->cap * sizeof *a->ext);
    if (!a->ext)
        return ZP_E_NOMEM;
    if (a->size) {
        a->ext[0].off = 0;
        a->ext[0].len = a->size;
        a->n = 1;
    }
    return ZP_OK;
}

static inline void zp__arena_destroy(zp__arena *a)
{
    free(a->ext);
    memset(a, 0, sizeof *a);
}

/* Takes `bytes` from the lowest free extent that holds them (its bottom),
 * or with high from the highest one (its top). */
static inline zp_err zp__arena_take(zp__arena *a, uint64_t *off, uint64_t bytes, bool high)
{
    uint64_t need = zp__arena_round(a, bytes ? bytes : 1);
    if (need == 0)
        return ZP_E_TOO_LARGE;
    for (size_t k = 0; k < a->n; k++) {
        size_t i = high ? a->n - 1 - k : k;
        if (a->ext[i].len < need)
            continue;
        a->ext[i].len -= need;
        *off = high ? a->ext[i].off + a->ext[i].len : a->ext[i].off;
        if (!high)
            a->ext[i].off += need;
        if (a->ext[i].len == 0) {
            memmove(&a->ext[i], &a->ext[i + 1], (a->n - i - 1) * sizeof *a->ext);
            a->n--;
        }
        a->used += need;
        return ZP_OK;
    }
    return ZP_E_GPU_OOM;
}

/* First fit. ZP_E_GPU_OOM when no free extent is large enough. */
static inline zp_err zp__arena_alloc(zp__arena *a, uint64_t *off, uint64_t bytes)
{
    return zp__arena_take(a, off, bytes, false);
}

/*
 * Last fit: the top `bytes` of the highest free extent that holds them.
 * Long-lived regions (resident keys) come from the bottom (alloc) and the
 * working sets of partition slots from the top (alloc_high), so freeing
 * and re-carving one kind does not leave holes between regions of the
 * other. ZP_E_GPU_OOM when nothing fits.
 */
static inline zp_err zp__arena_alloc_high(zp__arena *a, uint64_t *off, uint64_t bytes)
{
    return zp__arena_take(a, off, bytes, true);
}

/*
 * Returns [off, off + bytes) to the arena. ZP_E_INVALID_ARG when the range
 * is outside the arena or overlaps free space (a double free); ZP_E_NOMEM
 * when the extent array cannot grow (the range then stays allocated).
 */
static inline zp_err zp__arena_free(zp__arena *a, uint64_t off, uint64_t bytes)
{
    uint64_t len = zp__arena_round(a, bytes ? bytes : 1);
    if (len == 0 || (off & (a->align - 1)) || off > a->size || len > a->size - off)
        return ZP_E_INVALID_ARG;
    /* i = the first free extent that starts after off. */
    size_t lo = 0, hi = a->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a->ext[mid].off <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t i = lo;
    bool join_prev = false, join_next = false;
    if (i > 0) {
        const zp__arena_ext *p = &a->ext[i - 1];
        if (p->off + p->len > off)
            return ZP_E_INVALID_ARG;
        join_prev = p->off + p->len == off;
    }
    if (i < a->n) {
        if (off + len > a->ext[i].off)
            return ZP_E_INVALID_ARG;
        join_next = off + len == a->ext[i].off;
    }
    if (join_prev && join_next) {
        a->ext[i - 1].len += len + a->ext[i].len;
        memmove(&a->ext[i], &a->ext[i + 1], (a->n - i - 1) * sizeof *a->ext);
        a->n--;
    } else if (join_prev) {
        a->ext[i - 1].len += len;
    } else if (join_next) {
        a->ext[i].off = off;
        a->ext[i].len += len;
    } else {
        if (a->n == a->cap) {
            size_t cap = a->cap * 2;
            zp__arena_ext *e = (zp__arena_ext *)realloc(a->ext, cap * sizeof *e);
            if (!e)
                return ZP_E_NOMEM;
            a->ext = e;
            a->cap = cap;
        }
        memmove(&a->ext[i + 1], &a->ext[i], (a->n - i) * sizeof *a->ext);
        a->ext[i].off = off;
        a->ext[i].len = len;
        a->n++;
    }
    a->used -= len;
    return ZP_OK;
}

/* The largest single allocation that would succeed now. */
static inline uint64_t zp__arena_largest(const zp__arena *a)
{
    uint64_t best = 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->ext[i].len > best)
            best = a->ext[i].len;
    return best;
}

#endif
