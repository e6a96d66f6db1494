/*
 * The daemon's state folder (--state-dir): the journal (journal.h) between
 * the HTTP API and the engine. At start the unfinished jobs of the journal
 * are submitted again under their ids; while serving, a watcher journals
 * each result as its job finishes, and a job's result is journaled before
 * any client can see it (zp__state_settle), so what a client got once is
 * what it gets after a restart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "server/journal.h"
#include "server/server.h"

/* How often the watcher looks for finished jobs, and for expired ones. */
#define WATCH_S 0.1
#define EXPIRE_S 10.0

/* The engine's request for a journaled job (witness paths point into j and
 * into paths, which the caller frees). */
static zp_err request_of(const zp__srv *s, const zp__jjob *j, zp_witness **ws, char **paths)
{
    *ws = calloc(j->n_wit, sizeof **ws);
    *paths = calloc(j->n_wit, ZP__JRN_PATH_MAX);
    if (!*ws || !*paths)
        return ZP_E_NOMEM;
    for (uint32_t i = 0; i < j->n_wit; i++) {
        const zp__jwit *w = &j->wit[i];
        zp_witness *o = &(*ws)[i];
        if (w->kind == ZP__JWIT_SYNTH) {
            *o = (zp_witness){.kind = ZP_WITNESS_SYNTH, .seed = w->seed};
        } else if (w->kind == ZP__JWIT_FILE) {
            *o = (zp_witness){.kind = ZP_WITNESS_FILE, .path = w->path};
        } else {
            char *p = *paths + (size_t)i * ZP__JRN_PATH_MAX;
            if (!zp__journal_spool_path(s->jrn, w->path, p, ZP__JRN_PATH_MAX))
                return ZP_E_INVALID_ARG;
            *o = (zp_witness){.kind = ZP_WITNESS_FILE, .path = p};
        }
    }
    return ZP_OK;
}

/* Journals a job that cannot run as failed, so that its clients hear why. */
static void fail_job(zp__srv *s, const char *id, zp_err e, const char *why)
{
    zp__jjob r = {.state = ZP_JOB_FAILED, .error = e, .finished_ms = zp__journal_now_ms()};
    snprintf(r.message, sizeof r.message, "%s", why);
    zp__journal_finish(s->jrn, id, &r);
}

/* Submits the journal's unfinished jobs to the engine again. */
static void resume(zp__srv *s)
{
    char (*ids)[ZP_JOB_ID_MAX + 1];
    size_t n, resumed = 0, failed = 0;
    if (zp__journal_pending(s->jrn, &ids, &n) != ZP_OK)
        return;
    for (size_t i = 0; i < n; i++) {
        zp__jjob j;
        if (!zp__journal_get(s->jrn, ids[i], &j))
            continue;
        zp_witness *ws = NULL;
        char *paths = NULL;
        zp_err e = request_of(s, &j, &ws, &paths);
        if (!e) {
            zp_job_request req = {.id = j.id, .key = j.key, .priority = j.prio,
                                  .partitions = j.partitions, .witnesses = ws,
                                  .n_witnesses = j.n_wit};
            e = zp_engine_submit(s->eng, &req, NULL);
        }
        if (e) {
            char why[256];
            snprintf(why, sizeof why, "the daemon restarted and could not queue the job again: %s%s%s",
                     zp_strerror(e), e == ZP_E_NOT_FOUND ? ": no key named " : "",
                     e == ZP_E_NOT_FOUND ? j.key : "");
            zp__log(ZP__LOG_WARN, "journal.resume_failed", "job=%s error=%s reason=%s", j.id,
                    zp_strerror(e), why);
            fail_job(s, j.id, e, why);
            failed++;
        } else {
            zp__track_add(&s->track, s->eng, j.id);
            resumed++;
        }
        free(ws);
        free(paths);
        zp__jjob_free(&j);
    }
    free(ids);
    zp__journal_stats st;
    zp__journal_stats_get(s->jrn, &st);
    zp__log(ZP__LOG_INFO, "journal.open",
            "dir=%s jobs=%zu resumed=%zu resume_failed=%zu finished=%zu bytes=%llu dropped_bytes=%llu",
            s->cfg.state_dir, st.jobs, resumed, failed, st.jobs - st.pending,
            (unsigned long long)st.file_bytes, (unsigned long long)st.dropped_bytes);
}

void zp__state_settle(zp__srv *s, const char *id)
{
    if (!s->jrn || zp__journal_has(s->jrn, id) != 1)
        return;
    zp_job_info info;
    zp_job_result res = {0};
    zp_err e = zp_engine_await(s->eng, id, 0, &info, &res);
    if (e == ZP_E_NOT_FOUND) {
        /* A submit journals its job before the engine has it: ask again
         * once no submit is between the two. The engine forgets only
         * finished jobs, long after the watcher saw them; a job lost
         * anyway must not stay unfinished forever. */
        pthread_mutex_lock(&s->submit_mu);
        if (zp_engine_job_status(s->eng, id, &info) == ZP_E_NOT_FOUND &&
            zp__journal_has(s->jrn, id) == 1)
            fail_job(s, id, ZP_E_NOT_FOUND, "the daemon lost the job before its result was journaled");
        pthread_mutex_unlock(&s->submit_mu);
        return;
    }
    /* Cancelled jobs are journaled by DELETE only: a drain's cancels must
     * leave them unfinished, to run again after the restart. */
    if (info.state == ZP_JOB_DONE || info.state == ZP_JOB_FAILED) {
        zp__jjob r = {.state = info.state, .error = info.state == ZP_JOB_DONE ? ZP_OK : info.error,
                      .finished_ms = zp__journal_now_ms(), .parts_done = info.partitions_done};
        snprintf(r.message, sizeof r.message, "%s", info.message);
        if (e == ZP_OK) {
            r.n_public = res.n_public;
            r.proofs = res.proofs;
            r.proofs_len = res.proofs_len;
            r.pub = res.public_inputs;
            r.pub_len = res.public_len;
        }
        e = zp__journal_finish(s->jrn, id, &r);
        if (e && e != ZP_E_NOT_FOUND)
            zp__log(ZP__LOG_ERROR, "journal.result_failed", "job=%s error=%s", id, zp_strerror(e));
    }
    zp_job_result_free(&res);
}

void zp__state_cancelled(zp__srv *s, const char *id)
{
    if (!s->jrn || zp__journal_has(s->jrn, id) != 1)
        return;
    zp_job_info info;
    if (zp_engine_job_status(s->eng, id, &info) == ZP_OK && info.state != ZP_JOB_CANCELLED) {
        zp__state_settle(s, id);
        return;
    }
    zp__jjob r = {.state = ZP_JOB_CANCELLED, .error = ZP_E_CANCELLED,
                  .finished_ms = zp__journal_now_ms()};
    zp__journal_finish(s->jrn, id, &r);
}

/* Journals the results of finished jobs. */
static void sweep(zp__srv *s)
{
    char (*ids)[ZP_JOB_ID_MAX + 1];
    size_t n;
    if (zp__journal_pending(s->jrn, &ids, &n) != ZP_OK)
        return;
    for (size_t i = 0; i < n; i++) {
        zp_job_info info;
        zp_err e = zp_engine_job_status(s->eng, ids[i], &info);
        if (e == ZP_E_NOT_FOUND || (e == ZP_OK && info.state >= ZP_JOB_DONE))
            zp__state_settle(s, ids[i]);
    }
    free(ids);
}

static void watch(void *arg)
{
    zp__srv *s = arg;
    sweep(s);
    if (zp__srv_now() >= s->next_expire) {
        zp__journal_expire(s->jrn, zp__journal_now_ms());
        s->next_expire = zp__srv_now() + EXPIRE_S;
    }
}

zp_err zp__state_start(zp__srv *s, char *why, size_t why_len)
{
    if (!s->cfg.state_dir)
        return ZP_OK;
    zp__journal_cfg jc = {.dir = s->cfg.state_dir, .ttl_s = s->cfg.state_ttl_s,
                          .max_jobs = s->cfg.state_max_jobs, .compact_min = (uint64_t)1 << 20};
    zp_err e = zp__journal_open(&s->jrn, &jc, zp__journal_now_ms(), why, why_len);
    if (e)
        return e;
    pthread_mutex_init(&s->submit_mu, NULL);
    resume(s);
    s->next_expire = zp__srv_now() + EXPIRE_S;
    if (!zp__ticker_start(&s->watcher, WATCH_S, watch, s)) {
        snprintf(why, why_len, "cannot start the journal's watcher thread");
        zp__state_stop(s);
        return ZP_E_IO;
    }
    return ZP_OK;
}

void zp__state_stop(zp__srv *s)
{
    if (!s->jrn)
        return;
    zp__ticker_stop(&s->watcher);
    sweep(s); /* results that came in since the last look */
    pthread_mutex_destroy(&s->submit_mu);
    zp__journal_close(s->jrn);
    s->jrn = NULL;
}

bool zp__state_lookup(zp__srv *s, const char *id, zp_job_info *info, zp_job_result *res,
                      zp_err *err)
{
    zp__jjob j;
    if (!s->jrn || !zp__journal_get(s->jrn, id, &j))
        return false;
    memset(info, 0, sizeof *info);
    snprintf(info->id, sizeof info->id, "%s", j.id);
    snprintf(info->key, sizeof info->key, "%s", j.key);
    info->priority = j.prio;
    info->partitions = j.partitions;
    /* Engine-clock times do not survive a restart. */
    info->submitted_s = info->started_s = info->finished_s = -1;
    zp_err e = ZP_E_TIMEOUT;
    info->state = ZP_JOB_QUEUED;
    if (j.finished) {
        info->state = j.state;
        info->error = j.error;
        info->partitions_done = j.parts_done;
        snprintf(info->message, sizeof info->message, "%s", j.message);
        e = j.state == ZP_JOB_DONE        ? ZP_OK
            : j.state == ZP_JOB_CANCELLED ? ZP_E_CANCELLED
            : j.error                     ? j.error
                                          : ZP_E_IO;
    }
    if (e == ZP_OK && res) {
        *res = (zp_job_result){.partitions = j.partitions, .n_public = j.n_public,
                               .proofs = j.proofs, .proofs_len = j.proofs_len,
                               .public_inputs = j.pub, .public_len = j.pub_len};
        j.proofs = j.pub = NULL;
    }
    zp__jjob_free(&j);
    *err = e;
    return true;
}
