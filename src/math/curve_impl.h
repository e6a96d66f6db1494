/*
 * The group law of a short Weierstrass curve y^2 = x^3 + b with a = 0,
 * written once for G1 (over Fp) and G2 (over Fp2). A curve's .c file defines
 *   ZP__G(name)   public name:   zp_g1_##name
 *   ZP__GI(name)  internal name: zp__g1_##name
 *   ZP__E         the coordinate field type (zp_fp or zp_fp2)
 *   ZP__E_(op)    a field operation: zp_fp_##op or zp_fp2_##op
 *   ZP__AFF, ZP__JAC, ZP__XYZZ   the point types
 *   ZP__B         a const ZP__E * to b in Montgomery form
 * and then includes this file.
 *
 * Formulas (explicit-formulas database, a = 0): Jacobian doubling
 * dbl-2009-l, addition add-2007-bl, mixed addition madd-2007-bl; XYZZ
 * doubling dbl-2008-s-1, addition add-2008-s, mixed madd-2008-s and
 * mdbl-2008-s-1. None of these is complete: each addition tests for the
 * exceptional inputs (infinity, P == Q, P == -Q) before the generic path.
 * Neither curve has a point of order 2 (both cofactors are odd), so a
 * doubling never meets y = 0 except at infinity, where z = 0 carries over.
 *
 * Every function writes its result from locals at the end, so the output
 * may alias any input.
 */
#include <string.h>

#include "zkpipe.h"

/* ------------------------------------------------------------- affine */

bool ZP__G(affine_is_inf)(const ZP__AFF *a)
{
    return ZP__E_(is_zero)(&a->x) && ZP__E_(is_zero)(&a->y);
}

bool ZP__G(affine_eq)(const ZP__AFF *a, const ZP__AFF *b)
{
    return ZP__E_(eq)(&a->x, &b->x) && ZP__E_(eq)(&a->y, &b->y);
}

void ZP__G(affine_neg)(ZP__AFF *out, const ZP__AFF *a)
{
    /* -0 = 0, so infinity (all zero) stays infinity. */
    out->x = a->x;
    ZP__E_(neg)(&out->y, &a->y);
}

/* out = x^3 + b, the right-hand side of the curve equation. */
void ZP__GI(rhs)(ZP__E *out, const ZP__E *x)
{
    ZP__E t;
    ZP__E_(sqr)(&t, x);
    ZP__E_(mul)(&t, &t, x);
    ZP__E_(add)(out, &t, ZP__B);
}

/* The curve equation alone; unlike affine_on_curve, (0, 0) fails it. */
bool ZP__GI(affine_satisfies)(const ZP__AFF *a)
{
    ZP__E l, r;
    ZP__E_(sqr)(&l, &a->y);
    ZP__GI(rhs)(&r, &a->x);
    return ZP__E_(eq)(&l, &r);
}

bool ZP__G(affine_on_curve)(const ZP__AFF *a)
{
    return ZP__G(affine_is_inf)(a) || ZP__GI(affine_satisfies)(a);
}

/* ----------------------------------------------------------- Jacobian */

void ZP__G(jac_inf)(ZP__JAC *out)
{
    ZP__E_(one)(&out->x);
    ZP__E_(one)(&out->y);
    ZP__E_(zero)(&out->z);
}

bool ZP__G(jac_is_inf)(const ZP__JAC *a) { return ZP__E_(is_zero)(&a->z); }

/* x1 z2^2 == x2 z1^2 and y1 z2^3 == y2 z1^3: equality of the affine points. */
bool ZP__G(jac_eq)(const ZP__JAC *a, const ZP__JAC *b)
{
    bool ai = ZP__G(jac_is_inf)(a), bi = ZP__G(jac_is_inf)(b);
    if (ai || bi)
        return ai && bi;
    ZP__E z1z1, z2z2, l, r;
    ZP__E_(sqr)(&z1z1, &a->z);
    ZP__E_(sqr)(&z2z2, &b->z);
    ZP__E_(mul)(&l, &a->x, &z2z2);
    ZP__E_(mul)(&r, &b->x, &z1z1);
    if (!ZP__E_(eq)(&l, &r))
        return false;
    ZP__E_(mul)(&l, &a->y, &z2z2);
    ZP__E_(mul)(&l, &l, &b->z);
    ZP__E_(mul)(&r, &b->y, &z1z1);
    ZP__E_(mul)(&r, &r, &a->z);
    return ZP__E_(eq)(&l, &r);
}

/* Jacobian against affine without an inversion (the subgroup tests use it). */
bool ZP__GI(jac_eq_affine)(const ZP__JAC *a, const ZP__AFF *b)
{
    bool ai = ZP__G(jac_is_inf)(a), bi = ZP__G(affine_is_inf)(b);
    if (ai || bi)
        return ai && bi;
    ZP__E zz, t;
    ZP__E_(sqr)(&zz, &a->z);
    ZP__E_(mul)(&t, &b->x, &zz);
    if (!ZP__E_(eq)(&t, &a->x))
        return false;
    ZP__E_(mul)(&zz, &zz, &a->z);
    ZP__E_(mul)(&t, &b->y, &zz);
    return ZP__E_(eq)(&t, &a->y);
}

void ZP__G(jac_from_affine)(ZP__JAC *out, const ZP__AFF *a)
{
    if (ZP__G(affine_is_inf)(a)) {
        ZP__G(jac_inf)(out);
        return;
    }
    out->x = a->x;
    out->y = a->y;
    ZP__E_(one)(&out->z);
}

void ZP__G(jac_to_affine)(ZP__AFF *out, const ZP__JAC *a)
{
    if (ZP__G(jac_is_inf)(a)) {
        memset(out, 0, sizeof *out);
        return;
    }
    ZP__E zi, zi2, x, y;
    ZP__E_(inv)(&zi, &a->z);
    ZP__E_(sqr)(&zi2, &zi);
    ZP__E_(mul)(&x, &a->x, &zi2);
    ZP__E_(mul)(&zi2, &zi2, &zi);
    ZP__E_(mul)(&y, &a->y, &zi2);
    out->x = x;
    out->y = y;
}

void ZP__G(jac_neg)(ZP__JAC *out, const ZP__JAC *a)
{
    out->x = a->x;
    ZP__E_(neg)(&out->y, &a->y);
    out->z = a->z;
}

/* dbl-2009-l: 2M + 5S. Infinity (z = 0) gives z3 = 2yz = 0. */
void ZP__G(jac_dbl)(ZP__JAC *out, const ZP__JAC *p)
{
    ZP__E a, b, c, d, e, f, t, x3, y3, z3;
    ZP__E_(sqr)(&a, &p->x);
    ZP__E_(sqr)(&b, &p->y);
    ZP__E_(sqr)(&c, &b);
    ZP__E_(add)(&d, &p->x, &b);
    ZP__E_(sqr)(&d, &d);
    ZP__E_(sub)(&d, &d, &a);
    ZP__E_(sub)(&d, &d, &c);
    ZP__E_(dbl)(&d, &d);              /* D = 2((X + B)^2 - A - C) */
    ZP__E_(dbl)(&e, &a);
    ZP__E_(add)(&e, &e, &a);          /* E = 3A */
    ZP__E_(sqr)(&f, &e);
    ZP__E_(dbl)(&t, &d);
    ZP__E_(sub)(&x3, &f, &t);         /* X3 = F - 2D */
    ZP__E_(sub)(&t, &d, &x3);
    ZP__E_(mul)(&t, &e, &t);
    ZP__E_(dbl)(&c, &c);
    ZP__E_(dbl)(&c, &c);
    ZP__E_(dbl)(&c, &c);
    ZP__E_(sub)(&y3, &t, &c);         /* Y3 = E(D - X3) - 8C */
    ZP__E_(mul)(&z3, &p->y, &p->z);
    ZP__E_(dbl)(&z3, &z3);            /* Z3 = 2 Y Z */
    out->x = x3;
    out->y = y3;
    out->z = z3;
}

/*
 * The tail shared by add-2007-bl and madd-2007-bl once h = u2 - u1 and
 * r = s2 - s1 are known and nonzero h is established: with i = (2h)^2,
 * j = h i, v = u1 i, it writes X3 = (2r)^2 - j - 2v and
 * Y3 = 2r(v - X3) - 2 s1 j. Z3 is left to the caller.
 */
static void ZP__GI(jac_add_tail)(ZP__E *x3, ZP__E *y3, const ZP__E *h, const ZP__E *r,
                                 const ZP__E *u1, const ZP__E *s1)
{
    ZP__E i, j, v, rr, t;
    ZP__E_(dbl)(&i, h);
    ZP__E_(sqr)(&i, &i);
    ZP__E_(mul)(&j, h, &i);
    ZP__E_(mul)(&v, u1, &i);
    ZP__E_(dbl)(&rr, r);
    ZP__E_(sqr)(x3, &rr);
    ZP__E_(sub)(x3, x3, &j);
    ZP__E_(dbl)(&t, &v);
    ZP__E_(sub)(x3, x3, &t);
    ZP__E_(sub)(&t, &v, x3);
    ZP__E_(mul)(&t, &rr, &t);
    ZP__E_(mul)(&j, s1, &j);
    ZP__E_(dbl)(&j, &j);
    ZP__E_(sub)(y3, &t, &j);
}

/* add-2007-bl: 11M + 5S on the generic path. */
void ZP__G(jac_add)(ZP__JAC *out, const ZP__JAC *a, const ZP__JAC *b)
{
    if (ZP__G(jac_is_inf)(a)) {
        *out = *b;
        return;
    }
    if (ZP__G(jac_is_inf)(b)) {
        *out = *a;
        return;
    }
    ZP__E z1z1, z2z2, u1, u2, s1, s2, h, r, x3, y3, z3;
    ZP__E_(sqr)(&z1z1, &a->z);
    ZP__E_(sqr)(&z2z2, &b->z);
    ZP__E_(mul)(&u1, &a->x, &z2z2);
    ZP__E_(mul)(&u2, &b->x, &z1z1);
    ZP__E_(mul)(&s1, &a->y, &b->z);
    ZP__E_(mul)(&s1, &s1, &z2z2);
    ZP__E_(mul)(&s2, &b->y, &a->z);
    ZP__E_(mul)(&s2, &s2, &z1z1);
    ZP__E_(sub)(&h, &u2, &u1);
    ZP__E_(sub)(&r, &s2, &s1);
    if (ZP__E_(is_zero)(&h)) {
        /* Same x: either the same point (double) or opposite points. */
        if (ZP__E_(is_zero)(&r))
            ZP__G(jac_dbl)(out, a);
        else
            ZP__G(jac_inf)(out);
        return;
    }
    ZP__E_(add)(&z3, &a->z, &b->z);
    ZP__E_(sqr)(&z3, &z3);
    ZP__E_(sub)(&z3, &z3, &z1z1);
    ZP__E_(sub)(&z3, &z3, &z2z2);
    ZP__E_(mul)(&z3, &z3, &h);        /* Z3 = ((Z1 + Z2)^2 - Z1Z1 - Z2Z2) H */
    ZP__GI(jac_add_tail)(&x3, &y3, &h, &r, &u1, &s1);
    out->x = x3;
    out->y = y3;
    out->z = z3;
}

/* madd-2007-bl: 7M + 4S on the generic path. */
void ZP__G(jac_add_affine)(ZP__JAC *out, const ZP__JAC *a, const ZP__AFF *b)
{
    if (ZP__G(affine_is_inf)(b)) {
        *out = *a;
        return;
    }
    if (ZP__G(jac_is_inf)(a)) {
        ZP__G(jac_from_affine)(out, b);
        return;
    }
    ZP__E z1z1, u2, s2, h, hh, r, x3, y3, z3;
    ZP__E_(sqr)(&z1z1, &a->z);
    ZP__E_(mul)(&u2, &b->x, &z1z1);
    ZP__E_(mul)(&s2, &b->y, &a->z);
    ZP__E_(mul)(&s2, &s2, &z1z1);
    ZP__E_(sub)(&h, &u2, &a->x);
    ZP__E_(sub)(&r, &s2, &a->y);
    if (ZP__E_(is_zero)(&h)) {
        if (ZP__E_(is_zero)(&r))
            ZP__G(jac_dbl)(out, a);
        else
            ZP__G(jac_inf)(out);
        return;
    }
    ZP__E_(sqr)(&hh, &h);
    ZP__E_(add)(&z3, &a->z, &h);
    ZP__E_(sqr)(&z3, &z3);
    ZP__E_(sub)(&z3, &z3, &z1z1);
    ZP__E_(sub)(&z3, &z3, &hh);       /* Z3 = (Z1 + H)^2 - Z1Z1 - HH = 2 Z1 H */
    ZP__GI(jac_add_tail)(&x3, &y3, &h, &r, &a->x, &a->y);
    out->x = x3;
    out->y = y3;
    out->z = z3;
}

static inline unsigned ZP__GI(scalar_bit)(const uint64_t *k, size_t i)
{
    return (unsigned)(k[i / 64] >> (i % 64)) & 1u;
}

#define ZP__WINDOW 4

/*
 * Left-to-right sliding window over odd multiples P, 3P, ..., 15P: about
 * one addition per five bits. Every step uses the exception-aware add, so
 * any scalar (including multiples of r and those above r) is exact.
 */
void ZP__G(jac_mul_vartime)(ZP__JAC *out, const ZP__JAC *p, const uint64_t *k, size_t nlimbs)
{
    size_t top = nlimbs;
    while (top > 0 && k[top - 1] == 0)
        top--;
    if (top == 0 || ZP__G(jac_is_inf)(p)) {
        ZP__G(jac_inf)(out);
        return;
    }
    ZP__JAC tab[1 << (ZP__WINDOW - 1)], p2, acc;
    tab[0] = *p;
    ZP__G(jac_dbl)(&p2, p);
    for (int i = 1; i < (1 << (ZP__WINDOW - 1)); i++)
        ZP__G(jac_add)(&tab[i], &tab[i - 1], &p2);

    size_t nbits = top * 64 - (size_t)__builtin_clzll(k[top - 1]);
    bool started = false;
    size_t i = nbits;
    while (i > 0) {
        size_t b = i - 1;
        if (!ZP__GI(scalar_bit)(k, b)) {
            if (started)
                ZP__G(jac_dbl)(&acc, &acc);
            i = b;
            continue;
        }
        /* The window ends (low side) on a set bit, so its value is odd. */
        size_t lo = b + 1 >= ZP__WINDOW ? b + 1 - ZP__WINDOW : 0;
        while (!ZP__GI(scalar_bit)(k, lo))
            lo++;
        unsigned val = 0;
        for (size_t j = b + 1; j-- > lo;)
            val = (val << 1) | ZP__GI(scalar_bit)(k, j);
        if (started) {
            for (size_t j = lo; j <= b; j++)
                ZP__G(jac_dbl)(&acc, &acc);
            ZP__G(jac_add)(&acc, &acc, &tab[val >> 1]);
        } else {
            acc = tab[val >> 1];
            started = true;
        }
        i = lo;
    }
    *out = acc;
}

#undef ZP__WINDOW

/*
 * Plain left-to-right double-and-add from an affine base with mixed
 * additions: cheapest for the short sparse scalars (|x|, x^2) of the
 * subgroup tests.
 */
void ZP__GI(mul_affine_dbladd)(ZP__JAC *out, const ZP__AFF *p, const uint64_t *k, size_t nlimbs)
{
    ZP__JAC acc;
    ZP__G(jac_inf)(&acc);
    for (size_t i = nlimbs * 64; i-- > 0;) {
        ZP__G(jac_dbl)(&acc, &acc);
        if (ZP__GI(scalar_bit)(k, i))
            ZP__G(jac_add_affine)(&acc, &acc, p);
    }
    *out = acc;
}

/*
 * Montgomery's trick: prefix products of the nonzero z, one inversion, then
 * a backward pass peeling each 1/z off the running inverse. out[i].x holds
 * the prefix product until the backward pass overwrites it.
 */
void ZP__G(batch_to_affine)(ZP__AFF *out, const ZP__JAC *in, size_t n)
{
    ZP__E acc, inv, zi, zi2;
    ZP__E_(one)(&acc);
    for (size_t i = 0; i < n; i++) {
        if (ZP__G(jac_is_inf)(&in[i]))
            continue;
        out[i].x = acc;
        ZP__E_(mul)(&acc, &acc, &in[i].z);
    }
    ZP__E_(inv)(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        if (ZP__G(jac_is_inf)(&in[i])) {
            memset(&out[i], 0, sizeof out[i]);
            continue;
        }
        ZP__E_(mul)(&zi, &inv, &out[i].x);      /* 1/z_i */
        ZP__E_(mul)(&inv, &inv, &in[i].z);      /* drop z_i from the inverse */
        ZP__E_(sqr)(&zi2, &zi);
        ZP__E_(mul)(&out[i].x, &in[i].x, &zi2);
        ZP__E_(mul)(&zi2, &zi2, &zi);
        ZP__E_(mul)(&out[i].y, &in[i].y, &zi2);
    }
}

/* --------------------------------------------------------------- XYZZ */

void ZP__G(xyzz_inf)(ZP__XYZZ *out) { memset(out, 0, sizeof *out); }

void ZP__G(xyzz_from_affine)(ZP__XYZZ *out, const ZP__AFF *a)
{
    if (ZP__G(affine_is_inf)(a)) {
        ZP__G(xyzz_inf)(out);
        return;
    }
    out->x = a->x;
    out->y = a->y;
    ZP__E_(one)(&out->zz);
    ZP__E_(one)(&out->zzz);
}

/*
 * The formulas keep zz = z^2 and zzz = z^3 for some z, so the Jacobian
 * point (x zz^2, y zzz^2, zzz) has x/zzz^2 = x/zz and y/zzz^3 = y/zzz.
 */
void ZP__G(xyzz_to_jac)(ZP__JAC *out, const ZP__XYZZ *a)
{
    if (ZP__E_(is_zero)(&a->zz)) {
        ZP__G(jac_inf)(out);
        return;
    }
    ZP__E t, x, y;
    ZP__E_(sqr)(&t, &a->zz);
    ZP__E_(mul)(&x, &a->x, &t);
    ZP__E_(sqr)(&t, &a->zzz);
    ZP__E_(mul)(&y, &a->y, &t);
    out->x = x;
    out->y = y;
    out->z = a->zzz;
}

/*
 * Doubling of (x, y) scaled by (zz, zzz) = (1, 1) or the input's: U = 2y,
 * V = U^2, W = U V, S = x V, M = 3x^2, X3 = M^2 - 2S, Y3 = M(S - X3) - W y.
 * dbl-2008-s-1 multiplies zz by V and zzz by W; mdbl-2008-s-1 sets them.
 */
static void ZP__GI(xyzz_dbl_core)(ZP__XYZZ *out, const ZP__E *x, const ZP__E *y,
                                  const ZP__E *zz, const ZP__E *zzz)
{
    ZP__E u, v, w, s, m, t, x3, y3, zz3, zzz3;
    ZP__E_(dbl)(&u, y);
    ZP__E_(sqr)(&v, &u);
    ZP__E_(mul)(&w, &u, &v);
    ZP__E_(mul)(&s, x, &v);
    ZP__E_(sqr)(&m, x);
    ZP__E_(dbl)(&t, &m);
    ZP__E_(add)(&m, &m, &t);
    ZP__E_(sqr)(&x3, &m);
    ZP__E_(dbl)(&t, &s);
    ZP__E_(sub)(&x3, &x3, &t);
    ZP__E_(sub)(&t, &s, &x3);
    ZP__E_(mul)(&t, &m, &t);
    ZP__E_(mul)(&y3, &w, y);
    ZP__E_(sub)(&y3, &t, &y3);
    if (zz) {
        ZP__E_(mul)(&zz3, &v, zz);
        ZP__E_(mul)(&zzz3, &w, zzz);
    } else {
        zz3 = v;
        zzz3 = w;
    }
    out->x = x3;
    out->y = y3;
    out->zz = zz3;
    out->zzz = zzz3;
}

/* 2M + 5S-ish; infinity (zz = 0) keeps zz3 = V zz = 0. */
void ZP__G(xyzz_dbl)(ZP__XYZZ *out, const ZP__XYZZ *a)
{
    ZP__GI(xyzz_dbl_core)(out, &a->x, &a->y, &a->zz, &a->zzz);
}

/*
 * The tail shared by add-2008-s and madd-2008-s: with P = u2 - u1 (nonzero)
 * and R = s2 - s1, PP = P^2, PPP = P PP, Q = u1 PP, X3 = R^2 - PPP - 2Q,
 * Y3 = R(Q - X3) - s1 PPP. Returns PP and PPP for the caller's zz, zzz.
 */
static void ZP__GI(xyzz_add_tail)(ZP__E *x3, ZP__E *y3, ZP__E *pp, ZP__E *ppp,
                                  const ZP__E *p, const ZP__E *r, const ZP__E *u1,
                                  const ZP__E *s1)
{
    ZP__E q, t;
    ZP__E_(sqr)(pp, p);
    ZP__E_(mul)(ppp, p, pp);
    ZP__E_(mul)(&q, u1, pp);
    ZP__E_(sqr)(x3, r);
    ZP__E_(sub)(x3, x3, ppp);
    ZP__E_(dbl)(&t, &q);
    ZP__E_(sub)(x3, x3, &t);
    ZP__E_(sub)(&t, &q, x3);
    ZP__E_(mul)(&t, r, &t);
    ZP__E_(mul)(&q, s1, ppp);
    ZP__E_(sub)(y3, &t, &q);
}

/* add-2008-s: 12M + 2S on the generic path; detects P == Q and doubles. */
void ZP__G(xyzz_add)(ZP__XYZZ *out, const ZP__XYZZ *a, const ZP__XYZZ *b)
{
    if (ZP__E_(is_zero)(&a->zz)) {
        *out = *b;
        return;
    }
    if (ZP__E_(is_zero)(&b->zz)) {
        *out = *a;
        return;
    }
    ZP__E u1, u2, s1, s2, p, r, pp, ppp, x3, y3, zz3, zzz3;
    ZP__E_(mul)(&u1, &a->x, &b->zz);
    ZP__E_(mul)(&u2, &b->x, &a->zz);
    ZP__E_(mul)(&s1, &a->y, &b->zzz);
    ZP__E_(mul)(&s2, &b->y, &a->zzz);
    ZP__E_(sub)(&p, &u2, &u1);
    ZP__E_(sub)(&r, &s2, &s1);
    if (ZP__E_(is_zero)(&p)) {
        if (ZP__E_(is_zero)(&r))
            ZP__G(xyzz_dbl)(out, a);
        else
            ZP__G(xyzz_inf)(out);
        return;
    }
    ZP__GI(xyzz_add_tail)(&x3, &y3, &pp, &ppp, &p, &r, &u1, &s1);
    ZP__E_(mul)(&zz3, &a->zz, &b->zz);
    ZP__E_(mul)(&zz3, &zz3, &pp);
    ZP__E_(mul)(&zzz3, &a->zzz, &b->zzz);
    ZP__E_(mul)(&zzz3, &zzz3, &ppp);
    out->x = x3;
    out->y = y3;
    out->zz = zz3;
    out->zzz = zzz3;
}

/* madd-2008-s: 8M + 2S on the generic path; mdbl-2008-s-1 when P == Q. */
void ZP__G(xyzz_add_affine)(ZP__XYZZ *out, const ZP__XYZZ *a, const ZP__AFF *b)
{
    if (ZP__G(affine_is_inf)(b)) {
        *out = *a;
        return;
    }
    if (ZP__E_(is_zero)(&a->zz)) {
        ZP__G(xyzz_from_affine)(out, b);
        return;
    }
    ZP__E u2, s2, p, r, pp, ppp, x3, y3, zz3, zzz3;
    ZP__E_(mul)(&u2, &b->x, &a->zz);
    ZP__E_(mul)(&s2, &b->y, &a->zzz);
    ZP__E_(sub)(&p, &u2, &a->x);
    ZP__E_(sub)(&r, &s2, &a->y);
    if (ZP__E_(is_zero)(&p)) {
        if (ZP__E_(is_zero)(&r))
            ZP__GI(xyzz_dbl_core)(out, &b->x, &b->y, NULL, NULL);
        else
            ZP__G(xyzz_inf)(out);
        return;
    }
    ZP__GI(xyzz_add_tail)(&x3, &y3, &pp, &ppp, &p, &r, &a->x, &a->y);
    ZP__E_(mul)(&zz3, &a->zz, &pp);
    ZP__E_(mul)(&zzz3, &a->zzz, &ppp);
    out->x = x3;
    out->y = y3;
    out->zz = zz3;
    out->zzz = zzz3;
}
