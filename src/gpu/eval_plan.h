/*
 * The compact device layout of a CSR matrix for zp__gpu_eval_abc, planned
 * on the host (eval_plan.c). Shared by eval.cu (upload) and by
 * zp__gpu_csr_bytes, which both builds provide, so the key's device size
 * is exactly what the upload takes.
 *
 * Each nonzero has a one-byte code: ZP__EV_PLUS (+1), ZP__EV_MINUS (-1),
 * c in 2 .. 254: tab[c - 2], or ZP__EV_ESC (the coefficient is in esc, in
 * nonzero order). The table holds up to ZP__EV_TAB values that repeat in a
 * sample of the matrix (all of it when small, else ZP__EV_WINDOWS evenly
 * spaced windows): the most frequent there first, ties by first occurrence.
 * A code is then a function of the coefficient alone, so the passes over
 * the matrix run on all CPUs and give the same result on any count.
 */
#ifndef ZP_GPU_EVAL_PLAN_H
#define ZP_GPU_EVAL_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "r1cs/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZP__EV_PLUS 0u
#define ZP__EV_MINUS 1u
#define ZP__EV_ESC 255u
#define ZP__EV_TAB 253u /* codes 2 .. 254 */

/* The sample: ZP__EV_WINDOWS windows of ZP__EV_WIN nonzeros (the whole
 * matrix when it has no more), counted in a map of ZP__EV_CAND values. */
#define ZP__EV_WINDOWS 256u
#define ZP__EV_WIN 4096u
#define ZP__EV_CAND 8192u
#define ZP__EV_LOOKUP 1024u /* slots of the table's lookup */

typedef struct zp__ev_plan {
    zp_fr one, m1;
    uint32_t n_tab;
    zp_fr tab[ZP__EV_TAB];
    uint64_t tag[ZP__EV_LOOKUP]; /* nonzero digest of the slot's value, 0: free */
    uint8_t idx[ZP__EV_LOOKUP];  /* its index in tab */
    /* totals */
    bool rp64;       /* row pointers as uint64 (nnz >= 2^32) */
    uint64_t n_esc;  /* escaped nonzeros */
    uint64_t n_long; /* rows longer than ZP__GPU_EVAL_SHORT */
    /* byte offsets of the regions in the device block, and its arena size */
    uint64_t o_rp, o_col, o_code, o_bits, o_rank, o_esc, o_tab, o_long, end, bytes;
} zp__ev_plan;

/* Plans m: the table, the totals, the layout. Reads row_ptr[0 .. nrows]
 * and val[0 .. nnz) only. threads <= 0: one per online CPU. ZP_E_NOMEM
 * when the sample's map cannot be had. */
zp_err zp__ev_plan_make(zp__ev_plan *p, const zp__csr *m, int threads);
/* The code of a nonzero whose coefficient is *v. */
uint8_t zp__ev_code(const zp__ev_plan *p, const zp_fr *v);
/* codes[j] and bit j of bits (64 * ceil(n / 64) bits, cleared here) for
 * the coefficients v[0 .. n), on up to `threads` threads. */
void zp__ev_encode(const zp__ev_plan *p, uint8_t *codes, uint64_t *bits, const zp_fr *v,
                   uint64_t n, int threads);

#ifdef __cplusplus
}
#endif

#endif
