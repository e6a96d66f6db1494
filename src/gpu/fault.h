/*
 * TEST-ONLY fault injection in the GPU backend.
 *
 * A test arms a fault: the after_n-th call of one kind on one device from
 * then on fails, as the driver would have failed it. The failure goes
 * through the backend's own error boundary (ZP_CUDA in ctx.cuh, the arena
 * carve in device.cu), so it takes exactly the path a real error takes:
 * zp__gpu_fail classifies it (ZP_E_GPU, or ZP_E_GPU_FATAL and the device
 * marked unhealthy for a sticky code), and the caller unwinds as for a real
 * one. A sticky fault then fails every later checked CUDA call on that
 * device with the same code, as cudaErrorIllegalAddress does, until
 * zp__gpu_fault_reset (a test's) or the end of the process.
 *
 * Nothing reads the environment: only a call to zp__gpu_fault_arm turns it
 * on. Until then the boundary pays one relaxed load of zp__gpu_fault_on and
 * a branch predicted not taken.
 *
 * Host C, built in every build, so that the counting is unit-tested
 * without a GPU (tests/test_gpu_fault.c).
 */
#ifndef ZP_GPU_FAULT_H
#define ZP_GPU_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "zkpipe.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zp__gpu_fault_kind {
    ZP_GPU_FAULT_LAUNCH, /* the check after a kernel launch (ZP_CUDA_LAUNCHED) */
    ZP_GPU_FAULT_COPY,   /* cudaMemcpy*, cudaMemset* */
    ZP_GPU_FAULT_SYNC,   /* cudaStreamSynchronize, cudaEventSynchronize */
    ZP_GPU_FAULT_ARENA,  /* a carve from the arena (zp__gpu_alloc, _high) */
    ZP_GPU_FAULT_OTHER,  /* any other checked CUDA call (cudaSetDevice, events) */
    ZP_GPU_FAULT_KINDS
} zp__gpu_fault_kind;

/* Devices a fault can be armed on: ordinals 0 .. this - 1. */
#define ZP__GPU_FAULT_DEVICES 16

/* The CUDA codes a fault fails with when armed with code 0 (device.cu
 * checks them against cuda_runtime.h): a sticky one, and the non-sticky
 * ones a launch, a copy and a wait can return. */
#define ZP__GPU_FAULT_STICKY 700    /* cudaErrorIllegalAddress */
#define ZP__GPU_FAULT_LAUNCH_ERR 701 /* cudaErrorLaunchOutOfResources */
#define ZP__GPU_FAULT_CALL_ERR 1    /* cudaErrorInvalidValue */
#define ZP__GPU_FAULT_SYNC_ERR 999  /* cudaErrorUnknown */

/*
 * Tests only. From now on, the after_n-th call (1: the next) of `kind` on
 * `device` fails with CUDA error `code` (0: the default for kind and
 * sticky above); sticky: every later checked CUDA call on the device fails
 * with it too. An arena carve fails as a full arena does (ZP_E_GPU_OOM);
 * code and sticky do not apply to it (a host allocator has no sticky
 * state). Re-arming a kind replaces its count. ZP_E_INVALID_ARG for a
 * device, kind or count out of range, or a sticky arena fault.
 */
zp_err zp__gpu_fault_arm(int device, zp__gpu_fault_kind kind, uint32_t after_n, int code,
                         bool sticky);
/* Tests only: disarms every fault and forgets sticky errors and counts. */
void zp__gpu_fault_reset(void);
/* Calls of kind on device that an injected fault failed since the last
 * reset, sticky follow-ups included. */
uint32_t zp__gpu_fault_fired(int device, zp__gpu_fault_kind kind);
/* Whether a sticky fault fired on device since the last reset. */
bool zp__gpu_fault_stuck(int device);

/* The kind of a checked call, from its source text ("cudaMemcpyAsync(...)"). */
zp__gpu_fault_kind zp__gpu_fault_kind_of(const char *call);
/* The boundary's slow path, taken only while zp__gpu_fault_armed(): the
 * CUDA code a call of kind on device fails with now, 0 for none. Counts
 * the call towards an armed fault. */
int zp__gpu_fault_take(int device, zp__gpu_fault_kind kind);

/* Non-zero once a fault was armed (until reset). */
extern int zp__gpu_fault_on;

static inline bool zp__gpu_fault_armed(void)
{
    return __builtin_expect(__atomic_load_n(&zp__gpu_fault_on, __ATOMIC_RELAXED) != 0, 0);
}

#ifdef __cplusplus
}
#endif

#endif
