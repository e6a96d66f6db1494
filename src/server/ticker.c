/* A thread that calls a function at a fixed period until stopped
 * (server.h, zp__ticker): the header-timeout reaper and the journal's
 * watcher. */
#include <time.h>

#include "server/server.h"

static void *ticker_main(void *arg)
{
    zp__ticker *t = arg;
    pthread_mutex_lock(&t->mu);
    while (!t->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        long ns = ts.tv_nsec + (long)(t->period_s * 1e9);
        ts.tv_sec += ns / 1000000000L;
        ts.tv_nsec = ns % 1000000000L;
        pthread_cond_timedwait(&t->cv, &t->mu, &ts);
        if (t->stop)
            break;
        /* Unlocked, so that a stop waits for one call at most. */
        pthread_mutex_unlock(&t->mu);
        t->fn(t->ctx);
        pthread_mutex_lock(&t->mu);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

bool zp__ticker_start(zp__ticker *t, double period_s, void (*fn)(void *ctx), void *ctx)
{
    *t = (zp__ticker){.period_s = period_s, .fn = fn, .ctx = ctx};
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&t->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&t->mu, NULL);
    t->on = pthread_create(&t->thread, NULL, ticker_main, t) == 0;
    if (!t->on) {
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
    }
    return t->on;
}

void zp__ticker_stop(zp__ticker *t)
{
    if (!t->on)
        return;
    pthread_mutex_lock(&t->mu);
    t->stop = true;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->thread, NULL);
    t->on = false;
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
}
