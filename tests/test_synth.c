/*
 * Synthetic circuits: spec parsing, counts, structure, satisfaction by
 * generated witnesses and its loss after corrupting one value, the PoRep
 * statistics of docs/architecture.md, Synthetic circuits at LOG2 = 12..16, and determinism across
 * thread counts. Sizes stay <= 2^16 so the program runs in seconds.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "r1cs/synth.h"

static zp__synth_spec spec_of(const char *text)
{
    zp__synth_spec s;
    memset(&s, 0, sizeof s);
    CHECK_EQ_INT(zp__synth_parse(&s, text), ZP_OK);
    return s;
}

static void test_parse(void)
{
    zp__synth_spec s;
    CHECK_EQ_INT(zp__synth_parse(&s, "synth:porep:27"), ZP_OK);
    CHECK(s.kind == ZP__SYNTH_POREP && s.log2 == 27 && s.keep_c && s.threads == 0);
    CHECK_EQ_INT(zp__synth_parse(&s, "dense:12"), ZP_OK);
    CHECK(s.kind == ZP__SYNTH_DENSE && s.log2 == 12);
    CHECK_EQ_INT(zp__synth_parse(&s, "synth:chain:2"), ZP_OK);
    CHECK(s.kind == ZP__SYNTH_CHAIN && s.log2 == 2);
    CHECK_EQ_INT(zp__synth_parse(&s, "synth:porep:8"), ZP_OK);
    CHECK_EQ_INT(zp__synth_parse(&s, "synth:dense:28"), ZP_OK);
    static const char *bad[] = {
        "", "synth:", "synth:porep", "synth:porep:", "porep", "synth:porep:7",
        "synth:porep:29", "synth:dense:1", "synth:chain:29", "synth:foo:12",
        "synth:PoRep:12", "synth:porep:12x", "synth:porep:-1", "synth:porep:+12",
        "synth:porep:123", "synth:porep: 12", " synth:porep:12", "synth:porep:12 ",
        "synth:porep:99999999999999999999", "synth:synth:porep:12", "synth:porep:1:2",
        "synth::12", ":12", "synth:porepx:12",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zp_err e = zp__synth_parse(&s, bad[i]);
        if (e != ZP_E_INVALID_ARG)
            fprintf(stderr, "accepted bad spec \"%s\"\n", bad[i]);
        CHECK_EQ_INT(e, ZP_E_INVALID_ARG);
    }
    CHECK_EQ_INT(zp__synth_parse(&s, NULL), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__synth_parse(NULL, "synth:porep:12"), ZP_E_INVALID_ARG);
    /* A spec built by hand is validated too. */
    zp__synth_shape sh;
    zp__synth_spec hand = {.kind = ZP__SYNTH_POREP, .log2 = 7};
    CHECK_EQ_INT(zp__synth_shape_of(&sh, &hand), ZP_E_INVALID_ARG);
    hand.kind = (zp__synth_kind)9;
    hand.log2 = 12;
    CHECK_EQ_INT(zp__synth_shape_of(&sh, &hand), ZP_E_INVALID_ARG);
    zp__r1cs cs;
    CHECK_EQ_INT(zp__synth_circuit(&cs, &hand), ZP_E_INVALID_ARG);
}

/* Counts for every size (no circuit is built): the domain bound holds and
 * porep:27 is the PoRep partition of docs/architecture.md, Synthetic circuits. */
static void test_shapes(void)
{
    static const struct { zp__synth_kind k; unsigned lo, hi; } ranges[] = {
        {ZP__SYNTH_POREP, 8, 28}, {ZP__SYNTH_DENSE, 2, 28}, {ZP__SYNTH_CHAIN, 2, 28}};
    for (size_t r = 0; r < 3; r++) {
        for (unsigned l = ranges[r].lo; l <= ranges[r].hi; l++) {
            zp__synth_spec s = {.kind = ranges[r].k, .log2 = l};
            zp__synth_shape sh;
            CHECK_EQ_INT(zp__synth_shape_of(&sh, &s), ZP_OK);
            CHECK(sh.n_constraints + sh.n_public + 1 <= (uint64_t)1 << l);
            CHECK(sh.n_public >= 1 && sh.n_public <= 328);
            CHECK(sh.n_vars > sh.n_public + 1);
            CHECK_EQ_INT(sh.nnz_b >= sh.n_constraints, 1);
        }
    }
    zp__synth_spec s = spec_of("synth:porep:27");
    zp__synth_shape sh;
    CHECK_EQ_INT(zp__synth_shape_of(&sh, &s), ZP_OK);
    CHECK_EQ_INT(sh.n_constraints, 130278869);
    CHECK_EQ_INT(sh.n_public, 328);
    CHECK_EQ_INT(sh.n_vars - 1 - sh.n_public, 130169893);
    CHECK(sh.nnz_a > 306000000 && sh.nnz_a < 312000000);
    CHECK(sh.nnz_b > 129000000 && sh.nnz_b < 131500000);
    CHECK(sh.nnz_c > 280000000 && sh.nnz_c < 286000000);
    /* Smaller sizes: round(130278869 * 2^(LOG2 - 27)) constraints. */
    s = spec_of("synth:porep:16");
    CHECK_EQ_INT(zp__synth_shape_of(&sh, &s), ZP_OK);
    CHECK_EQ_INT(sh.n_constraints, 63613); /* 63612.73 */
    s = spec_of("synth:porep:12");
    CHECK_EQ_INT(zp__synth_shape_of(&sh, &s), ZP_OK);
    CHECK_EQ_INT(sh.n_constraints, 3976); /* 3975.79 */
    s = spec_of("synth:dense:10");
    CHECK_EQ_INT(zp__synth_shape_of(&sh, &s), ZP_OK);
    CHECK_EQ_INT(sh.n_constraints + sh.n_public + 1, 1024);
}

/* Rows are well formed: offsets ascend, columns ascend strictly within a
 * row and stay below n_vars; the counts are those of the shape. */
static int csr_well_formed(const zp__csr *m, uint64_t nrows, uint64_t nnz, uint32_t n_vars)
{
    if (m->nrows != nrows || m->nnz != nnz || m->row_ptr[0] != 0 || m->row_ptr[nrows] != nnz)
        return 0;
    for (uint64_t i = 0; i < nrows; i++) {
        if (m->row_ptr[i] > m->row_ptr[i + 1])
            return 0;
        for (uint64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) {
            if (m->col[k] >= n_vars || (k > m->row_ptr[i] && m->col[k] <= m->col[k - 1]))
                return 0;
            if (zp_fr_is_zero(&m->val[k]))
                return 0;
        }
    }
    return 1;
}

static void build(zp__r1cs *cs, zp_fr **w, const char *text, uint64_t seed)
{
    zp__synth_spec s = spec_of(text);
    CHECK_EQ_INT(zp__synth_circuit(cs, &s), ZP_OK);
    *w = malloc((size_t)cs->n_vars * sizeof **w);
    CHECK_EQ_INT(zp__synth_witness(*w, cs, &s, seed), ZP_OK);
}

static const char *circuits[] = {
    "synth:porep:8", "synth:porep:11", "synth:porep:14", "synth:porep:16",
    "synth:dense:2", "synth:dense:3", "synth:dense:11", "synth:dense:16",
    "synth:chain:2", "synth:chain:12", "synth:chain:16",
};

static void test_structure(void)
{
    for (size_t i = 0; i < sizeof circuits / sizeof circuits[0]; i++) {
        zp__synth_spec s = spec_of(circuits[i]);
        zp__synth_shape sh;
        zp__r1cs cs;
        CHECK_EQ_INT(zp__synth_shape_of(&sh, &s), ZP_OK);
        CHECK_EQ_INT(zp__synth_circuit(&cs, &s), ZP_OK);
        CHECK_EQ_INT(cs.n_vars, sh.n_vars);
        CHECK_EQ_INT(cs.n_public, sh.n_public);
        CHECK_EQ_INT(cs.n_constraints, sh.n_constraints);
        CHECK(csr_well_formed(&cs.a, sh.n_constraints, sh.nnz_a, sh.n_vars));
        CHECK(csr_well_formed(&cs.b, sh.n_constraints, sh.nnz_b, sh.n_vars));
        CHECK(csr_well_formed(&cs.c, sh.n_constraints, sh.nnz_c, sh.n_vars));
        /* Every public input is constrained: it occurs in some row. */
        zp__bitmap da, db, dc;
        CHECK_EQ_INT(zp__csr_column_density(&da, &cs.a, cs.n_vars, 1), ZP_OK);
        CHECK_EQ_INT(zp__csr_column_density(&db, &cs.b, cs.n_vars, 1), ZP_OK);
        CHECK_EQ_INT(zp__csr_column_density(&dc, &cs.c, cs.n_vars, 1), ZP_OK);
        int all_used = 1;
        for (uint32_t v = 1; v < cs.n_vars; v++)
            all_used &= zp__bitmap_get(&da, v) | zp__bitmap_get(&db, v) | zp__bitmap_get(&dc, v);
        CHECK(all_used);
        zp__bitmap_free(&da);
        zp__bitmap_free(&db);
        zp__bitmap_free(&dc);
        zp__r1cs_free(&cs);
    }
}

static int row_has(const zp__csr *m, uint64_t row, uint32_t v)
{
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++)
        if (m->col[k] == v)
            return 1;
    return 0;
}

/* Adds 2 to w[v] (a bit becomes 2 or 3, so even an unused bit breaks its
 * booleanity row), checks that satisfaction is lost at a row that holds v,
 * and restores w[v]. */
static int corrupt_breaks(const zp__r1cs *cs, zp_fr *w, uint32_t v)
{
    zp_fr saved = w[v], two;
    zp_fr_from_u64(&two, 2);
    zp_fr_add(&w[v], &w[v], &two);
    uint64_t bad = 0, bad_mt = 0;
    int broken = !zp__r1cs_is_satisfied(cs, w, &bad);
    /* The threaded check finds the same first row (small chunks here, so
     * the failure is rarely in the first one). */
    int broken_mt = !zp__r1cs_is_satisfied_mt(cs, w, &bad_mt, 1 + (int)(v % 3));
    w[v] = saved;
    if (broken != broken_mt || bad != bad_mt) {
        fprintf(stderr, "variable %u: serial row %lu, threaded row %lu\n", v,
                (unsigned long)bad, (unsigned long)bad_mt);
        return 0;
    }
    if (!broken) {
        fprintf(stderr, "variable %u corrupted, still satisfied\n", v);
        return 0;
    }
    return bad < cs->a.nrows &&
           (row_has(&cs->a, bad, v) || row_has(&cs->b, bad, v) || row_has(&cs->c, bad, v));
}

static void test_satisfied(void)
{
    for (size_t i = 0; i < sizeof circuits / sizeof circuits[0]; i++) {
        zp__synth_spec s = spec_of(circuits[i]);
        zp__r1cs cs;
        CHECK_EQ_INT(zp__synth_circuit(&cs, &s), ZP_OK);
        zp_fr *w = malloc((size_t)cs.n_vars * sizeof *w);
        zp_fr *w2 = malloc((size_t)cs.n_vars * sizeof *w);
        for (uint64_t seed = 1; seed <= 3; seed++) {
            uint64_t bad = 0;
            CHECK_EQ_INT(zp__synth_witness(w, &cs, &s, seed), ZP_OK);
            CHECK(zp_fr_is_one(&w[0]));
            CHECK(zp__r1cs_is_satisfied(&cs, w, &bad));
            CHECK(zp__r1cs_is_satisfied_mt(&cs, w, NULL, 2));
            if (bad != UINT64_MAX)
                fprintf(stderr, "%s seed %lu: row %lu fails\n", circuits[i],
                        (unsigned long)seed, (unsigned long)bad);
            /* Another seed, another witness: the public inputs differ. */
            CHECK_EQ_INT(zp__synth_witness(w2, &cs, &s, seed + 100), ZP_OK);
            CHECK(memcmp(&w[1], &w2[1], cs.n_public * sizeof *w) != 0);
            CHECK(memcmp(w, w2, (size_t)cs.n_vars * sizeof *w) != 0);
        }
        free(w2);
        free(w);
        zp__r1cs_free(&cs);
    }
}

/* At small sizes every single variable matters; at larger ones a sample
 * with the first public input, the first aux (a bit for porep) and the
 * last variable. */
static void test_corruption(void)
{
    static const char *all_vars[] = {"synth:porep:8", "synth:dense:5", "synth:chain:6"};
    for (size_t i = 0; i < 3; i++) {
        zp__r1cs cs;
        zp_fr *w;
        build(&cs, &w, all_vars[i], 7);
        int ok = 1;
        for (uint32_t v = 1; v < cs.n_vars; v++)
            ok &= corrupt_breaks(&cs, w, v);
        CHECK(ok);
        CHECK(zp__r1cs_is_satisfied(&cs, w, NULL)); /* restored */
        free(w);
        zp__r1cs_free(&cs);
    }
    static const char *sampled[] = {"synth:porep:15", "synth:dense:15", "synth:chain:15"};
    for (size_t i = 0; i < 3; i++) {
        zp__r1cs cs;
        zp_fr *w;
        build(&cs, &w, sampled[i], 8);
        CHECK(corrupt_breaks(&cs, w, 1));
        CHECK(corrupt_breaks(&cs, w, cs.n_public));
        CHECK(corrupt_breaks(&cs, w, cs.n_public + 1));
        CHECK(corrupt_breaks(&cs, w, cs.n_vars - 1));
        for (int t = 0; t < 20; t++)
            CHECK(corrupt_breaks(&cs, w, 1 + (uint32_t)(check_rand64() % (cs.n_vars - 1))));
        free(w);
        zp__r1cs_free(&cs);
    }
    /* Flipping a 0/1 value to the other bit keeps booleanity but breaks
     * the XOR that uses it: the first aux of porep starts chain 0. */
    zp__r1cs cs;
    zp_fr *w;
    build(&cs, &w, "synth:porep:12", 9);
    uint32_t v = cs.n_public + 1;
    CHECK(zp_fr_is_zero(&w[v]) || zp_fr_is_one(&w[v]));
    if (zp_fr_is_zero(&w[v]))
        zp_fr_one(&w[v]);
    else
        zp_fr_zero(&w[v]);
    CHECK(!zp__r1cs_is_satisfied(&cs, w, NULL));
    free(w);
    zp__r1cs_free(&cs);
}

/* The threaded check reports the first failing row even when later chunks
 * fail too (chunks are 2^14 rows; chain:16 has four of them). */
static void test_satisfied_mt(void)
{
    zp__r1cs cs;
    zp_fr *w;
    build(&cs, &w, "synth:chain:16", 4);
    static const uint32_t vars[][2] = {{50000, 0}, {20000, 50000}, {100, 60000}, {3, 40000}};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        zp_fr saved[2], one;
        zp_fr_one(&one);
        for (int j = 0; j < 2 && vars[i][j]; j++) {
            saved[j] = w[vars[i][j]];
            zp_fr_add(&w[vars[i][j]], &w[vars[i][j]], &one);
        }
        uint64_t bad = 0;
        CHECK(!zp__r1cs_is_satisfied(&cs, w, &bad));
        for (int t = 1; t <= 3; t++) {
            uint64_t bad_mt = 0;
            CHECK(!zp__r1cs_is_satisfied_mt(&cs, w, &bad_mt, t));
            CHECK_EQ_INT(bad_mt, bad);
        }
        for (int j = 1; j >= 0; j--)
            if (vars[i][j])
                w[vars[i][j]] = saved[j];
    }
    CHECK(zp__r1cs_is_satisfied_mt(&cs, w, NULL, 3));
    free(w);
    zp__r1cs_free(&cs);
}

typedef struct stats {
    double a_row, b_row, c_row, a_dens, b_dens, zero_one, aux_row;
} stats;

static void measure(stats *st, const zp__r1cs *cs, const zp_fr *w)
{
    zp__bitmap da, db;
    CHECK_EQ_INT(zp__csr_column_density(&da, &cs->a, cs->n_vars, 1), ZP_OK);
    CHECK_EQ_INT(zp__csr_column_density(&db, &cs->b, cs->n_vars, 1), ZP_OK);
    uint64_t na = 0, nb = 0, n01 = 0, aux = cs->n_vars - 1 - cs->n_public;
    for (uint32_t v = cs->n_public + 1; v < cs->n_vars; v++) {
        na += (uint64_t)zp__bitmap_get(&da, v);
        nb += (uint64_t)zp__bitmap_get(&db, v);
        n01 += zp_fr_is_zero(&w[v]) || zp_fr_is_one(&w[v]);
    }
    double m = (double)cs->n_constraints;
    st->a_row = (double)cs->a.nnz / m;
    st->b_row = (double)cs->b.nnz / m;
    st->c_row = (double)cs->c.nnz / m;
    st->a_dens = (double)na / (double)aux;
    st->b_dens = (double)nb / (double)aux;
    st->zero_one = (double)n01 / (double)aux;
    st->aux_row = (double)aux / m;
    zp__bitmap_free(&da);
    zp__bitmap_free(&db);
}

static int near(double got, double want, double rel)
{
    int ok = got >= want * (1 - rel) && got <= want * (1 + rel);
    if (!ok)
        fprintf(stderr, "  %.5f is not within %.1f %% of %.5f\n", got, rel * 100, want);
    return ok;
}

/* docs/architecture.md, Synthetic circuits at 2^27: nnz A/B/C ~ 309 M / 130 M / 283 M over 130,278,869
 * rows, aux 99.7 % in A and 25.4 % in B, ~90 % of aux values 0 or 1. At
 * 2^12 the dense tail has fewer than 42 words to mix, so A is ~2.5 % light. */
static void test_porep_statistics(void)
{
    const double m27 = 130278869.0;
    for (unsigned l = 12; l <= 16; l++) {
        char text[32];
        snprintf(text, sizeof text, "synth:porep:%u", l);
        zp__r1cs cs;
        zp_fr *w;
        build(&cs, &w, text, 11 + l);
        stats st;
        measure(&st, &cs, w);
        printf("  porep:%u  A %.4f B %.4f C %.4f per row, aux in A %.4f in B %.4f, 0/1 %.4f\n",
               l, st.a_row, st.b_row, st.c_row, st.a_dens, st.b_dens, st.zero_one);
        CHECK(near(st.a_row, 309e6 / m27, l == 12 ? 0.035 : 0.01));
        CHECK(near(st.b_row, 130e6 / m27, 0.01));
        CHECK(near(st.c_row, 283e6 / m27, 0.01));
        CHECK(near(st.a_dens, 0.997, 0.002));
        CHECK(near(st.b_dens, 0.254, 0.02));
        CHECK(near(st.zero_one, 0.90, 0.02));
        CHECK(near(st.aux_row, 130169893.0 / m27, 0.005));
        free(w);
        zp__r1cs_free(&cs);
    }
}

/* dense has no 0/1 bias and (almost) every aux variable in A and in B. */
static void test_dense_statistics(void)
{
    zp__r1cs cs;
    zp_fr *w;
    build(&cs, &w, "synth:dense:14", 5);
    stats st;
    measure(&st, &cs, w);
    CHECK(st.zero_one < 0.001);
    CHECK(st.a_dens > 0.99 && st.b_dens > 0.99);
    free(w);
    zp__r1cs_free(&cs);
}

static int same_csr(const zp__csr *x, const zp__csr *y)
{
    return x->nrows == y->nrows && x->nnz == y->nnz &&
           !memcmp(x->row_ptr, y->row_ptr, (x->nrows + 1) * sizeof *x->row_ptr) &&
           !memcmp(x->col, y->col, x->nnz * sizeof *x->col) &&
           !memcmp(x->val, y->val, x->nnz * sizeof *x->val);
}

/* The circuit depends on the spec only (not on threads), so a key made
 * for it fits a later rebuild; witnesses depend on the seed only. C may be
 * left out, and the witness does not need it. */
static void test_determinism(void)
{
    static const char *texts[] = {"synth:porep:13", "synth:dense:12", "synth:chain:10"};
    for (size_t i = 0; i < 3; i++) {
        zp__synth_spec s1 = spec_of(texts[i]), s3 = s1;
        s1.threads = 1;
        s3.threads = 3;
        s3.keep_c = false;
        zp__r1cs c1, c3;
        CHECK_EQ_INT(zp__synth_circuit(&c1, &s1), ZP_OK);
        CHECK_EQ_INT(zp__synth_circuit(&c3, &s3), ZP_OK);
        CHECK(same_csr(&c1.a, &c3.a));
        CHECK(same_csr(&c1.b, &c3.b));
        CHECK(c3.c.nrows == 0 && c3.c.row_ptr == NULL);
        zp_fr *w1 = malloc((size_t)c1.n_vars * sizeof *w1);
        zp_fr *w3 = malloc((size_t)c1.n_vars * sizeof *w3);
        CHECK_EQ_INT(zp__synth_witness(w1, &c1, &s1, 77), ZP_OK);
        CHECK_EQ_INT(zp__synth_witness(w3, &c3, &s3, 77), ZP_OK);
        CHECK(!memcmp(w1, w3, (size_t)c1.n_vars * sizeof *w1));
        CHECK(!zp__r1cs_is_satisfied(&c3, w3, NULL)); /* no C: cannot say yes */
        free(w1);
        free(w3);
        zp__r1cs_free(&c1);
        zp__r1cs_free(&c3);
    }
}

/* A witness for another spec's circuit is refused, not computed. */
static void test_witness_mismatch(void)
{
    zp__synth_spec s12 = spec_of("synth:porep:12"), s13 = spec_of("synth:porep:13");
    zp__synth_spec d12 = spec_of("synth:dense:12");
    zp__r1cs cs;
    CHECK_EQ_INT(zp__synth_circuit(&cs, &s12), ZP_OK);
    zp_fr *w = malloc((size_t)cs.n_vars * 4 * sizeof *w);
    CHECK_EQ_INT(zp__synth_witness(w, &cs, &s13, 1), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__synth_witness(w, &cs, &d12, 1), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__synth_witness(w, &cs, &s12, 1), ZP_OK);
    free(w);
    zp__r1cs_free(&cs);
}

/* zp__csr_mul_vec on a real circuit against a dense matrix product. */
static void test_mul_vec_circuit(void)
{
    zp__r1cs cs;
    zp_fr *w;
    build(&cs, &w, "synth:porep:8", 3);
    uint64_t n = cs.n_constraints, nv = cs.n_vars;
    const zp__csr *mats[3] = {&cs.a, &cs.b, &cs.c};
    zp_fr *dense = malloc(n * nv * sizeof *dense), *out = malloc(n * sizeof *out);
    zp_fr *ab = malloc(2 * n * sizeof *ab);
    for (int mi = 0; mi < 3; mi++) {
        const zp__csr *m = mats[mi];
        memset(dense, 0, n * nv * sizeof *dense);
        for (uint64_t i = 0; i < n; i++)
            for (uint64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++)
                zp_fr_add(&dense[i * nv + m->col[k]], &dense[i * nv + m->col[k]], &m->val[k]);
        zp__csr_mul_vec(out, m, w);
        int same = 1;
        for (uint64_t i = 0; i < n; i++) {
            zp_fr acc, t;
            zp_fr_zero(&acc);
            for (uint64_t j = 0; j < nv; j++) {
                zp_fr_mul(&t, &dense[i * nv + j], &w[j]);
                zp_fr_add(&acc, &acc, &t);
            }
            same &= zp_fr_eq(&acc, &out[i]);
        }
        CHECK(same);
        if (mi < 2)
            memcpy(&ab[mi * n], out, n * sizeof *out);
    }
    /* And the products a * b are c, row by row. */
    int prod = 1;
    for (uint64_t i = 0; i < n; i++) {
        zp_fr t;
        zp_fr_mul(&t, &ab[i], &ab[n + i]);
        prod &= zp_fr_eq(&t, &out[i]);
    }
    CHECK(prod);
    free(dense);
    free(out);
    free(ab);
    free(w);
    zp__r1cs_free(&cs);
}

int main(void)
{
    RUN(test_parse);
    RUN(test_shapes);
    RUN(test_structure);
    RUN(test_satisfied);
    RUN(test_corruption);
    RUN(test_satisfied_mt);
    RUN(test_porep_statistics);
    RUN(test_dense_statistics);
    RUN(test_determinism);
    RUN(test_witness_mismatch);
    RUN(test_mul_vec_circuit);
    return FINISH();
}
