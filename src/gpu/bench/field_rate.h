/*
 * The device field benchmark (`zkpipe bench field`), kept out of the core
 * library: field_rate.cu with CUDA, field_rate_none.c without.
 */
#ifndef ZP_GPU_BENCH_FIELD_RATE_H
#define ZP_GPU_BENCH_FIELD_RATE_H

#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The product rate of the device field code: independent products per
 * second over the whole GPU (field_rate.cu), the ceiling of the MSM and NTT
 * kernels. op: one of the ZP_GPU_RATE_ values (an Fp2 product counts
 * once). scratch: at least zp__gpu_field_rate_bytes(). */
enum { ZP_GPU_RATE_FP_MUL, ZP_GPU_RATE_FP_SQR, ZP_GPU_RATE_FR_MUL, ZP_GPU_RATE_FP2_MUL,
       ZP_GPU_RATE_COUNT };
uint64_t zp__gpu_field_rate_bytes(void);
zp_err zp__gpu_field_rate(zp__gpu_stream *s, zp__gpu_buf scratch, int op, double *per_s);

#ifdef __cplusplus
}
#endif

#endif
