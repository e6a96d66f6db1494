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
 * the sum is made once, after the last chunk. A key whose ring is shared
 * (zp__g16_dkey.share, prove_gpu_share.c) feeds all its slots from one
 * ring: each slot joins the circle of streamed chunks where it is.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "groth16/prove_gpu_sched_impl.h"
#include "groth16/sched_tune.h"

uint64_t zp__g16_ring_buf_of(uint64_t rb)
{
    return (2 * zp__g16_arena_round(rb) / ZP_G16_RING_BUFS) & ~(uint64_t)255;
}

static uint64_t buf_bytes(const zp__g16_slot *s) { return zp__g16_ring_buf_of(s->ring_buffer); }

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
    s->ev_id = 0;
    s->ev_low_id = 0;
    free(s->sched);
    s->sched = NULL;
}

zp_err zp__g16_ring_take(zp__g16_slot *s)
{
    if (!s->ev_id)
        return ZP_OK;
    s->ev_id = 0;
    zp_err e = ZP_OK;
    for (int q = 1; !e && q < ZP_G16_RING_BUFS; q++)
        if (s->ring_q[q])
            e = zp__gpu_stream_after(s->ring_q[q], s->ring_stream);
    return e;
}

/* The half of the ring (0 or 1, each of ring.bytes / 2) whose streamed
 * chunks of schedule v (n chunks) are all summed first, and in *after the
 * count of streamed chunks summed by then (0: none uses it); *streamed:
 * how many chunks stream. A streamed chunk's points lie in buffer (its
 * rank among the streamed) % RING_BUFS, the second of a pair also in the
 * first's. */
static unsigned eval_half(const zp__g16_slot *s, const zp__g16_chunk *v, size_t n, size_t *after,
                          size_t *streamed)
{
    const uint64_t half = s->ring.bytes / 2, bb = buf_bytes(s);
    size_t ns = 0, need[2] = {0, 0};
    for (size_t j = 0; j < n; j++) {
        if (!v[j].streamed)
            continue;
        const uint64_t q = ns % ZP_G16_RING_BUFS;
        ns++;
        for (unsigned h = 0; h < 2; h++)
            if (q * bb < (h + 1) * half && (q + 1) * bb > h * half)
                need[h] = ns;
    }
    const unsigned h = need[1] < need[0];
    *after = need[h];
    *streamed = ns;
    return h;
}

/* hmin[j]: the least point of H's chunks j .. n - 1 of v (n_h where none):
 * with H's chunks before j summed, a's scalars below it are free. NULL
 * where memory runs out. */
static uint64_t *h_free(const zp__g16_chunk *v, size_t n, uint64_t n_h)
{
    uint64_t *m = malloc((n + 1) * sizeof *m);
    if (!m)
        return NULL;
    m[n] = n_h;
    for (size_t j = n; j-- > 0;)
        m[j] = v[j].msm == M_H && v[j].p < m[j + 1] ? v[j].p : m[j + 1];
    return m;
}

/* Plans s->ev_low for k's next eval: the rows whose pieces (of one H
 * chunk's scalars each) fit the bottom of a that H's chunks before its
 * last one in v leave free (hmin from h_free); false where no row does. */
static bool low_plan(zp__g16_slot *s, const zp__g16_dkey *k, const zp__g16_chunk *v, size_t n,
                     const uint64_t *hmin)
{
    size_t last = n;
    for (size_t j = 0; j < n; j++)
        if (v[j].msm == M_H)
            last = j;
    if (last == n)
        return false;
    const uint64_t dom = k->pk->domain_size;
    const uint64_t room = hmin[last] * sizeof(zp_fr);
    const uint64_t piece = max_u64(buf_points(s, ZP_G16_P_H) * sizeof(zp_fr), (uint64_t)1 << 20);
    if (s->ev_plan_id != k->id || s->ev_room != room || s->ev_piece != piece) {
        s->ev_r_lo = zp__gpu_eval_low_rows(room, piece, dom, &k->ma, &k->mb);
        s->ev_plan_id = k->id;
        s->ev_room = room;
        s->ev_piece = piece;
    }
    s->ev_low = (zp__gpu_eval_low){s->work.ptr, piece, s->ev_r_lo, s->ev_r_lo, 0};
    return s->ev_r_lo < dom;
}

/* Whether k's MSMs run as one schedule on s: the key streams through the
 * slot's ring, and the host has its density maps to cut A and B by. */
bool zp__g16_sched_on(const zp__g16_slot *s, const zp__g16_dkey *k)
{
    const zp__pk *pk = k->pk;
    const bool ring = k->share ? s->ring_buffer == k->ring_buffer && !s->lean
                               : s->ring_buffer && s->ring_q[ZP_G16_RING_BUFS - 1];
    return ring && zp__g16_dkey_streams(k) &&
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

/* Marks the streamed chunks summed two at a time (zp__g16_chunk.pair): a
 * witness MSM's chunk (L, A, B1, B2) and the next chunk of the schedule,
 * when it is the same MSM's next points, streamed into the buffer after
 * it in the ring (not across the ring's end), the two no more than a
 * slot's chunk (its scratch's size). A witness MSM's chunk is short on the
 * SMs against its copy, and each chunk pays its split and sorts (and B2's
 * its reduction): two buffers a chunk halve those. The second chunk's copy
 * lands right after the first's points (sched_put), so that the two are
 * one array. H's chunks stay one buffer each: a long one holding two
 * buffers starves the ring (bench/RESULTS.md, hpairs). */
static void sched_pair(const zp__g16_slot *s, zp__g16_chunk *v, size_t n)
{
    size_t q = 0; /* copy number of chunk j */
    for (size_t j = 0; j < n; j++) {
        zp__g16_chunk *x = &v[j], *y = j + 1 < n ? &v[j + 1] : NULL;
        x->pair = 0;
        if (!x->streamed)
            continue;
        if (y && y->streamed && x->msm != M_H && y->msm == x->msm && y->p == x->p + x->len &&
            q % ZP_G16_RING_BUFS != ZP_G16_RING_BUFS - 1 &&
            x->len + y->len <= zp__g16_slot_chunk(s, x->msm == M_B2)) {
            x->pair = 1;
            y->pair = 2;
            j++;
            q++;
        }
        q++;
    }
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
        zp__g16_chunk x = {m, streamed, p, len, 0, 0, 0, 0, 0, 0, 0};
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
 * first span, half a place late, and before H's last chunk, so that the
 * next partition's witness goes up while H's tail runs. The span trades
 * the bus's stretches against that tail: the copies a run of witness
 * chunks asks for (short on the SMs) outrun an H chunk's time unless H's
 * chunks come among them (bench/sched_model.py replays a logged schedule
 * against that model), while the tail must hold the next witness's copy:
 * a tenth of H for a packed witness (~11 % of its bytes for porep), a
 * quarter for one sent plain (bench/RESULTS.md, key tiers). */
#define SCHED_W_SPAN_PACKED 0.9
#define SCHED_W_SPAN_PLAIN 0.75

/* Makes (or keeps) s's schedule for k and the slot's L ranges. */
zp_err zp__g16_sched_make(zp__g16_slot *s, const zp__g16_dkey *k)
{
    if (s->sched && s->sched_id == k->id &&
        s->sched_l_split == s->l_split &&
        (!s->l_split || (s->sched_n_l_rest == s->n_l_rest &&
                         !memcmp(s->sched_l_rest, s->l_rest, sizeof s->l_rest))))
        return ZP_OK;
    free(s->sched);
    s->sched = NULL;
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
    const double want =
        zp__g16_slot_wpack_pinned(s, pk) ? SCHED_W_SPAN_PACKED : SCHED_W_SPAN_PLAIN;
    const double span =
        nh > 1 && (double)(nh - 1) / (double)nh < want ? (double)(nh - 1) / (double)nh : want;
    for (size_t j = 0; j < c.n; j++)
        c.v[j].at = j < nh ? (double)j / (double)nh
                           : ((double)(j - nh) + 0.5) / (double)nw * span;
    qsort(c.v, c.n, sizeof *c.v, chunk_cmp);
    s->sched = c.v;
    s->sched_n = c.n;
    s->sched_gen++;
    s->sched_made_runs = 0;
    s->sched_id = k->id;
    s->sched_l_split = s->l_split;
    s->sched_n_l_rest = s->n_l_rest;
    memcpy(s->sched_l_rest, s->l_rest, sizeof s->l_rest);
    sched_pair(s, s->sched, s->sched_n);
    return ZP_OK;
}

zp__g16_sched_entry *zp__g16_sched_list(zp__g16_slot *s, const zp__g16_dkey *k, size_t *n)
{
    *n = 0;
    if (zp__g16_sched_make(s, k))
        return NULL;
    zp__g16_sched_entry *out = calloc(s->sched_n ? s->sched_n : 1, sizeof *out);
    if (!out)
        return NULL;
    for (size_t j = 0; j < s->sched_n; j++) {
        const zp__g16_chunk *x = &s->sched[j];
        out[j].msm = x->msm;
        out[j].pair = x->pair;
        out[j].streamed = x->streamed;
        out[j].p = x->p;
        out[j].len = x->len;
    }
    *n = s->sched_n;
    return out;
}

/* Enqueues the copy of streamed chunk number q (in schedule order) into
 * its buffer, on its buffer's copy stream after the copy before it, and
 * marks its end there: the chunk waits for that mark, not for what the
 * stream takes on after it (ring_q[0] is ring_stream, which also carries
 * the next eval's matrices). */
static zp_err sched_put(zp__g16_slot *s, const zp__g16_dkey *k, const zp__g16_chunk *x, size_t q)
{
    const zp__g16_part i = msm_part[x->msm];
    const uint64_t size = zp__g16_part_size(i);
    zp__gpu_stream *st = s->ring_q[q % ZP_G16_RING_BUFS];
    zp_err e = q ? zp__gpu_stream_after(st, s->ring_q[(q - 1) % ZP_G16_RING_BUFS]) : ZP_OK;
    if (e)
        return e;
    const char *src = (const char *)k->host[i] + (x->p - k->res[i]) * size;
    /* The second of a pair right after the first's points (sched_pair). */
    char *dst = x->pair == 2 ? (char *)buf_at(s, q - 1) + x[-1].len * size : buf_at(s, q);
    s->streamed += x->len * size;
    e = zp__gpu_upload(st, dst, src, x->len * size);
    return e ? e : zp__gpu_stream_mark(st);
}

/* The next partition's a (zp__g16_slot_a_ahead) into the slot's a below
 * value `room`, on the copy stream, once its image may be read: the
 * image's values, then zeros to the domain n. */
static zp_err a_ahead_put(zp__g16_slot *s, uint64_t room, uint64_t n)
{
    if (atomic_load(s->a_next_ready) < 1)
        return ZP_OK;
    zp_fr *a = s->work.ptr;
    const uint64_t to = min_u64(room, n), m = s->a_next_m, end = min_u64(to, m);
    zp_err e = ZP_OK;
    if (s->a_sent < end) {
        s->a_pending = true;
        e = zp__gpu_upload(s->copy_stream, a + s->a_sent, s->a_next + s->a_sent,
                           (end - s->a_sent) * sizeof(zp_fr));
        s->a_sent = end;
    }
    if (!e && s->a_sent >= m && s->a_sent < to) {
        s->a_pending = true;
        e = zp__gpu_memset0(s->copy_stream, a + s->a_sent, (to - s->a_sent) * sizeof(zp_fr));
        s->a_sent = to;
    }
    return e;
}

/* Until the next partition's image holds a (level 1) or a and b (2): a
 * thread copies them while the MSMs run, so it has done so long before a
 * schedule asks, unless the host copies very slowly. */
static void image_wait(const zp__g16_slot *s, int level)
{
    while (atomic_load(s->a_next_ready) < level)
        nanosleep(&(struct timespec){0, 100000}, NULL);
}

/* The next partition's b (the image's values after a's, zp__g16_slot_a_ahead)
 * into b's third on the copy stream, then zeros to the domain n. */
static zp_err b_tail_put(zp__g16_slot *s, uint64_t n)
{
    zp_fr *b = (zp_fr *)s->work.ptr + s->domain_size;
    const uint64_t m = s->a_next_m;
    s->a_pending = true;
    zp_err e = m ? zp__gpu_upload(s->copy_stream, b, s->a_next + m, m * sizeof(zp_fr)) : ZP_OK;
    if (!e && m < n)
        e = zp__gpu_memset0(s->copy_stream, b + m, (n - m) * sizeof(zp_fr));
    return e;
}

/* The five MSMs as s's schedule for k, on the slot's stream after h (the
 * MSM helpers set there); the lean slot's witness has been sent again on
 * copy_stream, and the witness MSMs' first chunk waits for it. */

zp_err zp__g16_sched_run(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_sums *out,
                         zp__prove_times *t)
{
    if (k->share)
        return zp__g16_sched_run_shared(s, k, out, t);
    zp_err e = zp__g16_ring_take(s);
    if (!e)
        e = zp__g16_sched_make(s, k);
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
    /* And on a lean slot whose scratch is b's third, its b: H's chunks
     * after last_w sum in c's third (the witness, dead by then), and b
     * crosses into b's third meanwhile (b_tail_put). */
    bool b_tail = false;
    /* Streamed chunks: sent (copies enqueued) and summed, in schedule
     * order; the first ones may be on their way since h
     * (zp__g16_sched_prefetch), if the schedule is the one they were sent
     * for. */
    size_t sent = 0, summed = 0, next_put = 0;
    if (s->pre_key == k && s->pre_n && s->pre_gen == s->sched_gen) {
        for (; next_put < n && sent < s->pre_n; next_put++)
            sent += v[next_put].streamed;
    }
    s->pre_key = NULL;
    s->pre_n = 0;
    /* Where the matrices stream, the next eval's first block crosses into
     * the ring half that the schedule is done with first, once it is:
     * eval otherwise starts by waiting for it with the SMs idle. */
    size_t ev_after = 0, ev_ns = 0;
    const unsigned ev_h = eval_half(s, v, n, &ev_after, &ev_ns);
    bool ev_on = k->mat_stream && s->ring_stream;
    /* And its last rows cross into the bottom of a as H's chunks leave
     * their scalars there (any eval waits for those copies before it
     * writes a, prove_gpu_stage.c); without memory for hmin they cross
     * during eval as the others do. */
    /* Or, for a partition of a, b, c, the next one's a, named by the
     * hook during h (zp__g16_slot_a_ahead), goes there: the drop-in's a
     * and b otherwise both go up with the SMs idle. */
    const bool a_want = s->a_next && !ev_on;
    uint64_t *hmin = ev_on || a_want ? h_free(v, n, k->pk->n_h) : NULL;
    const bool low_on = ev_on && hmin && low_plan(s, k, v, n, hmin);
    const bool a_on = a_want && hmin;
    s->a_done = s->b_done = NULL;
    s->ev_end = low_on ? s->ev_low.r_lo : k->pk->domain_size;
    bool w_ready = !zp__g16_slot_w_after_h(s);
    s->next_bytes = 0; /* until this run sends the next witness */
    double tm[M_N] = {0}, wait = 0;
    /* At debug level a line a chunk: where the schedule waits for copies
     * and what each chunk costs the SMs. */
    const bool chunk_log = zp__log_on(ZP__LOG_DEBUG);
    const double start = zp__g16_now();
    const uint64_t run = ++s->sched_runs;
    zp__g16_accs acc;
    e = zp__g16_accs_begin(s, k, &acc, tm);
    if (!e && last_w == n)
        e = zp__g16_slot_send_next(s, k);
    for (size_t j = 0; !e && j <= n; j++) {
        if (ev_on && summed >= ev_after) {
            /* That half's chunks are summed and no copy fills it again. */
            ev_on = false;
            e = zp__gpu_eval_ring_first(s->ring_stream, s->ring.ptr, s->ring.bytes / 2, ev_h,
                                        s->ev_end, &k->ma, &k->mb, &s->streamed);
            if (!e) {
                s->ev_id = k->id;
                s->ev_half = ev_h;
            }
            if (chunk_log)
                zp__log(ZP__LOG_DEBUG, "sched.eval_ahead",
                        "run=%llu half=%u streamed_summed=%zu of=%zu at_ms=%.3f",
                        (unsigned long long)run, ev_h, summed, ev_ns,
                        1e3 * (zp__g16_now() - start));
        }
        if (e || j == n)
            break;
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
        /* Before an H chunk (the bus idles through it), the pieces that
         * the H chunks summed so far have made room for. */
        if (low_on && x->msm == M_H && s->ev_low.r < k->pk->domain_size) {
            e = zp__gpu_eval_low_put(s->ring_stream, &s->ev_low, hmin[j] * sizeof(zp_fr),
                                     k->pk->domain_size, &k->ma, &k->mb, &s->streamed);
            if (e)
                break;
        }
        if (a_on && x->msm == M_H && (e = a_ahead_put(s, hmin[j], k->pk->domain_size)))
            break;
        if (a_on && !b_tail && last_w < n && j > last_w && s->lean &&
            s->scratch_off == s->witness.bytes) {
            b_tail = true;
            s->msm_scratch = (zp__gpu_buf){s->witness.ptr, s->witness.bytes};
            image_wait(s, 2);
            if ((e = b_tail_put(s, k->pk->domain_size)))
                break;
        }
        const zp__g16_part i = msm_part[x->msm];
        const void *pts = (const char *)zp__g16_dkey_part((zp__g16_dkey *)k, i)->ptr +
                          x->p * zp__g16_part_size(i);
        zp__g16_chunk two;
        const bool pair = x->pair == 1;
        if (pair) { /* the two as one (sched_pair) */
            two = *x;
            two.len = x->len + x[1].len;
            two.nv = x[1].off + x[1].nv - x->off;
            x = &two;
        }
        double waited = 0;
        for (unsigned b = 0; !e && x->streamed && b <= pair; b++) {
            /* its copies waited for here, and the waits timed */
            const double tw = zp__g16_now();
            e = zp__gpu_stream_mark_sync(s->ring_q[(summed + b) % ZP_G16_RING_BUFS]);
            waited += zp__g16_now() - tw;
        }
        if (x->streamed)
            pts = buf_at(s, summed);
        wait += waited;
        if (!e && x->msm != M_H && !w_ready) {
            e = zp__gpu_stream_after(s->msm_stream, s->copy_stream);
            w_ready = true;
        }
        const double t0 = zp__g16_now();
        if (!e)
            e = zp__g16_sched_chunk(s, k, x, pts, out, &acc);
        const double t1 = zp__g16_now();
        tm[x->msm] += t1 - t0;
        s->sched[j].ms = 1e3 * (t1 - t0);
        if (pair)
            s->sched[j + 1].ms = 0;
        if (chunk_log) {
            /* the chunk's windows and windows a pass (its dense part's) */
            unsigned nw = 0, pp = 0;
            zp__gpu_msm_last_passes(s->msm_stream, &nw, &pp);
            zp__log(ZP__LOG_DEBUG, "sched.chunk",
                    "run=%llu j=%zu msm=%s streamed=%d buffers=%u points=%llu wait_ms=%.3f "
                    "sum_ms=%.3f end_ms=%.3f windows=%u per_pass=%u",
                    (unsigned long long)run, j, zp__g16_part_name(i), (int)x->streamed,
                    x->streamed ? 1u + pair : 0u, (unsigned long long)x->len, 1e3 * waited,
                    1e3 * (t1 - t0), 1e3 * (t1 - start), nw, pp);
        }
        summed += x->streamed ? 1u + pair : 0u;
        s->took_pairs += pair;
        j += pair;
        if (!e && j == last_w)
            e = zp__g16_slot_send_next(s, k);
    }
    /* The next a's rest: every H chunk is summed. */
    if (!e && a_on) {
        image_wait(s, 1);
        e = a_ahead_put(s, UINT64_MAX, k->pk->domain_size);
        if (!e)
            s->a_done = s->a_next;
        if (!e && b_tail)
            s->b_done = s->a_next;
        if (chunk_log)
            zp__log(ZP__LOG_DEBUG, "sched.a_ahead", "run=%llu values=%llu of=%llu b=%d",
                    (unsigned long long)run, (unsigned long long)s->a_next_m,
                    (unsigned long long)k->pk->domain_size, (int)b_tail);
    }
    s->a_next = NULL;
    /* The pieces left: every H chunk is summed. */
    if (!e && low_on) {
        e = zp__gpu_eval_low_put(s->ring_stream, &s->ev_low, UINT64_MAX, k->pk->domain_size,
                                 &k->ma, &k->mb, &s->streamed);
        if (!e)
            s->ev_low_id = k->id;
        if (chunk_log)
            zp__log(ZP__LOG_DEBUG, "sched.eval_low", "run=%llu rows_from=%llu of=%llu bytes=%llu",
                    (unsigned long long)run, (unsigned long long)s->ev_low.r_lo,
                    (unsigned long long)k->pk->domain_size, (unsigned long long)s->ev_low.off);
    }
    free(hmin);
    if (!e)
        e = zp__g16_accs_end(s, &acc, out);
    if (e) { /* no copy may still write a buffer, or a */
        for (int q = 0; q < ZP_G16_RING_BUFS; q++)
            zp__gpu_stream_sync(s->ring_q[q]);
        zp__gpu_stream_sync(s->copy_stream);
        s->ev_id = 0;
        s->ev_low_id = 0;
        s->a_pending = false;
        s->a_done = s->b_done = NULL;
    }
    zp__g16_sched_times(t, tm, wait);
    /* After its second run (the first may pay what later ones do not),
     * the schedule's H chunks placed again from that run's times. */
    if (!e && ++s->sched_made_runs == 2)
        zp__g16_sched_retune(s, k, NULL, 1e3 * wait);
    return e;
}

/* The most units a schedule is retuned with (a porep:27 one has ~40). */
#define SCHED_TUNE_MAX 512

bool zp__g16_sched_retune(zp__g16_slot *s, const zp__g16_dkey *k, const double *ms,
                          double wait_ms)
{
    if (zp__g16_sched_make(s, k))
        return false;
    const size_t n = s->sched_n;
    zp__sched_unit *u = malloc((n ? n : 1) * sizeof *u);
    size_t *first = malloc((n ? n : 1) * sizeof *first);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    zp__g16_chunk *v = malloc((n ? n : 1) * sizeof *v);
    bool changed = false;
    size_t nu = 0;
    for (size_t j = 0; u && first && order && v && j < n; j++) {
        const zp__g16_chunk *x = &s->sched[j];
        if (x->pair == 2)
            continue; /* with its first */
        u[nu].h = x->msm == M_H;
        u[nu].pair = x->pair == 1;
        u[nu].bufs = x->streamed ? (x->pair == 1 ? 2u : 1u) : 0u;
        u[nu].ms = ms ? ms[j] : x->ms;
        first[nu++] = j;
    }
    /* The next witness's copy in buffers' time, where one went up during
     * a run (the tail then is the model's to weigh: a witness that packs
     * poorly, or a plain one, wants more of H after the witness MSMs). */
    const double tail = s->next_bytes ? (double)s->next_bytes / (double)buf_bytes(s) : 0;
    /* The search costs about units squared replays' steps: a schedule of
     * many small buffers (tests' rings) keeps its order. */
    const double copy = u && first && order && v && nu <= SCHED_TUNE_MAX
                            ? zp__sched_copy_ms(u, nu, ZP_G16_RING_BUFS, tail, wait_ms)
                            : 0;
    if (copy > 0) {
        const double was = zp__sched_replay(u, NULL, nu, copy, ZP_G16_RING_BUFS, tail, NULL);
        const double end = zp__sched_tune(u, nu, copy, ZP_G16_RING_BUFS, tail, order);
        /* a gain worth a new order: half a ms */
        if (end < was - 0.5) {
            size_t at = 0;
            for (size_t i = 0; i < nu; i++) {
                const size_t j = first[order[i]];
                v[at++] = s->sched[j];
                if (s->sched[j].pair == 1)
                    v[at++] = s->sched[j + 1];
            }
            /* The pairs move with their chunks: side by side still, and
             * never from the ring's last buffer (zp__sched_tune). */
            memcpy(s->sched, v, n * sizeof *v);
            s->sched_gen++;
            changed = true;
            zp__log(ZP__LOG_INFO, "sched.tune",
                    "chunks=%zu copy_ms=%.2f witness_bufs=%.2f waited_ms=%.1f modelled_end_ms=%.1f "
                    "tuned_end_ms=%.1f",
                    n, copy, tail, wait_ms, was, end);
        }
    }
    free(u);
    free(first);
    free(order);
    free(v);
    return changed;
}

/* The schedule's first streamed chunks into every buffer of the ring now
 * (it is free: every MSM waits for its stream, and eval has waited for
 * its copies), for zp__g16_sched_run to find on their way: the bus is
 * idle while h runs, and a buffer filled now is one fewer copy for the
 * MSMs to wait for. */
zp_err zp__g16_sched_prefetch(zp__g16_slot *s, const zp__g16_dkey *k)
{
    if (k->share) /* the shared ring fills as its slots need it */
        return ZP_OK;
    zp_err e = zp__g16_ring_take(s);
    if (!e)
        e = zp__g16_sched_make(s, k);
    size_t q = 0;
    for (size_t j = 0; !e && j < s->sched_n && q < ZP_G16_RING_BUFS; j++) {
        const zp__g16_chunk *x = &s->sched[j];
        if (!x->streamed)
            continue;
        e = sched_put(s, k, x, q);
        q += !e;
    }
    if (q) { /* also after a failure: the run must not send them again */
        s->pre_key = k;
        s->pre_n = q;
        s->pre_gen = s->sched_gen;
    }
    return e;
}
