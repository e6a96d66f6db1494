/*
 * libzkpipe_supraseal_c2_curio: the entry points of Curio's supraseal-c2
 * fork (zkpipe_supraseal_c2_curio.h) over ss.h. gpu_mutex and gpu_index
 * are not needed (the engine schedules its GPUs itself) and
 * set_membw_throttle is never called, so the library does not refer to it.
 */
#include <pthread.h>
#include <stdlib.h>

#include "supraseal/ss.h"
#include "zkpipe_supraseal_c2_curio.h"

zp_ss_result generate_groth16_proofs_c(const zp_ss_assignment provers[], size_t num_circuits,
                                       const zp_ss_fr r_s[], const zp_ss_fr s_s[],
                                       zp_ss_proof proofs[], const zp_ss_srs *srs,
                                       void *gpu_mutex, int gpu_index)
{
    (void)gpu_mutex;
    (void)gpu_index;
    if (num_circuits && !proofs)
        return zp__ss_err(ZP_E_INVALID_ARG, "proofs is a NULL pointer");
    zp__ss_call *c;
    zp_ss_result r = zp__ss_start(&c, provers, num_circuits, r_s, s_s, srs, false);
    return r.code ? r : zp__ss_finish(c, proofs);
}

zp_ss_result generate_groth16_proofs_start_c(const zp_ss_assignment provers[],
                                             size_t num_circuits, const zp_ss_fr r_s[],
                                             const zp_ss_fr s_s[], const zp_ss_srs *srs,
                                             void *gpu_mutex, int gpu_index, void **pending)
{
    (void)gpu_mutex;
    (void)gpu_index;
    if (!pending)
        return zp__ss_err(ZP_E_INVALID_ARG, "pending is a NULL pointer");
    *pending = NULL;
    zp__ss_call *c;
    zp_ss_result r = zp__ss_start(&c, provers, num_circuits, r_s, s_s, srs, true);
    if (!r.code)
        *pending = c;
    return r;
}

zp_ss_result finalize_groth16_proof_c(void *pending, zp_ss_proof proofs[])
{
    return zp__ss_finish(pending, proofs);
}

void destroy_pending_proof(void *pending) { zp__ss_abandon(pending); }

void *create_gpu_mutex(void)
{
    pthread_mutex_t *m = malloc(sizeof *m);
    if (m && pthread_mutex_init(m, NULL)) {
        free(m);
        m = NULL;
    }
    return m;
}

void destroy_gpu_mutex(void *mutex)
{
    if (!mutex)
        return;
    pthread_mutex_destroy(mutex);
    free(mutex);
}
