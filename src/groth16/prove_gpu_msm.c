/*
 * The MSM stage of a prover slot (gpu_prover.h, prove_gpu_slot.c): the
 * five MSMs in the slot's scratch, chunk by chunk, and where they run.
 * After h they all run on the slot's stream, H first (its scalars are in
 * a, where the gathers go next). Beside h (a slot with the room and a
 * side stream, zp__g16_slot_sums_next) L, A, B1 and B2 run on the side
 * stream in the room above a, b and c while h runs on the slot's stream,
 * and H after both. The next partition's witness goes up once the last
 * MSM that reads the witness has run (zp__g16_slot_send_next). A
 * streaming key's MSMs run as one schedule instead (prove_gpu_sched.c).
 */
#include <stdlib.h>
#include <string.h>

#include "groth16/prove_gpu_slot_impl.h"

static zp__gpu_buf scratch_after_h(const zp__g16_slot *s)
{
    const uint64_t end = s->scratch_end < s->work.bytes ? s->scratch_end : s->work.bytes;
    zp__gpu_buf b = {(char *)s->work.ptr + s->scratch_off, end - s->scratch_off};
    return b;
}

void zp__g16_slot_count_msm(zp__g16_slot *s, const zp__gpu_stream *st)
{
    const bool affine = zp__gpu_msm_last_affine(st);
    const bool ones = zp__gpu_msm_last_ones_affine(st);
    s->paths.msms++;
    s->paths.affine += affine;
    s->paths.ones_after += ones && affine;
    s->paths.ones_first += ones && !affine;
}

void zp__g16_slot_msm_paths(const zp__g16_slot *s, zp__g16_msm_paths *out) { *out = s->paths; }

/* ------------------------------------------------------------ key tiers */

/* Enqueues on the ring stream the copy of k's streamed points [p, p + len)
 * of array i into staging buffer `buf`. */
static zp_err ring_put(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_part i, uint64_t p,
                       uint64_t len, unsigned buf)
{
    const uint64_t size = zp__g16_part_size(i);
    const char *src = (const char *)k->host[i] + (p - k->res[i]) * size;
    zp_err e = zp__g16_ring_take(s);
    if (e)
        return e;
    s->streamed += len * size;
    return zp__gpu_upload(s->ring_stream, (char *)s->ring.ptr + buf * (s->ring.bytes / 2), src,
                          len * size);
}

/* One chunk's MSM: the device points of [p, p + len) of the array. */
typedef zp_err (*chunk_fn)(zp__g16_slot *s, void *ctx, const void *d_points, uint64_t p,
                           uint64_t len);

/*
 * Runs fn over the points [from, to) of k's array i a chunk at a time
 * (zp__g16_slot_chunk): the resident ones where they lie, then the
 * streamed ones through the slot's two staging buffers. The copy of the
 * first streamed chunk crosses while the resident chunks are summed, and
 * each later one while the one before is summed: the MSM stream waits for
 * a chunk's copy only, and a buffer is filled again only after the MSM
 * that read it has returned (each MSM waits for its stream).
 */
static zp_err over_points(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_part i,
                          uint64_t from, uint64_t to, chunk_fn fn, void *ctx)
{
    const uint64_t size = zp__g16_part_size(i);
    const uint64_t chunk = zp__g16_slot_chunk(s, i == ZP_G16_P_B2);
    const uint64_t rend = min_u64(to, k->res[i]), s0 = max_u64(from, k->res[i]);
    const char *dev = zp__g16_dkey_part((zp__g16_dkey *)k, i)->ptr;
    zp_err e = ZP_OK;
    const bool sent = s->pre_key == k && !s->pre_n && s->pre_part == i && s->pre_at == s0;
    s->pre_key = NULL;
    if (s0 < to && !sent) {
        if (!s->ring.ptr || !k->host[i] || k->share)
            return ZP_E_INVALID_ARG; /* zp__g16_slot_check keeps this out */
        e = ring_put(s, k, i, s0, min_u64(to - s0, chunk), 0);
    }
    for (uint64_t p = from; !e && p < rend; p += chunk)
        e = fn(s, ctx, dev + p * size, p, min_u64(rend - p, chunk));
    unsigned b = 0;
    for (uint64_t p = s0; !e && p < to; p += chunk, b ^= 1) {
        const uint64_t len = min_u64(to - p, chunk);
        e = zp__gpu_stream_after(s->msm_stream, s->ring_stream); /* this chunk's copy */
        if (!e && p + len < to)
            e = ring_put(s, k, i, p + len, min_u64(to - p - len, chunk), b ^ 1);
        if (!e)
            e = fn(s, ctx, (const char *)s->ring.ptr + b * (s->ring.bytes / 2), p, len);
    }
    if (e && s->ring_stream)
        zp__gpu_stream_sync(s->ring_stream); /* no copy may still write a buffer */
    return e;
}


/* The scalars of a chunk: sc[p - delta ...] (standard form, without the
 * 0/1 split) or the witness values from index p + delta (Montgomery).
 * acc: H's chunks go into the slot's kept buckets instead of out (NULL:
 * each chunk's own MSM, added to out). */
typedef struct g1_sum {
    zp_g1_jac *out;
    const zp_fr *sc;
    uint64_t delta;
    zp__gpu_msm_acc *acc;
} g1_sum;

static void add_g1(zp_g1_jac *out, const zp_g1_jac *part)
{
    zp_g1_jac sum;
    zp_g1_jac_add(&sum, out, part);
    *out = sum;
}

zp_err zp__g16_h_chunk(zp__g16_slot *s, zp_g1_jac *out, zp__gpu_msm_acc *acc,
                       const void *d_points, const zp_fr *sc, uint64_t len)
{
    zp_g1_jac part;
    zp_err e = acc ? zp__gpu_msm_g1_acc_add(s->msm_stream, acc, d_points, sc, len, s->msm_scratch)
                   : zp__gpu_msm_g1_nosplit(s->msm_stream, &part, d_points, sc, len,
                                            s->msm_scratch);
    if (e)
        return e;
    zp__g16_slot_count_msm(s, s->msm_stream);
    if (!acc)
        add_g1(out, &part);
    return ZP_OK;
}

static zp_err chunk_nosplit(zp__g16_slot *s, void *ctx, const void *d_points, uint64_t p,
                            uint64_t len)
{
    g1_sum *c = ctx;
    return zp__g16_h_chunk(s, c->out, c->acc, d_points, c->sc + p, len);
}

zp_err zp__g16_h_acc_begin(zp__g16_slot *s, const zp__g16_dkey *k, zp__gpu_msm_acc *acc,
                           bool *on)
{
    *on = s->took_h_acc = s->h_acc.ptr != NULL;
    if (!*on)
        return ZP_OK;
    return zp__gpu_msm_g1_acc_begin(acc, s->h_acc,
                                    zp__g16_h_acc_window(s->ring_buffer, k->pk->n_h));
}

zp_err zp__g16_h_acc_end(zp__g16_slot *s, zp__gpu_msm_acc *acc, zp_g1_jac *out)
{
    zp_g1_jac sum;
    zp_err e = zp__gpu_msm_g1_acc_end(s->msm_stream, acc, &sum, s->msm_scratch);
    if (!e)
        add_g1(out, &sum);
    return e;
}

static zp_err chunk_g1_w(zp__g16_slot *s, void *ctx, const void *d_points, uint64_t p,
                         uint64_t len)
{
    g1_sum *c = ctx;
    const zp__gpu_wsc sc = {c->sc, NULL, NULL, p + c->delta, len, 0};
    zp_g1_jac part;
    zp_err e = zp__gpu_msm_g1_w(s->msm_stream, &part, d_points, &sc, len, s->msm_scratch);
    if (e)
        return e;
    zp__g16_slot_count_msm(s, s->msm_stream);
    add_g1(c->out, &part);
    return ZP_OK;
}

/* Σ sc[i]·H[i] for i < n (device scalars in standard form), chunk by
 * chunk, without the 0/1 split (zp__gpu_msm_g1_nosplit): the H MSM's
 * scalars are random, so the split and its wait would find nothing to
 * skip. */
static zp_err msm_g1_nosplit(zp__g16_slot *s, const zp__g16_dkey *k, zp_g1_jac *out,
                             const zp_fr *sc, uint64_t n)
{
    zp_g1_jac_inf(out);
    zp__gpu_msm_acc acc;
    bool on;
    zp_err e = zp__g16_h_acc_begin(s, k, &acc, &on);
    g1_sum c = {out, sc, 0, on ? &acc : NULL};
    if (!e)
        e = over_points(s, k, ZP_G16_P_H, 0, n, chunk_nosplit, &c);
    return !e && on ? zp__g16_h_acc_end(s, &acc, out) : e;
}

zp_err zp__g16_slot_msm_g1_w(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_part part,
                             zp_g1_jac *out, uint64_t p0, const zp_fr *w, uint64_t from,
                             uint64_t to)
{
    zp_g1_jac_inf(out);
    if (from >= to)
        return ZP_OK;
    g1_sum c = {out, w, from - p0, NULL};
    return over_points(s, k, part, p0, p0 + (to - from), chunk_g1_w, &c);
}

/* The H MSM (its scalars at the start of work): over the key's H table
 * where it has one and the slot's scratch holds that MSM's layout, else
 * over the points. */
static zp_err msm_h(zp__g16_slot *s, const zp__g16_dkey *k, zp_g1_jac *out)
{
    const zp__pk *pk = k->pk;
    const zp__gpu_buf sc = scratch_after_h(s);
    const uint64_t need =
        k->h_pre.ptr ? zp__gpu_msm_scratch_bytes_pre_opts(&s->msm, pk->n_h, k->h_pre_c) : 0;
    s->took_pre = need && need <= sc.bytes;
    s->took_h_acc = false;
    if (!s->took_pre)
        return msm_g1_nosplit(s, k, out, s->work.ptr, pk->n_h);
    zp_err e =
        zp__gpu_msm_g1_pre(s->stream, out, k->h_pre.ptr, k->h_pre_c, s->work.ptr, pk->n_h, sc);
    if (!e)
        zp__g16_slot_count_msm(s, s->stream);
    return e;
}

/* The L MSM: over all of w's L scalars, or what eval's zp__g16_parts_put
 * left plus the sum it made. */
static zp_err msm_l(zp__g16_slot *s, const zp__g16_dkey *k, zp_g1_jac *out)
{
    const zp__pk *pk = k->pk;
    if (s->l_split)
        return zp__g16_parts_msm_l(s, k, out);
    return zp__g16_slot_msm_g1_w(s, k, ZP_G16_P_L, out, 0, s->witness.ptr, pk->n_public + 1,
                                 pk->n_vars);
}

/* The A MSM: over w through A's density where one MSM takes all of A
 * and its points are resident; else over A's scalars gathered into
 * s->gather (Montgomery, as w). */
static zp_err msm_a(zp__g16_slot *s, const zp__g16_dkey *k, zp_g1_jac *out)
{
    const zp__pk *pk = k->pk;
    zp_fr *sc = s->gather;
    if (pk->n_a <= zp__g16_slot_chunk(s, false) && k->res[ZP_G16_P_A] == pk->n_a) {
        const zp__gpu_wsc ws = {s->witness.ptr, k->a_words.ptr, k->a_rank.ptr, 0, pk->n_vars, 0};
        zp_err e = zp__gpu_msm_g1_w(s->msm_stream, out, k->p_a.ptr, &ws, pk->n_a, s->msm_scratch);
        if (!e && pk->n_a) /* none ran for none */
            zp__g16_slot_count_msm(s, s->msm_stream);
        return e;
    }
    zp_err e = zp__gpu_fr_gather(s->msm_stream, sc, s->witness.ptr, pk->n_vars, k->a_words.ptr,
                                 k->a_rank.ptr);
    if (e)
        return e;
    return zp__g16_slot_msm_g1_w(s, k, ZP_G16_P_A, out, 0, sc, 0, pk->n_a);
}

/* The B2 MSM over sc[0, n) (Montgomery). */
typedef struct g2_sum {
    zp_g2_jac *out;
    const zp_fr *sc;
} g2_sum;

static zp_err chunk_g2(zp__g16_slot *s, void *ctx, const void *d_points, uint64_t p,
                       uint64_t len)
{
    g2_sum *c = ctx;
    const zp__gpu_wsc ws = {c->sc, NULL, NULL, p, len, 0};
    zp_g2_jac part, sum;
    zp_err e = zp__gpu_msm_g2_w(s->msm_stream, &part, d_points, &ws, len, s->msm_scratch);
    if (e)
        return e;
    zp__g16_slot_count_msm(s, s->msm_stream);
    zp_g2_jac_add(&sum, c->out, &part);
    *c->out = sum;
    return ZP_OK;
}

static zp_err msm_g2(zp__g16_slot *s, const zp__g16_dkey *k, zp_g2_jac *out, const zp_fr *sc,
                     uint64_t n)
{
    zp_g2_jac_inf(out);
    g2_sum c = {out, sc};
    return over_points(s, k, ZP_G16_P_B2, 0, n, chunk_g2, &c);
}

zp_err zp__g16_slot_prefetch(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_part part)
{
    const uint64_t n = zp__g16_part_count(k->pk, part), r = k->res[part];
    s->pre_key = NULL;
    s->pre_n = 0;
    if (zp__g16_sched_on(s, k) && !s->side_stream)
        return zp__g16_sched_prefetch(s, k);
    if (r >= n || !s->ring.ptr || !k->host[part] || k->share)
        return ZP_OK;
    /* The ring's buffers are free: every MSM waits for its stream. */
    zp_err e = ring_put(s, k, part, r, min_u64(n - r, zp__g16_slot_chunk(s, part == ZP_G16_P_B2)),
                        0);
    if (!e) {
        s->pre_key = k;
        s->pre_part = part;
        s->pre_at = r;
    }
    return e;
}

zp_err zp__g16_slot_send_next(zp__g16_slot *s, const zp__g16_dkey *k)
{
    if (!s->next_witness && s->next_fn) /* none during h: perhaps now */
        s->next_witness = s->next_fn(s->next_ctx, ZP_G16_NEXT_SEND);
    const zp_fr *w = s->next_witness;
    s->next_witness = NULL;
    if (!w)
        return ZP_OK;
    zp_err e = zp__gpu_stream_after(s->copy_stream, s->msm_stream);
    uint64_t bytes = (uint64_t)k->pk->n_vars * sizeof(zp_fr);
    /* Packed where the loader packed it, else plain. A lean slot's pack
     * stays for its second send; the next pack goes into the other one
     * either way, so that no pack is made while its copy may still run. */
    if (!e) {
        e = zp__g16_wpack_send(s, k, w, s->wpack_next, !s->lean, &bytes);
        s->wpack_next ^= 1;
    }
    if (!e) {
        s->sent_witness = w;
        s->next_bytes = bytes;
    }
    return e;
}

/* After h: the slot's stream, its MSM scratch, gathers into a (or
 * ab_scalars). Beside h: the side stream and the room above a, b and c. */
void zp__g16_slot_msm_on(zp__g16_slot *s, bool beside)
{
    s->msm_stream = beside ? s->side_stream : s->stream;
    s->msm_scratch = beside ? s->side_scratch : scratch_after_h(s);
    s->gather = beside ? s->side_gather : s->ab_scalars.ptr ? s->ab_scalars.ptr : s->work.ptr;
}

/*
 * The MSMs over the witness, on s->msm_stream (zp__g16_slot_msm_on): L, A
 * and B's gather, the last reads of the witness, so that the next witness
 * can go up into its region during B1 and B2 (send_next). The witness
 * stays Montgomery: L and A read it where it lies (no conversion pass, no
 * gather of A's scalars), B1 and B2 read B's gathered copy in that form.
 */
static zp_err msms_of_w(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_sums *out,
                        zp__prove_times *t)
{
    const zp__pk *pk = k->pk;
    zp_fr *w = s->witness.ptr, *sc = s->gather;
    double t0 = zp__g16_now(), t1, t2, t3, t4;
    zp_err e = msm_l(s, k, &out->l);
    t1 = zp__g16_now();
    if (!e)
        e = msm_a(s, k, &out->a);
    t2 = zp__g16_now();
    /* The A MSM has waited for the stream: its scalars may be replaced. */
    if (!e)
        e = zp__gpu_fr_gather(s->msm_stream, sc, w, pk->n_vars, k->b_words.ptr, k->b_rank.ptr);
    if (!e)
        e = zp__g16_slot_send_next(s, k);
    if (!e)
        e = zp__g16_slot_msm_g1_w(s, k, ZP_G16_P_B1, &out->b1, 0, sc, 0, pk->n_b);
    t3 = zp__g16_now();
    if (!e)
        e = msm_g2(s, k, &out->b2, sc, pk->n_b);
    t4 = zp__g16_now();
    t->msm_l = t1 - t0;
    t->msm_a = t2 - t1;
    t->msm_b1 = t3 - t2;
    t->msm_b2 = t4 - t3;
    return e;
}

zp_err zp__g16_slot_w_early(zp__g16_slot *s, const zp__g16_dkey *k)
{
    s->w_early = false;
    if (k->share) /* a shared ring's slot sums them as the circle passes */
        return ZP_OK;
    memset(&s->w_times, 0, sizeof s->w_times);
    zp__g16_slot_msm_on(s, true);
    zp_err e = msms_of_w(s, k, &s->w_sums, &s->w_times);
    if (e)
        zp__gpu_stream_sync(s->side_stream); /* leave nothing running on failure */
    zp__g16_slot_msm_on(s, false);
    s->w_early = !e;
    return e;
}

/* H first (its scalars occupy a, where the gathers go next), then the
 * MSMs over the witness, all on the slot's stream. */
zp_err zp__g16_slot_msm(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_sums *out,
                        zp__prove_times *t)
{
    zp__prove_times dummy;
    if (!t)
        t = &dummy;
    zp__g16_slot_msm_on(s, false);
    double t0 = zp__g16_now();
    zp_err e = ZP_OK;
    /* A lean slot's witness goes up into c's region again, after h, while
     * H's MSM runs (its scalars in a, its scratch out of c); a usual one's
     * with w_late into its own region. */
    if (zp__g16_slot_w_after_h(s)) {
        if (!s->lean_w)
            return ZP_E_INVALID_ARG;
        e = zp__gpu_stream_after(s->copy_stream, s->stream);
        uint64_t bytes = (uint64_t)k->pk->n_vars * sizeof(zp_fr);
        /* packed with the send ahead, where that was (its pack: not wpack_next) */
        if (!e && s->took_sent)
            e = zp__g16_wpack_send(s, k, s->lean_w, s->wpack_next ^ 1, true, &bytes);
        else if (!e)
            e = zp__gpu_upload(s->copy_stream, s->witness.ptr, s->lean_w, bytes);
    }
    s->took_sched = !e && zp__g16_sched_on(s, k);
    s->took_pairs = 0;
    if (!e && k->share && !s->took_sched)
        e = ZP_E_INVALID_ARG; /* zp__g16_slot_check keeps this out */
    if (s->took_sched) {
        e = zp__g16_sched_run(s, k, out, t);
    } else {
        if (!e)
            e = msm_h(s, k, &out->h);
        t->msm_h = zp__g16_now() - t0;
        if (!e && zp__g16_slot_w_after_h(s))
            e = zp__gpu_stream_after(s->stream, s->copy_stream);
        if (!e)
            e = msms_of_w(s, k, out, t);
    }
    t->msm_beside_h = false;
    s->next_witness = NULL;
    if (e) { /* leave nothing running on failure */
        zp__gpu_stream_sync(s->stream);
        zp__gpu_stream_sync(s->copy_stream);
    }
    return e;
}

/* h enqueued on the slot's stream and timed there; the hook asked for
 * the next witness meanwhile; then, where the slot has a side stream, the
 * MSMs over the witness run on it beside h, and H on the slot's stream
 * after both. Otherwise h is waited for and all MSMs run after it
 * (zp__g16_slot_msm). *h_err: h's failure (the MSMs' is returned). */
zp_err zp__g16_slot_h_msms(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_next_fn next,
                           void *ctx, zp__g16_sums *out, zp__prove_times *t, zp_err *h_err)
{
    const double t0 = zp__g16_now();
    const bool beside = s->side_stream != NULL && !k->share;
    /* After h, H's MSM comes first: its first streamed chunk crosses
     * while h runs. */
    zp_err e = beside ? zp__gpu_stream_clock(s->stream, 0)
                      : zp__g16_slot_prefetch(s, k, ZP_G16_P_H);
    if (!e)
        e = zp__g16_slot_h_enqueue(s, k);
    if (!e && beside)
        e = zp__gpu_stream_clock(s->stream, 1);
    s->a_next = NULL; /* only this partition's hook names a next a */
    if (!e && next) /* host work while the device runs h */
        s->next_witness = next(ctx, ZP_G16_NEXT_H);
    s->next_fn = next; /* asked again where the witness could go (send_next) */
    s->next_ctx = ctx;
    zp_err em = ZP_OK;
    if (!e && beside && s->w_early) { /* they ran while a and b went up */
        out->l = s->w_sums.l;
        out->a = s->w_sums.a;
        out->b1 = s->w_sums.b1;
        out->b2 = s->w_sums.b2;
        t->msm_l = s->w_times.msm_l;
        t->msm_a = s->w_times.msm_a;
        t->msm_b1 = s->w_times.msm_b1;
        t->msm_b2 = s->w_times.msm_b2;
    } else if (!e && beside) {
        zp__g16_slot_msm_on(s, true);
        em = msms_of_w(s, k, out, t);
        if (em)
            zp__gpu_stream_sync(s->side_stream); /* leave nothing running on failure */
    }
    s->w_early = false;
    zp_err es = zp__gpu_stream_sync(s->stream);
    e = e ? e : es;
    double h_ms = 0;
    if (!e && beside)
        e = zp__gpu_stream_clock_ms(s->stream, &h_ms);
    t->h = beside ? h_ms / 1e3 : zp__g16_now() - t0;
    *h_err = e;
    if (!e && !em) {
        if (beside) { /* the side stream's MSMs have waited for it: their region is free */
            zp__g16_slot_msm_on(s, false);
            double t1 = zp__g16_now(); /* the hook's time counts as H's */
            if (next)
                (void)next(ctx, ZP_G16_NEXT_W_SUMS);
            em = msm_h(s, k, &out->h);
            t->msm_h = zp__g16_now() - t1;
            t->msm_beside_h = true;
            s->took_sched = false;
        } else {
            em = zp__g16_slot_msm(s, k, out, t);
        }
    }
    zp__g16_slot_msm_on(s, false);
    s->next_fn = NULL;
    s->next_ctx = NULL;
    s->next_witness = NULL;
    if (em)
        zp__gpu_stream_sync(s->stream);
    return em;
}
