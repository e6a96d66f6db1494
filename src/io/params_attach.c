/*
 * The part of a bellperson key that is not in its .params file: the
 * constraint matrices and the density maps, which follow from the circuit
 * (docs/formats.md, bellperson and Filecoin). bellperson's prover appends one row input_i · 0 = 0 per
 * input (ONE included) after the circuit's rows, so every input occurs in
 * A; its key generator then drops the A and B points at infinity, i.e. of
 * the variables that occur in no row of A (or B). The density maps are
 * therefore "columns with a nonzero entry", and their popcounts must equal
 * the point counts of the file: a cheap test that the circuit is the one
 * the parameters were made for.
 */
#include <stdlib.h>
#include <string.h>

#include "io/bellperson.h"

static zp_err check_matrix(const zp__csr *m, uint64_t rows, uint32_t n_vars, const char *name,
                           zp__ioerr *why)
{
    if (m->nrows != rows || !m->row_ptr || m->row_ptr[0] != 0 || m->row_ptr[rows] != m->nnz)
        return zp__fail(why, ZP_E_INVALID_ARG,
                        "circuit matrix %s has %llu rows for %llu constraints or bad offsets",
                        name, (unsigned long long)m->nrows, (unsigned long long)rows);
    for (uint64_t r = 0; r < rows; r++)
        if (m->row_ptr[r] > m->row_ptr[r + 1])
            return zp__fail(why, ZP_E_INVALID_ARG, "circuit matrix %s: row %llu ends before it starts",
                            name, (unsigned long long)r);
    for (uint64_t k = 0; k < m->nnz; k++)
        if (m->col[k] >= n_vars)
            return zp__fail(why, ZP_E_INVALID_ARG,
                            "circuit matrix %s: entry %llu names variable %u of %u", name,
                            (unsigned long long)k, m->col[k], n_vars);
    return ZP_OK;
}

static zp_err check_fit(const zp__pk *pk, const zp__r1cs *cs, zp__ioerr *why)
{
    if (pk->ma.row_ptr || pk->mb.row_ptr || pk->a_density.words || pk->b_density.words)
        return zp__fail(why, ZP_E_INVALID_ARG, "the key already has its matrices");
    if (cs->n_vars != pk->n_vars || cs->n_public != pk->n_public)
        return zp__fail(why, ZP_E_FORMAT,
                        "the circuit has %u variables and %u public inputs, the parameters "
                        "%u and %u: not the circuit of these parameters",
                        cs->n_vars, cs->n_public, pk->n_vars, pk->n_public);
    uint64_t rows = cs->n_constraints + cs->n_public + 1;
    if (rows > pk->domain_size)
        return zp__fail(why, ZP_E_FORMAT,
                        "the circuit has %llu constraints + %u input rows, more than the "
                        "parameters' domain of %llu",
                        (unsigned long long)cs->n_constraints, cs->n_public + 1,
                        (unsigned long long)pk->domain_size);
    zp_err e = check_matrix(&cs->a, cs->n_constraints, cs->n_vars, "A", why);
    return e ? e : check_matrix(&cs->b, cs->n_constraints, cs->n_vars, "B", why);
}

zp_err zp__pk_attach_circuit(zp__pk *pk, const zp__r1cs *cs, zp__ioerr *why)
{
    zp_err e = check_fit(pk, cs, why);
    if (e)
        return e;
    uint64_t extra = (uint64_t)cs->n_public + 1;
    zp__csr ma = {0}, mb = {0};
    zp__bitmap ad = {0}, bd = {0};
    if ((e = zp__csr_extend(&ma, &cs->a, extra, true, 0)) ||
        (e = zp__csr_extend(&mb, &cs->b, extra, false, 0)) ||
        (e = zp__csr_column_density(&ad, &ma, pk->n_vars, 0)) ||
        (e = zp__csr_column_density(&bd, &mb, pk->n_vars, 0))) {
        e = zp__fail(why, e, "cannot build the key's matrices: %s", zp_strerror(e));
        goto fail;
    }
    uint64_t na = zp__bitmap_count(&ad), nb = zp__bitmap_count(&bd);
    if (na != pk->n_a || nb != pk->n_b) {
        e = zp__fail(why, ZP_E_FORMAT,
                     "the circuit has %llu variables in A and %llu in B, the parameters "
                     "%llu A and %llu B points: not the circuit of these parameters",
                     (unsigned long long)na, (unsigned long long)nb,
                     (unsigned long long)pk->n_a, (unsigned long long)pk->n_b);
        goto fail;
    }
    pk->ma = ma;
    pk->mb = mb;
    pk->a_density = ad;
    pk->b_density = bd;
    return ZP_OK;
fail:
    zp__csr_free(&ma);
    zp__csr_free(&mb);
    zp__bitmap_free(&ad);
    zp__bitmap_free(&bd);
    return e;
}
