/* Fp6 = Fp2[v]/(v^3 - xi), xi = u + 1. */
#include <string.h>

#include "tower.h"

void zp_fp6_zero(zp_fp6 *out) { memset(out, 0, sizeof *out); }

void zp_fp6_one(zp_fp6 *out)
{
    zp_fp2_one(&out->c0);
    zp_fp2_zero(&out->c1);
    zp_fp2_zero(&out->c2);
}

bool zp_fp6_eq(const zp_fp6 *a, const zp_fp6 *b)
{
    return zp_fp2_eq(&a->c0, &b->c0) && zp_fp2_eq(&a->c1, &b->c1) && zp_fp2_eq(&a->c2, &b->c2);
}

void zp_fp6_add(zp_fp6 *out, const zp_fp6 *a, const zp_fp6 *b)
{
    zp_fp2_add(&out->c0, &a->c0, &b->c0);
    zp_fp2_add(&out->c1, &a->c1, &b->c1);
    zp_fp2_add(&out->c2, &a->c2, &b->c2);
}

void zp_fp6_sub(zp_fp6 *out, const zp_fp6 *a, const zp_fp6 *b)
{
    zp_fp2_sub(&out->c0, &a->c0, &b->c0);
    zp_fp2_sub(&out->c1, &a->c1, &b->c1);
    zp_fp2_sub(&out->c2, &a->c2, &b->c2);
}

void zp_fp6_neg(zp_fp6 *out, const zp_fp6 *a)
{
    zp_fp2_neg(&out->c0, &a->c0);
    zp_fp2_neg(&out->c1, &a->c1);
    zp_fp2_neg(&out->c2, &a->c2);
}

void zp__fp6_dbl(zp_fp6 *out, const zp_fp6 *a)
{
    zp_fp2_dbl(&out->c0, &a->c0);
    zp_fp2_dbl(&out->c1, &a->c1);
    zp_fp2_dbl(&out->c2, &a->c2);
}

/*
 * Karatsuba over three coefficients: six Fp2 multiplications instead of
 * nine. With t_i = a_i b_i, each cross sum a_i b_j + a_j b_i is
 * (a_i + a_j)(b_i + b_j) - t_i - t_j, and v^3 = xi folds degrees 3 and 4.
 */
void zp_fp6_mul(zp_fp6 *out, const zp_fp6 *a, const zp_fp6 *b)
{
    zp_fp2 t0, t1, t2, s, u, c0, c1, c2;
    zp_fp2_mul(&t0, &a->c0, &b->c0);
    zp_fp2_mul(&t1, &a->c1, &b->c1);
    zp_fp2_mul(&t2, &a->c2, &b->c2);

    zp_fp2_add(&s, &a->c1, &a->c2);
    zp_fp2_add(&u, &b->c1, &b->c2);
    zp_fp2_mul(&c0, &s, &u);
    zp_fp2_sub(&c0, &c0, &t1);
    zp_fp2_sub(&c0, &c0, &t2);
    zp_fp2_mul_nr(&c0, &c0);
    zp_fp2_add(&c0, &c0, &t0);

    zp_fp2_add(&s, &a->c0, &a->c1);
    zp_fp2_add(&u, &b->c0, &b->c1);
    zp_fp2_mul(&c1, &s, &u);
    zp_fp2_sub(&c1, &c1, &t0);
    zp_fp2_sub(&c1, &c1, &t1);
    zp_fp2_mul_nr(&s, &t2);
    zp_fp2_add(&c1, &c1, &s);

    zp_fp2_add(&s, &a->c0, &a->c2);
    zp_fp2_add(&u, &b->c0, &b->c2);
    zp_fp2_mul(&c2, &s, &u);
    zp_fp2_sub(&c2, &c2, &t0);
    zp_fp2_sub(&c2, &c2, &t2);
    zp_fp2_add(&c2, &c2, &t1);

    out->c0 = c0;
    out->c1 = c1;
    out->c2 = c2;
}

/*
 * Chung-Hasan SQR2: a0^2, a2^2, 2 a0 a1, 2 a1 a2 directly, and
 * a1^2 + 2 a0 a2 from (a0 - a1 + a2)^2, which contains all six terms.
 */
void zp_fp6_sqr(zp_fp6 *out, const zp_fp6 *a)
{
    zp_fp2 s0, s1, s2, s3, s4, t;
    zp_fp2_sqr(&s0, &a->c0);
    zp_fp2_mul(&s1, &a->c0, &a->c1);
    zp_fp2_dbl(&s1, &s1);
    zp_fp2_sub(&t, &a->c0, &a->c1);
    zp_fp2_add(&t, &t, &a->c2);
    zp_fp2_sqr(&s2, &t);
    zp_fp2_mul(&s3, &a->c1, &a->c2);
    zp_fp2_dbl(&s3, &s3);
    zp_fp2_sqr(&s4, &a->c2);

    zp_fp2_add(&t, &s1, &s2);
    zp_fp2_add(&t, &t, &s3);
    zp_fp2_sub(&t, &t, &s0);
    zp_fp2_sub(&out->c2, &t, &s4);
    zp_fp2_mul_nr(&t, &s3);
    zp_fp2_add(&out->c0, &s0, &t);
    zp_fp2_mul_nr(&t, &s4);
    zp_fp2_add(&out->c1, &s1, &t);
}

/*
 * 1/a = adj(a)/N(a): with A = a0^2 - xi a1 a2, B = xi a2^2 - a0 a1 and
 * C = a1^2 - a0 a2, a (A + B v + C v^2) = a0 A + xi (a2 B + a1 C) in Fp2.
 * Zero maps to zero because the Fp2 inverse of zero is zero.
 */
void zp_fp6_inv(zp_fp6 *out, const zp_fp6 *a)
{
    zp_fp2 A, B, C, t, n;
    zp_fp2_sqr(&A, &a->c0);
    zp_fp2_mul(&t, &a->c1, &a->c2);
    zp_fp2_mul_nr(&t, &t);
    zp_fp2_sub(&A, &A, &t);

    zp_fp2_sqr(&B, &a->c2);
    zp_fp2_mul_nr(&B, &B);
    zp_fp2_mul(&t, &a->c0, &a->c1);
    zp_fp2_sub(&B, &B, &t);

    zp_fp2_sqr(&C, &a->c1);
    zp_fp2_mul(&t, &a->c0, &a->c2);
    zp_fp2_sub(&C, &C, &t);

    zp_fp2_mul(&n, &a->c2, &B);
    zp_fp2_mul(&t, &a->c1, &C);
    zp_fp2_add(&n, &n, &t);
    zp_fp2_mul_nr(&n, &n);
    zp_fp2_mul(&t, &a->c0, &A);
    zp_fp2_add(&n, &n, &t);
    zp_fp2_inv(&n, &n);

    zp_fp2_mul(&out->c0, &A, &n);
    zp_fp2_mul(&out->c1, &B, &n);
    zp_fp2_mul(&out->c2, &C, &n);
}

/* (a0 + a1 v + a2 v^2) v = xi a2 + a0 v + a1 v^2 */
void zp_fp6_mul_nr(zp_fp6 *out, const zp_fp6 *a)
{
    zp_fp2 t;
    zp_fp2_mul_nr(&t, &a->c2);
    out->c2 = a->c1;
    out->c1 = a->c0;
    out->c0 = t;
}

/* Fp6 has q^6 elements, so the power only matters mod 6. */
void zp_fp6_frobenius(zp_fp6 *out, const zp_fp6 *a, unsigned power)
{
    unsigned k = power % 6;
    zp_fp6 t = *a;
    if (k & 1) {
        zp_fp2_conj(&t.c0, &t.c0);
        zp_fp2_conj(&t.c1, &t.c1);
        zp_fp2_conj(&t.c2, &t.c2);
    }
    zp_fp2_mul(&t.c1, &t.c1, &zp__frob6_c1[k]);
    zp_fp2_mul(&t.c2, &t.c2, &zp__frob6_c2[k]);
    *out = t;
}

/* The Karatsuba product with b2 = 0: five Fp2 multiplications. */
void zp__fp6_mul_01(zp_fp6 *out, const zp_fp6 *a, const zp_fp2 *b0, const zp_fp2 *b1)
{
    zp_fp2 t0, t1, s, u, c0, c1, c2;
    zp_fp2_mul(&t0, &a->c0, b0);
    zp_fp2_mul(&t1, &a->c1, b1);

    /* c0 = a0 b0 + xi a2 b1, with a2 b1 = (a1 + a2) b1 - a1 b1 */
    zp_fp2_add(&s, &a->c1, &a->c2);
    zp_fp2_mul(&c0, &s, b1);
    zp_fp2_sub(&c0, &c0, &t1);
    zp_fp2_mul_nr(&c0, &c0);
    zp_fp2_add(&c0, &c0, &t0);

    zp_fp2_add(&s, &a->c0, &a->c1);
    zp_fp2_add(&u, b0, b1);
    zp_fp2_mul(&c1, &s, &u);
    zp_fp2_sub(&c1, &c1, &t0);
    zp_fp2_sub(&c1, &c1, &t1);

    /* c2 = a2 b0 + a1 b1, with a2 b0 = (a0 + a2) b0 - a0 b0 */
    zp_fp2_add(&s, &a->c0, &a->c2);
    zp_fp2_mul(&c2, &s, b0);
    zp_fp2_sub(&c2, &c2, &t0);
    zp_fp2_add(&c2, &c2, &t1);

    out->c0 = c0;
    out->c1 = c1;
    out->c2 = c2;
}

/* (a0 + a1 v + a2 v^2) b1 v = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
void zp__fp6_mul_1(zp_fp6 *out, const zp_fp6 *a, const zp_fp2 *b1)
{
    zp_fp2 c0, c1, c2;
    zp_fp2_mul(&c0, &a->c2, b1);
    zp_fp2_mul_nr(&c0, &c0);
    zp_fp2_mul(&c1, &a->c0, b1);
    zp_fp2_mul(&c2, &a->c1, b1);
    out->c0 = c0;
    out->c1 = c1;
    out->c2 = c2;
}
