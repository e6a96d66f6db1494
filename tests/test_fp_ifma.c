/*
 * The eight-lane IFMA Fp product (src/math/fp_ifma.c) against the scalar
 * zp_fp_mul: conversions both ways (scalar and one-vector-product forms,
 * and the R' form kept in six words with its raw loads and stores),
 * products on random and edge operands (0, 1, one, p - 1, p - 2, values
 * with all-ones limbs), in place, and add / sub against the scalar ones;
 * the Fp2 product and square against zp_fp2_mul / zp_fp2_sqr; the lazy
 * product and the reduction, on loose operands too.
 * Exits 77
 * (skipped) on a CPU without AVX-512 IFMA.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "math/fp_ifma.h"

#define ROUNDS 4000

static void operand(zp_fp *out, int i)
{
    memset(out, 0, sizeof *out);
    switch (i % 16) {
    case 0: break;
    case 1: out->l[0] = 1; break;
    case 2: zp_fp_one(out); break;
    case 3: *out = ZP_FP_MODULUS; out->l[0] -= 1; break;
    case 4: *out = ZP_FP_MODULUS; out->l[0] -= 2; break;
    case 5: for (int j = 0; j < 5; j++) out->l[j] = ~0ULL; break;
    case 6: *out = ZP_FP_MODULUS; out->l[5] -= 1; break;
    default: {
        zp_fp plain;
        for (int j = 0; j < 6; j++)
            plain.l[j] = check_rand64();
        plain.l[5] &= 0x0fffffffffffffffULL;
        zp_fp_to_mont(out, &plain);
    }
    }
}

static void test_convert(void)
{
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        zp_fp in[8], back[8];
        zp__fp52x8 v;
        for (int k = 0; k < 8; k++)
            operand(&in[k], 8 * r + k + (r & 3));
        zp__fp52x8_from(&v, in);
        for (int j = 0; j < 8; j++)
            for (int k = 0; k < 8; k++)
                bad += v.l[j][k] >> 52 != 0;
        zp__fp52x8_to(back, &v);
        bad += memcmp(in, back, sizeof in) != 0;
    }
    CHECK_EQ_INT(bad, 0);
}

/* The R' form kept in six words: zp__fp_to_r52 agrees with the lanes'
 * converting load (stored raw), a raw load gives the same lanes as the
 * converting load, and zp__fp_from_r52 undoes it. */
static void test_r52_form(void)
{
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        zp_fp in[8], r52[8], viaf[8], back[8];
        const zp_fp *pin[8], *pr52[8];
        zp_fp *pviaf[8];
        for (int k = 0; k < 8; k++) {
            operand(&in[k], 8 * r + k + (r & 7));
            zp__fp_to_r52(&r52[k], &in[k]);
            zp__fp_from_r52(&back[k], &r52[k]);
            pin[k] = &in[k];
            pr52[k] = &r52[k];
            pviaf[k] = &viaf[k];
        }
        zp__fp52x8 a, b;
        zp__fp52x8_load(&a, pin);
        zp__fp52x8_load_raw(&b, pr52);
        bad += memcmp(&a, &b, sizeof a) != 0;
        zp__fp52x8_store_raw(pviaf, &a);
        bad += memcmp(viaf, r52, sizeof viaf) != 0;
        bad += memcmp(back, in, sizeof in) != 0;
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_mul(void)
{
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        zp_fp a[8], b[8], want[8], got[8];
        zp__fp52x8 va, vb, vr;
        for (int k = 0; k < 8; k++) {
            operand(&a[k], 8 * r + k);
            operand(&b[k], 8 * r + 3 * k + 1);
            zp_fp_mul(&want[k], &a[k], &b[k]);
        }
        zp__fp52x8_from(&va, a);
        zp__fp52x8_from(&vb, b);
        zp__fp52x8_mul(&vr, &va, &vb);
        zp__fp52x8_to(got, &vr);
        bad += memcmp(want, got, sizeof got) != 0;
        zp__fp52x8_mul(&va, &va, &va); /* in place: squares */
        zp__fp52x8_to(got, &va);
        for (int k = 0; k < 8; k++) {
            zp_fp_sqr(&want[k], &a[k]);
            bad += memcmp(&want[k], &got[k], sizeof got[k]) != 0;
        }
    }
    CHECK_EQ_INT(bad, 0);
}

/* v + p lane by lane (a value below 2p for canonical v): the loose
 * operands the lazy forms take. */
static void add_p(zp__fp52x8 *v)
{
    uint64_t p52[8];
    for (int j = 0; j < 8; j++) {
        unsigned bit = 52 * (unsigned)j, w = bit / 64, sh = bit % 64;
        uint64_t x = w < 6 ? ZP_FP_MODULUS.l[w] >> sh : 0;
        if (sh > 12 && w + 1 < 6)
            x |= ZP_FP_MODULUS.l[w + 1] << (64 - sh);
        p52[j] = x & 0xfffffffffffffULL;
    }
    for (int k = 0; k < 8; k++) {
        uint64_t c = 0;
        for (int j = 0; j < 8; j++) {
            uint64_t s = v->l[j][k] + p52[j] + c;
            v->l[j][k] = j < 7 ? s & 0xfffffffffffffULL : s;
            c = j < 7 ? s >> 52 : 0;
        }
    }
}

/* The lazy product (no final subtraction) and the reduction after it, on
 * canonical and on loose (v + p) operands, and a difference whose left
 * side is loose: once reduced, each equals the canonical result limb for
 * limb; a lazy product of loose operands is itself below 2p (so reduce
 * finishes it) and a valid operand again. */
static void test_lazy(void)
{
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        zp_fp a[8], b[8];
        zp__fp52x8 va, vb, la, lb, want, got, t;
        for (int k = 0; k < 8; k++) {
            operand(&a[k], 8 * r + k);
            operand(&b[k], 8 * r + 5 * k + 3);
        }
        zp__fp52x8_from(&va, a);
        zp__fp52x8_from(&vb, b);
        la = va;
        lb = vb;
        add_p(&la);
        add_p(&lb);
        zp__fp52x8_mul(&want, &va, &vb);
        zp__fp52x8_mul_lazy(&got, &va, &vb);
        zp__fp52x8_reduce(&got, &got);
        bad += memcmp(&want, &got, sizeof got) != 0;
        zp__fp52x8_mul_lazy(&got, &la, &lb);
        zp__fp52x8_mul_lazy(&t, &got, &lb); /* a lazy result as an operand */
        zp__fp52x8_reduce(&got, &got);
        bad += memcmp(&want, &got, sizeof got) != 0;
        zp__fp52x8_mul(&want, &want, &vb);
        zp__fp52x8_reduce(&t, &t);
        bad += memcmp(&want, &t, sizeof t) != 0;
        zp__fp52x8_sub(&want, &va, &vb);
        zp__fp52x8_sub(&got, &la, &vb);
        zp__fp52x8_reduce(&got, &got);
        bad += memcmp(&want, &got, sizeof got) != 0;
    }
    CHECK_EQ_INT(bad, 0);
}

/* Eight Fp2 values (each half an operand) into two vectors and back. */
static void fp2_in(zp__fp52x8 *v0, zp__fp52x8 *v1, const zp_fp2 x[8])
{
    zp_fp c0[8], c1[8];
    for (int k = 0; k < 8; k++) {
        c0[k] = x[k].c0;
        c1[k] = x[k].c1;
    }
    zp__fp52x8_from(v0, c0);
    zp__fp52x8_from(v1, c1);
}

static int fp2_bad(const zp__fp52x8 *v0, const zp__fp52x8 *v1, const zp_fp2 want[8])
{
    zp_fp c0[8], c1[8];
    int bad = 0;
    zp__fp52x8_to(c0, v0);
    zp__fp52x8_to(c1, v1);
    for (int k = 0; k < 8; k++)
        bad += memcmp(&c0[k], &want[k].c0, sizeof c0[k]) != 0 ||
               memcmp(&c1[k], &want[k].c1, sizeof c1[k]) != 0;
    return bad;
}

/* The Fp2 product with two reductions and the two-product square against
 * zp_fp2_mul / zp_fp2_sqr, with every pairing of the edge operands among
 * the halves (so a0 b0 - a1 b1 takes its extremes), in place, and their
 * lazy forms on loose halves (v + p) once reduced. */
static void test_fp2_mul_sqr(void)
{
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        zp_fp2 a[8], b[8], want[8], sq[8];
        zp__fp52x8 a0, a1, b0, b1, o0, o1;
        for (int k = 0; k < 8; k++) {
            int i = 8 * r + k;
            operand(&a[k].c0, i);
            operand(&a[k].c1, i / 16 + 7 * k);
            operand(&b[k].c0, i / 256 + 3 * k);
            operand(&b[k].c1, i + 5);
            zp_fp2_mul(&want[k], &a[k], &b[k]);
            zp_fp2_sqr(&sq[k], &a[k]);
        }
        fp2_in(&a0, &a1, a);
        fp2_in(&b0, &b1, b);
        zp__fp2x8_mul(&o0, &o1, &a0, &a1, &b0, &b1, false);
        bad += fp2_bad(&o0, &o1, want);
        zp__fp2x8_sqr(&o0, &o1, &a0, &a1, false);
        bad += fp2_bad(&o0, &o1, sq);
        zp__fp2x8_mul(&b0, &b1, &a0, &a1, &b0, &b1, false); /* in place */
        bad += fp2_bad(&b0, &b1, want);
        zp__fp2x8_sqr(&a0, &a1, &a0, &a1, false);
        bad += fp2_bad(&a0, &a1, sq);
        /* The lazy forms on loose halves (v + p, below 2p), reduced. */
        fp2_in(&a0, &a1, a);
        fp2_in(&b0, &b1, b);
        add_p(&a0);
        add_p(&b1);
        zp__fp2x8_mul(&o0, &o1, &a0, &a1, &b0, &b1, true);
        zp__fp52x8_reduce(&o0, &o0);
        zp__fp52x8_reduce(&o1, &o1);
        bad += fp2_bad(&o0, &o1, want);
        fp2_in(&a0, &a1, a); /* a1 loose alone: a0 - a1 + 2p is needed */
        add_p(&a1);
        zp__fp2x8_sqr(&o0, &o1, &a0, &a1, true);
        zp__fp52x8_reduce(&o0, &o0);
        zp__fp52x8_reduce(&o1, &o1);
        bad += fp2_bad(&o0, &o1, sq);
    }
    CHECK_EQ_INT(bad, 0);
}

/* The fast load and store (one vector product each) against the scalar
 * conversions; add and sub against zp_fp_add / zp_fp_sub. */
static void test_load_store_add_sub(void)
{
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        zp_fp a[8], b[8], got[8], want;
        const zp_fp *pa[8], *pb[8];
        zp_fp *pg[8];
        for (int k = 0; k < 8; k++) {
            operand(&a[k], 8 * r + k + 5);
            operand(&b[k], 8 * r + 5 * k + 2);
            pa[k] = &a[k];
            pb[k] = &b[k];
            pg[k] = &got[7 - k]; /* scattered in reverse */
        }
        zp__fp52x8 va, vb, ref, vr;
        zp__fp52x8_load(&va, pa);
        zp__fp52x8_load(&vb, pb);
        zp__fp52x8_from(&ref, a);
        bad += memcmp(&va, &ref, sizeof va) != 0;
        zp__fp52x8_store(pg, &va);
        for (int k = 0; k < 8; k++)
            bad += memcmp(&got[7 - k], &a[k], sizeof a[k]) != 0;
        zp__fp52x8_add(&vr, &va, &vb);
        zp__fp52x8_store(pg, &vr);
        for (int k = 0; k < 8; k++) {
            zp_fp_add(&want, &a[k], &b[k]);
            bad += memcmp(&got[7 - k], &want, sizeof want) != 0;
        }
        zp__fp52x8_sub(&vr, &va, &vb);
        zp__fp52x8_store(pg, &vr);
        for (int k = 0; k < 8; k++) {
            zp_fp_sub(&want, &a[k], &b[k]);
            bad += memcmp(&got[7 - k], &want, sizeof want) != 0;
        }
        zp__fp52x8_sub(&vr, &vb, &vb); /* zero */
        zp__fp52x8_store(pg, &vr);
        for (int k = 0; k < 8; k++)
            bad += !zp_fp_is_zero(&got[k]);
    }
    CHECK_EQ_INT(bad, 0);
}

/* A curve point from a random x: almost surely outside G1. */
static void curve_point(zp_g1_affine *out)
{
    zp_fp x, rhs, four, one;
    operand(&x, 9);
    zp_fp_from_u64(&four, 4);
    zp_fp_one(&one);
    for (;;) {
        zp_fp_sqr(&rhs, &x);
        zp_fp_mul(&rhs, &rhs, &x);
        zp_fp_add(&rhs, &rhs, &four);
        if (zp_fp_sqrt(&out->y, &rhs))
            break;
        zp_fp_add(&x, &x, &one);
    }
    out->x = x;
}

/* Eight subgroup tests at once against the scalar test: multiples of the
 * generator (inside), random curve points (outside), the order-3 point
 * (0, 2), a subgroup point plus it, and infinity, mixed across lanes. */
static void test_subgroup_x8(void)
{
    zp_g1_affine gen, pts[6 * 8];
    zp_g1_generator(&gen);
    zp_g1_jac j;
    int inside = 0, outside = 0, bad = 0;
    for (int r = 0; r < 40; r++) {
        for (int k = 0; k < 8; k++) {
            zp_g1_affine *a = &pts[k];
            int kind = (r + 3 * k) % 6;
            uint64_t m[4] = {check_rand64(), check_rand64(), check_rand64(), check_rand64() >> 2};
            zp_g1_jac_from_affine(&j, &gen);
            zp_g1_jac_mul_vartime(&j, &j, m, 4);
            zp_g1_jac_to_affine(a, &j);
            if (kind == 1 || kind == 2)
                curve_point(a);
            if (kind == 3 || kind == 4) { /* the order-3 point, alone or added */
                zp_g1_affine o3;
                zp_fp_zero(&o3.x);
                zp_fp_from_u64(&o3.y, 2);
                if (kind == 3) {
                    *a = o3;
                } else {
                    zp_g1_jac_add_affine(&j, &j, &o3);
                    zp_g1_jac_to_affine(a, &j);
                }
            }
            if (kind == 5 && k == 7)
                memset(a, 0, sizeof *a); /* infinity */
        }
        const zp_g1_affine *p[8];
        bool ok[8];
        for (int k = 0; k < 8; k++)
            p[k] = &pts[k];
        zp__g1_in_subgroup_x8(p, 8, ok);
        for (int k = 0; k < 8; k++) {
            bool want = zp_g1_affine_in_subgroup(p[k]);
            bad += ok[k] != want;
            inside += want;
            outside += !want;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(inside > 50 && outside > 50);
}

/* A twist point from a random x (y^2 = x^3 + 4(1 + u)): almost surely
 * outside G2. */
static void twist_point(zp_g2_affine *out)
{
    zp_fp2 x, rhs, b, one;
    operand(&x.c0, 9);
    operand(&x.c1, 10);
    zp_fp_from_u64(&b.c0, 4);
    zp_fp_from_u64(&b.c1, 4);
    zp_fp2_one(&one);
    for (;;) {
        zp_fp2_sqr(&rhs, &x);
        zp_fp2_mul(&rhs, &rhs, &x);
        zp_fp2_add(&rhs, &rhs, &b);
        if (zp_fp2_sqrt(&out->y, &rhs))
            break;
        zp_fp2_add(&x, &x, &one);
    }
    out->x = x;
}

/* The G2 twin: multiples of the generator, random twist points, both
 * mixed across lanes, and infinity. */
static void test_subgroup_x8_g2(void)
{
    zp_g2_affine gen, pts[8];
    zp_g2_generator(&gen);
    zp_g2_jac j;
    int inside = 0, outside = 0, bad = 0;
    for (int r = 0; r < 12; r++) {
        for (int k = 0; k < 8; k++) {
            uint64_t m[4] = {check_rand64(), check_rand64(), check_rand64(), check_rand64() >> 2};
            zp_g2_jac_from_affine(&j, &gen);
            zp_g2_jac_mul_vartime(&j, &j, m, 4);
            zp_g2_jac_to_affine(&pts[k], &j);
            if ((r + k) % 3 == 1)
                twist_point(&pts[k]);
            if (r == 5 && k == 2)
                memset(&pts[k], 0, sizeof pts[k]); /* infinity */
        }
        const zp_g2_affine *p[8];
        bool ok[8];
        for (int k = 0; k < 8; k++)
            p[k] = &pts[k];
        zp__g2_in_subgroup_x8(p, 8, ok);
        for (int k = 0; k < 8; k++) {
            bool want = zp_g2_affine_in_subgroup(p[k]);
            bad += ok[k] != want;
            inside += want;
            outside += !want;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(inside > 20 && outside > 20);
}

int main(void)
{
    if (!zp__ifma_available()) {
        printf("no AVX-512 IFMA on this CPU: skipped\n");
        return 77;
    }
    RUN(test_convert);
    RUN(test_r52_form);
    RUN(test_mul);
    RUN(test_fp2_mul_sqr);
    RUN(test_lazy);
    RUN(test_load_store_add_sub);
    RUN(test_subgroup_x8);
    RUN(test_subgroup_x8_g2);
    return FINISH();
}
