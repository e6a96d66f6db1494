/*
 * Eight subgroup tests at once on IFMA lanes (fp_ifma.h, fp2_ifma.h), for
 * G1 and G2: subgroup.c's tests, phi(P) == -[x^2]P in G1 and
 * psi(P) == [x]P = -[|x|]P in G2, with the multiple by double-and-add in
 * Jacobian coordinates, eight points side by side (the code is
 * subgroup_ifma_impl.h, included once per group). The formulas assume no
 * special case: an addition whose H (U2 - X1) is zero or a running point at
 * infinity can only happen for a point of small order, outside the
 * subgroup, and such a lane is decided by the scalar test instead, as is a
 * point at infinity. tests/test_fp_ifma.c checks both against the scalar
 * tests inside and outside the groups.
 */
#include "math/curve.h"
#include "math/fp2_ifma.h"

static const uint64_t x_sq[2] = {0x0000000100000000ULL, 0xac45a4010001a402ULL};
static const uint64_t x_abs[1] = {0xd201000000010000ULL};

static unsigned v2_zero_mask(const v2 *a)
{
    return zp__fp52x8_zero_mask(&a->c0) & zp__fp52x8_zero_mask(&a->c1);
}

/* ---- G1: -[x^2]P == phi(P), x^2 from its top bit (127) */
#define SG_TEST zp__g1_in_subgroup_x8
#define SG_J jac8_g1
#define SG_AFF zp_g1_affine
#define SG_FE zp_fp
#define SG_V zp__fp52x8
#define SG_LOAD zp__fp52x8_load
#define SG_ADD zp__fp52x8_add
#define SG_SUB zp__fp52x8_sub
#define SG_MUL zp__fp52x8_mul
#define SG_ZERO zp__fp52x8_zero_mask
#define SG_G(op) zp_g1_##op
#define SG_F(op) zp_fp_##op
#define SG_ENDO zp__g1_phi
#define SG_BITS x_sq
#define SG_TOP 127
#include "subgroup_ifma_impl.h"
#undef SG_TEST
#undef SG_J
#undef SG_AFF
#undef SG_FE
#undef SG_V
#undef SG_LOAD
#undef SG_ADD
#undef SG_SUB
#undef SG_MUL
#undef SG_ZERO
#undef SG_G
#undef SG_F
#undef SG_ENDO
#undef SG_BITS
#undef SG_TOP

/* ---- G2: -[|x|]P == psi(P), |x| from its top bit (63) */
#define SG_TEST zp__g2_in_subgroup_x8
#define SG_J jac8_g2
#define SG_AFF zp_g2_affine
#define SG_FE zp_fp2
#define SG_V v2
#define SG_LOAD v2_load
#define SG_ADD v2_add
#define SG_SUB v2_sub
#define SG_MUL v2_mul
#define SG_ZERO v2_zero_mask
#define SG_G(op) zp_g2_##op
#define SG_F(op) zp_fp2_##op
#define SG_ENDO zp__g2_psi
#define SG_BITS x_abs
#define SG_TOP 63
#include "subgroup_ifma_impl.h"

void zp__in_subgroup_x8(bool g2, const void *const p[], int n, bool ok[])
{
    if (g2)
        zp__g2_in_subgroup_x8((const zp_g2_affine *const *)p, n, ok);
    else
        zp__g1_in_subgroup_x8((const zp_g1_affine *const *)p, n, ok);
}
