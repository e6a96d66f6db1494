/*
 * The Groth16 verifier: one multi-pairing with one final exponentiation,
 *   e(−π_A, π_B)·e(α₁, β₂)·e(vk_x, γ₂)·e(π_C, δ₂) = 1,
 * which is e(π_A, π_B) = e(α₁, β₂)·e(vk_x, γ₂)·e(π_C, δ₂) with the left side
 * moved over, so the four Miller loops share one final exponentiation.
 *
 * Two ways to the same Fp12 value before the final exponentiation: the plain
 * one runs all four Miller loops (the reference), the prepared one takes
 * what does not depend on the proof from a zp__vk_prep made once per key:
 * the Miller loop of (α₁, β₂) and the lines of γ₂'s and δ₂'s loops. Only
 * (−π_A, π_B) is a whole Miller loop then; vk_x and π_C just evaluate lines.
 */
#include <stdlib.h>

#include "cpu/cpu.h"
#include "groth16/groth16.h"
#include "math/pairing.h"

struct zp__vk_prep {
    /* The key points it was made from: a vk changed after its preparation
     * (tests tamper with keys) is then checked the plain way, never
     * against values of the key it was. */
    zp_g1_affine alpha1;
    zp_g2_affine beta2, gamma2, delta2;
    zp_fp12 alpha_beta; /* Miller loop of (α₁, β₂), not final-exponentiated */
    zp__g2_lines gamma2_lines, delta2_lines;
};

/* vk_x = IC₀ + Σ pub_i·IC_{i+1}. */
static zp_err public_sum(zp_g1_affine *out, const zp__vk *vk, const zp_fr *pub, size_t n)
{
    zp_fr *plain = malloc((n + 1) * sizeof *plain);
    if (!plain)
        return ZP_E_NOMEM;
    for (size_t i = 0; i < n; i++)
        zp_fr_from_mont(&plain[i], &pub[i]);
    zp_g1_jac acc;
    /* One thread: the sum is small and a verifier may run inside a worker. */
    zp_err e = zp__cpu_msm_g1(&acc, vk->ic + 1, plain, n, 1);
    free(plain);
    if (e)
        return e;
    zp_g1_jac_add_affine(&acc, &acc, &vk->ic[0]);
    zp_g1_jac_to_affine(out, &acc);
    return ZP_OK;
}

static bool ic_fits(const zp__vk *vk, size_t n_pub)
{
    return vk->n_ic != 0 && vk->ic && n_pub == (size_t)vk->n_ic - 1;
}

zp_err zp__verify_vk_x(zp_g1_affine *vk_x, const zp__vk *vk, const zp_fr *pub, size_t n_pub)
{
    return ic_fits(vk, n_pub) ? public_sum(vk_x, vk, pub, n_pub) : ZP_E_BAD_LENGTH;
}

/* Pairing inputs must lie in their subgroups; a proof from a reader is
 * checked already, but one built in memory might not be. */
static zp_err check_proof(const zp__proof *proof)
{
    zp_err e;
    if ((e = zp__g1_check(&proof->a)) || (e = zp__g2_check(&proof->b)) ||
        (e = zp__g1_check(&proof->c)))
        return e;
    return ZP_OK;
}

/* The checks both ways share, then vk_x. */
static zp_err check_inputs(zp_g1_affine *vk_x, const zp__vk *vk, const zp_fr *pub, size_t n_pub,
                           const zp__proof *proof)
{
    if (!ic_fits(vk, n_pub))
        return ZP_E_BAD_LENGTH;
    zp_err e = check_proof(proof);
    return e ? e : public_sum(vk_x, vk, pub, n_pub);
}

/* The four Miller loops, given vk_x. */
static zp_err pairing_plain(const zp__vk *vk, const zp_g1_affine *vk_x, const zp__proof *proof)
{
    zp_g1_affine p[4];
    zp_g2_affine q[4];
    p[2] = *vk_x;
    zp_g1_affine_neg(&p[0], &proof->a);
    q[0] = proof->b;
    p[1] = vk->alpha1;
    q[1] = vk->beta2;
    q[2] = vk->gamma2;
    p[3] = proof->c;
    q[3] = vk->delta2;
    zp_fp12 f;
    zp_multi_pairing(&f, p, q, 4);
    return zp_fp12_is_one(&f) ? ZP_OK : ZP_E_VERIFY_FAILED;
}

zp_err zp__verify_plain(const zp__vk *vk, const zp_fr *pub, size_t n_pub, const zp__proof *proof)
{
    zp_g1_affine vk_x;
    zp_err e = check_inputs(&vk_x, vk, pub, n_pub, proof);
    return e ? e : pairing_plain(vk, &vk_x, proof);
}

zp_err zp__vk_prep_make(zp__vk_prep **out, const zp__vk *vk)
{
    zp__vk_prep *p = malloc(sizeof *p);
    *out = p;
    if (!p)
        return ZP_E_NOMEM;
    p->alpha1 = vk->alpha1;
    p->beta2 = vk->beta2;
    p->gamma2 = vk->gamma2;
    p->delta2 = vk->delta2;
    zp_miller_loop(&p->alpha_beta, &vk->alpha1, &vk->beta2);
    zp__g2_lines_make(&p->gamma2_lines, &vk->gamma2);
    zp__g2_lines_make(&p->delta2_lines, &vk->delta2);
    return ZP_OK;
}

void zp__vk_prep_free(zp__vk_prep *p)
{
    free(p);
}

bool zp__vk_prep_fits(const zp__vk_prep *p, const zp__vk *vk)
{
    return zp_g1_affine_eq(&p->alpha1, &vk->alpha1) && zp_g2_affine_eq(&p->beta2, &vk->beta2) &&
           zp_g2_affine_eq(&p->gamma2, &vk->gamma2) && zp_g2_affine_eq(&p->delta2, &vk->delta2);
}

/*
 * One thread. Running (−π_A, π_B)'s loop beside the two lined pairs in a
 * second thread shortens one verify by about a fifth but costs more CPU
 * (a second squaring chain, a thread to spawn and join), and verifiers run
 * in the engine's pool (--verify-threads, one per core), so under load it
 * would slow the proofs behind it; a lone proof gains too little against
 * that.
 */
static zp_err pairing_prepared(const zp__vk_prep *prep, const zp_g1_affine *vk_x,
                               const zp__proof *proof)
{
    zp_g1_affine s[2], neg_a;
    s[0] = *vk_x;
    zp_g1_affine_neg(&neg_a, &proof->a);
    s[1] = proof->c;
    const zp__g2_lines *r[2] = {&prep->gamma2_lines, &prep->delta2_lines};
    zp_fp12 f;
    zp__miller_prepared(&f, &neg_a, &proof->b, 1, s, r, 2);
    zp_fp12_mul(&f, &f, &prep->alpha_beta);
    zp_final_exp(&f, &f);
    return zp_fp12_is_one(&f) ? ZP_OK : ZP_E_VERIFY_FAILED;
}

zp_err zp__verify_prepared(const zp__vk_prep *prep, const zp__vk *vk, const zp_fr *pub,
                           size_t n_pub, const zp__proof *proof)
{
    if (!zp__vk_prep_fits(prep, vk))
        return ZP_E_INVALID_ARG;
    zp_g1_affine vk_x;
    zp_err e = check_inputs(&vk_x, vk, pub, n_pub, proof);
    return e ? e : pairing_prepared(prep, &vk_x, proof);
}

const zp__vk_prep *zp__vk_prep_get(const zp__vk *vk)
{
    /* The cache is the one part of a vk that verification writes. A vk
     * is passed const but never defined const (every reader builds one at
     * run time), so writing it through these casts is defined. */
    _Atomic(zp__vk_prep *) *slot = (_Atomic(zp__vk_prep *) *)&vk->prep;
    zp__vk_prep *p = atomic_load_explicit(slot, memory_order_acquire);
    if (!p) {
        /* A key verified once (zkpipe prove, zkpipe verify of one proof)
         * would pay more to make it than it gets back: it pays off from the
         * second proof, so that is when it is made. */
        if (!atomic_exchange((atomic_bool *)&vk->used, true))
            return NULL;
        zp__vk_prep *mine;
        if (zp__vk_prep_make(&mine, vk))
            return NULL;
        /* Two verifiers may race to make it: one keeps its copy and the
         * other frees its own and takes that. */
        if (atomic_compare_exchange_strong_explicit(slot, &p, mine, memory_order_acq_rel,
                                                    memory_order_acquire))
            p = mine;
        else
            zp__vk_prep_free(mine);
    }
    return zp__vk_prep_fits(p, vk) ? p : NULL;
}

zp_err zp__verify(const zp__vk *vk, const zp_fr *pub, size_t n_pub, const zp__proof *proof)
{
    const zp__vk_prep *prep = zp__vk_prep_get(vk);
    /* Without one (no memory, or a vk changed since) the plain way gives
     * the same verdict, only slower. */
    return prep ? zp__verify_prepared(prep, vk, pub, n_pub, proof)
                : zp__verify_plain(vk, pub, n_pub, proof);
}

zp_err zp__verify_with_vk_x(const zp__vk *vk, const zp_g1_affine *vk_x, const zp__proof *proof)
{
    zp_err e = check_proof(proof);
    if (e)
        return e;
    const zp__vk_prep *prep = zp__vk_prep_get(vk);
    return prep ? pairing_prepared(prep, vk_x, proof) : pairing_plain(vk, vk_x, proof);
}

zp_err zp__verify_early(zp__verify_part *v, const zp__vk *vk, const zp_g1_affine *vk_x,
                        const zp_g1_affine *a, const zp_g2_affine *b)
{
    v->a = *a;
    v->b = *b;
    v->vk_x = *vk_x;
    v->prep = NULL;
    zp_err e;
    if ((e = zp__g1_check(a)) || (e = zp__g2_check(b)))
        return e;
    const zp__vk_prep *prep = zp__vk_prep_get(vk);
    if (!prep)
        return ZP_OK; /* zp__verify_late verifies it all */
    zp_g1_affine neg_a;
    zp_g1_affine_neg(&neg_a, a);
    const zp__g2_lines *r[1] = {&prep->gamma2_lines};
    zp__miller_prepared(&v->f, &neg_a, b, 1, vk_x, r, 1);
    zp_fp12_mul(&v->f, &v->f, &prep->alpha_beta);
    v->prep = prep;
    return ZP_OK;
}

zp_err zp__verify_late(const zp__verify_part *v, const zp__vk *vk, const zp__proof *proof)
{
    if (!v->prep || !zp__vk_prep_fits(v->prep, vk) || !zp_g1_affine_eq(&v->a, &proof->a) ||
        !zp_g2_affine_eq(&v->b, &proof->b))
        return zp__verify_with_vk_x(vk, &v->vk_x, proof);
    zp_err e = zp__g1_check(&proof->c);
    if (e)
        return e;
    const zp__g2_lines *r[1] = {&v->prep->delta2_lines};
    zp_fp12 f;
    zp__miller_prepared(&f, NULL, NULL, 0, &proof->c, r, 1);
    zp_fp12_mul(&f, &f, &v->f);
    zp_final_exp(&f, &f);
    return zp_fp12_is_one(&f) ? ZP_OK : ZP_E_VERIFY_FAILED;
}
