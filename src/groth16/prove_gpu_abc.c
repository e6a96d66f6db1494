/*
 * The GPU slot from evaluated a, b, c (groth16/abc.h): in place of eval,
 * the witness and the caller's a, b, c go up into the slot's witness and
 * work regions (a, b, c zero-padded to the domain), then the slot's h stage
 * and MSMs run as they do after eval (zp__g16_slot_h_msms), so the sums
 * are those of the CPU prover from the same a, b, c.
 */
#include "gpu/gpu.h"
#include "groth16/abc.h"
#include "groth16/prove_gpu_slot_impl.h"

zp_err zp__g16_slot_put_abc(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w,
                            const zp__abc_in *in)
{
    if (zp__g16_slot_check(s, k) || in->abc_size > k->pk->domain_size)
        return ZP_E_INVALID_ARG;
    const uint64_t n = k->pk->domain_size, m = in->abc_size;
    /* What eval_w resets: nothing of a partition before this one is used. */
    s->l_split = s->took_parts = s->took_sent = false;
    s->pre_key = NULL;
    zp_err e = ZP_OK;
    if (s->sent_witness) { /* a witness sent ahead is overwritten after its copy */
        e = zp__gpu_stream_after(s->stream, s->copy_stream);
        s->sent_witness = NULL;
    }
    /* A lean slot's witness region is c's: c goes there now, and the
     * witness from lean_w again after h (prove_gpu_msm.c), as after eval. */
    s->lean_w = w;
    if (!e && !s->lean)
        e = zp__g16_slot_put_w(s, k, w);
    const zp_fr *src[3] = {in->a, in->b, in->c};
    zp_fr *dst = s->work.ptr;
    for (int i = 0; !e && i < 3; i++) {
        if (m)
            e = zp__gpu_upload(s->stream, dst + (uint64_t)i * s->domain_size, src[i],
                               m * sizeof(zp_fr));
        if (!e && m < n)
            e = zp__gpu_memset0(s->stream, dst + (uint64_t)i * s->domain_size + m,
                                (n - m) * sizeof(zp_fr));
    }
    zp_err es = zp__gpu_stream_sync(s->stream); /* also on failure: the copies read host memory */
    return e ? e : es;
}

zp_err zp__g16_slot_sums_abc(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_sums *out,
                             zp__prove_times *t, zp__ioerr *why)
{
    zp__prove_times dummy;
    zp_err eh;
    zp_err e = zp__g16_slot_h_msms(s, k, NULL, NULL, out, t ? t : &dummy, &eh);
    if (eh || e)
        return zp__fail(why, eh ? eh : e, "GPU %s stage failed: %s (%s)", eh ? "h" : "msm",
                        zp_errname(eh ? eh : e), zp__gpu_last_error());
    return ZP_OK;
}
