/*
 * libzkpipe_supraseal_c2: the C entry points of crates.io supraseal-c2 0.1.x
 * (as bellperson 0.27 calls them), backed by one process-wide zkpipe engine
 * (docs/supraseal-c2.md). Link it instead of supraseal-c2's library.
 *
 * Nothing here aborts or throws: every failure is a non-zero code and a
 * malloc'ed message, and the process keeps working.
 */
#ifndef ZKPIPE_SUPRASEAL_C2_H
#define ZKPIPE_SUPRASEAL_C2_H

#include "zkpipe_supraseal_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Proves num_circuits circuits with the SRS srs, blinding circuit i with
 * r_s[i], s_s[i], into proofs[i]. Blocks until every proof is made and
 * verified against the SRS's verifying key. a, b, c are not read after it
 * returns. The circuits become the partitions of one engine job, spread
 * over the engine's workers; concurrent calls share the engine.
 */
zp_ss_result generate_groth16_proofs_c(const zp_ss_assignment provers[], size_t num_circuits,
                                       const zp_ss_fr r_s[], const zp_ss_fr s_s[],
                                       zp_ss_proof proofs[], const zp_ss_srs *srs);

#ifdef __cplusplus
}
#endif
#endif
