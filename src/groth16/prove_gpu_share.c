/*
 * A key's shared ring (zp__g16_dkey.share): every slot of the GPU in its
 * MSM phase consumes each streamed chunk of the key's schedule that passes
 * through one ring (ring_scan.h says which chunk goes where and when).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/prove_gpu_sched_impl.h"

/*
 * A key's shared ring (zp__g16_dkey.share): ZP_G16_RING_BUFS buffers cut
 * as a slot's own ring is, each filled on a copy stream of its own in the
 * order of the fills (ring_scan.h says which chunk goes where and when).
 * The circle is the streamed chunks of the schedule in its order, the
 * same for every slot sized for the key's ring: made from the first
 * slot's schedule, checked chunk by chunk against every other's.
 */
typedef struct zp__g16_share {
    zp__gpu *dev;
    zp__gpu_buf ring;
    uint64_t buf;                           /* bytes of one buffer */
    zp__gpu_stream *q[ZP_G16_RING_BUFS];
    pthread_mutex_t mu;                     /* the circle's making */
    bool ready;
    zp__scan scan;
    zp__g16_chunk *circle;
    size_t n;
    const void *host[ZP_G16_NP];            /* the key's streamed points */
    uint64_t res[ZP_G16_NP];
    bool filled;                            /* a fill was made: in last_q */
    unsigned last_q;
} zp__g16_share;

zp_err zp__g16_share_open(zp__g16_dkey *k, uint64_t ring_buffer)
{
    zp__g16_share *sh = calloc(1, sizeof *sh);
    if (!sh)
        return ZP_E_NOMEM;
    if (pthread_mutex_init(&sh->mu, NULL)) {
        free(sh);
        return ZP_E_NOMEM;
    }
    sh->dev = k->dev;
    sh->buf = zp__g16_ring_buf_of(ring_buffer);
    k->share = sh;
    zp_err e = zp__gpu_alloc(k->dev, &sh->ring, 2 * zp__g16_arena_round(ring_buffer));
    for (int i = 0; !e && i < ZP_G16_RING_BUFS; i++)
        e = zp__gpu_stream_open_copy(k->dev, &sh->q[i]);
    if (e)
        zp__g16_share_close(k);
    return e;
}

void zp__g16_share_close(zp__g16_dkey *k)
{
    zp__g16_share *sh = k->share;
    if (!sh)
        return;
    for (int i = 0; i < ZP_G16_RING_BUFS; i++)
        if (sh->q[i]) {
            zp__gpu_stream_sync(sh->q[i]); /* no copy may still write the ring */
            zp__gpu_stream_close(sh->q[i]);
        }
    zp__gpu_free(sh->dev, &sh->ring);
    if (sh->ready)
        zp__scan_destroy(&sh->scan);
    pthread_mutex_destroy(&sh->mu);
    free(sh->circle);
    free(sh);
    k->share = NULL;
}

uint64_t zp__g16_share_bytes(const zp__g16_dkey *k)
{
    zp__g16_share *sh = k->share;
    if (!sh)
        return 0;
    pthread_mutex_lock(&sh->mu);
    const bool ready = sh->ready;
    pthread_mutex_unlock(&sh->mu);
    return ready ? zp__scan_bytes(&sh->scan) : 0;
}

/* The scan's fill: chunk c's points into buffer q, on q's copy stream
 * after the fill before (the copies cross in the circle's order). Called
 * under the scan's lock, so the streams' events are used by one thread at
 * a time. */
static zp_err share_fill(void *ctx, size_t c, unsigned q, uint64_t *bytes)
{
    zp__g16_share *sh = ctx;
    const zp__g16_chunk *x = &sh->circle[c];
    const zp__g16_part i = msm_part[x->msm];
    const uint64_t size = zp__g16_part_size(i);
    zp_err e = sh->filled ? zp__gpu_stream_after(sh->q[q], sh->q[sh->last_q]) : ZP_OK;
    if (!e)
        e = zp__gpu_upload(sh->q[q], (char *)sh->ring.ptr + q * sh->buf,
                           (const char *)sh->host[i] + (x->p - sh->res[i]) * size, x->len * size);
    if (e)
        return e;
    sh->filled = true;
    sh->last_q = q;
    *bytes = x->len * size;
    return ZP_OK;
}

/* The circle from s's schedule v (ns streamed chunks of n) at the first
 * join; every later schedule must have the same streamed chunks in the
 * same order. */
static zp_err share_ready(zp__g16_share *sh, const zp__g16_slot *s, const zp__g16_dkey *k,
                          const zp__g16_chunk *v, size_t n, size_t ns)
{
    pthread_mutex_lock(&sh->mu);
    zp_err e = ZP_OK;
    if (zp__g16_ring_buf_of(s->ring_buffer) != sh->buf) {
        e = ZP_E_INVALID_ARG;
    } else if (!sh->ready) {
        sh->circle = malloc(ns * sizeof *sh->circle);
        if (!sh->circle)
            e = ZP_E_NOMEM;
        for (size_t j = 0, o = 0; !e && j < n; j++)
            if (v[j].streamed)
                sh->circle[o++] = v[j];
        for (int i = 0; !e && i < ZP_G16_NP; i++) {
            sh->host[i] = k->host[i];
            sh->res[i] = k->res[i];
        }
        sh->n = ns;
        if (!e)
            e = zp__scan_init(&sh->scan, ns, ZP_G16_RING_BUFS, share_fill, sh);
        if (e) {
            free(sh->circle);
            sh->circle = NULL;
        }
        sh->ready = !e;
    } else if (sh->n != ns) {
        e = ZP_E_INVALID_ARG;
    } else {
        for (size_t j = 0, o = 0; !e && j < n; j++)
            if (v[j].streamed) {
                const zp__g16_chunk *c = &sh->circle[o++];
                if (c->msm != v[j].msm || c->p != v[j].p || c->len != v[j].len)
                    e = ZP_E_INVALID_ARG;
            }
    }
    pthread_mutex_unlock(&sh->mu);
    return e;
}

/*
 * The five MSMs over k's shared ring: the slot joins the circle where it
 * is (ring_scan.h) and goes once round its schedule from the streamed
 * chunk it joined at, the resident chunks at their places; each streamed
 * chunk is waited for (its fill, then its copy), summed, and released for
 * the ring to fill again once every slot that was to sum it has. Sums do
 * not depend on their chunks' order. The next witness goes up after the
 * last chunk that reads this one.
 */
zp_err zp__g16_sched_run_shared(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_sums *out,
                               zp__prove_times *t)
{
    zp__g16_share *sh = k->share;
    zp_err e = s->lean || s->l_split ? ZP_E_INVALID_ARG : zp__g16_sched_make(s, k);
    if (e)
        return e;
    const zp__g16_chunk *v = s->sched;
    const size_t n = s->sched_n;
    size_t ns = 0;
    for (size_t j = 0; j < n; j++)
        ns += v[j].streamed;
    zp_g1_jac_inf(&out->h);
    zp_g1_jac_inf(&out->a);
    zp_g1_jac_inf(&out->b1);
    zp_g2_jac_inf(&out->b2);
    zp_g1_jac_inf(&out->l);
    s->pre_key = NULL;
    s->pre_n = 0;
    zp__scan_pass pass = {0};
    size_t r0 = 0, ord = 0; /* where the round starts in v, and its streamed chunk */
    if (ns) {
        e = share_ready(sh, s, k, v, n, ns);
        if (!e)
            e = zp__scan_join(&sh->scan, &pass);
        if (!e) {
            ord = (size_t)(pass.next % ns);
            for (size_t j = 0, o = 0; j < n; j++)
                if (v[j].streamed && o++ == ord) {
                    r0 = j;
                    break;
                }
        }
    }
    size_t last_w = n; /* the round's last chunk that reads the witness */
    for (size_t q = 0; q < n; q++)
        if (v[(r0 + q) % n].msm != M_H)
            last_w = q;
    double tm[M_N] = {0}, wait = 0;
    zp__g16_accs acc;
    if (!e)
        e = zp__g16_accs_begin(s, k, &acc, tm);
    if (!e && last_w == n)
        e = zp__g16_slot_send_next(s, k);
    for (size_t q = 0; !e && q < n; q++) {
        const zp__g16_chunk *x = &v[(r0 + q) % n];
        const zp__g16_part i = msm_part[x->msm];
        const void *pts = (const char *)zp__g16_dkey_part((zp__g16_dkey *)k, i)->ptr +
                          x->p * zp__g16_part_size(i);
        bool held = false;
        if (x->streamed) { /* its fill and its copy waited for here, and timed */
            size_t c = 0;
            unsigned b = 0;
            const double tw = zp__g16_now();
            e = zp__scan_next(&pass, &c, &b);
            held = !e;
            if (!e && c != ord)
                e = ZP_E_INVALID_ARG; /* not this schedule's chunk */
            if (!e)
                e = zp__gpu_stream_sync(sh->q[b]);
            wait += zp__g16_now() - tw;
            pts = (const char *)sh->ring.ptr + b * sh->buf;
            ord = (ord + 1) % ns;
        }
        const double t0 = zp__g16_now();
        if (!e)
            e = zp__g16_sched_chunk(s, k, x, pts, out, &acc);
        tm[x->msm] += zp__g16_now() - t0;
        if (held && !e)
            zp__scan_done(&pass);
        if (!e && q == last_w)
            e = zp__g16_slot_send_next(s, k);
    }
    if (e) /* nothing of this slot may still read a buffer it leaves */
        zp__gpu_stream_sync(s->msm_stream);
    s->streamed += zp__scan_leave(&pass);
    if (!e)
        e = zp__g16_accs_end(s, &acc, out);
    zp__g16_sched_times(t, tm, wait);
    return e;
}
