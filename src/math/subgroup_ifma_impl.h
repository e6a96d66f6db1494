/*
 * Eight subgroup tests at once on IFMA lanes, written once for G1 and G2
 * (subgroup_ifma.c includes it per group; the macros are listed there).
 */

#define SG_CAT2(a, b) a##b
#define SG_CAT(a, b) SG_CAT2(a, b)
#define SG_DBL SG_CAT(SG_J, _dbl)
#define SG_MADD SG_CAT(SG_J, _madd)

typedef struct SG_J {
    SG_V x, y, z;
} SG_J;

/* dbl-2009-l: 2M + 5S. */
static void SG_DBL(SG_J *p)
{
    SG_V a, b, c, d, e, f, t;
    SG_MUL(&a, &p->x, &p->x);
    SG_MUL(&b, &p->y, &p->y);
    SG_MUL(&c, &b, &b);
    SG_ADD(&d, &p->x, &b);
    SG_MUL(&d, &d, &d);
    SG_SUB(&d, &d, &a);
    SG_SUB(&d, &d, &c);
    SG_ADD(&d, &d, &d);       /* D = 2((X + B)^2 - A - C) */
    SG_ADD(&e, &a, &a);
    SG_ADD(&e, &e, &a);       /* E = 3A */
    SG_MUL(&f, &e, &e);
    SG_MUL(&p->z, &p->y, &p->z);
    SG_ADD(&p->z, &p->z, &p->z); /* Z3 = 2YZ */
    SG_ADD(&t, &d, &d);
    SG_SUB(&p->x, &f, &t);    /* X3 = F - 2D */
    SG_SUB(&t, &d, &p->x);
    SG_MUL(&t, &e, &t);
    SG_ADD(&c, &c, &c);
    SG_ADD(&c, &c, &c);
    SG_ADD(&c, &c, &c);
    SG_SUB(&p->y, &t, &c);    /* Y3 = E(D - X3) - 8C */
}

/* madd-2007-bl: p += (x2, y2); lanes with H = 0 are flagged in *bad. */
static void SG_MADD(SG_J *p, const SG_V *x2, const SG_V *y2, unsigned *bad)
{
    SG_V z1z1, u2, s2, h, hh, i, j, r, v, t;
    SG_MUL(&z1z1, &p->z, &p->z);
    SG_MUL(&u2, x2, &z1z1);
    SG_MUL(&s2, y2, &p->z);
    SG_MUL(&s2, &s2, &z1z1);
    SG_SUB(&h, &u2, &p->x);
    *bad |= SG_ZERO(&h);
    SG_MUL(&hh, &h, &h);
    SG_ADD(&i, &hh, &hh);
    SG_ADD(&i, &i, &i);       /* I = 4 HH */
    SG_MUL(&j, &h, &i);
    SG_SUB(&r, &s2, &p->y);
    SG_ADD(&r, &r, &r);       /* r = 2 (S2 - Y1) */
    SG_MUL(&v, &p->x, &i);
    SG_ADD(&t, &p->z, &h);
    SG_MUL(&t, &t, &t);
    SG_SUB(&t, &t, &z1z1);
    SG_SUB(&p->z, &t, &hh);   /* Z3 = (Z1 + H)^2 - Z1Z1 - HH */
    SG_MUL(&t, &r, &r);
    SG_SUB(&t, &t, &j);
    SG_SUB(&t, &t, &v);
    SG_SUB(&t, &t, &v);       /* X3 = r^2 - J - 2V */
    SG_MUL(&j, &p->y, &j);
    SG_ADD(&j, &j, &j);       /* 2 Y1 J */
    SG_SUB(&v, &v, &t);
    SG_MUL(&v, &r, &v);
    SG_SUB(&p->y, &v, &j);    /* Y3 = r (V - X3) - 2 Y1 J */
    p->x = t;
}

void SG_TEST(const SG_AFF *const p[], int n, bool ok[])
{
    SG_AFF gen, ph[8];
    SG_G(generator)(&gen);
    const SG_FE *px[8], *py[8], *hx[8], *hy[8], *one[8];
    SG_FE fone;
    SG_F(one)(&fone);
    unsigned bad = 0;
    for (int k = 0; k < 8; k++) {
        const SG_AFF *a = k < n ? p[k] : &gen; /* lanes past n: padding */
        if (SG_G(affine_is_inf)(a)) { /* decided below; a stand-in lane */
            a = &gen;
            bad |= 1u << k;
        }
        SG_ENDO(&ph[k], a);
        px[k] = &a->x;
        py[k] = &a->y;
        hx[k] = &ph[k].x;
        hy[k] = &ph[k].y;
        one[k] = &fone;
    }
    SG_V x, y;
    SG_J acc;
    SG_LOAD(&x, px);
    SG_LOAD(&y, py);
    acc.x = x;
    acc.y = y;
    SG_LOAD(&acc.z, one);
    for (int bit = SG_TOP - 1; bit >= 0; bit--) { /* the top bit is the start */
        SG_DBL(&acc);
        if (SG_BITS[bit / 64] >> (bit % 64) & 1)
            SG_MADD(&acc, &x, &y, &bad);
        bad |= SG_ZERO(&acc.z);
    }
    /* -[k]P == endo(P): X == e_x Z^2 and Y + e_y Z^3 == 0. */
    SG_V z2, z3, t, hxv, hyv;
    SG_LOAD(&hxv, hx);
    SG_LOAD(&hyv, hy);
    SG_MUL(&z2, &acc.z, &acc.z);
    SG_MUL(&z3, &z2, &acc.z);
    SG_MUL(&t, &hxv, &z2);
    SG_SUB(&t, &acc.x, &t);
    unsigned eq = SG_ZERO(&t);
    SG_MUL(&t, &hyv, &z3);
    SG_ADD(&t, &acc.y, &t);
    eq &= SG_ZERO(&t);
    for (int k = 0; k < n; k++)
        ok[k] = bad >> k & 1 ? SG_G(affine_in_subgroup)(p[k]) : (eq >> k & 1) != 0;
}

#undef SG_DBL
#undef SG_MADD
#undef SG_CAT
#undef SG_CAT2
