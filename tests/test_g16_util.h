/*
 * Helpers for the Groth16 tests: deterministic random field elements, a
 * synthetic circuit with its test key and a witness, and small polynomial
 * references (Horner evaluation, quadratic-time Lagrange values) written
 * without the library's NTT so that they can check it.
 */
#ifndef ZP_TEST_G16_UTIL_H
#define ZP_TEST_G16_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "groth16/groth16.h"
#include "r1cs/synth.h"
#include "zkpipe.h"

/* Uniform in [0, r) from check_rand64, Montgomery form. */
static inline void rand_fr(zp_fr *out)
{
    zp_fr p;
    for (;;) {
        for (int i = 0; i < 4; i++)
            p.l[i] = check_rand64();
        p.l[3] &= 0x7fffffffffffffffULL;
        int i = 3;
        while (i > 0 && p.l[i] == ZP_FR_MODULUS.l[i])
            i--;
        if (p.l[i] < ZP_FR_MODULUS.l[i])
            break;
    }
    zp_fr_to_mont(out, &p);
}

static inline void fr_u64(zp_fr *out, uint64_t v) { zp_fr_from_u64(out, v); }

/* sum_k c[k] x^k */
static inline void horner(zp_fr *out, const zp_fr *c, size_t n, const zp_fr *x)
{
    zp_fr acc;
    zp_fr_zero(&acc);
    for (size_t k = n; k-- > 0;) {
        zp_fr_mul(&acc, &acc, x);
        zp_fr_add(&acc, &acc, &c[k]);
    }
    *out = acc;
}

/* x^e for a small e. */
static inline void fr_pow_u64(zp_fr *out, const zp_fr *x, uint64_t e)
{
    zp_fr_pow(out, x, &e, 1);
}

/* p <- p + the generator (a valid point other than p, for changed proofs). */
static inline void g1_add_gen(zp_g1_affine *p)
{
    zp_g1_affine g;
    zp_g1_jac j;
    zp_g1_generator(&g);
    zp_g1_jac_from_affine(&j, p);
    zp_g1_jac_add_affine(&j, &j, &g);
    zp_g1_jac_to_affine(p, &j);
}

static inline void g2_add_gen(zp_g2_affine *p)
{
    zp_g2_affine g;
    zp_g2_jac j;
    zp_g2_generator(&g);
    zp_g2_jac_from_affine(&j, p);
    zp_g2_jac_add_affine(&j, &j, &g);
    zp_g2_jac_to_affine(p, &j);
}

/* A synthetic circuit, a test key for it and a satisfying witness. */
typedef struct g16_fix {
    zp__synth_spec sp;
    zp__r1cs cs;
    zp__pk pk;
    zp_fr *w;
} g16_fix;

static inline int fix_make(g16_fix *f, const char *spec, zp_h_conv conv, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    if (zp__synth_parse(&f->sp, spec) || zp__synth_circuit(&f->cs, &f->sp))
        return -1;
    f->w = malloc(((size_t)f->cs.n_vars + 1) * sizeof *f->w);
    if (!f->w || zp__synth_witness(f->w, &f->cs, &f->sp, seed))
        return -1;
    return zp__setup(&f->pk, &f->cs, conv, 2, NULL) ? -1 : 0;
}

static inline void fix_free(g16_fix *f)
{
    zp__r1cs_free(&f->cs);
    zp__pk_free(&f->pk);
    free(f->w);
    memset(f, 0, sizeof *f);
}

#endif
