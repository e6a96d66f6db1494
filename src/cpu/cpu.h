/*
 * The CPU backend: the Fr NTT and the G1/G2 multi-scalar multiplications,
 * over the parallel-for of base/pool.h. Internal to libzkpipe (zp__ names).
 *
 * Threads: every entry point takes `threads`; a value <= 0 means one thread
 * per online CPU. Calls are independent: there is no global pool, so two
 * callers never share or wait on each other's workers. Do not call these
 * functions from inside a zp__parallel_for callback expecting them to share
 * its threads: they start their own.
 */
#ifndef ZP_CPU_H
#define ZP_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pool.h"
#include "zkpipe.h"

/* ----------------------------------------------------------------- NTT */

/* Largest supported log2 of an NTT size (the 2-adicity of r - 1). */
#define ZP_NTT_MAX_LOG2 32

/*
 * In-place NTT of a[0 .. 2^log2n) over Fr, values in Montgomery form,
 * natural order in and out:
 *   forward: a[k] <- sum_j a[j] w^(jk),
 *   inverse: a[k] <- n^-1 sum_j a[j] w^(-jk),
 * with w = zp_fr_root_of_unity(log2n, roots). Returns ZP_E_INVALID_ARG when
 * log2n > ZP_NTT_MAX_LOG2 and ZP_E_NOMEM when scratch cannot be allocated
 * (then a is unchanged or partly transformed: treat it as garbage).
 */
zp_err zp__cpu_ntt(zp_fr *a, unsigned log2n, bool inverse, zp_roots roots, int threads);

/* a[i] <- a[i] * g^i for i < n. */
void zp__cpu_scale_by_powers(zp_fr *a, size_t n, const zp_fr *g, int threads);

/*
 * NTT on the coset g<w>: forward evaluates the polynomial with coefficients
 * a at g*w^k (scale by g^i, then NTT); inverse takes such evaluations back
 * to coefficients (iNTT, then scale by g^-i). Errors as zp__cpu_ntt.
 */
zp_err zp__cpu_coset_ntt(zp_fr *a, unsigned log2n, bool inverse, const zp_fr *g,
                         zp_roots roots, int threads);

/*
 * a holds the evaluations of a polynomial on <w>; they are replaced by its
 * evaluations on the coset g<w> (iNTT, then the coset NTT, with the n^-1
 * folded into the coset scaling). Errors as zp__cpu_ntt.
 */
zp_err zp__cpu_ntt_to_coset(zp_fr *a, unsigned log2n, const zp_fr *g, zp_roots roots,
                            int threads);

/* Slow O(n^2) reference of zp__cpu_ntt for tests: out must not alias a.
 * Allocates a table of n powers (ZP_E_NOMEM). */
zp_err zp__ntt_ref(zp_fr *out, const zp_fr *a, unsigned log2n, bool inverse, zp_roots roots);

/* ----------------------------------------------------------------- MSM */

/*
 * out = sum_i scalars[i] * points[i].
 *
 * Scalars are plain integers (NOT Montgomery form), little-endian limbs;
 * any 256-bit value is summed exactly as that integer multiple (callers
 * pass values < r). Points are affine in Montgomery form, in the
 * prime-order subgroup; the all-zero point (infinity) contributes nothing.
 * n may be 0 (out = infinity); both arrays must stay unchanged during the
 * call.
 *
 * zp__cpu_msm_*: splits the scalars into zeros (skipped), ones (summed by
 * plain additions) and the rest (Pippenger, window size chosen from the
 * count of the rest), in slices of 2^31 pairs. Returns ZP_E_NOMEM when
 * scratch cannot be allocated (out is then infinity).
 */
zp_err zp__cpu_msm_g1(zp_g1_jac *out, const zp_g1_affine *points, const zp_fr *scalars,
                      size_t n, int threads);
zp_err zp__cpu_msm_g2(zp_g2_jac *out, const zp_g2_affine *points, const zp_fr *scalars,
                      size_t n, int threads);

/*
 * The pieces, exposed for tests and for callers that classify by other
 * means (e.g. density maps).
 *
 * _pippenger: Pippenger over n pairs with no 0/1 split (any n). idx, when
 * not NULL, selects the pairs: the sum runs over points[idx[i]] times
 * scalars[idx[i]] for i < n. window 0 picks the window size from n and the
 * largest scalar; 1..16 forces it (ZP_E_INVALID_ARG above 16). Scratch: one
 * set of 2^(window-1) buckets per running task (affine, plus XYZZ side
 * buckets where collisions pile up; see zp__msm_mode).
 */
zp_err zp__cpu_msm_g1_pippenger(zp_g1_jac *out, const zp_g1_affine *points,
                                const zp_fr *scalars, const uint32_t *idx, size_t n,
                                unsigned window, int threads);
zp_err zp__cpu_msm_g2_pippenger(zp_g2_jac *out, const zp_g2_affine *points,
                                const zp_fr *scalars, const uint32_t *idx, size_t n,
                                unsigned window, int threads);

/*
 * How _pippenger fills its buckets. ZP__MSM_XYZZ: one mixed addition into
 * an XYZZ bucket per pair (the reference twin). ZP__MSM_AFFINE: affine
 * buckets, additions gathered into batches of independent ones that share
 * one field inversion (Montgomery's trick); a pair whose bucket is already
 * in the batch waits for the next one, or falls back to an XYZZ side bucket
 * when too many wait. ZP__MSM_AUTO: the cheaper one by a cost model.
 */
typedef enum zp__msm_mode { ZP__MSM_AUTO, ZP__MSM_XYZZ, ZP__MSM_AFFINE } zp__msm_mode;

/* _pippenger with the bucket method forced; batch (affine only) is the
 * number of additions per inversion, 0 for the default. _pippenger is
 * _pippenger_mode(..., ZP__MSM_AUTO, 0, threads). */
zp_err zp__cpu_msm_g1_pippenger_mode(zp_g1_jac *out, const zp_g1_affine *points,
                                     const zp_fr *scalars, const uint32_t *idx, size_t n,
                                     unsigned window, zp__msm_mode mode, size_t batch,
                                     int threads);
zp_err zp__cpu_msm_g2_pippenger_mode(zp_g2_jac *out, const zp_g2_affine *points,
                                     const zp_fr *scalars, const uint32_t *idx, size_t n,
                                     unsigned window, zp__msm_mode mode, size_t batch,
                                     int threads);

/* out = sum of points[i] over i < n (infinity allowed); when scalars is not
 * NULL, only over the i whose scalar is exactly 1. Returns ZP_E_NOMEM when
 * scratch cannot be allocated. */
zp_err zp__cpu_sum_g1(zp_g1_jac *out, const zp_g1_affine *points, const zp_fr *scalars,
                      size_t n, int threads);
zp_err zp__cpu_sum_g2(zp_g2_jac *out, const zp_g2_affine *points, const zp_fr *scalars,
                      size_t n, int threads);

/* Slow reference: sum of zp_g*_jac_mul_vartime, one thread. */
void zp__msm_g1_ref(zp_g1_jac *out, const zp_g1_affine *points, const zp_fr *scalars,
                    size_t n);
void zp__msm_g2_ref(zp_g2_jac *out, const zp_g2_affine *points, const zp_fr *scalars,
                    size_t n);

/*
 * _endo: _pippenger (automatic window) after an endomorphism split of every
 * scalar (msm_endo.c): G1 sums 2n pairs of <= 128-bit scalars over P and
 * -phi(P), G2 4n pairs of <= 64-bit scalars over (-psi)^j(P). Exact for any
 * 256-bit scalar; the points must be in the prime-order subgroup. Large n
 * (where the split gains little) go to _pippenger directly. Scratch: 2n or
 * 4n points and scalars (ZP_E_NOMEM, out infinity).
 */
zp_err zp__cpu_msm_g1_endo(zp_g1_jac *out, const zp_g1_affine *points, const zp_fr *scalars,
                           const uint32_t *idx, size_t n, int threads);
zp_err zp__cpu_msm_g2_endo(zp_g2_jac *out, const zp_g2_affine *points, const zp_fr *scalars,
                           const uint32_t *idx, size_t n, int threads);
/* The splits themselves, x = -0xd201000000010000: k = sum_j d[j] |x|^j
 * (d[0..2] < |x|), and k = d[0] + d[1] x^2 (d[0] < x^2). */
void zp__msm_split_x4(zp_fr d[4], const zp_fr *k);
void zp__msm_split_x2(zp_fr d[2], const zp_fr *k);

/* The window size Pippenger picks for n scalars of up to 255 bits (1..16). */
unsigned zp__msm_window(size_t n);

#endif
