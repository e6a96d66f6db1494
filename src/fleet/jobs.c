/*
 * The fleet's client side, as the HTTP API of any daemon uses it: jobs are
 * rows of the database, so a job submitted on one daemon is awaited,
 * cancelled or listed on any other.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "base/log.h"
#include "fleet/fleet_impl.h"
#include "io/io.h"
#include "io/zpk.h"

#define MAX_PARTITIONS 4096

/* What makes two requests the same job: key, priority, partitions and
 * each witness (its kind and seed, path, or bytes' size and hash). */
typedef struct wdesc {
    int kind;
    uint64_t seed, size, hash;
    const char *path;      /* FILE, or the spooled copy of a large MEMORY one */
    char *spooled;         /* malloc'd path of that copy */
    const void *data;      /* MEMORY stored inline */
} wdesc;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xd6e8feb86659fd93ULL;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
    return mix(h, zp__hash64(s, strlen(s), 1));
}

static zp_err describe(zp__fleet *f, const char *id, const zp_witness *w, uint32_t i, wdesc *d,
                       char *why, size_t why_len)
{
    *d = (wdesc){.kind = (int)w->kind};
    if (w->kind == ZP_WITNESS_SYNTH) {
        d->seed = w->seed;
        return ZP_OK;
    }
    if (w->kind == ZP_WITNESS_MEMORY) {
        d->size = w->len;
        d->hash = zp__hash64(w->data, w->len, 0);
        if (w->len <= f->cfg.inline_max) {
            d->data = w->data;
            return ZP_OK;
        }
        if (!f->spool) {
            snprintf(why, why_len, "a %zu-byte witness is over the inline limit of %" PRIu64 " bytes "
                     "and this daemon has no spool folder (--queue-spool, shared by the fleet): "
                     "name a witness file on shared storage instead", w->len, f->cfg.inline_max);
            return ZP_E_TOO_LARGE;
        }
        size_t n = strlen(f->spool) + ZP_JOB_ID_MAX + 32;
        d->spooled = malloc(n);
        if (!d->spooled)
            return ZP_E_NOMEM;
        snprintf(d->spooled, n, "%s/%s.%u.wtns", f->spool, id, i);
        zp__ioerr io = {{0}};
        zp_err e = zp__file_write_atomic(d->spooled, w->data, w->len, &io);
        if (e != ZP_OK) {
            snprintf(why, why_len, "spooling the witness: %s", io.msg);
            return e;
        }
        d->path = d->spooled;
        return ZP_OK;
    }
    if (w->kind != ZP_WITNESS_FILE || !w->path) {
        snprintf(why, why_len, "unknown witness kind %d", (int)w->kind);
        return ZP_E_INVALID_ARG;
    }
    /* The path must name the same bytes on every host (shared storage):
     * its size and hash are checked again before each proof. */
    char *abs = realpath(w->path, NULL);
    zp__buf b;
    zp__ioerr io = {{0}};
    zp_err e = abs ? zp__file_map(&b, abs, UINT64_MAX, &io) : ZP_E_NOT_FOUND;
    if (e != ZP_OK) {
        snprintf(why, why_len, "witness %s: %s", w->path, abs ? io.msg : "no such file");
        free(abs);
        return e;
    }
    d->size = b.len;
    d->hash = zp__hash64(b.data, b.len, 0);
    zp__buf_free(&b);
    d->spooled = abs;
    d->path = abs;
    return ZP_OK;
}

static void u64_text(char *out, size_t n, uint64_t v)
{
    snprintf(out, n, "%lld", (long long)v); /* bigint: two's complement */
}

/* The partitions' arrays for ZP__FQ_SUBMIT: witness kind, witness index
 * and seed of each; malloc'd into out[3], false when out of memory. */
static bool partition_arrays(const zp_job_request *req, const wdesc *wd, uint32_t n_w, char *out[3])
{
    size_t cap = (size_t)req->partitions * 24 + 16, at[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
        out[k] = malloc(cap);
    if (!out[0] || !out[1] || !out[2]) {
        for (int k = 0; k < 3; k++)
            free(out[k]);
        return false;
    }
    for (int k = 0; k < 3; k++)
        out[k][at[k]++] = '{';
    for (uint32_t p = 0; p < req->partitions; p++) {
        const wdesc *d = &wd[n_w == 1 ? 0 : p];
        uint64_t seed = d->kind == ZP_WITNESS_SYNTH ? d->seed + (n_w == 1 ? p : 0) : 0;
        const char *sep = p ? "," : "";
        at[0] += (size_t)snprintf(out[0] + at[0], cap - at[0], "%s%d", sep, d->kind);
        at[1] += (size_t)snprintf(out[1] + at[1], cap - at[1], "%s%u", sep, n_w == 1 ? 0 : p);
        at[2] += (size_t)snprintf(out[2] + at[2], cap - at[2], "%s%lld", sep, (long long)seed);
    }
    for (int k = 0; k < 3; k++)
        snprintf(out[k] + at[k], cap - at[k], "}");
    return true;
}

/* Inserts the job: one statement (ZP__FQ_SUBMIT) that checks a machine
 * serves the key, inserts the job and its partitions and notifies; in a
 * transaction with the witness rows where there are any. ZP_OK also for
 * the same request again (the primary key decides, not a check before
 * the insert). */
static zp_err insert_job(zp__fleet *f, PGconn *c, const zp_job_request *req, const char *id,
                         uint64_t rhash, const wdesc *wd, uint32_t n_w, char *why, size_t why_len)
{
    char prio[8], parts[16], rh[24], *arr[3];
    snprintf(prio, sizeof prio, "%d", (int)req->priority);
    snprintf(parts, sizeof parts, "%u", req->partitions);
    u64_text(rh, sizeof rh, rhash);
    bool rows = false;
    for (uint32_t i = 0; i < n_w; i++) {
        rows |= wd[i].kind != ZP_WITNESS_SYNTH;
        if (wd[i].data && wd[i].size > INT_MAX) {
            snprintf(why, why_len, "a witness of %" PRIu64 " bytes cannot be stored inline", wd[i].size);
            return ZP_E_TOO_LARGE;
        }
    }
    if (!partition_arrays(req, wd, n_w, arr))
        return ZP_E_NOMEM;
    PGresult *r = rows ? zp__fdb_exec_on(c, "BEGIN", 0, NULL, NULL, NULL, 0, why, why_len) : NULL;
    if (rows && !r) {
        for (int k = 0; k < 3; k++)
            free(arr[k]);
        return ZP_E_IO;
    }
    PQclear(r);
    const char *jv[] = {id, req->key, prio, parts, rh, arr[0], arr[1], arr[2]};
    r = zp__fdb_run_on(c, ZP__FQ_SUBMIT, 8, jv, NULL, NULL, 0, why, why_len);
    for (int k = 0; k < 3; k++)
        free(arr[k]);
    if (!r)
        goto fail;
    bool served = !strcmp(PQgetvalue(r, 0, 0), "t"), fresh = !PQgetisnull(r, 0, 1);
    PQclear(r);
    if (!served) {
        snprintf(why, why_len, "no machine of the fleet serves key '%s'", req->key);
        if (rows)
            PQclear(PQexec(c, "ROLLBACK"));
        return ZP_E_NOT_FOUND;
    }
    if (!fresh) {
        /* The id exists (committed: the insert waited for it). */
        if (rows)
            PQclear(PQexec(c, "ROLLBACK"));
        const char *iv[] = {id};
        r = zp__fdb_exec_on(c, "SELECT request FROM zp_jobs WHERE id = $1", 1, iv, NULL, NULL, 0, why,
                            why_len);
        if (!r)
            return ZP_E_IO;
        bool same = PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), rh);
        PQclear(r);
        return same ? ZP_OK : ZP_E_EXISTS;
    }
    for (uint32_t i = 0; i < n_w; i++) {
        if (wd[i].kind == ZP_WITNESS_SYNTH)
            continue;
        char idx[16], size[24], hash[24];
        snprintf(idx, sizeof idx, "%u", i);
        u64_text(size, sizeof size, wd[i].size);
        u64_text(hash, sizeof hash, wd[i].hash);
        const char *wv[] = {id, idx, wd[i].data ? (const char *)wd[i].data : NULL, wd[i].path, size, hash};
        int lens[] = {0, 0, (int)wd[i].size, 0, 0, 0};
        int fmts[] = {0, 0, 1, 0, 0, 0};
        r = zp__fdb_exec_on(c, "INSERT INTO zp_witnesses (job_id, idx, data, path, size, hash) "
                               "VALUES ($1, $2, $3, $4, $5, $6)", 6, wv, lens, fmts, 0, why, why_len);
        if (!r)
            goto fail;
        PQclear(r);
    }
    if (rows) {
        r = zp__fdb_exec_on(c, "COMMIT", 0, NULL, NULL, NULL, 0, why, why_len);
        if (!r)
            return ZP_E_IO;
        PQclear(r);
    }
    atomic_fetch_add(&f->n.submitted, 1);
    return ZP_OK;
fail:
    if (rows)
        PQclear(PQexec(c, "ROLLBACK"));
    return ZP_E_IO;
}

zp_err zp__fleet_submit(zp__fleet *f, const zp_job_request *req, char id_out[ZP_JOB_ID_MAX + 1],
                        char *why, size_t why_len)
{
    zp_err e = ZP_OK;
    uint32_t n_w = req->n_witnesses;
    wdesc *wd = NULL;
    char id[ZP_JOB_ID_MAX + 1];
    why[0] = 0;
    if (!req->key || req->partitions < 1 || req->partitions > MAX_PARTITIONS || !req->witnesses ||
        (n_w != 1 && n_w != req->partitions) || (unsigned)req->priority >= ZP_PRIO_COUNT) {
        snprintf(why, why_len, "a job needs a key, 1..%d partitions, and one witness or one per partition",
                 MAX_PARTITIONS);
        e = ZP_E_INVALID_ARG;
        goto out;
    }
    if (req->id && *req->id) {
        snprintf(id, sizeof id, "%s", req->id);
    } else {
        uint8_t rnd[12];
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
            e = ZP_E_RANDOM;
            goto out;
        }
        int at = snprintf(id, sizeof id, "j");
        for (size_t i = 0; i < sizeof rnd; i++)
            at += snprintf(id + at, sizeof id - (size_t)at, "%02x", rnd[i]);
    }
    wd = calloc(n_w, sizeof *wd);
    if (!wd) {
        e = ZP_E_NOMEM;
        goto out;
    }
    uint64_t rh = mix_str(mix(mix(mix(0, (uint64_t)req->priority), req->partitions), n_w), req->key);
    for (uint32_t i = 0; i < n_w && e == ZP_OK; i++) {
        e = describe(f, id, &req->witnesses[i], i, &wd[i], why, why_len);
        rh = mix(mix(mix(mix(rh, (uint64_t)wd[i].kind), wd[i].seed), wd[i].size), wd[i].hash);
    }
    if (e != ZP_OK)
        goto out;
    for (int attempt = 0; attempt < 2; attempt++) {
        PGconn *c = zp__fdb_get(f, why, why_len);
        if (!c) {
            e = ZP_E_IO;
            break;
        }
        e = insert_job(f, c, req, id, rh, wd, n_w, why, why_len);
        bool broken = PQstatus(c) != CONNECTION_OK;
        zp__fdb_put(f, c);
        if (e != ZP_E_IO || !broken)
            break;
    }
    if (e == ZP_OK && id_out)
        snprintf(id_out, ZP_JOB_ID_MAX + 1, "%s", id);
out:
    for (uint32_t i = 0; wd && i < n_w; i++)
        free(wd[i].spooled);
    free(wd);
    for (uint32_t i = 0; req->witnesses && i < n_w; i++)
        if (req->witnesses[i].kind == ZP_WITNESS_MEMORY && req->witnesses[i].release)
            req->witnesses[i].release(req->witnesses[i].release_ctx, req->witnesses[i].data);
    return e;
}

static double num_or(const PGresult *r, int col, double dflt)
{
    return PQgetisnull(r, 0, col) ? dflt : strtod(PQgetvalue(r, 0, col), NULL);
}

/* bytea in text form ("\x...") to bytes; malloc'd. */
static uint8_t *unescape(const PGresult *r, int col, size_t *len)
{
    *len = 0;
    if (PQgetisnull(r, 0, col))
        return NULL;
    unsigned char *b = PQunescapeBytea((const unsigned char *)PQgetvalue(r, 0, col), len);
    if (!b)
        return NULL;
    uint8_t *out = malloc(*len ? *len : 1);
    if (out)
        memcpy(out, b, *len);
    PQfreemem(b);
    return out;
}

/* One look at the job, one statement: ZP_OK with info (and res when done
 * and wanted), ZP_E_NOT_FOUND, or ZP_E_IO. */
static zp_err look(zp__fleet *f, const char *id, zp_job_info *info, zp_job_result *res, bool *final)
{
    char why[512];
    const char *v[] = {id, res ? "t" : "f"};
    PGresult *r = zp__fdb_run(f, ZP__FQ_LOOK, 2, v, NULL, NULL, 0, why, sizeof why);
    if (!r)
        return ZP_E_IO;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return ZP_E_NOT_FOUND;
    }
    memset(info, 0, sizeof *info);
    snprintf(info->id, sizeof info->id, "%s", id);
    snprintf(info->key, sizeof info->key, "%s", PQgetvalue(r, 0, 0));
    info->priority = (zp_priority)atoi(PQgetvalue(r, 0, 1));
    info->partitions = (uint32_t)atoi(PQgetvalue(r, 0, 2));
    const char *st = PQgetvalue(r, 0, 3);
    info->partitions_done = (uint32_t)atoi(PQgetvalue(r, 0, 8));
    info->partitions_running = (uint32_t)atoi(PQgetvalue(r, 0, 9));
    info->submitted_s = num_or(r, 4, -1);
    info->finished_s = num_or(r, 5, -1);
    info->started_s = num_or(r, 10, -1);
    *final = true;
    if (!strcmp(st, "done")) {
        info->state = ZP_JOB_DONE;
    } else if (!strcmp(st, "failed")) {
        info->state = ZP_JOB_FAILED;
        info->error = PQgetisnull(r, 0, 6) ? ZP_E_IO : (zp_err)atoi(PQgetvalue(r, 0, 6));
        snprintf(info->message, sizeof info->message, "%s", PQgetvalue(r, 0, 7));
    } else if (!strcmp(st, "cancelled")) {
        info->state = ZP_JOB_CANCELLED;
        info->error = ZP_E_CANCELLED;
    } else {
        *final = false;
        info->state = info->started_s >= 0 ? ZP_JOB_RUNNING : ZP_JOB_QUEUED;
    }
    uint32_t n_public = (uint32_t)num_or(r, 11, 0);
    zp_err e = ZP_OK;
    if (info->state == ZP_JOB_DONE && res) {
        *res = (zp_job_result){.partitions = info->partitions, .n_public = n_public};
        res->proofs = unescape(r, 12, &res->proofs_len);
        res->public_inputs = unescape(r, 13, &res->public_len);
        if (!res->proofs) {
            zp_job_result_free(res);
            e = ZP_E_NOMEM;
        }
    }
    PQclear(r);
    return e;
}

/* Whether one of the notifications since *gen named job id (or too many
 * came to tell); *gen moves to the current count. Under f->mu. */
static bool named_since(zp__fleet *f, const char *id, uint64_t *gen)
{
    bool hit = f->done_gen - *gen > ZP__FLEET_DONE_RING;
    for (uint64_t g = *gen; !hit && g < f->done_gen; g++)
        hit = !strcmp(f->done_ring[g % ZP__FLEET_DONE_RING], id);
    *gen = f->done_gen;
    return hit;
}

zp_err zp__fleet_await(zp__fleet *f, const char *id, double timeout_s, zp_job_info *info,
                       zp_job_result *res)
{
    zp_job_info tmp;
    if (!info)
        info = &tmp;
    double end = zp__fleet_now() + timeout_s;
    bool seen = false;
    /* Woken by the claimer when a job finishes (NOTIFY zp_done or
     * zp_cancel, with its id): a look when it is this one, and every
     * 0.25 s in any case, which covers a lost notification. */
    for (double pause = 0.25;;) {
        pthread_mutex_lock(&f->mu);
        uint64_t gen = f->done_gen;
        pthread_mutex_unlock(&f->mu);
        bool final = false;
        zp_err e = look(f, id, info, res, &final);
        if (e == ZP_E_NOT_FOUND)
            return e;
        seen |= e == ZP_OK;
        if (e == ZP_OK && final)
            return info->state == ZP_JOB_DONE ? ZP_OK : info->error;
        double left = end - zp__fleet_now();
        if (timeout_s >= 0 && left <= 0)
            return seen ? ZP_E_TIMEOUT : e;
        double wait = timeout_s >= 0 && left < pause ? left : pause;
        if (e != ZP_OK || atomic_load(&f->stop)) {
            /* The database is away, or the claimer stopped: no notification comes. */
            zp__fleet_sleep(wait);
            continue;
        }
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        double t = (double)until.tv_sec + (double)until.tv_nsec * 1e-9 + wait;
        until.tv_sec = (time_t)t;
        until.tv_nsec = (long)((t - (double)until.tv_sec) * 1e9);
        pthread_mutex_lock(&f->mu);
        while (!named_since(f, id, &gen) && !atomic_load(&f->stop) &&
               pthread_cond_timedwait(&f->done_cv, &f->mu, &until) == 0) {
        }
        pthread_mutex_unlock(&f->mu);
    }
}

zp_err zp__fleet_cancel(zp__fleet *f, const char *id)
{
    char why[512];
    const char *v[] = {id};
    PGresult *r = zp__fdb_exec(f, "SELECT zp_cancel($1)", 1, v, NULL, NULL, 0, why, sizeof why);
    if (!r)
        return ZP_E_IO;
    bool found = PQntuples(r) == 1 && !PQgetisnull(r, 0, 0);
    PQclear(r);
    return found ? ZP_OK : ZP_E_NOT_FOUND;
}

/* ------------------------------------------------------------ status */

/* A JSON string of s (printable ASCII kept, the rest escaped). */
static void json_str(FILE *o, const char *s)
{
    fputc('"', o);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(o, "\\%c", ch);
        else if (ch < 0x20 || ch > 0x7e)
            fprintf(o, "\\u%04x", ch);
        else
            fputc(ch, o);
    }
    fputc('"', o);
}

static const char *const prio_names[ZP_PRIO_COUNT] = {"critical", "high", "normal", "low"};

/* Queue depth (waiting partitions and pending jobs) by priority. */
static bool depth(zp__fleet *f, uint64_t parts[ZP_PRIO_COUNT], uint64_t jobs[ZP_PRIO_COUNT],
                  uint64_t *claimed)
{
    char why[512];
    PGresult *r = zp__fdb_exec(
        f, "SELECT priority, count(*) FILTER (WHERE state = 'queued'), count(DISTINCT job_id) "
           "FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'claimed') "
           "FROM zp_partitions WHERE state IN ('queued', 'claimed') GROUP BY priority",
        0, NULL, NULL, NULL, 0, why, sizeof why);
    if (!r)
        return false;
    memset(parts, 0, ZP_PRIO_COUNT * sizeof *parts);
    memset(jobs, 0, ZP_PRIO_COUNT * sizeof *jobs);
    *claimed = 0;
    for (int i = 0; i < PQntuples(r); i++) {
        int p = atoi(PQgetvalue(r, i, 0));
        if (p < 0 || p >= ZP_PRIO_COUNT)
            continue;
        parts[p] = strtoull(PQgetvalue(r, i, 1), NULL, 10);
        jobs[p] = strtoull(PQgetvalue(r, i, 2), NULL, 10);
        *claimed += strtoull(PQgetvalue(r, i, 3), NULL, 10);
    }
    PQclear(r);
    return true;
}

char *zp__fleet_status_json(zp__fleet *f)
{
    char why[512];
    uint64_t parts[ZP_PRIO_COUNT], jobs[ZP_PRIO_COUNT], claimed;
    if (!depth(f, parts, jobs, &claimed))
        return NULL;
    PGresult *r = zp__fdb_exec(
        f, "SELECT m.id, m.host, m.pid, m.address, m.slots, m.gpus, array_to_string(m.keys, ','), "
           "extract(epoch from now() - m.heartbeat), "
           "(SELECT count(*) FROM zp_partitions q WHERE q.machine = m.id AND q.state = 'claimed'), "
           "(SELECT max(version) FROM zp_schema_version) FROM zp_machines m ORDER BY m.id",
        0, NULL, NULL, NULL, 0, why, sizeof why);
    if (!r)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    if (!o) {
        PQclear(r);
        return NULL;
    }
    fprintf(o, "{\"schema\":%d,\"machine\":%lld,\"claims_in_flight\":%" PRIu64 ",\"queued_partitions\":{",
            ZP__FLEET_SCHEMA, f->machine, claimed);
    for (int p = 0; p < ZP_PRIO_COUNT; p++)
        fprintf(o, "%s\"%s\":%" PRIu64, p ? "," : "", prio_names[p], parts[p]);
    fprintf(o, "},\"queued_jobs\":{");
    for (int p = 0; p < ZP_PRIO_COUNT; p++)
        fprintf(o, "%s\"%s\":%" PRIu64, p ? "," : "", prio_names[p], jobs[p]);
    fprintf(o, "},\"machines\":[");
    for (int i = 0; i < PQntuples(r); i++) {
        double age = strtod(PQgetvalue(r, i, 7), NULL);
        fprintf(o, "%s{\"id\":%s,\"host\":", i ? "," : "", PQgetvalue(r, i, 0));
        json_str(o, PQgetvalue(r, i, 1));
        fprintf(o, ",\"pid\":%s,\"address\":", PQgetvalue(r, i, 2));
        json_str(o, PQgetvalue(r, i, 3));
        fprintf(o, ",\"slots\":%s,\"gpus\":%s,\"keys\":", PQgetvalue(r, i, 4), PQgetvalue(r, i, 5));
        json_str(o, PQgetvalue(r, i, 6));
        fprintf(o, ",\"heartbeat_age_s\":%.3f,\"alive\":%s,\"claims\":%s}", age,
                age < f->cfg.claim_timeout_s ? "true" : "false", PQgetvalue(r, i, 8));
    }
    fprintf(o, "]}");
    PQclear(r);
    if (fclose(o) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

char *zp__fleet_metrics(zp__fleet *f)
{
    uint64_t parts[ZP_PRIO_COUNT], jobs[ZP_PRIO_COUNT], claimed = 0;
    bool have = depth(f, parts, jobs, &claimed);
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    if (!o)
        return NULL;
    struct {
        const char *name, *help;
        atomic_uint_fast64_t *v;
    } c[] = {
        {"claimed", "partitions this daemon claimed", &f->n.claimed},
        {"results_stored", "proofs this daemon stored under a live claim", &f->n.stored},
        {"jobs_assembled", "jobs whose proof this daemon assembled", &f->n.assembled},
        {"results_late", "proofs discarded because their claim was lost", &f->n.late},
        {"attempts_failed", "partition attempts that failed here", &f->n.failed_attempts},
        {"jobs_failed", "jobs failed here after their last attempt", &f->n.jobs_failed},
        {"claims_reaped", "claims of silent machines this daemon returned to the queue", &f->n.reaped},
        {"jobs_submitted", "jobs this daemon queued", &f->n.submitted},
        {"wakeups_notify", "claimer wake-ups by NOTIFY", &f->n.wake_notify},
        {"wakeups_poll", "claimer wake-ups by the safety-net poll", &f->n.wake_poll},
        {"db_errors", "failed statements or connections", &f->n.db_errors},
        {"reconnects", "connections made again after a break", &f->n.reconnects},
        {"witness_mismatch", "shared witnesses whose size or hash changed", &f->n.witness_bad},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        fprintf(o, "# HELP zkpipe_queue_%s_total %s\n# TYPE zkpipe_queue_%s_total counter\n"
                   "zkpipe_queue_%s_total %" PRIuFAST64 "\n",
                c[i].name, c[i].help, c[i].name, c[i].name, atomic_load(c[i].v));
    fprintf(o, "# HELP zkpipe_queue_claim_to_result_seconds_total claim-to-stored time summed over "
               "stored results\n# TYPE zkpipe_queue_claim_to_result_seconds_total counter\n"
               "zkpipe_queue_claim_to_result_seconds_total %.6f\n",
            (double)atomic_load(&f->n.claim_to_result_us) * 1e-6);
    pthread_mutex_lock(&f->mu);
    int mine = f->n_claims;
    pthread_mutex_unlock(&f->mu);
    fprintf(o, "# HELP zkpipe_queue_claims_local partitions this daemon proves now\n"
               "# TYPE zkpipe_queue_claims_local gauge\nzkpipe_queue_claims_local %d\n", mine);
    if (have) {
        fprintf(o, "# HELP zkpipe_queue_partitions_waiting partitions waiting in the shared queue\n"
                   "# TYPE zkpipe_queue_partitions_waiting gauge\n");
        for (int p = 0; p < ZP_PRIO_COUNT; p++)
            fprintf(o, "zkpipe_queue_partitions_waiting{priority=\"%s\"} %" PRIu64 "\n", prio_names[p],
                    parts[p]);
        fprintf(o, "# HELP zkpipe_queue_claims_in_flight partitions claimed over the fleet\n"
                   "# TYPE zkpipe_queue_claims_in_flight gauge\nzkpipe_queue_claims_in_flight %" PRIu64 "\n",
                claimed);
    }
    if (fclose(o) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
