/*
 * Internal curve helpers shared by g1.c, g2.c, subgroup.c, encode.c and the
 * tests. The public API is in include/zkpipe.h.
 */
#ifndef ZP_MATH_CURVE_H
#define ZP_MATH_CURVE_H

#include "zkpipe.h"

/* out = x^3 + b (G1: b = 4; G2: b = 4(u + 1)). */
void zp__g1_rhs(zp_fp *out, const zp_fp *x);
void zp__g2_rhs(zp_fp2 *out, const zp_fp2 *x);
/* y^2 == x^3 + b without the all-zero-means-infinity rule. */
bool zp__g1_affine_satisfies(const zp_g1_affine *a);
bool zp__g2_affine_satisfies(const zp_g2_affine *a);
/* Projective equality against an affine point, without an inversion. */
bool zp__g1_jac_eq_affine(const zp_g1_jac *a, const zp_g1_affine *b);
bool zp__g2_jac_eq_affine(const zp_g2_jac *a, const zp_g2_affine *b);
/* out = k*p by plain double-and-add with mixed additions. */
void zp__g1_mul_affine_dbladd(zp_g1_jac *out, const zp_g1_affine *p, const uint64_t *k,
                              size_t nlimbs);
void zp__g2_mul_affine_dbladd(zp_g2_jac *out, const zp_g2_affine *p, const uint64_t *k,
                              size_t nlimbs);

/* The endomorphisms of the fast subgroup tests (subgroup.c):
 * phi(x, y) = (beta x, y) on G1, acting on G1 as [-x^2];
 * psi = untwist-Frobenius-twist on G2, acting on G2 as [x]. */
void zp__g1_phi(zp_g1_affine *out, const zp_g1_affine *a);
void zp__g2_psi(zp_g2_affine *out, const zp_g2_affine *a);

/* zp_g1/g2_decode without the subgroup test (the caller does it, e.g.
 * eight at a time); the same errors otherwise, infinity included. */
zp_err zp__g1_decode_on_curve(zp_g1_affine *out, const uint8_t *in, size_t len);
zp_err zp__g2_decode_on_curve(zp_g2_affine *out, const uint8_t *in, size_t len);
/* Slow references for the subgroup tests: [r]P == O. */
bool zp__g1_in_subgroup_slow(const zp_g1_affine *a);
bool zp__g2_in_subgroup_slow(const zp_g2_affine *a);
/* The G1 endomorphism test by plain double-and-add over x^2 (the twin of
 * zp_g1_affine_in_subgroup's addition chain). */
bool zp__g1_in_subgroup_dbladd(const zp_g1_affine *a);

#endif
