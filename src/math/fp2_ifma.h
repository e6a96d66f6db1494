/*
 * Fp2 = Fp[u] / (u^2 + 1) on the eight IFMA lanes of fp_ifma.h: a value is
 * two vectors (c0, c1); products by Karatsuba with two reductions.
 * Only when zp__ifma_available().
 */
#ifndef ZP_MATH_FP2_IFMA_H
#define ZP_MATH_FP2_IFMA_H

#include "math/fp_ifma.h"
#include "math/fp_ifma_vec.h"

typedef struct v2 {
    zp__fp52x8 c0, c1;
} v2;

/* The addresses of the two halves of eight Fp2 values (writable: a store
 * writes through them; a load only reads). */
static inline void v2_halves(zp_fp *c0[8], zp_fp *c1[8], const zp_fp2 *const p[8])
{
    for (int k = 0; k < 8; k++) {
        c0[k] = (zp_fp *)&p[k]->c0;
        c1[k] = (zp_fp *)&p[k]->c1;
    }
}

/* Eight Fp2 in or out through an Fp load or store of each half. */
static inline void v2_in(v2 *out, const zp_fp2 *const in[8],
                         void (*load)(zp__fp52x8 *, const zp_fp *const[8]))
{
    zp_fp *c0[8], *c1[8];
    v2_halves(c0, c1, in);
    load(&out->c0, (const zp_fp *const *)c0);
    load(&out->c1, (const zp_fp *const *)c1);
}

static inline void v2_out(zp_fp2 *const out[8], const v2 *in,
                          void (*store)(zp_fp *const[8], const zp__fp52x8 *))
{
    zp_fp *c0[8], *c1[8];
    v2_halves(c0, c1, (const zp_fp2 *const *)out);
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

#ifdef ZP__IFMA_VEC
/* The same operations with the lane code inlined (fp_ifma_vec.h), for
 * callers compiled with ZP__VEC_TARGET: w2_mul and w2_sqr take the lazy
 * flag of zp__fp2x8_mul / _sqr. */
ZP__VEC void w2_load_raw(v2 *out, const zp_fp2 *const in[8])
{
    zp_fp *c0[8], *c1[8];
    v2_halves(c0, c1, in);
    zp__vi_load_raw(&out->c0, (const zp_fp *const *)c0);
    zp__vi_load_raw(&out->c1, (const zp_fp *const *)c1);
}

ZP__VEC void w2_store_raw(zp_fp2 *const out[8], const v2 *in)
{
    zp_fp *c0[8], *c1[8];
    v2_halves(c0, c1, (const zp_fp2 *const *)out);
    zp__vi_store_raw(c0, &in->c0);
    zp__vi_store_raw(c1, &in->c1);
}

ZP__VEC void w2_add(v2 *out, const v2 *a, const v2 *b)
{
    zp__vi_add(&out->c0, &a->c0, &b->c0);
    zp__vi_add(&out->c1, &a->c1, &b->c1);
}

ZP__VEC void w2_sub(v2 *out, const v2 *a, const v2 *b)
{
    zp__vi_sub(&out->c0, &a->c0, &b->c0);
    zp__vi_sub(&out->c1, &a->c1, &b->c1);
}

ZP__VEC void w2_mul(v2 *out, const v2 *a, const v2 *b, bool lazy)
{
    zp__vi2_mul(&out->c0, &out->c1, &a->c0, &a->c1, &b->c0, &b->c1, lazy);
}

ZP__VEC void w2_sqr(v2 *out, const v2 *a, bool lazy)
{
    zp__vi2_sqr(&out->c0, &out->c1, &a->c0, &a->c1, lazy);
}

ZP__VEC void w2_reduce(v2 *out, const v2 *a)
{
    zp__vi_reduce(&out->c0, &a->c0);
    zp__vi_reduce(&out->c1, &a->c1);
}
#endif

#endif
