/*
 * The engine's life cycle (open, close), configuration, status and the
 * small public helpers. Jobs are in jobs.c, the scheduler in sched.c and
 * queue.c, keys in keys.c, the CPU worker in worker.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine_impl.h"
#include "engine/util.h"
#include "gpu/gpu.h"

static const char *const prio_names[ZP_PRIO_COUNT] = {"critical", "high", "normal", "low"};
static const char *const state_names[] = {"queued", "running", "done", "failed", "cancelled"};

const char *zp_priority_name(zp_priority p)
{
    return (unsigned)p < ZP_PRIO_COUNT ? prio_names[p] : "?";
}

zp_err zp_priority_parse(zp_priority *out, const char *name)
{
    for (unsigned p = 0; name && p < ZP_PRIO_COUNT; p++) {
        if (!strcmp(name, prio_names[p])) {
            *out = (zp_priority)p;
            return ZP_OK;
        }
    }
    return ZP_E_INVALID_ARG;
}

const char *zp_job_state_name(zp_job_state s)
{
    return (unsigned)s < sizeof state_names / sizeof *state_names ? state_names[s] : "?";
}

void zp_free(void *p)
{
    free(p);
}

void zp_engine_config_default(zp_engine_config *c)
{
    memset(c, 0, sizeof *c);
    c->cpu_workers = 1;
    c->threads_per_worker = 0;
    c->gpus = 0;
    c->gpu_slots = 2;
    zp_gpu_tuning_default(&c->gpu_tuning);
    c->verify_threads = 1;
    c->verify = true;
    c->max_queued_partitions = 1024;
    c->max_jobs = 4096;
    c->max_partitions = 64;
    c->finished_ttl_s = 3600;
    c->key_budget_bytes = 0;
    c->trace_events = 65536;
}

double zp__eng_now(const zp_engine *e)
{
    return zp__mono_now() - e->epoch;
}

void zp__engine_set_verify_hook(zp_engine *e, zp__verify_hook hook, void *ctx)
{
    pthread_mutex_lock(&e->mu);
    e->vhook = hook;
    e->vhook_ctx = ctx;
    pthread_mutex_unlock(&e->mu);
}

void zp__engine_set_ahead_hook(zp_engine *e, zp__ahead_hook hook, void *ctx)
{
    pthread_mutex_lock(&e->mu);
    e->ahook = hook;
    e->ahook_ctx = ctx;
    pthread_mutex_unlock(&e->mu);
}

void zp__engine_pause(zp_engine *e, bool paused)
{
    pthread_mutex_lock(&e->mu);
    e->paused = paused;
    pthread_cond_broadcast(&e->work_cv);
    pthread_mutex_unlock(&e->mu);
}

static zp_err check_config(const zp_engine_config *c)
{
    if (c->cpu_workers < 0 || c->cpu_workers > 256 || c->verify_threads < 1 ||
        c->verify_threads > 256 || c->threads_per_worker > 4096 || c->gpu_slots < 1 ||
        c->gpu_slots > 64 || c->gpus < -1 || c->max_queued_partitions < 1 || c->max_jobs < 1 ||
        c->max_jobs > (1u << 24) || c->max_partitions < 1 || !(c->finished_ttl_s >= 0) ||
        zp_gpu_tuning_check(&c->gpu_tuning))
        return ZP_E_INVALID_ARG;
    if (c->gpus > ZP__GPUS_MAX)
        return ZP_E_INVALID_ARG;
    if (c->gpus > 0 && (!zp__gpu_compiled() || zp__gpu_count() < c->gpus))
        return ZP_E_NO_GPU;
    bool gpu = c->gpus > 0 || (c->gpus < 0 && zp__gpu_count() > 0);
    if (c->cpu_workers == 0 && !gpu)
        return ZP_E_INVALID_ARG; /* no proving worker at all */
    return ZP_OK;
}

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static zp_err init_sync(zp_engine *e)
{
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca))
        return ZP_E_NOMEM;
    /* Await deadlines are on the monotonic clock: a wall-clock jump must
     * not cut a wait short or stretch it. */
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->work_cv, NULL);
    pthread_cond_init(&e->verify_cv, NULL);
    pthread_cond_init(&e->job_cv, &ca);
    pthread_cond_init(&e->key_cv, NULL);
    pthread_condattr_destroy(&ca);
    return ZP_OK;
}

/* Workers in order: CPU workers "cpuN", GPU slots "gpuG/S", then the
 * CPU pool "verifyN". */
static zp_err start_workers(zp_engine *e)
{
    int n = e->n_provers + e->n_verifiers, n_cpu = e->cfg.cpu_workers;
    for (int i = 0; i < n; i++) {
        zp__worker *w = &e->workers[i];
        void *(*main_fn)(void *) = zp__cpu_worker_main;
        w->e = e;
        w->index = i;
        w->gpu = -1;
        if (i < n_cpu) {
            snprintf(w->name, sizeof w->name, "cpu%d", i);
        } else if (i < e->n_provers) {
            w->gpu = (i - n_cpu) / e->cfg.gpu_slots;
            w->slot_index = (i - n_cpu) % e->cfg.gpu_slots;
            snprintf(w->name, sizeof w->name, "gpu%d/%d", w->gpu, w->slot_index);
            main_fn = zp__gpu_worker_main;
        } else {
            snprintf(w->name, sizeof w->name, "verify%d", i - e->n_provers);
            main_fn = zp__verify_main;
        }
        zp__trace_set_lane(&e->trace, (uint32_t)i, w->name);
        if (pthread_create(&w->thread, NULL, main_fn, w))
            return ZP_E_NOMEM;
        w->started = true;
    }
    return ZP_OK;
}

zp_err zp_engine_open(zp_engine **out, const zp_engine_config *cfg)
{
    return zp__engine_open_opts(out, cfg, NULL);
}

zp_err zp__engine_open_opts(zp_engine **out, const zp_engine_config *cfg,
                            const zp__g16_gpu_opts *o)
{
    if (!out)
        return ZP_E_INVALID_ARG;
    *out = NULL;
    zp_engine_config def;
    if (!cfg) {
        zp_engine_config_default(&def);
        cfg = &def;
    }
    zp__g16_gpu_opts opts;
    zp__g16_gpu_opts_default(&opts);
    opts.tuning = cfg->gpu_tuning;
    if (o)
        opts = *o;
    zp_err err = check_config(cfg);
    if (!err && zp__g16_gpu_opts_check(&opts))
        err = ZP_E_INVALID_ARG;
    if (err)
        return err;
    zp_engine *e = calloc(1, sizeof *e);
    if (e)
        e->fault_worker = -1;
    if (!e)
        return ZP_E_NOMEM;
    e->cfg = *cfg;
    e->cfg.gpu_tuning = opts.tuning;
    e->gpu_opts = opts;
    e->epoch = zp__mono_now();
    zp__queue_init(&e->queue);
    if ((err = init_sync(e))) {
        free(e);
        return err;
    }
    /* The arenas first: the slots count on them. */
    if (cfg->gpus && (err = zp__gpus_open(e))) {
        zp_engine_close(e);
        return err;
    }
    e->n_provers = cfg->cpu_workers + e->n_gpus * cfg->gpu_slots;
    e->n_verifiers = cfg->verify_threads;
    /* Host threads of a CPU worker; a GPU-only engine gives them all to
     * key loads, setups and witness generation. */
    int per = cfg->cpu_workers ? online_cpus() / cfg->cpu_workers : online_cpus();
    e->threads_per_worker = cfg->threads_per_worker > 0 ? cfg->threads_per_worker
                                                        : (per > 0 ? per : 1);
    int n = e->n_provers + e->n_verifiers;
    e->workers = calloc((size_t)n, sizeof *e->workers);
    if (!e->workers || (err = zp__jobs_init(e)) ||
        (err = zp__trace_init(&e->trace, cfg->trace_events, (uint32_t)n, cfg->timeline_log,
                              cfg->timeline_ctx)) ||
        (err = start_workers(e))) {
        zp_engine_close(e);
        return err ? err : ZP_E_NOMEM;
    }
    *out = e;
    return ZP_OK;
}

/* Finishes every job that has not finished, then waits until no awaiter
 * is inside zp_engine_await. */
static void drain_callers(zp_engine *e)
{
    pthread_mutex_lock(&e->mu);
    e->closing = true;
    for (zp__job *j = e->first; j; j = j->next)
        zp__job_finish(e, j, ZP_JOB_CANCELLED, ZP_E_SHUTDOWN, "the engine closed");
    pthread_cond_broadcast(&e->job_cv);
    while (e->awaiters)
        pthread_cond_wait(&e->job_cv, &e->mu);
    e->stop = true;
    pthread_cond_broadcast(&e->work_cv);
    pthread_cond_broadcast(&e->key_cv);
    pthread_mutex_unlock(&e->mu);
}

void zp_engine_close(zp_engine *e)
{
    if (!e)
        return;
    drain_callers(e);
    int n = e->n_provers + e->n_verifiers;
    for (int i = 0; e->workers && i < e->n_provers; i++)
        if (e->workers[i].started)
            pthread_join(e->workers[i].thread, NULL);
    /* The pool goes last: proofs the provers handed over still hold pins
     * and key references that only the pool gives back. */
    pthread_mutex_lock(&e->mu);
    e->vstop = true;
    pthread_cond_broadcast(&e->verify_cv);
    pthread_mutex_unlock(&e->mu);
    for (int i = e->n_provers; e->workers && i < n; i++)
        if (e->workers[i].started)
            pthread_join(e->workers[i].thread, NULL);
    for (int i = 0; e->workers && i < n; i++)
        zp__worker_scratch_free(&e->workers[i]);
    free(e->workers);
    zp__jobs_free(e);
    zp__keys_free(e);
    zp__gpus_close(e);
    zp__trace_free(&e->trace);
    pthread_cond_destroy(&e->work_cv);
    pthread_cond_destroy(&e->verify_cv);
    pthread_cond_destroy(&e->job_cv);
    pthread_cond_destroy(&e->key_cv);
    pthread_mutex_destroy(&e->mu);
    free(e);
}

/* ---------------------------------------------------------------- status */

zp_err zp_engine_status(zp_engine *e, zp_engine_info *out)
{
    if (!e || !out)
        return ZP_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
    zp__jobs_prune(e);
    out->uptime_s = zp__eng_now(e);
    for (unsigned p = 0; p < ZP_PRIO_COUNT; p++) {
        out->queued_jobs[p] = e->queue.jobs[p];
        out->queued_partitions[p] = e->queue.parts[p];
    }
    for (zp__job *j = e->first; j; j = j->next)
        out->running_jobs += j->state == ZP_JOB_RUNNING;
    out->running_partitions = e->parts_in_flight;
    out->workers = (uint32_t)(e->n_provers + e->n_verifiers);
    for (int i = 0; i < e->n_provers + e->n_verifiers; i++)
        out->workers_busy += e->workers[i].busy;
    out->keys = e->n_keys;
    for (uint32_t i = 0; i < e->n_keys; i++)
        out->keys_loaded += e->keys[i]->tier == ZP_KEY_HOST || e->keys[i]->tier == ZP_KEY_MAPPED;
    out->key_bytes = e->key_used;
    out->key_budget_bytes = e->cfg.key_budget_bytes;
    out->jobs_submitted = e->jobs_submitted;
    out->jobs_done = e->jobs_done;
    out->jobs_failed = e->jobs_failed;
    out->jobs_cancelled = e->jobs_cancelled;
    out->proofs_verified = e->proofs_verified;
    out->proofs_rejected = e->proofs_rejected;
    pthread_mutex_unlock(&e->mu);
    return ZP_OK;
}

zp_err zp_engine_worker_info(zp_engine *e, size_t index, zp_worker_info *out)
{
    if (!e || !out)
        return ZP_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
    zp_err err = ZP_OK;
    if (index >= (size_t)(e->n_provers + e->n_verifiers)) {
        err = ZP_E_NOT_FOUND;
    } else {
        const zp__worker *w = &e->workers[index];
        snprintf(out->name, sizeof out->name, "%s", w->name);
        out->busy = w->busy;
        if (w->busy) {
            snprintf(out->job, sizeof out->job, "%s", w->job);
            out->partition = w->part;
        }
        out->partitions_done = w->done;
        out->busy_s = w->busy_s + (w->busy ? zp__eng_now(e) - w->busy_since : 0);
        out->healthy = w->gpu < 0 || !e->gpus[w->gpu].failed;
        out->dormant = w->dormant;
    }
    pthread_mutex_unlock(&e->mu);
    return err;
}

zp_err zp_engine_metrics(zp_engine *e, char **out, size_t *len)
{
    if (!e || !out)
        return ZP_E_INVALID_ARG;
    return zp__eng_metrics(e, out, len);
}

zp_err zp_engine_trace_json(zp_engine *e, char **out, size_t *len)
{
    if (!e || !out)
        return ZP_E_INVALID_ARG;
    return zp__trace_json(&e->trace, out, len);
}

zp_err zp_engine_timeline(zp_engine *e, char **out, size_t *len)
{
    if (!e || !out)
        return ZP_E_INVALID_ARG;
    return zp__trace_timeline(&e->trace, out, len);
}
