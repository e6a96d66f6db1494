/*
 * A bellperson .params with its circuit attached (zp__pk_attach_circuit,
 * zp__params_load_circuit): the density maps and the matrices A and B of
 * synthetic circuits against a plain scan of the circuit, the same key
 * whether attached after reading or while reading, and each mismatch (other
 * counts, a variable dropped out of B, one A point too many, a domain too
 * small, a column past the variables) refused with its code and message.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/bellperson.h"
#include "test_bp_util.h"

static char dir[64];

/* The density of a matrix by a plain scan (the reference). */
static void dense_density(uint8_t *out, const zp__csr *m, uint32_t n_vars)
{
    memset(out, 0, n_vars);
    for (uint64_t r = 0; r < m->nrows; r++)
        for (uint64_t k = m->row_ptr[r]; k < m->row_ptr[r + 1]; k++)
            if (!zp_fr_is_zero(&m->val[k]))
                out[m->col[k]] = 1;
}

static uint64_t count_ones(const uint8_t *d, uint32_t n)
{
    uint64_t c = 0;
    for (uint32_t i = 0; i < n; i++)
        c += d[i];
    return c;
}

/* A .params for cs with random points and the counts the circuit implies,
 * written and read back. */
static void params_for(zp__pk *out, const zp__r1cs *cs, int64_t a_delta)
{
    uint8_t *da = malloc(cs->n_vars), *db = malloc(cs->n_vars);
    dense_density(da, &cs->a, cs->n_vars);
    dense_density(db, &cs->b, cs->n_vars);
    for (uint32_t i = 0; i <= cs->n_public; i++)
        da[i] = 1;
    uint64_t dom = 1;
    while (dom < cs->n_constraints + cs->n_public + 1)
        dom *= 2;
    zp__pk pk;
    rand_tau_pk(&pk, cs->n_public, cs->n_vars, dom,
                (uint64_t)((int64_t)count_ones(da, cs->n_vars) + a_delta),
                count_ones(db, cs->n_vars));
    char path[128];
    snprintf(path, sizeof path, "%s/c.params", dir);
    CHECK_EQ_INT(zp__params_save(path, &pk, 2, NULL), ZP_OK);
    CHECK_EQ_INT(zp__params_load(out, path, 2, NULL), ZP_OK);
    zp__pk_free(&pk);
    free(da);
    free(db);
}

static void check_attached(const zp__pk *pk, const zp__r1cs *cs)
{
    uint64_t rows = cs->n_constraints + cs->n_public + 1;
    CHECK_EQ_INT(pk->ma.nrows, rows);
    CHECK_EQ_INT(pk->mb.nrows, rows);
    CHECK_EQ_INT(pk->ma.nnz, cs->a.nnz + cs->n_public + 1);
    CHECK_EQ_INT(pk->mb.nnz, cs->b.nnz);
    CHECK_MEM(pk->ma.row_ptr, cs->a.row_ptr, (cs->n_constraints + 1) * 8);
    CHECK_MEM(pk->ma.col, cs->a.col, cs->a.nnz * 4);
    CHECK_MEM(pk->ma.val, cs->a.val, cs->a.nnz * sizeof(zp_fr));
    CHECK_MEM(pk->mb.col, cs->b.col, cs->b.nnz * 4);
    zp_fr one;
    zp_fr_one(&one);
    for (uint32_t i = 0; i <= cs->n_public; i++) {
        uint64_t r = cs->n_constraints + i;
        CHECK_EQ_INT(pk->ma.row_ptr[r + 1] - pk->ma.row_ptr[r], 1);
        CHECK_EQ_INT(pk->ma.col[pk->ma.row_ptr[r]], i);
        CHECK(zp_fr_eq(&pk->ma.val[pk->ma.row_ptr[r]], &one));
        CHECK_EQ_INT(pk->mb.row_ptr[r + 1], pk->mb.row_ptr[r]);
    }
    uint8_t *da = malloc(cs->n_vars), *db = malloc(cs->n_vars);
    dense_density(da, &pk->ma, cs->n_vars);
    dense_density(db, &cs->b, cs->n_vars);
    int same = 1;
    for (uint32_t i = 0; i < cs->n_vars; i++)
        same &= zp__bitmap_get(&pk->a_density, i) == da[i] &&
                zp__bitmap_get(&pk->b_density, i) == db[i];
    CHECK(same);
    for (uint32_t i = 0; i <= cs->n_public; i++)
        CHECK(zp__bitmap_get(&pk->a_density, i));
    free(da);
    free(db);
}

static void test_attach(void)
{
    const char *specs[] = {"synth:porep:8", "synth:chain:5", "synth:dense:4"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        zp__r1cs cs;
        synth_build(&cs, specs[s]);
        zp__pk pk;
        params_for(&pk, &cs, 0);
        zp__ioerr why = {{0}};
        zp_err e = zp__pk_attach_circuit(&pk, &cs, &why);
        CHECK_EQ_INT(e, ZP_OK);
        if (e)
            fprintf(stderr, "%s: %s\n", specs[s], why.msg);
        else
            check_attached(&pk, &cs);
        /* Attaching while reading gives the same key. */
        char path[128];
        snprintf(path, sizeof path, "%s/c.params", dir);
        zp__pk pk2;
        CHECK_EQ_INT(zp__params_load_circuit(&pk2, path, &cs, 2, NULL, NULL), ZP_OK);
        CHECK(pk_eq(&pk, &pk2));
        zp__pk_free(&pk2);
        /* Twice is a caller error. */
        CHECK_EQ_INT(zp__pk_attach_circuit(&pk, &cs, NULL), ZP_E_INVALID_ARG);
        zp__pk_free(&pk);
        zp__r1cs_free(&cs);
    }
}

static void test_attach_mismatch(void)
{
    zp__r1cs cs, other;
    synth_build(&cs, "synth:porep:8");
    synth_build(&other, "synth:chain:5");
    zp__pk pk;
    params_for(&pk, &cs, 0);
    zp__ioerr why = {{0}};
    /* Another circuit: its counts differ. */
    CHECK_EQ_INT(zp__pk_attach_circuit(&pk, &other, &why), ZP_E_FORMAT);
    CHECK(strstr(why.msg, "variables") != NULL);
    CHECK(pk.ma.row_ptr == NULL && pk.a_density.words == NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/c.params", dir);
    zp__pk pk2;
    CHECK_EQ_INT(zp__params_load_circuit(&pk2, path, &other, 2, NULL, &why), ZP_E_FORMAT);
    CHECK(strstr(why.msg, "variables") != NULL);
    CHECK(pk2.a == NULL && pk2.ma.row_ptr == NULL);
    /* The same counts, but one variable dropped out of B: popcounts. */
    uint32_t *uses = calloc(cs.n_vars, sizeof *uses);
    for (uint64_t j = 0; j < cs.b.nnz; j++)
        uses[cs.b.col[j]]++;
    uint64_t k = 0;
    while (k < cs.b.nnz && uses[cs.b.col[k]] != 1)
        k++;
    free(uses);
    CHECK(k < cs.b.nnz);
    if (k == cs.b.nnz)
        k = 0;
    zp_fr saved_v = cs.b.val[k];
    zp_fr_zero(&cs.b.val[k]);
    CHECK_EQ_INT(zp__pk_attach_circuit(&pk, &cs, &why), ZP_E_FORMAT);
    CHECK(strstr(why.msg, "in B") != NULL);
    cs.b.val[k] = saved_v;
    CHECK_EQ_INT(zp__pk_attach_circuit(&pk, &cs, NULL), ZP_OK);
    zp__pk_free(&pk);
    /* Parameters with one A point too many. */
    params_for(&pk, &cs, 1);
    CHECK_EQ_INT(zp__pk_attach_circuit(&pk, &cs, &why), ZP_E_FORMAT);
    CHECK(strstr(why.msg, "in A") != NULL);
    zp__pk_free(&pk);
    /* A domain too small for the rows. */
    params_for(&pk, &cs, 0);
    pk.domain_size /= 2;
    CHECK_EQ_INT(zp__pk_attach_circuit(&pk, &cs, &why), ZP_E_FORMAT);
    CHECK(strstr(why.msg, "domain") != NULL);
    pk.domain_size *= 2;
    /* A malformed circuit: a column past n_vars. */
    uint32_t c0 = cs.a.col[0];
    cs.a.col[0] = cs.n_vars;
    CHECK_EQ_INT(zp__pk_attach_circuit(&pk, &cs, NULL), ZP_E_INVALID_ARG);
    cs.a.col[0] = c0;
    zp__pk_free(&pk);
    zp__r1cs_free(&cs);
    zp__r1cs_free(&other);
}

int main(void)
{
    make_tmpdir(dir, "params_attach");
    RUN(test_attach);
    RUN(test_attach_mismatch);
    rm_tree(dir);
    return FINISH();
}
