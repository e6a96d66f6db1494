/*
 * GPU faults through a real engine, on device 0 (src/gpu/fault.h makes a
 * real call of the GPU backend fail at a chosen point, through the
 * backend's own error boundary):
 *  - a kernel launch, a copy, a stream wait: one call fails (ZP_E_GPU);
 *    the partition it broke is proved again on another slot or the CPU
 *    worker, exactly one retry is counted, every job completes with
 *    proofs that verify (none rejected: the slot that failed starts over
 *    clean), and the GPU stays healthy and keeps proving;
 *  - an arena carve: the one slot's working set finds no room
 *    (ZP_E_GPU_OOM); its partition goes to the CPU worker, the slot opens
 *    its working set at its next partition and proves again;
 *  - a sticky error (cudaErrorIllegalAddress at a launch, then every call
 *    on the device): the device is marked unhealthy (zp_engine_gpu_info,
 *    the slots' worker info, /metrics zkpipe_gpu_healthy 0, which /healthz
 *    reads as degraded), the one or two partitions the slots held are
 *    retried, every job completes on the CPU worker with verified proofs,
 *    and the GPU's slots take no more work; a key preloaded afterwards
 *    skips that GPU and proves on the CPU;
 *  - one GPU and no CPU worker: after a sticky error every job ends, done
 *    with verified proofs or failed with ZP_E_GPU_FATAL, and a new job is
 *    refused with ZP_E_NO_GPU;
 *  - with two or more GPUs and no CPU worker, a sticky error on GPU 0
 *    moves every partition to the others.
 * The engines' GPU prover options come from the command line
 * (prover_opts.h). Exit 77 without a GPU.
 */
#include <stdio.h>
#include <string.h>

#include "../test_engine_util.h"
#include "gpu/fault.h"
#include "gpu/gpu.h"
#include "groth16/gpu_prover.h"
#include "prover_opts.h"

#define KEY "synth:dense:9"
enum { JOBS = 3, PARTS = 4 };

/* An engine of `cpu` CPU workers and `slots` slots on `gpus` GPUs, with
 * the test key preloaded (resident on the GPUs before any fault is armed). */
static zp_engine *open_engine(int cpu, int gpus, int slots)
{
    zp__gpu_fault_reset();
    zp_engine_config c;
    zp_engine_config_default(&c);
    c.cpu_workers = cpu;
    c.gpus = gpus;
    c.gpu_slots = slots;
    c.verify_threads = 2;
    zp_engine *e = NULL;
    CHECK_EQ_INT(zp__engine_open_opts(&e, &c, &T_opts), ZP_OK);
    if (!e)
        return NULL;
    CHECK_EQ_INT(zp_engine_add_key(e, "k", KEY), ZP_OK);
    CHECK_EQ_INT(zp_engine_preload_key(e, "k"), ZP_OK);
    return e;
}

static uint64_t retried(zp_engine *e)
{
    pthread_mutex_lock(&e->mu);
    uint64_t n = e->partitions_retried;
    pthread_mutex_unlock(&e->mu);
    return n;
}

/* Partitions the slots of GPU g proved, and the CPU workers. */
static uint64_t done_on(zp_engine *e, int g)
{
    uint64_t n = 0;
    for (int i = 0; i < e->n_provers; i++) {
        zp_worker_info w;
        CHECK_EQ_INT(zp_engine_worker_info(e, (size_t)i, &w), ZP_OK);
        if (e->workers[i].gpu == g)
            n += w.partitions_done;
    }
    return n;
}

/* JOBS jobs of PARTS partitions, every one awaited: done, every proof
 * verified independently; the engine verified them all, rejected none. */
static void run_jobs(zp_engine *e, uint64_t seed)
{
    zp_engine_info st0, st;
    CHECK_EQ_INT(zp_engine_status(e, &st0), ZP_OK);
    char ids[JOBS][ZP_JOB_ID_MAX + 1];
    for (int i = 0; i < JOBS; i++)
        CHECK_EQ_INT(t_submit(e, NULL, "k", ZP_PRIO_NORMAL, PARTS, seed + (uint64_t)i, ids[i]),
                     ZP_OK);
    for (int i = 0; i < JOBS; i++)
        t_await_ok(e, ids[i], "k", PARTS);
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.proofs_verified - st0.proofs_verified, JOBS * PARTS);
    CHECK_EQ_INT(st.proofs_rejected, 0);
}

static bool gpu_healthy(zp_engine *e, int g)
{
    zp_gpu_info gi;
    CHECK_EQ_INT(zp_engine_gpu_info(e, (size_t)g, &gi), ZP_OK);
    return gi.healthy;
}

static bool metrics_has(zp_engine *e, const char *line)
{
    char *m = NULL;
    size_t len = 0;
    bool has = zp_engine_metrics(e, &m, &len) == ZP_OK && m && strstr(m, line);
    zp_free(m);
    return has;
}

static const char *const kind_names[ZP_GPU_FAULT_KINDS] = {"launch", "copy", "sync", "arena",
                                                           "other"};

/* One call of kind fails (the after_n-th from now), not sticky. */
static void one_fault(zp__gpu_fault_kind kind, uint32_t after_n, int slots)
{
    zp_engine *e = open_engine(1, 1, slots);
    if (!e)
        return;
    CHECK_EQ_INT(zp__gpu_fault_arm(0, kind, after_n, 0, false), ZP_OK);
    run_jobs(e, 10 + 10 * (uint64_t)kind);
    printf("%s fault: fired %u, retried %llu, gpu0 proved %llu of %d\n", kind_names[kind],
           zp__gpu_fault_fired(0, kind), (unsigned long long)retried(e),
           (unsigned long long)done_on(e, 0), JOBS * PARTS);
    CHECK_EQ_INT(zp__gpu_fault_fired(0, kind), 1);
    CHECK_EQ_INT(retried(e), 1);
    CHECK(gpu_healthy(e, 0));
    CHECK(zp__gpu_healthy(e->gpus[0].dev));
    CHECK(metrics_has(e, "zkpipe_gpu_healthy{gpu=\"0\"} 1"));
    CHECK(metrics_has(e, "zkpipe_partitions_retried_total 1"));
    /* The GPU stays in service: its slots proved partitions. */
    CHECK(done_on(e, 0) > 0);
    zp__gpu_fault_reset();
    zp_engine_close(e);
}

static void test_launch(void) { one_fault(ZP_GPU_FAULT_LAUNCH, 3, 2); }
static void test_copy(void) { one_fault(ZP_GPU_FAULT_COPY, 1, 2); }
static void test_sync(void) { one_fault(ZP_GPU_FAULT_SYNC, 2, 2); }

/* One slot: its working set is carved at its first partition, and that
 * carve fails. Nothing else holds a working set on the GPU, so the slot
 * does not go dormant: the partition fails with ZP_E_GPU_OOM and goes to
 * the CPU worker; the slot carves its set again at its next partition. */
static void test_arena(void)
{
    one_fault(ZP_GPU_FAULT_ARENA, 1, 1);
}

static void test_sticky(void)
{
    zp_engine *e = open_engine(1, 1, 2);
    if (!e)
        return;
    CHECK(metrics_has(e, "zkpipe_gpu_healthy{gpu=\"0\"} 1"));
    CHECK_EQ_INT(zp__gpu_fault_arm(0, ZP_GPU_FAULT_LAUNCH, 5, 0, true), ZP_OK);
    run_jobs(e, 200);
    uint64_t r = retried(e), gpu_done = done_on(e, 0);
    printf("sticky: stuck %d, launches failed %u, calls of other kinds %u, retried %llu, "
           "gpu0 proved %llu of %d before\n",
           zp__gpu_fault_stuck(0), zp__gpu_fault_fired(0, ZP_GPU_FAULT_LAUNCH),
           zp__gpu_fault_fired(0, ZP_GPU_FAULT_OTHER), (unsigned long long)r,
           (unsigned long long)gpu_done, JOBS * PARTS);
    CHECK(zp__gpu_fault_stuck(0));
    /* Each slot held at most one partition when the device broke. */
    CHECK(r >= 1 && r <= 2);
    CHECK(!zp__gpu_healthy(e->gpus[0].dev));
    CHECK(!gpu_healthy(e, 0));
    for (int i = 0; i < e->n_provers; i++) {
        zp_worker_info w;
        CHECK_EQ_INT(zp_engine_worker_info(e, (size_t)i, &w), ZP_OK);
        CHECK_EQ_INT(w.healthy, e->workers[i].gpu < 0);
    }
    CHECK(metrics_has(e, "zkpipe_gpu_healthy{gpu=\"0\"} 0"));
    CHECK(metrics_has(e, "zkpipe_gpu_slots_admitted{gpu=\"0\"} 0"));
    /* The GPU's slots take no more work: the next jobs run on the CPU. */
    run_jobs(e, 300);
    CHECK_EQ_INT(done_on(e, 0), gpu_done);
    CHECK_EQ_INT(retried(e), r);
    /* A key preloaded now skips the failed GPU (it would fail there) and
     * proves on the CPU. */
    CHECK_EQ_INT(zp_engine_add_key(e, "k2", "synth:chain:6"), ZP_OK);
    CHECK_EQ_INT(zp_engine_preload_key(e, "k2"), ZP_OK);
    char id[ZP_JOB_ID_MAX + 1];
    CHECK_EQ_INT(t_submit(e, NULL, "k2", ZP_PRIO_NORMAL, 2, 7, id), ZP_OK);
    t_await_ok(e, id, "k2", 2);
    CHECK_EQ_INT(done_on(e, 0), gpu_done);
    zp__gpu_fault_reset();
    zp_engine_close(e);
}

/* One GPU and no CPU worker: once the GPU breaks, no prover is left. No
 * job waits for ever: each one ends done (its proofs verified) or failed
 * with ZP_E_GPU_FATAL, at least one failed, and a new job is refused with
 * ZP_E_NO_GPU. */
static void test_sticky_alone(void)
{
    zp_engine *e = open_engine(0, 1, 2);
    if (!e)
        return;
    CHECK_EQ_INT(zp__gpu_fault_arm(0, ZP_GPU_FAULT_LAUNCH, 5, 0, true), ZP_OK);
    char ids[JOBS][ZP_JOB_ID_MAX + 1];
    for (int i = 0; i < JOBS; i++)
        CHECK_EQ_INT(t_submit(e, NULL, "k", ZP_PRIO_NORMAL, PARTS, 600 + (uint64_t)i, ids[i]),
                     ZP_OK);
    int failed = 0;
    for (int i = 0; i < JOBS; i++) {
        zp_job_info info;
        zp_job_result res;
        zp_err err = zp_engine_await(e, ids[i], -1, &info, &res);
        if (err == ZP_OK) {
            CHECK_EQ_INT(info.state, ZP_JOB_DONE);
            CHECK(t_result_verifies(e, "k", &res));
            zp_job_result_free(&res);
            continue;
        }
        printf("alone: job %d: %s: %s\n", i, zp_errname(err), info.message);
        CHECK_EQ_INT(err, ZP_E_GPU_FATAL);
        CHECK_EQ_INT(info.state, ZP_JOB_FAILED);
        failed++;
    }
    CHECK(failed >= 1);
    CHECK(!gpu_healthy(e, 0));
    char id[ZP_JOB_ID_MAX + 1];
    CHECK_EQ_INT(t_submit(e, NULL, "k", ZP_PRIO_NORMAL, 1, 9, id), ZP_E_NO_GPU);
    zp__gpu_fault_reset();
    zp_engine_close(e);
}

/* Two or more GPUs, no CPU worker: GPU 0 breaks for good, the others
 * prove everything. */
static void test_sticky_multi(void)
{
    zp_engine *e = open_engine(0, -1, 2);
    if (!e)
        return;
    CHECK(e->n_gpus >= 2);
    CHECK_EQ_INT(zp__gpu_fault_arm(0, ZP_GPU_FAULT_COPY, 2, 0, true), ZP_OK);
    run_jobs(e, 400);
    uint64_t gpu0 = done_on(e, 0);
    printf("sticky, %d GPUs: retried %llu, gpu0 proved %llu of %d\n", e->n_gpus,
           (unsigned long long)retried(e), (unsigned long long)gpu0, JOBS * PARTS);
    CHECK(zp__gpu_fault_stuck(0));
    CHECK(!gpu_healthy(e, 0));
    for (int g = 1; g < e->n_gpus; g++)
        CHECK(gpu_healthy(e, g));
    CHECK(retried(e) >= 1 && retried(e) <= 2);
    run_jobs(e, 500);
    CHECK_EQ_INT(done_on(e, 0), gpu0);
    zp__gpu_fault_reset();
    zp_engine_close(e);
}

int main(int argc, char **argv)
{
    prover_opts_parse(argc, argv);
    if (zp__gpu_count() == 0) {
        printf("no GPU: skipped\n");
        return 77;
    }
    RUN(test_launch);
    RUN(test_copy);
    RUN(test_sync);
    RUN(test_arena);
    RUN(test_sticky);
    RUN(test_sticky_alone);
    if (zp__gpu_count() >= 2)
        RUN(test_sticky_multi);
    else
        printf("skip test_sticky_multi (needs two GPUs; not counted)\n");
    return FINISH();
}
