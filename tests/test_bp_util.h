/*
 * Helpers for test_params.c and test_zpk.c: proving keys made of random
 * subgroup points (valid to every reader, but not a key that proves), a
 * scratch folder, and field-by-field key comparison.
 */
#ifndef ZP_TEST_BP_UTIL_H
#define ZP_TEST_BP_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io/key.h"
#include "r1cs/synth.h"
#include "zkpipe.h"

/* n points k0·G, (k0+k)·G, (k0+2k)·G ... for random 64-bit k0, k. */
static inline void rand_g1s(zp_g1_affine *out, size_t n)
{
    zp_g1_affine g;
    zp_g1_generator(&g);
    zp_g1_jac gj, p, step;
    zp_g1_jac_from_affine(&gj, &g);
    uint64_t k0 = check_rand64() | 1, k = check_rand64() | 1;
    zp_g1_jac_mul_vartime(&p, &gj, &k0, 1);
    zp_g1_jac_mul_vartime(&step, &gj, &k, 1);
    zp_g1_jac *tmp = malloc((n ? n : 1) * sizeof *tmp);
    for (size_t i = 0; i < n; i++) {
        tmp[i] = p;
        zp_g1_jac_add(&p, &p, &step);
    }
    zp_g1_batch_to_affine(out, tmp, n);
    free(tmp);
}

static inline void rand_g2s(zp_g2_affine *out, size_t n)
{
    zp_g2_affine g;
    zp_g2_generator(&g);
    zp_g2_jac gj, p, step;
    zp_g2_jac_from_affine(&gj, &g);
    uint64_t k0 = check_rand64() | 1, k = check_rand64() | 1;
    zp_g2_jac_mul_vartime(&p, &gj, &k0, 1);
    zp_g2_jac_mul_vartime(&step, &gj, &k, 1);
    zp_g2_jac *tmp = malloc((n ? n : 1) * sizeof *tmp);
    for (size_t i = 0; i < n; i++) {
        tmp[i] = p;
        zp_g2_jac_add(&p, &p, &step);
    }
    zp_g2_batch_to_affine(out, tmp, n);
    free(tmp);
}

static inline zp_g1_affine *new_g1s(size_t n)
{
    zp_g1_affine *p = malloc((n ? n : 1) * sizeof *p);
    rand_g1s(p, n);
    return p;
}

static inline zp_g2_affine *new_g2s(size_t n)
{
    zp_g2_affine *p = malloc((n ? n : 1) * sizeof *p);
    rand_g2s(p, n);
    return p;
}

/* A bellperson-shaped key (tau H, 7-based roots) of random points with the
 * given counts; no density maps or matrices. */
static inline void rand_tau_pk(zp__pk *pk, uint32_t n_public, uint32_t n_vars, uint64_t domain,
                               uint64_t n_a, uint64_t n_b)
{
    memset(pk, 0, sizeof *pk);
    pk->h_conv = ZP_H_TAU;
    pk->roots = ZP_ROOTS_BELLPERSON;
    pk->n_public = n_public;
    pk->n_vars = n_vars;
    pk->domain_size = domain;
    pk->n_a = n_a;
    pk->n_b = n_b;
    pk->n_l = n_vars - n_public - 1;
    pk->n_h = domain - 1;
    zp_g1_affine v1[3];
    zp_g2_affine v2[3];
    rand_g1s(v1, 3);
    rand_g2s(v2, 3);
    pk->vk.alpha1 = v1[0];
    pk->vk.beta1 = v1[1];
    pk->vk.delta1 = v1[2];
    pk->vk.beta2 = v2[0];
    pk->vk.gamma2 = v2[1];
    pk->vk.delta2 = v2[2];
    pk->vk.n_ic = n_public + 1;
    pk->vk.ic = new_g1s(pk->vk.n_ic);
    pk->a = new_g1s(n_a);
    pk->b1 = new_g1s(n_b);
    pk->b2 = new_g2s(n_b);
    pk->l = new_g1s(pk->n_l);
    pk->h = new_g1s(pk->n_h);
}

static inline int g1s_eq(const zp_g1_affine *a, const zp_g1_affine *b, uint64_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

static inline int g2s_eq(const zp_g2_affine *a, const zp_g2_affine *b, uint64_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

static inline int vk_eq(const zp__vk *a, const zp__vk *b)
{
    return zp_g1_affine_eq(&a->alpha1, &b->alpha1) && zp_g1_affine_eq(&a->beta1, &b->beta1) &&
           zp_g1_affine_eq(&a->delta1, &b->delta1) && zp_g2_affine_eq(&a->beta2, &b->beta2) &&
           zp_g2_affine_eq(&a->gamma2, &b->gamma2) && zp_g2_affine_eq(&a->delta2, &b->delta2) &&
           a->n_ic == b->n_ic && g1s_eq(a->ic, b->ic, a->n_ic);
}

static inline int csr_eq(const zp__csr *a, const zp__csr *b)
{
    if (a->nrows != b->nrows || a->nnz != b->nnz)
        return 0;
    if ((a->row_ptr == NULL) != (b->row_ptr == NULL))
        return 0;
    if (!a->row_ptr)
        return 1;
    return memcmp(a->row_ptr, b->row_ptr, (a->nrows + 1) * 8) == 0 &&
           (a->nnz == 0 || (memcmp(a->col, b->col, a->nnz * 4) == 0 &&
                            memcmp(a->val, b->val, a->nnz * sizeof(zp_fr)) == 0));
}

static inline int bitmap_eq(const zp__bitmap *a, const zp__bitmap *b)
{
    if (a->nbits != b->nbits || (a->words == NULL) != (b->words == NULL))
        return 0;
    return !a->words || memcmp(a->words, b->words, ((a->nbits + 63) / 64) * 8) == 0;
}

/* Every field of two keys, arrays by content. */
/* A synthetic circuit (without its C matrix) from spec, or a failed check. */
static inline void synth_build(zp__r1cs *cs, const char *spec)
{
    zp__synth_spec s;
    CHECK_EQ_INT(zp__synth_parse(&s, spec), ZP_OK);
    s.keep_c = false;
    CHECK_EQ_INT(zp__synth_circuit(cs, &s), ZP_OK);
}

static inline int pk_eq(const zp__pk *a, const zp__pk *b)
{
    return a->h_conv == b->h_conv && a->roots == b->roots && a->n_vars == b->n_vars &&
           a->n_public == b->n_public && a->domain_size == b->domain_size && a->n_a == b->n_a &&
           a->n_b == b->n_b && a->n_l == b->n_l && a->n_h == b->n_h && vk_eq(&a->vk, &b->vk) &&
           g1s_eq(a->a, b->a, a->n_a) && g1s_eq(a->b1, b->b1, a->n_b) &&
           g2s_eq(a->b2, b->b2, a->n_b) && g1s_eq(a->l, b->l, a->n_l) &&
           g1s_eq(a->h, b->h, a->n_h) && bitmap_eq(&a->a_density, &b->a_density) &&
           bitmap_eq(&a->b_density, &b->b_density) && csr_eq(&a->ma, &b->ma) &&
           csr_eq(&a->mb, &b->mb);
}

/* A fresh scratch folder under /tmp (removed by rm_tree at the end). */
static inline void make_tmpdir(char out[64], const char *tag)
{
    snprintf(out, 64, "/tmp/zp_%s_XXXXXX", tag);
    if (!mkdtemp(out)) {
        perror("mkdtemp");
        exit(2);
    }
}

static inline void rm_tree(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

#endif
