/*
 * Section 4 of a .zkey: u32 m ‖ m × (u32 matrix ‖ u32 row ‖ u32 signal ‖
 * 32-byte value), matrix 0 = A, 1 = B, in r1cs order (per constraint its A
 * terms then its B terms, then one A entry per public input).
 *
 * The stored value v is c·R² mod r with R = 2^256 (snarkjs keeps it so one
 * Montgomery multiply by a standard-form witness value lands in Montgomery
 * form). Our Montgomery form of c is c·R, which is v·R^-1: a Montgomery
 * multiply of v by 1, i.e. zp_fr_from_mont applied to v. Writing reverses
 * it: v = (c·R)·R²·R^-1 = zp_fr_to_mont applied to our c·R.
 */
#include <stdlib.h>
#include <string.h>

#include "io/zkey_impl.h"
#include "math/mont.h"

typedef struct coef {
    uint32_t matrix, row, signal;
    const uint8_t *value;
} coef;

static coef coef_at(const uint8_t *base, uint64_t i)
{
    const uint8_t *p = base + i * ZP__ZKEY_COEF;
    return (coef){zp__le32(p), zp__le32(p + 4), zp__le32(p + 8), p + 12};
}

/* Pass 1: validate every entry; count per matrix; the largest row. */
static zp_err scan(uint64_t nnz[2], uint64_t *nrows, const uint8_t *base, uint64_t m,
                   const zp__pk *pk, zp__ioerr *why)
{
    nnz[0] = nnz[1] = 0;
    *nrows = 0;
    for (uint64_t i = 0; i < m; i++) {
        coef k = coef_at(base, i);
        uint64_t v[4];
        zp__limbs_from_le(v, k.value, 4);
        if (k.matrix > 1)
            return zp__fail(why, ZP_E_FORMAT, "coefficient %llu names matrix %u",
                            (unsigned long long)i, k.matrix);
        if (k.row >= pk->domain_size || k.signal >= pk->n_vars)
            return zp__fail(why, ZP_E_FORMAT,
                            "coefficient %llu at row %u, signal %u is outside %llu x %u",
                            (unsigned long long)i, k.row, k.signal,
                            (unsigned long long)pk->domain_size, pk->n_vars);
        if (zp__geq_n(v, ZP_FR_MODULUS.l, 4))
            return zp__fail(why, ZP_E_NOT_CANONICAL, "coefficient %llu is not below r",
                            (unsigned long long)i);
        nnz[k.matrix]++;
        if ((uint64_t)k.row + 1 > *nrows)
            *nrows = (uint64_t)k.row + 1;
    }
    return ZP_OK;
}

/* Counting sort by row that keeps file order within a row. */
static void fill(zp__csr *mat[2], const uint8_t *base, uint64_t m)
{
    for (uint64_t i = 0; i < m; i++) {
        coef k = coef_at(base, i);
        mat[k.matrix]->row_ptr[k.row + 1]++;
    }
    for (int j = 0; j < 2; j++)
        for (uint64_t r = 0; r < mat[j]->nrows; r++)
            mat[j]->row_ptr[r + 1] += mat[j]->row_ptr[r];
    /* row_ptr[r] serves as the insertion point of row r, then is shifted. */
    for (uint64_t i = 0; i < m; i++) {
        coef k = coef_at(base, i);
        zp__csr *x = mat[k.matrix];
        uint64_t at = x->row_ptr[k.row]++;
        zp_fr v;
        zp__limbs_from_le(v.l, k.value, 4);
        x->col[at] = k.signal;
        zp_fr_from_mont(&x->val[at], &v);
    }
    for (int j = 0; j < 2; j++) {
        for (uint64_t r = mat[j]->nrows; r > 0; r--)
            mat[j]->row_ptr[r] = mat[j]->row_ptr[r - 1];
        mat[j]->row_ptr[0] = 0;
    }
}

zp_err zp__zkey_read_matrices(zp__pk *pk, const zp__container *c, zp__ioerr *why)
{
    zp__rd r;
    uint32_t m;
    zp_err e = zp__container_section(&r, c, 4, "coefficients", why);
    if (e)
        return e;
    if (!zp__rd_u32(&r, &m))
        return zp__fail(why, ZP_E_FORMAT, "coefficients section is too short");
    if (zp__rd_left(&r) != (uint64_t)m * ZP__ZKEY_COEF)
        return zp__fail(why, ZP_E_FORMAT,
                        "%u coefficients need %llu bytes, the section holds %llu", m,
                        (unsigned long long)m * ZP__ZKEY_COEF,
                        (unsigned long long)zp__rd_left(&r));
    const uint8_t *base = r.p + r.pos;
    uint64_t nnz[2], nrows;
    if ((e = scan(nnz, &nrows, base, m, pk, why)))
        return e;
    /* nrows <= domain_size, whose H section the caller has bounded. */
    if ((e = zp__csr_alloc(&pk->ma, nrows, nnz[0])) ||
        (e = zp__csr_alloc(&pk->mb, nrows, nnz[1])))
        return e;
    /* fill() counts into row_ptr. */
    memset(pk->ma.row_ptr, 0, (size_t)(nrows + 1) * sizeof *pk->ma.row_ptr);
    memset(pk->mb.row_ptr, 0, (size_t)(nrows + 1) * sizeof *pk->mb.row_ptr);
    zp__csr *mat[2] = {&pk->ma, &pk->mb};
    fill(mat, base, m);
    return ZP_OK;
}

uint64_t zp__zkey_matrices_size(const zp__pk *pk)
{
    return 4 + (pk->ma.nnz + pk->mb.nnz) * ZP__ZKEY_COEF;
}

static void put_row(zp__afile *f, const zp__csr *x, uint32_t matrix, uint64_t row)
{
    if (row >= x->nrows)
        return;
    for (uint64_t k = x->row_ptr[row]; k < x->row_ptr[row + 1]; k++) {
        uint8_t b[ZP__ZKEY_COEF];
        zp_fr v;
        zp_fr_to_mont(&v, &x->val[k]);
        zp__put32(b, matrix);
        zp__put32(b + 4, (uint32_t)row);
        zp__put32(b + 8, x->col[k]);
        zp__limbs_to_le(b + 12, v.l, 4);
        zp__afile_write(f, b, sizeof b);
    }
}

/* Row by row, A's terms then B's: the order snarkjs writes. */
zp_err zp__zkey_write_matrices(zp__afile *f, const zp__pk *pk)
{
    uint64_t nrows = pk->ma.nrows > pk->mb.nrows ? pk->ma.nrows : pk->mb.nrows;
    zp__afile_u32(f, (uint32_t)(pk->ma.nnz + pk->mb.nnz));
    for (uint64_t row = 0; row < nrows; row++) {
        put_row(f, &pk->ma, 0, row);
        put_row(f, &pk->mb, 1, row);
    }
    return f->err;
}
