/*
 * A key shape with no points, for the prover slots' size arithmetic
 * (test_slot_size on the host, test_gpu_slot on a GPU): 2^log2n domain,
 * `vars` variables of which one public, dense A and B, L over the private
 * ones, H of n - 1.
 */
#ifndef ZP_TEST_SLOT_SHAPE_H
#define ZP_TEST_SLOT_SHAPE_H

#include <string.h>

#include "groth16/gpu_prover.h"

static inline zp__pk slot_shape(uint64_t log2n, uint64_t vars)
{
    zp__pk pk;
    memset(&pk, 0, sizeof pk);
    pk.domain_size = (uint64_t)1 << log2n;
    pk.n_vars = vars;
    pk.n_public = 1;
    pk.n_a = pk.n_b = pk.domain_size;
    pk.n_l = vars - 2;
    pk.n_h = pk.domain_size - 1;
    return pk;
}

#endif
