/*
 * Test-key setup: fixed-base multiplication against plain scalar
 * multiplication, Lagrange values against the product formula, the odd-coset
 * H identity the snarkjs convention rests on, a fixed-toxic key against its
 * definition point by point, the shape of the key (extra rows, densities),
 * refusals, and a .zkey round trip.
 */
#include "test_g16_util.h"

#include <unistd.h>

#include "groth16/setup_impl.h"
#include "io/io.h"

static void g1_ref(zp_g1_affine *out, const zp_fr *k)
{
    zp_g1_affine g;
    zp_g1_jac j;
    zp_fr plain;
    zp_g1_generator(&g);
    zp_g1_jac_from_affine(&j, &g);
    zp_fr_from_mont(&plain, k);
    zp_g1_jac_mul_vartime(&j, &j, plain.l, 4);
    zp_g1_jac_to_affine(out, &j);
}

static void g2_ref(zp_g2_affine *out, const zp_fr *k)
{
    zp_g2_affine g;
    zp_g2_jac j;
    zp_fr plain;
    zp_g2_generator(&g);
    zp_g2_jac_from_affine(&j, &g);
    zp_fr_from_mont(&plain, k);
    zp_g2_jac_mul_vartime(&j, &j, plain.l, 4);
    zp_g2_jac_to_affine(out, &j);
}

/* Random scalars plus 0, 1, r − 1 and the window edges 2^w − 1, 2^w. */
static size_t scalars_with_edges(zp_fr *k, size_t n, unsigned w)
{
    zp_fr one;
    zp_fr_one(&one);
    zp_fr_zero(&k[0]);
    k[1] = one;
    zp_fr_neg(&k[2], &one);
    fr_u64(&k[3], ((uint64_t)1 << w) - 1);
    fr_u64(&k[4], (uint64_t)1 << w);
    for (size_t i = 5; i < n; i++)
        rand_fr(&k[i]);
    return n;
}

static void test_fixed_base_vs_ref(void)
{
    /* Windows that do and do not divide 64, so digits straddle limbs. */
    unsigned ws[6] = {4, 5, 7, 8, 11, 13};
    for (int t = 0; t < 6; t++) {
        bool g2 = ws[t] <= 8; /* big G2 tables are slow to build */
        enum { N = 40 };
        zp_fr k[N];
        scalars_with_edges(k, N, ws[t]);
        zp_g1_affine g1, o1[N], o1b[N], r1;
        zp_g2_affine gen2, o2[N], r2;
        zp_g1_generator(&g1);
        zp_g2_generator(&gen2);
        zp__fb_g1 f1;
        zp__fb_g2 f2;
        CHECK_EQ_INT(zp__fb_g1_init(&f1, &g1, ws[t]), ZP_OK);
        CHECK_EQ_INT(zp__fb_g2_init(&f2, &gen2, g2 ? ws[t] : 2), ZP_OK);
        zp__fb_g1_mul(o1, &f1, k, N, 1);
        zp__fb_g1_mul(o1b, &f1, k, N, 2);
        zp__fb_g2_mul(o2, &f2, k, N, 2);
        for (size_t i = 0; i < N; i++) {
            g1_ref(&r1, &k[i]);
            CHECK(zp_g1_affine_eq(&o1[i], &r1));
            CHECK(zp_g1_affine_eq(&o1b[i], &r1));
            if (i < 12) { /* G2 scalar multiplication is the slow part */
                g2_ref(&r2, &k[i]);
                CHECK(zp_g2_affine_eq(&o2[i], &r2));
            }
        }
        CHECK(zp_g1_affine_is_inf(&o1[0]) && zp_g2_affine_is_inf(&o2[0]));
        zp__fb_g1_free(&f1);
        zp__fb_g2_free(&f2);
    }
    zp__fb_g1 bad;
    zp_g1_affine g;
    zp_g1_generator(&g);
    CHECK_EQ_INT(zp__fb_g1_init(&bad, &g, 0), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__fb_g1_init(&bad, &g, 17), ZP_E_INVALID_ARG);
    CHECK(zp__fb_window(10) >= 4 && zp__fb_window(10) <= zp__fb_window(1 << 20));
}

/* L_i(tau) = Π_{k≠i} (tau − ω^k)/(ω^i − ω^k), quadratic. */
static void lagrange_ref(zp_fr *out, const zp_fr *tau, const zp_fr *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        zp_fr num, den, t;
        zp_fr_one(&num);
        zp_fr_one(&den);
        for (size_t k = 0; k < n; k++) {
            if (k == i)
                continue;
            zp_fr_sub(&t, tau, &x[k]);
            zp_fr_mul(&num, &num, &t);
            zp_fr_sub(&t, &x[i], &x[k]);
            zp_fr_mul(&den, &den, &t);
        }
        zp_fr_inv(&den, &den);
        zp_fr_mul(&out[i], &num, &den);
    }
}

static void test_lagrange(void)
{
    for (int c = 0; c < 2; c++) {
        zp_roots roots = c ? ZP_ROOTS_BELLPERSON : ZP_ROOTS_SNARKJS;
        for (unsigned log2n = 0; log2n <= 4; log2n++) {
            size_t n = (size_t)1 << log2n;
            zp_fr tau, w, one, x[16], l[16], r[16], sum;
            rand_fr(&tau);
            zp_fr_one(&one);
            zp_fr_root_of_unity(&w, log2n, roots);
            x[0] = one;
            for (size_t i = 1; i < n; i++)
                zp_fr_mul(&x[i], &x[i - 1], &w);
            CHECK_EQ_INT(zp__lagrange_at(l, &tau, &one, &w, n, n), ZP_OK);
            lagrange_ref(r, &tau, x, n);
            zp_fr_zero(&sum);
            for (size_t i = 0; i < n; i++) {
                CHECK(zp_fr_eq(&l[i], &r[i]));
                zp_fr_add(&sum, &sum, &l[i]);
            }
            CHECK(zp_fr_eq(&sum, &one)); /* interpolates the constant 1 */
            /* tau in the subgroup is refused. */
            if (n > 1)
                CHECK_EQ_INT(zp__lagrange_at(l, &x[1], &one, &w, n, n), ZP_E_INVALID_ARG);
        }
    }
}

/*
 * The snarkjs H query. For p of degree ≤ 2n − 2 that vanishes on ⟨ω_n⟩,
 * Σ_j p(ω_2n^(2j+1))·L^(2n)_{2j+1}(τ) = p(τ): the even-point terms vanish.
 * p = q·Z with Z = Xⁿ − 1, so also Z(ω_2n^(2j+1)) = −2.
 */
static void test_h_coset_identity(void)
{
    for (unsigned log2n = 1; log2n <= 4; log2n++) {
        size_t n = (size_t)1 << log2n;
        zp_fr q[16], p[32], h[16], lag[16], tau, w2n, wn, x, one, two, zx, pt, acc;
        for (size_t i = 0; i + 1 < n; i++)
            rand_fr(&q[i]);
        /* p = q·(Xⁿ − 1), coefficients 0..2n−2. */
        for (size_t i = 0; i < 2 * n; i++)
            zp_fr_zero(&p[i]);
        for (size_t i = 0; i + 1 < n; i++) {
            zp_fr_sub(&p[i], &p[i], &q[i]);
            zp_fr_add(&p[i + n], &p[i + n], &q[i]);
        }
        zp_fr_one(&one);
        zp_fr_add(&two, &one, &one);
        zp_fr_root_of_unity(&w2n, log2n + 1, ZP_ROOTS_SNARKJS);
        zp_fr_sqr(&wn, &w2n);
        x = w2n;
        for (size_t j = 0; j < n; j++) {
            horner(&h[j], p, 2 * n, &x);
            fr_pow_u64(&zx, &x, n);
            zp_fr_sub(&zx, &zx, &one);
            zp_fr_add(&zx, &zx, &two);
            CHECK(zp_fr_is_zero(&zx)); /* Z = −2 on the odd coset */
            zp_fr_mul(&x, &x, &wn);
        }
        rand_fr(&tau);
        CHECK_EQ_INT(zp__lagrange_at(lag, &tau, &w2n, &wn, n, 2 * n), ZP_OK);
        zp_fr_zero(&acc);
        for (size_t j = 0; j < n; j++) {
            zp_fr_mul(&x, &h[j], &lag[j]);
            zp_fr_add(&acc, &acc, &x);
        }
        horner(&pt, p, 2 * n, &tau);
        CHECK(zp_fr_eq(&acc, &pt));
    }
}

/* Every point of a fixed-toxic key of a tiny circuit against its definition. */
static void check_key_points(const zp__pk *pk, const zp__r1cs *cs, const zp__toxic *t)
{
    size_t n = (size_t)pk->domain_size;
    zp_fr x[64], lag[64], wn, one, ginv, dinv;
    zp_fr_one(&one);
    zp_fr_root_of_unity(&wn, (unsigned)__builtin_ctzll(n), pk->roots);
    x[0] = one;
    for (size_t i = 1; i < n; i++)
        zp_fr_mul(&x[i], &x[i - 1], &wn);
    lagrange_ref(lag, &t->tau, x, n);
    zp_fr_inv(&ginv, &t->gamma);
    zp_fr_inv(&dinv, &t->delta);
    /* Dense u, v, w from the circuit plus the extra rows, by hand. */
    zp_fr u[64], v[64], w[64], k;
    for (uint32_t j = 0; j < pk->n_vars; j++) {
        zp_fr_zero(&u[j]);
        zp_fr_zero(&v[j]);
        zp_fr_zero(&w[j]);
    }
    const zp__csr *m[3] = {&cs->a, &cs->b, &cs->c};
    zp_fr *dst[3] = {u, v, w};
    for (int q = 0; q < 3; q++)
        for (uint64_t i = 0; i < m[q]->nrows; i++)
            for (uint64_t e = m[q]->row_ptr[i]; e < m[q]->row_ptr[i + 1]; e++) {
                zp_fr_mul(&k, &m[q]->val[e], &lag[i]);
                zp_fr_add(&dst[q][m[q]->col[e]], &dst[q][m[q]->col[e]], &k);
            }
    for (uint32_t s = 0; s <= pk->n_public; s++)
        zp_fr_add(&u[s], &u[s], &lag[cs->n_constraints + s]);
    zp_g1_affine r1;
    zp_g2_affine r2;
    size_t ka = 0, kb = 0;
    for (uint32_t j = 0; j < pk->n_vars; j++) {
        if (zp__bitmap_get(&pk->a_density, j)) {
            g1_ref(&r1, &u[j]);
            CHECK(zp_g1_affine_eq(&pk->a[ka++], &r1));
        } else {
            CHECK(zp_fr_is_zero(&u[j]));
        }
        if (zp__bitmap_get(&pk->b_density, j)) {
            g1_ref(&r1, &v[j]);
            CHECK(zp_g1_affine_eq(&pk->b1[kb], &r1));
            g2_ref(&r2, &v[j]);
            CHECK(zp_g2_affine_eq(&pk->b2[kb++], &r2));
        } else {
            CHECK(zp_fr_is_zero(&v[j]));
        }
        zp_fr y;
        zp_fr_mul(&k, &t->beta, &u[j]);
        zp_fr_mul(&y, &t->alpha, &v[j]);
        zp_fr_add(&k, &k, &y);
        zp_fr_add(&k, &k, &w[j]);
        zp_fr_mul(&k, &k, j <= pk->n_public ? &ginv : &dinv);
        g1_ref(&r1, &k);
        CHECK(zp_g1_affine_eq(j <= pk->n_public ? &pk->vk.ic[j] : &pk->l[j - pk->n_public - 1],
                              &r1));
    }
    CHECK(ka == pk->n_a && kb == pk->n_b);
    /* H. */
    zp_fr zt;
    fr_pow_u64(&zt, &t->tau, n);
    zp_fr_sub(&zt, &zt, &one);
    zp_fr x2[128], l2[128], w2;
    zp_fr_root_of_unity(&w2, (unsigned)__builtin_ctzll(n) + 1, pk->roots);
    x2[0] = one;
    for (size_t i = 1; i < 2 * n; i++)
        zp_fr_mul(&x2[i], &x2[i - 1], &w2);
    lagrange_ref(l2, &t->tau, x2, 2 * n);
    for (uint64_t j = 0; j < pk->n_h; j++) {
        if (pk->h_conv == ZP_H_TAU) {
            fr_pow_u64(&k, &t->tau, j); /* τ^j Z(τ)/δ */
            zp_fr_mul(&k, &k, &zt);
        } else {
            k = l2[2 * j + 1]; /* L^(2n)_{2j+1}(τ)/δ */
        }
        zp_fr_mul(&k, &k, &dinv);
        g1_ref(&r1, &k);
        CHECK(zp_g1_affine_eq(&pk->h[j], &r1));
    }
    zp_g1_affine a1, b1, d1;
    zp_g2_affine b2, g2, d2;
    g1_ref(&a1, &t->alpha);
    g1_ref(&b1, &t->beta);
    g1_ref(&d1, &t->delta);
    g2_ref(&b2, &t->beta);
    g2_ref(&g2, &t->gamma);
    g2_ref(&d2, &t->delta);
    CHECK(zp_g1_affine_eq(&pk->vk.alpha1, &a1) && zp_g1_affine_eq(&pk->vk.beta1, &b1) &&
          zp_g1_affine_eq(&pk->vk.delta1, &d1) && zp_g2_affine_eq(&pk->vk.beta2, &b2) &&
          zp_g2_affine_eq(&pk->vk.gamma2, &g2) && zp_g2_affine_eq(&pk->vk.delta2, &d2));
}

static void rand_toxic(zp__toxic *t)
{
    rand_fr(&t->tau);
    rand_fr(&t->alpha);
    rand_fr(&t->beta);
    rand_fr(&t->gamma);
    rand_fr(&t->delta);
}

static void test_fixed_toxic_key(void)
{
    for (int c = 0; c < 2; c++) {
        zp__synth_spec sp;
        zp__r1cs cs;
        zp__pk pk;
        zp__toxic t;
        CHECK_EQ_INT(zp__synth_parse(&sp, "chain:4"), ZP_OK);
        CHECK_EQ_INT(zp__synth_circuit(&cs, &sp), ZP_OK);
        rand_toxic(&t);
        CHECK_EQ_INT(zp__setup(&pk, &cs, c ? ZP_H_TAU : ZP_H_COSET, 2, &t), ZP_OK);
        CHECK(pk.n_vars <= 64 && pk.domain_size <= 64);
        check_key_points(&pk, &cs, &t);
        zp__pk_free(&pk);
        zp__r1cs_free(&cs);
    }
}

static void test_key_shape(void)
{
    for (int c = 0; c < 2; c++) {
        g16_fix f;
        CHECK(fix_make(&f, "porep:8", c ? ZP_H_TAU : ZP_H_COSET, 1) == 0);
        const zp__pk *pk = &f.pk;
        uint64_t m = f.cs.n_constraints, rows = m + f.cs.n_public + 1;
        uint64_t n = 1;
        while (n < rows)
            n *= 2;
        CHECK_EQ_INT(pk->domain_size, n);
        CHECK(pk->h_conv == (c ? ZP_H_TAU : ZP_H_COSET));
        CHECK(pk->roots == (c ? ZP_ROOTS_BELLPERSON : ZP_ROOTS_SNARKJS));
        CHECK_EQ_INT(pk->n_h, c ? n - 1 : n);
        CHECK_EQ_INT(pk->ma.nrows, rows);
        CHECK_EQ_INT(pk->mb.nrows, rows);
        CHECK_EQ_INT(pk->ma.nnz, f.cs.a.nnz + f.cs.n_public + 1);
        CHECK_EQ_INT(pk->mb.nnz, f.cs.b.nnz);
        for (uint32_t s = 0; s <= f.cs.n_public; s++) {
            uint64_t at = pk->ma.row_ptr[m + s];
            CHECK_EQ_INT(pk->ma.row_ptr[m + s + 1] - at, 1);
            CHECK_EQ_INT(pk->ma.col[at], s);
            CHECK(zp_fr_is_one(&pk->ma.val[at]));
            CHECK(zp__bitmap_get(&pk->a_density, s));
        }
        zp__bitmap d;
        CHECK_EQ_INT(zp__csr_column_density(&d, &f.cs.b, f.cs.n_vars, 1), ZP_OK);
        for (uint32_t j = 0; j < f.cs.n_vars; j++)
            CHECK_EQ_INT(zp__bitmap_get(&d, j), zp__bitmap_get(&pk->b_density, j));
        zp__bitmap_free(&d);
        CHECK(pk->n_b < pk->n_vars); /* porep: B is sparse */
        CHECK(zp__pk_shape_ok(pk));
        fix_free(&f);
    }
}

static void test_setup_refusals(void)
{
    zp__synth_spec sp;
    zp__r1cs cs;
    zp__pk pk;
    zp__toxic t;
    CHECK_EQ_INT(zp__synth_parse(&sp, "chain:3"), ZP_OK);
    CHECK_EQ_INT(zp__synth_circuit(&cs, &sp), ZP_OK);
    rand_toxic(&t);
    zp__toxic z = t;
    zp_fr_zero(&z.delta);
    CHECK_EQ_INT(zp__setup(&pk, &cs, ZP_H_COSET, 1, &z), ZP_E_INVALID_ARG);
    z = t;
    zp_fr_one(&z.tau); /* in every domain */
    CHECK_EQ_INT(zp__setup(&pk, &cs, ZP_H_TAU, 1, &z), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__setup(&pk, &cs, (zp_h_conv)9, 1, &t), ZP_E_INVALID_ARG);
    /* A column past n_vars, and a missing C. */
    uint32_t saved = cs.b.col[0];
    cs.b.col[0] = cs.n_vars;
    CHECK_EQ_INT(zp__setup(&pk, &cs, ZP_H_COSET, 1, &t), ZP_E_INVALID_ARG);
    cs.b.col[0] = saved;
    uint64_t rows = cs.c.nrows;
    cs.c.nrows = 0;
    CHECK_EQ_INT(zp__setup(&pk, &cs, ZP_H_COSET, 1, &t), ZP_E_INVALID_ARG);
    cs.c.nrows = rows;
    CHECK(pk.a == NULL && pk.h == NULL); /* zeroed on failure */
    CHECK_EQ_INT(zp__setup(&pk, &cs, ZP_H_COSET, 1, &t), ZP_OK);
    zp__pk_free(&pk);
    zp__r1cs_free(&cs);
}

static bool same_pk(const zp__pk *a, const zp__pk *b)
{
    bool ok = a->n_vars == b->n_vars && a->n_public == b->n_public &&
              a->domain_size == b->domain_size && a->n_a == b->n_a && a->n_b == b->n_b &&
              a->n_l == b->n_l && a->n_h == b->n_h && a->vk.n_ic == b->vk.n_ic &&
              a->ma.nnz == b->ma.nnz && a->mb.nnz == b->mb.nnz && a->ma.nrows == b->ma.nrows;
    if (!ok)
        return false;
    ok = !memcmp(a->a, b->a, a->n_a * sizeof *a->a) &&
         !memcmp(a->b1, b->b1, a->n_b * sizeof *a->b1) &&
         !memcmp(a->b2, b->b2, a->n_b * sizeof *a->b2) &&
         !memcmp(a->l, b->l, a->n_l * sizeof *a->l) &&
         !memcmp(a->h, b->h, a->n_h * sizeof *a->h) &&
         !memcmp(a->vk.ic, b->vk.ic, a->vk.n_ic * sizeof *a->vk.ic);
    for (uint32_t j = 0; j < a->n_vars; j++)
        ok = ok && zp__bitmap_get(&a->a_density, j) == zp__bitmap_get(&b->a_density, j) &&
             zp__bitmap_get(&a->b_density, j) == zp__bitmap_get(&b->b_density, j);
    return ok && zp_g1_affine_eq(&a->vk.alpha1, &b->vk.alpha1) &&
           zp_g1_affine_eq(&a->vk.beta1, &b->vk.beta1) &&
           zp_g1_affine_eq(&a->vk.delta1, &b->vk.delta1) &&
           zp_g2_affine_eq(&a->vk.beta2, &b->vk.beta2) &&
           zp_g2_affine_eq(&a->vk.gamma2, &b->vk.gamma2) &&
           zp_g2_affine_eq(&a->vk.delta2, &b->vk.delta2);
}

static void test_zkey_round_trip(void)
{
    g16_fix f;
    CHECK(fix_make(&f, "porep:8", ZP_H_COSET, 9) == 0);
    char path[64];
    snprintf(path, sizeof path, "/tmp/zp_test_setup_%d.zkey", (int)getpid());
    zp__ioerr why = {""};
    CHECK_EQ_INT(zp__zkey_save(path, &f.pk, &why), ZP_OK);
    zp__pk back;
    CHECK_EQ_INT(zp__zkey_load(&back, path, &why), ZP_OK);
    unlink(path);
    CHECK(same_pk(&f.pk, &back));
    zp__proof p;
    CHECK_EQ_INT(zp__prove(&p, &back, f.w, f.pk.n_vars, NULL, NULL, &why), ZP_OK);
    CHECK_EQ_INT(zp__verify(&f.pk.vk, f.w + 1, f.pk.n_public, &p), ZP_OK);
    zp__pk_free(&back);
    fix_free(&f);
    /* A .zkey cannot hold the bellperson convention. */
    CHECK(fix_make(&f, "chain:4", ZP_H_TAU, 9) == 0);
    CHECK_EQ_INT(zp__zkey_save(path, &f.pk, &why), ZP_E_UNSUPPORTED);
    CHECK(access(path, F_OK) != 0);
    fix_free(&f);
}

int main(void)
{
    RUN(test_fixed_base_vs_ref);
    RUN(test_lagrange);
    RUN(test_h_coset_identity);
    RUN(test_fixed_toxic_key);
    RUN(test_key_shape);
    RUN(test_setup_refusals);
    RUN(test_zkey_round_trip);
    return FINISH();
}
