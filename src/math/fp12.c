/* Fp12 = Fp6[w]/(w^2 - v). */
#include <string.h>

#include "tower.h"

void zp_fp12_zero(zp_fp12 *out) { memset(out, 0, sizeof *out); }

void zp_fp12_one(zp_fp12 *out)
{
    zp_fp6_one(&out->c0);
    zp_fp6_zero(&out->c1);
}

bool zp_fp12_eq(const zp_fp12 *a, const zp_fp12 *b)
{
    return zp_fp6_eq(&a->c0, &b->c0) && zp_fp6_eq(&a->c1, &b->c1);
}

bool zp_fp12_is_one(const zp_fp12 *a)
{
    zp_fp12 one;
    zp_fp12_one(&one);
    return zp_fp12_eq(a, &one);
}

/* Karatsuba: three Fp6 multiplications; w^2 = v folds a1 b1 into c0. */
void zp_fp12_mul(zp_fp12 *out, const zp_fp12 *a, const zp_fp12 *b)
{
    zp_fp6 t0, t1, s, u;
    zp_fp6_mul(&t0, &a->c0, &b->c0);
    zp_fp6_mul(&t1, &a->c1, &b->c1);
    zp_fp6_add(&s, &a->c0, &a->c1);
    zp_fp6_add(&u, &b->c0, &b->c1);
    zp_fp6_mul(&s, &s, &u);
    zp_fp6_sub(&s, &s, &t0);
    zp_fp6_sub(&out->c1, &s, &t1);
    zp_fp6_mul_nr(&t1, &t1);
    zp_fp6_add(&out->c0, &t0, &t1);
}

/*
 * Complex squaring: with m = a0 a1, (a0 + a1)(a0 + v a1) = a0^2 + v a1^2
 * + m + v m, so two Fp6 multiplications give both coefficients.
 */
void zp_fp12_sqr(zp_fp12 *out, const zp_fp12 *a)
{
    zp_fp6 m, s, t;
    zp_fp6_mul(&m, &a->c0, &a->c1);
    zp_fp6_add(&s, &a->c0, &a->c1);
    zp_fp6_mul_nr(&t, &a->c1);
    zp_fp6_add(&t, &t, &a->c0);
    zp_fp6_mul(&s, &s, &t);
    zp_fp6_sub(&s, &s, &m);
    zp_fp6_mul_nr(&t, &m);
    zp_fp6_sub(&out->c0, &s, &t);
    zp__fp6_dbl(&out->c1, &m);
}

/* 1/(a0 + a1 w) = (a0 - a1 w)/(a0^2 - v a1^2); zero maps to zero. */
void zp_fp12_inv(zp_fp12 *out, const zp_fp12 *a)
{
    zp_fp6 t0, t1;
    zp_fp6_sqr(&t0, &a->c0);
    zp_fp6_sqr(&t1, &a->c1);
    zp_fp6_mul_nr(&t1, &t1);
    zp_fp6_sub(&t0, &t0, &t1);
    zp_fp6_inv(&t0, &t0);
    zp_fp6_mul(&out->c0, &a->c0, &t0);
    zp_fp6_mul(&t1, &a->c1, &t0);
    zp_fp6_neg(&out->c1, &t1);
}

/* w -> -w, which is x -> x^(q^6); in the cyclotomic subgroup, the inverse. */
void zp_fp12_conj(zp_fp12 *out, const zp_fp12 *a)
{
    out->c0 = a->c0;
    zp_fp6_neg(&out->c1, &a->c1);
}

void zp_fp12_pow(zp_fp12 *out, const zp_fp12 *a, const uint64_t *e, size_t nlimbs)
{
    zp_fp12 acc, base = *a;
    zp_fp12_one(&acc);
    for (size_t i = nlimbs; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            zp_fp12_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1)
                zp_fp12_mul(&acc, &acc, &base);
        }
    }
    *out = acc;
}

/* Fp12 has q^12 elements, so the power only matters mod 12. */
void zp_fp12_frobenius(zp_fp12 *out, const zp_fp12 *a, unsigned power)
{
    unsigned k = power % 12;
    const zp_fp2 *g = &zp__frob12_c1[k];
    zp_fp12 t;
    zp_fp6_frobenius(&t.c0, &a->c0, k);
    zp_fp6_frobenius(&t.c1, &a->c1, k);
    zp_fp2_mul(&t.c1.c0, &t.c1.c0, g);
    zp_fp2_mul(&t.c1.c1, &t.c1.c1, g);
    zp_fp2_mul(&t.c1.c2, &t.c1.c2, g);
    *out = t;
}

void zp_fp12_to_bytes(uint8_t *out, const zp_fp12 *a)
{
    const zp_fp6 *h[2] = {&a->c0, &a->c1};
    for (int i = 0; i < 2; i++) {
        const zp_fp2 *c[3] = {&h[i]->c0, &h[i]->c1, &h[i]->c2};
        for (int j = 0; j < 3; j++) {
            zp_fp_to_be(out, &c[j]->c0);
            zp_fp_to_be(out + ZP_FP_BYTES, &c[j]->c1);
            out += 2 * ZP_FP_BYTES;
        }
    }
}

/*
 * A line function is l0 + l1 v + l4 v w = L0 + L1 w with L0 = l0 + l1 v and
 * L1 = l4 v. Karatsuba over w as in zp_fp12_mul, with sparse Fp6 products:
 * 13 Fp2 multiplications instead of 18.
 */
void zp__fp12_mul_014(zp_fp12 *out, const zp_fp12 *a, const zp_fp2 *l0,
                      const zp_fp2 *l1, const zp_fp2 *l4)
{
    zp_fp6 t0, t1, s;
    zp_fp2 l14;
    zp__fp6_mul_01(&t0, &a->c0, l0, l1);
    zp__fp6_mul_1(&t1, &a->c1, l4);
    zp_fp6_add(&s, &a->c0, &a->c1);
    zp_fp2_add(&l14, l1, l4);
    zp__fp6_mul_01(&s, &s, l0, &l14);
    zp_fp6_sub(&s, &s, &t0);
    zp_fp6_sub(&out->c1, &s, &t1);
    zp_fp6_mul_nr(&t1, &t1);
    zp_fp6_add(&out->c0, &t0, &t1);
}

/* (x + y s)^2 in Fp4 = Fp2[s]/(s^2 - xi), s = w^3: three Fp2 squarings. */
static void fp4_sqr(zp_fp2 *ox, zp_fp2 *oy, const zp_fp2 *x, const zp_fp2 *y)
{
    zp_fp2 t0, t1, s;
    zp_fp2_sqr(&t0, x);
    zp_fp2_sqr(&t1, y);
    zp_fp2_add(&s, x, y);
    zp_fp2_sqr(&s, &s);
    zp_fp2_sub(&s, &s, &t0);
    zp_fp2_sub(oy, &s, &t1);
    zp_fp2_mul_nr(&t1, &t1);
    zp_fp2_add(ox, &t0, &t1);
}

/* out = 3 t - 2 a (sign < 0) or 3 t + 2 a (sign > 0). */
static void three_t_pm_two_a(zp_fp2 *out, const zp_fp2 *t, const zp_fp2 *a, int sign)
{
    zp_fp2 d;
    if (sign < 0)
        zp_fp2_sub(&d, t, a);
    else
        zp_fp2_add(&d, t, a);
    zp_fp2_dbl(&d, &d);
    zp_fp2_add(out, &d, t);
}

/*
 * Granger-Scott: view a as A0 + A1 w + A2 w^2 over Fp4 with w^3 = s, where
 * A0 = g0 + g3 s, A1 = g1 + g4 s, A2 = g2 + g5 s. For a cyclotomic element,
 *   a^2 = (3 A0^2 - 2 conj A0) + (3 s A2^2 + 2 conj A1) w
 *         + (3 A1^2 - 2 conj A2) w^2,
 * with conj(x + y s) = x - y s: nine Fp2 squarings instead of a full
 * Fp12 squaring.
 */
void zp__fp12_cyclotomic_sqr(zp_fp12 *out, const zp_fp12 *a)
{
    const zp_fp2 *g0 = &a->c0.c0, *g2 = &a->c0.c1, *g4 = &a->c0.c2;
    const zp_fp2 *g1 = &a->c1.c0, *g3 = &a->c1.c1, *g5 = &a->c1.c2;
    zp_fp2 t0, t1, t2, t3, t4, t5;
    zp_fp12 r;
    fp4_sqr(&t0, &t1, g0, g3);
    fp4_sqr(&t2, &t3, g1, g4);
    fp4_sqr(&t4, &t5, g2, g5);

    three_t_pm_two_a(&r.c0.c0, &t0, g0, -1);
    three_t_pm_two_a(&r.c1.c1, &t1, g3, +1);

    zp_fp2_mul_nr(&t5, &t5);
    three_t_pm_two_a(&r.c1.c0, &t5, g1, +1);
    three_t_pm_two_a(&r.c0.c2, &t4, g4, -1);

    three_t_pm_two_a(&r.c0.c1, &t2, g2, -1);
    three_t_pm_two_a(&r.c1.c2, &t3, g5, +1);
    *out = r;
}
