/*
 * The proving engine, end to end on the CPU with small synthetic circuits:
 * proofs that verify independently, idempotent ids, back-pressure, await
 * timeouts, priority order, FIFO within a priority, cancellation (queued
 * and running), many concurrent submitters and awaiters, and close with
 * callers still waiting.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "gpu/gpu.h"
#include "io/io.h"
#include "test_engine_util.h"

/* The engine's trace parses (strict JSON) and holds exactly one complete
 * event per stage per partition of job, each on a lane that did it. */
static void check_trace(zp_engine *e, const char *job, uint32_t parts)
{
    char *text;
    size_t len;
    CHECK_EQ_INT(zp_engine_trace_json(e, &text, &len), ZP_OK);
    zp__json doc;
    zp__ioerr why;
    CHECK_EQ_INT(zp__json_parse(&doc, text, len, NULL, &why), ZP_OK);
    zp_free(text);
    int seen[ZP__ST_COUNT][8] = {{0}};
    const zp__jval *ev = zp__json_get(doc.root, "traceEvents");
    CHECK(ev && ev->type == ZP__J_ARRAY);
    for (size_t i = 0; ev && i < ev->n; i++) {
        const zp__jval *x = &ev->items[i];
        const zp__jval *ph = zp__json_get(x, "ph"), *args = zp__json_get(x, "args");
        if (!ph || strcmp(ph->str, "X"))
            continue;
        const zp__jval *name = zp__json_get(x, "name"), *j = zp__json_get(args, "job");
        const zp__jval *p = zp__json_get(args, "partition"), *tid = zp__json_get(x, "tid");
        CHECK(name && j && p && tid && zp__json_get(x, "ts") && zp__json_get(x, "dur"));
        if (!name || !j || !p || !tid || strcmp(j->str, job))
            continue;
        int part = atoi(p->str), lane = atoi(tid->str);
        int st = -1;
        for (int s = 0; s < ZP__ST_COUNT; s++)
            if (!strcmp(name->str, zp__stage_name((zp__stage)s)))
                st = s;
        CHECK(st >= 0 && part >= 0 && part < 8);
        /* Proving stages on a proving worker, verify on the pool. */
        CHECK(st == ZP__ST_VERIFY ? lane >= e->n_provers : lane < e->n_provers);
        if (st >= 0 && part >= 0 && part < 8)
            seen[st][part]++;
    }
    for (int s = 0; s < ZP__ST_COUNT; s++)
        for (uint32_t p = 0; p < 8; p++)
            CHECK_EQ_INT(seen[s][p], p < parts ? 1 : 0);
    zp__json_free(&doc);
}

static void test_prove_and_verify(void)
{
    zp_engine *e = t_open(2, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    char id[ZP_JOB_ID_MAX + 1];
    CHECK_EQ_INT(t_submit(e, "job-1", "k", ZP_PRIO_NORMAL, 3, 7, id), ZP_OK);
    CHECK(!strcmp(id, "job-1"));
    zp_job_info info;
    zp_job_result res;
    CHECK_EQ_INT(zp_engine_await(e, "job-1", -1, &info, &res), ZP_OK);
    CHECK_EQ_INT(info.state, ZP_JOB_DONE);
    CHECK(!strcmp(info.key, "k"));
    CHECK(info.submitted_s >= 0 && info.started_s >= info.submitted_s &&
          info.finished_s >= info.started_s);
    CHECK_EQ_INT(res.partitions, 3);
    CHECK(res.n_public >= 1);
    CHECK(t_result_verifies(e, "k", &res));
    /* Seeds differ per partition, so the public inputs do too. */
    CHECK(memcmp(res.public_inputs, res.public_inputs + 32 * res.n_public, 32) != 0);
    /* A corrupted proof must not pass the independent check. */
    res.proofs[192 + 50] ^= 1;
    CHECK(!t_result_verifies(e, "k", &res));
    zp_job_result_free(&res);
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.jobs_submitted, 1);
    CHECK_EQ_INT(st.jobs_done, 1);
    CHECK_EQ_INT(st.proofs_verified, 3);
    CHECK_EQ_INT(st.proofs_rejected, 0);
    CHECK_EQ_INT(st.workers, 3);
    CHECK_EQ_INT(st.keys_loaded, 1);
    zp_worker_info wi;
    uint64_t proved = 0;
    for (size_t i = 0; zp_engine_worker_info(e, i, &wi) == ZP_OK; i++)
        if (!strncmp(wi.name, "cpu", 3))
            proved += wi.partitions_done;
    CHECK_EQ_INT(proved, 3);
    CHECK_EQ_INT(zp_engine_worker_info(e, 3, &wi), ZP_E_NOT_FOUND);
    check_trace(e, "job-1", 3);
    zp_engine_close(e);
}

static void test_idempotent_ids(void)
{
    zp_engine *e = t_open(1, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    zp__engine_pause(e, true);
    CHECK_EQ_INT(t_submit(e, "same", "k", ZP_PRIO_HIGH, 2, 5, NULL), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "same", "k", ZP_PRIO_HIGH, 2, 5, NULL), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "same", "k", ZP_PRIO_LOW, 2, 5, NULL), ZP_E_EXISTS);
    CHECK_EQ_INT(t_submit(e, "same", "k", ZP_PRIO_HIGH, 1, 5, NULL), ZP_E_EXISTS);
    CHECK_EQ_INT(t_submit(e, "same", "k", ZP_PRIO_HIGH, 2, 6, NULL), ZP_E_EXISTS);
    char a[ZP_JOB_ID_MAX + 1], b[ZP_JOB_ID_MAX + 1];
    CHECK_EQ_INT(t_submit(e, NULL, "k", ZP_PRIO_LOW, 1, 1, a), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "", "k", ZP_PRIO_LOW, 1, 1, b), ZP_OK);
    CHECK(strcmp(a, b) != 0);
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.jobs_submitted, 3);
    CHECK_EQ_INT(st.queued_partitions[ZP_PRIO_HIGH], 2);
    zp__engine_pause(e, false);
    t_await_ok(e, "same", "k", 2);
    /* Still the same job once finished. */
    CHECK_EQ_INT(t_submit(e, "same", "k", ZP_PRIO_HIGH, 2, 5, NULL), ZP_OK);
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.jobs_submitted, 3);
    t_await_ok(e, a, "k", 1);
    t_await_ok(e, b, "k", 1);
    zp_engine_close(e);
}

static int released;
static void count_release(void *ctx, const void *data)
{
    (void)data;
    (*(int *)ctx)++;
}

static void test_bad_requests(void)
{
    zp_engine *e = t_open(1, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    CHECK_EQ_INT(zp_engine_add_key(e, "z", "/nonexistent/key.zkey"), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "a", "nokey", ZP_PRIO_NORMAL, 1, 1, NULL), ZP_E_NOT_FOUND);
    CHECK_EQ_INT(t_submit(e, "a", "k", ZP_PRIO_NORMAL, 0, 1, NULL), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(t_submit(e, "a", "k", ZP_PRIO_NORMAL, 65, 1, NULL), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(t_submit(e, "a", "k", (zp_priority)7, 1, 1, NULL), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(t_submit(e, "a b", "k", ZP_PRIO_NORMAL, 1, 1, NULL), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(t_submit(e, "a", "z", ZP_PRIO_NORMAL, 1, 1, NULL), ZP_E_INVALID_ARG);
    char longid[80];
    memset(longid, 'x', 65);
    longid[65] = 0;
    CHECK_EQ_INT(t_submit(e, longid, "k", ZP_PRIO_NORMAL, 1, 1, NULL), ZP_E_INVALID_ARG);
    longid[64] = 0;
    CHECK_EQ_INT(t_submit(e, longid, "k", ZP_PRIO_NORMAL, 1, 1, NULL), ZP_OK);
    /* Two witnesses for three partitions. */
    zp_witness w2[2] = {{.kind = ZP_WITNESS_SYNTH}, {.kind = ZP_WITNESS_SYNTH}};
    zp_job_request r = {.id = "b", .key = "k", .partitions = 3, .witnesses = w2,
                        .n_witnesses = 2};
    CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_E_INVALID_ARG);
    /* A memory witness that is not a .wtns fails the submit, and a borrowed
     * buffer goes back exactly once whatever happens. */
    static const uint8_t junk[64] = {'n', 'o', 'p', 'e'};
    released = 0;
    zp_witness wm = {.kind = ZP_WITNESS_MEMORY, .data = junk, .len = sizeof junk,
                     .release = count_release, .release_ctx = &released};
    r = (zp_job_request){.id = "c", .key = "k", .partitions = 1, .witnesses = &wm,
                         .n_witnesses = 1};
    CHECK(zp_engine_submit(e, &r, NULL) != ZP_OK);
    CHECK_EQ_INT(released, 1);
    r.key = "nokey";
    CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_E_NOT_FOUND);
    CHECK_EQ_INT(released, 2);
    /* A job whose key cannot load fails with the loader's error. */
    zp_witness wf = {.kind = ZP_WITNESS_FILE, .path = "/nonexistent/w.wtns"};
    r = (zp_job_request){.id = "d", .key = "z", .partitions = 1, .witnesses = &wf,
                         .n_witnesses = 1};
    CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_OK);
    zp_job_info info;
    CHECK(zp_engine_await(e, "d", -1, &info, NULL) != ZP_OK);
    CHECK_EQ_INT(info.state, ZP_JOB_FAILED);
    CHECK(strstr(info.message, "partition 0") != NULL);
    /* A missing witness file fails its job with ZP_E_IO or ZP_E_NOT_FOUND. */
    r.id = "e";
    r.key = "k";
    CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_OK);
    zp_err err = zp_engine_await(e, "e", -1, &info, NULL);
    CHECK(err == ZP_E_IO || err == ZP_E_NOT_FOUND);
    CHECK_EQ_INT(zp_engine_await(e, "never", 0, &info, NULL), ZP_E_NOT_FOUND);
    CHECK_EQ_INT(zp_engine_cancel(e, "never"), ZP_E_NOT_FOUND);
    CHECK_EQ_INT(zp_engine_job_status(e, "never", &info), ZP_E_NOT_FOUND);
    zp_engine_close(e);
}

static void small_queue(zp_engine_config *c)
{
    c->max_queued_partitions = 4;
    c->max_jobs = 3;
}

static void test_queue_full_busy(void)
{
    zp_engine *e = t_open(1, 1, small_queue);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    zp__engine_pause(e, true);
    CHECK_EQ_INT(t_submit(e, "a", "k", ZP_PRIO_LOW, 3, 1, NULL), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "b", "k", ZP_PRIO_LOW, 2, 1, NULL), ZP_E_BUSY);
    CHECK_EQ_INT(t_submit(e, "b", "k", ZP_PRIO_LOW, 1, 1, NULL), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "c", "k", ZP_PRIO_LOW, 1, 1, NULL), ZP_E_BUSY);
    zp__engine_pause(e, false);
    t_await_ok(e, "a", "k", 3);
    t_await_ok(e, "b", "k", 1);
    /* Three jobs fit; finished ones are forgotten, oldest first, to make
     * room, but unfinished ones never are. */
    zp__engine_pause(e, true);
    CHECK_EQ_INT(t_submit(e, "c", "k", ZP_PRIO_LOW, 1, 1, NULL), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "d", "k", ZP_PRIO_LOW, 1, 1, NULL), ZP_OK);
    zp_job_info info;
    CHECK_EQ_INT(zp_engine_job_status(e, "a", &info), ZP_E_NOT_FOUND);
    CHECK_EQ_INT(zp_engine_job_status(e, "b", &info), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "e", "k", ZP_PRIO_LOW, 1, 1, NULL), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "f", "k", ZP_PRIO_LOW, 1, 1, NULL), ZP_E_BUSY);
    zp__engine_pause(e, false);
    t_await_ok(e, "e", "k", 1);
    zp_engine_close(e);
}

static void test_await_timeout(void)
{
    zp_engine *e = t_open(1, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    zp__engine_pause(e, true);
    CHECK_EQ_INT(t_submit(e, "a", "k", ZP_PRIO_NORMAL, 1, 1, NULL), ZP_OK);
    zp_job_info info;
    zp_job_result res;
    double t0 = zp__mono_now();
    CHECK_EQ_INT(zp_engine_await(e, "a", 0.05, &info, &res), ZP_E_TIMEOUT);
    double dt = zp__mono_now() - t0;
    CHECK(dt >= 0.05 && dt < 5);
    CHECK_EQ_INT(info.state, ZP_JOB_QUEUED);
    CHECK(res.proofs == NULL);
    CHECK_EQ_INT(zp_engine_await(e, "a", 0, &info, NULL), ZP_E_TIMEOUT);
    zp__engine_pause(e, false);
    CHECK_EQ_INT(zp_engine_await(e, "a", 60, &info, NULL), ZP_OK);
    CHECK_EQ_INT(zp_engine_await(e, "a", 0, &info, NULL), ZP_OK);
    zp_engine_close(e);
}

/* Begin times (ms) of every acquire of job, in timeline order. */
static int starts_of(const char *timeline, const char *job, double *out, int max)
{
    char pat[96];
    snprintf(pat, sizeof pat, ",acquire.begin,%s,", job);
    int n = 0;
    for (const char *p = strstr(timeline, pat); p && n < max; p = strstr(p + 1, pat)) {
        const char *q = p;
        while (q > timeline && q[-1] != '\n')
            q--;
        out[n++] = atof(q + strlen("TIMELINE,"));
    }
    return n;
}

static void test_priority_order(void)
{
    zp_engine *e = t_open(1, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "busy", "k", ZP_PRIO_LOW, 4, 1, NULL), ZP_OK);
    CHECK(t_wait_state(e, "busy", ZP_JOB_RUNNING));
    /* The worker is busy with the low job; line up the rest behind it.
     * Nothing starts while paused, so whatever starts after t_pause had a
     * choice among all of the jobs below. */
    zp__engine_pause(e, true);
    double t_pause = zp__eng_now(e) * 1e3;
    CHECK_EQ_INT(t_submit(e, "low1", "k", ZP_PRIO_LOW, 1, 2, NULL), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "norm", "k", ZP_PRIO_NORMAL, 1, 3, NULL), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "low2", "k", ZP_PRIO_LOW, 1, 4, NULL), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "high", "k", ZP_PRIO_HIGH, 1, 5, NULL), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "crit", "k", ZP_PRIO_CRITICAL, 1, 6, NULL), ZP_OK);
    zp__engine_pause(e, false);
    const char *order[] = {"crit", "high", "norm", "low1", "low2"};
    for (int i = 0; i < 5; i++)
        t_await_ok(e, order[i], "k", 1);
    t_await_ok(e, "busy", "k", 4);
    char *tl;
    CHECK_EQ_INT(zp_engine_timeline(e, &tl, NULL), ZP_OK);
    double t[5], b[4], prev = t_pause;
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_INT(starts_of(tl, order[i], &t[i], 1), 1);
        CHECK(t[i] > prev);
        prev = t[i];
    }
    /* The earlier low job's remaining partitions go before the later low
     * jobs (FIFO by job) but after every more urgent job. */
    int nb = starts_of(tl, "busy", b, 4);
    CHECK_EQ_INT(nb, 4);
    for (int i = 0; i < nb; i++)
        if (b[i] > t_pause)
            CHECK(b[i] > t[2] && b[i] < t[3]);
    zp_free(tl);
    zp_engine_close(e);
}

static void test_fifo_within_priority(void)
{
    zp_engine *e = t_open(1, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    zp__engine_pause(e, true);
    CHECK_EQ_INT(t_submit(e, "A", "k", ZP_PRIO_NORMAL, 3, 1, NULL), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "B", "k", ZP_PRIO_NORMAL, 2, 9, NULL), ZP_OK);
    zp__engine_pause(e, false);
    t_await_ok(e, "A", "k", 3);
    t_await_ok(e, "B", "k", 2);
    char *tl;
    CHECK_EQ_INT(zp_engine_timeline(e, &tl, NULL), ZP_OK);
    /* Starts in the order A0 A1 A2 B0 B1: all of A before any of B. */
    const char *want[] = {"A,0", "A,1", "A,2", "B,0", "B,1"};
    const char *p = tl;
    for (int i = 0; i < 5; i++) {
        char pat[32];
        snprintf(pat, sizeof pat, ",acquire.begin,%s\n", want[i]);
        const char *q = strstr(tl, pat);
        CHECK(q != NULL && q >= p);
        if (q)
            p = q;
    }
    zp_free(tl);
    zp_engine_close(e);
}

static void test_cancel_queued(void)
{
    zp_engine *e = t_open(1, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    zp__engine_pause(e, true);
    CHECK_EQ_INT(t_submit(e, "x", "k", ZP_PRIO_NORMAL, 3, 1, NULL), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "y", "k", ZP_PRIO_NORMAL, 1, 2, NULL), ZP_OK);
    CHECK_EQ_INT(zp_engine_cancel(e, "x"), ZP_OK);
    zp_job_info info;
    CHECK_EQ_INT(zp_engine_await(e, "x", 0, &info, NULL), ZP_E_CANCELLED);
    CHECK_EQ_INT(info.state, ZP_JOB_CANCELLED);
    CHECK(info.started_s < 0);
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.queued_partitions[ZP_PRIO_NORMAL], 1);
    CHECK_EQ_INT(st.queued_jobs[ZP_PRIO_NORMAL], 1);
    zp__engine_pause(e, false);
    t_await_ok(e, "y", "k", 1);
    CHECK(t_wait_idle(e));
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.jobs_cancelled, 1);
    CHECK_EQ_INT(st.proofs_verified, 1);
    /* Cancelling a finished job changes nothing. */
    CHECK_EQ_INT(zp_engine_cancel(e, "y"), ZP_OK);
    CHECK_EQ_INT(zp_engine_await(e, "y", 0, &info, NULL), ZP_OK);
    zp_engine_close(e);
}

static void test_cancel_running(void)
{
    zp_engine *e = t_open(1, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "long", "k", ZP_PRIO_NORMAL, 8, 1, NULL), ZP_OK);
    CHECK(t_wait_state(e, "long", ZP_JOB_RUNNING));
    double t0 = zp__mono_now();
    CHECK_EQ_INT(zp_engine_cancel(e, "long"), ZP_OK);
    zp_job_info info;
    CHECK_EQ_INT(zp_engine_await(e, "long", -1, &info, NULL), ZP_E_CANCELLED);
    CHECK(zp__mono_now() - t0 < 1.0); /* no waiting for the running partition */
    CHECK(t_wait_idle(e));
    CHECK_EQ_INT(zp_engine_job_status(e, "long", &info), ZP_OK);
    CHECK(info.partitions_done < 8);
    CHECK_EQ_INT(info.partitions_running, 0);
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.queued_partitions[ZP_PRIO_NORMAL], 0);
    CHECK_EQ_INT(st.running_partitions, 0);
    CHECK_EQ_INT(st.jobs_cancelled, 1);
    /* The engine goes on. */
    CHECK_EQ_INT(t_submit(e, "next", "k", ZP_PRIO_NORMAL, 1, 1, NULL), ZP_OK);
    t_await_ok(e, "next", "k", 1);
    zp_engine_close(e);
}

/* ------------------------------------------------------- concurrency */

#define CLIENTS 4
#define PER_CLIENT 5

typedef struct client {
    zp_engine *e;
    int index;
    int ok;
} client;

static void *client_main(void *arg)
{
    client *c = arg;
    char ids[PER_CLIENT][ZP_JOB_ID_MAX + 1];
    for (int i = 0; i < PER_CLIENT; i++) {
        snprintf(ids[i], sizeof ids[i], "c%d-%d", c->index, i);
        zp_priority p = (zp_priority)((c->index + i) % ZP_PRIO_COUNT);
        const char *key = (c->index + i) % 2 ? "k" : "k2";
        if (t_submit(c->e, ids[i], key, p, 1 + (uint32_t)(i % 2), (uint64_t)(100 * c->index + i),
                     NULL) == ZP_OK)
            c->ok++;
    }
    for (int i = PER_CLIENT - 1; i >= 0; i--) {
        zp_job_result res;
        zp_job_info info;
        const char *key = (c->index + i) % 2 ? "k" : "k2";
        if (zp_engine_await(c->e, ids[i], -1, &info, &res) == ZP_OK &&
            res.partitions == 1 + (uint32_t)(i % 2) && t_result_verifies(c->e, key, &res))
            c->ok++;
        zp_job_result_free(&res);
    }
    return NULL;
}

static atomic_int watching;

static void *watcher_main(void *arg)
{
    zp_engine *e = arg;
    while (watching) {
        zp_engine_info st;
        zp_engine_status(e, &st);
        char *m = NULL;
        if (zp_engine_metrics(e, &m, NULL) == ZP_OK)
            zp_free(m);
        zp_key_info ki;
        zp_engine_key_info(e, 0, &ki);
        t_sleep_ms(2);
    }
    return NULL;
}

static void test_concurrent_clients(void)
{
    zp_engine *e = t_open(2, 2, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    CHECK_EQ_INT(zp_engine_add_key(e, "k2", T_CIRCUIT2), ZP_OK);
    pthread_t th[CLIENTS], watcher;
    client c[CLIENTS];
    watching = 1;
    pthread_create(&watcher, NULL, watcher_main, e);
    for (int i = 0; i < CLIENTS; i++) {
        c[i] = (client){e, i, 0};
        pthread_create(&th[i], NULL, client_main, &c[i]);
    }
    for (int i = 0; i < CLIENTS; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(c[i].ok, 2 * PER_CLIENT);
    }
    watching = 0;
    pthread_join(watcher, NULL);
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.jobs_done, CLIENTS * PER_CLIENT);
    zp_engine_close(e);
}

typedef struct waiter {
    zp_engine *e;
    zp_err err;
} waiter;

static void *waiter_main(void *arg)
{
    waiter *w = arg;
    w->err = zp_engine_await(w->e, "w", -1, NULL, NULL);
    return NULL;
}

static void test_close_with_waiters(void)
{
    zp_engine *e = t_open(1, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    zp__engine_pause(e, true);
    CHECK_EQ_INT(t_submit(e, "w", "k", ZP_PRIO_NORMAL, 2, 1, NULL), ZP_OK);
    waiter w = {e, ZP_OK};
    pthread_t th;
    pthread_create(&th, NULL, waiter_main, &w);
    t_sleep_ms(20);
    zp_engine_close(e);
    pthread_join(th, NULL);
    CHECK_EQ_INT(w.err, ZP_E_SHUTDOWN);
    zp_engine_close(NULL);
}

static void test_config_and_names(void)
{
    zp_engine_config c;
    zp_engine_config_default(&c);
    CHECK(c.verify);
    CHECK_EQ_INT(c.cpu_workers, 1);
    zp_engine *e = NULL;
    c.cpu_workers = 0;
    CHECK_EQ_INT(zp_engine_open(&e, &c), ZP_E_INVALID_ARG);
    zp_engine_config_default(&c);
    c.max_jobs = 0;
    CHECK_EQ_INT(zp_engine_open(&e, &c), ZP_E_INVALID_ARG);
    /* The GPU tuning: its defaults, a field out of range refused, other
     * settings taken (also by an engine without GPUs). */
    zp_engine_config_default(&c);
    CHECK(c.gpu_tuning.ntt_twist);
    CHECK_EQ_INT(c.gpu_tuning.h_table, ZP_GPU_H_TABLE_AUTO);
    c.gpu_tuning.h_table = ZP_GPU_H_TABLE_MAX + 1;
    CHECK_EQ_INT(zp_gpu_tuning_check(&c.gpu_tuning), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp_engine_open(&e, &c), ZP_E_INVALID_ARG);
    CHECK(e == NULL);
    c.gpu_tuning.h_table = ZP_GPU_H_TABLE_MAX;
    c.gpu_tuning.ntt_twist = false;
    CHECK_EQ_INT(zp_gpu_tuning_check(&c.gpu_tuning), ZP_OK);
    CHECK_EQ_INT(zp_engine_open(&e, &c), ZP_OK);
    zp_engine_close(e);
    e = NULL;
    zp_engine_config_default(&c);
    c.gpus = zp__gpu_count() + 1; /* one more GPU than there is */
    zp_err err = zp_engine_open(&e, &c);
    CHECK(err == ZP_E_NO_GPU || err == ZP_E_UNSUPPORTED);
    CHECK(e == NULL);
    zp_priority p;
    CHECK_EQ_INT(zp_priority_parse(&p, "critical"), ZP_OK);
    CHECK_EQ_INT(p, ZP_PRIO_CRITICAL);
    CHECK_EQ_INT(zp_priority_parse(&p, "urgent"), ZP_E_INVALID_ARG);
    CHECK(!strcmp(zp_priority_name(ZP_PRIO_LOW), "low"));
    CHECK(!strcmp(zp_job_state_name(ZP_JOB_CANCELLED), "cancelled"));
    CHECK(!strcmp(zp_key_tier_name(ZP_KEY_MAPPED), "mapped"));
    e = t_open(1, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT2), ZP_E_EXISTS);
    CHECK_EQ_INT(zp_engine_add_key(e, "x", "key.bin"), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp_engine_add_key(e, "x", "synth:nope:5"), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp_engine_add_key(e, "bad name", T_CIRCUIT), ZP_E_INVALID_ARG);
    zp_engine_close(e);
}

typedef struct tl_log {
    pthread_mutex_t mu;
    int lines, bad, submit, done, stage_lines;
} tl_log;

static tl_log tlog = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0};

static void on_timeline(void *ctx, const char *line)
{
    tl_log *l = ctx;
    double ms;
    char ev[32], job[ZP_JOB_ID_MAX + 1], part[16];
    int n = sscanf(line, "TIMELINE,%lf,%31[^,],%64[^,],%15s", &ms, ev, job, part);
    pthread_mutex_lock(&l->mu);
    l->lines++;
    if (n != 4 || strcmp(job, "tl") || ms < 0) {
        l->bad++;
    } else if (!strcmp(ev, "submit")) {
        l->submit += !strcmp(part, "-");
    } else if (!strcmp(ev, "done")) {
        l->done += !strcmp(part, "-");
    } else if (strstr(ev, ".begin") || strstr(ev, ".end")) {
        l->stage_lines++;
    } else {
        l->bad++;
    }
    pthread_mutex_unlock(&l->mu);
}

static void with_timeline(zp_engine_config *c)
{
    c->timeline_log = on_timeline;
    c->timeline_ctx = &tlog;
}

static void test_timeline_log(void)
{
    zp_engine *e = t_open(2, 1, with_timeline);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "tl", "k", ZP_PRIO_HIGH, 2, 1, NULL), ZP_OK);
    t_await_ok(e, "tl", "k", 2);
    zp_engine_close(e);
    /* Every stage of both partitions begins and ends once. */
    CHECK_EQ_INT(tlog.bad, 0);
    CHECK_EQ_INT(tlog.submit, 1);
    CHECK_EQ_INT(tlog.done, 1);
    CHECK_EQ_INT(tlog.stage_lines, 2 * 2 * ZP__ST_COUNT);
    CHECK_EQ_INT(tlog.lines, 2 + 2 * 2 * ZP__ST_COUNT);
}

static void cache_two(zp_engine_config *c)
{
    c->synth_witness_cache = 2;
}

/* With a witness cache of 2, seeds s and s + 2 prove the same witness: the
 * public inputs agree; s + 1 differs. Proofs still verify; the cache holds
 * two witnesses and is emptied when the key is evicted. */
static void test_witness_cache(void)
{
    zp_engine *e = t_open(2, 1, cache_two);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    char ids[3][ZP_JOB_ID_MAX + 1];
    zp_job_result res[3];
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(t_submit(e, NULL, "k", ZP_PRIO_NORMAL, 1, 10 + (uint64_t)i, ids[i]), ZP_OK);
    for (int i = 0; i < 3; i++) {
        zp_job_info info;
        CHECK_EQ_INT(zp_engine_await(e, ids[i], -1, &info, &res[i]), ZP_OK);
        CHECK(t_result_verifies(e, "k", &res[i]));
    }
    CHECK(res[0].public_len > 0 && res[0].public_len == res[2].public_len);
    CHECK(!memcmp(res[0].public_inputs, res[2].public_inputs, res[0].public_len));
    CHECK(memcmp(res[0].public_inputs, res[1].public_inputs, res[0].public_len) != 0);
    for (int i = 0; i < 3; i++)
        zp_job_result_free(&res[i]);
    pthread_mutex_lock(&e->mu);
    zp__key *k = zp__key_find(e, "k");
    int cached = 0;
    for (int i = 0; i < ZP__WCACHE_MAX; i++)
        cached += k->wcache[i] != NULL;
    pthread_mutex_unlock(&e->mu);
    CHECK_EQ_INT(cached, 2);
    CHECK_EQ_INT(zp_engine_evict_key(e, "k"), ZP_OK);
    pthread_mutex_lock(&e->mu);
    cached = 0;
    for (int i = 0; i < ZP__WCACHE_MAX; i++)
        cached += k->wcache[i] != NULL;
    pthread_mutex_unlock(&e->mu);
    CHECK_EQ_INT(cached, 0);
    zp_engine_close(e);
}

/* A partition whose prover fails as a device would (the injected fault of
 * the tests) goes once more to another prover: the job completes and
 * every proof verifies, one retry counted. With no other prover, or a
 * fault that is not the device's, the job fails naming the fault. */
static void test_fault_retry(void)
{
    /* No room on a GPU is its device's fault too: another prover may have it. */
    const zp_err codes[3] = {ZP_E_GPU, ZP_E_GPU_FATAL, ZP_E_GPU_OOM};
    for (int c = 0; c < 3; c++) {
        zp_engine *e = t_open(2, 1, NULL);
        if (!e)
            return;
        CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
        e->fault_worker = -2;
        e->fault_code = codes[c];
        atomic_store(&e->fault_left, 1);
        char id[ZP_JOB_ID_MAX + 1];
        CHECK_EQ_INT(t_submit(e, NULL, "k", ZP_PRIO_NORMAL, 4, 1, id), ZP_OK);
        t_await_ok(e, id, "k", 4);
        CHECK(atomic_load(&e->fault_left) <= 0);
        pthread_mutex_lock(&e->mu);
        CHECK_EQ_INT(e->partitions_retried, 1);
        pthread_mutex_unlock(&e->mu);
        zp_engine_close(e);
    }
    /* One prover: nowhere else to go. */
    zp_engine *e = t_open(1, 1, NULL);
    if (!e)
        return;
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    e->fault_worker = -2;
    e->fault_code = ZP_E_GPU;
    atomic_store(&e->fault_left, 1);
    char id[ZP_JOB_ID_MAX + 1];
    zp_job_info info;
    CHECK_EQ_INT(t_submit(e, NULL, "k", ZP_PRIO_NORMAL, 2, 1, id), ZP_OK);
    CHECK_EQ_INT(zp_engine_await(e, id, -1, &info, NULL), ZP_E_GPU);
    CHECK(strstr(info.message, "injected fault") != NULL);
    zp_engine_close(e);
    /* Not a device's fault (here: no memory): not retried. */
    e = t_open(2, 1, NULL);
    if (!e)
        return;
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    e->fault_worker = -2;
    e->fault_code = ZP_E_NOMEM;
    atomic_store(&e->fault_left, 1);
    CHECK_EQ_INT(t_submit(e, NULL, "k", ZP_PRIO_NORMAL, 2, 1, id), ZP_OK);
    CHECK_EQ_INT(zp_engine_await(e, id, -1, &info, NULL), ZP_E_NOMEM);
    zp_engine_close(e);
}

int main(void)
{
    RUN(test_config_and_names);
    RUN(test_prove_and_verify);
    RUN(test_idempotent_ids);
    RUN(test_bad_requests);
    RUN(test_queue_full_busy);
    RUN(test_await_timeout);
    RUN(test_priority_order);
    RUN(test_fifo_within_priority);
    RUN(test_cancel_queued);
    RUN(test_cancel_running);
    RUN(test_concurrent_clients);
    RUN(test_close_with_waiters);
    RUN(test_timeline_log);
    RUN(test_witness_cache);
    RUN(test_fault_retry);
    return FINISH();
}
