/* Fp and Fr: field axioms and the fast paths against slow references. */
#include "check.h"
#include "math/mont.h"
#include "math/mont_x86.h"
#include "zkpipe.h"

#define ITER 200

static void rand_fp(zp_fp *out)
{
    zp_fp plain;
    for (int i = 0; i < 6; i++)
        plain.l[i] = check_rand64();
    plain.l[5] &= 0x0fffffffffffffffULL; /* below q */
    zp_fp_to_mont(out, &plain);
}

static void rand_fr(zp_fr *out)
{
    zp_fr plain;
    for (int i = 0; i < 4; i++)
        plain.l[i] = check_rand64();
    plain.l[3] &= 0x3fffffffffffffffULL; /* below r */
    zp_fr_to_mont(out, &plain);
}

/* R mod m and R^2 mod m of each field as plain values: 2^384 mod q,
 * 2^768 mod q, 2^256 mod r, 2^512 mod r (checked with Python integers). */
static const zp_fp fp_r_plain = {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL,
                                  0x5f48985753c758baULL, 0x77ce585370525745ULL,
                                  0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}};
static const zp_fp fp_r2_plain = {{0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL,
                                   0x8de5476c4c95b6d5ULL, 0x67eb88a9939d83c0ULL,
                                   0x9a793e85b519952dULL, 0x11988fe592cae3aaULL}};
static const zp_fr fr_r_plain = {{0x00000001fffffffeULL, 0x5884b7fa00034802ULL,
                                  0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL}};
static const zp_fr fr_r2_plain = {{0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL,
                                   0x05d314967254398fULL, 0x0748d9d99f59ff11ULL}};

/* Edge values: 0, 1, m-1, m-2, values around limb boundaries, all-ones
 * limbs below m, R and R^2. */
static int edge_fp(zp_fp *out, int k)
{
    zp_fp plain = {{0}};
    switch (k) {
    case 0: break;
    case 1: plain.l[0] = 1; break;
    case 2: plain = ZP_FP_MODULUS; plain.l[0] -= 1; break;
    case 3: plain = ZP_FP_MODULUS; plain.l[0] -= 2; break;
    case 4: plain.l[0] = ~0ULL; break;
    case 5: plain.l[1] = 1; break;
    case 6: for (int i = 0; i < 5; i++) plain.l[i] = ~0ULL; break;
    case 7: plain.l[5] = 0x1a0111ea397fe699ULL; break;
    case 8: for (int i = 0; i < 5; i++) plain.l[i] = ~0ULL; plain.l[5] = 0x1a0111ea397fe699ULL; break;
    case 9: plain = fp_r_plain; break;
    case 10: plain = fp_r2_plain; break;
    default: return 0;
    }
    zp_fp_to_mont(out, &plain);
    return 1;
}

static int edge_fr(zp_fr *out, int k)
{
    zp_fr plain = {{0}};
    switch (k) {
    case 0: break;
    case 1: plain.l[0] = 1; break;
    case 2: plain = ZP_FR_MODULUS; plain.l[0] -= 1; break;
    case 3: plain = ZP_FR_MODULUS; plain.l[0] -= 2; break;
    case 4: plain.l[0] = ~0ULL; break;
    case 5: for (int i = 0; i < 3; i++) plain.l[i] = ~0ULL; break;
    case 6: for (int i = 0; i < 3; i++) plain.l[i] = ~0ULL; plain.l[3] = 0x73eda753299d7d47ULL; break;
    case 7: plain = fr_r_plain; break;
    case 8: plain = fr_r2_plain; break;
    default: return 0;
    }
    zp_fr_to_mont(out, &plain);
    return 1;
}

/* Runs a test on the portable multiply and, where the CPU has them, on
 * the x86-64 BMI2/ADX kernels. */
static void on_each_path(void (*fn)(void))
{
#ifdef ZP__X86_ASM
    bool was = zp__x86_fast;
    zp__x86_set_fast(false, false);
    fn();
    if (zp__x86_set_fast(true, false))
        fn();
    zp__x86_fast = was;
#else
    fn();
#endif
}

/* Slow reference: a*b by double-and-add over the plain bits of b. */
static void ref_mul_fp(zp_fp *out, const zp_fp *a, const zp_fp *b)
{
    zp_fp pb, acc;
    zp_fp_from_mont(&pb, b);
    zp_fp_zero(&acc);
    for (int i = 5; i >= 0; i--)
        for (int bit = 63; bit >= 0; bit--) {
            zp_fp_dbl(&acc, &acc);
            if ((pb.l[i] >> bit) & 1)
                zp_fp_add(&acc, &acc, a);
        }
    *out = acc;
}

static void ref_mul_fr(zp_fr *out, const zp_fr *a, const zp_fr *b)
{
    zp_fr pb, acc;
    zp_fr_from_mont(&pb, b);
    zp_fr_zero(&acc);
    for (int i = 3; i >= 0; i--)
        for (int bit = 63; bit >= 0; bit--) {
            zp_fr_dbl(&acc, &acc);
            if ((pb.l[i] >> bit) & 1)
                zp_fr_add(&acc, &acc, a);
        }
    *out = acc;
}

/* mul and sqr against the double-and-add reference, with aliasing. */
static void check_fp_pair(const zp_fp *a, const zp_fp *b)
{
    zp_fp x, y, t;
    ref_mul_fp(&y, a, b);
    zp_fp_mul(&x, a, b);
    CHECK(zp_fp_eq(&x, &y));
    t = *a;
    zp_fp_mul(&t, &t, b); /* out == a */
    CHECK(zp_fp_eq(&t, &y));
    t = *b;
    zp_fp_mul(&t, a, &t); /* out == b */
    CHECK(zp_fp_eq(&t, &y));
    ref_mul_fp(&y, a, a);
    zp_fp_sqr(&x, a);
    CHECK(zp_fp_eq(&x, &y));
    t = *a;
    zp_fp_mul(&t, &t, &t); /* out == a == b */
    CHECK(zp_fp_eq(&t, &y));
    t = *a;
    zp_fp_sqr(&t, &t);
    CHECK(zp_fp_eq(&t, &y));
}

static void check_fr_pair(const zp_fr *a, const zp_fr *b)
{
    zp_fr x, y, t;
    ref_mul_fr(&y, a, b);
    zp_fr_mul(&x, a, b);
    CHECK(zp_fr_eq(&x, &y));
    t = *a;
    zp_fr_mul(&t, &t, b);
    CHECK(zp_fr_eq(&t, &y));
    t = *b;
    zp_fr_mul(&t, a, &t);
    CHECK(zp_fr_eq(&t, &y));
    ref_mul_fr(&y, a, a);
    zp_fr_sqr(&x, a);
    CHECK(zp_fr_eq(&x, &y));
    t = *a;
    zp_fr_mul(&t, &t, &t);
    CHECK(zp_fr_eq(&t, &y));
    t = *a;
    zp_fr_sqr(&t, &t);
    CHECK(zp_fr_eq(&t, &y));
}

static void fp_mul_cases(void)
{
    zp_fp a, b;
    for (int i = 0; i < ITER; i++) {
        rand_fp(&a);
        rand_fp(&b);
        check_fp_pair(&a, &b);
    }
    for (int i = 0; edge_fp(&a, i); i++)
        for (int j = 0; edge_fp(&b, j); j++)
            check_fp_pair(&a, &b);
}

static void fr_mul_cases(void)
{
    zp_fr a, b;
    for (int i = 0; i < ITER; i++) {
        rand_fr(&a);
        rand_fr(&b);
        check_fr_pair(&a, &b);
    }
    for (int i = 0; edge_fr(&a, i); i++)
        for (int j = 0; edge_fr(&b, j); j++)
            check_fr_pair(&a, &b);
}

static void test_fp_mul_matches_reference(void) { on_each_path(fp_mul_cases); }
static void test_fr_mul_matches_reference(void) { on_each_path(fr_mul_cases); }

static void test_fp_axioms(void)
{
    zp_fp a, b, c, t, u, zero, one;
    zp_fp_zero(&zero);
    zp_fp_one(&one);
    for (int i = 0; i < ITER; i++) {
        rand_fp(&a);
        rand_fp(&b);
        rand_fp(&c);
        zp_fp_add(&t, &a, &b);
        zp_fp_add(&u, &b, &a);
        CHECK(zp_fp_eq(&t, &u));
        zp_fp_mul(&t, &a, &b);
        zp_fp_mul(&u, &b, &a);
        CHECK(zp_fp_eq(&t, &u));
        /* distributivity */
        zp_fp_add(&t, &b, &c);
        zp_fp_mul(&t, &a, &t);
        zp_fp mb, mc;
        zp_fp_mul(&mb, &a, &b);
        zp_fp_mul(&mc, &a, &c);
        zp_fp_add(&u, &mb, &mc);
        CHECK(zp_fp_eq(&t, &u));
        /* a - b + b = a; a + (-a) = 0 */
        zp_fp_sub(&t, &a, &b);
        zp_fp_add(&t, &t, &b);
        CHECK(zp_fp_eq(&t, &a));
        zp_fp_neg(&t, &a);
        zp_fp_add(&t, &t, &a);
        CHECK(zp_fp_is_zero(&t));
        /* a * a^-1 = 1 */
        zp_fp_inv(&t, &a);
        zp_fp_mul(&t, &t, &a);
        CHECK(zp_fp_is_one(&t) || zp_fp_is_zero(&a));
        zp_fp_sqr(&t, &a);
        zp_fp_mul(&u, &a, &a);
        CHECK(zp_fp_eq(&t, &u));
    }
    zp_fp_inv(&t, &zero);
    CHECK(zp_fp_is_zero(&t));
    zp_fp_neg(&t, &zero);
    CHECK(zp_fp_is_zero(&t));
    zp_fp_mul(&t, &one, &one);
    CHECK(zp_fp_is_one(&t));
}

static void test_fr_axioms(void)
{
    zp_fr a, b, t, u;
    for (int i = 0; i < ITER; i++) {
        rand_fr(&a);
        rand_fr(&b);
        zp_fr_sub(&t, &a, &b);
        zp_fr_add(&t, &t, &b);
        CHECK(zp_fr_eq(&t, &a));
        zp_fr_inv(&t, &a);
        zp_fr_mul(&t, &t, &a);
        CHECK(zp_fr_is_one(&t));
        zp_fr_mul(&t, &a, &b);
        zp_fr_mul(&u, &b, &a);
        CHECK(zp_fr_eq(&t, &u));
    }
}

static void test_sqrt_and_legendre(void)
{
    zp_fp a, s, t;
    int squares = 0, non = 0;
    for (int i = 0; i < ITER; i++) {
        rand_fp(&a);
        zp_fp_sqr(&t, &a);
        CHECK(zp_fp_legendre(&t) == 1 || zp_fp_is_zero(&a));
        CHECK(zp_fp_sqrt(&s, &t));
        zp_fp_sqr(&s, &s);
        CHECK(zp_fp_eq(&s, &t));
        int l = zp_fp_legendre(&a);
        bool has = zp_fp_sqrt(&s, &a);
        CHECK(has == (l >= 0));
        if (l == 1) squares++;
        if (l == -1) non++;
    }
    CHECK(squares > 0 && non > 0);
    zp_fr b, bs, bt;
    for (int i = 0; i < ITER; i++) {
        rand_fr(&b);
        zp_fr_sqr(&bt, &b);
        CHECK(zp_fr_sqrt(&bs, &bt));
        zp_fr_sqr(&bs, &bs);
        CHECK(zp_fr_eq(&bs, &bt));
        int l = zp_fr_legendre(&b);
        CHECK(zp_fr_sqrt(&bs, &b) == (l >= 0));
    }
}

static void test_bytes_roundtrip_and_canonical(void)
{
    uint8_t buf[48], back[48];
    zp_fp a, b;
    for (int i = 0; i < ITER; i++) {
        rand_fp(&a);
        zp_fp_to_be(buf, &a);
        CHECK(zp_fp_from_be(&b, buf) == ZP_OK);
        CHECK(zp_fp_eq(&a, &b));
        zp_fp_to_le(buf, &a);
        CHECK(zp_fp_from_le(&b, buf) == ZP_OK);
        CHECK(zp_fp_eq(&a, &b));
    }
    /* q itself and all-ones are rejected */
    zp__limbs_to_be(buf, ZP_FP_MODULUS.l, 6);
    CHECK(zp_fp_from_be(&b, buf) == ZP_E_NOT_CANONICAL);
    memset(buf, 0xff, 48);
    CHECK(zp_fp_from_be(&b, buf) == ZP_E_NOT_CANONICAL);
    /* q - 1 is accepted and round-trips */
    zp_fp qm1 = ZP_FP_MODULUS;
    qm1.l[0] -= 1;
    zp__limbs_to_be(buf, qm1.l, 6);
    CHECK(zp_fp_from_be(&b, buf) == ZP_OK);
    zp_fp_to_be(back, &b);
    CHECK_MEM(buf, back, 48);
    zp_fr r;
    uint8_t rb[32];
    zp__limbs_to_le(rb, ZP_FR_MODULUS.l, 4);
    CHECK(zp_fr_from_le(&r, rb) == ZP_E_NOT_CANONICAL);
}

static void test_roots_of_unity(void)
{
    for (int conv = 0; conv < 2; conv++) {
        zp_roots c = conv ? ZP_ROOTS_BELLPERSON : ZP_ROOTS_SNARKJS;
        for (unsigned k = 1; k <= 32; k++) {
            zp_fr w, t;
            zp_fr_root_of_unity(&w, k, c);
            t = w;
            for (unsigned i = 0; i < k - 1; i++)
                zp_fr_sqr(&t, &t);
            /* w^(2^(k-1)) = -1, so the order is exactly 2^k */
            zp_fr one, mone;
            zp_fr_one(&one);
            zp_fr_neg(&mone, &one);
            CHECK(zp_fr_eq(&t, &mone));
        }
    }
    /* the 2^32 root equals g^((r-1)/2^32) computed directly */
    static const uint64_t t[4] = {0xfffe5bfeffffffffULL, 0x09a1d80553bda402ULL,
                                  0x299d7d483339d808ULL, 0x0000000073eda753ULL};
    zp_fr g, w, x;
    zp_fr_from_u64(&g, 7);
    zp_fr_pow(&x, &g, t, 4);
    zp_fr_root_of_unity(&w, 32, ZP_ROOTS_BELLPERSON);
    CHECK(zp_fr_eq(&x, &w));
}

static void test_random_differs(void)
{
    zp_fr a, b;
    CHECK(zp_fr_random(&a) == ZP_OK);
    CHECK(zp_fr_random(&b) == ZP_OK);
    CHECK(!zp_fr_eq(&a, &b));
}

int main(void)
{
    RUN(test_fp_mul_matches_reference);
    RUN(test_fr_mul_matches_reference);
    RUN(test_fp_axioms);
    RUN(test_fr_axioms);
    RUN(test_sqrt_and_legendre);
    RUN(test_bytes_roundtrip_and_canonical);
    RUN(test_roots_of_unity);
    RUN(test_random_differs);
    return FINISH();
}
