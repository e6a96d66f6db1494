/*
 * The entry points of fr_ifma.h: lane access and the c16 form in plain C,
 * the eight-lane operations on top of fr_ifma_vec.h (one call, one load
 * and store per operand: for tests and one-off uses; loops include the
 * header and stay in registers).
 */
#include <string.h>

#include "math/fr_ifma.h"

#define MASK52 ((uint64_t)0xfffffffffffff)

void zp__fr_c16(zp_fr *out, const zp_fr *c)
{
    zp_fr_dbl(out, c);
    for (int i = 0; i < 3; i++)
        zp_fr_dbl(out, out);
}

/* Limb j is bits 52j .. 52j + 51 of the four words: word w = 52j / 64 from
 * bit s = 52j % 64, and the next word's low bits when s > 12. */
void zp__fr52x8_set_lane(zp__fr52x8 *v, int k, const zp_fr *x)
{
    for (int j = 0; j < 5; j++) {
        unsigned bit = 52 * (unsigned)j, w = bit / 64, sh = bit % 64;
        uint64_t y = x->l[w] >> sh;
        if (sh > 12 && w + 1 < 4)
            y |= x->l[w + 1] << (64 - sh);
        v->l[j][k] = y & MASK52;
    }
}

void zp__fr52x8_get_lane(zp_fr *x, const zp__fr52x8 *v, int k)
{
    memset(x, 0, sizeof *x);
    for (int j = 0; j < 5; j++) {
        unsigned bit = 52 * (unsigned)j, w = bit / 64, sh = bit % 64;
        uint64_t y = v->l[j][k];
        x->l[w] |= y << sh;
        if (sh > 12 && w + 1 < 4)
            x->l[w + 1] |= y >> (64 - sh);
    }
}

#ifdef ZP_FR_IFMA_VEC

#include "math/fr_ifma_vec.h"

FR_TGT void zp__fr52x8_load(zp__fr52x8 *out, const zp_fr in[8])
{
    __m512i v[5];
    fr_loadu(v, in);
    fr_st(out, v);
}

FR_TGT void zp__fr52x8_store(zp_fr out[8], const zp__fr52x8 *in)
{
    __m512i v[5];
    fr_ld(v, in);
    fr_storeu(out, v);
}

enum { OP_MUL, OP_ADD, OP_SUB };

FR_TGT static void binary(zp__fr52x8 *out, const zp__fr52x8 *a, const zp__fr52x8 *b, int op)
{
    __m512i A[5], B[5], r[5];
    fr_ld(A, a);
    fr_ld(B, b);
    if (op == OP_MUL)
        fr_mul(r, A, B);
    else if (op == OP_ADD)
        fr_add(r, A, B);
    else
        fr_sub(r, A, B);
    fr_st(out, r);
}

void zp__fr52x8_mul(zp__fr52x8 *out, const zp__fr52x8 *a, const zp__fr52x8 *b)
{
    binary(out, a, b, OP_MUL);
}

void zp__fr52x8_add(zp__fr52x8 *out, const zp__fr52x8 *a, const zp__fr52x8 *b)
{
    binary(out, a, b, OP_ADD);
}

void zp__fr52x8_sub(zp__fr52x8 *out, const zp__fr52x8 *a, const zp__fr52x8 *b)
{
    binary(out, a, b, OP_SUB);
}

#else

/* Never called: zp__ifma_available() is false. */
void zp__fr52x8_load(zp__fr52x8 *out, const zp_fr in[8]) { (void)out, (void)in; }
void zp__fr52x8_store(zp_fr out[8], const zp__fr52x8 *in) { (void)out, (void)in; }
void zp__fr52x8_mul(zp__fr52x8 *out, const zp__fr52x8 *a, const zp__fr52x8 *b)
{
    (void)out, (void)a, (void)b;
}
void zp__fr52x8_add(zp__fr52x8 *out, const zp__fr52x8 *a, const zp__fr52x8 *b)
{
    (void)out, (void)a, (void)b;
}
void zp__fr52x8_sub(zp__fr52x8 *out, const zp__fr52x8 *a, const zp__fr52x8 *b)
{
    (void)out, (void)a, (void)b;
}

#endif
