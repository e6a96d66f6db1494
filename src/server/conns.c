/*
 * Connections that have not authenticated yet, and the limits that hold on
 * them before any token is checked: at most per_peer from one peer, at most
 * cap in all (max_conns less the slots kept for authenticated clients), and
 * none older than the header timeout. A connection over a limit is not
 * refused: the oldest unauthenticated one (of its peer, or of all) is
 * evicted instead, so a client that sends its request at once always gets
 * in, from the same address as the connections that hold slots too.
 */
#include <string.h>

#include "server/server.h"

void zp__conns_init(zp__conns *t, unsigned cap, unsigned per_peer, double timeout_s,
                    void (*evict)(void *ctx, zp__conn *c), void *ctx)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    t->cap = cap ? cap : 1;
    t->per_peer = per_peer;
    t->timeout_s = timeout_s;
    t->evict = evict;
    t->ctx = ctx;
}

void zp__conns_destroy(zp__conns *t)
{
    pthread_mutex_destroy(&t->mu);
}

static void unlist(zp__conns *t, zp__conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        t->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        t->tail = c->prev;
    c->prev = c->next = NULL;
    c->listed = false;
    t->n--;
}

static bool same_peer(const zp__conn *a, const zp__conn *b)
{
    return a->peer_len == b->peer_len && memcmp(a->peer, b->peer, a->peer_len) == 0;
}

/* Under mu: unlists c and asks the owner to close it. */
static void evict(zp__conns *t, zp__conn *c, uint64_t *counter)
{
    unlist(t, c);
    (*counter)++;
    if (t->evict)
        t->evict(t->ctx, c);
}

void zp__conns_add(zp__conns *t, zp__conn *c, double now)
{
    pthread_mutex_lock(&t->mu);
    c->t0 = now;
    c->listed = true;
    c->next = NULL;
    c->prev = t->tail;
    if (t->tail)
        t->tail->next = c;
    else
        t->head = c;
    t->tail = c;
    t->n++;
    if (t->per_peer) {
        /* The list is oldest first: the first of the peer is its oldest. */
        unsigned mine = 0;
        zp__conn *oldest = NULL;
        for (zp__conn *p = t->head; p; p = p->next)
            if (same_peer(p, c) && mine++ == 0)
                oldest = p;
        if (mine > t->per_peer && oldest != c)
            evict(t, oldest, &t->evicted_peer);
    }
    if (t->n > t->cap && t->head != c)
        evict(t, t->head, &t->evicted_reserve);
    pthread_mutex_unlock(&t->mu);
}

void zp__conns_authenticated(zp__conns *t, zp__conn *c)
{
    pthread_mutex_lock(&t->mu);
    if (c->listed)
        unlist(t, c);
    c->authenticated = true;
    pthread_mutex_unlock(&t->mu);
}

void zp__conns_remove(zp__conns *t, zp__conn *c)
{
    pthread_mutex_lock(&t->mu);
    if (c->listed)
        unlist(t, c);
    pthread_mutex_unlock(&t->mu);
}

size_t zp__conns_expire(zp__conns *t, double now)
{
    size_t n = 0;
    pthread_mutex_lock(&t->mu);
    while (t->head && now - t->head->t0 >= t->timeout_s) {
        evict(t, t->head, &t->evicted_timeout);
        n++;
    }
    pthread_mutex_unlock(&t->mu);
    return n;
}

void zp__conns_counts(zp__conns *t, zp__conns_stats *out)
{
    pthread_mutex_lock(&t->mu);
    *out = (zp__conns_stats){.unauthenticated = t->n, .evicted_peer = t->evicted_peer,
                             .evicted_reserve = t->evicted_reserve,
                             .evicted_timeout = t->evicted_timeout};
    pthread_mutex_unlock(&t->mu);
}

bool zp__budget_take(_Atomic uint64_t *used, uint64_t budget, uint64_t n)
{
    uint64_t cur = atomic_load(used);
    do {
        if (n > budget || cur > budget - n)
            return false;
    } while (!atomic_compare_exchange_weak(used, &cur, cur + n));
    return true;
}

void zp__budget_give(_Atomic uint64_t *used, uint64_t n)
{
    atomic_fetch_sub(used, n);
}
