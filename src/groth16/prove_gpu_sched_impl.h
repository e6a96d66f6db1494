/*
 * The schedule's chunks and the pieces of it that a slot's own ring
 * (prove_gpu_sched.c) and a key's shared ring (prove_gpu_share.c) both
 * use. Internal to those two files.
 */
#ifndef ZP_GROTH16_PROVE_GPU_SCHED_IMPL_H
#define ZP_GROTH16_PROVE_GPU_SCHED_IMPL_H

#include "groth16/prove_gpu_slot_impl.h"
#include "groth16/ring_scan.h"

enum { M_H, M_L, M_A, M_B1, M_B2, M_N };

typedef struct zp__g16_chunk {
    unsigned msm;
    bool streamed;
    uint64_t p, len;      /* points [p, p + len) of the MSM's array */
    uint64_t off, nv, j0; /* the witness it reads (not H) */
    double at;            /* its place: the share of its group done before it */
    size_t seq;           /* order of making, the tie-break */
    unsigned pair;        /* 1: summed with the next chunk as one MSM; 2: that next one */
    double ms;            /* its time on the GPU in the last run (a pair's on its first) */
} zp__g16_chunk;

static const zp__g16_part msm_part[M_N] = {ZP_G16_P_H, ZP_G16_P_L, ZP_G16_P_A, ZP_G16_P_B1,
                                           ZP_G16_P_B2};

/* A schedule buffer of a ring of two staging buffers of rb bytes: a
 * slot's own ring, or a key's shared one, whose chunks are cut alike. */
uint64_t zp__g16_ring_buf_of(uint64_t rb);
/* Makes (or keeps) s's schedule for k and the slot's L ranges. */
zp_err zp__g16_sched_make(zp__g16_slot *s, const zp__g16_dkey *k);
/* A schedule run's kept buckets: H's (the slot's h_acc), and the witness
 * G1 MSMs' (w_acc), which hold one MSM's chunks at a time (w_msm; M_N:
 * none), its ones summed apart; tm: the run's seconds per MSM, where
 * ending one MSM's sum is counted. */
typedef struct zp__g16_accs {
    zp__gpu_msm_acc h, w;
    bool h_on;
    unsigned w_msm;
    zp_g1_jac w_ones;
    double *tm;
} zp__g16_accs;
zp_err zp__g16_accs_begin(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_accs *a, double *tm);
/* Every sum still in buckets ended into out. */
zp_err zp__g16_accs_end(zp__g16_slot *s, zp__g16_accs *a, zp__g16_sums *out);
/* Adds one chunk's MSM (its points at pts) to its sum, or to its kept
 * buckets. */
zp_err zp__g16_sched_chunk(zp__g16_slot *s, const zp__g16_dkey *k, const zp__g16_chunk *x,
                           const void *pts, zp__g16_sums *out, zp__g16_accs *a);
/* Each MSM's share of the schedule's time, and the waits for copies. */
void zp__g16_sched_times(zp__prove_times *t, const double *tm, double wait);
/* The five MSMs over k's shared ring (prove_gpu_share.c). */
zp_err zp__g16_sched_run_shared(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_sums *out,
                                zp__prove_times *t);

#endif
