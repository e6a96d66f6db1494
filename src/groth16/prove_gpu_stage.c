/*
 * A slot's stages (prove_gpu_stages.h) on its regions (prove_gpu_slot.c's
 * layout): the witness up (in one copy or in parts), eval of a, b and c
 * (or a and b, c = a∘b made after, where c's region holds the witness or
 * the matrices stream), h, and the sums of the five MSMs
 * (prove_gpu_msm.c) brought back to the host.
 */
#include "groth16/prove_gpu_slot_impl.h"

zp_err zp__g16_slot_check(const zp__g16_slot *s, const zp__g16_dkey *k)
{
    if (!k->pk || k->dev != s->dev || !zp__g16_slot_fits_key(s, k))
        return ZP_E_INVALID_ARG;
    return ZP_OK;
}

zp_err zp__g16_slot_put_w(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w)
{
    s->l_split = false;
    return zp__gpu_upload(s->stream, s->witness.ptr, w, (uint64_t)k->pk->n_vars * sizeof(zp_fr));
}

/* eval for w; sent: w is what the last zp__g16_slot_sums_next's hook gave,
 * so that its copy (when it went) stands for the upload. */
static zp_err eval_w(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w, bool sent,
                     bool parts)
{
    const zp__pk *pk = k->pk;
    zp_fr *a = s->work.ptr;
    zp_err e = ZP_OK;
    bool up = true;
    s->w_early = false; /* only the drop-in's partitions sum them early */
    s->l_split = s->took_parts = false;
    s->pre_key = NULL; /* a chunk sent ahead is for this partition's MSMs only */
    if (s->sent_witness) { /* after that copy, whether it counts or is overwritten */
        e = zp__gpu_stream_after(s->stream, s->copy_stream);
        up = !(sent && s->sent_witness == w);
        s->sent_witness = NULL;
    }
    s->took_sent = !up;
    /* A drop-in partition's a, sent for the next one during the schedule
     * before (a native key's eval writes a on this stream). */
    zp_err ea = zp__g16_slot_a_drop(s);
    e = e ? e : ea;
    /* The witness in parts sums L over resident points only, not in a
     * lean slot, whose witness region c's values replace, and not for a
     * shared ring, whose circle is the same for every slot. */
    const bool l_res = k->res[ZP_G16_P_L] == pk->n_l && !k->share;
    unsigned np = parts && up && l_res && !s->lean ? zp__g16_parts_wanted(s, pk, w) : 1;
    s->lean_w = w;
    s->w_late = false; /* a partition of a, b, c's only */
    if (!e && up)
        e = np > 1 ? zp__g16_parts_put(s, k, w, np) : zp__g16_slot_put_w(s, k, w);
    /* c after a and b where c's region holds the witness (lean) or the
     * matrices stream: c = a∘b over the rows either way. */
    zp_fr *b = a + s->domain_size, *c = b + s->domain_size;
    const bool c_after = s->lean || k->mat_stream;
    /* The ring's copies of a partition that failed after its chunks were
     * sent ahead (zp__g16_sched_prefetch) finish before the matrices'. */
    for (int q = 1; !e && k->mat_stream && q < ZP_G16_RING_BUFS; q++)
        if (s->ring_q[q])
            e = zp__gpu_stream_after(s->ring_stream, s->ring_q[q]);
    /* The rows sent into the bottom of a by the schedule before; an eval
     * that does not read them waits for their copies before it writes a. */
    const bool low = s->ev_low_id && s->ev_low_id == k->id && k->mat_stream;
    if (!e && s->ev_low_id && !low)
        e = zp__gpu_stream_after(s->stream, s->ring_stream);
    s->ev_low_id = 0;
    s->took_eval_low += low;
    /* The first block sent ahead by the schedule before (any other use
     * of the ring since gave it up: zp__g16_ring_take), cut for the rows
     * the ring covers. */
    const uint64_t end = low ? s->ev_low.r_lo : pk->domain_size;
    const int pre = s->ev_id && s->ev_id == k->id && s->ev_end == end ? (int)s->ev_half : -1;
    s->ev_id = 0;
    s->took_eval_ahead += pre >= 0;
    if (!e && k->mat_stream)
        e = zp__gpu_eval_ab_ring(s->stream, s->ring_stream, s->ring.ptr, s->ring.bytes / 2, pre,
                                 low ? &s->ev_low : NULL, a, b, pk->domain_size, &k->ma, &k->mb,
                                 s->witness.ptr, &s->streamed);
    else if (!e && c_after)
        e = zp__gpu_eval_ab(s->stream, a, b, pk->domain_size, &k->ma, &k->mb, s->witness.ptr);
    else if (!e)
        e = zp__gpu_eval_abc(s->stream, a, b, c, pk->domain_size, &k->ma, &k->mb,
                             s->witness.ptr);
    if (!e && c_after)
        e = zp__gpu_fr_mul(s->stream, c, a, b, pk->domain_size);
    zp_err es = zp__gpu_stream_sync(s->stream); /* also on failure: the copy reads w */
    if (e && s->ring_stream)
        zp__gpu_stream_sync(s->ring_stream); /* no copy may still write the ring */
    return e ? e : es;
}

/* The stage on its own uploads in one copy: its msm uploads w again. */
zp_err zp__g16_slot_eval(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w)
{
    return eval_w(s, k, w, false, false);
}

/* The h stage enqueued on the slot's stream (zp__g16_slot_h waits). */
zp_err zp__g16_slot_h_enqueue(zp__g16_slot *s, const zp__g16_dkey *k)
{
    const zp__pk *pk = k->pk;
    uint64_t n = pk->domain_size;
    unsigned log2n = (unsigned)__builtin_ctzll(n);
    bool coset = pk->h_conv == ZP_H_COSET;
    zp_fr *a = s->work.ptr, *b = a + s->domain_size, *c = b + s->domain_size;
    zp_fr shift, scale;
    if (coset)
        zp_fr_root_of_unity(&shift, log2n + 1, pk->roots);
    else
        zp_fr_from_u64(&shift, 7);
    if (coset) {
        zp_fr_one(&scale);
    } else {
        /* Z(X) = Xⁿ − 1 is the constant gⁿ − 1 on the whole coset. */
        uint64_t nn = n;
        zp_fr one;
        zp_fr_pow(&scale, &shift, &nn, 1);
        zp_fr_one(&one);
        zp_fr_sub(&scale, &scale, &one);
        zp_fr_inv(&scale, &scale);
    }
    /* Raw limbs of the standard form: the product leaves standard form. */
    zp_fr raw;
    zp_fr_from_mont(&raw, &scale);
    /* a, b <- the evaluations of iNTT(a), iNTT(b) on the coset shift·⟨ω⟩ (as
     * prove.c), each inverse and coset forward NTT fused; the key's twist
     * tables, where it has them, while this stage runs. */
    zp__gpu_stream_set_twist(s->stream, k->twist.mem.ptr ? &k->twist : NULL);
    zp_err e;
    if (coset) {
        e = zp__gpu_ntt_to_coset(s->stream, a, log2n, pk->roots, &shift);
        if (!e)
            e = zp__gpu_ntt_to_coset(s->stream, b, log2n, pk->roots, &shift);
        if (!e)
            e = zp__gpu_ntt_to_coset(s->stream, c, log2n, pk->roots, &shift);
        if (!e)
            e = zp__gpu_fr_mul_sub_scale(s->stream, a, a, b, c, &raw, n);
    } else {
        /* TAU as prove.c: (coset iNTT of a'b' − iNTT(c)) / (gⁿ − 1), the
         * first n − 1 coefficients the H scalars; c' is not made. a <- a'b':
         * b first, then a's forward stores a'b' itself (the product folded
         * into its last pass, zp__gpu_ntt_to_coset_mul). */
        e = zp__gpu_ntt_to_coset(s->stream, b, log2n, pk->roots, &shift);
        if (!e)
            e = zp__gpu_ntt_to_coset_mul(s->stream, a, log2n, pk->roots, &shift, b);
        if (!e)
            e = zp__gpu_ntt_coset_diff(s->stream, a, c, log2n, pk->roots, &shift, &raw);
    }
    zp__gpu_stream_set_twist(s->stream, NULL);
    return e;
}

zp_err zp__g16_slot_h(zp__g16_slot *s, const zp__g16_dkey *k)
{
    zp_err e = zp__g16_slot_h_enqueue(s, k);
    zp_err es = zp__gpu_stream_sync(s->stream);
    return e ? e : es;
}

zp_err zp__g16_slot_read(zp__g16_slot *s, const zp__g16_dkey *k, zp_fr *out,
                         zp__g16_gpu_array which)
{
    uint64_t len = k->pk->domain_size;
    const zp_fr *d = s->work.ptr;
    switch (which) {
    case ZP_G16_GPU_A: break;
    case ZP_G16_GPU_B: d += s->domain_size; break;
    case ZP_G16_GPU_C: d += 2 * s->domain_size; break;
    case ZP_G16_GPU_H: len = k->pk->n_h; break;
    default: return ZP_E_INVALID_ARG;
    }
    zp_err e = zp__gpu_download(s->stream, out, d, len * sizeof(zp_fr));
    zp_err es = zp__gpu_stream_sync(s->stream);
    return e ? e : es;
}

static zp_err stage_fail(zp__ioerr *why, zp_err e, const char *stage)
{
    return zp__fail(why, e, "GPU %s stage failed: %s (%s)", stage, zp_errname(e),
                    zp__gpu_last_error());
}

zp_err zp__g16_slot_sums(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w,
                         zp__g16_sums *out, zp__prove_times *t, zp__ioerr *why)
{
    return zp__g16_slot_sums_next(s, k, w, false, NULL, NULL, out, t, why);
}

zp_err zp__g16_slot_sums_next(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w,
                              bool w_sent, zp__g16_next_fn next, void *ctx,
                              zp__g16_sums *out, zp__prove_times *t, zp__ioerr *why)
{
    zp__prove_times dummy;
    if (!t)
        t = &dummy;
    s->next_witness = NULL;
    if (zp__g16_slot_check(s, k))
        return zp__fail(why, ZP_E_INVALID_ARG,
                        "the key is on another device or larger than the slot");
    double t0 = zp__g16_now();
    zp_err e = eval_w(s, k, w, w_sent, true);
    double t1 = zp__g16_now();
    t->eval = t1 - t0;
    if (e)
        return stage_fail(why, e, "eval");
    zp_err eh;
    e = zp__g16_slot_h_msms(s, k, next, ctx, out, t, &eh);
    if (eh)
        return stage_fail(why, eh, "h");
    return e ? stage_fail(why, e, "msm") : ZP_OK;
}
