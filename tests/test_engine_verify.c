/*
 * Verification inside the engine: a rejected proof is proved again once on
 * another worker and the job still completes; rejected twice, the job fails
 * with ZP_E_VERIFY_FAILED and says why; a witness that does not satisfy the
 * circuit is caught by the real verifier the same way; with verification
 * off, nothing is checked.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "io/io.h"
#include "test_engine_util.h"

typedef struct hook_log {
    pthread_mutex_t mu;
    uint32_t reject_part;     /* partition to reject */
    unsigned reject_upto;     /* reject attempts 1..this */
    int calls;                /* calls for reject_part */
    int other_calls;
    int worker[4];            /* worker that made attempt i+1 */
} hook_log;

static bool hook(void *ctx, const char *job, uint32_t part, unsigned attempt, int worker)
{
    (void)job;
    hook_log *h = ctx;
    pthread_mutex_lock(&h->mu);
    bool reject = false;
    if (part == h->reject_part) {
        if (h->calls < 4)
            h->worker[h->calls] = worker;
        h->calls++;
        reject = attempt <= h->reject_upto;
    } else {
        h->other_calls++;
    }
    pthread_mutex_unlock(&h->mu);
    return reject;
}

typedef struct every_log {
    pthread_mutex_t mu;
    int worker[8][2]; /* [partition][attempt - 1] */
} every_log;

/* Rejects the first proof of every partition. */
static bool reject_first(void *ctx, const char *job, uint32_t part, unsigned attempt, int worker)
{
    (void)job;
    every_log *h = ctx;
    pthread_mutex_lock(&h->mu);
    if (part < 8 && attempt >= 1 && attempt <= 2)
        h->worker[part][attempt - 1] = worker;
    pthread_mutex_unlock(&h->mu);
    return attempt == 1;
}

static void test_rejected_once_then_retried(void)
{
    zp_engine *e = t_open(2, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    every_log h = {PTHREAD_MUTEX_INITIALIZER, {{0}}};
    memset(h.worker, -1, sizeof h.worker);
    zp__engine_set_verify_hook(e, reject_first, &h);
    CHECK_EQ_INT(t_submit(e, "j", "k", ZP_PRIO_NORMAL, 6, 11, NULL), ZP_OK);
    t_await_ok(e, "j", "k", 6);
    /* Each retry ran on the other worker (by chance alone: 1 in 64). */
    for (int p = 0; p < 6; p++) {
        CHECK(h.worker[p][0] >= 0 && h.worker[p][1] >= 0);
        CHECK(h.worker[p][0] != h.worker[p][1]);
    }
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.proofs_rejected, 6);
    CHECK_EQ_INT(st.proofs_verified, 6);
    CHECK_EQ_INT(st.jobs_done, 1);
    zp_engine_close(e);
}

static void test_rejected_twice_fails(void)
{
    zp_engine *e = t_open(2, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    hook_log h = {PTHREAD_MUTEX_INITIALIZER, 0, 99, 0, 0, {-1, -1, -1, -1}};
    zp__engine_set_verify_hook(e, hook, &h);
    CHECK_EQ_INT(t_submit(e, "j", "k", ZP_PRIO_NORMAL, 2, 11, NULL), ZP_OK);
    zp_job_info info;
    zp_job_result res;
    CHECK_EQ_INT(zp_engine_await(e, "j", -1, &info, &res), ZP_E_VERIFY_FAILED);
    CHECK_EQ_INT(info.state, ZP_JOB_FAILED);
    CHECK_EQ_INT(info.error, ZP_E_VERIFY_FAILED);
    CHECK(strstr(info.message, "partition 0") && strstr(info.message, "twice"));
    CHECK(res.proofs == NULL);
    CHECK(t_wait_idle(e));
    CHECK_EQ_INT(h.calls, 2);
    CHECK(h.worker[0] != h.worker[1]);
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.proofs_rejected, 2);
    CHECK_EQ_INT(st.jobs_failed, 1);
    /* One worker only: the retry has to run on the same worker. */
    zp_engine_close(e);
    e = t_open(1, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    hook_log h1 = {PTHREAD_MUTEX_INITIALIZER, 0, 1, 0, 0, {-1, -1, -1, -1}};
    zp__engine_set_verify_hook(e, hook, &h1);
    CHECK_EQ_INT(t_submit(e, "j", "k", ZP_PRIO_NORMAL, 1, 11, NULL), ZP_OK);
    t_await_ok(e, "j", "k", 1);
    CHECK_EQ_INT(h1.calls, 2);
    zp_engine_close(e);
}

/* A .wtns file of the synthetic witness for key k, seed, with value
 * `bad` (when nonzero) changed so the witness no longer satisfies. */
static bool write_witness(zp_engine *e, const char *path, uint64_t seed, uint32_t bad)
{
    CHECK_EQ_INT(zp_engine_preload_key(e, "k"), ZP_OK);
    pthread_mutex_lock(&e->mu);
    zp__key *k = zp__key_find(e, "k");
    pthread_mutex_unlock(&e->mu);
    zp_fr *w = malloc(k->pk.n_vars * sizeof *w);
    bool ok = w && zp__synth_witness(w, &k->cs, &k->spec, seed) == ZP_OK;
    if (ok && bad)
        zp_fr_add(&w[bad], &w[bad], &w[0]);
    ok = ok && zp__wtns_save(path, w, k->pk.n_vars, NULL) == ZP_OK;
    free(w);
    return ok;
}

static void test_unsatisfied_witness_fails(void)
{
    zp_engine *e = t_open(2, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    char good[64], bad[64];
    snprintf(good, sizeof good, "/tmp/zp_test_engine_%d_good.wtns", (int)getpid());
    snprintf(bad, sizeof bad, "/tmp/zp_test_engine_%d_bad.wtns", (int)getpid());
    CHECK(write_witness(e, good, 3, 0));
    CHECK(write_witness(e, bad, 3, 5));
    zp_witness w[2] = {{.kind = ZP_WITNESS_FILE, .path = good},
                       {.kind = ZP_WITNESS_FILE, .path = bad}};
    zp_job_request r = {.id = "g", .key = "k", .partitions = 1, .witnesses = w,
                        .n_witnesses = 1};
    CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_OK);
    t_await_ok(e, "g", "k", 1);
    r = (zp_job_request){.id = "b", .key = "k", .partitions = 2, .witnesses = w,
                         .n_witnesses = 2};
    CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_OK);
    zp_job_info info;
    CHECK_EQ_INT(zp_engine_await(e, "b", -1, &info, NULL), ZP_E_VERIFY_FAILED);
    CHECK(strstr(info.message, "partition 1") != NULL);
    /* The same witness in memory (copied at submit). */
    zp__buf buf;
    CHECK_EQ_INT(zp__file_read(&buf, good, 1 << 20, NULL), ZP_OK);
    zp_witness wm = {.kind = ZP_WITNESS_MEMORY, .data = buf.data, .len = buf.len};
    r = (zp_job_request){.id = "m", .key = "k", .partitions = 2, .witnesses = &wm,
                         .n_witnesses = 1};
    CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_OK);
    t_await_ok(e, "m", "k", 2);
    /* The same id and bytes after it finished is the same job; other
     * bytes under that id are not. */
    CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_OK);
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.jobs_submitted, 3);
    ((uint8_t *)buf.data)[buf.len - 1] ^= 1; /* buf is a heap copy */
    CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_E_EXISTS);
    zp__buf_free(&buf);
    unlink(good);
    unlink(bad);
    zp_engine_close(e);
}

static void no_verify(zp_engine_config *c)
{
    c->verify = false;
}

static void test_verification_off(void)
{
    zp_engine *e = t_open(1, 1, no_verify);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    hook_log h = {PTHREAD_MUTEX_INITIALIZER, 0, 99, 0, 0, {-1, -1, -1, -1}};
    zp__engine_set_verify_hook(e, hook, &h);
    CHECK_EQ_INT(t_submit(e, "j", "k", ZP_PRIO_NORMAL, 2, 1, NULL), ZP_OK);
    t_await_ok(e, "j", "k", 2); /* checks the proofs itself */
    CHECK_EQ_INT(h.calls + h.other_calls, 0);
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.proofs_verified, 0);
    zp_engine_close(e);
}

int main(void)
{
    RUN(test_rejected_once_then_retried);
    RUN(test_rejected_twice_fails);
    RUN(test_unsatisfied_witness_fails);
    RUN(test_verification_off);
    return FINISH();
}
