/*
 * Bellperson's side of the supraseal-c2 boundary, made for the tests from
 * a synthetic circuit and its witness the way bellperson makes it: a, b, c
 * from the circuit's own rows (A·w, B·w, C·w) and then one row x_i · 0 = 0
 * per input (ONE included), the three density bitmaps from the columns of
 * A and B (bit j of word i is variable 64·i + j), the input and aux
 * assignments. Independent of the key's density maps and matrices, which
 * the tests compare against.
 */
#ifndef ZP_TEST_ABC_UTIL_H
#define ZP_TEST_ABC_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "groth16/abc.h"
#include "test_g16_util.h"

typedef struct abc_fix {
    zp__abc_in in;
    zp_fr *abc;          /* a, b, c, abc_size each */
    uint64_t *maps;      /* the three bitmaps' words */
} abc_fix;

/* Bits of columns of m (over n_vars variables) from variable `from` on,
 * count of them, into words; returns the popcount. */
static inline uint64_t abc_cols(uint64_t *words, const zp__csr *m, uint32_t n_vars,
                                uint64_t from, uint64_t count)
{
    zp__bitmap d;
    uint64_t pop = 0;
    if (zp__csr_column_density(&d, m, n_vars, 1))
        abort();
    for (uint64_t i = 0; i < count; i++)
        if (zp__bitmap_get(&d, from + i)) {
            words[i / 64] |= 1ULL << (i % 64);
            pop++;
        }
    zp__bitmap_free(&d);
    return pop;
}

static inline void abc_fix_make(abc_fix *f, const zp__r1cs *cs, const zp_fr *w)
{
    memset(f, 0, sizeof *f);
    uint64_t n_inp = (uint64_t)cs->n_public + 1, n_aux = cs->n_vars - n_inp;
    uint64_t m = cs->n_constraints + n_inp;
    f->abc = calloc(3 * m + 1, sizeof(zp_fr));
    uint64_t wa = n_aux / 64 + 1, wi = n_inp / 64 + 1;
    f->maps = calloc(2 * wa + wi, sizeof(uint64_t));
    if (!f->abc || !f->maps)
        abort();
    zp_fr *a = f->abc, *b = a + m, *c = b + m;
    for (uint64_t i = 0; i < cs->n_constraints; i++) {
        zp__csr_row_dot(&a[i], &cs->a, i, w);
        zp__csr_row_dot(&b[i], &cs->b, i, w);
        zp__csr_row_dot(&c[i], &cs->c, i, w);
    }
    for (uint64_t s = 0; s < n_inp; s++)
        a[cs->n_constraints + s] = w[s]; /* x_s · 0 = 0 */
    zp__abc_in *in = &f->in;
    in->a_aux = f->maps;
    in->b_inp = f->maps + wa;
    in->b_aux = f->maps + wa + wi;
    in->a_aux_bits = in->b_aux_bits = n_aux;
    in->b_inp_bits = n_inp;
    in->a_aux_pop = abc_cols(f->maps, &cs->a, cs->n_vars, n_inp, n_aux);
    in->b_inp_pop = abc_cols(f->maps + wa, &cs->b, cs->n_vars, 0, n_inp);
    in->b_aux_pop = abc_cols(f->maps + wa + wi, &cs->b, cs->n_vars, n_inp, n_aux);
    in->a = a;
    in->b = b;
    in->c = c;
    in->abc_size = m;
    in->inp = w;
    in->n_inp = n_inp;
    in->aux = w + n_inp;
    in->n_aux = n_aux;
}

static inline void abc_fix_free(abc_fix *f)
{
    free(f->abc);
    free(f->maps);
    memset(f, 0, sizeof *f);
}

#endif
