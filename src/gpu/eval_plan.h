/*
 * The compact device layout of a CSR matrix for zp__gpu_eval_abc, planned
 * on the host (eval_plan.c). Shared by eval.cu (upload) and by
 * zp__gpu_csr_bytes, which both builds provide, so the key's device size
 * is exactly what the upload takes.
 *
 * Each nonzero has a one-byte code: ZP__EV_PLUS (+1), ZP__EV_MINUS (-1),
 * ZP__EV_ESC (the coefficient is in esc, in nonzero order) or c: tab[c - 2].
 * The table holds values met at least twice, in the order their second
 * occurrence is met, while it has room; the first occurrence of such a
 * value and every value never seen twice (or seen after the candidate map
 * filled) are escaped. The code of a nonzero depends only on the
 * coefficients before it, so a replay gives the same codes.
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

/* Candidate map: at most ZP__EV_CAND distinct values are counted. */
#define ZP__EV_CAND 4096u
#define ZP__EV_SLOTS (2 * ZP__EV_CAND)

typedef struct zp__ev_slot {
    zp_fr v;
    uint32_t count;
    int32_t code; /* -1 while not in the table */
    bool used;
} zp__ev_slot;

typedef struct zp__ev_plan {
    zp_fr one, m1;
    zp__ev_slot *map; /* ZP__EV_SLOTS */
    uint32_t n_cand, n_tab;
    zp_fr tab[ZP__EV_TAB];
    /* totals after zp__ev_plan_scan */
    bool rp64;       /* row pointers as uint64 (nnz >= 2^32) */
    uint64_t n_esc;  /* escaped nonzeros */
    uint64_t n_long; /* rows longer than ZP__GPU_EVAL_SHORT */
    /* byte offsets of the regions in the device block, and its arena size */
    uint64_t o_rp, o_col, o_code, o_bits, o_rank, o_esc, o_tab, o_long, end, bytes;
} zp__ev_plan;

/* Starts a plan (no nonzero seen). ZP_E_NOMEM when the map cannot be had. */
zp_err zp__ev_plan_init(zp__ev_plan *p);
void zp__ev_plan_free(zp__ev_plan *p);
/* The code of the next nonzero, whose coefficient is *v (updates p). */
uint8_t zp__ev_plan_code(zp__ev_plan *p, const zp_fr *v);
/* Codes every nonzero of m, counts long rows, and lays out the regions.
 * Reads row_ptr[0 .. nrows] and val[0 .. nnz) only. */
zp_err zp__ev_plan_scan(zp__ev_plan *p, const zp__csr *m);
/* Empties the map and table so the codes can be replayed (keeps totals). */
void zp__ev_plan_restart(zp__ev_plan *p);

#ifdef __cplusplus
}
#endif

#endif
