/*
 * A shared scan (docs/gpu-memory.md, "Slots that share one stream"): the
 * streamed chunks of a key pass through one ring of buffers in a circle,
 * and every participant (a slot in its MSM phase) consumes each of the n
 * chunks once, joining wherever the circle is. Sums do not depend on the
 * order of their chunks, so a participant that joins mid-circle starts at
 * the oldest chunk the ring still holds and goes round to the one before.
 *
 * The rules:
 *  - fills are counted: fill number c (c = 0, 1, ...) puts chunk c mod n
 *    into buffer c mod bufs; the ring holds the last min(bufs, fills)
 *    fills;
 *  - a buffer is filled again only once every participant that was to
 *    consume its chunk has done so, and only while some participant still
 *    needs the next fill (no participant, no copies);
 *  - a participant that joins claims the fills the ring holds (at most n)
 *    and every later one until it has n.
 * So each chunk a participant consumes lies in its buffer from the fill to
 * its done, no fill is made that nobody consumes, and participants never
 * wait on one another in a circle: the oldest buffer waits only for
 * participants whose every earlier fill is made.
 *
 * Host bookkeeping only, under one mutex: what a fill does is the
 * callback's (an asynchronous copy on the GPU, a memcpy in the tests), so
 * that the rules are tested on the CPU (tests/test_ring_scan.c).
 */
#ifndef ZP_G16_RING_SCAN_H
#define ZP_G16_RING_SCAN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

#define ZP__SCAN_MAX 32u     /* participants at once */
#define ZP__SCAN_BUFS_MAX 8u /* buffers of a ring */

/* Starts the copy of chunk `chunk` into buffer `buf` (called with the
 * scan's lock held, by whichever participant's call frees the buffer);
 * *bytes: what it moves, shared among the participants that consume it. */
typedef zp_err (*zp__scan_fill_fn)(void *ctx, size_t chunk, unsigned buf, uint64_t *bytes);

typedef struct zp__scan {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t n;
    unsigned bufs;
    zp__scan_fill_fn fill;
    void *ctx;
    uint64_t head;                        /* fills made */
    uint32_t pending[ZP__SCAN_BUFS_MAX];  /* who is still to consume each buffer's fill */
    uint32_t active;                      /* participants joined */
    uint64_t start[ZP__SCAN_MAX];         /* each one's first fill */
    uint64_t share[ZP__SCAN_MAX];         /* each one's share of the bytes moved */
    uint64_t fills_bytes;                 /* every fill's bytes */
    zp_err err;                           /* a fill's failure, until all have left */
} zp__scan;

/* One participant's pass round the circle: fills [next, end) are still to
 * be consumed, in order. */
typedef struct zp__scan_pass {
    zp__scan *scan;
    unsigned id;
    uint64_t next, end;
} zp__scan_pass;

/* n chunks (>= 1) through bufs buffers (1 .. ZP__SCAN_BUFS_MAX).
 * ZP_E_INVALID_ARG out of range, ZP_E_NOMEM when the lock cannot be made. */
zp_err zp__scan_init(zp__scan *s, size_t n, unsigned bufs, zp__scan_fill_fn fill, void *ctx);
/* No participant may be joined. */
void zp__scan_destroy(zp__scan *s);

/* Joins: the pass claims the fills the ring holds and those to come, n in
 * all. ZP_E_BUSY with ZP__SCAN_MAX participants joined; a fill's failure
 * while the passes it failed have not all left (the first join after
 * that makes the failed fill again). */
zp_err zp__scan_join(zp__scan *s, zp__scan_pass *p);
/* Waits until the pass's next fill is made: its chunk (0 .. n - 1) and
 * buffer. The buffer keeps that chunk until zp__scan_done. A fill's
 * failure (then leave). Not past the pass's end (ZP_E_INVALID_ARG). */
zp_err zp__scan_next(zp__scan_pass *p, size_t *chunk, unsigned *buf);
/* The pass is done with the buffer zp__scan_next gave: it may be filled
 * again. True when that was the pass's last chunk. */
bool zp__scan_done(zp__scan_pass *p);
/* Leaves (after its last chunk, or early on a failure: its unconsumed
 * fills are released). Returns the pass's share of the bytes moved: each
 * fill's bytes divided among the participants it was made for. */
uint64_t zp__scan_leave(zp__scan_pass *p);
/* The bytes of every fill made so far. */
uint64_t zp__scan_bytes(zp__scan *s);

#endif
