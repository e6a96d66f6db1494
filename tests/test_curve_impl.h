/*
 * Group-law tests written once for G1 and G2, like src/math/curve_impl.h.
 * tests/test_curve.c defines, before each inclusion:
 *   T(name)   test function name (name##_g1)
 *   G(name), GI(name), E, E_(op), AFF, JAC, XYZZ   as in curve_impl.h
 *   rand_elem(E *)      a random field element
 *   COFACTOR, COFACTOR_LIMBS   the curve's cofactor as LE limbs
 *   FIRST_LIMB(e)       the lowest limb of an E, as an lvalue
 *   T(endo_check)(const AFF *)  the endomorphism acts as its eigenvalue
 * References here are deliberately naive: affine addition with a field
 * inversion per step, repeated addition, bit-by-bit double-and-add.
 */

/* ---------------------------------------------------------- helpers */

static void T(rand_scalar)(uint64_t k[4])
{
    for (int i = 0; i < 4; i++)
        k[i] = check_rand64();
    k[3] &= 0x3fffffffffffffffULL; /* below r */
}

/* A random point of the subgroup, k*G for a random k, and its affine form. */
static void T(rand_point)(JAC *out, AFF *aff)
{
    uint64_t k[4];
    AFF g;
    JAC gj;
    T(rand_scalar)(k);
    G(generator)(&g);
    G(jac_from_affine)(&gj, &g);
    G(jac_mul_vartime)(out, &gj, k, 4);
    if (aff)
        G(jac_to_affine)(aff, out);
}

/* The same point with z multiplied by a random lambda: (x l^2, y l^3, z l). */
static void T(rescale)(JAC *out, const JAC *a)
{
    E l, l2, l3;
    rand_elem(&l);
    E_(sqr)(&l2, &l);
    E_(mul)(&l3, &l2, &l);
    E_(mul)(&out->x, &a->x, &l2);
    E_(mul)(&out->y, &a->y, &l3);
    E_(mul)(&out->z, &a->z, &l);
}

static void T(rescale_xyzz)(XYZZ *out, const XYZZ *a)
{
    E l, l2, l3;
    rand_elem(&l);
    E_(sqr)(&l2, &l);
    E_(mul)(&l3, &l2, &l);
    E_(mul)(&out->x, &a->x, &l2);
    E_(mul)(&out->y, &a->y, &l3);
    E_(mul)(&out->zz, &a->zz, &l2);
    E_(mul)(&out->zzz, &a->zzz, &l3);
}

static void T(xyzz_to_affine)(AFF *out, const XYZZ *a)
{
    JAC j;
    G(xyzz_to_jac)(&j, a);
    G(jac_to_affine)(out, &j);
}

/* Textbook affine addition: the independent reference for the formulas. */
static void T(ref_add)(AFF *out, const AFF *p, const AFF *q)
{
    if (G(affine_is_inf)(p)) {
        *out = *q;
        return;
    }
    if (G(affine_is_inf)(q)) {
        *out = *p;
        return;
    }
    E lam, num, den, x3, y3;
    if (E_(eq)(&p->x, &q->x)) {
        if (!E_(eq)(&p->y, &q->y)) {
            memset(out, 0, sizeof *out);
            return;
        }
        E_(sqr)(&num, &p->x); /* 3x^2 / 2y */
        E_(dbl)(&den, &num);
        E_(add)(&num, &num, &den);
        E_(dbl)(&den, &p->y);
    } else {
        E_(sub)(&num, &q->y, &p->y);
        E_(sub)(&den, &q->x, &p->x);
    }
    E_(inv)(&den, &den);
    E_(mul)(&lam, &num, &den);
    E_(sqr)(&x3, &lam);
    E_(sub)(&x3, &x3, &p->x);
    E_(sub)(&x3, &x3, &q->x);
    E_(sub)(&y3, &p->x, &x3);
    E_(mul)(&y3, &y3, &lam);
    E_(sub)(&y3, &y3, &p->y);
    out->x = x3;
    out->y = y3;
}

/* Right-to-left double-and-add with the plain Jacobian add and dbl: the
 * scalar-mul reference (the formulas themselves are checked against
 * ref_add, and small multiples against repeated affine addition). */
static void T(ref_mul)(AFF *out, const AFF *p, const uint64_t *k, size_t n)
{
    JAC acc, base;
    G(jac_inf)(&acc);
    G(jac_from_affine)(&base, p);
    for (size_t i = 0; i < n * 64; i++) {
        if ((k[i / 64] >> (i % 64)) & 1)
            G(jac_add)(&acc, &acc, &base);
        G(jac_dbl)(&base, &base);
    }
    G(jac_to_affine)(out, &acc);
}

/* A point of E(F) found by stepping x from a random start until x^3 + b is a
 * square; no cofactor clearing, so it is almost surely outside the subgroup. */
static void T(rand_curve_point)(AFF *out)
{
    E x, y, rhs, one;
    rand_elem(&x);
    E_(one)(&one);
    for (;;) {
        GI(rhs)(&rhs, &x);
        if (E_(sqrt)(&y, &rhs))
            break;
        E_(add)(&x, &x, &one);
    }
    out->x = x;
    out->y = y;
}

/* ------------------------------------------------------------- tests */

static void T(test_generator)(void)
{
    AFF g, ng, a;
    JAC gj, t;
    G(generator)(&g);
    CHECK(G(affine_on_curve)(&g));
    CHECK(!G(affine_is_inf)(&g));
    CHECK(G(affine_in_subgroup)(&g));
    CHECK(GI(in_subgroup_slow)(&g));
    G(jac_from_affine)(&gj, &g);
    /* [r]G = O, [r-1]G = -G, [r+1]G = G */
    uint64_t k[4];
    memcpy(k, ZP_FR_MODULUS.l, sizeof k);
    G(jac_mul_vartime)(&t, &gj, k, 4);
    CHECK(G(jac_is_inf)(&t));
    k[0] -= 1;
    G(jac_mul_vartime)(&t, &gj, k, 4);
    G(jac_to_affine)(&a, &t);
    G(affine_neg)(&ng, &g);
    CHECK(G(affine_eq)(&a, &ng));
    k[0] += 2;
    G(jac_mul_vartime)(&t, &gj, k, 4);
    G(jac_to_affine)(&a, &t);
    CHECK(G(affine_eq)(&a, &g));
    /* The affine forms of infinity. */
    AFF inf;
    memset(&inf, 0, sizeof inf);
    CHECK(G(affine_is_inf)(&inf));
    CHECK(G(affine_on_curve)(&inf));
    CHECK(!GI(affine_satisfies)(&inf));
    G(affine_neg)(&a, &inf);
    CHECK(G(affine_is_inf)(&a));
    /* A point off the curve. */
    a = g;
    E_(add)(&a.y, &a.y, &g.x);
    CHECK(!G(affine_on_curve)(&a));
}

static void T(test_group_laws)(void)
{
    for (int it = 0; it < 8; it++) {
        JAC p, q, r, s1, s2, t, inf, np;
        AFF pa, qa, ra, x1, x2;
        T(rand_point)(&p, &pa);
        T(rand_point)(&q, &qa);
        T(rand_point)(&r, &ra);
        /* associativity and commutativity */
        G(jac_add)(&s1, &p, &q);
        G(jac_add)(&s1, &s1, &r);
        G(jac_add)(&s2, &q, &r);
        G(jac_add)(&s2, &p, &s2);
        CHECK(G(jac_eq)(&s1, &s2));
        G(jac_add)(&s1, &p, &q);
        G(jac_add)(&s2, &q, &p);
        CHECK(G(jac_eq)(&s1, &s2));
        /* against the textbook affine sum */
        T(ref_add)(&x1, &pa, &qa);
        G(jac_to_affine)(&x2, &s1);
        CHECK(G(affine_eq)(&x1, &x2));
        CHECK(G(affine_on_curve)(&x2));
        /* identity and inverse */
        G(jac_inf)(&inf);
        G(jac_add)(&t, &p, &inf);
        CHECK(G(jac_eq)(&t, &p));
        G(jac_add)(&t, &inf, &p);
        CHECK(G(jac_eq)(&t, &p));
        G(jac_neg)(&np, &p);
        G(jac_add)(&t, &p, &np);
        CHECK(G(jac_is_inf)(&t));
        CHECK(!G(jac_eq)(&p, &np));
        CHECK(!G(jac_eq)(&p, &q));
        CHECK(!G(jac_eq)(&p, &inf));
        CHECK(G(jac_eq)(&inf, &inf));
        /* doubling: dbl(P) == P + P, also with P in another projective form */
        JAC p2;
        T(rescale)(&p2, &p);
        CHECK(G(jac_eq)(&p, &p2));
        G(jac_dbl)(&s1, &p);
        G(jac_add)(&s2, &p, &p2);
        CHECK(G(jac_eq)(&s1, &s2));
        T(ref_add)(&x1, &pa, &pa);
        G(jac_to_affine)(&x2, &s1);
        CHECK(G(affine_eq)(&x1, &x2));
        G(jac_neg)(&np, &p2);
        G(jac_add)(&t, &p, &np);
        CHECK(G(jac_is_inf)(&t));
        G(jac_dbl)(&t, &inf);
        CHECK(G(jac_is_inf)(&t));
    }
}

static void T(test_mixed_add)(void)
{
    for (int it = 0; it < 8; it++) {
        JAC p, q, s1, s2, p2;
        AFF pa, qa, npa, inf;
        T(rand_point)(&p, &pa);
        T(rand_point)(&q, &qa);
        T(rescale)(&p2, &p);
        G(jac_add)(&s1, &p2, &q);
        G(jac_add_affine)(&s2, &p2, &qa);
        CHECK(G(jac_eq)(&s1, &s2));
        /* exceptional: P + P, P + (-P), P + O, O + P */
        G(jac_add_affine)(&s1, &p2, &pa);
        G(jac_dbl)(&s2, &p);
        CHECK(G(jac_eq)(&s1, &s2));
        G(affine_neg)(&npa, &pa);
        G(jac_add_affine)(&s1, &p2, &npa);
        CHECK(G(jac_is_inf)(&s1));
        memset(&inf, 0, sizeof inf);
        G(jac_add_affine)(&s1, &p2, &inf);
        CHECK(G(jac_eq)(&s1, &p));
        G(jac_inf)(&s2);
        G(jac_add_affine)(&s1, &s2, &pa);
        CHECK(G(jac_eq)(&s1, &p));
        /* output aliasing the input */
        s1 = p2;
        G(jac_add_affine)(&s1, &s1, &qa);
        G(jac_add)(&s2, &p, &q);
        CHECK(G(jac_eq)(&s1, &s2));
    }
}

static void T(test_xyzz)(void)
{
    for (int it = 0; it < 8; it++) {
        JAC p, q, sj, tj;
        AFF pa, qa, npa, a1, a2, inf;
        XYZZ px, qx, px2, s, t, ix;
        T(rand_point)(&p, &pa);
        T(rand_point)(&q, &qa);
        G(xyzz_from_affine)(&px, &pa);
        G(xyzz_from_affine)(&qx, &qa);
        T(rescale_xyzz)(&px2, &px);
        T(rescale_xyzz)(&qx, &qx);
        /* add, mixed add and dbl against the Jacobian results */
        G(jac_add)(&sj, &p, &q);
        G(xyzz_add)(&s, &px2, &qx);
        G(xyzz_to_jac)(&tj, &s);
        CHECK(G(jac_eq)(&sj, &tj));
        G(xyzz_add_affine)(&s, &px2, &qa);
        G(xyzz_to_jac)(&tj, &s);
        CHECK(G(jac_eq)(&sj, &tj));
        G(jac_dbl)(&sj, &p);
        G(xyzz_dbl)(&s, &px2);
        G(xyzz_to_jac)(&tj, &s);
        CHECK(G(jac_eq)(&sj, &tj));
        /* P == Q in different forms must double, P == -Q must cancel */
        G(xyzz_add)(&t, &px, &px2);
        G(xyzz_to_jac)(&tj, &t);
        CHECK(G(jac_eq)(&sj, &tj));
        G(xyzz_add_affine)(&t, &px2, &pa);
        G(xyzz_to_jac)(&tj, &t);
        CHECK(G(jac_eq)(&sj, &tj));
        T(ref_add)(&a1, &pa, &pa);
        T(xyzz_to_affine)(&a2, &t);
        CHECK(G(affine_eq)(&a1, &a2));
        G(affine_neg)(&npa, &pa);
        G(xyzz_add_affine)(&t, &px2, &npa);
        CHECK(E_(is_zero)(&t.zz));
        G(xyzz_from_affine)(&t, &npa);
        G(xyzz_add)(&t, &px2, &t);
        CHECK(E_(is_zero)(&t.zz));
        /* infinity in every position */
        memset(&inf, 0, sizeof inf);
        G(xyzz_inf)(&ix);
        G(xyzz_add)(&t, &ix, &px2);
        T(xyzz_to_affine)(&a1, &t);
        CHECK(G(affine_eq)(&a1, &pa));
        G(xyzz_add)(&t, &px2, &ix);
        T(xyzz_to_affine)(&a1, &t);
        CHECK(G(affine_eq)(&a1, &pa));
        G(xyzz_add_affine)(&t, &ix, &pa);
        T(xyzz_to_affine)(&a1, &t);
        CHECK(G(affine_eq)(&a1, &pa));
        G(xyzz_add_affine)(&t, &px2, &inf);
        T(xyzz_to_affine)(&a1, &t);
        CHECK(G(affine_eq)(&a1, &pa));
        G(xyzz_dbl)(&t, &ix);
        CHECK(E_(is_zero)(&t.zz));
        G(xyzz_to_jac)(&tj, &ix);
        CHECK(G(jac_is_inf)(&tj));
        G(xyzz_from_affine)(&t, &inf);
        CHECK(E_(is_zero)(&t.zz));
    }
}

/* A running sum over many points, three ways: Jacobian, XYZZ, affine. */
static void T(test_forms_agree)(void)
{
    JAC accj, p;
    XYZZ accx;
    AFF acca, pa, a1, a2;
    G(jac_inf)(&accj);
    G(xyzz_inf)(&accx);
    memset(&acca, 0, sizeof acca);
    for (int it = 0; it < 12; it++) {
        T(rand_point)(&p, &pa);
        if (it == 5) /* an exceptional step in the middle: add the sum itself */
            G(jac_to_affine)(&pa, &accj);
        G(jac_add_affine)(&accj, &accj, &pa);
        G(xyzz_add_affine)(&accx, &accx, &pa);
        T(ref_add)(&acca, &acca, &pa);
    }
    G(jac_to_affine)(&a1, &accj);
    T(xyzz_to_affine)(&a2, &accx);
    CHECK(G(affine_eq)(&a1, &acca));
    CHECK(G(affine_eq)(&a2, &acca));
}

static void T(check_mul)(const AFF *pa, const uint64_t *k, size_t n)
{
    JAC p, t;
    AFF got, want;
    G(jac_from_affine)(&p, pa);
    G(jac_mul_vartime)(&t, &p, k, n);
    G(jac_to_affine)(&got, &t);
    T(ref_mul)(&want, pa, k, n);
    CHECK(G(affine_eq)(&got, &want));
    /* the affine double-and-add used by the subgroup tests */
    GI(mul_affine_dbladd)(&t, pa, k, n);
    G(jac_to_affine)(&got, &t);
    CHECK(G(affine_eq)(&got, &want));
}

static void T(test_mul)(void)
{
    AFF g, pa, out;
    JAC p, t;
    G(generator)(&g);
    T(rand_point)(&p, &pa);
    /* edges: 0, 1, 2, r-1, r, r+1; zero limbs; long runs of ones */
    uint64_t k[6] = {0};
    T(check_mul)(&pa, k, 0);
    T(check_mul)(&pa, k, 4);
    AFF rep;
    memset(&rep, 0, sizeof rep);
    for (uint64_t v = 1; v <= 33; v++) {
        k[0] = v;
        T(check_mul)(&pa, k, 1);
        /* v*P as P + P + ... + P in affine arithmetic */
        T(ref_add)(&rep, &rep, &pa);
        G(jac_from_affine)(&t, &pa);
        G(jac_mul_vartime)(&t, &t, k, 1);
        G(jac_to_affine)(&out, &t);
        CHECK(G(affine_eq)(&out, &rep));
    }
    k[0] = 2;
    T(check_mul)(&pa, k, 6); /* leading zero limbs */
    memcpy(k, ZP_FR_MODULUS.l, 32);
    for (int d = -1; d <= 1; d++) {
        k[0] = ZP_FR_MODULUS.l[0] + (uint64_t)d;
        T(check_mul)(&g, k, 4);
        T(check_mul)(&pa, k, 4);
    }
    k[0] = ZP_FR_MODULUS.l[0];
    G(jac_mul_vartime)(&t, &p, k, 4);
    CHECK(G(jac_is_inf)(&t));
    for (int i = 0; i < 6; i++)
        k[i] = ~0ULL;
    T(check_mul)(&pa, k, 6);
    k[0] = 1;
    k[1] = 0;
    k[2] = 1ULL << 63;
    T(check_mul)(&pa, k, 3);
    for (int it = 0; it < 6; it++) {
        for (int i = 0; i < 6; i++)
            k[i] = check_rand64();
        T(check_mul)(&pa, k, 1 + (size_t)it % 6);
    }
    /* k*O = O */
    G(jac_inf)(&p);
    k[0] = 5;
    G(jac_mul_vartime)(&t, &p, k, 1);
    CHECK(G(jac_is_inf)(&t));
    /* output aliasing the input */
    G(jac_from_affine)(&p, &g);
    k[0] = 7;
    G(jac_mul_vartime)(&p, &p, k, 1);
    G(jac_to_affine)(&out, &p);
    T(ref_mul)(&pa, &g, k, 1);
    CHECK(G(affine_eq)(&out, &pa));
}

static void T(test_batch_to_affine)(void)
{
    enum { N = 17 };
    JAC in[N];
    AFF out[N], one;
    const size_t sizes[] = {0, 1, 2, N};
    for (int pattern = 0; pattern < 4; pattern++) {
        for (size_t i = 0; i < N; i++) {
            bool inf = pattern == 1 ? true
                     : pattern == 2 ? (i % 3 == 0)
                     : pattern == 3 ? (i == N - 1 || i == 1)
                     : false;
            if (inf)
                G(jac_inf)(&in[i]);
            else
                T(rand_point)(&in[i], NULL);
        }
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            memset(out, 0xa5, sizeof out);
            G(batch_to_affine)(out, in, n);
            for (size_t i = 0; i < n; i++) {
                G(jac_to_affine)(&one, &in[i]);
                CHECK(G(affine_eq)(&out[i], &one));
            }
            /* nothing past n is written */
            for (size_t i = n; i < N; i++)
                CHECK(FIRST_LIMB(out[i].x) == 0xa5a5a5a5a5a5a5a5ULL);
        }
    }
}

static void T(test_subgroup)(void)
{
    AFF a, inf, g;
    JAC p, t;
    memset(&inf, 0, sizeof inf);
    CHECK(G(affine_in_subgroup)(&inf));
    CHECK(GI(in_subgroup_slow)(&inf));
    for (int it = 0; it < 4; it++) {
        T(rand_point)(&p, &a);
        CHECK(G(affine_in_subgroup)(&a));
        CHECK(GI(in_subgroup_slow)(&a));
    }
    G(generator)(&g);
    int outside = 0;
    for (int it = 0; it < 6; it++) {
        T(rand_curve_point)(&a);
        CHECK(G(affine_on_curve)(&a));
        bool fast = G(affine_in_subgroup)(&a);
        bool slow = GI(in_subgroup_slow)(&a);
        CHECK(fast == slow);
        outside += !slow;
        /* an outside point plus G is still outside */
        G(jac_from_affine)(&p, &a);
        G(jac_add_affine)(&p, &p, &g);
        AFF b;
        G(jac_to_affine)(&b, &p);
        CHECK(G(affine_in_subgroup)(&b) == GI(in_subgroup_slow)(&b));
        /* clearing the cofactor brings it inside */
        G(jac_from_affine)(&p, &a);
        G(jac_mul_vartime)(&t, &p, COFACTOR, COFACTOR_LIMBS);
        G(jac_to_affine)(&b, &t);
        CHECK(G(affine_in_subgroup)(&b));
        CHECK(GI(in_subgroup_slow)(&b));
    }
    CHECK(outside == 6);
    /* the endomorphism itself acts as its eigenvalue on the subgroup */
    T(rand_point)(&p, &a);
    CHECK(T(endo_check)(&a));
}
