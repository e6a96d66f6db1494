/* Fp6 and Fp12: field axioms, fast paths against schoolbook references,
 * Frobenius maps against exponentiation by q^k, and the byte layout. */
#include "check.h"
#include "math/mont.h"
#include "math/tower.h"
#include "zkpipe.h"

#define ITER 50

static void rand_fp(zp_fp *out)
{
    zp_fp plain;
    for (int i = 0; i < 6; i++)
        plain.l[i] = check_rand64();
    plain.l[5] &= 0x0fffffffffffffffULL; /* below q */
    zp_fp_to_mont(out, &plain);
}

static void rand_fp2(zp_fp2 *out)
{
    rand_fp(&out->c0);
    rand_fp(&out->c1);
}

static void rand_fp6(zp_fp6 *out)
{
    rand_fp2(&out->c0);
    rand_fp2(&out->c1);
    rand_fp2(&out->c2);
}

static void rand_fp12(zp_fp12 *out)
{
    rand_fp6(&out->c0);
    rand_fp6(&out->c1);
}

/* Fp12 as sum g_i w^i (w^6 = xi): index i of the Fp2 coefficient. */
static zp_fp2 *coef(zp_fp12 *a, int i)
{
    zp_fp6 *h = (i & 1) ? &a->c1 : &a->c0;
    zp_fp2 *c[3] = {&h->c0, &h->c1, &h->c2};
    return c[i / 2];
}

/* Schoolbook references: all products, then fold the high powers with
 * v^3 = xi (Fp6) or w^6 = xi (Fp12). */
static void ref_fp6_mul(zp_fp6 *out, const zp_fp6 *a, const zp_fp6 *b)
{
    const zp_fp2 *x[3] = {&a->c0, &a->c1, &a->c2}, *y[3] = {&b->c0, &b->c1, &b->c2};
    zp_fp2 acc[5], t;
    for (int i = 0; i < 5; i++)
        zp_fp2_zero(&acc[i]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            zp_fp2_mul(&t, x[i], y[j]);
            zp_fp2_add(&acc[i + j], &acc[i + j], &t);
        }
    for (int i = 3; i < 5; i++) {
        zp_fp2_mul_nr(&t, &acc[i]);
        zp_fp2_add(&acc[i - 3], &acc[i - 3], &t);
    }
    out->c0 = acc[0];
    out->c1 = acc[1];
    out->c2 = acc[2];
}

static void ref_fp12_mul(zp_fp12 *out, const zp_fp12 *a, const zp_fp12 *b)
{
    zp_fp12 x = *a, y = *b, r;
    zp_fp2 acc[11], t;
    for (int i = 0; i < 11; i++)
        zp_fp2_zero(&acc[i]);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            zp_fp2_mul(&t, coef(&x, i), coef(&y, j));
            zp_fp2_add(&acc[i + j], &acc[i + j], &t);
        }
    for (int i = 6; i < 11; i++) {
        zp_fp2_mul_nr(&t, &acc[i]);
        zp_fp2_add(&acc[i - 6], &acc[i - 6], &t);
    }
    for (int i = 0; i < 6; i++)
        *coef(&r, i) = acc[i];
    *out = r;
}

static void fp6_pow(zp_fp6 *out, const zp_fp6 *a, const uint64_t *e, size_t n)
{
    zp_fp6 acc;
    zp_fp6_one(&acc);
    for (size_t i = n; i-- > 0;)
        for (int bit = 63; bit >= 0; bit--) {
            zp_fp6_mul(&acc, &acc, &acc);
            if ((e[i] >> bit) & 1)
                zp_fp6_mul(&acc, &acc, a);
        }
    *out = acc;
}

/* q^k as little-endian limbs (6k limbs); returns the limb count. */
static size_t q_power(uint64_t *out, unsigned k)
{
    size_t n = 1;
    out[0] = 1;
    for (unsigned step = 0; step < k; step++) {
        uint64_t t[80] = {0};
        for (size_t i = 0; i < n; i++) {
            zp__u128 carry = 0;
            for (int j = 0; j < 6; j++) {
                carry += (zp__u128)out[i] * ZP_FP_MODULUS.l[j] + t[i + j];
                t[i + j] = (uint64_t)carry;
                carry >>= 64;
            }
            t[i + 6] = (uint64_t)carry;
        }
        n += 6;
        memcpy(out, t, n * 8);
    }
    return n;
}

static void test_fp6_axioms(void)
{
    zp_fp6 a, b, c, x, y, z, zero, one;
    zp_fp6_zero(&zero);
    zp_fp6_one(&one);
    for (int i = 0; i < ITER; i++) {
        rand_fp6(&a);
        rand_fp6(&b);
        rand_fp6(&c);
        zp_fp6_add(&x, &a, &b);
        zp_fp6_sub(&y, &x, &b);
        CHECK(zp_fp6_eq(&y, &a));
        zp_fp6_neg(&y, &a);
        zp_fp6_add(&y, &y, &a);
        CHECK(zp_fp6_eq(&y, &zero));
        zp_fp6_mul(&x, &a, &b);
        zp_fp6_mul(&y, &b, &a);
        CHECK(zp_fp6_eq(&x, &y));
        zp_fp6_mul(&x, &x, &c); /* (ab)c = a(bc) */
        zp_fp6_mul(&y, &b, &c);
        zp_fp6_mul(&y, &a, &y);
        CHECK(zp_fp6_eq(&x, &y));
        zp_fp6_add(&x, &b, &c); /* a(b + c) = ab + ac */
        zp_fp6_mul(&x, &a, &x);
        zp_fp6_mul(&y, &a, &b);
        zp_fp6_mul(&z, &a, &c);
        zp_fp6_add(&y, &y, &z);
        CHECK(zp_fp6_eq(&x, &y));
        zp_fp6_mul(&x, &a, &one);
        CHECK(zp_fp6_eq(&x, &a));
        zp_fp6_mul(&x, &a, &zero);
        CHECK(zp_fp6_eq(&x, &zero));
    }
}

static void test_fp6_mul_sqr_reference(void)
{
    zp_fp6 a, b, x, y;
    for (int i = 0; i < ITER; i++) {
        rand_fp6(&a);
        rand_fp6(&b);
        zp_fp6_mul(&x, &a, &b);
        ref_fp6_mul(&y, &a, &b);
        CHECK(zp_fp6_eq(&x, &y));
        zp_fp6_sqr(&x, &a);
        ref_fp6_mul(&y, &a, &a);
        CHECK(zp_fp6_eq(&x, &y));
        x = a; /* aliasing: out == input */
        zp_fp6_mul(&x, &x, &b);
        ref_fp6_mul(&y, &a, &b);
        CHECK(zp_fp6_eq(&x, &y));
        x = a;
        zp_fp6_sqr(&x, &x);
        ref_fp6_mul(&y, &a, &a);
        CHECK(zp_fp6_eq(&x, &y));
    }
    /* Edge: coefficients q-1 everywhere (the largest representatives). */
    zp_fp m1;
    zp_fp_one(&m1);
    zp_fp_neg(&m1, &m1);
    zp_fp2 e = {m1, m1};
    a = (zp_fp6){e, e, e};
    zp_fp6_sqr(&x, &a);
    ref_fp6_mul(&y, &a, &a);
    CHECK(zp_fp6_eq(&x, &y));
}

static void test_fp6_inv_nr_sparse(void)
{
    zp_fp6 a, b, x, y, one, zero, v;
    zp_fp6_one(&one);
    zp_fp6_zero(&zero);
    zp_fp6_zero(&v);
    zp_fp2_one(&v.c1);
    for (int i = 0; i < ITER; i++) {
        rand_fp6(&a);
        zp_fp6_inv(&x, &a);
        zp_fp6_mul(&x, &x, &a);
        CHECK(zp_fp6_eq(&x, &one));
        zp_fp6_mul_nr(&x, &a);
        ref_fp6_mul(&y, &a, &v);
        CHECK(zp_fp6_eq(&x, &y));
        rand_fp6(&b);
        zp_fp2_zero(&b.c2);
        zp__fp6_mul_01(&x, &a, &b.c0, &b.c1);
        ref_fp6_mul(&y, &a, &b);
        CHECK(zp_fp6_eq(&x, &y));
        zp_fp2_zero(&b.c0);
        zp__fp6_mul_1(&x, &a, &b.c1);
        ref_fp6_mul(&y, &a, &b);
        CHECK(zp_fp6_eq(&x, &y));
    }
    /* A pure Fp2 element and the documented inverse of zero. */
    zp_fp6_zero(&a);
    rand_fp2(&a.c0);
    zp_fp6_inv(&x, &a);
    zp_fp6_mul(&x, &x, &a);
    CHECK(zp_fp6_eq(&x, &one));
    zp_fp6_inv(&x, &zero);
    CHECK(zp_fp6_eq(&x, &zero));
}

static void test_fp6_frobenius(void)
{
    uint64_t e[40];
    zp_fp6 a, x, y;
    for (int i = 0; i < 3; i++) {
        rand_fp6(&a);
        for (unsigned k = 0; k <= 6; k++) {
            size_t n = q_power(e, k);
            fp6_pow(&y, &a, e, n);
            zp_fp6_frobenius(&x, &a, k);
            CHECK(zp_fp6_eq(&x, &y));
        }
    }
}

static void test_fp12_axioms(void)
{
    zp_fp12 a, b, c, x, y, z, one, zero;
    zp_fp12_one(&one);
    zp_fp12_zero(&zero);
    CHECK(zp_fp12_is_one(&one));
    CHECK(!zp_fp12_is_one(&zero));
    for (int i = 0; i < ITER; i++) {
        rand_fp12(&a);
        rand_fp12(&b);
        rand_fp12(&c);
        CHECK(!zp_fp12_is_one(&a));
        zp_fp12_mul(&x, &a, &b);
        zp_fp12_mul(&y, &b, &a);
        CHECK(zp_fp12_eq(&x, &y));
        zp_fp12_mul(&x, &x, &c);
        zp_fp12_mul(&y, &b, &c);
        zp_fp12_mul(&y, &a, &y);
        CHECK(zp_fp12_eq(&x, &y));
        zp_fp6_add(&z.c0, &b.c0, &c.c0); /* a(b + c) = ab + ac */
        zp_fp6_add(&z.c1, &b.c1, &c.c1);
        zp_fp12_mul(&x, &a, &z);
        zp_fp12_mul(&y, &a, &b);
        zp_fp12_mul(&z, &a, &c);
        zp_fp6_add(&y.c0, &y.c0, &z.c0);
        zp_fp6_add(&y.c1, &y.c1, &z.c1);
        CHECK(zp_fp12_eq(&x, &y));
        zp_fp12_mul(&x, &a, &one);
        CHECK(zp_fp12_eq(&x, &a));
        zp_fp12_mul(&x, &a, &zero);
        CHECK(zp_fp12_eq(&x, &zero));
    }
}

static void test_fp12_mul_sqr_reference(void)
{
    zp_fp12 a, b, x, y;
    for (int i = 0; i < ITER; i++) {
        rand_fp12(&a);
        rand_fp12(&b);
        zp_fp12_mul(&x, &a, &b);
        ref_fp12_mul(&y, &a, &b);
        CHECK(zp_fp12_eq(&x, &y));
        zp_fp12_sqr(&x, &a);
        ref_fp12_mul(&y, &a, &a);
        CHECK(zp_fp12_eq(&x, &y));
        x = a;
        zp_fp12_mul(&x, &x, &b);
        ref_fp12_mul(&y, &a, &b);
        CHECK(zp_fp12_eq(&x, &y));
        x = a;
        zp_fp12_sqr(&x, &x);
        ref_fp12_mul(&y, &a, &a);
        CHECK(zp_fp12_eq(&x, &y));
    }
}

static void test_fp12_sparse_line(void)
{
    zp_fp12 a, l, x, y;
    for (int i = 0; i < ITER; i++) {
        rand_fp12(&a);
        zp_fp12_zero(&l);
        rand_fp2(&l.c0.c0);
        rand_fp2(&l.c0.c1);
        rand_fp2(&l.c1.c1);
        zp__fp12_mul_014(&x, &a, &l.c0.c0, &l.c0.c1, &l.c1.c1);
        ref_fp12_mul(&y, &a, &l);
        CHECK(zp_fp12_eq(&x, &y));
        x = a;
        zp__fp12_mul_014(&x, &x, &l.c0.c0, &l.c0.c1, &l.c1.c1);
        CHECK(zp_fp12_eq(&x, &y));
    }
}

static void test_fp12_inv_conj(void)
{
    zp_fp12 a, x, y, one, zero;
    zp_fp12_one(&one);
    zp_fp12_zero(&zero);
    for (int i = 0; i < ITER; i++) {
        rand_fp12(&a);
        zp_fp12_inv(&x, &a);
        zp_fp12_mul(&y, &x, &a);
        CHECK(zp_fp12_is_one(&y));
        zp_fp12_conj(&x, &a);
        zp_fp12_frobenius(&y, &a, 6);
        CHECK(zp_fp12_eq(&x, &y));
        zp_fp12_conj(&y, &x);
        CHECK(zp_fp12_eq(&y, &a));
        /* a * conj(a) lies in Fp6 (its w coefficient vanishes). */
        zp_fp12_mul(&y, &a, &x);
        zp_fp6 z;
        zp_fp6_zero(&z);
        CHECK(zp_fp6_eq(&y.c1, &z));
    }
    zp_fp12_inv(&x, &one);
    CHECK(zp_fp12_is_one(&x));
    zp_fp12_inv(&x, &zero);
    CHECK(zp_fp12_eq(&x, &zero));
}

static void test_fp12_pow(void)
{
    zp_fp12 a, x, y;
    rand_fp12(&a);
    uint64_t e0 = 0;
    zp_fp12_pow(&x, &a, &e0, 1);
    CHECK(zp_fp12_is_one(&x));
    zp_fp12_one(&y);
    for (uint64_t k = 1; k <= 13; k++) {
        zp_fp12_mul(&y, &y, &a);
        zp_fp12_pow(&x, &a, &k, 1);
        CHECK(zp_fp12_eq(&x, &y));
    }
    /* a^(q^12 - 1) = 1 for a != 0 (Lagrange in Fp12*). */
    uint64_t e[80];
    size_t n = q_power(e, 12);
    e[0] -= 1; /* q^12 is odd, so no borrow */
    zp_fp12_pow(&x, &a, e, n);
    CHECK(zp_fp12_is_one(&x));
}

static void test_fp12_frobenius(void)
{
    uint64_t e[80];
    zp_fp12 a, x, y, z;
    rand_fp12(&a);
    for (unsigned k = 0; k <= 12; k++) {
        size_t n = q_power(e, k);
        zp_fp12_pow(&y, &a, e, n);
        zp_fp12_frobenius(&x, &a, k);
        CHECK(zp_fp12_eq(&x, &y));
    }
    /* Composition and aliasing on other elements: frob^i(frob^j) = frob^(i+j). */
    for (int it = 0; it < 10; it++) {
        rand_fp12(&a);
        for (unsigned k = 1; k < 12; k++) {
            zp_fp12_frobenius(&x, &a, 1);
            for (unsigned j = 1; j < k; j++)
                zp_fp12_frobenius(&x, &x, 1);
            zp_fp12_frobenius(&y, &a, k);
            CHECK(zp_fp12_eq(&x, &y));
        }
        /* Frobenius is a ring map. */
        rand_fp12(&z);
        zp_fp12_mul(&x, &a, &z);
        zp_fp12_frobenius(&x, &x, 3);
        zp_fp12_frobenius(&y, &a, 3);
        zp_fp12_frobenius(&z, &z, 3);
        zp_fp12_mul(&y, &y, &z);
        CHECK(zp_fp12_eq(&x, &y));
    }
}

/* f^((q^6 - 1)(q^2 + 1)) lies in the cyclotomic subgroup. */
static void cyclotomic(zp_fp12 *out, const zp_fp12 *f)
{
    zp_fp12 t, inv;
    zp_fp12_conj(&t, f);
    zp_fp12_inv(&inv, f);
    zp_fp12_mul(&t, &t, &inv);
    zp_fp12_frobenius(out, &t, 2);
    zp_fp12_mul(out, out, &t);
}

static void test_fp12_cyclotomic_sqr(void)
{
    zp_fp12 a, c, x, y;
    for (int i = 0; i < ITER; i++) {
        rand_fp12(&a);
        cyclotomic(&c, &a);
        zp_fp12_conj(&x, &c); /* conj is the inverse in the subgroup */
        zp_fp12_mul(&x, &x, &c);
        CHECK(zp_fp12_is_one(&x));
        zp__fp12_cyclotomic_sqr(&x, &c);
        zp_fp12_sqr(&y, &c);
        CHECK(zp_fp12_eq(&x, &y));
        zp__fp12_cyclotomic_sqr(&c, &c); /* aliasing */
        CHECK(zp_fp12_eq(&c, &y));
    }
}

static void test_fp12_to_bytes(void)
{
    /* Put the integer i+1 in coefficient slot i of the documented order and
     * check each 48-byte big-endian block. */
    zp_fp12 a;
    zp_fp *slots[12] = {
        &a.c0.c0.c0, &a.c0.c0.c1, &a.c0.c1.c0, &a.c0.c1.c1, &a.c0.c2.c0, &a.c0.c2.c1,
        &a.c1.c0.c0, &a.c1.c0.c1, &a.c1.c1.c0, &a.c1.c1.c1, &a.c1.c2.c0, &a.c1.c2.c1,
    };
    for (int i = 0; i < 12; i++)
        zp_fp_from_u64(slots[i], (uint64_t)i + 1);
    uint8_t out[576];
    zp_fp12_to_bytes(out, &a);
    for (int i = 0; i < 12; i++) {
        uint8_t want[48] = {0};
        want[47] = (uint8_t)(i + 1);
        CHECK_MEM(out + 48 * i, want, 48);
    }
    /* q - 1 encodes as the modulus minus one, big-endian. */
    zp_fp12_zero(&a);
    zp_fp_one(&a.c0.c0.c0);
    zp_fp_neg(&a.c0.c0.c0, &a.c0.c0.c0);
    zp_fp12_to_bytes(out, &a);
    CHECK_EQ_INT(out[0], 0x1a);
    CHECK_EQ_INT(out[47], 0xaa);
}

int main(void)
{
    RUN(test_fp6_axioms);
    RUN(test_fp6_mul_sqr_reference);
    RUN(test_fp6_inv_nr_sparse);
    RUN(test_fp6_frobenius);
    RUN(test_fp12_axioms);
    RUN(test_fp12_mul_sqr_reference);
    RUN(test_fp12_sparse_line);
    RUN(test_fp12_inv_conj);
    RUN(test_fp12_pow);
    RUN(test_fp12_frobenius);
    RUN(test_fp12_cyclotomic_sqr);
    RUN(test_fp12_to_bytes);
    return FINISH();
}
