/* Status, keys, key preload/evict, Prometheus metrics and the health check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/api.h"
#include "server/journal.h"

void zp__api_healthz(zp__srv_reply *out, const zp__srv_req *r)
{
    if (atomic_load(&r->srv->draining)) {
        zp__reply_error(out, 503, "shutting_down", "the daemon is shutting down");
        return;
    }
    zp_engine_info ei;
    zp_err e = zp_engine_status(r->srv->eng, &ei);
    if (e != ZP_OK) {
        zp__reply_zperr(out, e, "engine status");
        return;
    }
    /* A GPU that failed (a sticky error) takes no more work: the daemon
     * still proves on the others, but says it is degraded. */
    unsigned failed = 0;
    zp_gpu_info g;
    for (size_t i = 0; zp_engine_gpu_info(r->srv->eng, i, &g) == ZP_OK; i++)
        failed += !g.healthy;
    cJSON *o = cJSON_CreateObject();
    if (o && !(cJSON_AddTrueToObject(o, "ok") &&
               cJSON_AddStringToObject(o, "status", failed ? "degraded" : "ok") &&
               cJSON_AddNumberToObject(o, "gpus_failed", failed) &&
               cJSON_AddNumberToObject(o, "uptime_s", ei.uptime_s)))
        cJSON_Delete(o), o = NULL;
    zp__reply_json(out, 200, zp__api_print(o));
}

static bool add_prio_counts(cJSON *o, const char *k, const uint32_t *v)
{
    cJSON *a = cJSON_AddObjectToObject(o, k);
    bool ok = a != NULL;
    for (int p = 0; ok && p < ZP_PRIO_COUNT; p++)
        ok = cJSON_AddNumberToObject(a, zp_priority_name((zp_priority)p), v[p]) != NULL;
    return ok;
}

static bool add_workers(cJSON *o, zp_engine *eng)
{
    cJSON *arr = cJSON_AddArrayToObject(o, "worker_list");
    if (!arr)
        return false;
    zp_worker_info w;
    for (size_t i = 0; zp_engine_worker_info(eng, i, &w) == ZP_OK; i++) {
        cJSON *x = cJSON_CreateObject();
        if (!x || !cJSON_AddItemToArray(arr, x)) {
            cJSON_Delete(x);
            return false;
        }
        bool ok = cJSON_AddStringToObject(x, "name", w.name) && cJSON_AddBoolToObject(x, "busy", w.busy) &&
                  cJSON_AddBoolToObject(x, "healthy", w.healthy) &&
                  cJSON_AddBoolToObject(x, "dormant", w.dormant) &&
                  cJSON_AddNumberToObject(x, "partitions_done", (double)w.partitions_done) &&
                  cJSON_AddNumberToObject(x, "busy_s", w.busy_s);
        if (ok && w.busy)
            ok = cJSON_AddStringToObject(x, "job", w.job) && cJSON_AddNumberToObject(x, "partition", w.partition);
        if (!ok)
            return false;
    }
    return true;
}

static bool add_server(cJSON *o, zp__srv *s)
{
    zp__conns_stats cs;
    zp__conns_counts(&s->conns, &cs);
    cJSON *x = cJSON_AddObjectToObject(o, "server");
    return x && cJSON_AddStringToObject(x, "address", s->bound) &&
           cJSON_AddBoolToObject(x, "draining", atomic_load(&s->draining)) &&
           cJSON_AddNumberToObject(x, "requests", (double)atomic_load(&s->requests)) &&
           cJSON_AddNumberToObject(x, "connections_open", (double)atomic_load(&s->open_conns)) &&
           cJSON_AddNumberToObject(x, "max_body", (double)s->cfg.max_body) &&
           cJSON_AddNumberToObject(x, "max_json", (double)s->cfg.max_json) &&
           cJSON_AddNumberToObject(x, "max_conns", s->cfg.max_conns) &&
           cJSON_AddNumberToObject(x, "connections_unauthenticated", (double)cs.unauthenticated) &&
           cJSON_AddNumberToObject(x, "unauthenticated_max", s->gated ? s->conns.cap : 0) &&
           cJSON_AddNumberToObject(x, "max_conns_per_peer", s->gated ? s->conns.per_peer : 0) &&
           cJSON_AddNumberToObject(x, "header_timeout_s", s->cfg.header_timeout_s) &&
           cJSON_AddNumberToObject(x, "body_budget", (double)s->body_budget) &&
           cJSON_AddNumberToObject(x, "body_bytes_in_flight", (double)atomic_load(&s->body_bytes));
}

cJSON *zp__api_gpu_json(const zp_gpu_info *g)
{
    cJSON *x = cJSON_CreateObject();
    bool ok = x && cJSON_AddNumberToObject(x, "gpu", g->ordinal) &&
              cJSON_AddBoolToObject(x, "healthy", g->healthy) &&
              cJSON_AddNumberToObject(x, "arena_bytes", (double)g->arena_bytes) &&
              cJSON_AddNumberToObject(x, "arena_used", (double)g->arena_used) &&
              cJSON_AddNumberToObject(x, "slots", g->slots) &&
              cJSON_AddNumberToObject(x, "slots_admitted", g->slots_admitted) &&
              cJSON_AddNumberToObject(x, "working_sets", g->working_sets) &&
              cJSON_AddNumberToObject(x, "ring_bytes", (double)g->ring_bytes) &&
              cJSON_AddNumberToObject(x, "pinned_bytes", (double)g->pinned_bytes) &&
              cJSON_AddNumberToObject(x, "h2d_bytes", (double)g->h2d_bytes) &&
              cJSON_AddNumberToObject(x, "streamed_bytes", (double)g->streamed_bytes) &&
              cJSON_AddNumberToObject(x, "outside_free_at_open", (double)g->outside_free_at_open) &&
              cJSON_AddNumberToObject(x, "outside_free", (double)g->outside_free);
    if (!ok) {
        cJSON_Delete(x);
        return NULL;
    }
    return x;
}

static bool add_gpus(cJSON *o, zp_engine *eng)
{
    cJSON *arr = cJSON_AddArrayToObject(o, "gpus");
    if (!arr)
        return false;
    zp_gpu_info g;
    for (size_t i = 0; zp_engine_gpu_info(eng, i, &g) == ZP_OK; i++) {
        cJSON *x = zp__api_gpu_json(&g);
        if (!x || !cJSON_AddItemToArray(arr, x)) {
            cJSON_Delete(x);
            return false;
        }
    }
    return true;
}

/* The shared queue's view ("fleet"): null when it cannot be read now. */
static bool add_fleet(cJSON *o, const zp__srv_queue *q)
{
    if (!q)
        return true;
    char *text = q->status_json(q->ctx);
    cJSON *f = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (!f)
        f = cJSON_CreateNull();
    return f && cJSON_AddItemToObject(o, "fleet", f);
}

void zp__api_status(zp__srv_reply *out, const zp__srv_req *r)
{
    zp_engine_info ei;
    zp_err e = zp_engine_status(r->srv->eng, &ei);
    if (e != ZP_OK) {
        zp__reply_zperr(out, e, "engine status");
        return;
    }
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddNumberToObject(o, "uptime_s", ei.uptime_s) &&
              add_prio_counts(o, "queued_jobs", ei.queued_jobs) &&
              add_prio_counts(o, "queued_partitions", ei.queued_partitions) &&
              cJSON_AddNumberToObject(o, "running_jobs", ei.running_jobs) &&
              cJSON_AddNumberToObject(o, "running_partitions", ei.running_partitions) &&
              cJSON_AddNumberToObject(o, "workers", ei.workers) &&
              cJSON_AddNumberToObject(o, "workers_busy", ei.workers_busy) &&
              cJSON_AddNumberToObject(o, "keys", ei.keys) &&
              cJSON_AddNumberToObject(o, "keys_loaded", ei.keys_loaded) &&
              cJSON_AddNumberToObject(o, "key_bytes", (double)ei.key_bytes) &&
              cJSON_AddNumberToObject(o, "key_budget_bytes", (double)ei.key_budget_bytes) &&
              cJSON_AddNumberToObject(o, "jobs_submitted", (double)ei.jobs_submitted) &&
              cJSON_AddNumberToObject(o, "jobs_done", (double)ei.jobs_done) &&
              cJSON_AddNumberToObject(o, "jobs_failed", (double)ei.jobs_failed) &&
              cJSON_AddNumberToObject(o, "jobs_cancelled", (double)ei.jobs_cancelled) &&
              cJSON_AddNumberToObject(o, "proofs_verified", (double)ei.proofs_verified) &&
              cJSON_AddNumberToObject(o, "proofs_rejected", (double)ei.proofs_rejected) &&
              add_workers(o, r->srv->eng) && add_gpus(o, r->srv->eng) && add_server(o, r->srv) &&
              add_fleet(o, r->srv->cfg.queue);
    if (!ok)
        cJSON_Delete(o), o = NULL;
    zp__reply_json(out, 200, zp__api_print(o));
}

/* The fraction of n points that streams when r stay resident, to four
 * places: never 0 when any streams, nor 1 when any stays. */
static double streamed_share(uint64_t r, uint64_t n)
{
    double f = round(1e4 * (double)(n - r) / (double)n) / 1e4;
    return r == 0 ? 1 : f < 1e-4 ? 1e-4 : f > 0.9999 ? 0.9999 : f;
}

cJSON *zp__api_key_plan_json(int gpu, const zp_key_gpu_plan *p)
{
    cJSON *x = cJSON_CreateObject();
    bool ok = x && cJSON_AddNumberToObject(x, "gpu", gpu);
    cJSON *res = ok ? cJSON_AddArrayToObject(x, "resident") : NULL;
    cJSON *str = res ? cJSON_AddObjectToObject(x, "streamed") : NULL;
    ok = str != NULL;
    for (unsigned i = 0; ok && i < ZP_KEY_ARRAYS; i++) {
        const uint64_t n = p->points[i], r = p->resident_points[i];
        if (r >= n) {
            cJSON *a = cJSON_CreateString(zp_key_array_name(i));
            ok = a && cJSON_AddItemToArray(res, a);
            if (!ok)
                cJSON_Delete(a);
        } else {
            ok = cJSON_AddNumberToObject(str, zp_key_array_name(i), streamed_share(r, n)) != NULL;
        }
    }
    ok = ok && cJSON_AddNumberToObject(x, "pinned_bytes", (double)p->pinned_bytes) &&
         cJSON_AddNumberToObject(x, "ring_buffer_bytes", (double)p->ring_buffer_bytes) &&
         cJSON_AddNumberToObject(x, "slot_bytes", (double)p->slot_bytes) &&
         cJSON_AddNumberToObject(x, "slots", p->slots) &&
         cJSON_AddNumberToObject(x, "device_bytes", (double)p->device_bytes) &&
         cJSON_AddStringToObject(x, "plan", p->summary);
    if (!ok) {
        cJSON_Delete(x);
        return NULL;
    }
    return x;
}

/* "gpus": the plans of the index-th key on the GPUs it is resident on. */
static bool add_key_gpus(cJSON *x, zp_engine *eng, size_t index)
{
    cJSON *arr = cJSON_AddArrayToObject(x, "gpus");
    if (!arr)
        return false;
    zp_key_gpu_plan p;
    for (int g = 0; zp_engine_key_plan(eng, index, g, &p) == ZP_OK; g++) {
        if (!p.resident)
            continue;
        cJSON *y = zp__api_key_plan_json(g, &p);
        if (!y || !cJSON_AddItemToArray(arr, y)) {
            cJSON_Delete(y);
            return false;
        }
    }
    return true;
}

static cJSON *key_json(zp_engine *eng, size_t index, const zp_key_info *k)
{
    cJSON *x = cJSON_CreateObject();
    bool ok = x && cJSON_AddStringToObject(x, "name", k->name) &&
              cJSON_AddStringToObject(x, "source", k->source) &&
              cJSON_AddStringToObject(x, "tier", zp_key_tier_name(k->tier)) &&
              cJSON_AddBoolToObject(x, "preloaded", k->preloaded) &&
              cJSON_AddNumberToObject(x, "refs", k->refs) &&
              cJSON_AddNumberToObject(x, "bytes", (double)k->bytes) &&
              cJSON_AddNumberToObject(x, "device_bytes", (double)k->device_bytes) &&
              cJSON_AddNumberToObject(x, "h_table_bytes", (double)k->h_table_bytes) &&
              cJSON_AddNumberToObject(x, "streamed_bytes", (double)k->streamed_bytes) &&
              cJSON_AddNumberToObject(x, "ring_buffer_bytes", (double)k->ring_buffer_bytes) &&
              cJSON_AddNumberToObject(x, "n_public", k->n_public) &&
              cJSON_AddNumberToObject(x, "n_vars", k->n_vars) &&
              cJSON_AddNumberToObject(x, "domain_size", (double)k->domain_size) &&
              cJSON_AddNumberToObject(x, "loads", (double)k->loads) &&
              cJSON_AddNumberToObject(x, "evictions", (double)k->evictions) &&
              (k->last_used_s < 0 ? cJSON_AddNullToObject(x, "last_used_s") != NULL
                                  : cJSON_AddNumberToObject(x, "last_used_s", k->last_used_s) != NULL) &&
              (k->last_error == ZP_OK ? cJSON_AddNullToObject(x, "last_error") != NULL
                                      : cJSON_AddStringToObject(x, "last_error", zp_errname(k->last_error)) != NULL) &&
              (!k->last_message[0] ? cJSON_AddNullToObject(x, "last_message") != NULL
                                   : cJSON_AddStringToObject(x, "last_message", k->last_message) != NULL) &&
              add_key_gpus(x, eng, index);
    if (!ok) {
        cJSON_Delete(x);
        return NULL;
    }
    return x;
}

void zp__api_keys(zp__srv_reply *out, const zp__srv_req *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = o ? cJSON_AddArrayToObject(o, "keys") : NULL;
    bool ok = arr != NULL;
    zp_key_info k;
    for (size_t i = 0; ok && zp_engine_key_info(r->srv->eng, i, &k) == ZP_OK; i++) {
        cJSON *x = key_json(r->srv->eng, i, &k);
        ok = x && cJSON_AddItemToArray(arr, x);
        if (!ok)
            cJSON_Delete(x);
    }
    if (!ok)
        cJSON_Delete(o), o = NULL;
    zp__reply_json(out, 200, zp__api_print(o));
}

/* Replies with the key's state after an operation that returned e. */
static void key_reply(zp__srv_reply *out, const zp__srv_req *r, zp_err e, const char *what)
{
    zp_key_info k;
    size_t index = 0;
    if (e == ZP_E_NOT_FOUND || !zp__api_find_key(r->srv->eng, r->param, &k, &index)) {
        zp__reply_error(out, 404, "unknown_key", "no key named '%s'", r->param);
        return;
    }
    if (e == ZP_E_BUSY) {
        zp__reply_error(out, 409, "key_in_use", "key '%s' is in use by %u partition(s); try again later",
                        r->param, k.refs);
        return;
    }
    if (e != ZP_OK) {
        zp__reply_zperr(out, e, what);
        return;
    }
    zp__reply_json(out, 200, zp__api_print(key_json(r->srv->eng, index, &k)));
}

void zp__api_key_preload(zp__srv_reply *out, const zp__srv_req *r)
{
    key_reply(out, r, zp_engine_preload_key(r->srv->eng, r->param), "preload");
}

void zp__api_key_evict(zp__srv_reply *out, const zp__srv_req *r)
{
    key_reply(out, r, zp_engine_evict_key(r->srv->eng, r->param), "evict");
}

/* The daemon's own counters, appended to the engine's exposition. */
static int server_metrics(char *buf, size_t n, zp__srv *s)
{
    zp__conns_stats cs;
    zp__conns_counts(&s->conns, &cs);
    int k = snprintf(buf, n,
                     "# HELP zkpipe_http_requests_total HTTP requests received by the daemon.\n"
                     "# TYPE zkpipe_http_requests_total counter\n"
                     "zkpipe_http_requests_total %llu\n"
                     "# HELP zkpipe_http_connections_total Connections accepted by the daemon.\n"
                     "# TYPE zkpipe_http_connections_total counter\n"
                     "zkpipe_http_connections_total %llu\n"
                     "# HELP zkpipe_http_connections_open Connections open now.\n"
                     "# TYPE zkpipe_http_connections_open gauge\n"
                     "zkpipe_http_connections_open %llu\n"
                     "# HELP zkpipe_http_requests_in_progress Requests read and not yet fully answered.\n"
                     "# TYPE zkpipe_http_requests_in_progress gauge\n"
                     "zkpipe_http_requests_in_progress %llu\n"
                     "# HELP zkpipe_http_rejected_total Requests refused before their handler ran.\n"
                     "# TYPE zkpipe_http_rejected_total counter\n"
                     "zkpipe_http_rejected_total{reason=\"auth\"} %llu\n"
                     "zkpipe_http_rejected_total{reason=\"body_size\"} %llu\n"
                     "zkpipe_http_rejected_total{reason=\"body_budget\"} %llu\n"
                     "# HELP zkpipe_http_connections_unauthenticated Open connections without an authenticated request yet.\n"
                     "# TYPE zkpipe_http_connections_unauthenticated gauge\n"
                     "zkpipe_http_connections_unauthenticated %llu\n"
                     "# HELP zkpipe_http_connections_evicted_total Unauthenticated connections the daemon closed.\n"
                     "# TYPE zkpipe_http_connections_evicted_total counter\n"
                     "zkpipe_http_connections_evicted_total{reason=\"peer_limit\"} %llu\n"
                     "zkpipe_http_connections_evicted_total{reason=\"reserved\"} %llu\n"
                     "zkpipe_http_connections_evicted_total{reason=\"header_timeout\"} %llu\n"
                     "# HELP zkpipe_http_body_bytes_in_flight Bytes of request bodies held within the body budget.\n"
                     "# TYPE zkpipe_http_body_bytes_in_flight gauge\n"
                     "zkpipe_http_body_bytes_in_flight %llu\n"
                     "# HELP zkpipe_http_responses_total HTTP responses by status class.\n"
                     "# TYPE zkpipe_http_responses_total counter\n",
                     (unsigned long long)atomic_load(&s->requests),
                     (unsigned long long)atomic_load(&s->connections),
                     (unsigned long long)atomic_load(&s->open_conns),
                     (unsigned long long)atomic_load(&s->active),
                     (unsigned long long)atomic_load(&s->rejected_auth),
                     (unsigned long long)atomic_load(&s->rejected_size),
                     (unsigned long long)atomic_load(&s->rejected_budget),
                     (unsigned long long)cs.unauthenticated, (unsigned long long)cs.evicted_peer,
                     (unsigned long long)cs.evicted_reserve, (unsigned long long)cs.evicted_timeout,
                     (unsigned long long)atomic_load(&s->body_bytes));
    for (int c = 2; c <= 5 && k > 0 && (size_t)k < n; c++)
        k += snprintf(buf + k, n - (size_t)k, "zkpipe_http_responses_total{class=\"%dxx\"} %llu\n", c,
                      (unsigned long long)atomic_load(&s->by_class[c]));
    if (s->jrn && k > 0 && (size_t)k < n) {
        zp__journal_stats st;
        zp__journal_stats_get(s->jrn, &st);
        k += snprintf(buf + k, n - (size_t)k,
                      "# HELP zkpipe_journal_jobs Jobs in the --state-dir journal.\n"
                      "# TYPE zkpipe_journal_jobs gauge\n"
                      "zkpipe_journal_jobs{state=\"unfinished\"} %zu\n"
                      "zkpipe_journal_jobs{state=\"finished\"} %zu\n"
                      "# HELP zkpipe_journal_bytes Bytes of the journal file.\n"
                      "# TYPE zkpipe_journal_bytes gauge\n"
                      "zkpipe_journal_bytes %llu\n"
                      "# HELP zkpipe_journal_compactions_total Rewrites of the journal file.\n"
                      "# TYPE zkpipe_journal_compactions_total counter\n"
                      "zkpipe_journal_compactions_total %llu\n",
                      st.pending, st.jobs - st.pending, (unsigned long long)st.file_bytes,
                      (unsigned long long)st.compactions);
    }
    return k;
}

void zp__api_metrics(zp__srv_reply *out, const zp__srv_req *r)
{
    char *text = NULL;
    size_t len = 0;
    zp_err e = zp_engine_metrics(r->srv->eng, &text, &len);
    if (e != ZP_OK) {
        zp__reply_zperr(out, e, "metrics");
        return;
    }
    char mine[8192];
    int k = server_metrics(mine, sizeof mine, r->srv);
    size_t mk = k > 0 && (size_t)k < sizeof mine ? (size_t)k : 0;
    const zp__srv_queue *q = r->srv->cfg.queue;
    char *queue = q ? q->metrics(q->ctx) : NULL;
    size_t qk = queue ? strlen(queue) : 0;
    bool nl = len > 0 && text[len - 1] != '\n';
    char *all = malloc(len + nl + mk + qk + 1);
    if (!all) {
        zp_free(text);
        free(queue);
        zp__reply_json(out, 500, NULL);
        return;
    }
    memcpy(all, text, len);
    if (nl)
        all[len] = '\n';
    memcpy(all + len + nl, mine, mk);
    memcpy(all + len + nl + mk, queue ? queue : "", qk);
    all[len + nl + mk + qk] = 0;
    zp_free(text);
    free(queue);
    free(out->body);
    *out = (zp__srv_reply){.status = 200, .ctype = "text/plain; version=0.0.4; charset=utf-8",
                           .body = all, .len = len + nl + mk + qk};
}
