/*
 * What a schedule's chunks sum into (prove_gpu_sched.c runs a slot's own
 * ring, prove_gpu_share.c a key's shared one): each chunk's MSM added to
 * its sum, H's and the G1 witness MSMs' into the slot's kept buckets
 * (zp__g16_accs), reduced once an MSM's chunks are in, and the times.
 */
#include <string.h>

#include "groth16/prove_gpu_sched_impl.h"

zp_err zp__g16_accs_begin(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_accs *a, double *tm)
{
    memset(a, 0, sizeof *a);
    a->w_msm = M_N;
    a->tm = tm;
    if (!s->w_acc.ptr) /* every slot with a ring has them */
        return ZP_E_INVALID_ARG;
    return zp__g16_h_acc_begin(s, k, &a->h, &a->h_on);
}

/* The G1 sum of MSM m in out. */
static zp_g1_jac *g1_sum_of(zp__g16_sums *out, unsigned m)
{
    return m == M_L ? &out->l : m == M_A ? &out->a : &out->b1;
}

/* The witness MSM in the kept buckets (if any) ended: its buckets reduced
 * and, with its ones, added to its sum in out; the time counted as its. */
static zp_err w_end(zp__g16_slot *s, zp__g16_accs *a, zp__g16_sums *out)
{
    if (a->w_msm == M_N)
        return ZP_OK;
    const double t0 = zp__g16_now();
    zp_g1_jac part, sum;
    zp_err e = zp__gpu_msm_g1_acc_end(s->msm_stream, &a->w, &part, s->msm_scratch);
    if (!e) {
        zp_g1_jac *to = g1_sum_of(out, a->w_msm);
        zp_g1_jac_add(&sum, &part, &a->w_ones);
        zp_g1_jac_add(&part, to, &sum);
        *to = part;
        a->tm[a->w_msm] += zp__g16_now() - t0;
    }
    a->w_msm = M_N;
    return e;
}

zp_err zp__g16_accs_end(zp__g16_slot *s, zp__g16_accs *a, zp__g16_sums *out)
{
    zp_err e = w_end(s, a, out);
    if (!e && a->h_on) {
        const double t0 = zp__g16_now();
        e = zp__g16_h_acc_end(s, &a->h, &out->h);
        a->tm[M_H] += zp__g16_now() - t0;
    }
    a->h_on = false;
    return e;
}

/* Adds one chunk's MSM to its sum: H's and the G1 witness MSMs' (L, A, B1)
 * into kept buckets, reduced once an MSM's last chunk is in (the witness
 * MSMs' chunks come one MSM after the other: at the first chunk of
 * another, or of B2, the one before ends), B2's each an MSM of its own. */
zp_err zp__g16_sched_chunk(zp__g16_slot *s, const zp__g16_dkey *k, const zp__g16_chunk *x,
                          const void *pts, zp__g16_sums *out, zp__g16_accs *a)
{
    zp_err e;
    if (x->msm == M_H)
        return zp__g16_h_chunk(s, &out->h, a->h_on ? &a->h : NULL, pts,
                               (const zp_fr *)s->work.ptr + x->p, x->len);
    const bool am = x->msm == M_A;
    const zp__gpu_wsc ws = {s->witness.ptr,
                            x->msm == M_L ? NULL : am ? k->a_words.ptr : k->b_words.ptr,
                            x->msm == M_L ? NULL : am ? k->a_rank.ptr : k->b_rank.ptr,
                            x->off, x->nv, x->j0};
    if (a->w_msm != x->msm && (e = w_end(s, a, out)))
        return e;
    if (x->msm == M_B2) {
        zp_g2_jac part, sum;
        e = zp__gpu_msm_g2_w(s->msm_stream, &part, pts, &ws, x->len, s->msm_scratch);
        if (!e) {
            zp__g16_slot_count_msm(s, s->msm_stream);
            zp_g2_jac_add(&sum, &out->b2, &part);
            out->b2 = sum;
        }
        return e;
    }
    if (a->w_msm == M_N) {
        e = zp__gpu_msm_g1_acc_begin(&a->w, s->w_acc, zp__g16_w_acc_window(s->ring_buffer));
        if (e)
            return e;
        a->w_msm = x->msm;
        zp_g1_jac_inf(&a->w_ones);
    }
    zp_g1_jac ones, sum;
    e = zp__gpu_msm_g1_acc_add_w(s->msm_stream, &a->w, pts, &ws, x->len, s->msm_scratch, &ones);
    if (!e) {
        zp__g16_slot_count_msm(s, s->msm_stream);
        zp_g1_jac_add(&sum, &a->w_ones, &ones);
        a->w_ones = sum;
    }
    return e;
}

/* Each MSM's share of the schedule's time, and the waits for copies. */
void zp__g16_sched_times(zp__prove_times *t, const double *tm, double wait)
{
    t->msm_h = tm[M_H];
    t->msm_l = tm[M_L];
    t->msm_a = tm[M_A];
    t->msm_b1 = tm[M_B1];
    t->msm_b2 = tm[M_B2];
    t->msm_wait = wait;
}
