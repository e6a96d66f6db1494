/*
 * What the .cu files of the GPU backend share: the device and stream
 * structs, and the ZP_CUDA error boundary. Host-side C++ only.
 */
#ifndef ZP_GPU_CTX_CUH
#define ZP_GPU_CTX_CUH

#include <pthread.h>
#include <cuda_runtime.h>

#include "gpu/arena.h"
#include "gpu/fault.h"
#include "gpu/field.cuh"
#include "gpu/gpu.h"

/* Root tables: w^i and w^(i*2^14) for i < 2^14, w of order 2^28. Any power
 * w^e with e < 2^28 is lo[e mod 2^14] * hi[e >> 14]. */
#define ZP__TAB_LOG 14
#define ZP__TAB_N (1u << ZP__TAB_LOG)
#define ZP__TAB_MASK (ZP__TAB_N - 1)

struct zp__gpu {
    int device;
    cudaDeviceProp prop;
    char *base;            /* the arena */
    zp__arena arena;
    uint64_t free_at_open; /* device memory free outside the arena once taken */
    pthread_mutex_t lock;  /* guards arena */
    volatile int unhealthy;
    zp__gpu_buf tables;
    /* [snarkjs=0 / bellperson=1][forward=0 / inverse=1] */
    const fr_t *root_lo[2][2], *root_hi[2][2];
    int slots; /* prover slots open on it (zp__gpu_slots_add; atomic) */
    zp__gpu_msm_opts msm; /* from its zp__gpu_config */
    unsigned ntt_tile_log; /* an NTT pass's tile, log2 elements (ntt.cu) */
};

/* Per-stream scratch: power tables of coset NTTs, MSM results, counts. */
#define ZP__STREAM_DEV_BYTES ZP_GPU_STREAM_ARENA_BYTES
#define ZP__STREAM_HOST_BYTES (64u << 10)

#define ZP__STREAM_EVENTS 8

struct zp__gpu_stream {
    zp__gpu *g;
    cudaStream_t st;
    bool profile;                       /* record phase events in MSMs */
    cudaEvent_t ev[ZP__STREAM_EVENTS];  /* phase marks */
    cudaEvent_t dep;                    /* zp__gpu_stream_after's mark */
    cudaEvent_t mark;                   /* zp__gpu_stream_mark's */
    cudaEvent_t clk[2];                 /* zp__gpu_stream_clock's (compute streams) */
    zp__gpu_msm_phases phases;          /* of the last profiled MSM */
    float sort_ms;                      /* profiled: its passes' digits and sorts so far */
    float acc_ms[3];                    /* profiled: round1, round2, xyzz so far */
    unsigned ntt_marks;                 /* events recorded by the last NTT (0: none) */
    zp__gpu_ntt_paths ntt_paths;        /* the kernels of the last NTT */
    const zp__gpu_twist *twist;         /* full twist tables its NTTs use, or NULL */
    zp__gpu_buf dev;       /* ZP__STREAM_DEV_BYTES of device scratch */
    void *host;            /* ZP__STREAM_HOST_BYTES pinned */
    uint64_t last_zeros, last_ones, last_dense;
    unsigned last_windows, last_per_pass; /* of the last MSM's Pippenger part */
    unsigned last_aff_rounds;             /* most batch-affine rounds of a pass (0: none) */
    bool last_ones_affine;                /* the ones summed by affine rounds */
    unsigned last_c;                      /* window bits of the last dense part (0: none) */
};

/* Records a failed call in the thread's error text, classifies it, marks
 * g unhealthy for sticky errors (g may be NULL) and returns the code. */
zp_err zp__gpu_fail(zp__gpu *g, cudaError_t e, const char *file, int line, const char *call);

/* Fills g->root_lo / root_hi and, where it is 0, g->ntt_tile_log for
 * g->prop (ntt.cu); called once by zp__gpu_open. */
zp_err zp__gpu_ntt_tables_build(zp__gpu *g);

/* A checked call's result as an armed test fault has it (fault.h): e, or
 * the code the fault fails the call with. g may be NULL (no fault then). */
cudaError_t zp__gpu_fault_cuda(const zp__gpu *g, const char *call, cudaError_t e);

/* Checks one CUDA call at the boundary of a zp_err function that has a
 * zp__gpu *g in scope. A test's fault (fault.h) enters here, so that it
 * unwinds as the driver's own error would. */
#define ZP_CUDA(call)                                                        \
    do {                                                                     \
        cudaError_t zp_e_ = (call);                                          \
        if (zp__gpu_fault_armed())                                           \
            zp_e_ = zp__gpu_fault_cuda(g, #call, zp_e_);                     \
        if (zp_e_ != cudaSuccess)                                            \
            return zp__gpu_fail(g, zp_e_, __FILE__, __LINE__, #call);        \
    } while (0)

/* After a kernel launch: launch-configuration errors surface here. */
#define ZP_CUDA_LAUNCHED() ZP_CUDA(cudaGetLastError())

/* Checks a zp_err and returns it when it is not ZP_OK. */
#define ZP_TRY(expr)                                                         \
    do {                                                                     \
        zp_err zp_t_ = (expr);                                               \
        if (zp_t_ != ZP_OK)                                                  \
            return zp_t_;                                                    \
    } while (0)

static inline unsigned zp__ceil_div_u(uint64_t a, uint64_t b)
{
    return (unsigned)((a + b - 1) / b);
}

#endif
