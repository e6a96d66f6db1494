/*
 * The scheduler's partition queue (src/engine/queue.c): priority classes,
 * FIFO by job inside a class, retries before fresh partitions and away from
 * the worker that made the bad proof, removal; and a random comparison
 * against a plain reference model of the same rules.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "engine/queue.h"

#define NJ 24

static zp__qjob jobs[NJ];

static void setup_jobs(const zp_priority *prio, const uint32_t *parts, int n)
{
    for (int i = 0; i < n; i++)
        CHECK_EQ_INT(zp__qjob_init(&jobs[i], prio[i], parts[i]), ZP_OK);
}

static void free_jobs(int n)
{
    for (int i = 0; i < n; i++)
        zp__qjob_free(&jobs[i]);
}

static int take(zp__queue *q, int worker, int nw, uint32_t *part, bool *retry)
{
    zp__qjob *j;
    if (!zp__queue_take(q, worker, nw, &j, part, retry))
        return -1;
    return (int)(j - jobs);
}

static void test_priority_and_fifo(void)
{
    zp_priority pr[4] = {ZP_PRIO_LOW, ZP_PRIO_NORMAL, ZP_PRIO_LOW, ZP_PRIO_CRITICAL};
    uint32_t pa[4] = {2, 1, 2, 2};
    setup_jobs(pr, pa, 4);
    zp__queue q;
    zp__queue_init(&q);
    for (int i = 0; i < 4; i++)
        zp__queue_push(&q, &jobs[i]);
    CHECK_EQ_INT(q.parts[ZP_PRIO_LOW], 4);
    CHECK_EQ_INT(q.jobs[ZP_PRIO_LOW], 2);
    /* critical job 3 (both partitions), normal job 1, then low jobs 0 and
     * 2 in submission order, each job's partitions in order. */
    int want_job[7] = {3, 3, 1, 0, 0, 2, 2};
    uint32_t want_part[7] = {0, 1, 0, 0, 1, 0, 1};
    for (int i = 0; i < 7; i++) {
        uint32_t part;
        bool retry;
        CHECK_EQ_INT(take(&q, 0, 1, &part, &retry), want_job[i]);
        CHECK_EQ_INT(part, want_part[i]);
        CHECK(!retry);
    }
    uint32_t part;
    bool retry;
    CHECK_EQ_INT(take(&q, 0, 1, &part, &retry), -1);
    for (unsigned p = 0; p < ZP_PRIO_COUNT; p++) {
        CHECK_EQ_INT(q.parts[p], 0);
        CHECK_EQ_INT(q.jobs[p], 0);
    }
    free_jobs(4);
}

static void test_late_critical_goes_first(void)
{
    zp_priority pr[3] = {ZP_PRIO_LOW, ZP_PRIO_LOW, ZP_PRIO_CRITICAL};
    uint32_t pa[3] = {3, 3, 1};
    setup_jobs(pr, pa, 3);
    zp__queue q;
    zp__queue_init(&q);
    zp__queue_push(&q, &jobs[0]);
    zp__queue_push(&q, &jobs[1]);
    uint32_t part;
    bool retry;
    CHECK_EQ_INT(take(&q, 0, 1, &part, &retry), 0);
    zp__queue_push(&q, &jobs[2]); /* arrives while job 0 runs */
    CHECK_EQ_INT(take(&q, 0, 1, &part, &retry), 2);
    CHECK_EQ_INT(take(&q, 0, 1, &part, &retry), 0);
    CHECK_EQ_INT(part, 1);
    free_jobs(3);
}

static void test_retry(void)
{
    zp_priority pr[2] = {ZP_PRIO_NORMAL, ZP_PRIO_NORMAL};
    uint32_t pa[2] = {2, 2};
    setup_jobs(pr, pa, 2);
    zp__queue q;
    zp__queue_init(&q);
    zp__queue_push(&q, &jobs[0]);
    zp__queue_push(&q, &jobs[1]);
    uint32_t part;
    bool retry;
    CHECK_EQ_INT(take(&q, 0, 2, &part, &retry), 0);
    CHECK_EQ_INT(take(&q, 1, 2, &part, &retry), 0);
    CHECK(!jobs[0].linked); /* fully handed out */
    /* Partition 0 of job 0 came back rejected from worker 0. */
    zp__queue_retry(&q, &jobs[0], 0, 0);
    CHECK(jobs[0].linked);
    CHECK(q.head[ZP_PRIO_NORMAL] == &jobs[0]); /* back ahead of job 1 */
    /* Worker 0 must not get it: it gets job 1 instead. */
    CHECK_EQ_INT(take(&q, 0, 2, &part, &retry), 1);
    CHECK(!retry);
    CHECK_EQ_INT(take(&q, 1, 2, &part, &retry), 0);
    CHECK_EQ_INT(part, 0);
    CHECK(retry);
    /* With a single worker the avoidance cannot hold. */
    zp__queue_retry(&q, &jobs[0], 1, 0);
    CHECK_EQ_INT(take(&q, 0, 1, &part, &retry), 0);
    CHECK(retry);
    CHECK_EQ_INT(part, 1);
    CHECK_EQ_INT(take(&q, 0, 1, &part, &retry), 1);
    CHECK_EQ_INT(take(&q, 0, 1, &part, &retry), -1);
    free_jobs(2);
}

static void test_remove(void)
{
    zp_priority pr[3] = {ZP_PRIO_HIGH, ZP_PRIO_HIGH, ZP_PRIO_HIGH};
    uint32_t pa[3] = {3, 2, 1};
    setup_jobs(pr, pa, 3);
    zp__queue q;
    zp__queue_init(&q);
    for (int i = 0; i < 3; i++)
        zp__queue_push(&q, &jobs[i]);
    uint32_t part;
    bool retry;
    CHECK_EQ_INT(take(&q, 0, 1, &part, &retry), 0);
    CHECK_EQ_INT(zp__queue_remove(&q, &jobs[0]), 2);
    CHECK_EQ_INT(zp__queue_remove(&q, &jobs[1]), 2);
    CHECK_EQ_INT(zp__queue_remove(&q, &jobs[1]), 0); /* twice is harmless */
    CHECK_EQ_INT(q.parts[ZP_PRIO_HIGH], 1);
    CHECK_EQ_INT(q.jobs[ZP_PRIO_HIGH], 1);
    CHECK_EQ_INT(take(&q, 0, 1, &part, &retry), 2);
    CHECK_EQ_INT(take(&q, 0, 1, &part, &retry), -1);
    /* A job never pushed has nothing waiting. */
    zp__qjob lone;
    CHECK_EQ_INT(zp__qjob_init(&lone, ZP_PRIO_LOW, 4), ZP_OK);
    CHECK_EQ_INT(zp__queue_remove(&q, &lone), 0);
    zp__qjob_free(&lone);
    CHECK_EQ_INT(zp__qjob_init(&lone, ZP_PRIO_LOW, 0), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__qjob_init(&lone, (zp_priority)4, 1), ZP_E_INVALID_ARG);
    free_jobs(3);
}

/* ------------------------------------------------ reference model twin */

/* The same rules written as plainly as possible: scan every job in seq
 * order per class; retries are a per-job FIFO list with an avoid mark. */
typedef struct ref_job {
    int prio;
    uint32_t parts, next;
    uint32_t nr, rp[64];
    int ra[64];
    bool pushed;
} ref_job;

static bool ref_take(ref_job *r, int n, int worker, int nw, int *job, uint32_t *part)
{
    for (int p = 0; p < ZP_PRIO_COUNT; p++) {
        for (int i = 0; i < n; i++) {
            ref_job *j = &r[i];
            if (!j->pushed || j->prio != p)
                continue;
            for (uint32_t k = 0; k < j->nr; k++) {
                if (nw > 1 && j->ra[k] == worker)
                    continue;
                *job = i;
                *part = j->rp[k];
                for (uint32_t m = k; m + 1 < j->nr; m++) {
                    j->rp[m] = j->rp[m + 1];
                    j->ra[m] = j->ra[m + 1];
                }
                j->nr--;
                return true;
            }
            if (j->next < j->parts) {
                *job = i;
                *part = j->next++;
                return true;
            }
        }
    }
    return false;
}

static void test_random_against_reference(void)
{
    for (int round = 0; round < 200; round++) {
        zp__queue q;
        zp__queue_init(&q);
        ref_job ref[NJ];
        memset(ref, 0, sizeof ref);
        int n = 0, nw = 1 + (int)(check_rand64() % 3);
        uint32_t taken[NJ][8];
        int n_taken[NJ] = {0};
        for (int step = 0; step < 120; step++) {
            unsigned op = (unsigned)(check_rand64() % 10);
            if (op < 3 && n < NJ) {
                zp_priority p = (zp_priority)(check_rand64() % ZP_PRIO_COUNT);
                uint32_t k = 1 + (uint32_t)(check_rand64() % 4);
                CHECK_EQ_INT(zp__qjob_init(&jobs[n], p, k), ZP_OK);
                zp__queue_push(&q, &jobs[n]);
                ref[n] = (ref_job){.prio = (int)p, .parts = k, .pushed = true};
                n++;
            } else if (op < 8) {
                int w = (int)(check_rand64() % (uint64_t)nw);
                uint32_t part = 0, rpart = 0;
                bool retry;
                int got = take(&q, w, nw, &part, &retry);
                int rj = -1;
                bool rgot = ref_take(ref, n, w, nw, &rj, &rpart);
                CHECK_EQ_INT(got >= 0, rgot);
                if (got >= 0 && rgot) {
                    CHECK_EQ_INT(got, rj);
                    CHECK_EQ_INT(part, rpart);
                    if (n_taken[got] < 8)
                        taken[got][n_taken[got]++] = part;
                }
            } else if (op == 8 && n) {
                /* Reject a partition that was handed out. */
                int j = (int)(check_rand64() % (uint64_t)n);
                if (n_taken[j] && ref[j].nr < 64) {
                    uint32_t part = taken[j][--n_taken[j]];
                    int avoid = (int)(check_rand64() % (uint64_t)nw);
                    zp__queue_retry(&q, &jobs[j], part, avoid);
                    ref[j].rp[ref[j].nr] = part;
                    ref[j].ra[ref[j].nr++] = avoid;
                }
            } else if (op == 9 && n) {
                int j = (int)(check_rand64() % (uint64_t)n);
                zp__queue_remove(&q, &jobs[j]);
                ref[j].nr = 0;
                ref[j].next = ref[j].parts;
                n_taken[j] = 0;
            }
            uint32_t waiting = 0, counted = 0;
            for (int i = 0; i < n; i++)
                waiting += ref[i].nr + ref[i].parts - ref[i].next;
            for (unsigned p = 0; p < ZP_PRIO_COUNT; p++)
                counted += q.parts[p];
            CHECK_EQ_INT(counted, waiting);
            CHECK_EQ_INT(zp__queue_waiting(&q), waiting);
            for (int p = 0; p <= ZP_PRIO_COUNT; p++) { /* the classes above p */
                uint32_t above = 0;
                for (int i = 0; i < n; i++)
                    if (ref[i].prio < p)
                        above += ref[i].nr + ref[i].parts - ref[i].next;
                CHECK_EQ_INT(zp__queue_waiting_above(&q, (zp_priority)p), above);
            }
        }
        free_jobs(n);
    }
}

int main(void)
{
    RUN(test_priority_and_fifo);
    RUN(test_late_critical_goes_first);
    RUN(test_retry);
    RUN(test_remove);
    RUN(test_random_against_reference);
    return FINISH();
}
