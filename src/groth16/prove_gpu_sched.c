/*
 * A streaming key's five MSMs as one schedule of chunks (prove_gpu_msm.c
 * runs it where zp__g16_sched_on says so, after h, on the slot's stream):
 * H's chunks, bound by the SMs, spread among those of L, A, B1 and B2,
 * bound by the bus, so that the next chunks' points cross while H's are
 * summed, where one MSM after the other leaves the bus idle
 * through H and the SMs idle through the rest. The ring is cut into
 * ZP_G16_RING_BUFS buffers, filled in schedule order, each on a copy
 * stream of its own: a chunk's MSM waits for its own buffer's copy only,
 * and a buffer is filled again once the chunk before in it has been
 * summed (every MSM waits for its stream). H's scalars stay in a to the
 * end, so A's and B's are read from the witness through the density maps,
 * a chunk's range of it at a time (zp__gpu_wsc.j0), never gathered. With
 * the kept buckets (zp__g16_h_acc_window) H's chunks sum into them and
 * the sum is made once, after the last chunk.
 */
#include <stdlib.h>
#include <string.h>

#include "groth16/prove_gpu_slot_impl.h"

enum { M_H, M_L, M_A, M_B1, M_B2, M_N };

typedef struct zp__g16_chunk {
    unsigned msm;
    bool streamed;
    uint64_t p, len;      /* points [p, p + len) of the MSM's array */
    uint64_t off, nv, j0; /* the witness it reads (not H) */
    double at;            /* its place: the share of its group done before it */
    size_t seq;           /* order of making, the tie-break */
} zp__g16_chunk;

static const zp__g16_part msm_part[M_N] = {ZP_G16_P_H, ZP_G16_P_L, ZP_G16_P_A, ZP_G16_P_B1,
                                           ZP_G16_P_B2};

static uint64_t buf_bytes(const zp__g16_slot *s)
{
    return (s->ring.bytes / ZP_G16_RING_BUFS) & ~(uint64_t)255;
}

static void *buf_at(const zp__g16_slot *s, size_t q)
{
    return (char *)s->ring.ptr + (q % ZP_G16_RING_BUFS) * buf_bytes(s);
}

/* Points of a streamed chunk: a buffer's worth, no more than a chunk. */
static uint64_t buf_points(const zp__g16_slot *s, zp__g16_part i)
{
    const uint64_t n = buf_bytes(s) / zp__g16_part_size(i);
    return min_u64(n, zp__g16_slot_chunk(s, i == ZP_G16_P_B2));
}

zp_err zp__g16_slot_ring_open(zp__g16_slot *s)
{
    s->ring_q[0] = s->ring_stream;
    for (int i = 1; i < ZP_G16_RING_BUFS; i++) {
        zp_err e = zp__gpu_stream_open_copy(s->dev, &s->ring_q[i]);
        if (e)
            return e;
    }
    return ZP_OK;
}

void zp__g16_slot_ring_close(zp__g16_slot *s)
{
    if (s->ring_stream)
        zp__gpu_stream_sync(s->ring_stream);
    for (int i = 1; i < ZP_G16_RING_BUFS; i++) {
        if (s->ring_q[i]) {
            zp__gpu_stream_sync(s->ring_q[i]);
            zp__gpu_stream_close(s->ring_q[i]);
        }
        s->ring_q[i] = NULL;
    }
    s->ring_q[0] = NULL;
    free(s->sched);
    s->sched = NULL;
    s->sched_key = NULL;
}

/* Whether k's MSMs run as one schedule on s: the key streams through the
 * slot's ring, and the host has its density maps to cut A and B by. */
bool zp__g16_sched_on(const zp__g16_slot *s, const zp__g16_dkey *k)
{
    const zp__pk *pk = k->pk;
    return s->ring_buffer && s->ring_q[ZP_G16_RING_BUFS - 1] && zp__g16_dkey_streams(k) &&
           buf_points(s, ZP_G16_P_B2) > 0 && (!pk->n_a || pk->a_density.words) &&
           (!pk->n_b || pk->b_density.words);
}

typedef struct chunk_vec {
    zp__g16_chunk *v;
    size_t n, cap;
} chunk_vec;

static bool chunk_push(chunk_vec *c, const zp__g16_chunk *x)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        zp__g16_chunk *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return false;
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n] = *x;
    c->v[c->n].seq = c->n;
    c->n++;
    return true;
}

/* The chunks of MSM m over its array's points [p0, p1): the resident ones
 * a slot's chunk at a time, the streamed ones a buffer's worth. The
 * witness each reads: H none; L the range from index lo + p; A, B1 and B2
 * the variables whose density bits are set bits p .. p + len - 1 (walk w
 * over that map; its points in order). */
static bool chunks_of(chunk_vec *c, const zp__g16_slot *s, const zp__g16_dkey *k, unsigned m,
                      uint64_t p0, uint64_t p1, uint64_t lo, zp__bitmap_walk *w)
{
    const zp__g16_part i = msm_part[m];
    const uint64_t res = k->res[i], n = zp__g16_part_count(k->pk, i);
    for (uint64_t p = p0; p < p1;) {
        const bool streamed = p >= res;
        uint64_t len = streamed ? buf_points(s, i) : zp__g16_slot_chunk(s, i == ZP_G16_P_B2);
        len = min_u64(len, (streamed ? p1 : min_u64(p1, res)) - p);
        zp__g16_chunk x = {m, streamed, p, len, 0, 0, 0, 0, 0};
        if (m == M_L) {
            x.off = lo + p;
            x.nv = len;
        } else if (m != M_H) {
            x.off = zp__bitmap_seek(w, p);
            x.nv = (p + len < n ? zp__bitmap_seek(w, p + len) : k->pk->n_vars) - x.off;
            x.j0 = p;
        }
        if (!chunk_push(c, &x))
            return false;
        p += len;
    }
    return true;
}

static int chunk_cmp(const void *a, const void *b)
{
    const zp__g16_chunk *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Where each group's chunks go: H's spread evenly over the whole
 * schedule, H's first chunk first (a lean slot's witness crosses
 * meanwhile); the witness MSMs' (L, A, B1, B2 in turn) evenly over its
 * first SCHED_W_SPAN, half a place late, so that the next partition's
 * witness goes up while H's last chunks run. */
#define SCHED_W_SPAN 0.75

/* Makes (or keeps) s's schedule for k and the slot's L ranges. */
static zp_err sched_make(zp__g16_slot *s, const zp__g16_dkey *k)
{
    if (s->sched && s->sched_key == k && s->sched_l_split == s->l_split &&
        (!s->l_split || (s->sched_n_l_rest == s->n_l_rest &&
                         !memcmp(s->sched_l_rest, s->l_rest, sizeof s->l_rest))))
        return ZP_OK;
    free(s->sched);
    s->sched = NULL;
    s->sched_key = NULL;
    const zp__pk *pk = k->pk;
    const uint64_t lo = pk->n_public + 1;
    chunk_vec c = {0};
    bool ok = chunks_of(&c, s, k, M_H, 0, pk->n_h, 0, NULL);
    const size_t nh = c.n;
    if (s->l_split) {
        for (unsigned r = 0; ok && r < s->n_l_rest; r++) {
            const uint64_t from = max_u64(s->l_rest[r][0], lo), to = s->l_rest[r][1];
            if (from < to)
                ok = chunks_of(&c, s, k, M_L, from - lo, to - lo, lo, NULL);
        }
    } else if (ok) {
        ok = chunks_of(&c, s, k, M_L, 0, pk->n_l, lo, NULL);
    }
    zp__bitmap_walk wa = {&pk->a_density, 0, 0}, wb1 = {&pk->b_density, 0, 0},
                    wb2 = {&pk->b_density, 0, 0};
    ok = ok && chunks_of(&c, s, k, M_A, 0, pk->n_a, 0, &wa) &&
         chunks_of(&c, s, k, M_B1, 0, pk->n_b, 0, &wb1) &&
         chunks_of(&c, s, k, M_B2, 0, pk->n_b, 0, &wb2);
    if (!ok) {
        free(c.v);
        return ZP_E_NOMEM;
    }
    const size_t nw = c.n - nh;
    for (size_t j = 0; j < c.n; j++)
        c.v[j].at = j < nh ? (double)j / (double)nh
                           : ((double)(j - nh) + 0.5) / (double)nw * SCHED_W_SPAN;
    qsort(c.v, c.n, sizeof *c.v, chunk_cmp);
    s->sched = c.v;
    s->sched_n = c.n;
    s->sched_key = k;
    s->sched_l_split = s->l_split;
    s->sched_n_l_rest = s->n_l_rest;
    memcpy(s->sched_l_rest, s->l_rest, sizeof s->l_rest);
    return ZP_OK;
}

/* Enqueues the copy of streamed chunk number q (in schedule order) into
 * its buffer, on its buffer's copy stream after the copy before it. */
static zp_err sched_put(zp__g16_slot *s, const zp__g16_dkey *k, const zp__g16_chunk *x, size_t q)
{
    const zp__g16_part i = msm_part[x->msm];
    const uint64_t size = zp__g16_part_size(i);
    zp__gpu_stream *st = s->ring_q[q % ZP_G16_RING_BUFS];
    zp_err e = q ? zp__gpu_stream_after(st, s->ring_q[(q - 1) % ZP_G16_RING_BUFS]) : ZP_OK;
    if (e)
        return e;
    const char *src = (const char *)k->host[i] + (x->p - k->res[i]) * size;
    s->streamed += x->len * size;
    return zp__gpu_upload(st, buf_at(s, q), src, x->len * size);
}

/* Adds one chunk's MSM to its sum. */
static zp_err sched_chunk(zp__g16_slot *s, const zp__g16_dkey *k, const zp__g16_chunk *x,
                          const void *pts, zp__g16_sums *out, zp__gpu_msm_acc *h_acc)
{
    zp_err e;
    if (x->msm == M_H)
        return zp__g16_h_chunk(s, &out->h, h_acc, pts, (const zp_fr *)s->work.ptr + x->p, x->len);
    const bool a = x->msm == M_A;
    const zp__gpu_wsc ws = {s->witness.ptr,
                            x->msm == M_L ? NULL : a ? k->a_words.ptr : k->b_words.ptr,
                            x->msm == M_L ? NULL : a ? k->a_rank.ptr : k->b_rank.ptr,
                            x->off, x->nv, x->j0};
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
    zp_g1_jac part;
    zp_g1_jac *to = x->msm == M_L ? &out->l : a ? &out->a : &out->b1;
    e = zp__gpu_msm_g1_w(s->msm_stream, &part, pts, &ws, x->len, s->msm_scratch);
    if (!e) {
        zp__g16_slot_count_msm(s, s->msm_stream);
        zp_g1_jac sum;
        zp_g1_jac_add(&sum, to, &part);
        *to = sum;
    }
    return e;
}

/* The five MSMs as s's schedule for k, on the slot's stream after h (the
 * MSM helpers set there); the lean slot's witness has been sent again on
 * copy_stream, and the witness MSMs' first chunk waits for it. */
zp_err zp__g16_sched_run(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_sums *out,
                         zp__prove_times *t)
{
    zp_err e = sched_make(s, k);
    if (e)
        return e;
    const zp__g16_chunk *v = s->sched;
    const size_t n = s->sched_n;
    zp_g1_jac_inf(&out->h);
    zp_g1_jac_inf(&out->a);
    zp_g1_jac_inf(&out->b1);
    zp_g2_jac_inf(&out->b2);
    if (s->l_split)
        out->l = s->l_head;
    else
        zp_g1_jac_inf(&out->l);
    s->l_split = false;
    size_t last_w = n; /* the last chunk that reads the witness */
    for (size_t j = 0; j < n; j++)
        if (v[j].msm != M_H)
            last_w = j;
    /* Streamed chunks: sent (copies enqueued) and summed, in schedule
     * order; the first may be on its way since h (zp__g16_slot_prefetch). */
    size_t sent = 0, summed = 0, next_put = 0;
    if (s->pre_key == k && s->pre_sched) {
        for (; next_put < n && !v[next_put].streamed; next_put++)
            ;
        if (next_put < n && msm_part[v[next_put].msm] == s->pre_part &&
            v[next_put].p == s->pre_at) {
            sent = 1;
            next_put++;
        } else {
            next_put = 0;
        }
    }
    s->pre_key = NULL;
    s->pre_sched = false;
    bool w_ready = !s->lean;
    double tm[M_N] = {0}, wait = 0;
    zp__gpu_msm_acc acc;
    bool acc_on;
    e = zp__g16_h_acc_begin(s, k, &acc, &acc_on);
    if (!e && last_w == n)
        e = zp__g16_slot_send_next(s, k);
    for (size_t j = 0; !e && j < n; j++) {
        /* Fill every buffer whose chunk before has been summed. */
        for (; !e && next_put < n && sent < summed + ZP_G16_RING_BUFS; next_put++) {
            if (!v[next_put].streamed)
                continue;
            e = sched_put(s, k, &v[next_put], sent);
            sent++;
        }
        if (e)
            break;
        const zp__g16_chunk *x = &v[j];
        const zp__g16_part i = msm_part[x->msm];
        const void *pts = (const char *)zp__g16_dkey_part((zp__g16_dkey *)k, i)->ptr +
                          x->p * zp__g16_part_size(i);
        if (x->streamed) { /* its copy waited for here, and the wait timed */
            const double tw = zp__g16_now();
            e = zp__gpu_stream_sync(s->ring_q[summed % ZP_G16_RING_BUFS]);
            wait += zp__g16_now() - tw;
            pts = buf_at(s, summed);
        }
        if (!e && x->msm != M_H && !w_ready) {
            e = zp__gpu_stream_after(s->msm_stream, s->copy_stream);
            w_ready = true;
        }
        const double t0 = zp__g16_now();
        if (!e)
            e = sched_chunk(s, k, x, pts, out, acc_on ? &acc : NULL);
        tm[x->msm] += zp__g16_now() - t0;
        summed += x->streamed;
        if (!e && j == last_w)
            e = zp__g16_slot_send_next(s, k);
    }
    if (!e && acc_on) {
        const double t0 = zp__g16_now();
        e = zp__g16_h_acc_end(s, &acc, &out->h);
        tm[M_H] += zp__g16_now() - t0;
    }
    if (e) /* no copy may still write a buffer */
        for (int q = 0; q < ZP_G16_RING_BUFS; q++)
            zp__gpu_stream_sync(s->ring_q[q]);
    t->msm_h = tm[M_H];
    t->msm_l = tm[M_L];
    t->msm_a = tm[M_A];
    t->msm_b1 = tm[M_B1];
    t->msm_b2 = tm[M_B2];
    t->msm_wait = wait;
    return e;
}

/* The schedule's first streamed chunk into buffer 0 now (the ring is free:
 * every MSM waits for its stream), for zp__g16_sched_run to find on its way. */
zp_err zp__g16_sched_prefetch(zp__g16_slot *s, const zp__g16_dkey *k)
{
    zp_err e = sched_make(s, k);
    if (e)
        return e;
    for (size_t j = 0; j < s->sched_n; j++) {
        const zp__g16_chunk *x = &s->sched[j];
        if (!x->streamed)
            continue;
        e = sched_put(s, k, x, 0);
        if (!e) {
            s->pre_key = k;
            s->pre_part = msm_part[x->msm];
            s->pre_at = x->p;
            s->pre_sched = true;
        }
        return e;
    }
    return ZP_OK;
}

