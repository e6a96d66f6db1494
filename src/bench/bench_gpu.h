/*
 * What bench_gpu.c shares with the other GPU benchmarks (bench_corun.c).
 */
#ifndef ZP_BENCH_GPU_H
#define ZP_BENCH_GPU_H

#include "gpu/gpu.h"

/* Device 0 with its arena and one stream, its name and size printed; NULL
 * (the reason on stderr) when there is none. _msm: with the MSM options
 * mo (bench msm's --window and crossover flags), printed where its
 * crossovers are not the defaults. */
zp__gpu *zp__bench_open_gpu(zp__gpu_stream **s);
zp__gpu *zp__bench_open_gpu_msm(zp__gpu_stream **s, const zp__gpu_msm_opts *mo);

/* A size's line: the median of reps runs against the floor (floor_ms),
 * and its `RESULT,...` CSV line. */
void zp__bench_report(const char *what, const char *backend, int lg, double *ms, int reps,
                      double floor_ms);
/* The floor of an MSM of 2^lg points: one H200's G1 2^26 in 0.28 s with
 * XYZZ buckets, scaled by the points, G2 three times G1. */
double zp__bench_msm_floor_ms(int lg, bool g2);
/* The end of a GPU MSM benchmark: e reported, the arena buffers freed (up
 * to four; NULL for none), the stream and device closed; the exit status. */
int zp__bench_msm_end(zp__gpu *g, zp__gpu_stream *s, zp_err e, zp__gpu_buf *b0, zp__gpu_buf *b1,
                      zp__gpu_buf *b2, zp__gpu_buf *b3);

/* bench msm --chunks (bench_msm_chunks.c): sizes 2^from .. 2^to, reps
 * timed runs after warmup, the points in `chunks` chunks; acc_c and
 * acc_mib as the options --acc-c and --acc-scratch-mib (0: their
 * defaults); msm: the device's MSM options (--window, the crossovers);
 * tail: --sparse's scalars laid out as a porep witness's. _sparse: the
 * witness MSMs' case (with the 0/1 split). */
typedef struct zp__bench_chunks {
    int from, to, reps, warmup, chunks, acc_c, acc_mib;
    bool tail;
    zp__gpu_msm_opts msm;
} zp__bench_chunks;
int zp__bench_msm_chunks(const zp__bench_chunks *c);
int zp__bench_msm_chunks_sparse(const zp__bench_chunks *c);

/* n distinct G1 (or G2) affine points into d_out on the device, made there
 * from two short host progressions (fixed seeds); waits for s. */
zp_err zp__bench_gpu_points(zp__gpu *g, zp__gpu_stream *s, void *d_out, uint64_t n, bool g2);

/* n scalars into s (fixed by seed): random below 2^254; with sparse, bench
 * msm --sparse's (60 % zero, 30 % one, 10 % random); with tail as well, a
 * synth:porep witness's layout (the last eighth random, the rest 56 %
 * zero, 43 % one, 1 % random). */
void zp__bench_host_scalars(zp_fr *s, size_t n, bool sparse, bool tail, uint64_t seed);

#endif
