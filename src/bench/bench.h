/*
 * The benchmark drivers behind `zkpipe bench` (libzkpipe_bench): each
 * takes the subcommand's arguments (argv[0] is its name) and returns the
 * process exit status.
 */
#ifndef ZP_BENCH_H
#define ZP_BENCH_H

#include <stdint.h>

/* `zkpipe bench WHAT ...`: dispatches to the drivers below (bench.c). */
int zp__cmd_bench(int argc, char **argv);
/* The engine under a batch of jobs, in process or against a daemon
 * (bench_batch.c, bench_remote.c). */
int zp__bench_batch(int argc, char **argv);
/* GPU-or-CPU NTT and MSM, and the device field's product rate (bench_gpu.c). */
int zp__bench_ntt(int argc, char **argv);
int zp__bench_msm(int argc, char **argv);
int zp__bench_field(int argc, char **argv);
/* Two kinds of GPU work alone and sharing the GPU (bench_corun.c). */
int zp__bench_corun(int argc, char **argv);
/* zkpipe bench copy (bench_copy.c). */
int zp__bench_copy(int argc, char **argv);
/* The median pinned host-to-device rate of GPU `device` in GB/s over reps
 * copies of `bytes` (after one untimed), or 0 where it cannot be measured. */
double zp__bench_h2d_gbs(int device, uint64_t bytes, int reps);
/* One line, after `prefix`: the device memory free outside the arena when
 * it was taken and now, and what the driver or other processes took since
 * (bench_copy.c; zp__gpu_outside says how it is read). */
void zp__bench_print_outside(const char *prefix, uint64_t free_at_open, uint64_t free_now);
/* The whole proof (bench_prove.c). */
int zp__bench_prove(int argc, char **argv);
/* The verifier's plain and prepared ways (bench_verify.c). */
int zp__bench_verify(int argc, char **argv);

#endif
