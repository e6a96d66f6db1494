/*
 * A Groth16 proving key for BLS12-381 in memory, independent of the file it
 * came from (.zkey, bellperson .params, .zpk, or setup). Points are affine
 * Montgomery form; infinity is all zero.
 *
 * The H query has two conventions (docs/formats.md, Two conventions):
 *  - ZP_H_COSET (snarkjs): h_j = a'_j b'_j - c'_j evaluated on the odd coset,
 *    no division by Z; H has domain_size points.
 *  - ZP_H_TAU (bellperson): h = coefficients of (ab - c)/Z via seven NTTs
 *    with coset shift 7; H has domain_size - 1 points.
 *
 * A, B1 and B2 are stored compactly: only variables whose density bit is set
 * have a point, in variable order. For a .zkey the density follows from which
 * points are not infinity; for a .params file from the circuit.
 */
#ifndef ZP_IO_KEY_H
#define ZP_IO_KEY_H

#include <stdatomic.h>
#include <stdint.h>

#include "r1cs/r1cs.h"
#include "zkpipe.h"

typedef enum zp_h_conv { ZP_H_COSET = 1, ZP_H_TAU = 2 } zp_h_conv;

/* What the verifier computes once per key (groth16.h). */
typedef struct zp__vk_prep zp__vk_prep;

typedef struct zp__vk {
    zp_g1_affine alpha1, beta1, delta1;
    zp_g2_affine beta2, gamma2, delta2;
    uint32_t n_ic;     /* n_public + 1 */
    zp_g1_affine *ic;
    /* NULL until the second zp__verify against this vk makes it
     * (atomically: verifiers share keys); used says a first one ran.
     * Owned like ic: zp__vk_free frees it, and a copy by value must drop
     * it (set NULL) just as it must copy ic, or both copies free it. */
    _Atomic(zp__vk_prep *) prep;
    atomic_bool used;
} zp__vk;

typedef struct zp__pk {
    zp_h_conv h_conv;
    zp_roots roots;
    uint32_t n_vars;        /* including ONE */
    uint32_t n_public;      /* not counting ONE */
    uint64_t domain_size;   /* n, a power of two */
    zp__vk vk;
    zp__bitmap a_density;   /* over n_vars */
    zp__bitmap b_density;   /* over n_vars */
    uint64_t n_a, n_b;      /* popcounts: lengths of a, b1, b2 */
    zp_g1_affine *a;        /* A_i for i in a_density */
    zp_g1_affine *b1;       /* B1_i for i in b_density */
    zp_g2_affine *b2;       /* B2_i for i in b_density */
    uint64_t n_l;           /* n_vars - n_public - 1 */
    zp_g1_affine *l;        /* for variables n_public+1 .. n_vars-1 */
    uint64_t n_h;           /* domain_size (COSET) or domain_size - 1 (TAU) */
    zp_g1_affine *h;
    /* The constraint matrices over domain rows, when the key carries them
     * (a .zkey does; a .params file does not: then they come from the
     * circuit). Row count <= domain_size; absent rows are zero. */
    zp__csr ma, mb;
    /* When not NULL, the arrays above (points, density words, CSR arrays;
     * not vk.ic) live in this one mapping (a loaded .zpk): zp__pk_free
     * unmaps it instead of freeing them one by one. map_file: it maps the
     * file itself (read-only, ZP__ZPK_TRUSTED loads); otherwise it is
     * anonymous memory the file was read into, which no later change to
     * the file can reach. */
    void *map_base;
    size_t map_len;
    bool map_file;
} zp__pk;

/* Frees every array of pk (or its mapping) and zeroes it. */
void zp__pk_free(zp__pk *pk);
void zp__vk_free(zp__vk *vk);
void zp__vk_prep_free(zp__vk_prep *p);

#endif
