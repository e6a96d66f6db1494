/*
 * The MSM's size thresholds (zp__gpu_msm_opts) from a GPU test's command
 * line, so that a test runs at small sizes the paths that start at large
 * ones (tests/CMakeLists.txt registers each such run):
 *
 *   --affine-from K     the batch-affine rounds from 2^K dense scalars, in
 *                       passes of at least 2^K entries (G1 with one slot or
 *                       several, G2); 0: every dense part where they fit
 *   --ones-from K       the points of the scalars equal to one through those
 *                       rounds from 2^K of them (G1 and G2; 1: from 2)
 *   --two-level-from K  the bucket reduction in two levels from 2^K buckets
 *                       a window (0: every window of several segments)
 *   --c C               every MSM's window bits (2..22)
 *
 * Other arguments (--small) are left to the test.
 */
#ifndef ZP_GPU_MSM_OPTS_TEST_H
#define ZP_GPU_MSM_OPTS_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"

/* The value after argv[i] as an integer in lo..hi, or exit 2. */
static inline unsigned gpu_test_arg(int argc, char **argv, int i, unsigned lo, unsigned hi)
{
    char *end = NULL;
    long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : -1;
    if (!end || *end || v < (long)lo || v > (long)hi) {
        fprintf(stderr, "%s: a value %u..%u\n", argv[i], lo, hi);
        exit(2);
    }
    return (unsigned)v;
}

/* o <- the defaults, then the thresholds the command line sets. */
static inline void gpu_test_msm_opts(int argc, char **argv, zp__gpu_msm_opts *o)
{
    zp__gpu_msm_opts_default(o);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--affine-from")) {
            uint64_t v = (uint64_t)1 << gpu_test_arg(argc, argv, i++, 0, 31);
            o->g1_affine_from = o->g1_affine_from_shared = o->g2_affine_from = v;
            o->affine_min_entries = v;
        } else if (!strcmp(argv[i], "--ones-from")) {
            uint64_t v = (uint64_t)1 << gpu_test_arg(argc, argv, i++, 0, 31);
            o->g1_ones_affine_from = o->g2_ones_affine_from = v;
        } else if (!strcmp(argv[i], "--two-level-from")) {
            o->two_level_from = (uint64_t)1 << gpu_test_arg(argc, argv, i++, 0, 31);
        } else if (!strcmp(argv[i], "--c")) {
            o->window = gpu_test_arg(argc, argv, i++, 2, 22);
        }
    }
}

/* Whether o sends every dense part through the affine rounds (where their
 * layout fits the scratch). */
static inline bool gpu_test_msm_affine_forced(const zp__gpu_msm_opts *o)
{
    return o->g1_affine_from <= 1 && o->g1_affine_from_shared <= 1 && o->g2_affine_from <= 1 &&
           o->affine_min_entries <= 1;
}

#endif
