/*
 * The scheduler's side of the workers: handing partitions out, taking
 * proofs back, and the CPU pool that verifies them before a job completes.
 * Every function here takes e->mu itself and never holds it while proving
 * or verifying.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "engine/engine_impl.h"
#include "engine/util.h"

static bool job_finished(const zp__job *j)
{
    return j->state == ZP_JOB_DONE || j->state == ZP_JOB_FAILED ||
           j->state == ZP_JOB_CANCELLED;
}

static void worker_busy(zp_engine *e, zp__worker *w, const zp__job *j, uint32_t part)
{
    w->busy = true;
    w->busy_since = zp__eng_now(e);
    snprintf(w->job, sizeof w->job, "%s", j->id);
    w->part = part;
}

static void worker_idle(zp_engine *e, zp__worker *w, bool count)
{
    w->busy = false;
    w->busy_s += zp__eng_now(e) - w->busy_since;
    w->done += count;
}

/* Admission (docs/gpu-memory.md): a GPU slot takes work only while its GPU has
 * room for its working set (e->mu held). */
static bool admitted(const zp_engine *e, const zp__worker *w)
{
    return w->gpu < 0 || (!e->gpus[w->gpu].failed && !w->dormant);
}

/* A partition for w, waiting for one when `wait`; marks w busy with it
 * when `busy`. Without waiting (a slot taking its next partition while it
 * still runs one) only while at least as many partitions wait as there
 * are proving workers: the last partitions of a queue go to whichever
 * worker is free first, not to one that is still busy. */
static bool take(zp_engine *e, zp__worker *w, zp__job **job, uint32_t *part, bool wait,
                 bool busy)
{
    zp__qjob *q = NULL;
    bool retry;
    pthread_mutex_lock(&e->mu);
    bool got = false;
    while (!e->stop &&
           !(got = !e->paused && admitted(e, w) &&
                   (wait || zp__queue_waiting(&e->queue) >= (uint32_t)e->n_provers) &&
                   zp__queue_take(&e->queue, w->index, e->n_provers, &q, part, &retry))) {
        if (!wait)
            break;
        pthread_cond_wait(&e->work_cv, &e->mu);
    }
    if (e->stop || !got) {
        pthread_mutex_unlock(&e->mu);
        return false;
    }
    zp__job *j = (zp__job *)q;
    zp__part *p = &j->parts[*part];
    p->state = ZP__PART_PROVING;
    p->attempts++;
    j->pins++;
    j->running++;
    e->parts_in_flight++;
    if (j->state == ZP_JOB_QUEUED) {
        j->state = ZP_JOB_RUNNING;
        j->t_start = zp__eng_now(e);
    }
    if (busy)
        worker_busy(e, w, j, *part);
    pthread_mutex_unlock(&e->mu);
    *job = j;
    return true;
}

bool zp__eng_take(zp_engine *e, zp__worker *w, zp__job **job, uint32_t *part)
{
    return take(e, w, job, part, true, true);
}

bool zp__eng_take_ahead(zp_engine *e, zp__worker *w, zp__job **job, uint32_t *part)
{
    if (!take(e, w, job, part, false, false))
        return false;
    pthread_mutex_lock(&e->mu);
    zp__ahead_hook hook = e->ahook;
    void *ctx = e->ahook_ctx;
    pthread_mutex_unlock(&e->mu);
    if (hook)
        hook(ctx, (*job)->id, *part);
    return true;
}

void zp__eng_busy(zp_engine *e, zp__worker *w, const zp__job *job, uint32_t part)
{
    pthread_mutex_lock(&e->mu);
    worker_busy(e, w, job, part);
    pthread_mutex_unlock(&e->mu);
}

bool zp__eng_job_dead(zp_engine *e, zp__job *job)
{
    pthread_mutex_lock(&e->mu);
    bool dead = job_finished(job) || e->stop;
    pthread_mutex_unlock(&e->mu);
    return dead;
}

/* A partition leaves the workers and the pool for good (e->mu held). */
static void part_out(zp_engine *e, zp__job *j)
{
    j->running--;
    e->parts_in_flight--;
}

/* Stores proof and public inputs of a partition (e->mu held). */
static zp_err keep_proof(zp__job *j, uint32_t part, const zp__proof *proof,
                         const uint8_t *bytes, const zp_fr *pub, uint32_t n_public)
{
    if (!j->pub) {
        j->pub = malloc(((size_t)j->k * n_public + 1) * sizeof *j->pub);
        if (!j->pub)
            return ZP_E_NOMEM;
        j->n_public = n_public;
    }
    if (n_public != j->n_public)
        return ZP_E_INVALID_ARG; /* cannot happen: one key per job */
    memcpy(&j->pub[(size_t)part * n_public], pub, n_public * sizeof *pub);
    j->parts[part].proof = *proof;
    memcpy(j->parts[part].bytes, bytes, ZP__PROOF_BYTES);
    return ZP_OK;
}

zp_err zp__eng_fault(zp_engine *e, const zp__worker *w, zp__ioerr *why)
{
    if ((e->fault_worker != -2 && w->index != e->fault_worker) ||
        atomic_fetch_sub(&e->fault_left, 1) <= 0)
        return ZP_OK;
    return zp__fail(why, e->fault_code, "injected fault on %s (tests)", w->name);
}

/* Whether a prover other than w can still take work: a CPU worker, or a
 * slot of a GPU that has not failed (e->mu held). */
static bool other_prover(const zp_engine *e, const zp__worker *w)
{
    for (int i = 0; i < e->n_provers; i++) {
        const zp__worker *o = &e->workers[i];
        if (o == w || o->dormant)
            continue;
        if (o->gpu < 0 || !e->gpus[o->gpu].failed)
            return true;
    }
    return false;
}

bool zp__eng_can_prove(const zp_engine *e)
{
    for (int i = 0; i < e->n_provers; i++) {
        const zp__worker *w = &e->workers[i];
        if (w->gpu < 0 || !e->gpus[w->gpu].failed)
            return true;
    }
    return false;
}

void zp__eng_gpu_lost(zp_engine *e)
{
    if (zp__eng_can_prove(e))
        return;
    for (zp__job *j = e->first; j; j = j->next)
        zp__job_finish(e, j, ZP_JOB_FAILED, ZP_E_GPU_FATAL,
                       "no prover can take its partitions: every GPU of the engine failed "
                       "and it has no CPU worker");
}

/* A partition that failed for its device's sake (a kernel, a copy, a
 * sticky error that took the GPU out, no room for its key or working set
 * there) goes once more to another prover, as a rejected proof does,
 * where one can take it; a partition of a, b, c cannot (they may be
 * gone). True when it was queued again (e->mu held). */
static bool retry_elsewhere(zp_engine *e, const zp__worker *w, zp__job *j, uint32_t part,
                            zp_err err)
{
    zp__part *p = &j->parts[part];
    if ((err != ZP_E_GPU && err != ZP_E_GPU_FATAL && err != ZP_E_GPU_OOM) ||
        p->attempts >= 2 || zp__job_is_abc(j) || !other_prover(e, w))
        return false;
    e->partitions_retried++;
    p->state = ZP__PART_WAITING;
    part_out(e, j);
    zp__queue_retry(&e->queue, &j->q, part, w->index);
    pthread_cond_broadcast(&e->work_cv);
    zp__log(ZP__LOG_WARN, "partition.retry", "job=%s partition=%u worker=%s reason=%s", j->id,
            part, w->name, zp_strerror(err));
    return true;
}

/* A verified (or, without verification, proved) partition (e->mu held). */
static void part_done(zp_engine *e, zp__job *j, uint32_t part)
{
    j->parts[part].state = ZP__PART_DONE;
    j->done++;
    if (j->done == j->k)
        zp__job_finish(e, j, ZP_JOB_DONE, ZP_OK, NULL);
}

void zp__eng_proved(zp_engine *e, zp__worker *w, zp__job *j, uint32_t part, zp_err err,
                    const char *why, const zp__proof *proof, const uint8_t *bytes,
                    const zp_fr *pub, uint32_t n_public, bool key_held)
{
    zp__key *key = j->key;
    pthread_mutex_lock(&e->mu);
    worker_idle(e, w, !err);
    zp__part *p = &j->parts[part];
    p->worker[p->attempts > 1] = (int16_t)w->index;
    if (!err && !job_finished(j))
        err = keep_proof(j, part, proof, bytes, pub, n_public);
    /* The key reference goes to the verify pool with the proof, or back
     * now, before the job can finish. */
    bool to_pool = !err && !job_finished(j) && e->cfg.verify;
    if (key_held && !to_pool)
        zp__key_release_locked(e, key);
    if (job_finished(j)) {
        p->state = ZP__PART_WAITING;
        part_out(e, j);
    } else if (err && retry_elsewhere(e, w, j, part, err)) {
        /* queued again */
    } else if (err) {
        p->state = ZP__PART_WAITING;
        part_out(e, j);
        zp__job_finish(e, j, ZP_JOB_FAILED, err, "partition %u on %s: %s", part, w->name,
                       why && why[0] ? why : zp_strerror(err));
    } else if (e->cfg.verify) {
        zp__vtask *t = malloc(sizeof *t);
        if (!t) {
            if (key_held)
                zp__key_release_locked(e, key);
            part_out(e, j);
            zp__job_finish(e, j, ZP_JOB_FAILED, ZP_E_NOMEM,
                           "partition %u: no memory to queue its verification", part);
        } else {
            /* The pin, the running count and the key reference pass to
             * the verify task. */
            *t = (zp__vtask){NULL, j, part, w->index};
            p->state = ZP__PART_VERIFYING;
            if (e->vtail)
                e->vtail->next = t;
            else
                e->vhead = t;
            e->vtail = t;
            pthread_cond_signal(&e->verify_cv);
            pthread_mutex_unlock(&e->mu);
            return;
        }
    } else {
        part_out(e, j);
        part_done(e, j, part);
    }
    zp__job_unpin(e, j);
    pthread_mutex_unlock(&e->mu);
}

/* A taken partition back to the queue, before its job's fresh ones, as if
 * never taken (e->mu held). */
static void give_back(zp_engine *e, zp__job *j, uint32_t part)
{
    zp__part *p = &j->parts[part];
    p->attempts--;
    p->state = ZP__PART_WAITING;
    part_out(e, j);
    if (!job_finished(j)) {
        zp__queue_retry(&e->queue, &j->q, part, -1);
        pthread_cond_broadcast(&e->work_cv);
    }
    zp__job_unpin(e, j);
}

void zp__eng_requeue(zp_engine *e, zp__worker *w, zp__job *j, uint32_t part)
{
    pthread_mutex_lock(&e->mu);
    worker_idle(e, w, false);
    give_back(e, j, part);
    pthread_mutex_unlock(&e->mu);
}

void zp__eng_untake(zp_engine *e, zp__job *j, uint32_t part)
{
    pthread_mutex_lock(&e->mu);
    give_back(e, j, part);
    pthread_mutex_unlock(&e->mu);
}

bool zp__eng_more_urgent(zp_engine *e, const zp__job *j)
{
    pthread_mutex_lock(&e->mu);
    bool more = zp__queue_waiting_above(&e->queue, j->prio) > 0;
    pthread_mutex_unlock(&e->mu);
    return more;
}

/* ------------------------------------------------------- the CPU pool */

static zp__vtask *pop_task(zp_engine *e)
{
    zp__vtask *t = e->vhead;
    e->vhead = t->next;
    if (!e->vhead)
        e->vtail = NULL;
    return t;
}

/* Checks one proof with e->mu released: ZP_OK or why not. */
static zp_err check_proof(zp__verify_hook hook, void *hook_ctx, zp__job *j, uint32_t part,
                          int worker)
{
    const zp__part *p = &j->parts[part];
    if (hook && hook(hook_ctx, j->id, part, p->attempts, worker))
        return ZP_E_VERIFY_FAILED;
    return zp__verify(&j->key->pk.vk, &j->pub[(size_t)part * j->n_public], j->n_public,
                      &p->proof);
}

/* The outcome of a verification (e->mu held). */
static void verified(zp_engine *e, zp__job *j, uint32_t part, int worker, zp_err err)
{
    zp__part *p = &j->parts[part];
    part_out(e, j);
    if (job_finished(j)) {
        p->state = ZP__PART_WAITING;
        return;
    }
    if (!err) {
        e->proofs_verified++;
        part_done(e, j, part);
        return;
    }
    e->proofs_rejected++;
    p->state = ZP__PART_WAITING;
    if (zp__job_is_abc(j)) { /* no retry (engine/abc.h) */
        zp__job_finish(e, j, ZP_JOB_FAILED, ZP_E_VERIFY_FAILED,
                       "partition %u: its proof does not verify (%s): its a, b, c, "
                       "assignments or density bitmaps do not satisfy the circuit of key %s",
                       part, zp_strerror(err), j->key->name);
        return;
    }
    if (p->attempts < 2) {
        /* Once more, elsewhere: a worker that made a bad proof from a good
         * witness (bad memory, a kernel bug) should not get to repeat it. */
        e->partitions_retried++;
        zp__queue_retry(&e->queue, &j->q, part, worker);
        pthread_cond_broadcast(&e->work_cv);
        return;
    }
    const char *w0 = e->workers[p->worker[0]].name, *w1 = e->workers[p->worker[1]].name;
    zp__job_finish(e, j, ZP_JOB_FAILED, ZP_E_VERIFY_FAILED,
                   "partition %u: its proof did not verify twice (made on %s, then on %s; "
                   "last check: %s); the witness may not satisfy the circuit of key %s",
                   part, w0, w1, zp_strerror(err), j->key->name);
}

void zp__eng_stage(zp_engine *e, uint32_t lane, zp__stage st, const zp__job *job, uint32_t part,
                   double t0, double t1)
{
    zp__eng_stage_io(e, lane, st, job, part, t0, t1, NULL);
}

void zp__eng_stage_io(zp_engine *e, uint32_t lane, zp__stage st, const zp__job *job,
                      uint32_t part, double t0, double t1, const zp__trace_io *io)
{
    /* The id of a pinned job does not change, even once forgotten. */
    zp__trace_add_io(&e->trace, lane, st, job->id, part, t0, t1, io);
    if (st >= ZP__ST_COUNT)
        return; /* an msm part: traced only */
    pthread_mutex_lock(&e->mu);
    zp__hist_observe(&e->stage_hist[st], t1 - t0);
    pthread_mutex_unlock(&e->mu);
}

void *zp__verify_main(void *arg)
{
    zp__worker *w = arg;
    zp_engine *e = w->e;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->vhead && !e->vstop)
            pthread_cond_wait(&e->verify_cv, &e->mu);
        if (!e->vhead)
            break;
        zp__vtask *t = pop_task(e);
        zp__job *j = t->job;
        zp__key *key = j->key;
        bool dead = job_finished(j);
        zp__verify_hook hook = e->vhook;
        void *hook_ctx = e->vhook_ctx;
        worker_busy(e, w, j, t->part);
        pthread_mutex_unlock(&e->mu);
        zp_err err = ZP_OK;
        if (!dead) {
            double t0 = zp__eng_now(e);
            err = check_proof(hook, hook_ctx, j, t->part, t->worker);
            zp__eng_stage(e, (uint32_t)w->index, ZP__ST_VERIFY, j, t->part, t0,
                          zp__eng_now(e));
        }
        pthread_mutex_lock(&e->mu);
        worker_idle(e, w, !dead);
        zp__key_release_locked(e, key); /* before the job can finish */
        verified(e, j, t->part, t->worker, err);
        zp__job_unpin(e, j);
        free(t);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}
