/*
 * libzkpipe_supraseal_c2: crates.io supraseal-c2 0.1.x's entry points
 * (zkpipe_supraseal_c2.h) over ss.h.
 */
#include "supraseal/ss.h"
#include "zkpipe_supraseal_c2.h"

zp_ss_result generate_groth16_proofs_c(const zp_ss_assignment provers[], size_t num_circuits,
                                       const zp_ss_fr r_s[], const zp_ss_fr s_s[],
                                       zp_ss_proof proofs[], const zp_ss_srs *srs)
{
    if (num_circuits && !proofs)
        return zp__ss_err(ZP_E_INVALID_ARG, "proofs is a NULL pointer");
    zp__ss_call *c;
    zp_ss_result r = zp__ss_start(&c, provers, num_circuits, r_s, s_s, srs, false);
    return r.code ? r : zp__ss_finish(c, proofs);
}
