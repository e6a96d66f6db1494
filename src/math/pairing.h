/*
 * Internal Miller loop pieces for a pairing whose G2 argument is fixed: the
 * doubling and addition steps on the G2 side of the loop do not depend on
 * the G1 point, so for a Q used many times (a verifying key's γ₂ and δ₂)
 * they can be run once and their lines kept. A loop over kept lines then
 * only evaluates each line at P and multiplies it in.
 */
#ifndef ZP_PAIRING_H
#define ZP_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

#include "zkpipe.h"

/* One step's line before evaluation at P = (xP, yP) (pairing.c explains
 * the form): l0 + (lx xP) v + (ly (-yP)) v w. */
typedef struct zp__line {
    zp_fp2 l0, lx, ly;
} zp__line;

/* Steps of the loop over |x| = 0xd201000000010000: 63 doublings and one
 * addition for each of the 5 set bits below the top one. */
#define ZP__MILLER_LINES 68

/* The lines of the Miller loop of a fixed Q, in loop order (~19.6 KB).
 * inf: Q is infinity, and every pairing with it is 1. */
typedef struct zp__g2_lines {
    bool inf;
    zp__line l[ZP__MILLER_LINES];
} zp__g2_lines;

/* The lines of q's Miller loop; q must lie in G2 (or be infinity). */
void zp__g2_lines_make(zp__g2_lines *out, const zp_g2_affine *q);

/*
 * The Miller loop product of n plain pairs (p_i, q_i) and m pairs (s_j, Q_j)
 * whose Q_j is given by its lines r[j], with one shared Fp12 squaring chain:
 * the same Fp12 value, bit for bit, as the plain multi-pairing's Miller loop
 * over all n + m pairs (the product is exact and every field value
 * canonical, so the order in which lines are multiplied in does not show).
 * Pairs with an infinity count as 1. Not final-exponentiated.
 */
void zp__miller_prepared(zp_fp12 *out, const zp_g1_affine *p, const zp_g2_affine *q, size_t n,
                         const zp_g1_affine *s, const zp__g2_lines *const *r, size_t m);

#endif
