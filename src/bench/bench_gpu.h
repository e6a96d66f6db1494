/*
 * What bench_gpu.c shares with the other GPU benchmarks (bench_corun.c).
 */
#ifndef ZP_BENCH_GPU_H
#define ZP_BENCH_GPU_H

#include "gpu/gpu.h"

/* Device 0 with its arena and one stream, its name and size printed; NULL
 * (the reason on stderr) when there is none. */
zp__gpu *zp__bench_open_gpu(zp__gpu_stream **s);

/* n distinct G1 (or G2) affine points into d_out on the device, made there
 * from two short host progressions (fixed seeds); waits for s. */
zp_err zp__bench_gpu_points(zp__gpu *g, zp__gpu_stream *s, void *d_out, uint64_t n, bool g2);

#endif
