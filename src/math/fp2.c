/* Fp2 = Fp[u]/(u^2 + 1). */
#include <string.h>

#include "zkpipe.h"

void zp_fp2_zero(zp_fp2 *out) { memset(out, 0, sizeof *out); }

void zp_fp2_one(zp_fp2 *out)
{
    zp_fp_one(&out->c0);
    zp_fp_zero(&out->c1);
}

bool zp_fp2_is_zero(const zp_fp2 *a) { return zp_fp_is_zero(&a->c0) && zp_fp_is_zero(&a->c1); }
bool zp_fp2_eq(const zp_fp2 *a, const zp_fp2 *b) { return zp_fp_eq(&a->c0, &b->c0) && zp_fp_eq(&a->c1, &b->c1); }

void zp_fp2_add(zp_fp2 *out, const zp_fp2 *a, const zp_fp2 *b)
{
    zp_fp_add(&out->c0, &a->c0, &b->c0);
    zp_fp_add(&out->c1, &a->c1, &b->c1);
}

void zp_fp2_sub(zp_fp2 *out, const zp_fp2 *a, const zp_fp2 *b)
{
    zp_fp_sub(&out->c0, &a->c0, &b->c0);
    zp_fp_sub(&out->c1, &a->c1, &b->c1);
}

void zp_fp2_dbl(zp_fp2 *out, const zp_fp2 *a)
{
    zp_fp_dbl(&out->c0, &a->c0);
    zp_fp_dbl(&out->c1, &a->c1);
}

void zp_fp2_neg(zp_fp2 *out, const zp_fp2 *a)
{
    zp_fp_neg(&out->c0, &a->c0);
    zp_fp_neg(&out->c1, &a->c1);
}

void zp_fp2_conj(zp_fp2 *out, const zp_fp2 *a)
{
    out->c0 = a->c0;
    zp_fp_neg(&out->c1, &a->c1);
}

void zp_fp2_frobenius(zp_fp2 *out, const zp_fp2 *a) { zp_fp2_conj(out, a); }

/* Karatsuba: three Fp multiplications. */
void zp_fp2_mul(zp_fp2 *out, const zp_fp2 *a, const zp_fp2 *b)
{
    zp_fp t0, t1, s0, s1, m;
    zp_fp_mul(&t0, &a->c0, &b->c0);
    zp_fp_mul(&t1, &a->c1, &b->c1);
    zp_fp_add(&s0, &a->c0, &a->c1);
    zp_fp_add(&s1, &b->c0, &b->c1);
    zp_fp_mul(&m, &s0, &s1);
    zp_fp_sub(&out->c0, &t0, &t1);
    zp_fp_sub(&m, &m, &t0);
    zp_fp_sub(&out->c1, &m, &t1);
}

void zp_fp2_mul_fp(zp_fp2 *out, const zp_fp2 *a, const zp_fp *b)
{
    zp_fp_mul(&out->c0, &a->c0, b);
    zp_fp_mul(&out->c1, &a->c1, b);
}

/* (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u */
void zp_fp2_sqr(zp_fp2 *out, const zp_fp2 *a)
{
    zp_fp s, d, p;
    zp_fp_add(&s, &a->c0, &a->c1);
    zp_fp_sub(&d, &a->c0, &a->c1);
    zp_fp_mul(&p, &a->c0, &a->c1);
    zp_fp_mul(&out->c0, &s, &d);
    zp_fp_dbl(&out->c1, &p);
}

/* (c0 + c1 u)(1 + u) = (c0 - c1) + (c0 + c1) u */
void zp_fp2_mul_nr(zp_fp2 *out, const zp_fp2 *a)
{
    zp_fp t;
    zp_fp_sub(&t, &a->c0, &a->c1);
    zp_fp_add(&out->c1, &a->c0, &a->c1);
    out->c0 = t;
}

/* 1/(c0 + c1 u) = (c0 - c1 u)/(c0^2 + c1^2) */
void zp_fp2_inv(zp_fp2 *out, const zp_fp2 *a)
{
    zp_fp t0, t1, n;
    zp_fp_sqr(&t0, &a->c0);
    zp_fp_sqr(&t1, &a->c1);
    zp_fp_add(&n, &t0, &t1);
    zp_fp_inv(&n, &n);
    zp_fp_mul(&out->c0, &a->c0, &n);
    zp_fp_mul(&t1, &a->c1, &n);
    zp_fp_neg(&out->c1, &t1);
}

void zp_fp2_pow(zp_fp2 *out, const zp_fp2 *a, const uint64_t *e, size_t nlimbs)
{
    zp_fp2 acc, base = *a;
    zp_fp2_one(&acc);
    for (size_t i = nlimbs; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            zp_fp2_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1)
                zp_fp2_mul(&acc, &acc, &base);
        }
    }
    *out = acc;
}

/*
 * Square root through the norm: with n = sqrt(c0^2 + c1^2) in Fp, a root is
 * x0 + x1 u with x0^2 = (c0 ± n)/2 and x1 = c1/(2 x0). The candidate is
 * checked by squaring, so any non-square is rejected.
 */
bool zp_fp2_sqrt(zp_fp2 *out, const zp_fp2 *a)
{
    zp_fp2 x;
    if (zp_fp_is_zero(&a->c1)) {
        zp_fp_zero(&x.c1);
        if (zp_fp_sqrt(&x.c0, &a->c0)) {
            *out = x;
            return true;
        }
        zp_fp na;
        zp_fp_neg(&na, &a->c0);
        zp_fp_zero(&x.c0);
        if (!zp_fp_sqrt(&x.c1, &na))
            return false;
        *out = x;
        return true;
    }
    zp_fp t0, t1, n, half, d;
    zp_fp_sqr(&t0, &a->c0);
    zp_fp_sqr(&t1, &a->c1);
    zp_fp_add(&n, &t0, &t1);
    if (!zp_fp_sqrt(&n, &n))
        return false;
    zp_fp_from_u64(&half, 2);
    zp_fp_inv(&half, &half);
    zp_fp_add(&d, &a->c0, &n);
    zp_fp_mul(&d, &d, &half);
    if (!zp_fp_sqrt(&x.c0, &d)) {
        zp_fp_sub(&d, &a->c0, &n);
        zp_fp_mul(&d, &d, &half);
        if (!zp_fp_sqrt(&x.c0, &d))
            return false;
    }
    zp_fp_dbl(&t0, &x.c0);
    zp_fp_inv(&t0, &t0);
    zp_fp_mul(&x.c1, &a->c1, &t0);
    zp_fp2 chk;
    zp_fp2_sqr(&chk, &x);
    if (!zp_fp2_eq(&chk, a))
        return false;
    *out = x;
    return true;
}

bool zp_fp2_is_lex_largest(const zp_fp2 *a)
{
    if (zp_fp_is_zero(&a->c1))
        return zp_fp_is_lex_largest(&a->c0);
    return zp_fp_is_lex_largest(&a->c1);
}
