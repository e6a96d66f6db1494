/*
 * The GPU prover's options from a test program's command line, so that
 * one program covers the paths a slot takes only at sizes or on devices
 * the tests lack (ctest registers each set: tests/CMakeLists.txt):
 *   --h-table C        zp_gpu_tuning.h_table: 0 off, 1 automatic, 2..22
 *   --no-ntt-twist     zp_gpu_tuning.ntt_twist = false
 *   --after-h          every MSM after h (zp__g16_gpu_opts.beside_h = false)
 *   --upload-parts N   the witness in N parts (1..16)
 *   --upload-head J    part J sent first, whatever the plan (0..N-1)
 * Other arguments (--small) are left to the program. A bad value exits 2.
 */
#ifndef ZP_TEST_PROVER_OPTS_H
#define ZP_TEST_PROVER_OPTS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/gpu_prover.h"

static zp__g16_gpu_opts T_opts;

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
        }
    }
    printf("prover options: h_table %u, ntt_twist %d, MSMs %s h, upload parts %u%s, head %u%s\n",
           T_opts.tuning.h_table, T_opts.tuning.ntt_twist, T_opts.beside_h ? "beside" : "after",
           T_opts.upload_parts, T_opts.upload_parts ? "" : " (planned)", T_opts.upload_head,
           T_opts.upload_head == ZP_G16_HEAD_PLANNED ? " (planned)" : "");
}

#endif
