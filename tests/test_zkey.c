/*
 * .zkey reader and writer: the snarkjs fixture in data/ (mul3, domain 8),
 * its cross-checks against the .r1cs and verification_key.json it came
 * with, a byte-exact round trip, and hostile variants (cuts, counts,
 * primes, sections, coefficients, points off the curve or the subgroup).
 */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "cpu/msm_ifma.h"
#include "io/io.h"
#include "test_io_util.h"

#define G1B 96
#define G2B 192
/* Offsets in the body of section 2 (header). */
#define H_NVARS 88
#define H_NPUB 92
#define H_DOMAIN 96
#define H_ALPHA1 100
#define H_GAMMA2 484

static uint8_t *zkey_bytes;
static size_t zkey_len;

static void test_fixture(void)
{
    zp__pk pk;
    zp__ioerr why = {{0}};
    zp_err e = zp__zkey_load(&pk, "data/mul3.zkey", &why);
    CHECK_EQ_INT(e, ZP_OK);
    if (e) {
        fprintf(stderr, "%s\n", why.msg);
        return;
    }
    CHECK_EQ_INT(pk.h_conv, ZP_H_COSET);
    CHECK_EQ_INT(pk.roots, ZP_ROOTS_SNARKJS);
    CHECK_EQ_INT(pk.n_vars, 7);
    CHECK_EQ_INT(pk.n_public, 2);
    CHECK_EQ_INT(pk.domain_size, 8);
    CHECK_EQ_INT(pk.n_h, 8);
    CHECK_EQ_INT(pk.n_l, 4);
    CHECK_EQ_INT(pk.vk.n_ic, 3);
    CHECK_EQ_INT(pk.n_a, zp__bitmap_count(&pk.a_density));
    CHECK_EQ_INT(pk.n_b, zp__bitmap_count(&pk.b_density));
    /* Variables in B: b (3) and c (4); in A: ONE and the public signals
     * out (1), a (2) through the extra rows, then t1 (5), t2 (6). */
    CHECK_EQ_INT(pk.n_b, 2);
    CHECK_EQ_INT(pk.n_a, 5);
    CHECK(zp__bitmap_get(&pk.b_density, 3) && zp__bitmap_get(&pk.b_density, 4));
    CHECK(!zp__bitmap_get(&pk.a_density, 3) && !zp__bitmap_get(&pk.a_density, 4));

    /* The independent JSON export of the same key agrees. */
    zp__vk vk;
    CHECK_EQ_INT(zp__vk_json_load(&vk, "data/vk.json", NULL), ZP_OK);
    CHECK(zp_g1_affine_eq(&vk.alpha1, &pk.vk.alpha1));
    CHECK(zp_g2_affine_eq(&vk.beta2, &pk.vk.beta2));
    CHECK(zp_g2_affine_eq(&vk.gamma2, &pk.vk.gamma2));
    CHECK(zp_g2_affine_eq(&vk.delta2, &pk.vk.delta2));
    CHECK_EQ_INT(vk.n_ic, pk.vk.n_ic);
    for (uint32_t i = 0; i < vk.n_ic && i < pk.vk.n_ic; i++)
        CHECK(zp_g1_affine_eq(&vk.ic[i], &pk.vk.ic[i]));
    zp__vk_free(&vk);

    /* Density ("point is not infinity") equals the matrices' columns. */
    zp__bitmap da, db;
    CHECK_EQ_INT(zp__csr_column_density(&da, &pk.ma, pk.n_vars, 1), ZP_OK);
    CHECK_EQ_INT(zp__csr_column_density(&db, &pk.mb, pk.n_vars, 1), ZP_OK);
    for (uint64_t i = 0; i < pk.n_vars; i++) {
        CHECK_EQ_INT(zp__bitmap_get(&da, i), zp__bitmap_get(&pk.a_density, i));
        CHECK_EQ_INT(zp__bitmap_get(&db, i), zp__bitmap_get(&pk.b_density, i));
    }
    zp__bitmap_free(&da);
    zp__bitmap_free(&db);
    zp__pk_free(&pk);
    CHECK(pk.a == NULL && pk.vk.ic == NULL);
}

static bool rows_equal(const zp__csr *x, uint64_t rx, const zp__csr *y, uint64_t ry)
{
    uint64_t n = x->row_ptr[rx + 1] - x->row_ptr[rx];
    if (n != y->row_ptr[ry + 1] - y->row_ptr[ry])
        return false;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t i = x->row_ptr[rx] + k, j = y->row_ptr[ry] + k;
        if (x->col[i] != y->col[j] || !zp_fr_eq(&x->val[i], &y->val[j]))
            return false;
    }
    return true;
}

/* Section 4 must give the .r1cs's A and B (coefficients as c·R mod r),
 * plus one A row per public variable: that checks the R² conversion. */
static void test_matrices(void)
{
    zp__pk pk;
    zp__r1cs cs;
    CHECK_EQ_INT(zp__zkey_parse(&pk, zkey_bytes, zkey_len, NULL), ZP_OK);
    CHECK_EQ_INT(zp__r1cs_load(&cs, "data/mul3.r1cs", NULL), ZP_OK);
    CHECK_EQ_INT(pk.ma.nrows, cs.n_constraints + pk.n_public + 1);
    CHECK_EQ_INT(pk.mb.nrows, pk.ma.nrows);
    for (uint64_t r = 0; r < cs.n_constraints; r++) {
        CHECK(rows_equal(&pk.ma, r, &cs.a, r));
        CHECK(rows_equal(&pk.mb, r, &cs.b, r));
    }
    zp_fr one;
    zp_fr_one(&one);
    for (uint32_t s = 0; s <= pk.n_public; s++) {
        uint64_t r = cs.n_constraints + s;
        CHECK_EQ_INT(pk.ma.row_ptr[r + 1] - pk.ma.row_ptr[r], 1);
        CHECK_EQ_INT(pk.ma.col[pk.ma.row_ptr[r]], s);
        CHECK(zp_fr_eq(&pk.ma.val[pk.ma.row_ptr[r]], &one));
        CHECK_EQ_INT(pk.mb.row_ptr[r + 1] - pk.mb.row_ptr[r], 0);
    }
    /* A·w ∘ B·w over the constraint rows equals the r1cs's C·w. */
    zp_fr w[7], a[6], b[6], c[3];
    const uint64_t wv[7] = {1, 832, 3, 5, 11, 15, 165};
    for (int i = 0; i < 7; i++)
        zp_fr_from_u64(&w[i], wv[i]);
    zp__csr_mul_vec(a, &pk.ma, w);
    zp__csr_mul_vec(b, &pk.mb, w);
    zp__csr_mul_vec(c, &cs.c, w);
    for (int r = 0; r < 3; r++) {
        zp_fr t;
        zp_fr_mul(&t, &a[r], &b[r]);
        CHECK(zp_fr_eq(&t, &c[r]));
    }
    zp__r1cs_free(&cs);
    zp__pk_free(&pk);
}

static bool g1s_equal(const zp_g1_affine *x, const zp_g1_affine *y, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (!zp_g1_affine_eq(&x[i], &y[i]))
            return false;
    return true;
}

/* Writing the parsed key reproduces snarkjs's sections 1-9 exactly. */
static void test_roundtrip(void)
{
    zp__pk pk, back;
    CHECK_EQ_INT(zp__zkey_parse(&pk, zkey_bytes, zkey_len, NULL), ZP_OK);
    char path[] = "/tmp/zp_test_zkey_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    CHECK_EQ_INT(zp__zkey_save(path, &pk, NULL), ZP_OK);
    size_t len;
    uint8_t *out = slurp(path, &len);
    tcont a, b;
    tcont_split(&a, zkey_bytes, zkey_len);
    tcont_split(&b, out, len);
    CHECK_EQ_INT(b.n, 10);
    CHECK_MEM(a.head, b.head, 8);
    for (uint32_t id = 1; id <= 9; id++) {
        tsec *x = tcont_get(&a, id), *y = tcont_get(&b, id);
        CHECK(x && y && x->size == y->size && memcmp(x->body, y->body, x->size) == 0);
        if (!(x && y && x->size == y->size && memcmp(x->body, y->body, x->size) == 0))
            fprintf(stderr, "section %u differs\n", id);
    }
    zp_err e = zp__zkey_load(&back, path, NULL);
    CHECK_EQ_INT(e, ZP_OK);
    if (e)
        memset(&back, 0, sizeof back);
    else
        CHECK(back.n_a == pk.n_a && g1s_equal(back.a, pk.a, pk.n_a));
    if (!e) {
        CHECK(back.n_b == pk.n_b && g1s_equal(back.b1, pk.b1, pk.n_b));
        CHECK(back.n_h == pk.n_h && g1s_equal(back.h, pk.h, pk.n_h));
        CHECK(back.n_l == pk.n_l && g1s_equal(back.l, pk.l, pk.n_l));
        CHECK(memcmp(back.b2, pk.b2, pk.n_b * sizeof *pk.b2) == 0);
        CHECK(back.ma.nnz == pk.ma.nnz &&
              memcmp(back.ma.val, pk.ma.val, pk.ma.nnz * 32) == 0);
        CHECK(back.mb.nnz == pk.mb.nnz &&
              memcmp(back.mb.val, pk.mb.val, pk.mb.nnz * 32) == 0);
    }
    tcont_free(&a);
    tcont_free(&b);
    free(out);
    unlink(path);

    /* A key of another H convention is not a .zkey. */
    pk.h_conv = ZP_H_TAU;
    CHECK_EQ_INT(zp__zkey_save(path, &pk, NULL), ZP_E_UNSUPPORTED);
    CHECK(access(path, F_OK) != 0);
    zp__pk_free(&pk);
    zp__pk_free(&back);
}

static void test_cuts(void)
{
    for (size_t cut = 0; cut < zkey_len; cut++) {
        zp__pk pk;
        zp_err e = zp__zkey_parse(&pk, zkey_bytes, cut, NULL);
        CHECK_EQ_INT(e, ZP_E_TRUNCATED);
        if (e != ZP_E_TRUNCATED)
            fprintf(stderr, "  at cut %zu\n", cut);
    }
}

static zp_err try_zkey(const tcont *c, zp__ioerr *why)
{
    size_t len;
    uint8_t *p = tcont_join(c, &len);
    zp__pk pk;
    zp_err e = zp__zkey_parse(&pk, p, len, why);
    if (e == ZP_OK)
        zp__pk_free(&pk);
    else
        CHECK(pk.a == NULL && pk.h == NULL && pk.vk.ic == NULL && pk.ma.val == NULL);
    free(p);
    return e;
}

static tcont base;

#define VARIANT(mutation, expect_err)                                           \
    do {                                                                        \
        tcont c;                                                                \
        zp__ioerr why_ = {{0}};                                                 \
        tcont_copy(&c, &base);                                                  \
        mutation;                                                               \
        zp_err got_ = try_zkey(&c, &why_);                                      \
        CHECK_EQ_INT(got_, expect_err);                                         \
        if (got_ != (expect_err))                                               \
            fprintf(stderr, "  variant: %s (%s)\n", #mutation, why_.msg);       \
        tcont_free(&c);                                                         \
    } while (0)
#define SEC(id) (tcont_get(&c, (id))->body)

static void test_bad_header(void)
{
    VARIANT((void)0, ZP_OK);
    VARIANT(c.head[2] = 'E', ZP_E_FORMAT);
    VARIANT(c.head[4] = 2, ZP_E_UNSUPPORTED);
    VARIANT(tput32(SEC(1), 2), ZP_E_UNSUPPORTED);         /* PLONK */
    VARIANT(tput32(SEC(1), 10), ZP_E_UNSUPPORTED);        /* FFLONK */
    VARIANT(tcont_get(&c, 1)->size = 2, ZP_E_FORMAT);
    VARIANT(SEC(2)[4] ^= 0x10, ZP_E_BAD_PRIME);           /* q */
    VARIANT(SEC(2)[60] ^= 0x10, ZP_E_BAD_PRIME);          /* r */
    VARIANT(tput32(SEC(2), 32), ZP_E_BAD_PRIME);          /* n8q of bn254 */
    VARIANT(tput32(SEC(2) + 52, 48), ZP_E_BAD_PRIME);     /* n8r */
    VARIANT(tcont_get(&c, 2)->size = 90, ZP_E_FORMAT);
    VARIANT(tcont_resize(&c, 2, 500), ZP_E_FORMAT);   /* points cut */
    /* Counts that disagree with the sections, or are absurd: rejected
     * before any allocation of their size. */
    VARIANT(tput32(SEC(2) + H_NVARS, 0xffffffff), ZP_E_FORMAT);
    VARIANT(tput32(SEC(2) + H_NVARS, 8), ZP_E_FORMAT);
    VARIANT(tput32(SEC(2) + H_NPUB, 3), ZP_E_FORMAT);
    VARIANT(tput32(SEC(2) + H_NPUB, 7), ZP_E_FORMAT);
    VARIANT(tput32(SEC(2) + H_NPUB, 0xffffffff), ZP_E_FORMAT);
    VARIANT(tput32(SEC(2) + H_DOMAIN, 0), ZP_E_FORMAT);
    VARIANT(tput32(SEC(2) + H_DOMAIN, 6), ZP_E_FORMAT);
    VARIANT(tput32(SEC(2) + H_DOMAIN, 16), ZP_E_FORMAT);
    VARIANT(tput32(SEC(2) + H_DOMAIN, 0x80000000), ZP_E_FORMAT);
    VARIANT(tput32(SEC(2) + H_DOMAIN, 2), ZP_E_FORMAT);   /* below nPublic + 1 */
}

static void test_bad_sections(void)
{
    VARIANT(tcont_get(&c, 10)->id = 9, ZP_E_FORMAT);      /* duplicate */
    VARIANT(tcont_get(&c, 8)->id = 11, ZP_E_FORMAT);      /* missing */
    VARIANT(tcont_get(&c, 4)->id = 11, ZP_E_FORMAT);
    VARIANT(tcont_get(&c, 3)->id = 11, ZP_E_FORMAT);
    VARIANT(tcont_get(&c, 10)->id = 11, ZP_OK);           /* 10 is not needed */
    VARIANT(tcont_get(&c, 9)->size -= G1B, ZP_E_FORMAT);  /* H short */
    VARIANT(tcont_get(&c, 9)->size -= 1, ZP_E_FORMAT);
    VARIANT(tcont_resize(&c, 3, tcont_get(&c, 3)->size + G1B), ZP_E_FORMAT);  /* IC long */
    VARIANT(tcont_get(&c, 7)->size -= G2B, ZP_E_FORMAT);
    VARIANT(tcont_get(&c, 8)->size = 0, ZP_E_FORMAT);
    /* coefficients: count against size, fields against bounds */
    VARIANT(tput32(SEC(4), 0xffffffff), ZP_E_FORMAT);
    VARIANT(tput32(SEC(4), 10), ZP_E_FORMAT);
    VARIANT(tput32(SEC(4), 8), ZP_E_FORMAT);
    VARIANT(tput32(SEC(4) + 4, 2), ZP_E_FORMAT);          /* matrix C */
    VARIANT(tput32(SEC(4) + 8, 8), ZP_E_FORMAT);          /* row = domain */
    VARIANT(tput32(SEC(4) + 8, 7), ZP_OK);
    VARIANT(tput32(SEC(4) + 12, 7), ZP_E_FORMAT);         /* signal = nVars */
    VARIANT(memcpy(SEC(4) + 16, ZP__R_LE, 32), ZP_E_NOT_CANONICAL);
}

static void test_bad_points(void)
{
    zp_g1_affine g1x;
    zp_g2_affine g2x;
    g1_non_subgroup(&g1x);
    g2_non_subgroup(&g2x);
    CHECK(zp_g1_affine_on_curve(&g1x) && !zp_g1_affine_in_subgroup(&g1x));
    CHECK(zp_g2_affine_on_curve(&g2x) && !zp_g2_affine_in_subgroup(&g2x));
    uint8_t p1[G1B], p2[G2B];
    fp_mont_bytes(p1, &g1x.x);
    fp_mont_bytes(p1 + 48, &g1x.y);
    fp_mont_bytes(p2, &g2x.x.c0);
    fp_mont_bytes(p2 + 48, &g2x.x.c1);
    fp_mont_bytes(p2 + 96, &g2x.y.c0);
    fp_mont_bytes(p2 + 144, &g2x.y.c1);

    VARIANT(memcpy(SEC(5), p1, G1B), ZP_E_NOT_IN_SUBGROUP);              /* A_0 */
    VARIANT(memcpy(SEC(5) + G1B, p1, G1B), ZP_E_NOT_IN_SUBGROUP);        /* A_1 */
    VARIANT(memcpy(SEC(9) + 3 * G1B, p1, G1B), ZP_E_NOT_IN_SUBGROUP);    /* H_3 */
    VARIANT(memcpy(SEC(8), p1, G1B), ZP_E_NOT_IN_SUBGROUP);              /* L_0 */
    VARIANT(memcpy(SEC(3), p1, G1B), ZP_E_NOT_IN_SUBGROUP);              /* IC_0 */
    VARIANT(memcpy(SEC(2) + H_ALPHA1, p1, G1B), ZP_E_NOT_IN_SUBGROUP);
    VARIANT(memcpy(SEC(7) + 3 * G2B, p2, G2B), ZP_E_NOT_IN_SUBGROUP);    /* B2_3 */
    VARIANT(memcpy(SEC(2) + H_GAMMA2, p2, G2B), ZP_E_NOT_IN_SUBGROUP);
    /* off the curve: one bit of y flipped */
    VARIANT(SEC(9)[48] ^= 1, ZP_E_NOT_ON_CURVE);
    VARIANT(SEC(6)[3 * G1B + 48] ^= 1, ZP_E_NOT_ON_CURVE);
    VARIANT(SEC(7)[3 * G2B + 150] ^= 1, ZP_E_NOT_ON_CURVE);
    VARIANT(SEC(2)[H_GAMMA2 + 100] ^= 1, ZP_E_NOT_ON_CURVE);
    /* a coordinate equal to q */
    VARIANT(memcpy(SEC(9) + 2 * G1B, ZP__Q_LE, 48), ZP_E_NOT_CANONICAL);
    VARIANT(memcpy(SEC(7) + 3 * G2B + 48, ZP__Q_LE, 48), ZP_E_NOT_CANONICAL);
    VARIANT(memset(SEC(9) + 2 * G1B + 47, 0xff, 1), ZP_E_NOT_CANONICAL);
    /* verifying key points cannot be infinity */
    VARIANT(memset(SEC(2) + H_ALPHA1, 0, G1B), ZP_E_INFINITY);
    VARIANT(memset(SEC(2) + H_GAMMA2, 0, G2B), ZP_E_INFINITY);
    /* B1 and B2 must agree on which variables have points */
    VARIANT(memset(SEC(7) + 3 * G2B, 0, G2B), ZP_E_FORMAT);
    VARIANT(memset(SEC(6) + 3 * G1B, 0, G1B), ZP_E_FORMAT);
    /* infinity in A, L or H is allowed (density / zero terms) */
    VARIANT(memset(SEC(9), 0, G1B), ZP_OK);
    VARIANT(memset(SEC(5) + 5 * G1B, 0, G1B), ZP_OK);
}

/* A synthetic key large enough that every point section spans several
 * decoding chunks (1024 points): compact A/B with density, L and H. */
#define BIG_VARS 1030
#define BIG_DOMAIN 2048

static void g1_multiples(zp_g1_affine *out, size_t n, uint64_t seed)
{
    zp_g1_affine g;
    zp_g1_jac acc, *j = malloc(n * sizeof *j);
    zp_g1_generator(&g);
    zp_g1_jac_from_affine(&acc, &g);
    zp_g1_jac_mul_vartime(&acc, &acc, &seed, 1);
    for (size_t i = 0; i < n; i++) {
        j[i] = acc;
        zp_g1_jac_add_affine(&acc, &acc, &g);
    }
    zp_g1_batch_to_affine(out, j, n);
    free(j);
}

static void make_big(zp__pk *big, const zp__pk *small)
{
    memset(big, 0, sizeof *big);
    big->h_conv = ZP_H_COSET;
    big->roots = ZP_ROOTS_SNARKJS;
    big->n_vars = BIG_VARS;
    big->n_public = small->n_public;
    big->domain_size = BIG_DOMAIN;
    big->vk = small->vk;
    big->vk.prep = NULL; /* small's own, like its ic */
    big->vk.ic = malloc(small->vk.n_ic * sizeof *big->vk.ic);
    memcpy(big->vk.ic, small->vk.ic, small->vk.n_ic * sizeof *big->vk.ic);
    zp__bitmap_alloc(&big->a_density, BIG_VARS);
    zp__bitmap_alloc(&big->b_density, BIG_VARS);
    for (uint64_t i = 0; i < BIG_VARS; i++) {
        if (i % 3 != 1)
            zp__bitmap_set(&big->a_density, i);
        if (i % 2 == 0)
            zp__bitmap_set(&big->b_density, i);
    }
    big->n_a = zp__bitmap_count(&big->a_density);
    big->n_b = zp__bitmap_count(&big->b_density);
    big->a = malloc(big->n_a * sizeof *big->a);
    big->b1 = malloc(big->n_b * sizeof *big->b1);
    big->b2 = malloc(big->n_b * sizeof *big->b2);
    big->n_l = BIG_VARS - big->n_public - 1;
    big->l = malloc(big->n_l * sizeof *big->l);
    big->n_h = BIG_DOMAIN;
    big->h = malloc(BIG_DOMAIN * sizeof *big->h);
    g1_multiples(big->a, big->n_a, 5);
    g1_multiples(big->b1, big->n_b, 7000);
    g1_multiples(big->l, big->n_l, 9000);
    g1_multiples(big->h, big->n_h, 20000);
    zp_g2_affine g;
    zp_g2_jac acc;
    zp_g2_generator(&g);
    zp_g2_jac_from_affine(&acc, &g);
    for (uint64_t i = 0; i < big->n_b; i++) {
        zp_g2_jac_to_affine(&big->b2[i], &acc);
        zp_g2_jac_add_affine(&acc, &acc, &g);
    }
    zp__csr_alloc(&big->ma, 0, 0);
    zp__csr_alloc(&big->mb, 0, 0);
}

static void test_big_parallel(void)
{
    zp__pk small, big, back;
    CHECK_EQ_INT(zp__zkey_parse(&small, zkey_bytes, zkey_len, NULL), ZP_OK);
    make_big(&big, &small);
    char path[] = "/tmp/zp_test_zkey_big_XXXXXX";
    close(mkstemp(path));
    CHECK_EQ_INT(zp__zkey_save(path, &big, NULL), ZP_OK);
    zp_err e = zp__zkey_load(&back, path, NULL);
    CHECK_EQ_INT(e, ZP_OK);
    if (e == ZP_OK) {
        CHECK(back.n_a == big.n_a && g1s_equal(back.a, big.a, big.n_a));
        CHECK(back.n_b == big.n_b && g1s_equal(back.b1, big.b1, big.n_b));
        CHECK(memcmp(back.b2, big.b2, big.n_b * sizeof *big.b2) == 0);
        CHECK(back.n_l == big.n_l && g1s_equal(back.l, big.l, big.n_l));
        CHECK(back.n_h == big.n_h && g1s_equal(back.h, big.h, big.n_h));
        zp__pk_free(&back);
    }
    /* Bad points in A (source indices 1029 and 5, in different chunks):
     * the lowest is reported, whichever thread finds which first. */
    size_t len;
    uint8_t *bytes = slurp(path, &len);
    tcont c;
    tcont_split(&c, bytes, len);
    tsec *a = tcont_get(&c, 5);
    zp__ioerr why = {{0}};
    a->body[1029 * G1B + 48] ^= 1;
    CHECK_EQ_INT(try_zkey(&c, &why), ZP_E_NOT_ON_CURVE);
    CHECK(strstr(why.msg, "A point 1029") != NULL);
    a->body[5 * G1B + 48] ^= 1;
    CHECK_EQ_INT(try_zkey(&c, &why), ZP_E_NOT_ON_CURVE);
    CHECK(strstr(why.msg, "A point 5:") != NULL);
    a->body[5 * G1B + 48] ^= 1;
    a->body[1029 * G1B + 48] ^= 1;
    /* Subgroup failures next to other failures inside one group of eight
     * (the IFMA path tests eight at a time; A's wanted indices 12, 14, 15,
     * 17, ... form its second group): the lower index still wins. */
    zp_g1_affine g1x;
    g1_non_subgroup(&g1x);
    uint8_t p1[G1B], keep[G1B];
    fp_mont_bytes(p1, &g1x.x);
    fp_mont_bytes(p1 + 48, &g1x.y);
    memcpy(keep, a->body + 12 * G1B, G1B);
    memcpy(a->body + 12 * G1B, p1, G1B);
    a->body[15 * G1B + 48] ^= 1; /* off the curve, after it */
    CHECK_EQ_INT(try_zkey(&c, &why), ZP_E_NOT_IN_SUBGROUP);
    CHECK(strstr(why.msg, "A point 12:") != NULL);
    memcpy(a->body + 12 * G1B, keep, G1B);
    uint8_t keep17[G1B];
    memcpy(keep17, a->body + 17 * G1B, G1B);
    memcpy(a->body + 17 * G1B, p1, G1B); /* outside, after the off-curve one */
    CHECK_EQ_INT(try_zkey(&c, &why), ZP_E_NOT_ON_CURVE);
    CHECK(strstr(why.msg, "A point 15:") != NULL);
    a->body[15 * G1B + 48] ^= 1;
    CHECK_EQ_INT(try_zkey(&c, &why), ZP_E_NOT_IN_SUBGROUP);
    CHECK(strstr(why.msg, "A point 17:") != NULL);
    memcpy(a->body + 17 * G1B, keep17, G1B);
    /* The same in G2 (B2's wanted indices 16, 18, 20, ... form its third
     * group of eight): an outside point at 18 before an off-curve one at 20. */
    zp_g2_affine g2x;
    g2_non_subgroup(&g2x);
    uint8_t p2[G2B], keep2[G2B];
    fp_mont_bytes(p2, &g2x.x.c0);
    fp_mont_bytes(p2 + 48, &g2x.x.c1);
    fp_mont_bytes(p2 + 96, &g2x.y.c0);
    fp_mont_bytes(p2 + 144, &g2x.y.c1);
    tsec *b2 = tcont_get(&c, 7);
    memcpy(keep2, b2->body + 18 * G2B, G2B);
    memcpy(b2->body + 18 * G2B, p2, G2B);
    b2->body[20 * G2B + 150] ^= 1;
    CHECK_EQ_INT(try_zkey(&c, &why), ZP_E_NOT_IN_SUBGROUP);
    CHECK(strstr(why.msg, "B2 point 18:") != NULL);
    memcpy(b2->body + 18 * G2B, keep2, G2B);
    CHECK_EQ_INT(try_zkey(&c, &why), ZP_E_NOT_ON_CURVE);
    CHECK(strstr(why.msg, "B2 point 20:") != NULL);
    tcont_free(&c);
    free(bytes);
    unlink(path);
    zp__pk_free(&big);
    zp__pk_free(&small);
}

int main(void)
{
    zkey_bytes = slurp("data/mul3.zkey", &zkey_len);
    tcont_split(&base, zkey_bytes, zkey_len);
    RUN(test_fixture);
    RUN(test_matrices);
    RUN(test_roundtrip);
    RUN(test_cuts);
    RUN(test_bad_header);
    RUN(test_bad_sections);
    RUN(test_bad_points);
    RUN(test_big_parallel);
    if (zp__msm_ifma) { /* the same with the one-by-one subgroup tests */
        zp__msm_ifma = false;
        RUN(test_big_parallel);
        zp__msm_ifma = true;
    }
    tcont_free(&base);
    free(zkey_bytes);
    return FINISH();
}
