/*
 * Optimal ate pairing on BLS12-381.
 *
 * Miller loop over |x| = 0xd201000000010000 (x is negative, so the result is
 * conjugated at the end). Q stays on the twist E': y^2 = x^3 + 4 xi in
 * homogeneous projective coordinates (x = X/Z, y = Y/Z), so no step needs an
 * inversion. The twist is an M-twist: (x', y') maps into E(Fp12) as
 * (x' w^-2, y' w^-3), so a line through points of E' evaluated at
 * P = (xP, yP), multiplied by -w^3 and by a factor in Fp2 (both vanish in
 * the final exponentiation, whose exponent is a multiple of q^4 - 1), is
 *     l0 + l1 v + l4 v w   with   l1 = lambda' * xP,  l4 = -yP
 * (lambda' the slope on E', both up to the common Fp2 scale) and l0 the
 * constant term; zp__fp12_mul_014 multiplies by it.
 */
#include "pairing.h"
#include "tower.h"

/* |x|; its top bit is handled by starting the loop at T = Q. */
#define BLS_X_ABS 0xd201000000010000ULL

/* At most this many pairs share one Miller loop, so that the points in
 * flight live on the stack (no allocation inside arithmetic). */
#define MILLER_CHUNK 8

typedef struct g2_proj { zp_fp2 x, y, z; } g2_proj;

/* P prepared for line evaluation: x and -y. */
typedef struct g1_prep { zp_fp x, neg_y; } g1_prep;

static void g1_prep_of(g1_prep *out, const zp_g1_affine *p)
{
    out->x = p->x;
    zp_fp_neg(&out->neg_y, &p->y);
}

/* f <- f (l0 + (lx xP) v + (ly (-yP)) v w): the line of one step at P.
 * Both loops, plain and prepared, multiply by lines through here, so for
 * the same step they multiply by the same Fp12 value. */
static void line_mul(zp_fp12 *f, const zp__line *ln, const g1_prep *p)
{
    zp_fp2 l1, l4;
    zp_fp2_mul_fp(&l1, &ln->lx, &p->x);
    zp_fp2_mul_fp(&l4, &ln->ly, &p->neg_y);
    zp__fp12_mul_014(f, f, &ln->l0, &l1, &l4);
}

/* out = 3 b' a = 12 xi a, by additions (b' = 4 xi). */
static void mul_3b(zp_fp2 *out, const zp_fp2 *a)
{
    zp_fp2 t, t4;
    zp_fp2_mul_nr(&t, a);
    zp_fp2_dbl(&t, &t);
    zp_fp2_dbl(&t4, &t);
    zp_fp2_dbl(&t, &t4);
    zp_fp2_add(out, &t, &t4);
}

/*
 * T <- 2T and the tangent line at T, scaled by 2YZ:
 *   lambda' 2YZ = 3X^2, constant term (Y^2 - 3b'Z^2) up to sign, using the
 *   curve equation Y^2 Z = X^3 + b'Z^3 to remove a division by Z.
 * Doubling (Costello-Lange-Naehrig, times 4), with B = Y^2, C = 3b'Z^2:
 *   X3 = 2XY(B - 3C), Y3 = (B + 3C)^2 - 12 C^2, Z3 = 4B * 2YZ.
 */
static void dbl_step(g2_proj *t, zp__line *ln)
{
    zp_fp2 a, b, z2, c, d, e, x2, s;
    zp_fp2_mul(&a, &t->x, &t->y);
    zp_fp2_sqr(&b, &t->y);
    zp_fp2_sqr(&z2, &t->z);
    mul_3b(&c, &z2);
    zp_fp2_add(&s, &t->y, &t->z); /* e = 2YZ = (Y + Z)^2 - Y^2 - Z^2 */
    zp_fp2_sqr(&e, &s);
    zp_fp2_sub(&e, &e, &b);
    zp_fp2_sub(&e, &e, &z2);
    zp_fp2_sqr(&x2, &t->x);

    zp_fp2_sub(&ln->l0, &c, &b);
    zp_fp2_dbl(&ln->lx, &x2);
    zp_fp2_add(&ln->lx, &ln->lx, &x2);
    ln->ly = e;

    zp_fp2_dbl(&d, &c); /* d = 3C */
    zp_fp2_add(&d, &d, &c);
    zp_fp2_sub(&s, &b, &d);
    zp_fp2_mul(&t->x, &s, &a);
    zp_fp2_dbl(&t->x, &t->x);
    zp_fp2_add(&s, &b, &d);
    zp_fp2_sqr(&s, &s);
    zp_fp2_sqr(&c, &c);
    zp_fp2_dbl(&c, &c); /* 12 C^2 */
    zp_fp2_dbl(&c, &c);
    zp_fp2_add(&d, &c, &c);
    zp_fp2_add(&c, &d, &c);
    zp_fp2_sub(&t->y, &s, &c);
    zp_fp2_mul(&t->z, &b, &e);
    zp_fp2_dbl(&t->z, &t->z);
    zp_fp2_dbl(&t->z, &t->z);
}

/*
 * T <- T + Q (Q affine, T != +-Q, which holds inside the loop for Q in G2)
 * and the line through them, scaled by s = x2 Z - X; with t = y2 Z - Y the
 * slope is t/s. Addition in projective coordinates:
 *   E = t^2 Z - s^3 - 2 s^2 X, X3 = s E, Y3 = t(s^2 X - E) - s^3 Y, Z3 = s^3 Z.
 */
static void add_step(g2_proj *t, zp__line *ln, const zp_g2_affine *q)
{
    zp_fp2 tt, s, s2, s3, fx, e, u;
    zp_fp2_mul(&tt, &q->y, &t->z);
    zp_fp2_sub(&tt, &tt, &t->y);
    zp_fp2_mul(&s, &q->x, &t->z);
    zp_fp2_sub(&s, &s, &t->x);

    zp_fp2_mul(&ln->l0, &s, &q->y); /* l0 = s y2 - t x2 */
    zp_fp2_mul(&u, &tt, &q->x);
    zp_fp2_sub(&ln->l0, &ln->l0, &u);
    ln->lx = tt;
    ln->ly = s;

    zp_fp2_sqr(&s2, &s);
    zp_fp2_mul(&s3, &s2, &s);
    zp_fp2_mul(&fx, &s2, &t->x);
    zp_fp2_sqr(&e, &tt);
    zp_fp2_mul(&e, &e, &t->z);
    zp_fp2_sub(&e, &e, &s3);
    zp_fp2_sub(&e, &e, &fx);
    zp_fp2_sub(&e, &e, &fx);

    zp_fp2_mul(&t->x, &s, &e);
    zp_fp2_sub(&u, &fx, &e);
    zp_fp2_mul(&u, &u, &tt);
    zp_fp2_mul(&fx, &s3, &t->y);
    zp_fp2_sub(&t->y, &u, &fx);
    zp_fp2_mul(&t->z, &s3, &t->z);
}

/*
 * out = prod f_{|x|,Q_i}(P_i) * prod f_{|x|,R_j}(S_j), conjugated for the
 * negative x: n plain pairs and m pairs whose lines r[j] were made ahead;
 * n, m <= chunk, pairs with an infinity already removed.
 */
static void miller_chunk(zp_fp12 *out, const g1_prep *p, const zp_g2_affine *q, size_t n,
                         const g1_prep *s, const zp__line *const *r, size_t m)
{
    g2_proj t[MILLER_CHUNK];
    zp__line ln;
    zp_fp12 f;
    zp_fp12_one(&f);
    for (size_t i = 0; i < n; i++) {
        t[i].x = q[i].x;
        t[i].y = q[i].y;
        zp_fp2_one(&t[i].z);
    }
    size_t k = 0; /* the step, indexing the lines made ahead */
    for (int bit = 62; bit >= 0; bit--) {
        zp_fp12_sqr(&f, &f);
        for (size_t i = 0; i < n; i++) {
            dbl_step(&t[i], &ln);
            line_mul(&f, &ln, &p[i]);
        }
        for (size_t j = 0; j < m; j++)
            line_mul(&f, &r[j][k], &s[j]);
        k++;
        if ((BLS_X_ABS >> bit) & 1) {
            for (size_t i = 0; i < n; i++) {
                add_step(&t[i], &ln, &q[i]);
                line_mul(&f, &ln, &p[i]);
            }
            for (size_t j = 0; j < m; j++)
                line_mul(&f, &r[j][k], &s[j]);
            k++;
        }
    }
    zp_fp12_conj(out, &f);
}

void zp__g2_lines_make(zp__g2_lines *out, const zp_g2_affine *q)
{
    out->inf = zp_g2_affine_is_inf(q);
    if (out->inf)
        return;
    g2_proj t;
    t.x = q->x;
    t.y = q->y;
    zp_fp2_one(&t.z);
    size_t k = 0;
    for (int bit = 62; bit >= 0; bit--) {
        dbl_step(&t, &out->l[k++]);
        if ((BLS_X_ABS >> bit) & 1)
            add_step(&t, &out->l[k++], q);
    }
}

void zp__miller_prepared(zp_fp12 *out, const zp_g1_affine *p, const zp_g2_affine *q, size_t n,
                         const zp_g1_affine *s, const zp__g2_lines *const *r, size_t m)
{
    g1_prep pp[MILLER_CHUNK], sp[MILLER_CHUNK];
    zp_g2_affine qq[MILLER_CHUNK];
    const zp__line *rr[MILLER_CHUNK];
    zp_fp12 acc, f;
    zp_fp12_one(&acc);
    size_t i = 0, j = 0;
    for (;;) {
        size_t a = 0, b = 0;
        for (; i < n && a < MILLER_CHUNK; i++) {
            if (zp_g1_affine_is_inf(&p[i]) || zp_g2_affine_is_inf(&q[i]))
                continue;
            g1_prep_of(&pp[a], &p[i]);
            qq[a++] = q[i];
        }
        for (; j < m && b < MILLER_CHUNK; j++) {
            if (zp_g1_affine_is_inf(&s[j]) || r[j]->inf)
                continue;
            g1_prep_of(&sp[b], &s[j]);
            rr[b++] = r[j]->l;
        }
        if (a == 0 && b == 0)
            break;
        miller_chunk(&f, pp, qq, a, sp, rr, b);
        zp_fp12_mul(&acc, &acc, &f);
    }
    *out = acc;
}

/* The product of the Miller loops of all pairs without an infinity. */
static void miller_multi(zp_fp12 *out, const zp_g1_affine *p, const zp_g2_affine *q, size_t n)
{
    zp__miller_prepared(out, p, q, n, NULL, NULL, 0);
}

void zp_miller_loop(zp_fp12 *out, const zp_g1_affine *p, const zp_g2_affine *q)
{
    miller_multi(out, p, q, 1);
}

/* a^x for a in the cyclotomic subgroup: a^|x| by cyclotomic squarings,
 * then the inverse (conjugation) because x < 0. */
static void cyclotomic_exp_x(zp_fp12 *out, const zp_fp12 *a)
{
    zp_fp12 acc = *a;
    for (int bit = 62; bit >= 0; bit--) {
        zp__fp12_cyclotomic_sqr(&acc, &acc);
        if ((BLS_X_ABS >> bit) & 1)
            zp_fp12_mul(&acc, &acc, a);
    }
    zp_fp12_conj(out, &acc);
}

/*
 * f^(3 (q^12 - 1)/r), the exponent @noble/curves, zkcrypto and blst use
 * (3 is prime to r, so this is still a non-degenerate bilinear pairing).
 * Easy part: f^((q^6 - 1)(q^2 + 1)) lands in the cyclotomic subgroup, where
 * the inverse is a conjugation. Hard part (Hayashida-Hayasaka-Teruya):
 *   3 (q^4 - q^2 + 1)/r = (x - 1)^2 (x + q)(x^2 + q^2 - 1) + 3.
 */
void zp_final_exp(zp_fp12 *out, const zp_fp12 *a)
{
    zp_fp12 f, t0, t1, t2;
    zp_fp12_inv(&t0, a);
    zp_fp12_conj(&f, a);
    zp_fp12_mul(&f, &f, &t0);
    zp_fp12_frobenius(&t0, &f, 2);
    zp_fp12_mul(&f, &f, &t0);

    cyclotomic_exp_x(&t0, &f); /* t0 = f^(x - 1) */
    zp_fp12_conj(&t1, &f);
    zp_fp12_mul(&t0, &t0, &t1);
    cyclotomic_exp_x(&t1, &t0); /* t0 = f^((x - 1)^2) */
    zp_fp12_conj(&t0, &t0);
    zp_fp12_mul(&t0, &t1, &t0);
    cyclotomic_exp_x(&t1, &t0); /* t0 = t0^(x + q) */
    zp_fp12_frobenius(&t0, &t0, 1);
    zp_fp12_mul(&t0, &t1, &t0);
    cyclotomic_exp_x(&t1, &t0); /* t0 = t0^(x^2 + q^2 - 1) */
    cyclotomic_exp_x(&t1, &t1);
    zp_fp12_frobenius(&t2, &t0, 2);
    zp_fp12_mul(&t1, &t1, &t2);
    zp_fp12_conj(&t0, &t0);
    zp_fp12_mul(&t0, &t1, &t0);

    zp__fp12_cyclotomic_sqr(&t1, &f); /* times f^3 */
    zp_fp12_mul(&t1, &t1, &f);
    zp_fp12_mul(out, &t0, &t1);
}

void zp_pairing(zp_fp12 *out, const zp_g1_affine *p, const zp_g2_affine *q)
{
    zp_fp12 f;
    miller_multi(&f, p, q, 1);
    zp_final_exp(out, &f);
}

void zp_multi_pairing(zp_fp12 *out, const zp_g1_affine *p, const zp_g2_affine *q, size_t n)
{
    zp_fp12 f;
    miller_multi(&f, p, q, n);
    zp_final_exp(out, &f);
}
