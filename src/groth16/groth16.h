/*
 * The Groth16 prover (stage by stage), verifier, test-key setup and the
 * 192-byte proof encoding. Internal to libzkpipe (zp__ names).
 *
 * The prover is split into the stages of docs/architecture.md so that another
 * backend (the GPU) can implement one stage and be compared with this one
 * value for value:
 *
 *   eval    a = A·w, b = B·w over the key's rows, c = a∘b, length n
 *   h       the H-query scalars from a, b, c (convention of the key)
 *   msm     the five sums ΣA, ΣB1, ΣB2 (G2), ΣL, ΣH
 *   finish  π_A, π_B, π_C from the sums, the key and the blinding r, s
 *   verify  the pairing check against the key's verifying key
 *
 * Witness values and h are Montgomery form; the MSM stage converts them to
 * the standard-form scalars the MSM takes.
 */
#ifndef ZP_GROTH16_H
#define ZP_GROTH16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/progress.h"
#include "io/key.h"
#include "io/io.h"
#include "r1cs/r1cs.h"
#include "zkpipe.h"

/* ------------------------------------------------------------ the prover */

/* Wall time of each stage of one proof, in seconds (monotonic clock). */
typedef struct zp__prove_times {
    double eval, h, msm_a, msm_b1, msm_b2, msm_l, msm_h, finish, verify;
    /* A streaming key's schedule (GPU): the host's wait for its chunks'
     * points to cross, after h and counted in none of the msm_* above. */
    double msm_wait;
    /* The GPU slot ran L, A, B1 and B2 (in that order) beside h, from its
     * start, and H after both; else every stage after the one before. */
    bool msm_beside_h;
} zp__prove_times;

/* The time from eval's start to the proof verified: the stages one after
 * another, except that h and the four MSMs beside it overlap (the longer
 * counts). */
static inline double zp__prove_times_total(const zp__prove_times *t)
{
    double w = t->msm_l + t->msm_a + t->msm_b1 + t->msm_b2;
    double hw = t->msm_beside_h ? (t->h > w ? t->h : w) : t->h + w;
    return t->eval + hw + t->msm_h + t->msm_wait + t->finish + t->verify;
}/* The sums of the MSM stage, before blinding. */
typedef struct zp__g16_sums {
    zp_g1_jac a;   /* Σ w_i A_i over a_density */
    zp_g1_jac b1;  /* Σ w_i B1_i over b_density */
    zp_g2_jac b2;  /* Σ w_i B2_i over b_density */
    zp_g1_jac l;   /* Σ w_i L_i over i = n_public+1 .. n_vars-1 */
    zp_g1_jac h;   /* Σ h_j H_j over j < n_h */
} zp__g16_sums;

typedef struct zp__prove_opts {
    int threads;          /* <= 0: one per online CPU */
    /* Blinding factors (Montgomery form). Both NULL: fresh from
     * zp_fr_random for every proof. Both set: used as given, so tests can
     * compare proofs byte for byte. Never fix them in production: two
     * proofs with the same r, s leak the witness difference. */
    const zp_fr *r, *s;
    /* The circuit, when the caller has it (synthetic, .r1cs): its
     * satisfaction is checked before any proving work, naming the first
     * bad row. Must have C (keep_c) and n_vars equal to the key's. */
    const zp__r1cs *cs;
} zp__prove_opts;

void zp__prove_opts_default(zp__prove_opts *o);

/* True when pk's counts agree with each other (popcounts, lengths,
 * domain a power of two, matrices inside the domain and n_vars). */
bool zp__pk_shape_ok(const zp__pk *pk);
/* The same checks without asking for the point arrays: for a key whose
 * points live on a device only (zp__g16_dkey_setup). */
bool zp__pk_counts_ok(const zp__pk *pk);

/*
 * Stage eval. a, b, c have pk->domain_size entries each:
 *   a[i] = Σ_j ma[i][j] w[j], b[i] = Σ_j mb[i][j] w[j] for rows of the key,
 *   zero for rows beyond them; c[i] = a[i]·b[i].
 * w has pk->n_vars entries. Cannot fail for a key with zp__pk_shape_ok.
 */
void zp__g16_eval(zp_fr *a, zp_fr *b, zp_fr *c, const zp__pk *pk, const zp_fr *w,
                  int threads);

/*
 * Stage h. Consumes a, b, c (overwritten) and writes the pk->n_h H-query
 * scalars (Montgomery form) to h, which may alias a. n = domain_size,
 * ω = the n-th root of pk->roots:
 *  ZP_H_COSET: x' = NTT(ω_2n^k · iNTT(x)_k) for x = a, b, c, i.e. x on the
 *              odd coset ω_2n·⟨ω⟩; h_j = a'_j b'_j − c'_j (no division).
 *  ZP_H_TAU:   x' = coset NTT with g = 7 of iNTT(x); h = iNTT on the coset
 *              of (a'b' − c')·(gⁿ − 1)⁻¹; the first n − 1 coefficients.
 *              Computed as (iNTT on the coset of a'b' − iNTT(c))·(gⁿ − 1)⁻¹,
 *              the same values with one transform fewer (c' is not made).
 * ZP_E_NOMEM (NTT scratch), ZP_E_INVALID_ARG for a domain beyond 2^31.
 */
zp_err zp__g16_h(zp_fr *h, zp_fr *a, zp_fr *b, zp_fr *c, const zp__pk *pk, int threads);

/* Stage msm: the five sums. t (may be NULL) receives msm_a .. msm_h.
 * ZP_E_NOMEM when scalar or MSM scratch cannot be allocated. */
zp_err zp__g16_msm(zp__g16_sums *out, const zp__pk *pk, const zp_fr *w, const zp_fr *h,
                   int threads, zp__prove_times *t);

/*
 * Stage finish (r, s Montgomery form):
 *   π_A = α₁ + ΣA + rδ₁,  π_B = β₂ + ΣB2 + sδ₂,  B′ = β₁ + ΣB1 + sδ₁,
 *   π_C = ΣL + ΣH + s·π_A + r·B′ − rs·δ₁.
 * Uses variable-time scalar multiplication.
 */
void zp__g16_finish(zp__proof *out, const zp__pk *pk, const zp__g16_sums *sums,
                    const zp_fr *r, const zp_fr *s);

/*
 * What a prover can make before its sums exist (while its device works):
 * r, s and the finish's terms that depend on them and the key only, and
 * the verifier's vk_x from the public inputs. With them
 *   π_A = ΣA + pa,  π_B = ΣB2 + pb,  π_C = ΣL + ΣH + s·ΣA + r·ΣB1 + pc,
 * since s·π_A + r·B′ − rs·δ₁ = s·ΣA + r·ΣB1 + sα₁ + rβ₁ + rsδ₁: two scalar
 * multiplications after the sums instead of five and one in G2.
 */
typedef struct zp__g16_ahead {
    zp_fr r, s;
    zp_g1_jac pa, pc; /* α₁ + rδ₁;  sα₁ + rβ₁ + rsδ₁ */
    zp_g2_jac pb;     /* β₂ + sδ₂ */
    zp_g1_affine vk_x;
} zp__g16_ahead;
/* r, s fixed from o or fresh from the OS (ZP_E_RANDOM), the terms, and
 * vk_x from w + 1 (zp__verify_vk_x: ZP_E_BAD_LENGTH). */
zp_err zp__g16_ahead_make(zp__g16_ahead *a, const zp__pk *pk, const zp_fr *w,
                          const zp__prove_opts *o);
/* zp__g16_finish with a's terms: the same proof as zp__g16_finish with
 * a's r and s. */
void zp__g16_finish_ahead(zp__proof *out, const zp__g16_sums *sums, const zp__g16_ahead *a);

/* The input checks both provers share: r and s fixed together or not at
 * all, a consistent key (zp__pk_counts_ok: its points may live on a device
 * only), a witness of n_vars values starting with 1
 * (ZP_E_WITNESS), and, when o->cs is given, that it fits the key and the
 * witness satisfies it (ZP_E_UNSATISFIED naming the first failing row). */
zp_err zp__g16_check_inputs(const zp__pk *pk, const zp_fr *w, uint64_t n_w,
                            const zp__prove_opts *o, zp__ioerr *why);
/* The same without the key's counts (zp__pk_counts_ok counts both
 * density bitmaps, a pass over them a proof), for a key checked once
 * when it was made resident (zp__g16_gpu_key_ok). */
zp_err zp__g16_check_witness(const zp__pk *pk, const zp_fr *w, uint64_t n_w,
                             const zp__prove_opts *o, zp__ioerr *why);

/* The tail both provers share: r, s (fixed from o or fresh from the OS),
 * finish, then verify against pk's vk; times go to t->finish and
 * t->verify (t may be NULL). A proof that does not verify is ZP_E_UNSATISFIED and *out is
 * left untouched. */
zp_err zp__g16_finish_verify(zp__proof *out, const zp__pk *pk, const zp__g16_sums *sums,
                             const zp_fr *w, const zp__prove_opts *o, zp__prove_times *t,
                             zp__ioerr *why);
/* The same with what zp__g16_ahead_make made for (pk, w, o) ahead: its
 * r, s, finish terms and vk_x (ahead NULL: all made here). */
zp_err zp__g16_finish_verify_ahead(zp__proof *out, const zp__pk *pk, const zp__g16_sums *sums,
                                   const zp_fr *w, const zp__g16_ahead *ahead,
                                   const zp__prove_opts *o, zp__prove_times *t,
                                   zp__ioerr *why);

/*
 * All stages, then the verification of the proof against pk->vk; only a
 * proof that verifies is written to *out (untouched otherwise).
 *   ZP_E_WITNESS      n_w != pk->n_vars, or w[0] != 1
 *   ZP_E_INVALID_ARG  the key's counts disagree (zp__pk_shape_ok), or
 *                     opt->cs does not fit the key, or only one of r, s set
 *   ZP_E_UNSATISFIED  opt->cs is given and a row fails (named in why), or
 *                     the proof does not verify: the witness does not
 *                     satisfy the circuit of the key
 *   ZP_E_NOMEM, ZP_E_RANDOM
 * opt may be NULL (defaults); times and why may be NULL.
 */
zp_err zp__prove(zp__proof *out, const zp__pk *pk, const zp_fr *w, uint64_t n_w,
                 const zp__prove_opts *opt, zp__prove_times *times, zp__ioerr *why);

/* ---------------------------------------------------------- the verifier */

/*
 * One multi-pairing: e(−π_A, π_B)·e(α₁, β₂)·e(IC₀ + Σ pub_i·IC_{i+1}, γ₂)·
 * e(π_C, δ₂) = 1. pub are the public inputs (Montgomery form), n_pub must be
 * vk->n_ic − 1 (ZP_E_BAD_LENGTH otherwise). The proof points are checked
 * (on curve, in subgroup: ZP_E_NOT_ON_CURVE, ZP_E_NOT_IN_SUBGROUP); the vk
 * is trusted (its readers check it). ZP_OK or ZP_E_VERIFY_FAILED.
 */
zp_err zp__verify(const zp__vk *vk, const zp_fr *pub, size_t n_pub, const zp__proof *proof);

/* zp__verify in two parts, for a prover that knows the public inputs
 * before its proof: zp__verify_vk_x makes vk_x = IC₀ + Σ pub_i·IC_{i+1}
 * (ZP_E_BAD_LENGTH as zp__verify), and zp__verify_with_vk_x checks the
 * proof's points and the pairing equation with it; the same verdicts and
 * errors as zp__verify, given a vk_x that zp__verify_vk_x made for vk. */
zp_err zp__verify_vk_x(zp_g1_affine *vk_x, const zp__vk *vk, const zp_fr *pub, size_t n_pub);
zp_err zp__verify_with_vk_x(const zp__vk *vk, const zp_g1_affine *vk_x, const zp__proof *proof);

/*
 * zp__verify_with_vk_x in two parts, for a prover that has π_A and π_B
 * before π_C (its H sum still running): zp__verify_early checks π_A and π_B
 * (on curve, in subgroup) and, where vk has its prepared form, runs the
 * Miller loops that need no π_C, (−π_A, π_B) and (vk_x, γ₂), times (α₁,
 * β₂)'s; zp__verify_late checks π_C and runs (π_C, δ₂)'s loop and the
 * final exponentiation. The loops' product is the one multi-pairing's, so
 * the verdicts and errors are zp__verify_with_vk_x's. zp__verify_late
 * given a proof whose π_A, π_B are not the early part's, or an early part
 * made without the prepared form, verifies the whole proof instead.
 */
typedef struct zp__verify_part {
    zp_g1_affine a, vk_x;       /* with b, what zp__verify_early was given */
    zp_g2_affine b;
    zp_fp12 f;                  /* the loops so far, when prep is set */
    const zp__vk_prep *prep;    /* vk's, or NULL */
} zp__verify_part;
zp_err zp__verify_early(zp__verify_part *v, const zp__vk *vk, const zp_g1_affine *vk_x,
                        const zp_g1_affine *a, const zp_g2_affine *b);
zp_err zp__verify_late(const zp__verify_part *v, const zp__vk *vk, const zp__proof *proof);

/*
 * The tail split at ΣH, for a prover whose sums over the witness (ΣA, ΣB1,
 * ΣB2, ΣL) exist while its device still sums H: zp__g16_early_make makes
 * from them and a's terms π_A, π_B and π_C less ΣH, and the verify's part
 * that needs no π_C (zp__verify_early: its error in e);
 * zp__g16_finish_verify_early adds ΣH and does the rest. The same proof
 * and verdict as zp__g16_finish_verify_ahead with a.
 */
typedef struct zp__g16_early {
    zp__verify_part v; /* with π_A, π_B (v.a, v.b) */
    zp_g1_jac c_less_h;
    zp_err e;
} zp__g16_early;
void zp__g16_early_make(zp__g16_early *out, const zp__pk *pk, const zp__g16_sums *sums,
                        const zp__g16_ahead *a);
/* zp__g16_finish_verify_ahead's proof and verdict from e and ΣH; times go
 * to t->finish and t->verify (t may be NULL). */
zp_err zp__g16_finish_verify_early(zp__proof *out, const zp__pk *pk, const zp_g1_jac *sum_h,
                                   const zp__g16_early *e, zp__prove_times *t, zp__ioerr *why);

/*
 * zp__verify takes the prepared way (zp__verify_prepared) with vk's
 * zp__vk_prep, made by its second call for vk and kept in vk->prep for the
 * key's life; the first call, and any when it cannot be made or no longer
 * fits vk, take the plain way. Both ways give the same Fp12 value before
 * the final exponentiation, so the same verdict, and the same errors.
 */

/* The reference: four Miller loops of the plain points. */
zp_err zp__verify_plain(const zp__vk *vk, const zp_fr *pub, size_t n_pub, const zp__proof *proof);

/* What verification needs of vk's fixed points, made once (~40 KB): the
 * Miller loop of (α₁, β₂) and the lines of γ₂'s and δ₂'s. ZP_E_NOMEM. */
zp_err zp__vk_prep_make(zp__vk_prep **out, const zp__vk *vk);
/* True when p was made from vk's α₁, β₂, γ₂, δ₂ as they are now. */
bool zp__vk_prep_fits(const zp__vk_prep *p, const zp__vk *vk);
/* vk->prep, made on the second call for vk (thread-safe); NULL before
 * that, when it cannot be made or when it no longer fits vk. */
const zp__vk_prep *zp__vk_prep_get(const zp__vk *vk);
/* zp__verify with the work of prep done ahead; ZP_E_INVALID_ARG when prep
 * does not fit vk. */
zp_err zp__verify_prepared(const zp__vk_prep *prep, const zp__vk *vk, const zp_fr *pub,
                           size_t n_pub, const zp__proof *proof);

/* ------------------------------------------------------------- test keys */

/* The toxic waste of a setup (Montgomery form), all nonzero. */
typedef struct zp__toxic {
    zp_fr tau, alpha, beta, gamma, delta;
} zp__toxic;

/*
 * A TEST-ONLY proving key for cs: whoever knows the toxic waste can forge
 * proofs. toxic NULL draws it from zp_fr_random and forgets it; a given
 * toxic is used as is (tests). conv ZP_H_COSET gives a snarkjs-convention
 * key (5-based roots), ZP_H_TAU a bellperson one (7-based roots).
 *
 * Appends the rows A[n_constraints + s][s] = 1 for s = 0..n_public; the
 * domain is the smallest power of two >= n_constraints + n_public + 1.
 * Needs cs->c with as many rows as cs->a and cs->b.
 *   ZP_E_INVALID_ARG  bad cs (row counts, a column >= n_vars, n_public >=
 *                     n_vars), a zero toxic value or τ in the domain
 *   ZP_E_TOO_LARGE    the domain would exceed 2^31 (or the 2^32 variables)
 *   ZP_E_NOMEM, ZP_E_RANDOM
 * out is zeroed on failure; free with zp__pk_free.
 */
zp_err zp__setup(zp__pk *out, const zp__r1cs *cs, zp_h_conv conv, int threads,
                 const zp__toxic *toxic);
/* zp__setup reporting its longest part, the points ("making key points",
 * in points), to progress (NULL: silent). */
zp_err zp__setup_progress(zp__pk *out, const zp__r1cs *cs, zp_h_conv conv, int threads,
                          const zp__toxic *toxic, const zp__progress *progress);

/* --------------------------------------------------- 192-byte proof bytes */

#define ZP__PROOF_BYTES 192

/* A (48) ‖ B (96) ‖ C (48), zcash compressed. ZP_E_INFINITY when a point is
 * infinity (no reader would accept it). */
zp_err zp__proof_encode(uint8_t out[ZP__PROOF_BYTES], const zp__proof *p);
/* len must be 192 (ZP_E_BAD_LENGTH); every point is decoded and checked
 * (encoding, curve, subgroup); infinity is ZP_E_INFINITY. */
zp_err zp__proof_decode(zp__proof *out, const uint8_t *in, size_t len);
/* k proofs concatenated in partition order, no header: k·192 bytes. */
zp_err zp__proofs_encode(uint8_t *out, const zp__proof *p, size_t k);
/* *k = len / 192 proofs into out (room for max_k); ZP_E_BAD_LENGTH when len
 * is 0 or not a multiple of 192, ZP_E_TOO_LARGE when more than max_k. */
zp_err zp__proofs_decode(zp__proof *out, size_t max_k, size_t *k, const uint8_t *in,
                         size_t len);


/* -------------------------------------------------------- the GPU prover */

/*
 * The same stages on one CUDA device through gpu/gpu.h (prove_gpu.c). The
 * key's points and matrices are uploaded once at open and stay resident;
 * each proof uploads its witness, evaluates a, b, c and the H scalars on the
 * device, runs the five MSMs there, and finishes and verifies on the host
 * with zp__g16_finish / zp__verify, so a proof with fixed r, s is the CPU
 * prover's, byte for byte. Without CUDA (or a device) every call reports
 * ZP_E_NO_GPU.
 */
typedef struct zp__g16_gpu zp__g16_gpu;
/* The GPU prover's options (gpu_prover.h). */
typedef struct zp__g16_gpu_opts zp__g16_gpu_opts;

/*
 * Opens CUDA device `device` and uploads pk (which must outlive the
 * context and carry its matrices ma, mb), with the options o (NULL: the
 * defaults; an H table only where o's tuning fixes its windows, since the
 * context proves few proofs). threads: unused (nothing is left on the
 * host to spread over threads).
 *   ZP_E_INVALID_ARG  the key's counts disagree (zp__pk_shape_ok)
 *   ZP_E_UNSUPPORTED  a key without matrices, or a domain below 2 or
 *                     beyond the GPU NTT
 *   ZP_E_NO_GPU, ZP_E_GPU_OOM, ZP_E_GPU, ZP_E_GPU_FATAL, ZP_E_NOMEM
 */
zp_err zp__g16_gpu_open(zp__g16_gpu **out, const zp__pk *pk, int device, int threads,
                        const zp__g16_gpu_opts *o, zp__ioerr *why);
void zp__g16_gpu_close(zp__g16_gpu *g);

/* Stage eval on the device: uploads w (pk->n_vars values, Montgomery) and
 * leaves a, b, c there. Waits for the device. */
zp_err zp__g16_gpu_eval(zp__g16_gpu *g, const zp_fr *w);
/* Stage h on the device from the a, b, c of zp__g16_gpu_eval (consumed);
 * leaves the pk->n_h H scalars there in STANDARD form (the MSM's input):
 * zp_fr_from_mont of what zp__g16_h writes. Waits for the device. */
zp_err zp__g16_gpu_h(zp__g16_gpu *g);

/* Which device array zp__g16_gpu_read copies back (for tests). */
typedef enum zp__g16_gpu_array {
    ZP_G16_GPU_A, ZP_G16_GPU_B, ZP_G16_GPU_C, /* domain_size, Montgomery; after eval */
    ZP_G16_GPU_H,                             /* n_h, standard form; after h */
} zp__g16_gpu_array;
zp_err zp__g16_gpu_read(zp__g16_gpu *g, zp_fr *out, zp__g16_gpu_array which);

/* Stage msm on the device with the H scalars of zp__g16_gpu_h; w as given
 * to eval. t (may be NULL) receives msm_a .. msm_h; msm_a includes the host
 * conversion, gathers and upload of the witness scalars. */
zp_err zp__g16_gpu_msm(zp__g16_sums *out, zp__g16_gpu *g, const zp_fr *w,
                       zp__prove_times *t);

/* All stages as zp__prove does (same checks, errors and times; opt->threads
 * is ignored: the context's is used), with eval, h and msm on the device. */
zp_err zp__g16_gpu_prove(zp__g16_gpu *g, zp__proof *out, const zp_fr *w, uint64_t n_w,
                         const zp__prove_opts *opt, zp__prove_times *times, zp__ioerr *why);

#endif
