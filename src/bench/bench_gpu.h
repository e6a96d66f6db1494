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

/* n scalars into s (fixed by seed): random below 2^254; with sparse, bench
 * msm --sparse's (60 % zero, 30 % one, 10 % random); with tail as well, a
 * synth:porep witness's layout (the last eighth random, the rest 56 %
 * zero, 43 % one, 1 % random). */
void zp__bench_host_scalars(zp_fr *s, size_t n, bool sparse, bool tail, uint64_t seed);

#endif
