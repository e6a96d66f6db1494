/*
 * Proving from evaluated a, b, c (docs/supraseal-c2.md): what bellperson
 * hands supraseal-c2 for one circuit, instead of an R1CS and a witness.
 *
 * bellperson synthesizes the circuit itself and passes, per circuit:
 *  - a, b, c: the constraint evaluations A·w, B·w, C·w, abc_size of them
 *    (the circuit's rows, then one row x_i · 0 = 0 per public input,
 *    ONE included), not transformed and not padded to the domain;
 *  - the input assignment (ONE first) and the aux assignment;
 *  - three density bitmaps of 64-bit words, bit j of word i being variable
 *    64·i + j: A over aux, B over inputs, B over aux. A over inputs is
 *    full (every input has its own row in A).
 *
 * zkpipe's key keeps A, B1, B2 compactly over one variable order (inputs
 * then aux: zkpipe's w = input ‖ aux) with density maps over n_vars, so
 * its maps are ones(n_inputs) ‖ a_aux and b_inp ‖ b_aux; the point
 * arrays of a bellperson .params file are in exactly that order (inputs'
 * points, then aux's), which zp__params_parse keeps. Every value is
 * Montgomery form.
 */
#ifndef ZP_GROTH16_ABC_H
#define ZP_GROTH16_ABC_H

#include <stdatomic.h>
#include <stdint.h>

#include "groth16/gpu_prover.h"
#include "groth16/groth16.h"

/* One circuit's inputs, in the field order of supraseal-c2's Assignment. */
typedef struct zp__abc_in {
    const uint64_t *a_aux;
    uint64_t a_aux_bits, a_aux_pop;
    const uint64_t *b_inp;
    uint64_t b_inp_bits, b_inp_pop;
    const uint64_t *b_aux;
    uint64_t b_aux_bits, b_aux_pop;
    const zp_fr *a, *b, *c;
    uint64_t abc_size;
    const zp_fr *inp;
    uint64_t n_inp;
    const zp_fr *aux;
    uint64_t n_aux;
} zp__abc_in;

/*
 * Checks in against a key's counts (its points and maps are not looked
 * at): pointers present, n_inp = n_public + 1, n_inp + n_aux = n_vars,
 * each bitmap's bit length equal to its assignment's size and its
 * popcount (of the bits below that length) equal to the one given, the
 * A points n_inp + a_aux_pop and the B points b_inp_pop + b_aux_pop equal
 * to the key's n_a and n_b, abc_size <= domain_size, inp[0] = ONE.
 * ZP_E_INVALID_ARG (null pointer), ZP_E_BAD_LENGTH, ZP_E_WITNESS, naming
 * what was wrong.
 */
zp_err zp__abc_check(const zp__abc_in *in, const zp__pk *pk, zp__ioerr *why);

/* zkpipe's density maps over n_inp + n_aux variables (see above), for an
 * in that passed zp__abc_check. ZP_E_NOMEM (both freed then). */
zp_err zp__abc_density(zp__bitmap *a, zp__bitmap *b, const zp__abc_in *in);
/* The same bit by bit: the reference for tests. */
zp_err zp__abc_density_ref(zp__bitmap *a, zp__bitmap *b, const zp__abc_in *in);

/* w = inp ‖ aux (n_inp + n_aux values), copied from up to `threads`
 * threads (<= 0: one per online CPU). */
void zp__abc_witness(zp_fr *w, const zp__abc_in *in, int threads);

/* Stage eval's twin: a, b, c (domain_size values each) from in's,
 * zero-padded past abc_size. */
void zp__abc_load(zp_fr *a, zp_fr *b, zp_fr *c, const zp__abc_in *in, uint64_t domain_size,
                  int threads);

/* True when pk has what proving from a, b, c needs: consistent counts
 * (as zp__pk_counts_ok, less the density maps, which come with each
 * proof) and its point arrays on the host. */
bool zp__abc_key_ok(const zp__pk *pk);

/* A view of pk with the density maps a, b: a shallow copy sharing pk's
 * arrays, for the MSM stage only (its vk is not to be used). */
void zp__abc_view(zp__pk *view, const zp__pk *pk, const zp__bitmap *a, const zp__bitmap *b);

/*
 * zp__prove from a, b, c: checks (zp__abc_check), loads a, b, c in place
 * of eval, then the same h, msm, finish and verification, so for the a, b,
 * c, assignments and maps of a circuit and fixed r, s the proof equals
 * zp__prove's from that circuit's witness byte for byte. opt->cs is
 * ignored. The errors of zp__abc_check, ZP_E_INVALID_ARG for a key
 * without host points or consistent counts, and those of zp__prove (a
 * proof that does not verify is ZP_E_UNSATISFIED).
 */
zp_err zp__prove_abc(zp__proof *out, const zp__pk *pk, const zp__abc_in *in,
                     const zp__prove_opts *opt, zp__prove_times *times, zp__ioerr *why);

/*
 * The GPU slot's side (prove_gpu_abc.c; the slot and key as in
 * gpu_prover.h). put_abc uploads w (n_vars values) and in's a, b, c into
 * the slot, zero-padded to the domain, and waits: then in's arrays are
 * not read again; a lean slot (zp__g16_slot_lean) reads w only after h,
 * so its caller may fill w in the meantime. pre (may be NULL) is a pinned
 * image of in's a then b (abc_size values each) copied ahead: they go up
 * from it at the bus's rate instead of through the slot's staging
 * buffers, and pre is not read after put_abc returns. sums_abc runs the h
 * stage and the five MSMs on them (zp__g16_slot_sums_next's, after its
 * eval), with k's density maps; next (may be NULL) runs on the calling
 * thread with ZP_G16_NEXT_H while the device runs h, before a lean slot
 * reads w (and with the other phases, where it returns NULL: no witness
 * is sent ahead).
 * ZP_E_INVALID_ARG for a key not on the slot's device or larger than the
 * slot, or abc_size above the domain; the GPU errors, named in why.
 */
zp_err zp__g16_slot_put_abc(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w,
                            const zp__abc_in *in, const zp_fr *pre);
zp_err zp__g16_slot_sums_abc(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_next_fn next,
                             void *ctx, zp__g16_sums *out, zp__prove_times *t, zp__ioerr *why);

/*
 * The next partition's a, sent while this one's MSMs run. Called from
 * sums_abc's hook (ZP_G16_NEXT_H, before the MSMs): a is the pinned image
 * (m values, m at most the domain) of the next partition's a, then b's m
 * values, which may be read once *ready is 1 (a's) or 2 (b's too): they
 * are written by then and stay until that partition's put_abc returns.
 * Where this partition's MSMs run as one schedule (a streaming key), a
 * goes up into the bottom of the slot's a as H's chunks leave their
 * scalars there, on the copy stream, the zeros past m to the domain too;
 * the schedule waits for *ready to be 1 at its end if it has not been by
 * then. Then zp__g16_slot_a_sent(s, a) is true and put_abc with pre = that
 * image sends only b. Any other partition's upload or eval waits for
 * those copies before it writes a. a NULL: none.
 */
void zp__g16_slot_a_ahead(zp__g16_slot *s, const zp_fr *a, uint64_t m, const atomic_int *ready);
bool zp__g16_slot_a_sent(const zp__g16_slot *s, const zp_fr *a);
/* On a lean slot whose MSM scratch is b's third, the schedule's H chunks
 * after its last chunk over the witness sum in c's third (the witness's)
 * and b goes up into b's third meanwhile (once *ready is 2), its zeros
 * too: then this is true as well and put_abc sends neither. */
bool zp__g16_slot_b_sent(const zp__g16_slot *s, const zp_fr *a);

#endif
