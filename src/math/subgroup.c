/*
 * Prime-order subgroup membership. Key import checks hundreds of millions
 * of points, so the public predicates use endomorphism tests that cost
 * about one 64- or 128-bit scalar multiplication instead of a 255-bit one:
 *
 *   G1: phi(P) == -[x^2]P with phi(x, y) = (beta x, y). phi + [x^2] has a
 *       kernel of exactly x^4 - x^2 + 1 = r points, and G1 is inside it,
 *       so the test is exact for every point of E(Fp) (Scott, "A note on
 *       group membership tests for G1, G2 and GT on BLS pairing-friendly
 *       curves", 2021).
 *   G2: psi(P) == [x]P. The kernel of psi - [x] has q - x = r (x-1)^2/3
 *       points; the twist cofactor h2 is coprime to (x-1)^2/3 and not
 *       divisible by r, so only G2 passes (same paper).
 *
 * tests/vectors/curve_constants.py derives beta and the psi constants and
 * asserts these arithmetic facts. The slow twins ([r]P == O) are kept for
 * the tests, which compare both on points inside and outside the groups.
 */
#include "zkpipe.h"
#include "math/curve.h"

/* x^2 = 0xd201000000010000^2 (x = -0xd201000000010000) as LE limbs. */
static const uint64_t x_sq[2] = {0x0000000100000000ULL, 0xac45a4010001a402ULL};
static const uint64_t x_abs[1] = {0xd201000000010000ULL};

/* beta: the cube root of unity for which phi acts on G1 as [-x^2]. */
static const zp_fp beta = {{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL,
                            0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
                            0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}};

/* psi(x, y) = (conj(x) cx, conj(y) cy), cx = 1/(u+1)^((q-1)/3) (c0 = 0),
 * cy = 1/(u+1)^((q-1)/2). */
static const zp_fp psi_cx_c1 = {{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL,
                                 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL,
                                 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}};
static const zp_fp2 psi_cy = {
    {{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL,
      0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}},
    {{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL,
      0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}},
};

void zp__g1_phi(zp_g1_affine *out, const zp_g1_affine *a)
{
    zp_fp_mul(&out->x, &a->x, &beta);
    out->y = a->y;
}

void zp__g2_psi(zp_g2_affine *out, const zp_g2_affine *a)
{
    zp_fp2 t;
    /* conj(x) * (0 + c u) = (x0 - x1 u) c u = x1 c + x0 c u */
    zp_fp_mul(&t.c0, &a->x.c1, &psi_cx_c1);
    zp_fp_mul(&t.c1, &a->x.c0, &psi_cx_c1);
    zp_fp2_conj(&out->y, &a->y);
    zp_fp2_mul(&out->y, &out->y, &psi_cy);
    out->x = t;
}

/*
 * [|x|]P for Jacobian P: |x| has six set bits (63, 62, 60, 57, 48, 16), so
 * starting from P at bit 63 this is 63 doublings and five additions. The
 * G1 test applies it twice, [x^2]P = [|x|]([|x|]P): 126 doublings and ten
 * additions against 127 doublings and 16 mixed additions for a plain
 * double-and-add over the 17 set bits of x^2 (about 10% fewer multiplies).
 */
static void g1_mul_xabs(zp_g1_jac *out, const zp_g1_jac *p)
{
    zp_g1_jac acc = *p;
    for (int i = 62; i >= 0; i--) {
        zp_g1_jac_dbl(&acc, &acc);
        if ((x_abs[0] >> i) & 1)
            zp_g1_jac_add(&acc, &acc, p);
    }
    *out = acc;
}

/* The same chain with mixed additions, for the first application. */
static void g1_mul_xabs_affine(zp_g1_jac *out, const zp_g1_affine *p)
{
    zp_g1_jac acc;
    zp_g1_jac_from_affine(&acc, p);
    for (int i = 62; i >= 0; i--) {
        zp_g1_jac_dbl(&acc, &acc);
        if ((x_abs[0] >> i) & 1)
            zp_g1_jac_add_affine(&acc, &acc, p);
    }
    *out = acc;
}

bool zp_g1_affine_in_subgroup(const zp_g1_affine *a)
{
    if (zp_g1_affine_is_inf(a))
        return true;
    zp_g1_jac t;
    zp_g1_affine ph;
    g1_mul_xabs_affine(&t, a);
    g1_mul_xabs(&t, &t);
    zp_g1_jac_neg(&t, &t);
    zp__g1_phi(&ph, a);
    return zp__g1_jac_eq_affine(&t, &ph);
}

/* The plain double-and-add version of the G1 test (the twin of the one
 * above, for the tests). */
bool zp__g1_in_subgroup_dbladd(const zp_g1_affine *a)
{
    if (zp_g1_affine_is_inf(a))
        return true;
    zp_g1_jac t;
    zp_g1_affine ph;
    zp__g1_mul_affine_dbladd(&t, a, x_sq, 2);
    zp_g1_jac_neg(&t, &t);
    zp__g1_phi(&ph, a);
    return zp__g1_jac_eq_affine(&t, &ph);
}

bool zp_g2_affine_in_subgroup(const zp_g2_affine *a)
{
    if (zp_g2_affine_is_inf(a))
        return true;
    zp_g2_jac t;
    zp_g2_affine ps;
    /* x < 0: [x]P = -[|x|]P; from P at bit 63: 63 doublings, 5 additions */
    zp_g2_jac_from_affine(&t, a);
    for (int i = 62; i >= 0; i--) {
        zp_g2_jac_dbl(&t, &t);
        if ((x_abs[0] >> i) & 1)
            zp_g2_jac_add_affine(&t, &t, a);
    }
    zp_g2_jac_neg(&t, &t);
    zp__g2_psi(&ps, a);
    return zp__g2_jac_eq_affine(&t, &ps);
}

bool zp__g1_in_subgroup_slow(const zp_g1_affine *a)
{
    zp_g1_jac p, t;
    zp_g1_jac_from_affine(&p, a);
    zp_g1_jac_mul_vartime(&t, &p, ZP_FR_MODULUS.l, ZP_FR_LIMBS);
    return zp_g1_jac_is_inf(&t);
}

bool zp__g2_in_subgroup_slow(const zp_g2_affine *a)
{
    zp_g2_jac p, t;
    zp_g2_jac_from_affine(&p, a);
    zp_g2_jac_mul_vartime(&t, &p, ZP_FR_MODULUS.l, ZP_FR_LIMBS);
    return zp_g2_jac_is_inf(&t);
}
