/*
 * The ids of jobs submitted through this daemon that may still be
 * unfinished. The engine has no "list jobs" call, and a graceful stop has to
 * name each job it waits for or cancels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "server/server.h"

zp_err zp__track_init(zp__track *t, size_t cap)
{
    memset(t, 0, sizeof *t);
    t->ids = calloc(cap, sizeof *t->ids);
    if (!t->ids)
        return ZP_E_NOMEM;
    t->cap = cap;
    pthread_mutex_init(&t->mu, NULL);
    return ZP_OK;
}

void zp__track_free(zp__track *t)
{
    if (!t->ids)
        return;
    pthread_mutex_destroy(&t->mu);
    free(t->ids);
    t->ids = NULL;
}

static bool finished(zp_engine *eng, const char *id)
{
    zp_job_info info;
    zp_err e = zp_engine_job_status(eng, id, &info);
    return e != ZP_OK || info.state >= ZP_JOB_DONE;
}

/* Keeps only the ids of unfinished jobs. Called with mu held. */
static void prune(zp__track *t, zp_engine *eng)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++)
        if (!finished(eng, t->ids[i]))
            memmove(t->ids[k++], t->ids[i], sizeof t->ids[i]);
    t->n = k;
}

zp_err zp__track_add(zp__track *t, zp_engine *eng, const char *id)
{
    zp_err e = ZP_OK;
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->ids[i], id) == 0)
            goto out;
    if (t->n == t->cap)
        prune(t, eng);
    if (t->n == t->cap) {
        e = ZP_E_BUSY;
        goto out;
    }
    snprintf(t->ids[t->n++], sizeof t->ids[0], "%s", id);
out:
    pthread_mutex_unlock(&t->mu);
    return e;
}

size_t zp__track_drain(zp__track *t, zp_engine *eng, double grace_s)
{
    size_t cancelled = 0;
    double deadline = zp__srv_now() + (grace_s > 0 ? grace_s : 0);
    pthread_mutex_lock(&t->mu);
    prune(t, eng); /* jobs that finished long ago need no word */
    pthread_mutex_unlock(&t->mu);
    /* New submits are refused before this runs, so the list only shrinks;
     * copying each id under the lock keeps the waits outside it. */
    for (size_t i = 0;; i++) {
        char id[ZP_JOB_ID_MAX + 1];
        pthread_mutex_lock(&t->mu);
        bool more = i < t->n;
        if (more)
            memcpy(id, t->ids[i], sizeof id);
        pthread_mutex_unlock(&t->mu);
        if (!more)
            break;
        double left = deadline - zp__srv_now();
        zp_job_info info;
        zp_err e = zp_engine_await(eng, id, left > 0 ? left : 0, &info, NULL);
        if (e == ZP_E_TIMEOUT) {
            zp_engine_cancel(eng, id);
            e = zp_engine_job_status(eng, id, &info);
            cancelled++;
            zp__log(ZP__LOG_WARN, "job.shutdown",
                    "job=%s state=%s when=after_grace partitions_done=%u partitions=%u", id,
                    e == ZP_OK ? zp_job_state_name(info.state) : "cancelled",
                    e == ZP_OK ? info.partitions_done : 0, e == ZP_OK ? info.partitions : 0);
        } else if (e == ZP_E_NOT_FOUND) {
            continue;
        } else {
            zp__log(ZP__LOG_INFO, "job.shutdown", "job=%s state=%s when=before_grace", id,
                    zp_job_state_name(info.state));
        }
    }
    return cancelled;
}
