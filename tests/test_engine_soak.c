/*
 * 500 small jobs through one engine without memory growth: after a warm-up
 * (scratch buffers grown, the trace ring and the job table full), the heap
 * in use and the resident set must stay flat while hundreds more jobs run.
 * The job table and the trace ring are bounded by configuration, so a
 * long-running engine holds a fixed amount of bookkeeping.
 *
 * Under AddressSanitizer the heap is ASan's (freed blocks sit in a
 * quarantine) so only the job count is scaled down and the leak check at
 * exit does the rest.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>

#include "test_engine_util.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define TOTAL (SANITIZED ? 120 : 500)
#define WARMUP 60
#define INFLIGHT 8

static void soak_config(zp_engine_config *c)
{
    c->max_jobs = 32;        /* finished jobs are forgotten, oldest first */
    c->trace_events = 256;   /* the ring wraps during the warm-up */
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * 4;
}

/* Runs jobs [from, to) with up to INFLIGHT at once; each is checked. */
static int run_jobs(zp_engine *e, int from, int to)
{
    int ok = 0, next = from, done = from;
    char ids[INFLIGHT][ZP_JOB_ID_MAX + 1];
    while (done < to) {
        while (next < to && next - done < INFLIGHT) {
            char *id = ids[next % INFLIGHT];
            snprintf(id, ZP_JOB_ID_MAX + 1, "soak-%d", next);
            zp_priority p = (zp_priority)(next % ZP_PRIO_COUNT);
            if (t_submit(e, id, next % 3 ? "a" : "b", p, 1, (uint64_t)next, NULL) != ZP_OK)
                break;
            next++;
        }
        zp_job_result res;
        if (zp_engine_await(e, ids[done % INFLIGHT], -1, NULL, &res) == ZP_OK &&
            res.partitions == 1 && res.proofs_len == 192)
            ok++;
        zp_job_result_free(&res);
        done++;
    }
    return ok;
}

static void test_no_growth(void)
{
    zp_engine *e = t_open(2, 1, soak_config);
    CHECK_EQ_INT(zp_engine_add_key(e, "a", "synth:chain:2"), ZP_OK);
    CHECK_EQ_INT(zp_engine_add_key(e, "b", "synth:dense:2"), ZP_OK);
    CHECK_EQ_INT(run_jobs(e, 0, WARMUP), WARMUP);
    /* Metrics and trace export allocate and free; run them in the loop's
     * steady state too. */
    char *m;
    CHECK_EQ_INT(zp_engine_metrics(e, &m, NULL), ZP_OK);
    zp_free(m);
    size_t heap0 = mallinfo2().uordblks;
    long rss0 = rss_kib();
    CHECK_EQ_INT(run_jobs(e, WARMUP, TOTAL), TOTAL - WARMUP);
    CHECK_EQ_INT(zp_engine_metrics(e, &m, NULL), ZP_OK);
    zp_free(m);
    CHECK_EQ_INT(zp_engine_trace_json(e, &m, NULL), ZP_OK);
    zp_free(m);
    size_t heap1 = mallinfo2().uordblks;
    long rss1 = rss_kib();
    printf("%d jobs: heap in use %zu -> %zu bytes, RSS %ld -> %ld KiB\n", TOTAL, heap0, heap1,
           rss0, rss1);
    if (!SANITIZED) {
        /* Slack for allocator noise (arenas of the worker threads); a
         * leak of one job's bookkeeping per job would be ~200 KiB here. */
        CHECK(heap1 < heap0 + 64 * 1024);
        CHECK(rss1 < rss0 + 2048);
    }
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.jobs_done, TOTAL);
    CHECK_EQ_INT(st.proofs_verified, TOTAL);
    zp_job_info info;
    CHECK_EQ_INT(zp_engine_job_status(e, "soak-0", &info), ZP_E_NOT_FOUND);
    zp_engine_close(e);
}

int main(void)
{
    RUN(test_no_growth);
    return FINISH();
}
