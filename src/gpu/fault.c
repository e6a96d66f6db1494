/*
 * TEST-ONLY fault injection (fault.h): the counting. Every field is read
 * and written with __atomic builtins: the slots of a device hit the
 * boundary from several threads at once, and the one call that takes a
 * count from 1 to 0 is the one that fails.
 */
#include <string.h>

#include "gpu/fault.h"

int zp__gpu_fault_on;

typedef struct fault_slot {
    uint32_t left;   /* calls until the fault fires (1: the next); 0: disarmed */
    int code;        /* the CUDA code it fails with */
    int sticky;      /* whether the device stays failed after it */
    uint32_t fired;  /* calls it failed */
} fault_slot;

static fault_slot slots[ZP__GPU_FAULT_DEVICES][ZP_GPU_FAULT_KINDS];
static int stuck[ZP__GPU_FAULT_DEVICES]; /* the sticky code of a device, 0: none */

static bool device_ok(int device)
{
    return device >= 0 && device < ZP__GPU_FAULT_DEVICES;
}

static int default_code(zp__gpu_fault_kind kind, bool sticky)
{
    if (sticky)
        return ZP__GPU_FAULT_STICKY;
    switch (kind) {
    case ZP_GPU_FAULT_LAUNCH: return ZP__GPU_FAULT_LAUNCH_ERR;
    case ZP_GPU_FAULT_SYNC: return ZP__GPU_FAULT_SYNC_ERR;
    default: return ZP__GPU_FAULT_CALL_ERR;
    }
}

zp_err zp__gpu_fault_arm(int device, zp__gpu_fault_kind kind, uint32_t after_n, int code,
                         bool sticky)
{
    if (!device_ok(device) || (unsigned)kind >= ZP_GPU_FAULT_KINDS || after_n == 0 ||
        code < 0 || (kind == ZP_GPU_FAULT_ARENA && sticky))
        return ZP_E_INVALID_ARG;
    fault_slot *s = &slots[device][kind];
    __atomic_store_n(&s->left, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&s->code, code ? code : default_code(kind, sticky), __ATOMIC_RELAXED);
    __atomic_store_n(&s->sticky, sticky, __ATOMIC_RELAXED);
    __atomic_store_n(&s->left, after_n, __ATOMIC_RELEASE);
    __atomic_store_n(&zp__gpu_fault_on, 1, __ATOMIC_RELEASE);
    return ZP_OK;
}

void zp__gpu_fault_reset(void)
{
    __atomic_store_n(&zp__gpu_fault_on, 0, __ATOMIC_RELEASE);
    for (int d = 0; d < ZP__GPU_FAULT_DEVICES; d++) {
        __atomic_store_n(&stuck[d], 0, __ATOMIC_RELEASE);
        for (int k = 0; k < ZP_GPU_FAULT_KINDS; k++) {
            fault_slot *s = &slots[d][k];
            __atomic_store_n(&s->left, 0, __ATOMIC_RELEASE);
            __atomic_store_n(&s->fired, 0, __ATOMIC_RELAXED);
        }
    }
}

uint32_t zp__gpu_fault_fired(int device, zp__gpu_fault_kind kind)
{
    if (!device_ok(device) || (unsigned)kind >= ZP_GPU_FAULT_KINDS)
        return 0;
    return __atomic_load_n(&slots[device][kind].fired, __ATOMIC_ACQUIRE);
}

bool zp__gpu_fault_stuck(int device)
{
    return device_ok(device) && __atomic_load_n(&stuck[device], __ATOMIC_ACQUIRE) != 0;
}

zp__gpu_fault_kind zp__gpu_fault_kind_of(const char *call)
{
    static const struct {
        const char *prefix;
        zp__gpu_fault_kind kind;
    } map[] = {
        {"cudaGetLastError", ZP_GPU_FAULT_LAUNCH},
        {"cudaMemcpy", ZP_GPU_FAULT_COPY},
        {"cudaMemset", ZP_GPU_FAULT_COPY},
        {"cudaStreamSynchronize", ZP_GPU_FAULT_SYNC},
        {"cudaEventSynchronize", ZP_GPU_FAULT_SYNC},
    };
    for (size_t i = 0; call && i < sizeof map / sizeof map[0]; i++)
        if (!strncmp(call, map[i].prefix, strlen(map[i].prefix)))
            return map[i].kind;
    return ZP_GPU_FAULT_OTHER;
}

/* Takes one call from s's count: true for the call that brings it to 0. */
static bool count_down(fault_slot *s)
{
    uint32_t n = __atomic_load_n(&s->left, __ATOMIC_ACQUIRE);
    while (n != 0)
        if (__atomic_compare_exchange_n(&s->left, &n, n - 1, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            return n == 1;
    return false;
}

int zp__gpu_fault_take(int device, zp__gpu_fault_kind kind)
{
    if (!device_ok(device) || (unsigned)kind >= ZP_GPU_FAULT_KINDS)
        return 0;
    fault_slot *s = &slots[device][kind];
    int code = __atomic_load_n(&stuck[device], __ATOMIC_ACQUIRE);
    if (code && kind != ZP_GPU_FAULT_ARENA) {
        __atomic_fetch_add(&s->fired, 1, __ATOMIC_RELAXED);
        return code;
    }
    if (!count_down(s))
        return 0;
    code = __atomic_load_n(&s->code, __ATOMIC_RELAXED);
    if (__atomic_load_n(&s->sticky, __ATOMIC_RELAXED))
        __atomic_store_n(&stuck[device], code, __ATOMIC_RELEASE);
    __atomic_fetch_add(&s->fired, 1, __ATOMIC_RELAXED);
    return code;
}
