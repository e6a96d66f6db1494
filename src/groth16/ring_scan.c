/* The shared scan's bookkeeping (ring_scan.h). */
#include "groth16/ring_scan.h"

#include <string.h>

zp_err zp__scan_init(zp__scan *s, size_t n, unsigned bufs, zp__scan_fill_fn fill, void *ctx)
{
    memset(s, 0, sizeof *s);
    if (!n || !bufs || bufs > ZP__SCAN_BUFS_MAX || !fill)
        return ZP_E_INVALID_ARG;
    if (pthread_mutex_init(&s->mu, NULL))
        return ZP_E_NOMEM;
    if (pthread_cond_init(&s->cv, NULL)) {
        pthread_mutex_destroy(&s->mu);
        return ZP_E_NOMEM;
    }
    s->n = n;
    s->bufs = bufs;
    s->fill = fill;
    s->ctx = ctx;
    return ZP_OK;
}

void zp__scan_destroy(zp__scan *s)
{
    if (!s->fill)
        return;
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    s->fill = NULL;
}

/* Makes every fill that may be made now (lock held): while the buffer of
 * the next fill is consumed by all it was made for, and some participant
 * still needs that fill. */
static void pump(zp__scan *s)
{
    while (!s->err) {
        const unsigned b = (unsigned)(s->head % s->bufs);
        if (s->pending[b])
            break;
        uint32_t want = 0;
        for (unsigned id = 0; id < ZP__SCAN_MAX; id++)
            if ((s->active >> id & 1) && s->head < s->start[id] + s->n)
                want |= (uint32_t)1 << id;
        if (!want)
            break;
        uint64_t bytes = 0;
        zp_err e = s->fill(s->ctx, (size_t)(s->head % s->n), b, &bytes);
        if (e) {
            s->err = e;
            break;
        }
        s->pending[b] = want;
        s->fills_bytes += bytes;
        const unsigned k = (unsigned)__builtin_popcount(want);
        bool first = true;
        for (unsigned id = 0; id < ZP__SCAN_MAX; id++)
            if (want >> id & 1) {
                s->share[id] += bytes / k + (first ? bytes % k : 0);
                first = false;
            }
        s->head++;
    }
    pthread_cond_broadcast(&s->cv);
}

zp_err zp__scan_join(zp__scan *s, zp__scan_pass *p)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_lock(&s->mu);
    zp_err e = s->err;
    if (!e && s->active == UINT32_MAX)
        e = ZP_E_BUSY;
    if (e) {
        pthread_mutex_unlock(&s->mu);
        return e;
    }
    const unsigned id = (unsigned)__builtin_ctz(~s->active);
    /* The fills the ring holds, oldest first, at most one round. */
    uint64_t held = s->head < s->bufs ? s->head : s->bufs;
    held = held < s->n ? held : s->n;
    const uint64_t start = s->head - held;
    for (uint64_t c = start; c < s->head; c++)
        s->pending[c % s->bufs] |= (uint32_t)1 << id;
    s->active |= (uint32_t)1 << id;
    s->start[id] = start;
    s->share[id] = 0;
    p->scan = s;
    p->id = id;
    p->next = start;
    p->end = start + s->n;
    pump(s);
    pthread_mutex_unlock(&s->mu);
    return ZP_OK;
}

zp_err zp__scan_next(zp__scan_pass *p, size_t *chunk, unsigned *buf)
{
    zp__scan *s = p->scan;
    if (!s || p->next >= p->end)
        return ZP_E_INVALID_ARG;
    pthread_mutex_lock(&s->mu);
    while (!s->err && p->next >= s->head)
        pthread_cond_wait(&s->cv, &s->mu);
    zp_err e = p->next < s->head ? ZP_OK : s->err;
    pthread_mutex_unlock(&s->mu);
    if (!e) {
        *chunk = (size_t)(p->next % s->n);
        *buf = (unsigned)(p->next % s->bufs);
    }
    return e;
}

bool zp__scan_done(zp__scan_pass *p)
{
    zp__scan *s = p->scan;
    if (!s || p->next >= p->end)
        return true;
    pthread_mutex_lock(&s->mu);
    if (p->next < s->head) {
        s->pending[p->next % s->bufs] &= ~((uint32_t)1 << p->id);
        p->next++;
        pump(s);
    }
    const bool last = p->next >= p->end;
    pthread_mutex_unlock(&s->mu);
    return last;
}

uint64_t zp__scan_leave(zp__scan_pass *p)
{
    zp__scan *s = p->scan;
    if (!s)
        return 0;
    pthread_mutex_lock(&s->mu);
    const uint32_t bit = (uint32_t)1 << p->id;
    const uint64_t to = p->end < s->head ? p->end : s->head;
    for (uint64_t c = p->next; c < to; c++)
        s->pending[c % s->bufs] &= ~bit;
    s->active &= ~bit;
    const uint64_t bytes = s->share[p->id];
    s->share[p->id] = 0;
    /* A failed fill fails the passes that were joined; the next one to
     * join tries it again (it was never counted as made). */
    if (!s->active)
        s->err = ZP_OK;
    pump(s);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    p->scan = NULL;
    return bytes;
}

uint64_t zp__scan_bytes(zp__scan *s)
{
    pthread_mutex_lock(&s->mu);
    const uint64_t b = s->fills_bytes;
    pthread_mutex_unlock(&s->mu);
    return b;
}
