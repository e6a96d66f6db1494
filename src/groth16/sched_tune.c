/* The streaming schedule's model and H's places (sched_tune.h). */
#include "groth16/sched_tune.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Room for one replay of n units over nb buffers. */
typedef struct replay_mem {
    size_t *owner; /* buffer -> the place of the unit that takes it */
    double *done;  /* buffer -> when its copy is done */
    double *ended; /* place -> when its unit has run */
} replay_mem;

static bool mem_open(replay_mem *m, const zp__sched_unit *u, size_t n)
{
    size_t nb = 0;
    for (size_t i = 0; i < n; i++)
        nb += u[i].bufs;
    m->owner = malloc((nb ? nb : 1) * sizeof *m->owner);
    m->done = malloc((nb ? nb : 1) * sizeof *m->done);
    m->ended = malloc((n ? n : 1) * sizeof *m->ended);
    return m->owner && m->done && m->ended;
}

static void mem_close(replay_mem *m)
{
    free(m->owner);
    free(m->done);
    free(m->ended);
}

static double replay(const zp__sched_unit *u, const size_t *order, size_t n, double copy_ms,
                     unsigned ring, double tail_bufs, double *wait, replay_mem *m)
{
    size_t nb = 0, last_w = n;
    for (size_t i = 0; i < n; i++) {
        const zp__sched_unit *x = &u[order ? order[i] : i];
        for (unsigned b = 0; b < x->bufs; b++)
            m->owner[nb++] = i;
        if (!x->h)
            last_w = i;
    }
    /* the next witness's copy: after the last unit that reads the witness
     * (at once where none does), ahead of the refills that unit frees */
    double arrive = 0;
    const size_t first = nb < ring ? nb : ring; /* filled while h ran */
    for (size_t b = 0; b < first; b++)
        m->done[b] = 0;
    size_t next = first, at = 0;
    double now = 0, bus = 0, waited = 0;
    if (tail_bufs > 0 && last_w == n) {
        bus = tail_bufs * copy_ms;
        arrive = bus;
    }
    for (size_t i = 0; i < n; i++) {
        const zp__sched_unit *x = &u[order ? order[i] : i];
        double need = 0;
        for (unsigned b = 0; b < x->bufs; b++)
            need = m->done[at + b] > need ? m->done[at + b] : need;
        if (need > now) {
            waited += need - now;
            now = need;
        }
        now += x->ms;
        m->ended[i] = now;
        at += x->bufs;
        if (tail_bufs > 0 && i == last_w) {
            bus = (bus > now ? bus : now) + tail_bufs * copy_ms;
            arrive = bus;
        }
        /* the buffers this unit and those before it freed, filled again */
        for (; next < nb && m->owner[next - ring] <= i; next++) {
            const double free_at = m->ended[m->owner[next - ring]];
            bus = (bus > free_at ? bus : free_at) + copy_ms;
            m->done[next] = bus;
        }
    }
    if (wait)
        *wait = waited;
    return now > arrive ? now : arrive;
}

double zp__sched_replay(const zp__sched_unit *u, const size_t *order, size_t n, double copy_ms,
                        unsigned ring, double tail_bufs, double *wait)
{
    replay_mem m = {NULL, NULL, NULL};
    double end = NAN;
    if (ring && mem_open(&m, u, n))
        end = replay(u, order, n, copy_ms, ring, tail_bufs, wait, &m);
    else if (wait)
        *wait = NAN;
    mem_close(&m);
    return end;
}

double zp__sched_copy_ms(const zp__sched_unit *u, size_t n, unsigned ring, double tail_bufs,
                         double wait)
{
    replay_mem m = {NULL, NULL, NULL};
    double c = 0;
    if (wait >= 0.1 && ring && mem_open(&m, u, n)) {
        /* the least copy time that waits as long (waits grow with it) */
        double lo = 0, hi = 1, w = 0;
        while (hi < 1e5 && (replay(u, NULL, n, hi, ring, tail_bufs, &w, &m), w < wait))
            hi *= 2;
        for (int it = 0; it < 60 && hi < 1e5; it++) {
            const double mid = (lo + hi) / 2;
            replay(u, NULL, n, mid, ring, tail_bufs, &w, &m);
            if (w < wait)
                lo = mid;
            else
                hi = mid;
        }
        c = hi < 1e5 ? hi : 0;
    }
    mem_close(&m);
    return c;
}

/* out: the units with H's h-th before the witness unit pos[h]. */
static void merge(const size_t *hs, size_t nh, const size_t *ws, size_t nw, const size_t *pos,
                  size_t *out)
{
    size_t o = 0, w = 0;
    for (size_t h = 0; h < nh; h++) {
        for (; w < pos[h]; w++)
            out[o++] = ws[w];
        out[o++] = hs[h];
    }
    for (; w < nw; w++)
        out[o++] = ws[w];
}

/* No pair starts in the ring's last buffer. */
static bool aligned(const zp__sched_unit *u, const size_t *order, size_t n, unsigned ring)
{
    size_t q = 0;
    for (size_t i = 0; i < n; i++) {
        const zp__sched_unit *x = &u[order[i]];
        if (x->pair && q % ring == ring - 1)
            return false;
        q += x->bufs;
    }
    return true;
}

/* Local search from pos (sorted, within the constraints): each movable H
 * unit (h0 .. h1 - 1) tried a few places either way, between its
 * neighbours, while that ends the schedule sooner. pos gets the best
 * places; returns their modelled end (INFINITY where none is aligned). */
static double search(const zp__sched_unit *u, size_t n, double copy_ms, unsigned ring,
                     double tail_bufs, const size_t *hs, size_t nh, const size_t *ws, size_t nw,
                     size_t *pos, size_t h0, size_t h1, size_t *cand, replay_mem *m)
{
    double cur = INFINITY;
    merge(hs, nh, ws, nw, pos, cand);
    if (aligned(u, cand, n, ring))
        cur = replay(u, cand, n, copy_ms, ring, tail_bufs, NULL, m);
    for (int pass = 0, moved = 1; moved && pass < 200; pass++) {
        moved = 0;
        for (size_t h = h0; h < h1; h++) {
            const size_t lo = h ? pos[h - 1] : 0, hi = pos[h + 1], was = pos[h];
            size_t keep = was;
            for (int d = -4; d <= 4; d++) {
                const size_t step = (size_t)(d < 0 ? -d : d);
                if (!d || (d < 0 && was < lo + step) || (d > 0 && was + step > hi))
                    continue;
                pos[h] = d < 0 ? was - step : was + step;
                merge(hs, nh, ws, nw, pos, cand);
                if (!aligned(u, cand, n, ring))
                    continue;
                const double end = replay(u, cand, n, copy_ms, ring, tail_bufs, NULL, m);
                if (end < cur - 1e-6) {
                    cur = end;
                    keep = pos[h];
                }
            }
            pos[h] = keep;
            moved |= keep != was;
        }
    }
    return cur;
}

double zp__sched_tune(const zp__sched_unit *u, size_t n, double copy_ms, unsigned ring,
                      double tail_bufs, size_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = i;
    replay_mem m = {NULL, NULL, NULL};
    size_t *hs = malloc((n ? n : 1) * sizeof *hs), *ws = malloc((n ? n : 1) * sizeof *ws);
    size_t *pos = malloc((n ? n : 1) * sizeof *pos), *cand = malloc((n ? n : 1) * sizeof *cand);
    const bool ok = ring && hs && ws && pos && cand && mem_open(&m, u, n);
    double best = ok ? replay(u, NULL, n, copy_ms, ring, tail_bufs, NULL, &m) : NAN;
    size_t nh = 0, nw = 0;
    for (size_t i = 0; ok && i < n; i++) {
        if (u[i].h) {
            pos[nh] = nw;
            hs[nh++] = i;
        } else {
            ws[nw++] = i;
        }
    }
    /* H's tail, the units after the last witness unit, stays as given
     * where the next witness's copy is not modelled; where it is, only the
     * last H unit stays last, and the model weighs the tail. */
    size_t tail = 0;
    while (tail_bufs <= 0 && tail < nh && pos[nh - 1 - tail] == nw)
        tail++;
    if (tail == 0)
        tail = 1;
    if (ok && nh > tail) {
        /* Two starts: H's places as they are, and H's units before the
         * tail spread evenly over the witness units; the constraints hold
         * in both. */
        const size_t h0 = u[0].h ? 1 : 0, h1 = nh - tail;
        for (int start = 0; start < 2; start++) {
            if (start == 1)
                for (size_t h = 0; h < h1; h++)
                    pos[h] = (h * nw + (h1 - 1)) / h1;
            if (u[0].h)
                pos[0] = 0;
            for (size_t h = h1; h < nh; h++)
                pos[h] = nw;
            const double end =
                search(u, n, copy_ms, ring, tail_bufs, hs, nh, ws, nw, pos, h0, h1, cand, &m);
            if (end < best - 1e-6) {
                best = end;
                merge(hs, nh, ws, nw, pos, out);
            }
        }
    }
    mem_close(&m);
    free(hs);
    free(ws);
    free(pos);
    free(cand);
    return best;
}
