/*
 * The G1 and G2 batch-affine flushes on eight lanes with AVX-512 IFMA
 * (msm_ifma.c), called by msm_impl.h's bat_flush when zp__msm_ifma is on.
 */
#ifndef ZP_CPU_MSM_IFMA_H
#define ZP_CPU_MSM_IFMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "math/fp_ifma.h"
#include "zkpipe.h"

/* Whether the CPU code uses the IFMA kernels (the MSM flush, the .zkey G1
 * subgroup tests): set at load time to zp__ifma_available() (ifma.c), off
 * with zp_cpu_set_ifma(false); tests switch it off to run the scalar
 * twins. Nothing may change it while they run. */
extern bool zp__msm_ifma;

/* The most pairs an affine Pippenger run copies into the lanes' R' form
 * first (msm_impl.h): 2^20, i.e. at most 224 MB of copies for G2; tests
 * set it to 0 to run the flush on library-form data. */
extern size_t zp__msm_raw_max;

/* Per-batch scratch: six vectors per group of eight additions (twelve for
 * G2, whose coordinates are two). */
typedef struct zp__flush8 {
    zp__fp52x8 *v;
    size_t groups;
} zp__flush8;

bool zp__flush8_alloc(zp__flush8 *s, size_t cap, unsigned width); /* width 1 G1, 2 G2 */
void zp__flush8_free(zp__flush8 *s);

/*
 * b[eb[k] & ~dbl_bit] += eq[k] for k < cnt (cap at most), affine, with
 * one inversion: the same sums as bat_flush. eb[k] has dbl_bit set where
 * the bucket doubles (eq[k] equals it); buckets are pairwise distinct.
 * raw: b and eq are in R' form (fp_ifma.h) and b stays in it.
 */
void zp__g1_flush8(zp__flush8 *s, zp_g1_affine *b, const uint32_t *eb, const zp_g1_affine *eq,
                   size_t cnt, uint32_t dbl_bit, bool raw);
void zp__g2_flush8(zp__flush8 *s, zp_g2_affine *b, const uint32_t *eb, const zp_g2_affine *eq,
                   size_t cnt, uint32_t dbl_bit, bool raw);

/*
 * The bucket folds of n <= 8 tasks at once, one a lane (msm_fold_impl.h):
 * *out[k] = sum_j (j + 1) (b[k][j] + x[k][j]) over j < nb, where st[k][j]
 * & full_bit says b[k][j] (affine, R' form) is there and & spill_bit that
 * x[k][j] (XYZZ, library form) is. Only when zp__msm_ifma.
 */
void zp__g1_fold8(zp_g1_xyzz *const out[8], const zp_g1_affine *const b[8],
                  const zp_g1_xyzz *const x[8], const uint8_t *const st[8], int n, size_t nb,
                  uint8_t full_bit, uint8_t spill_bit);
void zp__g2_fold8(zp_g2_xyzz *const out[8], const zp_g2_affine *const b[8],
                  const zp_g2_xyzz *const x[8], const uint8_t *const st[8], int n, size_t nb,
                  uint8_t full_bit, uint8_t spill_bit);

/* One coordinate into and out of R' form (Fp2: both halves). */
void zp__fp2_to_r52(zp_fp2 *out, const zp_fp2 *in);
void zp__fp2_from_r52(zp_fp2 *out, const zp_fp2 *in);

/* out[i] = *in[i] in R' form for i < n (in[i] NULL: infinity, all zero),
 * eight at a time on the lanes when zp__msm_ifma. */
void zp__g1_to_r52(zp_g1_affine *out, const zp_g1_affine *const *in, size_t n);
void zp__g2_to_r52(zp_g2_affine *out, const zp_g2_affine *const *in, size_t n);

/* 1/a in Fp2 by the norm and the variable-time Fp inversion (msm.c). */
void zp__fp2_inv_vartime(zp_fp2 *out, const zp_fp2 *a);

#endif
