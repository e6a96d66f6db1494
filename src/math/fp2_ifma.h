/*
 * Fp2 = Fp[u] / (u^2 + 1) on the eight IFMA lanes of fp_ifma.h: a value is
 * two vectors (c0, c1); products by Karatsuba with two reductions.
 * Only when zp__ifma_available().
 */
#ifndef ZP_MATH_FP2_IFMA_H
#define ZP_MATH_FP2_IFMA_H

#include "math/fp_ifma.h"

typedef struct v2 {
    zp__fp52x8 c0, c1;
} v2;

/* Eight Fp2 in or out through an Fp load or store of each half. */
static inline void v2_in(v2 *out, const zp_fp2 *const in[8],
                         void (*load)(zp__fp52x8 *, const zp_fp *const[8]))
{
    const zp_fp *c0[8], *c1[8];
    for (int k = 0; k < 8; k++) {
        c0[k] = &in[k]->c0;
        c1[k] = &in[k]->c1;
    }
    load(&out->c0, c0);
    load(&out->c1, c1);
}

static inline void v2_out(zp_fp2 *const out[8], const v2 *in,
                          void (*store)(zp_fp *const[8], const zp__fp52x8 *))
{
    zp_fp *c0[8], *c1[8];
    for (int k = 0; k < 8; k++) {
        c0[k] = &out[k]->c0;
        c1[k] = &out[k]->c1;
    }
    store(c0, &in->c0);
    store(c1, &in->c1);
}

static inline void v2_load(v2 *out, const zp_fp2 *const in[8]) { v2_in(out, in, zp__fp52x8_load); }
static inline void v2_store(zp_fp2 *const out[8], const v2 *in) { v2_out(out, in, zp__fp52x8_store); }

/* The same for values kept in R' form (fp_ifma.h): no products. */
static inline void v2_load_raw(v2 *out, const zp_fp2 *const in[8])
{
    v2_in(out, in, zp__fp52x8_load_raw);
}
static inline void v2_store_raw(zp_fp2 *const out[8], const v2 *in)
{
    v2_out(out, in, zp__fp52x8_store_raw);
}

static inline void v2_add(v2 *out, const v2 *a, const v2 *b)
{
    zp__fp52x8_add(&out->c0, &a->c0, &b->c0);
    zp__fp52x8_add(&out->c1, &a->c1, &b->c1);
}

static inline void v2_sub(v2 *out, const v2 *a, const v2 *b)
{
    zp__fp52x8_sub(&out->c0, &a->c0, &b->c0);
    zp__fp52x8_sub(&out->c1, &a->c1, &b->c1);
}

/* Karatsuba with two reductions (fp_ifma.c); out may alias a or b. */
static inline void v2_mul(v2 *out, const v2 *a, const v2 *b)
{
    zp__fp2x8_mul(&out->c0, &out->c1, &a->c0, &a->c1, &b->c0, &b->c1, false);
}

/* out = a^2 in two products; out may alias a. */
static inline void v2_sqr(v2 *out, const v2 *a)
{
    zp__fp2x8_sqr(&out->c0, &out->c1, &a->c0, &a->c1, false);
}

/* The lazy forms (fp_ifma.h) and the reduction of both halves. */
static inline void v2_mul_lazy(v2 *out, const v2 *a, const v2 *b)
{
    zp__fp2x8_mul(&out->c0, &out->c1, &a->c0, &a->c1, &b->c0, &b->c1, true);
}

static inline void v2_sqr_lazy(v2 *out, const v2 *a)
{
    zp__fp2x8_sqr(&out->c0, &out->c1, &a->c0, &a->c1, true);
}

static inline void v2_reduce(v2 *out, const v2 *a)
{
    zp__fp52x8_reduce(&out->c0, &a->c0);
    zp__fp52x8_reduce(&out->c1, &a->c1);
}

#endif
