/*
 * A parallel-for over pthreads (pool.c), for every module that splits a
 * loop over the CPUs: the CPU backend, file loading and checking (io), the
 * prover. Internal to libzkpipe (zp__ names).
 *
 * Threads: `threads` <= 0 means one thread per online CPU. Calls are
 * independent: there is no global pool, so two callers never share or wait
 * on each other's workers. A callback that calls zp__parallel_for again
 * starts new threads; it does not share the caller's.
 */
#ifndef ZP_BASE_POOL_H
#define ZP_BASE_POOL_H

#include <stddef.h>

/* The number of workers `threads` stands for (>= 1). */
int zp__cpu_threads(int threads);

/*
 * Calls fn(ctx, begin, end) over disjoint ranges that cover [0, n) exactly
 * once, each at most `grain` long (grain 0 counts as 1), from up to `threads`
 * threads including the caller, and returns when all calls have returned.
 * The order of the calls is unspecified. When a worker thread cannot be
 * started the remaining threads do its share, so this cannot fail.
 */
void zp__parallel_for(size_t n, size_t grain,
                      void (*fn)(void *ctx, size_t begin, size_t end),
                      void *ctx, int threads);

/* memcpy(dst, src, bytes) from up to `threads` threads (as above), each a
 * run of whole pages: a copy of gigabytes (a witness, a caller's a and b
 * into pinned buffers) runs at the host's memory bandwidth rather than
 * one core's. dst and src must not overlap. */
void zp__parallel_memcpy(void *dst, const void *src, size_t bytes, int threads);

#endif
