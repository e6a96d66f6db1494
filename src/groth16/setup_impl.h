/*
 * Pieces of the test-key setup shared by setup.c, setup_fb.c and the tests:
 * fixed-base scalar multiplication with precomputed window tables, and
 * Lagrange basis values at a point.
 */
#ifndef ZP_GROTH16_SETUP_IMPL_H
#define ZP_GROTH16_SETUP_IMPL_H

#include <stddef.h>
#include <stdint.h>

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

#endif
