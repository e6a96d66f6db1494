/*
 * Internal to the GPU prover (prove_gpu*.c): the stages a slot runs, one
 * by one, so that the zp__g16_gpu wrapper can expose them to tests with
 * their old meaning, and the checks the key upload and the wrapper share.
 */
#ifndef ZP_G16_PROVE_GPU_STAGES_H
#define ZP_G16_PROVE_GPU_STAGES_H

#include "groth16/gpu_prover.h"

/* Whether the GPU prover can use pk: shape, matrices, domain (the checks of
 * zp__g16_dkey_upload before it touches the device). */
zp_err zp__g16_gpu_key_ok(const zp__pk *pk, zp__ioerr *why);

/* ZP_E_INVALID_ARG when k is not on s's device or does not fit s. */
zp_err zp__g16_slot_check(const zp__g16_slot *s, const zp__g16_dkey *k);

/* Enqueues the upload of w (k->pk->n_vars values, Montgomery) to the
 * slot's witness region; w must stay valid until the slot's next wait. */
zp_err zp__g16_slot_put_w(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w);
/* Uploads w (k->pk->n_vars, Montgomery) and evaluates a, b, c; waits. */
zp_err zp__g16_slot_eval(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w);
/* The H scalars, standard form, over a (b and c consumed); waits. */
zp_err zp__g16_slot_h(zp__g16_slot *s, const zp__g16_dkey *k);
/* Copies a, b, c (after eval) or H (after h) back; waits. */
zp_err zp__g16_slot_read(zp__g16_slot *s, const zp__g16_dkey *k, zp_fr *out,
                         zp__g16_gpu_array which);
/* The five MSMs after eval and h: the H scalars first (they are then
 * overwritten), L, then A and B over the witness (B's scalars gathered on
 * the device). */
zp_err zp__g16_slot_msm(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_sums *out,
                        zp__prove_times *t);

double zp__g16_now(void);

/* The witness parts' plan (prove_gpu_parts.c): of `parts` equal parts of
 * a witness whose L MSMs took ms[j] each on their own and whose copies
 * take up_ms each, the run [*from, *to) of parts (fewer than all) to send
 * first and sum during the other parts' copies: the one that hides the
 * most, min(the run's ms, the other parts' copies) less the cheapest
 * part's ms (what an MSM more costs). Ties go to the run found first
 * (earliest, then shortest). False when no run hides anything: the
 * witness then goes in one copy. */
bool zp__g16_parts_plan(const double *ms, unsigned parts, double up_ms, unsigned *from,
                        unsigned *to);

#endif
