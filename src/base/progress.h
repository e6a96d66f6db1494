/*
 * Progress of long library work (checking a key's points, making a test
 * key, generating a witness), reported to whoever asked for it. The library
 * never prints: a caller that wants progress passes a zp__progress (a
 * function and its context) in the options of the call; NULL, or a NULL
 * fn, keeps the work silent. The CLI's reporter (src/tool/progress.h)
 * draws it on stderr.
 */
#ifndef ZP_BASE_PROGRESS_H
#define ZP_BASE_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct zp__progress {
    /* done of total units of step (a short phrase, "checking points") are
     * finished. Called from any of the work's threads, possibly at once,
     * with done rising per step and done == total once at a step's end;
     * must be quick and thread-safe. */
    void (*fn)(void *ctx, const char *step, uint64_t done, uint64_t total);
    void *ctx;
} zp__progress;

/* A step made of several calls, each adding its units to done: the units
 * of the calls before the current one, and the step's total. */
typedef struct zp__progress_span {
    const zp__progress *p;
    const char *step;
    uint64_t done, total;
} zp__progress_span;

static inline void zp__progress_note(const zp__progress *p, const char *step, uint64_t done,
                                     uint64_t total)
{
    if (p && p->fn)
        p->fn(p->ctx, step, done, total);
}

/*
 * zp__parallel_for (pool.h) that also reports the indices finished as step
 * of p: after each range fn returns, and done == n once at the end. p NULL
 * is zp__parallel_for itself.
 */
void zp__parallel_for_progress(size_t n, size_t grain,
                               void (*fn)(void *ctx, size_t begin, size_t end), void *ctx,
                               int threads, const zp__progress *p, const char *step);

#endif
