/*
 * Eight Fr products at once with AVX-512 IFMA, for the CPU NTT (issue 3:
 * its butterflies are bound by the scalar zp_fr_mul).
 *
 * Layout: as fp_ifma.h, limb j of eight elements in one 512-bit register
 * (l[j][k] = limb j of element k), radix 2^52; Fr's 255 bits take five
 * limbs. The product is Montgomery with R' = 2^260 instead of the
 * library's R = 2^256. Data stays in the library's form: since 2^260 =
 * 16 R, the R' product of a library element x R with a constant stored as
 * (16 c) R is x c R, so only the constant side carries the factor 16
 * ("c16 form", zp__fr_c16). Loads and stores move the library's four
 * 64-bit words into five 52-bit limbs and back, with no product.
 *
 * Bounds: every function takes and returns fully reduced values (< r),
 * except where its comment says otherwise; the vector code (fr_ifma_vec.h)
 * documents its lazy intermediates. Only when zp__ifma_available().
 */
#ifndef ZP_MATH_FR_IFMA_H
#define ZP_MATH_FR_IFMA_H

#include <stdbool.h>
#include <stdint.h>

#include "zkpipe.h"

/* Where the vector code is compiled (fp_ifma.c's condition); elsewhere its
 * entry points are stubs and zp__ifma_available() is false. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(ZP_NO_ASM)
#define ZP_FR_IFMA_VEC 1
#endif

typedef struct zp__fr52x8 {
    _Alignas(64) uint64_t l[5][8]; /* [limb][element] */
} zp__fr52x8;

/* out = 16 c mod r, the form every constant multiplier takes. */
void zp__fr_c16(zp_fr *out, const zp_fr *c);

/* The limbs of x (no product: x stays in whatever form it is) into lane
 * k, and back out of it. */
void zp__fr52x8_set_lane(zp__fr52x8 *v, int k, const zp_fr *x);
void zp__fr52x8_get_lane(zp_fr *x, const zp__fr52x8 *v, int k);

/* Eight consecutive library elements in and out of the lanes, element k in
 * lane k (only when zp__ifma_available()). */
void zp__fr52x8_load(zp__fr52x8 *out, const zp_fr in[8]);
void zp__fr52x8_store(zp_fr out[8], const zp__fr52x8 *in);

/* out[k] = a[k] b[k] / 2^260 mod r: with b in c16 form of c, the library
 * product a c (only when available); out may alias a or b. */
void zp__fr52x8_mul(zp__fr52x8 *out, const zp__fr52x8 *a, const zp__fr52x8 *b);

/* out = a + b, a - b mod r, lane by lane (only when available). */
void zp__fr52x8_add(zp__fr52x8 *out, const zp__fr52x8 *a, const zp__fr52x8 *b);
void zp__fr52x8_sub(zp__fr52x8 *out, const zp__fr52x8 *a, const zp__fr52x8 *b);

#endif
