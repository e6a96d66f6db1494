/*
 * The Groth16 verifier: one multi-pairing with one final exponentiation,
 *   e(−π_A, π_B)·e(α₁, β₂)·e(vk_x, γ₂)·e(π_C, δ₂) = 1,
 * which is e(π_A, π_B) = e(α₁, β₂)·e(vk_x, γ₂)·e(π_C, δ₂) with the left side
 * moved over, so the four Miller loops share one final exponentiation.
 */
#include <stdlib.h>

#include "cpu/cpu.h"
#include "groth16/groth16.h"

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

zp_err zp__verify(const zp__vk *vk, const zp_fr *pub, size_t n_pub, const zp__proof *proof)
{
    if (vk->n_ic == 0 || !vk->ic || n_pub != (size_t)vk->n_ic - 1)
        return ZP_E_BAD_LENGTH;
    /* Pairing inputs must lie in their subgroups; a proof from a reader is
     * checked already, but one built in memory might not be. */
    zp_err e;
    if ((e = zp__g1_check(&proof->a)) || (e = zp__g2_check(&proof->b)) ||
        (e = zp__g1_check(&proof->c)))
        return e;
    zp_g1_affine p[4];
    zp_g2_affine q[4];
    if ((e = public_sum(&p[2], vk, pub, n_pub)))
        return e;
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
