/*
 * The GPU slot from evaluated a, b, c (groth16/abc.h): in place of eval,
 * the witness and the caller's a and b go up into the slot's witness and
 * work regions (zero-padded to the domain; through pinned buffers, as they
 * lie in the caller's pageable memory), and c is made there as a∘b: a
 * witness that satisfies the circuit has c_i = a_i·b_i on every row (the
 * public inputs' rows x_i · 0 = 0 too), so the caller's c adds nothing but
 * a third of the bytes; one that does not fails verification either way.
 * Then the slot's h stage and MSMs run as they do after eval
 * (zp__g16_slot_h_msms), so the sums are those of the CPU prover from the
 * same a, b, c.
 */
#include <pthread.h>

#include "base/pool.h"
#include "gpu/gpu.h"
#include "groth16/abc.h"
#include "groth16/prove_gpu_slot_impl.h"

/* Bytes of each of a slot's two buffers that a and b go up through: a
 * chunk is one parallel memcpy (its threads started anew), so large
 * enough that starting them is noise, and small beside the pinned
 * witness a slot already holds. */
#define ABC_STAGE_BYTES (256ull << 20)

zp_err zp__g16_stage_put(zp__g16_stager *st, void *dev, const void *host, uint64_t bytes)
{
    if (!st->buf[0] || !st->buf[1] || !st->bytes)
        return zp__gpu_upload(st->q[0], dev, host, bytes);
    for (uint64_t off = 0; off < bytes;) {
        const uint64_t n = bytes - off < st->bytes ? bytes - off : st->bytes;
        const unsigned i = st->next;
        if (st->busy[i]) { /* its last copy must have left the buffer */
            zp_err e = zp__gpu_stream_sync(st->q[i]);
            st->busy[i] = false;
            if (e)
                return e;
        }
        zp__parallel_memcpy(st->buf[i], (const char *)host + off, (size_t)n, st->threads);
        st->busy[i] = true;
        zp_err e = zp__gpu_upload(st->q[i], (char *)dev + off, st->buf[i], n);
        if (e)
            return e;
        st->next = i ^ 1;
        off += n;
    }
    return ZP_OK;
}

zp_err zp__g16_stage_end(zp__g16_stager *st)
{
    zp_err e = ZP_OK;
    for (int i = 0; i < 2; i++) {
        zp_err ei = zp__gpu_stream_sync(st->q[i]);
        st->busy[i] = false;
        if (!e)
            e = ei;
    }
    return e;
}

/* The slot's staging buffers, taken once (a slot that never sees a, b, c
 * pins nothing more); where the host refuses, a and b go up unstaged. */
static void stage_take(zp__g16_slot *s)
{
    if (s->abc_stage_tried)
        return;
    s->abc_stage_tried = true;
    uint64_t b = s->domain_size * sizeof(zp_fr);
    b = b < ABC_STAGE_BYTES ? b : ABC_STAGE_BYTES;
    if (zp__gpu_host_alloc(s->dev, &s->abc_stage[0], b) ||
        zp__gpu_host_alloc(s->dev, &s->abc_stage[1], b)) {
        zp__gpu_host_free(s->abc_stage[0]);
        s->abc_stage[0] = s->abc_stage[1] = NULL;
        return;
    }
    s->abc_stage_bytes = b;
}

/* a and b up through the stager, zero-padded to the domain (memsets on
 * q), then the stager's copies waited for (also on failure: no copy may
 * still read host memory). */
typedef struct ab_up {
    zp__g16_stager *st;
    zp__gpu_stream *q;
    zp_fr *dst; /* a; b one domain further */
    const zp_fr *src[2];
    uint64_t m, n, domain;
    zp_err e;
} ab_up;

static zp_err ab_copy(ab_up *x)
{
    zp_err e = ZP_OK;
    for (int i = 0; !e && i < 2; i++) {
        zp_fr *d = x->dst + (uint64_t)i * x->domain;
        if (x->m)
            e = zp__g16_stage_put(x->st, d, x->src[i], x->m * sizeof(zp_fr));
        if (!e && x->m < x->n)
            e = zp__gpu_memset0(x->q, d + x->m, (x->n - x->m) * sizeof(zp_fr));
    }
    zp_err es = zp__g16_stage_end(x->st);
    return e ? e : es;
}

/* a and b from pre (pinned: a's m values, then b's) up on the slot's
 * copy stream, the padding zeroed on its stream; b alone where a is there
 * already (zp__g16_slot_a_ahead). Not waited for. */
static zp_err ab_pinned(zp__g16_slot *s, zp_fr *dst, const zp_fr *pre, uint64_t m, uint64_t n,
                        bool b_only)
{
    zp_err e = ZP_OK;
    for (int i = b_only; !e && i < 2; i++) {
        zp_fr *d = dst + (uint64_t)i * s->domain_size;
        if (m)
            e = zp__gpu_upload(s->copy_stream, d, pre + (uint64_t)i * m, m * sizeof(zp_fr));
        if (!e && m < n)
            e = zp__gpu_memset0(s->stream, d + m, (n - m) * sizeof(zp_fr));
    }
    return e;
}

static void *ab_main(void *p)
{
    ab_up *x = p;
    x->e = ab_copy(x);
    return NULL;
}

void zp__g16_slot_a_ahead(zp__g16_slot *s, const zp_fr *a, uint64_t m, const atomic_int *ready)
{
    s->a_next = a && ready && m <= s->domain_size ? a : NULL;
    s->a_next_m = m;
    s->a_next_ready = ready;
    s->a_sent = 0;
}

bool zp__g16_slot_a_sent(const zp__g16_slot *s, const zp_fr *a)
{
    return a && s->a_done == a;
}

bool zp__g16_slot_b_sent(const zp__g16_slot *s, const zp_fr *a)
{
    return zp__g16_slot_a_sent(s, a) && s->b_done == a;
}

zp_err zp__g16_slot_a_drop(zp__g16_slot *s)
{
    zp_err e = s->a_pending ? zp__gpu_stream_after(s->stream, s->copy_stream) : ZP_OK;
    s->a_pending = false;
    s->a_done = s->b_done = NULL;
    return e;
}

zp_err zp__g16_slot_put_abc(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w,
                            const zp__abc_in *in, const zp_fr *pre)
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
    /* Rows of the matrices sent into a for an eval (prove_gpu_sched.c):
     * their copies end before a goes up on either stream. */
    if (!e && s->ev_low_id) {
        e = zp__gpu_stream_after(s->stream, s->ring_stream);
        if (!e)
            e = zp__gpu_stream_after(s->copy_stream, s->ring_stream);
    }
    s->ev_low_id = 0;
    /* A lean slot's witness region is c's: c goes there now, and the
     * witness from lean_w again after h (prove_gpu_msm.c), as after eval. */
    s->lean_w = w;
    s->w_late = !s->lean && zp__g16_slot_abc_w_late(s, k);
    if (!e && !zp__g16_slot_w_after_h(s))
        e = zp__g16_slot_put_w(s, k, w);
    stage_take(s);
    zp__g16_stager st = {{s->copy_stream, s->stream},
                         {s->abc_stage[0], s->abc_stage[1]},
                         s->abc_stage_bytes, 0, 0, {false, false}};
    zp_fr *dst = s->work.ptr;
    ab_up x = {&st, s->stream, dst, {in->a, in->b}, m, n, s->domain_size, ZP_OK};
    /* Where the MSMs over the witness would run beside h, they run now,
     * while a and b go up on a thread of their own: the GPU has them to
     * do while the host copies (the first partition of a call finds it
     * idle otherwise). They read the witness (sent above, on the slot's
     * stream) and the room above a, b and c, none of what goes up. A key
     * that streams sums them in its schedule after h instead. */
    const bool early = !e && s->side_stream && !s->lean && !zp__g16_dkey_streams(k);
    pthread_t th;
    bool threaded = false;
    zp_err ew = ZP_OK;
    s->w_early = false;
    /* a sent during the schedule before, for this very a (its image is
     * pre), and its copies still perhaps under way on the copy stream,
     * where b's goes after them: only b goes up. Else those copies come
     * before anything writes a. */
    const bool a_there = pre && zp__g16_slot_a_sent(s, pre) && s->a_next_m == m;
    const bool b_there = a_there && zp__g16_slot_b_sent(s, pre);
    if (!a_there) {
        zp_err ea = zp__g16_slot_a_drop(s);
        e = e ? e : ea;
    }
    s->a_done = s->b_done = NULL;
    if (pre) { /* enqueued at once: no host copy to wait for */
        if (!e && !b_there)
            e = ab_pinned(s, dst, pre, m, n, a_there);
        if (!e && early)
            e = zp__gpu_stream_after(s->side_stream, s->stream);
        if (!e && early)
            ew = zp__g16_slot_w_early(s, k);
        x.e = zp__gpu_stream_sync(s->copy_stream); /* then pre is not read again */
        s->a_pending = false;
    } else if (early) {
        e = zp__gpu_stream_after(s->side_stream, s->stream);
        threaded = !e && pthread_create(&th, NULL, ab_main, &x) == 0;
    }
    if (threaded) {
        ew = zp__g16_slot_w_early(s, k);
        pthread_join(th, NULL);
    } else if (!e && !pre) {
        x.e = ab_copy(&x);
    }
    e = e ? e : x.e ? x.e : ew;
    if (e)
        s->w_early = false;
    /* c = a∘b over the whole domain (the padding's 0·0 = 0), on the
     * stream h runs on next. */
    if (!e)
        e = zp__gpu_fr_mul(s->stream, dst + 2 * s->domain_size, dst, dst + s->domain_size, n);
    return e;
}

zp_err zp__g16_slot_sums_abc(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_next_fn next,
                             void *ctx, zp__g16_sums *out, zp__prove_times *t, zp__ioerr *why)
{
    zp__prove_times dummy;
    zp_err eh;
    zp_err e = zp__g16_slot_h_msms(s, k, next, ctx, out, t ? t : &dummy, &eh);
    if (eh || e)
        return zp__fail(why, eh ? eh : e, "GPU %s stage failed: %s (%s)", eh ? "h" : "msm",
                        zp_errname(eh ? eh : e), zp__gpu_last_error());
    return ZP_OK;
}
