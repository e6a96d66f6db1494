/*
 * The CPU Groth16 prover: the eval and h stages and the driver that runs
 * every stage and verifies the result (groth16.h). The MSM and finish
 * stages are in prove_msm.c.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/cpu.h"
#include "cpu/ntt_ifma.h"
#include "groth16/groth16.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void zp__prove_opts_default(zp__prove_opts *o)
{
    memset(o, 0, sizeof *o);
}

static bool is_pow2(uint64_t n) { return n && !(n & (n - 1)); }

/* Matrix columns are not rescanned here: every key source (.zkey reader,
 * setup) checks them once, and rescanning per proof would cost a pass over
 * the largest arrays of the key. */
bool zp__pk_shape_ok(const zp__pk *pk)
{
    return zp__pk_counts_ok(pk) && (!pk->n_a || pk->a) && (!pk->n_b || (pk->b1 && pk->b2)) &&
           (!pk->n_l || pk->l) && (!pk->n_h || pk->h);
}

bool zp__pk_counts_ok(const zp__pk *pk)
{
    uint64_t n = pk->domain_size;
    if (!is_pow2(n) || pk->n_public >= pk->n_vars || pk->vk.n_ic != (uint64_t)pk->n_public + 1 ||
        !pk->vk.ic)
        return false;
    if (pk->roots != ZP_ROOTS_SNARKJS && pk->roots != ZP_ROOTS_BELLPERSON)
        return false;
    uint64_t want_h = pk->h_conv == ZP_H_COSET ? n : pk->h_conv == ZP_H_TAU ? n - 1 : 0;
    if (!want_h || pk->n_h != want_h)
        return false;
    if (pk->a_density.nbits != pk->n_vars || pk->b_density.nbits != pk->n_vars ||
        zp__bitmap_count(&pk->a_density) != pk->n_a ||
        zp__bitmap_count(&pk->b_density) != pk->n_b)
        return false;
    if (pk->n_l != (uint64_t)pk->n_vars - pk->n_public - 1)
        return false;
    return pk->ma.nrows <= n && pk->mb.nrows <= n;
}

/* ------------------------------------------------------------------ eval */

typedef struct eval_ctx {
    zp_fr *a, *b, *c;
    const zp__pk *pk;
    const zp_fr *w;
} eval_ctx;

static void eval_task(void *p, size_t begin, size_t end)
{
    const eval_ctx *x = p;
    for (size_t i = begin; i < end; i++) {
        if (i < x->pk->ma.nrows)
            zp__csr_row_dot(&x->a[i], &x->pk->ma, i, x->w);
        else
            zp_fr_zero(&x->a[i]);
        if (i < x->pk->mb.nrows)
            zp__csr_row_dot(&x->b[i], &x->pk->mb, i, x->w);
        else
            zp_fr_zero(&x->b[i]);
        zp_fr_mul(&x->c[i], &x->a[i], &x->b[i]);
    }
}

void zp__g16_eval(zp_fr *a, zp_fr *b, zp_fr *c, const zp__pk *pk, const zp_fr *w,
                  int threads)
{
    eval_ctx x = {a, b, c, pk, w};
    zp__parallel_for((size_t)pk->domain_size, 4096, eval_task, &x, threads);
}

/* --------------------------------------------------------------------- h */

/* h[i] = (a[i]·b[i] − c[i])·scale; b, c NULL: no product, no difference. */
typedef struct comb_ctx {
    zp_fr *h;
    const zp_fr *a, *b, *c;
    zp_fr scale;
    bool scaled;
} comb_ctx;

static void comb_task(void *p, size_t begin, size_t end)
{
    const comb_ctx *x = p;
    if (zp__ntt_ifma) { /* the same on eight lanes */
        zp__ntt8_mul_sub(x->h + begin, x->a + begin, x->b ? x->b + begin : NULL,
                         x->c ? x->c + begin : NULL, end - begin, x->scaled ? &x->scale : NULL);
        return;
    }
    for (size_t i = begin; i < end; i++) {
        zp_fr t = x->a[i];
        if (x->b)
            zp_fr_mul(&t, &t, &x->b[i]);
        if (x->c)
            zp_fr_sub(&t, &t, &x->c[i]);
        if (x->scaled)
            zp_fr_mul(&t, &t, &x->scale);
        x->h[i] = t;
    }
}

/*
 * The TAU convention: h = coset_iNTT((A·B − C)/Z on the coset), Z the
 * constant gⁿ − 1 there. coset_iNTT is linear and C has degree < n, so
 * coset_iNTT(C on the coset) is C's coefficients iNTT(c) exactly: h =
 * (coset_iNTT(A·B on the coset) − iNTT(c)) / (gⁿ − 1), six transforms
 * instead of seven, the same values for any a, b, c.
 */
static zp_err h_tau(zp_fr *h, zp_fr *a, zp_fr *b, zp_fr *c, unsigned log2n, const zp_fr *g,
                    zp_roots roots, int threads)
{
    size_t n = (size_t)1 << log2n;
    zp_err e;
    if ((e = zp__cpu_ntt_to_coset(a, log2n, g, roots, threads)) ||
        (e = zp__cpu_ntt_to_coset(b, log2n, g, roots, threads)) ||
        (e = zp__cpu_ntt(c, log2n, true, roots, threads)))
        return e;
    comb_ctx x = {.h = a, .a = a, .b = b};
    zp__parallel_for(n, 1 << 14, comb_task, &x, threads);
    if ((e = zp__cpu_coset_ntt(a, log2n, true, g, roots, threads)))
        return e;
    uint64_t nn = n;
    zp_fr one;
    zp_fr_pow(&x.scale, g, &nn, 1);
    zp_fr_one(&one);
    zp_fr_sub(&x.scale, &x.scale, &one);
    zp_fr_inv(&x.scale, &x.scale);
    /* The quotient has degree n − 2: its coefficient n − 1 is zero for a
     * satisfying witness and is not part of the H query. */
    x = (comb_ctx){.h = h, .a = a, .c = c, .scale = x.scale, .scaled = true};
    zp__parallel_for(n - 1, 1 << 14, comb_task, &x, threads);
    return ZP_OK;
}

zp_err zp__g16_h(zp_fr *h, zp_fr *a, zp_fr *b, zp_fr *c, const zp__pk *pk, int threads)
{
    uint64_t n = pk->domain_size;
    unsigned log2n = (unsigned)__builtin_ctzll(n);
    bool coset = pk->h_conv == ZP_H_COSET;
    /* The snarkjs shift is a root of order 2n, which must exist. */
    if (!is_pow2(n) || log2n + (coset ? 1u : 0u) > ZP_NTT_MAX_LOG2)
        return ZP_E_INVALID_ARG;
    zp_fr g;
    if (coset)
        zp_fr_root_of_unity(&g, log2n + 1, pk->roots);
    else
        zp_fr_from_u64(&g, 7);
    if (!coset)
        return h_tau(h, a, b, c, log2n, &g, pk->roots, threads);
    /* COSET: h is A·B − C on the coset g·⟨ω⟩ itself. */
    zp_err e;
    if ((e = zp__cpu_ntt_to_coset(a, log2n, &g, pk->roots, threads)) ||
        (e = zp__cpu_ntt_to_coset(b, log2n, &g, pk->roots, threads)) ||
        (e = zp__cpu_ntt_to_coset(c, log2n, &g, pk->roots, threads)))
        return e;
    comb_ctx x = {.h = h, .a = a, .b = b, .c = c};
    zp__parallel_for((size_t)n, 1 << 14, comb_task, &x, threads);
    return ZP_OK;
}

/* ---------------------------------------------------------------- driver */

zp_err zp__g16_check_inputs(const zp__pk *pk, const zp_fr *w, uint64_t n_w,
                            const zp__prove_opts *o, zp__ioerr *why)
{
    if (!zp__pk_counts_ok(pk))
        return zp__fail(why, ZP_E_INVALID_ARG, "the proving key's counts disagree with each other");
    return zp__g16_check_witness(pk, w, n_w, o, why);
}

zp_err zp__g16_check_witness(const zp__pk *pk, const zp_fr *w, uint64_t n_w,
                             const zp__prove_opts *o, zp__ioerr *why)
{
    if ((o->r == NULL) != (o->s == NULL))
        return zp__fail(why, ZP_E_INVALID_ARG, "fix both blinding factors r and s, or neither");
    if (n_w != pk->n_vars)
        return zp__fail(why, ZP_E_WITNESS, "the witness has %llu values; the key wants %u",
                        (unsigned long long)n_w, pk->n_vars);
    if (!zp_fr_is_one(&w[0]))
        return zp__fail(why, ZP_E_WITNESS, "the witness does not start with 1 (w[0] = ONE)");
    const zp__r1cs *cs = o->cs;
    if (!cs)
        return ZP_OK;
    if (cs->n_vars != pk->n_vars || cs->n_public != pk->n_public)
        return zp__fail(why, ZP_E_INVALID_ARG,
                        "the circuit (%u variables, %u public) does not fit the key (%u, %u)",
                        cs->n_vars, cs->n_public, pk->n_vars, pk->n_public);
    uint64_t bad = 0;
    if (zp__r1cs_is_satisfied(cs, w, &bad))
        return ZP_OK;
    if (bad == UINT64_MAX)
        return zp__fail(why, ZP_E_INVALID_ARG,
                        "the circuit cannot be checked (no C matrix, or a column out of range)");
    return zp__fail(why, ZP_E_UNSATISFIED,
                    "the witness does not satisfy the circuit: constraint %llu fails",
                    (unsigned long long)bad);
}

/* The stages after the inputs are known good; out is written only after
 * the proof verifies. */
static zp_err run_stages(zp__proof *out, const zp__pk *pk, const zp_fr *w,
                         const zp__prove_opts *o, zp__prove_times *t, zp__ioerr *why)
{
    size_t n = (size_t)pk->domain_size;
    if (n > SIZE_MAX / (3 * sizeof(zp_fr)))
        return zp__fail(why, ZP_E_TOO_LARGE, "domain of %zu is too large", n);
    zp_fr *abc = malloc(3 * n * sizeof *abc);
    if (!abc)
        return zp__fail(why, ZP_E_NOMEM, "no memory for the a, b, c arrays of %zu values", n);
    zp_fr *a = abc, *b = abc + n, *c = abc + 2 * n;
    double t0 = now();
    zp__g16_eval(a, b, c, pk, w, o->threads);
    double t1 = now();
    t->eval = t1 - t0;
    zp_err e = zp__g16_h(a, a, b, c, pk, o->threads);
    t->h = now() - t1;
    zp__g16_sums sums;
    if (!e)
        e = zp__g16_msm(&sums, pk, w, a, o->threads, t);
    free(abc);
    if (e)
        return zp__fail(why, e, "proving failed: %s", zp_strerror(e));
    return zp__g16_finish_verify(out, pk, &sums, w, o, t, why);
}

zp_err zp__g16_finish_verify(zp__proof *out, const zp__pk *pk, const zp__g16_sums *sums,
                             const zp_fr *w, const zp__prove_opts *o, zp__prove_times *t,
                             zp__ioerr *why)
{
    return zp__g16_finish_verify_ahead(out, pk, sums, w, NULL, o, t, why);
}

/* The tail's end: a proof that verified goes to *out, else the error. */
static zp_err verdict(zp__proof *out, const zp__proof *p, zp_err e, zp__ioerr *why)
{
    if (e == ZP_E_VERIFY_FAILED)
        return zp__fail(why, ZP_E_UNSATISFIED,
                        "the proof does not verify: the witness does not satisfy the circuit "
                        "of this key");
    if (e)
        return zp__fail(why, e, "verifying the new proof failed: %s", zp_strerror(e));
    *out = *p;
    return ZP_OK;
}

zp_err zp__g16_finish_verify_ahead(zp__proof *out, const zp__pk *pk, const zp__g16_sums *sums,
                                   const zp_fr *w, const zp__g16_ahead *ahead,
                                   const zp__prove_opts *o, zp__prove_times *t,
                                   zp__ioerr *why)
{
    zp_fr r, s;
    zp__prove_times dummy;
    if (!t)
        t = &dummy;
    if (ahead) {
        r = ahead->r;
        s = ahead->s;
    } else if (o->r) {
        r = *o->r;
        s = *o->s;
    } else if (zp_fr_random(&r) || zp_fr_random(&s)) {
        return zp__fail(why, ZP_E_RANDOM, "the OS random source failed (blinding r, s)");
    }
    double t2 = now();
    zp__proof p;
    if (ahead)
        zp__g16_finish_ahead(&p, sums, ahead);
    else
        zp__g16_finish(&p, pk, sums, &r, &s);
    double t3 = now();
    t->finish = t3 - t2;
    zp_err e = ahead ? zp__verify_with_vk_x(&pk->vk, &ahead->vk_x, &p)
                     : zp__verify(&pk->vk, w + 1, pk->n_public, &p);
    t->verify = now() - t3;
    return verdict(out, &p, e, why);
}

zp_err zp__g16_finish_verify_early(zp__proof *out, const zp__pk *pk, const zp_g1_jac *sum_h,
                                   const zp__g16_early *early, zp__prove_times *t,
                                   zp__ioerr *why)
{
    zp__prove_times dummy;
    if (!t)
        t = &dummy;
    double t2 = now();
    zp__proof p;
    zp_g1_jac pc;
    p.a = early->v.a;
    p.b = early->v.b;
    zp_g1_jac_add(&pc, &early->c_less_h, sum_h);
    zp_g1_jac_to_affine(&p.c, &pc);
    double t3 = now();
    t->finish = t3 - t2;
    zp_err e = early->e ? early->e : zp__verify_late(&early->v, &pk->vk, &p);
    t->verify = now() - t3;
    return verdict(out, &p, e, why);
}

zp_err zp__prove(zp__proof *out, const zp__pk *pk, const zp_fr *w, uint64_t n_w,
                 const zp__prove_opts *opt, zp__prove_times *times, zp__ioerr *why)
{
    zp__prove_opts def;
    zp__prove_times t;
    memset(&t, 0, sizeof t);
    if (!opt) {
        zp__prove_opts_default(&def);
        opt = &def;
    }
    zp_err e = zp__g16_check_inputs(pk, w, n_w, opt, why);
    if (!e && !zp__pk_shape_ok(pk))
        e = zp__fail(why, ZP_E_INVALID_ARG, "the proving key has no points on the host (they "
                     "were made on a GPU): prove with the GPU backend");
    if (!e)
        e = run_stages(out, pk, w, opt, &t, why);
    if (times)
        *times = t;
    return e;
}
