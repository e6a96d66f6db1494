/*
 * Eight Fp products at once with AVX-512 IFMA (vpmadd52luq / vpmadd52huq),
 * the start of a vectorized CPU backend (issue 3: the CPU prover is bound
 * by Fp products, and the scalar x86 kernel is within ~1.4x of the best
 * scalar code).
 *
 * Layout: eight elements side by side, limb j of all eight in one 512-bit
 * register (l[j][k] = limb j of element k), radix 2^52: eight limbs hold
 * 416 bits, each below 2^52. Montgomery form with R' = 2^416, not the
 * library's R = 2^384: zp__fp52x8_from / _to convert (x R' = (x R) 2^32).
 *
 * zp__fp52x8_mul needs a CPU with AVX512F and AVX512IFMA and an OS that
 * saves the 512-bit state; zp__ifma_available says whether this one does.
 * Callers without it keep the scalar path. Every value is fully reduced
 * (< p) on input and output.
 */
#ifndef ZP_MATH_FP_IFMA_H
#define ZP_MATH_FP_IFMA_H

#include <stdbool.h>
#include <stdint.h>

#include "zkpipe.h"

typedef struct zp__fp52x8 {
    _Alignas(64) uint64_t l[8][8]; /* [limb][element] */
} zp__fp52x8;

/* Whether this CPU and OS run the IFMA kernels. */
bool zp__ifma_available(void);

/* Eight library elements (Montgomery, R = 2^384) in, R' form out. */
void zp__fp52x8_from(zp__fp52x8 *out, const zp_fp in[8]);

/* Back to eight library elements. */
void zp__fp52x8_to(zp_fp out[8], const zp__fp52x8 *in);

/* out[k] = a[k] * b[k] / R' mod p for each of the eight elements (the
 * Montgomery product in R' form); out may alias a or b. Only when
 * zp__ifma_available(). */
void zp__fp52x8_mul(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b);

/* Lazy forms (only when available): the product without its final
 * subtraction, for a, b < 2p (normalized limbs), is below p + 2^348 and a
 * valid operand of the product again (and of add, and of sub as the left
 * side against a canonical right side: the difference stays below 2p);
 * reduce makes any value below 2p canonical. */
void zp__fp52x8_mul_lazy(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b);
void zp__fp52x8_reduce(zp__fp52x8 *out, const zp__fp52x8 *a);

/* The same in place of zp__fp52x8_from / _to, with the form change done by
 * one vector product instead of eight scalar ones (only when available). */
void zp__fp52x8_load(zp__fp52x8 *out, const zp_fp *const in[8]);
void zp__fp52x8_store(zp_fp *const out[8], const zp__fp52x8 *in);

/* The R' form in the library's six words, x R' mod p (fully reduced), for
 * data that stays in that form across many loads: zp__fp_to_r52 and
 * zp__fp_from_r52 convert one element by a scalar product; the raw load and
 * store move eight such values in and out of the lanes without a product
 * (by gathers and scatters; only when available). */
void zp__fp_to_r52(zp_fp *out, const zp_fp *in);
void zp__fp_from_r52(zp_fp *out, const zp_fp *in);
void zp__fp52x8_load_raw(zp__fp52x8 *out, const zp_fp *const in[8]);
void zp__fp52x8_store_raw(zp_fp *const out[8], const zp__fp52x8 *in);

/* Eight Fp2 products or squares at once (Fp2 = Fp[u]/(u^2 + 1), o0 + o1 u
 * = (a0 + a1 u)(b0 + b1 u)): Karatsuba with two reductions instead of
 * three, and the square in two products; the outputs may alias the inputs
 * (only when available). Halves below 2p in; out canonical, or with lazy
 * below p + 2^350 (a valid operand again; zp__fp52x8_reduce on each half
 * makes it canonical). */
void zp__fp2x8_mul(zp__fp52x8 *o0, zp__fp52x8 *o1, const zp__fp52x8 *a0, const zp__fp52x8 *a1,
                   const zp__fp52x8 *b0, const zp__fp52x8 *b1, bool lazy);
void zp__fp2x8_sqr(zp__fp52x8 *o0, zp__fp52x8 *o1, const zp__fp52x8 *a0, const zp__fp52x8 *a1,
                   bool lazy);

/* out = a + b, a - b mod p, lane by lane (only when available). */
void zp__fp52x8_add(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b);
void zp__fp52x8_sub(zp__fp52x8 *out, const zp__fp52x8 *a, const zp__fp52x8 *b);

/* Bit k set where element k is zero. */
unsigned zp__fp52x8_zero_mask(const zp__fp52x8 *a);

/* Up to eight subgroup tests at once (subgroup_ifma.c): ok[k] =
 * zp_g1/g2_affine_in_subgroup(p[k]) for the n <= 8 on-curve points p[k]
 * (only when available); zp__in_subgroup_x8 picks the group by g2. */
void zp__g1_in_subgroup_x8(const zp_g1_affine *const p[], int n, bool ok[]);
void zp__g2_in_subgroup_x8(const zp_g2_affine *const p[], int n, bool ok[]);
void zp__in_subgroup_x8(bool g2, const void *const p[], int n, bool ok[]);

#endif
