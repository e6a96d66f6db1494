/*
 * Eight G1 subgroup tests at once on IFMA lanes (fp_ifma.h). The test is
 * subgroup.c's, phi(P) == -[x^2]P, with [x^2]P by double-and-add over the
 * 17 set bits of x^2 (127 doublings, 16 mixed additions) in Jacobian
 * coordinates, eight points side by side. The formulas assume no special
 * case: an addition whose H (U2 - X1) is zero or a running point at
 * infinity can only happen for a point of small order, outside the
 * subgroup, and such a lane is decided by the scalar test instead, as is a
 * point at infinity. Not used by the loaders yet; tests/test_fp_ifma.c
 * checks it against zp_g1_affine_in_subgroup inside and outside G1.
 */
#include "math/curve.h"
#include "math/fp_ifma.h"

static const uint64_t x_sq[2] = {0x0000000100000000ULL, 0xac45a4010001a402ULL};

typedef struct jac8 {
    zp__fp52x8 x, y, z;
} jac8;

/* dbl-2009-l: 2M + 5S. */
static void dbl8(jac8 *p)
{
    zp__fp52x8 a, b, c, d, e, f, t;
    zp__fp52x8_mul(&a, &p->x, &p->x);
    zp__fp52x8_mul(&b, &p->y, &p->y);
    zp__fp52x8_mul(&c, &b, &b);
    zp__fp52x8_add(&d, &p->x, &b);
    zp__fp52x8_mul(&d, &d, &d);
    zp__fp52x8_sub(&d, &d, &a);
    zp__fp52x8_sub(&d, &d, &c);
    zp__fp52x8_add(&d, &d, &d);       /* D = 2((X + B)^2 - A - C) */
    zp__fp52x8_add(&e, &a, &a);
    zp__fp52x8_add(&e, &e, &a);       /* E = 3A */
    zp__fp52x8_mul(&f, &e, &e);
    zp__fp52x8_mul(&p->z, &p->y, &p->z);
    zp__fp52x8_add(&p->z, &p->z, &p->z); /* Z3 = 2YZ */
    zp__fp52x8_add(&t, &d, &d);
    zp__fp52x8_sub(&p->x, &f, &t);    /* X3 = F - 2D */
    zp__fp52x8_sub(&t, &d, &p->x);
    zp__fp52x8_mul(&t, &e, &t);
    zp__fp52x8_add(&c, &c, &c);
    zp__fp52x8_add(&c, &c, &c);
    zp__fp52x8_add(&c, &c, &c);
    zp__fp52x8_sub(&p->y, &t, &c);    /* Y3 = E(D - X3) - 8C */
}

/* madd-2007-bl: p += (x2, y2); lanes with H = 0 are flagged in *bad. */
static void madd8(jac8 *p, const zp__fp52x8 *x2, const zp__fp52x8 *y2, unsigned *bad)
{
    zp__fp52x8 z1z1, u2, s2, h, hh, i, j, r, v, t;
    zp__fp52x8_mul(&z1z1, &p->z, &p->z);
    zp__fp52x8_mul(&u2, x2, &z1z1);
    zp__fp52x8_mul(&s2, y2, &p->z);
    zp__fp52x8_mul(&s2, &s2, &z1z1);
    zp__fp52x8_sub(&h, &u2, &p->x);
    *bad |= zp__fp52x8_zero_mask(&h);
    zp__fp52x8_mul(&hh, &h, &h);
    zp__fp52x8_add(&i, &hh, &hh);
    zp__fp52x8_add(&i, &i, &i);       /* I = 4 HH */
    zp__fp52x8_mul(&j, &h, &i);
    zp__fp52x8_sub(&r, &s2, &p->y);
    zp__fp52x8_add(&r, &r, &r);       /* r = 2 (S2 - Y1) */
    zp__fp52x8_mul(&v, &p->x, &i);
    zp__fp52x8_add(&t, &p->z, &h);
    zp__fp52x8_mul(&t, &t, &t);
    zp__fp52x8_sub(&t, &t, &z1z1);
    zp__fp52x8_sub(&p->z, &t, &hh);   /* Z3 = (Z1 + H)^2 - Z1Z1 - HH */
    zp__fp52x8_mul(&t, &r, &r);
    zp__fp52x8_sub(&t, &t, &j);
    zp__fp52x8_sub(&t, &t, &v);
    zp__fp52x8_sub(&t, &t, &v);       /* X3 = r^2 - J - 2V */
    zp__fp52x8_mul(&j, &p->y, &j);
    zp__fp52x8_add(&j, &j, &j);       /* 2 Y1 J */
    zp__fp52x8_sub(&v, &v, &t);
    zp__fp52x8_mul(&v, &r, &v);
    zp__fp52x8_sub(&p->y, &v, &j);    /* Y3 = r (V - X3) - 2 Y1 J */
    p->x = t;
}

void zp__g1_in_subgroup_x8(const zp_g1_affine *const p[8], bool ok[8])
{
    zp_g1_affine gen, ph[8];
    zp_g1_generator(&gen);
    const zp_fp *px[8], *py[8], *hx[8], *hy[8], *one[8];
    zp_fp fone;
    zp_fp_one(&fone);
    unsigned bad = 0;
    for (int k = 0; k < 8; k++) {
        const zp_g1_affine *a = p[k];
        if (zp_g1_affine_is_inf(a)) { /* decided below; a stand-in lane */
            a = &gen;
            bad |= 1u << k;
        }
        zp__g1_phi(&ph[k], a);
        px[k] = &a->x;
        py[k] = &a->y;
        hx[k] = &ph[k].x;
        hy[k] = &ph[k].y;
        one[k] = &fone;
    }
    zp__fp52x8 x, y;
    jac8 acc;
    zp__fp52x8_load(&x, px);
    zp__fp52x8_load(&y, py);
    acc.x = x;
    acc.y = y;
    zp__fp52x8_load(&acc.z, one);
    for (int bit = 126; bit >= 0; bit--) { /* bit 127 of x^2 is the start */
        dbl8(&acc);
        if (x_sq[bit / 64] >> (bit % 64) & 1)
            madd8(&acc, &x, &y, &bad);
        bad |= zp__fp52x8_zero_mask(&acc.z);
    }
    /* -[x^2]P == phi(P): X == phi_x Z^2 and Y + phi_y Z^3 == 0. */
    zp__fp52x8 z2, z3, t, hxv, hyv;
    zp__fp52x8_load(&hxv, hx);
    zp__fp52x8_load(&hyv, hy);
    zp__fp52x8_mul(&z2, &acc.z, &acc.z);
    zp__fp52x8_mul(&z3, &z2, &acc.z);
    zp__fp52x8_mul(&t, &hxv, &z2);
    zp__fp52x8_sub(&t, &acc.x, &t);
    unsigned eq = zp__fp52x8_zero_mask(&t);
    zp__fp52x8_mul(&t, &hyv, &z3);
    zp__fp52x8_add(&t, &acc.y, &t);
    eq &= zp__fp52x8_zero_mask(&t);
    for (int k = 0; k < 8; k++)
        ok[k] = bad >> k & 1 ? zp_g1_affine_in_subgroup(p[k]) : (eq >> k & 1) != 0;
}
