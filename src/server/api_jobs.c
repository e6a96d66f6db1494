/*
 * Jobs over HTTP: POST /v1/jobs (JSON, or a .wtns body with the rest in the
 * query), GET /v1/jobs/{id}?wait=S (long-poll), DELETE /v1/jobs/{id}.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include <sys/random.h>

#include "base/log.h"
#include "io/zpk.h"
#include "server/api.h"
#include "server/journal.h"

/* One witness per partition at most; the engine bounds partitions too. */
#define MAX_WITNESSES 4096

struct submit {
    const char *id;         /* NULL: the engine picks one */
    const char *key;
    zp_priority prio;
    uint32_t partitions;
    zp_witness w[1];        /* the single-witness forms */
    zp_witness *many;       /* "witnesses": one per partition (malloc'd) */
    uint32_t n_w;
    const char *spool;      /* the upload's spool file (w[0] names its path) */
    char spool_path[ZP__JRN_PATH_MAX];
};

static void release_body(void *ctx, const void *data)
{
    (void)ctx;
    free((void *)data);
}

/* Partitions from text or JSON: a whole number 1 .. 2^32 - 1. */
static bool parse_partitions(uint32_t *out, double v)
{
    if (!(v >= 1 && v <= 4294967295.0) || v != floor(v))
        return false;
    *out = (uint32_t)v;
    return true;
}

static bool parse_u64_text(uint64_t *out, const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 19 || strspn(s, "0123456789") != n)
        return false;
    *out = strtoull(s, NULL, 10);
    return true;
}

/* Fields common to both forms: id, key, priority, partitions. */
static bool common_fields(struct submit *sb, zp__srv_reply *out, const char *id, const char *key,
                          const char *prio, bool has_parts, double parts)
{
    if (!key) {
        zp__reply_error(out, 400, "bad_request", "'key' is required: the name of a key the daemon serves");
        return false;
    }
    if (!zp__api_name_ok(key, false)) {
        zp__reply_error(out, 400, "bad_request", "bad key name: 1..%d characters of [A-Za-z0-9._-]", ZP_NAME_MAX);
        return false;
    }
    if (id && !zp__api_name_ok(id, true)) {
        zp__reply_error(out, 400, "bad_request", "bad job id: 1..%d characters of [A-Za-z0-9._:-]", ZP_JOB_ID_MAX);
        return false;
    }
    sb->prio = ZP_PRIO_NORMAL;
    if (prio && zp_priority_parse(&sb->prio, prio) != ZP_OK) {
        zp__reply_error(out, 400, "bad_request", "bad priority '%.40s': critical, high, normal or low", prio);
        return false;
    }
    sb->partitions = 1;
    if (has_parts && !parse_partitions(&sb->partitions, parts)) {
        zp__reply_error(out, 400, "bad_request", "'partitions' must be a whole number >= 1");
        return false;
    }
    sb->id = id;
    sb->key = key;
    return true;
}

/* The optional string member k: false (reply set) when present but not a string. */
static bool opt_string(const char **out, const cJSON *o, const char *k, zp__srv_reply *rep)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    *out = NULL;
    if (!v)
        return true;
    if (!cJSON_IsString(v)) {
        zp__reply_error(rep, 400, "bad_request", "'%s' must be a string", k);
        return false;
    }
    *out = v->valuestring;
    return true;
}

static bool json_witness(struct submit *sb, const cJSON *doc, zp__srv_reply *out)
{
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(doc, "witness");
    const cJSON *many = cJSON_GetObjectItemCaseSensitive(doc, "witnesses");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(doc, "synth_seed");
    if (!!one + !!many + !!seed != 1) {
        zp__reply_error(out, 400, "bad_request",
                        "give exactly one of 'witness' (a .wtns path), 'witnesses' (one path per "
                        "partition) or 'synth_seed' (synthetic keys), or POST the .wtns bytes as "
                        "application/octet-stream");
        return false;
    }
    if (seed) {
        uint64_t s;
        if (cJSON_IsNumber(seed) && seed->valuedouble >= 0 && seed->valuedouble <= 9007199254740992.0 &&
            seed->valuedouble == floor(seed->valuedouble))
            s = (uint64_t)seed->valuedouble;
        else if (!cJSON_IsString(seed) || !parse_u64_text(&s, seed->valuestring)) {
            zp__reply_error(out, 400, "bad_request", "'synth_seed' must be a whole number (a string above 2^53)");
            return false;
        }
        sb->w[0] = (zp_witness){.kind = ZP_WITNESS_SYNTH, .seed = s};
        sb->n_w = 1;
        return true;
    }
    if (one) {
        if (!cJSON_IsString(one) || !*one->valuestring) {
            zp__reply_error(out, 400, "bad_request", "'witness' must be the path of a .wtns file");
            return false;
        }
        sb->w[0] = (zp_witness){.kind = ZP_WITNESS_FILE, .path = one->valuestring};
        sb->n_w = 1;
        return true;
    }
    int n = cJSON_GetArraySize(many);
    if (!cJSON_IsArray(many) || n < 1 || n > MAX_WITNESSES || (uint32_t)n != sb->partitions) {
        zp__reply_error(out, 400, "bad_request", "'witnesses' must be an array of %u paths (one per partition)",
                        sb->partitions);
        return false;
    }
    sb->many = calloc((size_t)n, sizeof *sb->many);
    if (!sb->many) {
        zp__reply_error(out, 503, "out_of_memory", "out of memory");
        return false;
    }
    int i = 0;
    for (const cJSON *p = many->child; p; p = p->next, i++) {
        if (!cJSON_IsString(p) || !*p->valuestring) {
            zp__reply_error(out, 400, "bad_request", "'witnesses'[%d] must be the path of a .wtns file", i);
            return false;
        }
        sb->many[i] = (zp_witness){.kind = ZP_WITNESS_FILE, .path = p->valuestring};
    }
    sb->n_w = (uint32_t)n;
    return true;
}

static const char *const json_fields[] = {"id", "key", "priority", "partitions", "witness",
                                          "witnesses", "synth_seed"};

static bool known_fields(const cJSON *doc, zp__srv_reply *out)
{
    for (const cJSON *m = doc->child; m; m = m->next) {
        bool known = false;
        for (size_t i = 0; i < sizeof json_fields / sizeof json_fields[0]; i++)
            known |= strcmp(m->string, json_fields[i]) == 0;
        if (!known) {
            zp__reply_error(out, 400, "bad_request", "unknown field '%.64s' (known: id, key, priority, "
                            "partitions, witness, witnesses, synth_seed)", m->string);
            return false;
        }
    }
    return true;
}

static bool parse_json_submit(struct submit *sb, cJSON **doc, const zp__srv_req *r, zp__srv_reply *out)
{
    *doc = zp__api_parse_json(r, out);
    if (!*doc)
        return false;
    if (!cJSON_IsObject(*doc)) {
        zp__reply_error(out, 400, "bad_request", "the body must be a JSON object");
        return false;
    }
    if (!known_fields(*doc, out))
        return false;
    const char *id, *key, *prio;
    if (!opt_string(&id, *doc, "id", out) || !opt_string(&key, *doc, "key", out) ||
        !opt_string(&prio, *doc, "priority", out))
        return false;
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive(*doc, "partitions");
    if (parts && !cJSON_IsNumber(parts)) {
        zp__reply_error(out, 400, "bad_request", "'partitions' must be a number");
        return false;
    }
    return common_fields(sb, out, id, key, prio, parts != NULL, parts ? parts->valuedouble : 0) &&
           json_witness(sb, *doc, out);
}

static bool parse_binary_submit(struct submit *sb, const zp__srv_req *r, zp__srv_reply *out)
{
    const char *parts = zp__srv_query(r, "partitions");
    uint64_t p = 1;
    if (parts && (!parse_u64_text(&p, parts) || p == 0 || p > UINT32_MAX)) {
        zp__reply_error(out, 400, "bad_request", "'partitions' must be a whole number >= 1");
        return false;
    }
    if (!common_fields(sb, out, zp__srv_query(r, "id"), zp__srv_query(r, "key"),
                       zp__srv_query(r, "priority"), true, (double)p))
        return false;
    if (r->len == 0) {
        zp__reply_error(out, 400, "bad_witness", "empty body: send the .wtns bytes");
        return false;
    }
    if (r->spool) {
        if (!zp__journal_spool_path(r->srv->jrn, r->spool, sb->spool_path, sizeof sb->spool_path)) {
            zp__reply_error(out, 500, "internal", "the spool path is too long");
            return false;
        }
        sb->spool = r->spool;
        sb->w[0] = (zp_witness){.kind = ZP_WITNESS_FILE, .path = sb->spool_path};
        sb->n_w = 1;
        return true;
    }
    sb->w[0] = (zp_witness){.kind = ZP_WITNESS_MEMORY, .data = r->body, .len = r->len};
    sb->n_w = 1;
    return true;
}

/* The declared value count of one witness, for the length check. */
static bool witness_count(uint64_t *n, const zp__srv_req *r, const zp_witness *w, bool spooled,
                          uint64_t n_vars, zp__srv_reply *out)
{
    zp__ioerr why = {{0}};
    zp_err e;
    if (w->kind == ZP_WITNESS_MEMORY) {
        e = zp__wtns_count(n, w->data, w->len, &why);
    } else {
        if (!spooled && !r->srv->cfg.allow_witness_path) {
            zp__reply_error(out, 403, "forbidden", "this daemon does not open files named by clients: "
                            "POST the .wtns bytes as application/octet-stream instead");
            return false;
        }
        e = zp__wtns_file_count(n, w->path, zp__wtns_max_bytes(n_vars), &why);
    }
    bool unreadable = e == ZP_E_IO || e == ZP_E_NOT_FOUND;
    /* The reader's message names the spool file: say "the upload" instead. */
    const char *path = spooled ? NULL : w->path;
    if (e != ZP_OK)
        zp__reply_error(out, !unreadable && zp__http_status_of(e) == 422 ? 422 : 400,
                        unreadable ? "witness_unreadable" : "bad_witness", "witness%s%s: %s",
                        path ? " " : "", path ? path : "",
                        why.msg[0] && !spooled ? why.msg : zp_strerror(e));
    return e == ZP_OK;
}

/* What can be refused before queueing: an unknown key, an unreadable or
 * malformed witness, and (once the key is loaded and its size known) a
 * witness with the wrong number of values. */
static bool precheck(const zp__srv_req *r, const struct submit *sb, zp__srv_reply *out)
{
    zp_key_info ki;
    if (!zp__api_find_key(r->srv->eng, sb->key, &ki, NULL)) {
        /* A shared queue knows the keys of the whole fleet: it decides. */
        if (r->srv->cfg.queue)
            return true;
        zp__reply_error(out, 404, "unknown_key", "no key named '%s' (GET /v1/keys lists them)", sb->key);
        return false;
    }
    const zp_witness *ws = sb->many ? sb->many : sb->w;
    for (uint32_t i = 0; i < sb->n_w; i++) {
        uint64_t n;
        if (ws[i].kind == ZP_WITNESS_SYNTH)
            continue;
        if (!witness_count(&n, r, &ws[i], sb->spool != NULL, ki.n_vars, out))
            return false;
        if (ki.n_vars && n != ki.n_vars) {
            bool named = ws[i].path && !sb->spool;
            zp__reply_error(out, 422, "witness_length", "witness%s%s has %llu values; key '%s' needs %u",
                            named ? " " : "", named ? ws[i].path : "", (unsigned long long)n,
                            sb->key, ki.n_vars);
            return false;
        }
    }
    return true;
}

/* The reply for a submit that failed with e (why: the queue's reason). */
static void submit_failed(zp__srv_reply *out, zp_err e, const struct submit *sb, const char *why)
{
    if (e == ZP_E_NOT_FOUND) {
        zp__reply_error(out, 404, "unknown_key", "no key named '%s'%s%s", sb->key, why[0] ? ": " : "", why);
        return;
    }
    if (e == ZP_E_TOO_LARGE && why[0]) {
        zp__reply_error(out, 413, "too_large", "%s", why);
        return;
    }
    if (e == ZP_E_EXISTS) {
        zp__reply_error(out, 409, "conflict", "job '%s' exists with a different request", sb->id);
        return;
    }
    if (why[0])
        zp__log(ZP__LOG_WARN, "job.submit_failed", "reason=%s", why);
    zp__reply_zperr(out, e, "submit");
}

/* The 202 of an accepted job: its state in the engine, or in the journal
 * for a job finished before a restart. */
static void reply_accepted(zp__srv_reply *out, zp__srv *s, const char *id)
{
    zp_job_info info = {0};
    zp_err e = zp_engine_job_status(s->eng, id, &info), ignored;
    if (e == ZP_E_NOT_FOUND && zp__state_lookup(s, id, &info, NULL, &ignored))
        e = ZP_OK;
    if (e != ZP_OK)
        zp__reply_zperr(out, e, "status after submit");
    else
        zp__reply_json(out, 202, zp__api_print(zp__api_job_json(&info, NULL, false)));
}

/* A job id for a submit without one that stays unique across restarts
 * (the engine's own count starts again at each start). */
static void fresh_id(char id[ZP_JOB_ID_MAX + 1])
{
    uint64_t r;
    if (getrandom(&r, sizeof r, 0) != sizeof r)
        r = (uint64_t)zp__journal_now_ms() * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)id;
    snprintf(id, ZP_JOB_ID_MAX + 1, "job-%016llx", (unsigned long long)r);
}

/* The journal's record of the request; false (reply set) when it cannot
 * be made. */
static bool journal_job(zp__jjob *j, const zp__srv_req *r, const struct submit *sb,
                        const zp_job_request *req, zp__srv_reply *out)
{
    snprintf(j->id, sizeof j->id, "%s", req->id);
    snprintf(j->key, sizeof j->key, "%s", req->key);
    j->prio = req->priority;
    j->partitions = req->partitions;
    j->submitted_ms = zp__journal_now_ms();
    j->n_wit = req->n_witnesses;
    j->wit = calloc(req->n_witnesses, sizeof *j->wit);
    if (!j->wit) {
        zp__reply_error(out, 503, "out_of_memory", "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < req->n_witnesses; i++) {
        const zp_witness *w = &req->witnesses[i];
        zp__jwit *o = &j->wit[i];
        if (w->kind == ZP_WITNESS_SYNTH) {
            *o = (zp__jwit){.kind = ZP__JWIT_SYNTH, .seed = w->seed};
            continue;
        }
        *o = (zp__jwit){.kind = sb->spool ? ZP__JWIT_SPOOL : ZP__JWIT_FILE};
        if (sb->spool) {
            /* The upload's hash tells a resubmit of the same bytes (the same
             * job) from other bytes under the same id (a conflict). */
            zp__buf b;
            if (zp__file_map(&b, sb->spool_path, UINT64_MAX, NULL) != ZP_OK) {
                zp__reply_error(out, 503, "spool_failed", "cannot read the spooled upload back");
                return false;
            }
            o->len = b.len;
            o->hash = zp__hash64(b.data, b.len, 0);
            bool changed = zp__buf_changed(&b);
            zp__buf_free(&b);
            if (changed || o->len != r->len) {
                zp__reply_error(out, 503, "spool_failed", "the spooled upload changed while it was read");
                return false;
            }
        }
        o->path = strdup(sb->spool ? sb->spool : w->path);
        if (!o->path) {
            zp__reply_error(out, 503, "out_of_memory", "out of memory");
            return false;
        }
    }
    return true;
}

/* A submit with a state folder: the job is journaled (and the journal
 * fsynced) before the engine sees it, and forgotten again when the engine
 * refuses it, so that only an accepted job is ever in the journal and an
 * accepted job is always there; an id the journal holds is the same job
 * across restarts. */
static void do_submit_durable(zp__srv_reply *out, const zp__srv_req *r, struct submit *sb)
{
    zp__srv *s = r->srv;
    char id[ZP_JOB_ID_MAX + 1];
    if (sb->id)
        snprintf(id, sizeof id, "%s", sb->id);
    else
        fresh_id(id);
    zp_job_request req = {.id = id, .key = sb->key, .priority = sb->prio,
                          .partitions = sb->partitions, .witnesses = sb->many ? sb->many : sb->w,
                          .n_witnesses = sb->n_w};
    zp__jjob j = {0}, old;
    if (!journal_job(&j, r, sb, &req, out)) {
        zp__jjob_free(&j);
        return;
    }
    zp_err e;
    pthread_mutex_lock(&s->submit_mu);
    if (zp__journal_get(s->jrn, id, &old)) {
        e = zp__jjob_same(&old, &j) ? ZP_OK : ZP_E_EXISTS;
        zp__jjob_free(&old);
    } else if ((e = zp__journal_add(s->jrn, &j)) != ZP_OK) {
        if (e != ZP_E_BUSY)
            zp__log(ZP__LOG_ERROR, "job.journal_failed", "job=%s error=%s", id, zp_strerror(e));
    } else if ((e = zp_engine_submit(s->eng, &req, NULL)) != ZP_OK) {
        zp_err f = zp__journal_forget(s->jrn, id);
        if (f)
            zp__log(ZP__LOG_ERROR, "job.journal_failed", "job=%s error=%s reason=%s", id,
                    zp_strerror(f), "a refused submit stays journaled: it runs after a restart");
    } else if (sb->spool) {
        *r->keep_spool = true;
    }
    pthread_mutex_unlock(&s->submit_mu);
    zp__jjob_free(&j);
    if (e != ZP_OK) {
        sb->id = id;
        submit_failed(out, e, sb, "");
        return;
    }
    zp__track_add(&s->track, s->eng, id);
    reply_accepted(out, s, id);
}

static void do_submit(zp__srv_reply *out, const zp__srv_req *r, struct submit *sb)
{
    zp__srv *s = r->srv;
    if (s->jrn) {
        do_submit_durable(out, r, sb);
        return;
    }
    if (sb->w[0].kind == ZP_WITNESS_MEMORY) {
        /* The engine borrows the body and frees it when done with it. */
        sb->w[0].data = *r->take_body;
        sb->w[0].release = release_body;
        *r->take_body = NULL;
    }
    zp_job_request req = {.id = sb->id, .key = sb->key, .priority = sb->prio,
                          .partitions = sb->partitions, .witnesses = sb->many ? sb->many : sb->w,
                          .n_witnesses = sb->n_w};
    char id[ZP_JOB_ID_MAX + 1] = {0};
    const zp__srv_queue *q = s->cfg.queue;
    char why[512] = "";
    zp_err e = q ? q->submit(q->ctx, &req, id, why, sizeof why) : zp_engine_submit(s->eng, &req, id);
    if (e != ZP_OK) {
        submit_failed(out, e, sb, why);
        return;
    }
    zp_job_info info = {0};
    if (q) {
        /* The job is durable in the queue: a drain need not wait for it. */
        e = q->await(q->ctx, id, 0, &info, NULL);
        if (e != ZP_OK && e != ZP_E_TIMEOUT && e != ZP_E_CANCELLED && info.state != ZP_JOB_FAILED)
            zp__reply_zperr(out, e, "status after submit");
        else
            zp__reply_json(out, 202, zp__api_print(zp__api_job_json(&info, NULL, false)));
        return;
    }
    if (zp__track_add(&s->track, s->eng, id) != ZP_OK)
        zp__log(ZP__LOG_WARN, "job.untracked", "job=%s reason=%s", id,
                "the shutdown table is full: a drain will not wait for it");
    reply_accepted(out, s, id);
}

void zp__api_submit(zp__srv_reply *out, const zp__srv_req *r)
{
    if (atomic_load(&r->srv->draining)) {
        zp__reply_error(out, 503, "shutting_down", "the daemon is shutting down and takes no new jobs");
        return;
    }
    struct submit sb = {0};
    cJSON *doc = NULL;
    bool ok = r->body_binary ? parse_binary_submit(&sb, r, out) : parse_json_submit(&sb, &doc, r, out);
    if (ok && precheck(r, &sb, out))
        do_submit(out, r, &sb);
    free(sb.many);
    cJSON_Delete(doc);
}

/* Waits in short slices so that a stopping daemon answers its waiters. */
static zp_err await_sliced(zp__srv *s, const char *id, double wait, zp_job_info *info,
                           zp_job_result *res)
{
    double end = zp__srv_now() + wait;
    for (;;) {
        double left = end - zp__srv_now();
        double slice = left > 0.5 ? 0.5 : left > 0 ? left : 0;
        const zp__srv_queue *q = s->cfg.queue;
        zp_err e = q ? q->await(q->ctx, id, slice, info, res) : zp_engine_await(s->eng, id, slice, info, res);
        if (e != ZP_E_TIMEOUT || left <= slice || atomic_load(&s->closing))
            return e;
    }
}

void zp__api_job_get(zp__srv_reply *out, const zp__srv_req *r)
{
    zp__srv *s = r->srv;
    double wait = 0;
    const char *w = zp__srv_query(r, "wait");
    if (w) {
        char *end;
        wait = strtod(w, &end);
        if (!*w || *end || !(wait >= 0) || !isfinite(wait)) {
            zp__reply_error(out, 400, "bad_request", "'wait' must be seconds >= 0");
            return;
        }
        if (wait > s->cfg.max_wait_s)
            wait = s->cfg.max_wait_s;
    }
    const char *enc = zp__srv_query(r, "encoding");
    bool hex = enc && strcmp(enc, "hex") == 0;
    if (enc && !hex && strcmp(enc, "base64") != 0) {
        zp__reply_error(out, 400, "bad_request", "'encoding' is base64 (default) or hex");
        return;
    }
    zp_job_info info = {0};
    zp_job_result res = {0};
    zp_err e = await_sliced(s, r->param, wait, &info, &res);
    /* A job that failed with ZP_E_NOT_FOUND (its witness file is gone) is
     * known: the engine filled info. */
    bool known = e != ZP_E_NOT_FOUND || info.id[0];
    if (!known) {
        known = zp__state_lookup(s, r->param, &info, &res, &e);
    } else if (s->jrn && e != ZP_E_TIMEOUT && e != ZP_E_SHUTDOWN) {
        /* What a client sees is journaled first: after a restart it gets
         * the same proof, not a new one. */
        zp__state_settle(s, r->param);
    }
    if (!known) {
        zp__reply_error(out, 404, "unknown_job", "no job '%s' (never submitted, or forgotten after its TTL%s)",
                        r->param, s->jrn || s->cfg.queue ? "" :
                        "; or the daemon restarted since: without --state-dir jobs live in memory only");
    } else if (e == ZP_OK || e == ZP_E_TIMEOUT || e == ZP_E_CANCELLED ||
               (e != ZP_E_SHUTDOWN && info.state == ZP_JOB_FAILED)) {
        zp__reply_json(out, 200, zp__api_print(zp__api_job_json(&info, e == ZP_OK ? &res : NULL, hex)));
    } else {
        zp__reply_zperr(out, e, "await");
    }
    zp_job_result_free(&res);
}

void zp__api_job_cancel(zp__srv_reply *out, const zp__srv_req *r)
{
    zp__srv *s = r->srv;
    const zp__srv_queue *q = s->cfg.queue;
    zp_err e = q ? q->cancel(q->ctx, r->param) : zp_engine_cancel(s->eng, r->param);
    zp_job_info info = {0};
    if (e == ZP_OK && q) {
        e = q->await(q->ctx, r->param, 0, &info, NULL);
        if (e == ZP_E_TIMEOUT || e == ZP_E_CANCELLED || info.state == ZP_JOB_FAILED ||
            info.state == ZP_JOB_DONE)
            e = ZP_OK;
    } else if (e == ZP_OK) {
        zp__state_cancelled(s, r->param);
        e = zp_engine_job_status(s->eng, r->param, &info);
    } else if (e == ZP_E_NOT_FOUND) {
        /* A job finished before a restart: cancelling it changes nothing. */
        zp_err ignored;
        if (zp__state_lookup(s, r->param, &info, NULL, &ignored))
            e = ZP_OK;
    }
    if (e == ZP_E_NOT_FOUND)
        zp__reply_error(out, 404, "unknown_job", "no job '%s'", r->param);
    else if (e != ZP_OK)
        zp__reply_zperr(out, e, "cancel");
    else
        zp__reply_json(out, 200, zp__api_print(zp__api_job_json(&info, NULL, false)));
}
