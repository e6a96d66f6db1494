/*
 * Jobs: submission with idempotent ids, the table of remembered jobs,
 * waiting, cancelling, and the end of a job's life.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "engine/engine_impl.h"
#include "engine/util.h"

static uint32_t bucket_of(const zp_engine *e, const char *id)
{
    return (uint32_t)(zp__eng_hash(id, strlen(id), 17) & (e->n_buckets - 1));
}

zp__job *zp__job_find(zp_engine *e, const char *id)
{
    for (zp__job *j = e->buckets[bucket_of(e, id)]; j; j = j->hnext)
        if (!strcmp(j->id, id))
            return j;
    return NULL;
}

static void wit_free(zp__wit *w)
{
    free(w->path);
    if ((w->kind == ZP_WITNESS_MEMORY || w->kind == ZP__WITNESS_ABC) && w->data) {
        if (w->release)
            w->release(w->release_ctx, w->data);
        else
            free((void *)w->data);
    }
    memset(w, 0, sizeof *w);
}

/* Gives a memory witness's bytes back but keeps its kind, length and hash:
 * a later submit with the same id is compared against them. */
static void wit_drop_data(zp__wit *w)
{
    if (!w->data)
        return;
    if (w->release)
        w->release(w->release_ctx, w->data);
    else
        free((void *)w->data);
    w->data = NULL;
}

static void job_free(zp__job *j)
{
    for (uint32_t i = 0; i < j->n_wit; i++)
        wit_free(&j->wit[i]);
    free(j->wit);
    free(j->parts);
    free(j->pub);
    zp__qjob_free(&j->q);
    free(j);
}

static bool finished(const zp__job *j)
{
    return j->state == ZP_JOB_DONE || j->state == ZP_JOB_FAILED ||
           j->state == ZP_JOB_CANCELLED;
}

/* Takes j out of the table and the list. It is freed now or, while
 * pinned, by the last unpin (pins > 0 keeps the memory, not the name). */
static void forget(zp_engine *e, zp__job *j)
{
    zp__job **pp = &e->buckets[bucket_of(e, j->id)];
    while (*pp != j)
        pp = &(*pp)->hnext;
    *pp = j->hnext;
    if (j->prev)
        j->prev->next = j->next;
    else
        e->first = j->next;
    if (j->next)
        j->next->prev = j->prev;
    else
        e->last = j->prev;
    j->hnext = j->prev = j->next = NULL;
    j->forgotten = true;
    e->n_jobs--;
    if (!j->pins)
        job_free(j);
}

void zp__job_unpin(zp_engine *e, zp__job *j)
{
    (void)e;
    if (--j->pins == 0 && j->forgotten)
        job_free(j);
}

/* Forgets finished jobs past their TTL, and the oldest finished ones while
 * more than `keep` jobs are remembered. */
static void prune(zp_engine *e, uint32_t keep)
{
    double now = zp__eng_now(e);
    zp__job *j = e->first;
    while (j) {
        zp__job *next = j->next;
        if (finished(j) && (e->n_jobs > keep || now - j->t_finish > e->cfg.finished_ttl_s))
            forget(e, j);
        j = next;
    }
}

void zp__job_finish(zp_engine *e, zp__job *j, zp_job_state st, zp_err err, const char *fmt, ...)
{
    if (finished(j))
        return;
    zp__queue_remove(&e->queue, &j->q);
    j->state = st;
    j->err = err;
    j->msg[0] = 0;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(j->msg, sizeof j->msg, fmt, ap);
        va_end(ap);
    }
    j->t_finish = zp__eng_now(e);
    e->n_unfinished--;
    int out = st == ZP_JOB_DONE ? ZP__OUT_DONE : st == ZP_JOB_FAILED ? ZP__OUT_FAILED
                                                                      : ZP__OUT_CANCELLED;
    j->key->jobs[j->prio][out]++;
    if (st == ZP_JOB_DONE)
        e->jobs_done++;
    else if (st == ZP_JOB_FAILED)
        e->jobs_failed++;
    else
        e->jobs_cancelled++;
    zp__trace_log(&e->trace, j->t_finish, zp_job_state_name(st), j->id, -1);
    /* Per-job lines only at debug: a library user proving many jobs sees
     * none by default; the daemon shows them with --log-level debug. */
    zp__log_ev ev;
    if (zp__log_begin(&ev, ZP__LOG_DEBUG, "job.finished")) {
        zp__log_str(&ev, "job", j->id);
        zp__log_str(&ev, "key", j->key->name);
        zp__log_str(&ev, "state", zp_job_state_name(st));
        zp__log_uint(&ev, "partitions", j->k);
        zp__log_num(&ev, "seconds", j->t_finish - j->t_submit);
        if (err)
            zp__log_str(&ev, "error", zp_strerror(err));
        if (j->msg[0])
            zp__log_str(&ev, "reason", j->msg);
        zp__log_end(&ev);
    }
    /* Memory witnesses are not needed any more: give borrowed buffers back
     * as early as possible. */
    bool busy = false;
    for (uint32_t p = 0; p < j->k; p++)
        busy |= j->parts[p].state == ZP__PART_PROVING;
    if (!busy)
        for (uint32_t i = 0; i < j->n_wit; i++)
            if (j->wit[i].kind == ZP_WITNESS_MEMORY || j->wit[i].kind == ZP__WITNESS_ABC)
                wit_drop_data(&j->wit[i]);
    pthread_cond_broadcast(&e->job_cv);
}

/* ------------------------------------------------------------- submit */

static zp_err copy_witness(zp__wit *d, const zp_witness *s, const zp__key *key)
{
    d->kind = s->kind;
    switch (s->kind) {
    case ZP_WITNESS_FILE:
        if (!s->path || !s->path[0])
            return ZP_E_INVALID_ARG;
        d->path = strdup(s->path);
        return d->path ? ZP_OK : ZP_E_NOMEM;
    case ZP_WITNESS_MEMORY: {
        if (!s->data || !s->len)
            return ZP_E_INVALID_ARG;
        /* The header must be sound now, so a bad buffer fails the submit
         * instead of a job later; the count is checked against the key at
         * proving time (the key may not be loaded yet). */
        uint64_t n;
        zp_err err = zp__wtns_count(&n, s->data, s->len, NULL);
        if (err)
            return err;
        d->len = s->len;
        d->hash = zp__eng_hash(s->data, s->len, 1);
        if (s->release) {
            d->data = s->data;
            d->release = s->release;
            d->release_ctx = s->release_ctx;
            return ZP_OK;
        }
        uint8_t *copy = malloc(s->len);
        if (!copy)
            return ZP_E_NOMEM;
        memcpy(copy, s->data, s->len);
        d->data = copy;
        return ZP_OK;
    }
    case ZP_WITNESS_SYNTH:
        if (key->kind != ZP__KEY_SYNTH)
            return ZP_E_INVALID_ARG;
        d->seed = s->seed;
        return ZP_OK;
    }
    if (s->kind == ZP__WITNESS_ABC) { /* the descriptor only: its arrays stay the caller's */
        if (!s->data || s->len != sizeof(zp__abc_part))
            return ZP_E_INVALID_ARG;
        void *copy = malloc(s->len);
        if (!copy)
            return ZP_E_NOMEM;
        memcpy(copy, s->data, s->len);
        d->data = copy;
        d->len = s->len;
        return ZP_OK;
    }
    return ZP_E_INVALID_ARG;
}

/* Whether the stored job j came from the same request as r (whose memory
 * witnesses hash to h[i]). */
static bool same_request(const zp__job *j, const zp_job_request *r, const zp__key *key,
                         const uint64_t *h)
{
    if (j->key != key || j->prio != r->priority || j->k != r->partitions ||
        j->n_wit != r->n_witnesses)
        return false;
    for (uint32_t i = 0; i < j->n_wit; i++) {
        const zp__wit *a = &j->wit[i];
        const zp_witness *b = &r->witnesses[i];
        if (a->kind != b->kind)
            return false;
        if (a->kind == ZP_WITNESS_FILE && strcmp(a->path, b->path))
            return false;
        if (a->kind == ZP_WITNESS_SYNTH && a->seed != b->seed)
            return false;
        if (a->kind == ZP_WITNESS_MEMORY && (a->len != b->len || a->hash != h[i]))
            return false;
    }
    return true;
}

static void release_borrowed(const zp_job_request *r)
{
    if (!r || !r->witnesses)
        return;
    for (uint32_t i = 0; i < r->n_witnesses; i++) {
        const zp_witness *w = &r->witnesses[i];
        if (w->kind == ZP_WITNESS_MEMORY && w->release && w->data)
            w->release(w->release_ctx, w->data);
    }
}

static zp_err check_request(const zp_engine *e, const zp_job_request *r, bool abc)
{
    if (!r->key || (unsigned)r->priority >= ZP_PRIO_COUNT || r->partitions == 0 ||
        r->partitions > e->cfg.max_partitions || !r->witnesses ||
        (r->n_witnesses != 1 && r->n_witnesses != r->partitions))
        return ZP_E_INVALID_ARG;
    if (r->id && r->id[0] && !zp__eng_name_ok(r->id, ZP_JOB_ID_MAX, 1))
        return ZP_E_INVALID_ARG;
    for (uint32_t i = 0; i < r->n_witnesses; i++) {
        const zp_witness *w = &r->witnesses[i];
        if (w->kind == ZP_WITNESS_FILE && !w->path)
            return ZP_E_INVALID_ARG;
        if (w->kind == ZP_WITNESS_MEMORY && !w->data)
            return ZP_E_INVALID_ARG;
        /* Jobs of a, b, c come through zp__engine_submit_abc only, one
         * descriptor per partition, and only they. */
        if ((w->kind == ZP__WITNESS_ABC) != abc)
            return ZP_E_INVALID_ARG;
    }
    if (abc && r->n_witnesses != r->partitions)
        return ZP_E_INVALID_ARG;
    return ZP_OK;
}

/* A new job built outside the lock (witness copies can be large). */
static zp_err job_new(zp__job **out, const zp_job_request *r, zp__key *key)
{
    zp__job *j = calloc(1, sizeof *j);
    if (!j)
        return ZP_E_NOMEM;
    zp_err err = zp__qjob_init(&j->q, r->priority, r->partitions);
    j->wit = calloc(r->n_witnesses, sizeof *j->wit);
    j->parts = calloc(r->partitions, sizeof *j->parts);
    if (!err && (!j->wit || !j->parts))
        err = ZP_E_NOMEM;
    j->n_wit = r->n_witnesses;
    for (uint32_t i = 0; !err && i < r->n_witnesses; i++)
        err = copy_witness(&j->wit[i], &r->witnesses[i], key);
    if (err) {
        /* Borrowed buffers go back once, through the caller's
         * release_borrowed: job_free must not release them too. */
        for (uint32_t i = 0; j->wit && i < j->n_wit; i++)
            if (j->wit[i].release)
                j->wit[i].data = NULL;
        job_free(j);
        return err;
    }
    j->key = key;
    j->prio = r->priority;
    j->k = r->partitions;
    j->state = ZP_JOB_QUEUED;
    j->t_start = j->t_finish = -1;
    *out = j;
    return ZP_OK;
}

static void make_id(zp_engine *e, char *id)
{
    do
        snprintf(id, ZP_JOB_ID_MAX + 1, "job-%llu", (unsigned long long)++e->id_counter);
    while (zp__job_find(e, id));
}

/* Links a new job in (e->mu held); ZP_E_BUSY when full. */
static zp_err admit(zp_engine *e, zp__job *j, const char *id)
{
    if (e->closing)
        return ZP_E_SHUTDOWN;
    if (!zp__eng_can_prove(e))
        return ZP_E_NO_GPU; /* every GPU failed, and no CPU worker: nothing would run it */
    uint32_t queued = 0;
    for (unsigned p = 0; p < ZP_PRIO_COUNT; p++)
        queued += e->queue.parts[p];
    if (queued + j->k > e->cfg.max_queued_partitions)
        return ZP_E_BUSY;
    prune(e, e->cfg.max_jobs - 1);
    if (e->n_jobs >= e->cfg.max_jobs)
        return ZP_E_BUSY;
    if (id && id[0])
        snprintf(j->id, sizeof j->id, "%s", id);
    else
        make_id(e, j->id);
    uint32_t b = bucket_of(e, j->id);
    j->hnext = e->buckets[b];
    e->buckets[b] = j;
    j->prev = e->last;
    if (e->last)
        e->last->next = j;
    else
        e->first = j;
    e->last = j;
    e->n_jobs++;
    e->n_unfinished++;
    e->jobs_submitted++;
    j->key->submitted[j->prio]++;
    j->t_submit = zp__eng_now(e);
    zp__queue_push(&e->queue, &j->q);
    zp__trace_log(&e->trace, j->t_submit, "submit", j->id, -1);
    pthread_cond_broadcast(&e->work_cv);
    return ZP_OK;
}

static zp_err submit(zp_engine *e, const zp_job_request *r, char id_out[ZP_JOB_ID_MAX + 1],
                     bool abc)
{
    zp_err err = !e || !r ? ZP_E_INVALID_ARG : check_request(e, r, abc);
    if (err) {
        release_borrowed(r);
        return err;
    }
    pthread_mutex_lock(&e->mu);
    zp__key *key = zp__key_find(e, r->key);
    pthread_mutex_unlock(&e->mu);
    if (!key) {
        release_borrowed(r);
        return ZP_E_NOT_FOUND;
    }
    zp__job *j = NULL;
    if ((err = job_new(&j, r, key))) {
        release_borrowed(r);
        return err;
    }
    uint64_t *h = malloc(r->n_witnesses * sizeof *h);
    if (!h) {
        job_free(j);
        return ZP_E_NOMEM;
    }
    for (uint32_t i = 0; i < r->n_witnesses; i++)
        h[i] = j->wit[i].hash;
    pthread_mutex_lock(&e->mu);
    zp__job *old = r->id && r->id[0] ? zp__job_find(e, r->id) : NULL;
    if (old)
        err = same_request(old, r, key, h) ? ZP_OK : ZP_E_EXISTS;
    else
        err = admit(e, j, r->id);
    if (!err && id_out)
        snprintf(id_out, ZP_JOB_ID_MAX + 1, "%s", old ? old->id : j->id);
    pthread_mutex_unlock(&e->mu);
    free(h);
    if (old || err)
        job_free(j); /* also gives borrowed buffers back */
    return err;
}

zp_err zp_engine_submit(zp_engine *e, const zp_job_request *r, char id_out[ZP_JOB_ID_MAX + 1])
{
    return submit(e, r, id_out, false);
}

zp_err zp__engine_submit_abc(zp_engine *e, const char *key, const zp__abc_part *parts,
                             uint32_t n, char id_out[ZP_JOB_ID_MAX + 1])
{
    if (!e || !key || !parts || !n || n > e->cfg.max_partitions)
        return ZP_E_INVALID_ARG;
    zp_witness *w = calloc(n, sizeof *w);
    if (!w)
        return ZP_E_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        w[i].kind = (zp_witness_kind)ZP__WITNESS_ABC;
        w[i].data = &parts[i];
        w[i].len = sizeof parts[i];
    }
    zp_job_request r = {.key = key, .priority = ZP_PRIO_NORMAL, .partitions = n,
                        .witnesses = w, .n_witnesses = n};
    zp_err err = submit(e, &r, id_out, true);
    free(w);
    return err;
}

/* -------------------------------------------------------------- status */

static void fill_info(zp_job_info *out, const zp__job *j)
{
    memset(out, 0, sizeof *out);
    snprintf(out->id, sizeof out->id, "%s", j->id);
    snprintf(out->key, sizeof out->key, "%s", j->key->name);
    out->state = j->state;
    out->priority = j->prio;
    out->error = j->err;
    snprintf(out->message, sizeof out->message, "%s", j->msg);
    out->partitions = j->k;
    out->partitions_done = j->done;
    out->partitions_running = j->running;
    out->submitted_s = j->t_submit;
    out->started_s = j->t_start;
    out->finished_s = j->t_finish;
}

zp_err zp_engine_job_status(zp_engine *e, const char *id, zp_job_info *out)
{
    if (!e || !id || !out)
        return ZP_E_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    zp__job *j = zp__job_find(e, id);
    if (j)
        fill_info(out, j);
    pthread_mutex_unlock(&e->mu);
    return j ? ZP_OK : ZP_E_NOT_FOUND;
}

zp_err zp_engine_cancel(zp_engine *e, const char *id)
{
    if (!e || !id)
        return ZP_E_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    zp__job *j = zp__job_find(e, id);
    if (j)
        zp__job_finish(e, j, ZP_JOB_CANCELLED, ZP_E_CANCELLED, "cancelled by request");
    pthread_mutex_unlock(&e->mu);
    return j ? ZP_OK : ZP_E_NOT_FOUND;
}

/* ---------------------------------------------------------------- await */

static zp_err result_of(zp_job_result *res, const zp__job *j)
{
    memset(res, 0, sizeof *res);
    size_t np = (size_t)j->k * j->n_public;
    res->proofs = malloc((size_t)j->k * ZP__PROOF_BYTES);
    res->public_inputs = malloc(np ? np * 32 : 1);
    if (!res->proofs || !res->public_inputs) {
        zp_job_result_free(res);
        return ZP_E_NOMEM;
    }
    for (uint32_t p = 0; p < j->k; p++)
        memcpy(res->proofs + (size_t)p * ZP__PROOF_BYTES, j->parts[p].bytes, ZP__PROOF_BYTES);
    /* zp_fr_to_le takes Montgomery form and writes the standard value. */
    for (size_t i = 0; i < np; i++)
        zp_fr_to_le(res->public_inputs + 32 * i, &j->pub[i]);
    res->partitions = j->k;
    res->n_public = j->n_public;
    res->proofs_len = (size_t)j->k * ZP__PROOF_BYTES;
    res->public_len = np * 32;
    return ZP_OK;
}

void zp_job_result_free(zp_job_result *r)
{
    if (!r)
        return;
    free(r->proofs);
    free(r->public_inputs);
    memset(r, 0, sizeof *r);
}

/* Absolute CLOCK_MONOTONIC deadline timeout_s from now. */
static struct timespec deadline(double timeout_s)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double whole = floor(timeout_s);
    ts.tv_sec += (time_t)whole;
    ts.tv_nsec += (long)((timeout_s - whole) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

zp_err zp_engine_await(zp_engine *e, const char *id, double timeout_s, zp_job_info *info,
                       zp_job_result *result)
{
    if (result)
        memset(result, 0, sizeof *result);
    if (!e || !id || isnan(timeout_s))
        return ZP_E_INVALID_ARG;
    /* Beyond a year counts as forever (and keeps the deadline in range). */
    bool forever = timeout_s < 0 || timeout_s > 3.2e7;
    struct timespec until = deadline(forever ? 0 : timeout_s);
    pthread_mutex_lock(&e->mu);
    zp__job *j = zp__job_find(e, id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return ZP_E_NOT_FOUND;
    }
    j->pins++;
    e->awaiters++;
    zp_err err = ZP_OK;
    while (!finished(j) && !e->closing) {
        int rc = forever ? pthread_cond_wait(&e->job_cv, &e->mu)
                         : pthread_cond_timedwait(&e->job_cv, &e->mu, &until);
        if (rc == ETIMEDOUT)
            break;
    }
    if (info)
        fill_info(info, j);
    if (j->state == ZP_JOB_DONE)
        err = result ? result_of(result, j) : ZP_OK;
    else if (finished(j))
        err = j->err;
    else
        err = e->closing ? ZP_E_SHUTDOWN : ZP_E_TIMEOUT;
    zp__job_unpin(e, j);
    if (--e->awaiters == 0 && e->closing)
        pthread_cond_broadcast(&e->job_cv);
    pthread_mutex_unlock(&e->mu);
    return err;
}

/* ------------------------------------------------------------ table */

zp_err zp__jobs_init(zp_engine *e)
{
    uint32_t n = 64;
    while (n < e->cfg.max_jobs && n < (1u << 24))
        n <<= 1;
    e->buckets = calloc(n, sizeof *e->buckets);
    e->n_buckets = n;
    return e->buckets ? ZP_OK : ZP_E_NOMEM;
}

void zp__jobs_free(zp_engine *e)
{
    zp__job *j = e->first;
    while (j) {
        zp__job *next = j->next;
        job_free(j);
        j = next;
    }
    e->first = e->last = NULL;
    free(e->buckets);
    e->buckets = NULL;
}

void zp__jobs_prune(zp_engine *e)
{
    prune(e, e->cfg.max_jobs);
}
