/* The witness loader of loader.h: a thread and one request at a time. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine/loader.h"

struct zp__loader {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool pending; /* a request not yet picked up by the thread */
    bool busy;    /* a request not yet finished */
    bool quit;
    /* the request */
    zp_engine *e;
    const zp__job *j;
    uint32_t part;
    zp__key *key;
    zp_fr *dst;
    uint32_t n_vars;
    void (*then)(void *, const zp_fr *);
    void *then_ctx;
    /* its answer, once !busy */
    const zp_fr *wit;
    zp_err err;
    zp__ioerr why;
};

static void *loader_main(void *arg)
{
    zp__loader *l = arg;
    pthread_mutex_lock(&l->mu);
    for (;;) {
        while (!l->quit && !l->pending)
            pthread_cond_wait(&l->cv, &l->mu);
        if (l->quit)
            break;
        l->pending = false;
        pthread_mutex_unlock(&l->mu);
        zp__ioerr why = {{0}};
        const zp_fr *wit = NULL;
        zp_err err = zp__load_witness(l->e, l->dst, &wit, l->j, l->part, l->key, l->n_vars, &why);
        if (!err && l->then)
            l->then(l->then_ctx, wit);
        pthread_mutex_lock(&l->mu);
        l->wit = err ? NULL : wit;
        l->err = err;
        l->why = why;
        l->busy = false;
        pthread_cond_broadcast(&l->cv);
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

zp_err zp__loader_open(zp__loader **out)
{
    *out = NULL;
    zp__loader *l = calloc(1, sizeof *l);
    if (!l)
        return ZP_E_NOMEM;
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    if (pthread_create(&l->th, NULL, loader_main, l)) {
        pthread_cond_destroy(&l->cv);
        pthread_mutex_destroy(&l->mu);
        free(l);
        return ZP_E_NOMEM;
    }
    *out = l;
    return ZP_OK;
}

void zp__loader_close(zp__loader *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->mu);
    while (l->busy)
        pthread_cond_wait(&l->cv, &l->mu);
    l->quit = true;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
    pthread_join(l->th, NULL);
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

void zp__loader_start(zp__loader *l, zp_engine *e, const zp__job *j, uint32_t part,
                      zp__key *key, zp_fr *dst, uint32_t n_vars,
                      void (*then)(void *then_ctx, const zp_fr *wit), void *then_ctx)
{
    pthread_mutex_lock(&l->mu);
    l->e = e;
    l->j = j;
    l->part = part;
    l->key = key;
    l->dst = dst;
    l->n_vars = n_vars;
    l->then = then;
    l->then_ctx = then_ctx;
    l->wit = NULL;
    l->err = ZP_OK;
    l->pending = l->busy = true;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

bool zp__loader_ready(zp__loader *l, const zp_fr **wit)
{
    pthread_mutex_lock(&l->mu);
    bool ok = !l->busy && l->err == ZP_OK && l->wit;
    *wit = ok ? l->wit : NULL;
    pthread_mutex_unlock(&l->mu);
    return ok;
}

zp_err zp__loader_wait(zp__loader *l, const zp_fr **wit, zp__ioerr *why)
{
    pthread_mutex_lock(&l->mu);
    while (l->busy)
        pthread_cond_wait(&l->cv, &l->mu);
    zp_err err = l->err;
    *wit = l->wit;
    if (err && why)
        *why = l->why;
    pthread_mutex_unlock(&l->mu);
    return err;
}
