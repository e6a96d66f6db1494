/*
 * Pieces of the test-key setup shared by setup.c, setup_fb.c and the tests:
 * fixed-base scalar multiplication with precomputed window tables, and
 * Lagrange basis values at a point.
 */
#ifndef ZP_GROTH16_SETUP_IMPL_H
#define ZP_GROTH16_SETUP_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/groth16.h"
#include "zkpipe.h"

/*
 * A table of the multiples d·2^(w·i)·base for d < 2^w and every window i of
 * a 255-bit scalar: one k·base then costs ⌈255/w⌉ mixed additions and no
 * doublings. t[(i << w) + d], entry d = 0 unused (infinity).
 */
typedef struct zp__fb_g1 {
    unsigned w, nwin;
    zp_g1_affine *t;
} zp__fb_g1;

typedef struct zp__fb_g2 {
    unsigned w, nwin;
    zp_g2_affine *t;
} zp__fb_g2;

/* The window (4..14) that minimises table plus multiplication cost for
 * `count` multiplications with one base. */
unsigned zp__fb_window(uint64_t count);

/* ZP_E_INVALID_ARG for w outside 1..16, ZP_E_NOMEM. base may be infinity. */
zp_err zp__fb_g1_init(zp__fb_g1 *fb, const zp_g1_affine *base, unsigned w);
zp_err zp__fb_g2_init(zp__fb_g2 *fb, const zp_g2_affine *base, unsigned w);
void zp__fb_g1_free(zp__fb_g1 *fb);
void zp__fb_g2_free(zp__fb_g2 *fb);

/* out[i] = k[i]·base for i < n, k Montgomery form, affine results
 * (infinity all zero). Cannot fail: scratch is on the stack. */
void zp__fb_g1_mul(zp_g1_affine *out, const zp__fb_g1 *fb, const zp_fr *k, size_t n,
                   int threads);
void zp__fb_g2_mul(zp_g2_affine *out, const zp__fb_g2 *fb, const zp_fr *k, size_t n,
                   int threads);

/*
 * Lagrange basis values of the size-N subgroup ⟨ω_N⟩ at tau, for the
 * `count` points x_i = start·step^i of that subgroup:
 *   out[i] = L_{x_i}(tau) = (tauᴺ − 1)/N · x_i/(tau − x_i).
 * ZP_E_INVALID_ARG when tau is one of the x_i (tauᴺ = 1), ZP_E_NOMEM.
 */
zp_err zp__lagrange_at(zp_fr *out, const zp_fr *tau, const zp_fr *start, const zp_fr *step,
                       size_t count, uint64_t N);
/* The same values computed by `threads` threads (each a range with its own
 * batch inversion): identical output. */
zp_err zp__lagrange_at_par(zp_fr *out, const zp_fr *tau, const zp_fr *start, const zp_fr *step,
                           size_t count, uint64_t N, int threads);

/* -------------------------------------------- the scalars, shared by
 * zp__setup (setup.c) and zp__g16_dkey_setup (setup_gpu.c), which must
 * make the same key from the same toxic waste. */

/* The key's conventions and sizes from cs: h_conv, roots, n_vars,
 * n_public, domain_size; *log2n = log2(domain_size). */
zp_err zp__setup_shape(zp__pk *pk, unsigned *log2n, const zp__r1cs *cs,
                       zp_h_conv conv);

/* *out = *toxic when it is valid (ZP_E_INVALID_ARG for a zero value), or
 * fresh random toxic waste when toxic is NULL (ZP_E_RANDOM). */
zp_err zp__setup_toxic(zp__toxic *out, const zp__toxic *toxic);

/* pk->ma, mb (the circuit's A with the extra input rows, B over the same
 * rows), the densities and n_a, n_b, n_l, n_h. On failure the caller frees
 * pk with zp__pk_free. */
zp_err zp__setup_matrices(zp__pk *pk, const zp__r1cs *cs, int threads);

/* Per variable j < n_vars: u_j, v_j, w_j = Σ_i A/B/C[i][j]·L_i(τ) over the
 * key's matrices (pk->ma, pk->mb) and cs->c. ZP_E_INVALID_ARG when τ is in
 * the domain, ZP_E_NOMEM. */
zp_err zp__setup_uvw(zp_fr *u, zp_fr *v, zp_fr *w, const zp__pk *pk,
                     const zp__r1cs *cs, const zp_fr *tau, unsigned log2n,
                     int threads);

/* In place: w_j <- (β u_j + α v_j + w_j)/γ for j <= n_public (the IC
 * scalars), /δ for the rest (the L scalars, from w + n_public + 1). */
void zp__setup_ic_l(zp_fr *w, const zp_fr *u, const zp_fr *v, const zp__pk *pk,
                    const zp__toxic *t, int threads);

/* In place: keeps the values of v whose bit in d is set, in order; returns
 * how many. */
uint64_t zp__setup_compact(zp_fr *v, const zp__bitmap *d);

/* The pk->n_h H-query scalars (see setup.c). ZP_E_INVALID_ARG when τ is in
 * the 2n domain, ZP_E_NOMEM. */
zp_err zp__setup_h(zp_fr *h, const zp__pk *pk, const zp__toxic *t,
                   unsigned log2n, int threads);

/* The vk's α₁, β₁, δ₁, β₂, γ₂, δ₂ (not IC) with the fixed-base tables of the
 * two generators. */
void zp__setup_vk_points(zp__pk *pk, const zp__toxic *t, const zp__fb_g1 *f1,
                         const zp__fb_g2 *f2);

#endif
