/*
 * Synthetic circuits: the spec parser, the shared helpers, and the driver
 * that allocates the CSR arrays once (the counts are known in advance) and
 * lets the circuit's filler write them in parallel.
 */
#include <stdlib.h>
#include <string.h>

#include "math/mont.h"
#include "r1cs/synth_impl.h"

/* ------------------------------------------------------------- helpers */

void zp__synth_rand_fr(zp_fr *out, uint64_t *state)
{
    /* Rejection from [0, 2^255): r > 2^254, so fewer than half the draws
     * are rejected and the result is uniform below r. */
    for (;;) {
        for (int i = 0; i < 4; i++)
            out->l[i] = zp__sm64(state);
        out->l[3] &= 0x7fffffffffffffffULL;
        if (!zp__geq_n(out->l, ZP_FR_MODULUS.l, 4))
            return;
    }
}

void zp__synth_consts_init(zp__synth_consts *k)
{
    zp_fr_zero(&k->zero);
    zp_fr_one(&k->one);
    zp_fr_neg(&k->minus_one, &k->one);
    zp_fr_dbl(&k->two, &k->one);
    k->pow2[0] = k->one;
    for (int i = 1; i < 32; i++)
        zp_fr_dbl(&k->pow2[i], &k->pow2[i - 1]);
}

/* --------------------------------------------------------------- parse */

typedef struct kind_info {
    const char *name;
    zp__synth_kind kind;
    unsigned min_log2, max_log2;
} kind_info;

/* 28 keeps every variable index below 2^32 (the CSR col type) with room. */
static const kind_info kinds[] = {
    {"porep", ZP__SYNTH_POREP, 8, 28},
    {"dense", ZP__SYNTH_DENSE, 2, 28},
    {"chain", ZP__SYNTH_CHAIN, 2, 28},
};

static const kind_info *find_kind(zp__synth_kind k)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].kind == k)
            return &kinds[i];
    return NULL;
}

zp_err zp__synth_parse(zp__synth_spec *out, const char *spec)
{
    if (!out || !spec)
        return ZP_E_INVALID_ARG;
    if (strncmp(spec, "synth:", 6) == 0)
        spec += 6;
    const char *colon = strchr(spec, ':');
    if (!colon)
        return ZP_E_INVALID_ARG;
    const kind_info *ki = NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t len = strlen(kinds[i].name);
        if ((size_t)(colon - spec) == len && memcmp(spec, kinds[i].name, len) == 0)
            ki = &kinds[i];
    }
    if (!ki)
        return ZP_E_INVALID_ARG;
    const char *p = colon + 1;
    unsigned v = 0;
    size_t ndigits = 0;
    /* At most two digits: every valid LOG2 has two, and it bounds v. */
    for (; *p >= '0' && *p <= '9' && ndigits < 3; p++, ndigits++)
        v = v * 10 + (unsigned)(*p - '0');
    if (ndigits == 0 || ndigits > 2 || *p != '\0')
        return ZP_E_INVALID_ARG;
    if (v < ki->min_log2 || v > ki->max_log2)
        return ZP_E_INVALID_ARG;
    out->kind = ki->kind;
    out->log2 = v;
    out->keep_c = true;
    out->threads = 0;
    out->progress = NULL;
    return ZP_OK;
}

static bool spec_ok(const zp__synth_spec *s)
{
    const kind_info *ki = s ? find_kind(s->kind) : NULL;
    return ki && s->log2 >= ki->min_log2 && s->log2 <= ki->max_log2;
}

/* ------------------------------------------------------------- driver */

zp_err zp__synth_shape_of(zp__synth_shape *out, const zp__synth_spec *s)
{
    if (!out || !spec_ok(s))
        return ZP_E_INVALID_ARG;
    switch (s->kind) {
    case ZP__SYNTH_POREP:
        return zp__porep_shape(out, s->log2);
    case ZP__SYNTH_DENSE:
        zp__dense_shape(out, s->log2);
        return ZP_OK;
    case ZP__SYNTH_CHAIN:
        zp__chain_shape(out, s->log2);
        return ZP_OK;
    }
    return ZP_E_INVALID_ARG;
}

static bool rows_complete(const zp__csr *m)
{
    return m->row_ptr[m->nrows] == m->nnz;
}

zp_err zp__synth_circuit(zp__r1cs *out, const zp__synth_spec *s)
{
    if (!out)
        return ZP_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    zp__synth_shape sh;
    zp_err e = zp__synth_shape_of(&sh, s);
    if (e)
        return e;
    if ((e = zp__csr_alloc(&out->a, sh.n_constraints, sh.nnz_a)) ||
        (e = zp__csr_alloc(&out->b, sh.n_constraints, sh.nnz_b)) ||
        (s->keep_c && (e = zp__csr_alloc(&out->c, sh.n_constraints, sh.nnz_c)))) {
        zp__r1cs_free(out);
        return e;
    }
    out->n_vars = sh.n_vars;
    out->n_public = sh.n_public;
    out->n_constraints = sh.n_constraints;
    switch (s->kind) {
    case ZP__SYNTH_POREP:
        e = zp__porep_fill(out, s);
        break;
    case ZP__SYNTH_DENSE:
        e = zp__dense_fill(out, s);
        break;
    case ZP__SYNTH_CHAIN:
        e = zp__chain_fill(out, s);
        break;
    }
    /* The last row of each matrix must end exactly at its entry count: a
     * cheap guard that the per-gadget counts and the writers agree. */
    if (!e && (!rows_complete(&out->a) || !rows_complete(&out->b) ||
               (s->keep_c && !rows_complete(&out->c))))
        e = ZP_E_INVALID_ARG;
    if (e)
        zp__r1cs_free(out);
    return e;
}

zp_err zp__synth_witness(zp_fr *w, const zp__r1cs *cs, const zp__synth_spec *s, uint64_t seed)
{
    zp__synth_shape sh;
    if (!w || !cs)
        return ZP_E_INVALID_ARG;
    zp_err e = zp__synth_shape_of(&sh, s);
    if (e)
        return e;
    if (cs->n_vars != sh.n_vars || cs->n_public != sh.n_public ||
        cs->a.nrows != sh.n_constraints || cs->b.nrows != sh.n_constraints ||
        cs->a.nnz != sh.nnz_a || cs->b.nnz != sh.nnz_b)
        return ZP_E_INVALID_ARG;
    switch (s->kind) {
    case ZP__SYNTH_POREP:
        return zp__porep_witness(w, cs, s, seed);
    case ZP__SYNTH_DENSE:
        return zp__dense_witness(w, cs, s, seed);
    case ZP__SYNTH_CHAIN:
        return zp__chain_witness(w, cs, s, seed);
    }
    return ZP_E_INVALID_ARG;
}
