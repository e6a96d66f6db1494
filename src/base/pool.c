/*
 * A parallel-for over pthreads. Each call starts its own workers and joins
 * them before returning: the CPU backend's loops are long (milliseconds to
 * minutes), so the cost of starting a thread (tens of microseconds) is
 * small, and there is no shared pool whose state could couple two callers.
 * Work is handed out in chunks from one atomic counter, so threads that
 * start late or run slower simply take fewer chunks.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/pool.h"
#include "base/progress.h"

/* Bounds the stack array of thread handles; more CPUs than this are unusual
 * for one process and would only add contention on the counter. */
#define MAX_THREADS 256

typedef struct pf_job {
    void (*fn)(void *ctx, size_t begin, size_t end);
    void *ctx;
    size_t n, grain;
    atomic_size_t next;
} pf_job;

int zp__cpu_threads(int threads)
{
    if (threads > 0)
        return threads > MAX_THREADS ? MAX_THREADS : threads;
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    if (c < 1)
        return 1;
    return c > MAX_THREADS ? MAX_THREADS : (int)c;
}

static void *pf_worker(void *arg)
{
    pf_job *job = arg;
    for (;;) {
        size_t begin = atomic_fetch_add(&job->next, job->grain);
        if (begin >= job->n)
            break;
        size_t end = job->n - begin < job->grain ? job->n : begin + job->grain;
        job->fn(job->ctx, begin, end);
    }
    return NULL;
}

void zp__parallel_for(size_t n, size_t grain,
                      void (*fn)(void *ctx, size_t begin, size_t end),
                      void *ctx, int threads)
{
    if (n == 0)
        return;
    if (grain == 0)
        grain = 1;
    size_t chunks = (n - 1) / grain + 1;
    int t = zp__cpu_threads(threads);
    if ((size_t)t > chunks)
        t = (int)chunks;
    if (t == 1) {
        for (size_t b = 0; b < n; b += grain)
            fn(ctx, b, n - b < grain ? n : b + grain);
        return;
    }
    /* A grain that would overflow the counter near SIZE_MAX cannot occur:
     * begin <= n + grain * t, far below SIZE_MAX for real sizes. */
    pf_job job = {.fn = fn, .ctx = ctx, .n = n, .grain = grain};
    atomic_init(&job.next, 0);
    pthread_t tid[MAX_THREADS];
    int started = 0;
    for (int i = 1; i < t; i++) {
        if (pthread_create(&tid[started], NULL, pf_worker, &job) != 0)
            break; /* the threads we have (at least the caller) do the rest */
        started++;
    }
    pf_worker(&job);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
}

/* ------------------------------------------------ with progress (progress.h) */

typedef struct pf_counted {
    void (*fn)(void *ctx, size_t begin, size_t end);
    void *ctx;
    size_t n;
    atomic_size_t done;
    const zp__progress *p;
    const char *step;
} pf_counted;

static void pf_count(void *arg, size_t begin, size_t end)
{
    pf_counted *c = arg;
    c->fn(c->ctx, begin, end);
    size_t done = atomic_fetch_add(&c->done, end - begin) + (end - begin);
    /* The last range reports after the loop, once all have returned. */
    if (done < c->n)
        zp__progress_note(c->p, c->step, done, c->n);
}

void zp__parallel_for_progress(size_t n, size_t grain,
                               void (*fn)(void *ctx, size_t begin, size_t end), void *ctx,
                               int threads, const zp__progress *p, const char *step)
{
    if (!p || !p->fn) {
        zp__parallel_for(n, grain, fn, ctx, threads);
        return;
    }
    pf_counted c = {.fn = fn, .ctx = ctx, .n = n, .p = p, .step = step};
    atomic_init(&c.done, 0);
    zp__progress_note(p, step, 0, n);
    zp__parallel_for(n, grain, pf_count, &c, threads);
    zp__progress_note(p, step, n, n);
}

typedef struct copy_ctx {
    char *dst;
    const char *src;
} copy_ctx;

static void copy_task(void *p, size_t begin, size_t end)
{
    const copy_ctx *x = p;
    memcpy(x->dst + begin, x->src + begin, end - begin);
}

static size_t memcpy_grain(size_t bytes, int threads)
{
    /* A run per thread, in whole pages, and none below 1 MiB (starting a
     * thread costs about as much as copying that). */
    const size_t t = (size_t)zp__cpu_threads(threads);
    size_t grain = (bytes + t - 1) / t;
    grain = (grain + 4095) & ~(size_t)4095;
    return grain < ((size_t)1 << 20) ? (size_t)1 << 20 : grain;
}

void zp__parallel_memcpy(void *dst, const void *src, size_t bytes, int threads)
{
    copy_ctx x = {dst, src};
    zp__parallel_for(bytes, memcpy_grain(bytes, threads), copy_task, &x,
                     zp__cpu_threads(threads));
}
