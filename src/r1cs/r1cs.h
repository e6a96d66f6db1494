/*
 * Rank-1 constraint systems in CSR form. Row i of A, B, C is constraint i;
 * column j is variable j (0 = ONE, then public inputs, then aux). The
 * matrices of a proving key are A and B only: C is implied by c = a∘b for a
 * satisfying witness, and kept only where a check needs it.
 */
#ifndef ZP_R1CS_H
#define ZP_R1CS_H

#include <stdbool.h>
#include <stdint.h>

#include "zkpipe.h"

typedef struct zp__csr {
    uint64_t nrows;
    uint64_t nnz;
    uint64_t *row_ptr; /* nrows + 1 offsets into col/val */
    uint32_t *col;     /* variable index of each entry */
    zp_fr *val;        /* coefficient, Montgomery form */
} zp__csr;

/* A set of variables (density maps: which variables occur in A or B). */
typedef struct zp__bitmap {
    uint64_t nbits;
    uint64_t *words; /* bit i = words[i / 64] >> (i % 64) & 1 */
} zp__bitmap;

static inline int zp__bitmap_get(const zp__bitmap *b, uint64_t i)
{
    return (int)((b->words[i >> 6] >> (i & 63)) & 1);
}

zp_err zp__bitmap_alloc(zp__bitmap *b, uint64_t nbits); /* all zero */
void zp__bitmap_set(zp__bitmap *b, uint64_t i);
uint64_t zp__bitmap_count(const zp__bitmap *b);
void zp__bitmap_free(zp__bitmap *b);

/* A walk over a bitmap's set bits in increasing order, for chunks of the
 * points a density map selects: the walk stands at bit v with j set bits
 * below it ({b, 0, 0} to start). */
typedef struct zp__bitmap_walk {
    const zp__bitmap *b;
    uint64_t v, j;
} zp__bitmap_walk;

/* The index of set bit number p (from 0), or nbits where there are no more
 * than p set bits; p no less than any asked of the walk before (it moves
 * there, a word at a time). */
uint64_t zp__bitmap_seek(zp__bitmap_walk *w, uint64_t p);

/* out = m over the same rows, then `extra` rows, row m->nrows + i holding
 * variable i with coefficient one when `inputs`, empty otherwise (a key's
 * A with its input rows, B over the same rows). The arrays are copied from
 * `threads` threads (<= 0: one per online CPU). */
zp_err zp__csr_extend(zp__csr *out, const zp__csr *m, uint64_t extra, bool inputs, int threads);

/* The set of columns with at least one nonzero entry in m, from `threads`
 * threads (<= 0: one per online CPU). ZP_E_INVALID_ARG for a column index
 * of ncols or more. */
zp_err zp__csr_column_density(zp__bitmap *out, const zp__csr *m, uint64_t ncols, int threads);

typedef struct zp__r1cs {
    uint32_t n_vars;        /* including ONE */
    uint32_t n_public;      /* public inputs, not counting ONE */
    uint64_t n_constraints; /* rows of the circuit proper */
    zp__csr a, b, c;        /* c.nrows may be 0 when C is not kept */
} zp__r1cs;

/* Allocates the arrays of a matrix of nrows rows and nnz entries (contents
 * undefined except row_ptr[0] = 0). ZP_E_TOO_LARGE when the sizes overflow
 * size_t, ZP_E_NOMEM when allocation fails (then m is zeroed). */
zp_err zp__csr_alloc(zp__csr *m, uint64_t nrows, uint64_t nnz);
/* Frees the arrays of m (not m itself) and zeroes it. */
void zp__csr_free(zp__csr *m);
void zp__r1cs_free(zp__r1cs *cs);

/* out[i] = sum_j m[i][j] * w[j] for i < m->nrows (w Montgomery form).
 * Precondition: every column index is below the length of w. */
void zp__csr_mul_vec(zp_fr *out, const zp__csr *m, const zp_fr *w);
/* *out = sum_j m[row][j] * w[j] (one row of zp__csr_mul_vec). */
void zp__csr_row_dot(zp_fr *out, const zp__csr *m, uint64_t row, const zp_fr *w);

/* True when (A w)∘(B w) = C w for every row; *bad_row (may be NULL) gets
 * the first row that fails. w has cs->n_vars entries. Needs C: when the
 * three matrices do not have the same row count, or a column is >= n_vars,
 * returns false with *bad_row = UINT64_MAX. */
bool zp__r1cs_is_satisfied(const zp__r1cs *cs, const zp_fr *w, uint64_t *bad_row);
/* The same answer (and the same first failing row) from up to `threads`
 * threads (<= 0: one per online CPU). */
bool zp__r1cs_is_satisfied_mt(const zp__r1cs *cs, const zp_fr *w, uint64_t *bad_row,
                              int threads);

/* Calls fn(ctx, begin, end) over disjoint chunks of at most grain (0 counts
 * as 1) covering [0, n), from up to `threads` threads (<= 0: one per online
 * CPU) including the caller, and returns when all have returned. Cannot
 * fail: when a thread cannot start, the others do its share. */
void zp__r1cs_par_for(size_t n, size_t grain, int threads,
                      void (*fn)(void *ctx, size_t begin, size_t end), void *ctx);

#endif
