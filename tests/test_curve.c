/* G1 and G2 group laws, scalar multiplication, batch conversion and subgroup
 * checks, each fast path against a naive reference. */
#include "check.h"
#include "math/curve.h"
#include "zkpipe.h"

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

/* G1: phi(P) == -[x^2]P computed with the generic scalar multiplication. */
static bool endo_check_g1(const zp_g1_affine *a)
{
    static const uint64_t x_sq[2] = {0x0000000100000000ULL, 0xac45a4010001a402ULL};
    zp_g1_jac p, t;
    zp_g1_affine ph, got;
    zp_g1_jac_from_affine(&p, a);
    zp_g1_jac_mul_vartime(&t, &p, x_sq, 2);
    zp_g1_jac_neg(&t, &t);
    zp_g1_jac_to_affine(&got, &t);
    zp__g1_phi(&ph, a);
    return zp_g1_affine_eq(&got, &ph);
}

/* G2: psi(P) == [x]P = -[|x|]P. */
static bool endo_check_g2(const zp_g2_affine *a)
{
    static const uint64_t x_abs[1] = {0xd201000000010000ULL};
    zp_g2_jac p, t;
    zp_g2_affine ps, got;
    zp_g2_jac_from_affine(&p, a);
    zp_g2_jac_mul_vartime(&t, &p, x_abs, 1);
    zp_g2_jac_neg(&t, &t);
    zp_g2_jac_to_affine(&got, &t);
    zp__g2_psi(&ps, a);
    return zp_g2_affine_eq(&got, &ps);
}

static const uint64_t h1[2] = {0x8c00aaab0000aaabULL, 0x396c8c005555e156ULL};
static const uint64_t h2[8] = {
    0xcf1c38e31c7238e5ULL, 0x1616ec6e786f0c70ULL, 0x21537e293a6691aeULL,
    0xa628f1cb4d9e82efULL, 0xa68a205b2e5a7ddfULL, 0xcd91de4547085abaULL,
    0x091d50792876a202ULL, 0x05d543a95414e7f1ULL,
};

#define T(name) name##_g1
#define G(name) zp_g1_##name
#define GI(name) zp__g1_##name
#define E zp_fp
#define E_(op) zp_fp_##op
#define AFF zp_g1_affine
#define JAC zp_g1_jac
#define XYZZ zp_g1_xyzz
#define rand_elem rand_fp
#define COFACTOR h1
#define COFACTOR_LIMBS 2
#define FIRST_LIMB(e) ((e).l[0])
#include "test_curve_impl.h"
#undef T
#undef G
#undef GI
#undef E
#undef E_
#undef AFF
#undef JAC
#undef XYZZ
#undef rand_elem
#undef COFACTOR
#undef COFACTOR_LIMBS
#undef FIRST_LIMB

#define T(name) name##_g2
#define G(name) zp_g2_##name
#define GI(name) zp__g2_##name
#define E zp_fp2
#define E_(op) zp_fp2_##op
#define AFF zp_g2_affine
#define JAC zp_g2_jac
#define XYZZ zp_g2_xyzz
#define rand_elem rand_fp2
#define COFACTOR h2
#define COFACTOR_LIMBS 8
#define FIRST_LIMB(e) ((e).c0.l[0])
#include "test_curve_impl.h"

/* G1 has points of order 3, (0, +-2): on the curve, outside G1. */
static void test_g1_order3(void)
{
    zp_g1_affine a;
    zp_g1_jac p, t;
    zp_fp_zero(&a.x);
    zp_fp_from_u64(&a.y, 2);
    CHECK(zp_g1_affine_on_curve(&a));
    CHECK(!zp_g1_affine_in_subgroup(&a));
    CHECK(!zp__g1_in_subgroup_slow(&a));
    zp_g1_jac_from_affine(&p, &a);
    uint64_t three = 3;
    zp_g1_jac_mul_vartime(&t, &p, &three, 1);
    CHECK(zp_g1_jac_is_inf(&t));
    zp_g1_jac_dbl(&t, &p);
    zp_g1_jac_add(&t, &t, &p);
    CHECK(zp_g1_jac_is_inf(&t));
}

/* The G1 test's addition chain ([|x|] twice) against its plain
 * double-and-add twin and the [r]P reference: subgroup points, random curve
 * points (outside), the order-3 point and order-3 point + subgroup point. */
static void test_subgroup_chain_g1(void)
{
    zp_g1_affine a, o3, g;
    zp_g1_jac p;
    for (int it = 0; it < 6; it++) {
        if (it & 1)
            rand_point_g1(&p, &a);
        else
            rand_curve_point_g1(&a);
        bool slow = zp__g1_in_subgroup_slow(&a);
        CHECK(zp_g1_affine_in_subgroup(&a) == slow);
        CHECK(zp__g1_in_subgroup_dbladd(&a) == slow);
        CHECK(slow == (bool)(it & 1));
    }
    zp_fp_zero(&o3.x);
    zp_fp_from_u64(&o3.y, 2);
    CHECK(!zp_g1_affine_in_subgroup(&o3) && !zp__g1_in_subgroup_dbladd(&o3));
    zp_fp_neg(&o3.y, &o3.y);
    CHECK(!zp_g1_affine_in_subgroup(&o3) && !zp__g1_in_subgroup_dbladd(&o3));
    zp_g1_generator(&g);
    zp_g1_jac_from_affine(&p, &g);
    zp_g1_jac_add_affine(&p, &p, &o3);
    zp_g1_jac_to_affine(&a, &p);
    CHECK(!zp_g1_affine_in_subgroup(&a) && !zp__g1_in_subgroup_dbladd(&a));
    CHECK(!zp__g1_in_subgroup_slow(&a));
}

/* The generator's known coordinates (plain, big-endian hex prefixes). */
static void test_generators_known(void)
{
    zp_g1_affine g1;
    zp_g2_affine g2;
    uint8_t b[48];
    zp_g1_generator(&g1);
    zp_fp_to_be(b, &g1.x);
    CHECK(b[0] == 0x17 && b[1] == 0xf1 && b[2] == 0xd3 && b[47] == 0xbb);
    zp_fp_to_be(b, &g1.y);
    CHECK(b[0] == 0x08 && b[1] == 0xb3 && b[47] == 0xe1);
    zp_g2_generator(&g2);
    zp_fp_to_be(b, &g2.x.c0);
    CHECK(b[0] == 0x02 && b[1] == 0x4a && b[47] == 0xb8);
    zp_fp_to_be(b, &g2.x.c1);
    CHECK(b[0] == 0x13 && b[1] == 0xe0 && b[47] == 0x7e);
    zp_fp_to_be(b, &g2.y.c0);
    CHECK(b[0] == 0x0c && b[1] == 0xe5 && b[47] == 0x01);
    zp_fp_to_be(b, &g2.y.c1);
    CHECK(b[0] == 0x06 && b[1] == 0x06 && b[47] == 0xbe);
}

int main(void)
{
    RUN(test_generators_known);
    RUN(test_generator_g1);
    RUN(test_group_laws_g1);
    RUN(test_mixed_add_g1);
    RUN(test_xyzz_g1);
    RUN(test_forms_agree_g1);
    RUN(test_mul_g1);
    RUN(test_batch_to_affine_g1);
    RUN(test_subgroup_g1);
    RUN(test_g1_order3);
    RUN(test_subgroup_chain_g1);
    RUN(test_generator_g2);
    RUN(test_group_laws_g2);
    RUN(test_mixed_add_g2);
    RUN(test_xyzz_g2);
    RUN(test_forms_agree_g2);
    RUN(test_mul_g2);
    RUN(test_batch_to_affine_g2);
    RUN(test_subgroup_g2);
    return FINISH();
}
