/*
 * circom constraint systems (.r1cs, version 1) into CSR matrices.
 *
 * Section 1: u32 n8 ‖ prime ‖ u32 nWires ‖ u32 nPubOut ‖ u32 nPubIn ‖
 * u32 nPrvIn ‖ u64 nLabels ‖ u32 nConstraints. Section 2: per constraint
 * the linear combinations A, B, C, each u32 nTerms then nTerms × (u32 wire
 * ‖ 32-byte standard-form coefficient). Sections 4 and 5 (custom gates,
 * PLONK only) are refused.
 *
 * Two passes over section 2: the first checks the structure and counts
 * entries per matrix, so every allocation is sized by what the file holds;
 * the second fills the CSR arrays.
 */
#include <stdlib.h>
#include <string.h>

#include "io/io.h"

#define R1CS_VERSION 1
#define TERM_BYTES 36 /* u32 wire + 32-byte coefficient */

typedef struct r1cs_hdr {
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, n_constraints;
} r1cs_hdr;

/* zp__csr_alloc with row_ptr zeroed, as the fill passes count into it. */
static zp_err csr_alloc_zeroed(zp__csr *m, uint64_t nrows, uint64_t nnz)
{
    zp_err e = zp__csr_alloc(m, nrows, nnz);
    if (e == ZP_OK)
        memset(m->row_ptr, 0, (size_t)(nrows + 1) * sizeof *m->row_ptr);
    return e;
}

static zp_err read_header(r1cs_hdr *h, const zp__container *c, zp__ioerr *why)
{
    zp__rd r;
    zp_err e = zp__container_section(&r, c, 1, "header", why);
    if (e)
        return e;
    uint32_t n8;
    if (!zp__rd_u32(&r, &n8))
        return zp__fail(why, ZP_E_FORMAT, "r1cs header section is too short");
    if (n8 != 32)
        return zp__fail(why, ZP_E_BAD_PRIME,
                        "r1cs field elements have %u bytes: only BLS12-381's r (32 bytes) is "
                        "supported; compile with circom --prime bls12381", n8);
    const uint8_t *prime = zp__rd_take(&r, 32);
    const uint8_t *rest = zp__rd_take(&r, 4 * 4 + 8 + 4);
    if (!prime || !rest)
        return zp__fail(why, ZP_E_FORMAT, "r1cs header section is too short");
    if (memcmp(prime, ZP__R_LE, 32) != 0)
        return zp__fail(why, ZP_E_BAD_PRIME,
                        "r1cs is for another prime field: only BLS12-381's r is supported; "
                        "compile with circom --prime bls12381");
    h->n_wires = zp__le32(rest);
    h->n_pub_out = zp__le32(rest + 4);
    h->n_pub_in = zp__le32(rest + 8);
    h->n_prv_in = zp__le32(rest + 12);
    h->n_constraints = zp__le32(rest + 24);
    uint64_t named = 1 + (uint64_t)h->n_pub_out + h->n_pub_in + h->n_prv_in;
    if (named > h->n_wires)
        return zp__fail(why, ZP_E_FORMAT, "r1cs has %u wires but %llu inputs and outputs",
                        h->n_wires, (unsigned long long)named);
    return ZP_OK;
}

/* Pass 1: structure, wire bounds and entry counts of A, B, C. */
static zp_err count_terms(uint64_t nnz[3], zp__rd r, const r1cs_hdr *h, zp__ioerr *why)
{
    nnz[0] = nnz[1] = nnz[2] = 0;
    for (uint32_t i = 0; i < h->n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            uint32_t nt = 0;
            if (!zp__rd_u32(&r, &nt) || nt > zp__rd_left(&r) / TERM_BYTES)
                return zp__fail(why, ZP_E_FORMAT,
                                "constraint %u runs past the end of the constraints section", i);
            const uint8_t *t = zp__rd_take(&r, (uint64_t)nt * TERM_BYTES);
            for (uint32_t k = 0; k < nt; k++) {
                uint32_t wire = zp__le32(t + (uint64_t)k * TERM_BYTES);
                if (wire >= h->n_wires)
                    return zp__fail(why, ZP_E_FORMAT,
                                    "constraint %u uses wire %u of %u", i, wire, h->n_wires);
            }
            nnz[m] += nt;
        }
    }
    if (zp__rd_left(&r) != 0)
        return zp__fail(why, ZP_E_FORMAT, "%llu stray bytes after the last constraint",
                        (unsigned long long)zp__rd_left(&r));
    return ZP_OK;
}

/* Pass 2: the section was validated by count_terms. */
static zp_err fill_terms(zp__csr *mat[3], zp__rd r, uint32_t n_constraints, zp__ioerr *why)
{
    uint64_t at[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            uint32_t nt = 0;
            zp__rd_u32(&r, &nt);
            const uint8_t *t = zp__rd_take(&r, (uint64_t)nt * TERM_BYTES);
            for (uint32_t k = 0; k < nt; k++, t += TERM_BYTES) {
                mat[m]->col[at[m]] = zp__le32(t);
                if (zp_fr_from_le(&mat[m]->val[at[m]], t + 4) != ZP_OK)
                    return zp__fail(why, ZP_E_NOT_CANONICAL,
                                    "constraint %u: a coefficient is not below r", i);
                at[m]++;
            }
            mat[m]->row_ptr[i + 1] = at[m];
        }
    }
    return ZP_OK;
}

zp_err zp__r1cs_parse(zp__r1cs *out, const uint8_t *data, size_t len, zp__ioerr *why)
{
    memset(out, 0, sizeof *out);
    zp__container c;
    zp_err e = zp__container_parse(&c, data, len, "r1cs", why);
    if (e)
        return e;
    if (c.version != R1CS_VERSION)
        return zp__fail(why, ZP_E_UNSUPPORTED, "r1cs version %u (only 1 is supported)",
                        c.version);
    if (zp__container_find(&c, 4) || zp__container_find(&c, 5))
        return zp__fail(why, ZP_E_UNSUPPORTED, "r1cs uses custom gates (PLONK only)");
    r1cs_hdr h = {0};
    if ((e = read_header(&h, &c, why)))
        return e;
    zp__rd r;
    if ((e = zp__container_section(&r, &c, 2, "constraints", why)))
        return e;
    /* Each constraint takes at least three u32 term counts. */
    if (h.n_constraints > r.len / 12)
        return zp__fail(why, ZP_E_FORMAT,
                        "%u constraints cannot fit in a constraints section of %llu bytes",
                        h.n_constraints, (unsigned long long)r.len);
    uint64_t nnz[3];
    if ((e = count_terms(nnz, r, &h, why)))
        return e;
    zp__csr *mat[3] = {&out->a, &out->b, &out->c};
    for (int m = 0; m < 3 && !e; m++)
        e = csr_alloc_zeroed(mat[m], h.n_constraints, nnz[m]);
    if (!e)
        e = fill_terms(mat, r, h.n_constraints, why);
    if (e) {
        zp__r1cs_free(out);
        return e;
    }
    out->n_vars = h.n_wires;
    out->n_public = h.n_pub_out + h.n_pub_in;
    out->n_constraints = h.n_constraints;
    return ZP_OK;
}

zp_err zp__r1cs_load(zp__r1cs *out, const char *path, zp__ioerr *why)
{
    zp__buf b;
    memset(out, 0, sizeof *out);
    zp_err e = zp__file_map(&b, path, UINT64_MAX, why);
    if (e)
        return e;
    e = zp__r1cs_parse(out, b.data, b.len, why);
    if (zp__buf_changed(&b)) { /* cut while mapped: what was parsed is zeros */
        if (!e)
            zp__r1cs_free(out);
        e = zp__fail(why, ZP_E_TRUNCATED, "%s changed while being read", path);
    }
    zp__buf_free(&b);
    return e;
}
