/*
 * libzkpipe_supraseal_c2_curio: the C entry points of Curio's supraseal-c2
 * fork (as cuzk calls them), backed by one process-wide zkpipe engine
 * (docs/supraseal-c2.md). The SRS calls are in zkpipe_supraseal_types.h.
 *
 * gpu_mutex and gpu_index are accepted and not needed: the engine
 * schedules its GPUs' slots itself, so one call's circuits spread over
 * every GPU and slot and concurrent callers need no lock of their own.
 * set_membw_throttle, which the fork's caller defines, is never called.
 */
#ifndef ZKPIPE_SUPRASEAL_C2_CURIO_H
#define ZKPIPE_SUPRASEAL_C2_CURIO_H

#include "zkpipe_supraseal_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* As the upstream call (zkpipe_supraseal_c2.h). */
zp_ss_result generate_groth16_proofs_c(const zp_ss_assignment provers[], size_t num_circuits,
                                       const zp_ss_fr r_s[], const zp_ss_fr s_s[],
                                       zp_ss_proof proofs[], const zp_ss_srs *srs,
                                       void *gpu_mutex, int gpu_index);

/*
 * The call in two halves. start queues the circuits and returns once the
 * engine has read every circuit's a, b, c (they may be freed then); the
 * assignments and density bitmaps, r_s and s_s must stay valid until
 * finalize_groth16_proof_c or destroy_pending_proof. *pending is NULL on
 * failure.
 */
zp_ss_result generate_groth16_proofs_start_c(const zp_ss_assignment provers[],
                                             size_t num_circuits, const zp_ss_fr r_s[],
                                             const zp_ss_fr s_s[], const zp_ss_srs *srs,
                                             void *gpu_mutex, int gpu_index, void **pending);
/* Waits for the proofs (made and verified) into proofs[0 .. num_circuits)
 * and frees pending, also on failure. */
zp_ss_result finalize_groth16_proof_c(void *pending, zp_ss_proof proofs[]);
/* Abandons pending: its circuits are cancelled, and once no worker reads
 * the caller's memory any more it is freed. NULL is fine. */
void destroy_pending_proof(void *pending);

/* A mutex for gpu_mutex (a pthread mutex; the engine does not need it). */
void *create_gpu_mutex(void);
void destroy_gpu_mutex(void *mutex);

#ifdef __cplusplus
}
#endif
#endif
