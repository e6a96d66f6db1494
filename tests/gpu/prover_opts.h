/*
 * The GPU prover's options from a test program's command line, so that
 * one program covers the paths a slot takes only at sizes or on devices
 * the tests lack (ctest registers each set: tests/CMakeLists.txt):
 *   --h-table C        zp_gpu_tuning.h_table: 0 off, 1 automatic, 2..22
 *   --no-ntt-twist     zp_gpu_tuning.ntt_twist = false
 *   --after-h          every MSM after h (zp__g16_gpu_opts.beside_h = false)
 *   --upload-parts N   the witness in N parts (1..16)
 *   --upload-head J    part J sent first, whatever the plan (0..N-1)
 *   --resident-cap B   key tiers: at most B bytes of points resident when
 *                      the plan streams (B = 0: every point streams)
 *   --ring-buffer B    key tiers: staging buffers of B bytes
 *   --lean             key tiers: lean working sets (the witness in c's region)
 *   --stream-matrices  key tiers: lean, and the matrices streamed during eval
 *   --ring-share       key tiers: one ring for a GPU's slots (zp_gpu_tuning.ring_share)
 *   --gpu-mem B        the one-shot prover's arena (zp__g16_gpu_open)
 * and, in the programs that give their devices zp__g16_gpu_opts.msm
 * (prover_opts_parse_msm), the MSM thresholds of gpu_msm_opts.h
 * (--affine-from K, --ones-from K, --two-level-from K, --c C).
 * Other arguments (--small) are left to the program. A bad value exits 2.
 */
#ifndef ZP_TEST_PROVER_OPTS_H
#define ZP_TEST_PROVER_OPTS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_msm_opts.h"
#include "groth16/gpu_prover.h"

static zp__g16_gpu_opts T_opts;

static inline uint64_t prover_opts_bytes(const char *flag, const char *v)
{
    char *end = NULL;
    unsigned long long x = v && *v != '-' ? strtoull(v, &end, 10) : 0;
    if (!v || !*v || *end) {
        fprintf(stderr, "%s needs a byte count, not %s\n", flag, v ? v : "nothing");
        exit(2);
    }
    return (uint64_t)x;
}

static inline unsigned prover_opts_num(const char *flag, const char *v, unsigned lo, unsigned hi)
{
    char *end = NULL;
    long x = v ? strtol(v, &end, 10) : -1;
    if (!v || !*v || *end || x < (long)lo || x > (long)hi) {
        fprintf(stderr, "%s needs a number from %u to %u, not %s\n", flag, lo, hi,
                v ? v : "nothing");
        exit(2);
    }
    return (unsigned)x;
}

/* Fills T_opts: the defaults, then the flags; prints what differs. */
static inline void prover_opts_parse(int argc, char **argv)
{
    zp__g16_gpu_opts_default(&T_opts);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--h-table")) {
            T_opts.tuning.h_table = prover_opts_num(a, v, 0, ZP_GPU_H_TABLE_MAX);
            i++;
        } else if (!strcmp(a, "--no-ntt-twist")) {
            T_opts.tuning.ntt_twist = false;
        } else if (!strcmp(a, "--after-h")) {
            T_opts.beside_h = false;
        } else if (!strcmp(a, "--upload-parts")) {
            T_opts.upload_parts = prover_opts_num(a, v, 1, ZP_G16_PARTS_MAX);
            i++;
        } else if (!strcmp(a, "--upload-head")) {
            T_opts.upload_head = prover_opts_num(a, v, 0, ZP_G16_PARTS_MAX - 1);
            i++;
        } else if (!strcmp(a, "--resident-cap")) {
            T_opts.resident_cap = prover_opts_bytes(a, v);
            i++;
        } else if (!strcmp(a, "--ring-share")) {
            T_opts.tuning.ring_share = true;
        } else if (!strcmp(a, "--ring-buffer")) {
            T_opts.ring_buffer = prover_opts_bytes(a, v);
            i++;
        } else if (!strcmp(a, "--lean")) {
            T_opts.lean = true;
        } else if (!strcmp(a, "--usual")) {
            T_opts.usual = true;
        } else if (!strcmp(a, "--stream-matrices")) {
            T_opts.lean = T_opts.stream_matrices = true;
        } else if (!strcmp(a, "--gpu-mem")) {
            T_opts.arena_bytes = prover_opts_bytes(a, v);
            i++;
        }
    }
    if (zp__g16_gpu_opts_check(&T_opts)) {
        fprintf(stderr, "the prover options are out of range\n");
        exit(2);
    }
    printf("prover options: h_table %u, ntt_twist %d, MSMs %s h, upload parts %u%s, head %u%s\n",
           T_opts.tuning.h_table, T_opts.tuning.ntt_twist, T_opts.beside_h ? "beside" : "after",
           T_opts.upload_parts, T_opts.upload_parts ? "" : " (planned)", T_opts.upload_head,
           T_opts.upload_head == ZP_G16_HEAD_PLANNED ? " (planned)" : "");
    if (T_opts.resident_cap != UINT64_MAX || T_opts.ring_buffer || T_opts.arena_bytes ||
        T_opts.lean)
        printf("key tiers: resident cap %llu, ring buffer %llu, arena %llu%s%s\n",
               (unsigned long long)T_opts.resident_cap, (unsigned long long)T_opts.ring_buffer,
               (unsigned long long)T_opts.arena_bytes, T_opts.lean ? ", lean" : "",
               T_opts.stream_matrices ? ", matrices streamed" : "");
}

/* T_opts.msm from the command line (gpu_msm_opts.h), for a program whose
 * devices take it: zp__g16_gpu_open's, or its own opened with it. */
static inline void prover_opts_parse_msm(int argc, char **argv)
{
    gpu_test_msm_opts(argc, argv, &T_opts.msm);
    const zp__gpu_msm_opts *o = &T_opts.msm;
    printf("MSM options: affine from %llu (shared %llu, G2 %llu, %llu entries a pass), "
           "ones from %llu (G2 %llu), two levels from %llu, window %u\n",
           (unsigned long long)o->g1_affine_from, (unsigned long long)o->g1_affine_from_shared,
           (unsigned long long)o->g2_affine_from, (unsigned long long)o->affine_min_entries,
           (unsigned long long)o->g1_ones_affine_from, (unsigned long long)o->g2_ones_affine_from,
           (unsigned long long)o->two_level_from, o->window);
}

/* The MSM paths the slots of a run took (prover_paths_add with each slot
 * before it closes). */
static inline zp__g16_msm_paths *prover_paths(void)
{
    static zp__g16_msm_paths p;
    return &p;
}

static inline void prover_paths_add(const zp__g16_slot *s)
{
    if (!s)
        return;
    zp__g16_msm_paths p, *t = prover_paths();
    zp__g16_slot_msm_paths(s, &p);
    t->msms += p.msms;
    t->affine += p.affine;
    t->ones_after += p.ones_after;
    t->ones_first += p.ones_first;
}

/* At the end of a run: the paths taken, and false where T_opts.msm forces
 * a path that no MSM took (the run would prove nothing about it): every
 * dense part through the batch-affine rounds (--affine-from 0), and the
 * ones through them with G1's threshold lowered (--ones-from): after
 * those rounds where they are forced, else first. */
static inline bool prover_paths_check(void)
{
    const zp__g16_msm_paths *t = prover_paths();
    zp__gpu_msm_opts d;
    zp__gpu_msm_opts_default(&d);
    const bool affine = gpu_test_msm_affine_forced(&T_opts.msm);
    const bool ones = T_opts.msm.g1_ones_affine_from < d.g1_ones_affine_from;
    printf("MSM paths: %llu MSMs, %llu with the affine rounds, ones by them %llu after those, "
           "%llu first\n",
           (unsigned long long)t->msms, (unsigned long long)t->affine,
           (unsigned long long)t->ones_after, (unsigned long long)t->ones_first);
    bool ok = true;
    if (affine && !t->affine) {
        fprintf(stderr, "the affine rounds are forced, but no MSM took them\n");
        ok = false;
    }
    if (ones && affine && !t->ones_after) {
        fprintf(stderr, "the ones after the affine rounds are forced, but no MSM took them\n");
        ok = false;
    }
    if (ones && !affine && !t->ones_first) {
        fprintf(stderr, "the ones first are forced, but no MSM took them\n");
        ok = false;
    }
    return ok;
}

#endif
