/*
 * The GPU backend's C interface. All CUDA lives under src/gpu/; the rest of
 * zkpipe calls only what this header declares. Without nvcc, nogpu.c
 * provides the same functions reporting that there is no GPU.
 */
#ifndef ZP_GPU_H
#define ZP_GPU_H

#include <stdbool.h>

#include "zkpipe.h"

/* Number of usable CUDA devices; 0 when none or when built without CUDA. */
int zp__gpu_count(void);
/* Whether this build contains the CUDA backend. */
bool zp__gpu_compiled(void);

#endif
