/*
 * The test-only GPU fault injection's counting (src/gpu/fault.c), host code
 * that needs no GPU: the after_n-th call of the armed kind on the armed
 * device fails and no other call does; a sticky fault fails every later
 * call on its device (arena carves excepted) and no call on another one;
 * several threads counting down one fault fail exactly one call; reset
 * forgets everything; the boundary's kinds come from the call's text; bad
 * arguments are refused. tests/gpu/test_gpu_fault.c runs faults through a
 * real engine.
 */
#include <pthread.h>

#include "check.h"
#include "gpu/fault.h"

static void test_off_until_armed(void)
{
    zp__gpu_fault_reset();
    CHECK(!zp__gpu_fault_armed());
    for (int k = 0; k < ZP_GPU_FAULT_KINDS; k++)
        CHECK_EQ_INT(zp__gpu_fault_take(0, (zp__gpu_fault_kind)k), 0);
    CHECK_EQ_INT(zp__gpu_fault_arm(0, ZP_GPU_FAULT_COPY, 1, 0, false), ZP_OK);
    CHECK(zp__gpu_fault_armed());
    zp__gpu_fault_reset();
    CHECK(!zp__gpu_fault_armed());
    CHECK_EQ_INT(zp__gpu_fault_take(0, ZP_GPU_FAULT_COPY), 0);
}

static void test_nth_call(void)
{
    zp__gpu_fault_reset();
    CHECK_EQ_INT(zp__gpu_fault_arm(1, ZP_GPU_FAULT_LAUNCH, 3, 0, false), ZP_OK);
    /* Other kinds and other devices do not count. */
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_INT(zp__gpu_fault_take(1, ZP_GPU_FAULT_COPY), 0);
        CHECK_EQ_INT(zp__gpu_fault_take(0, ZP_GPU_FAULT_LAUNCH), 0);
    }
    CHECK_EQ_INT(zp__gpu_fault_take(1, ZP_GPU_FAULT_LAUNCH), 0);
    CHECK_EQ_INT(zp__gpu_fault_take(1, ZP_GPU_FAULT_LAUNCH), 0);
    CHECK_EQ_INT(zp__gpu_fault_take(1, ZP_GPU_FAULT_LAUNCH), ZP__GPU_FAULT_LAUNCH_ERR);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(zp__gpu_fault_take(1, ZP_GPU_FAULT_LAUNCH), 0);
    CHECK_EQ_INT(zp__gpu_fault_fired(1, ZP_GPU_FAULT_LAUNCH), 1);
    CHECK_EQ_INT(zp__gpu_fault_fired(1, ZP_GPU_FAULT_COPY), 0);
    CHECK(!zp__gpu_fault_stuck(1));
    /* The default codes of each kind, and a chosen one. */
    CHECK_EQ_INT(zp__gpu_fault_arm(1, ZP_GPU_FAULT_COPY, 1, 0, false), ZP_OK);
    CHECK_EQ_INT(zp__gpu_fault_take(1, ZP_GPU_FAULT_COPY), ZP__GPU_FAULT_CALL_ERR);
    CHECK_EQ_INT(zp__gpu_fault_arm(1, ZP_GPU_FAULT_SYNC, 1, 0, false), ZP_OK);
    CHECK_EQ_INT(zp__gpu_fault_take(1, ZP_GPU_FAULT_SYNC), ZP__GPU_FAULT_SYNC_ERR);
    CHECK_EQ_INT(zp__gpu_fault_arm(1, ZP_GPU_FAULT_SYNC, 2, 214, false), ZP_OK);
    CHECK_EQ_INT(zp__gpu_fault_take(1, ZP_GPU_FAULT_SYNC), 0);
    CHECK_EQ_INT(zp__gpu_fault_take(1, ZP_GPU_FAULT_SYNC), 214);
    CHECK_EQ_INT(zp__gpu_fault_fired(1, ZP_GPU_FAULT_SYNC), 2);
    /* Re-arming replaces the count. */
    CHECK_EQ_INT(zp__gpu_fault_arm(1, ZP_GPU_FAULT_ARENA, 5, 0, false), ZP_OK);
    CHECK_EQ_INT(zp__gpu_fault_arm(1, ZP_GPU_FAULT_ARENA, 1, 0, false), ZP_OK);
    CHECK(zp__gpu_fault_take(1, ZP_GPU_FAULT_ARENA) != 0);
    CHECK_EQ_INT(zp__gpu_fault_take(1, ZP_GPU_FAULT_ARENA), 0);
    zp__gpu_fault_reset();
    CHECK_EQ_INT(zp__gpu_fault_fired(1, ZP_GPU_FAULT_LAUNCH), 0);
}

static void test_sticky(void)
{
    zp__gpu_fault_reset();
    CHECK_EQ_INT(zp__gpu_fault_arm(2, ZP_GPU_FAULT_COPY, 2, 0, true), ZP_OK);
    CHECK_EQ_INT(zp__gpu_fault_take(2, ZP_GPU_FAULT_LAUNCH), 0); /* before: fine */
    CHECK_EQ_INT(zp__gpu_fault_take(2, ZP_GPU_FAULT_COPY), 0);
    CHECK(!zp__gpu_fault_stuck(2));
    CHECK_EQ_INT(zp__gpu_fault_take(2, ZP_GPU_FAULT_COPY), ZP__GPU_FAULT_STICKY);
    CHECK(zp__gpu_fault_stuck(2));
    /* Every later call of every kind on the device, the arena's aside. */
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < ZP_GPU_FAULT_KINDS; k++)
            CHECK_EQ_INT(zp__gpu_fault_take(2, (zp__gpu_fault_kind)k),
                         k == ZP_GPU_FAULT_ARENA ? 0 : ZP__GPU_FAULT_STICKY);
    CHECK_EQ_INT(zp__gpu_fault_fired(2, ZP_GPU_FAULT_COPY), 4);
    CHECK_EQ_INT(zp__gpu_fault_fired(2, ZP_GPU_FAULT_LAUNCH), 3);
    CHECK_EQ_INT(zp__gpu_fault_fired(2, ZP_GPU_FAULT_ARENA), 0);
    /* Other devices go on. */
    CHECK(!zp__gpu_fault_stuck(3));
    CHECK_EQ_INT(zp__gpu_fault_take(3, ZP_GPU_FAULT_COPY), 0);
    /* A chosen sticky code is the one every later call gets. */
    CHECK_EQ_INT(zp__gpu_fault_arm(3, ZP_GPU_FAULT_LAUNCH, 1, 214, true), ZP_OK);
    CHECK_EQ_INT(zp__gpu_fault_take(3, ZP_GPU_FAULT_LAUNCH), 214);
    CHECK_EQ_INT(zp__gpu_fault_take(3, ZP_GPU_FAULT_OTHER), 214);
    zp__gpu_fault_reset();
    CHECK(!zp__gpu_fault_stuck(2) && !zp__gpu_fault_stuck(3));
    CHECK_EQ_INT(zp__gpu_fault_take(2, ZP_GPU_FAULT_COPY), 0);
}

enum { THREADS = 4, CALLS = 20000 };

static void *hammer(void *arg)
{
    int *failed = arg;
    for (int i = 0; i < CALLS; i++)
        *failed += zp__gpu_fault_take(0, ZP_GPU_FAULT_SYNC) != 0;
    return NULL;
}

/* Slots of one device count down one fault from several threads. */
static void test_threads(void)
{
    zp__gpu_fault_reset();
    CHECK_EQ_INT(zp__gpu_fault_arm(0, ZP_GPU_FAULT_SYNC, THREADS * CALLS / 2, 0, false), ZP_OK);
    pthread_t th[THREADS];
    int failed[THREADS] = {0};
    for (int t = 0; t < THREADS; t++)
        CHECK_EQ_INT(pthread_create(&th[t], NULL, hammer, &failed[t]), 0);
    int total = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        total += failed[t];
    }
    CHECK_EQ_INT(total, 1);
    CHECK_EQ_INT(zp__gpu_fault_fired(0, ZP_GPU_FAULT_SYNC), 1);
    zp__gpu_fault_reset();
}

static void test_kinds_and_args(void)
{
    CHECK_EQ_INT(zp__gpu_fault_kind_of("cudaGetLastError()"), ZP_GPU_FAULT_LAUNCH);
    CHECK_EQ_INT(zp__gpu_fault_kind_of("cudaMemcpyAsync(dev, host, bytes, k, s->st)"),
                 ZP_GPU_FAULT_COPY);
    CHECK_EQ_INT(zp__gpu_fault_kind_of("cudaMemsetAsync(dev, 0, bytes, s->st)"),
                 ZP_GPU_FAULT_COPY);
    CHECK_EQ_INT(zp__gpu_fault_kind_of("cudaStreamSynchronize(s->st)"), ZP_GPU_FAULT_SYNC);
    CHECK_EQ_INT(zp__gpu_fault_kind_of("cudaEventSynchronize(s->clk[1])"), ZP_GPU_FAULT_SYNC);
    CHECK_EQ_INT(zp__gpu_fault_kind_of("cudaSetDevice(g->device)"), ZP_GPU_FAULT_OTHER);
    CHECK_EQ_INT(zp__gpu_fault_kind_of("cudaStreamWaitEvent(w, e, 0)"), ZP_GPU_FAULT_OTHER);
    CHECK_EQ_INT(zp__gpu_fault_kind_of(NULL), ZP_GPU_FAULT_OTHER);
    zp__gpu_fault_reset();
    CHECK_EQ_INT(zp__gpu_fault_arm(-1, ZP_GPU_FAULT_COPY, 1, 0, false), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_fault_arm(ZP__GPU_FAULT_DEVICES, ZP_GPU_FAULT_COPY, 1, 0, false),
                 ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_fault_arm(0, ZP_GPU_FAULT_KINDS, 1, 0, false), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_fault_arm(0, ZP_GPU_FAULT_COPY, 0, 0, false), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_fault_arm(0, ZP_GPU_FAULT_COPY, 1, -5, false), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_fault_arm(0, ZP_GPU_FAULT_ARENA, 1, 0, true), ZP_E_INVALID_ARG);
    CHECK(!zp__gpu_fault_armed()); /* nothing refused turned it on */
    CHECK_EQ_INT(zp__gpu_fault_take(-1, ZP_GPU_FAULT_COPY), 0);
    CHECK_EQ_INT(zp__gpu_fault_take(ZP__GPU_FAULT_DEVICES, ZP_GPU_FAULT_COPY), 0);
    CHECK_EQ_INT(zp__gpu_fault_fired(-1, ZP_GPU_FAULT_COPY), 0);
}

int main(void)
{
    RUN(test_off_until_armed);
    RUN(test_nth_call);
    RUN(test_sticky);
    RUN(test_threads);
    RUN(test_kinds_and_args);
    return FINISH();
}
