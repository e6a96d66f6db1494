/*
 * The daemon's side of the fleet: its machine row, the claimer and the
 * heartbeat, and one thread per claimed partition.
 *
 * claimer    holds its own connection with LISTEN zp_queue and zp_cancel
 *            (and zp_done, which wakes this daemon's awaiters).
 *            It claims as many partitions as the local engine has proving
 *            workers free, plus cfg.ahead more (by default two per
 *            worker, queued in the engine so that a worker proves its next
 *            one while the last is verified and stored; admission stays
 *            the engine's), then sleeps in
 *            poll() on the connection's socket and a wake-up pipe: a
 *            NOTIFY (a submit, a retry) or a freed slot wakes it at once,
 *            and poll_s bounds the sleep when no notification comes.
 * heartbeat  touches the machine row every heartbeat_s, reaps the claims
 *            of machines silent for claim_timeout_s (only once this daemon
 *            itself has reached the database for that long, so that after
 *            a database restart the others get time to heartbeat again),
 *            and cancels local work whose claim is gone.
 * provers    fetch the witness (inline bytes, or a shared path checked by
 *            size and hash), prove the partition as a one-partition job of
 *            the local engine, which verifies the proof, and store it under
 *            the claim's token, retrying while the database is away.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "fleet/fleet_impl.h"
#include "io/io.h"
#include "io/zpk.h"

static void wake(zp__fleet *f)
{
    char b = 1;
    ssize_t n = write(f->wake[1], &b, 1);
    (void)n; /* a full pipe already wakes the claimer */
}

/* ------------------------------------------------------------ provers */

static void claim_done(zp__claim *c)
{
    zp__fleet *f = c->f;
    pthread_mutex_lock(&f->mu);
    for (zp__claim **p = &f->claims; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    f->n_claims--;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    wake(f);
    free(c);
}

/* Runs one statement (sql, or the prepared q where sql is NULL) until the
 * database answers, or the daemon stops. */
static PGresult *exec_retry(zp__fleet *f, const char *what, const char *sql, zp__fq q, int n,
                            const char *const *vals, const int *lens, const int *fmts)
{
    char why[512];
    for (double pause = 0.05;; pause = pause < 1 ? pause * 2 : 1) {
        PGresult *r = sql ? zp__fdb_exec(f, sql, n, vals, lens, fmts, 0, why, sizeof why)
                          : zp__fdb_run(f, q, n, vals, lens, fmts, 0, why, sizeof why);
        if (r)
            return r;
        zp__log(ZP__LOG_WARN, "fleet.db_retry", "what=%s reason=%s", what, why);
        if (atomic_load(&f->stop))
            return NULL;
        zp__fleet_sleep(pause);
    }
}

/* Failures another attempt would repeat: a witness that is malformed or
 * not the key's, a request the engine refuses, a proof that failed
 * verification on two of the engine's workers already. The job fails at
 * the first (a shared witness that changed, a lost file, a GPU fault or a
 * dead machine is retried). */
static bool deterministic(zp_err e)
{
    switch (e) {
    case ZP_E_WITNESS:
    case ZP_E_NOT_CANONICAL:
    case ZP_E_BAD_PRIME:
    case ZP_E_FORMAT:
    case ZP_E_UNSUPPORTED:
    case ZP_E_INVALID_ARG:
    case ZP_E_VERIFY_FAILED:
        return true;
    default:
        return false;
    }
}

static void fail_attempt(zp__claim *c, zp_err e, const char *reason)
{
    zp__fleet *f = c->f;
    char part[16], token[24], code[16], max[16], backoff[32];
    snprintf(part, sizeof part, "%d", c->part);
    snprintf(token, sizeof token, "%lld", c->token);
    snprintf(code, sizeof code, "%d", (int)e);
    snprintf(max, sizeof max, "%u", deterministic(e) ? 1u : f->cfg.max_attempts);
    snprintf(backoff, sizeof backoff, "%g", f->cfg.backoff_s);
    const char *v[] = {c->job, part, token, code, reason, max, backoff};
    atomic_fetch_add(&f->n.failed_attempts, 1);
    PGresult *r = exec_retry(f, "fail", "SELECT zp_fail($1, $2, $3, $4, $5, $6, $7)", ZP__FQ_COUNT, 7,
                             v, NULL, NULL);
    const char *out = r && PQntuples(r) ? PQgetvalue(r, 0, 0) : "lost";
    if (!strcmp(out, "failed"))
        atomic_fetch_add(&f->n.jobs_failed, 1);
    zp__log(ZP__LOG_WARN, "fleet.attempt_failed", "job=%s partition=%d attempt=%d outcome=%s reason=%s",
            c->job, c->part, c->attempts, out, reason);
    PQclear(r);
}

/* The witness of c as the local engine takes it; *hold keeps the bytes
 * alive until the submit copied them. false with why. */
static bool get_witness(zp__claim *c, zp_witness *w, uint8_t **hold, char *path, size_t path_len,
                        zp_err *err, char *why, size_t why_len)
{
    zp__fleet *f = c->f;
    *hold = NULL;
    if (c->wkind == ZP_WITNESS_SYNTH) {
        *w = (zp_witness){.kind = ZP_WITNESS_SYNTH, .seed = c->seed};
        return true;
    }
    char idx[16];
    snprintf(idx, sizeof idx, "%d", c->widx);
    const char *v[] = {c->job, idx};
    /* Binary results: the bytes as they are, the numbers big-endian. */
    PGresult *r = NULL;
    for (double pause = 0.05; !r; pause = pause < 1 ? pause * 2 : 1) {
        r = zp__fdb_exec(f, "SELECT data, coalesce(path, ''), size, hash FROM zp_witnesses "
                            "WHERE job_id = $1 AND idx = $2", 2, v, NULL, NULL, 1, why, why_len);
        if (!r && atomic_load(&f->stop)) {
            *err = ZP_E_SHUTDOWN;
            return false;
        }
        if (!r)
            zp__fleet_sleep(pause);
    }
    if (PQntuples(r) != 1) {
        PQclear(r);
        snprintf(why, why_len, "the job's witness %d is missing from the database", c->widx);
        *err = ZP_E_NOT_FOUND;
        return false;
    }
    uint64_t size = 0, hash = 0;
    const uint8_t *sp = (const uint8_t *)PQgetvalue(r, 0, 2), *hp = (const uint8_t *)PQgetvalue(r, 0, 3);
    for (int i = 0; i < 8; i++) {
        size = size << 8 | sp[i];
        hash = hash << 8 | hp[i];
    }
    bool ok = true;
    if (!PQgetisnull(r, 0, 0)) {
        size_t n = (size_t)PQgetlength(r, 0, 0);
        *hold = malloc(n ? n : 1);
        if (!*hold) {
            snprintf(why, why_len, "out of memory for a %zu-byte witness", n);
            *err = ZP_E_NOMEM;
            ok = false;
        } else {
            memcpy(*hold, PQgetvalue(r, 0, 0), n);
            *w = (zp_witness){.kind = ZP_WITNESS_MEMORY, .data = *hold, .len = n};
        }
    } else {
        /* A shared path: the same bytes as at submit, or nothing. */
        snprintf(path, path_len, "%s", PQgetvalue(r, 0, 1));
        zp__buf b;
        zp__ioerr io = {{0}};
        zp_err e = zp__file_map(&b, path, UINT64_MAX, &io);
        if (e != ZP_OK) {
            snprintf(why, why_len, "witness %.300s: %s", path, io.msg);
            *err = e;
            ok = false;
        } else {
            uint64_t h = zp__hash64(b.data, b.len, 0);
            if (b.len != size || h != hash) {
                snprintf(why, why_len, "witness %.300s changed since submit: %zu bytes, hash %016" PRIx64
                         "; submitted %" PRIu64 " bytes, hash %016" PRIx64, path, b.len, h, size, hash);
                *err = ZP_E_CHECKSUM;
                atomic_fetch_add(&f->n.witness_bad, 1);
                ok = false;
            }
            zp__buf_free(&b);
            *w = (zp_witness){.kind = ZP_WITNESS_FILE, .path = path};
        }
    }
    PQclear(r);
    return ok;
}

static void store_result(zp__claim *c, const zp_job_result *res)
{
    zp__fleet *f = c->f;
    char part[16], token[24], npub[16];
    snprintf(part, sizeof part, "%d", c->part);
    snprintf(token, sizeof token, "%lld", c->token);
    snprintf(npub, sizeof npub, "%u", res->n_public);
    const char *v[] = {c->job, part, token, (const char *)res->proofs, (const char *)res->public_inputs,
                       npub};
    int lens[] = {0, 0, 0, (int)res->proofs_len, (int)res->public_len, 0};
    int fmts[] = {0, 0, 0, 1, 1, 0};
    PGresult *r = exec_retry(f, "result", NULL, ZP__FQ_RESULT, 6, v, lens, fmts);
    const char *out = r && PQntuples(r) ? PQgetvalue(r, 0, 0) : "lost";
    if (!strcmp(out, "late")) {
        atomic_fetch_add(&f->n.late, 1);
        zp__log(ZP__LOG_WARN, "fleet.late_result", "job=%s partition=%d token=%lld reason=%s", c->job,
                c->part, c->token, "the claim was lost (reaped or cancelled): the proof is discarded");
    } else if (r) {
        atomic_fetch_add(&f->n.stored, 1);
        atomic_fetch_add(&f->n.claim_to_result_us,
                         (uint_fast64_t)((zp__fleet_now() - c->claimed_at) * 1e6));
        if (!strcmp(out, "assembled"))
            atomic_fetch_add(&f->n.assembled, 1);
        zp__log(ZP__LOG_DEBUG, "fleet.result", "job=%s partition=%d outcome=%s", c->job, c->part, out);
    }
    PQclear(r);
}

static void *prove_main(void *arg)
{
    zp__claim *c = arg;
    zp__fleet *f = c->f;
    char why[512] = "", path[4096];
    uint8_t *hold;
    zp_witness w;
    zp_err e = ZP_OK;
    if (!get_witness(c, &w, &hold, path, sizeof path, &e, why, sizeof why)) {
        if (e != ZP_E_SHUTDOWN)
            fail_attempt(c, e, why);
        free(hold);
        claim_done(c);
        return NULL;
    }
    /* The job's priority: a partition claimed after others still waiting
     * here (claimed ahead) starts before them when it is more urgent. */
    zp_job_request req = {.id = c->local, .key = c->key, .priority = c->priority,
                          .partitions = 1, .witnesses = &w, .n_witnesses = 1};
    e = zp_engine_submit(f->eng, &req, NULL);
    free(hold);
    zp_job_info info = {0};
    zp_job_result res = {0};
    if (e == ZP_OK)
        e = zp_engine_await(f->eng, c->local, -1, &info, &res);
    else
        snprintf(info.message, sizeof info.message, "local submit: %s", zp_strerror(e));
    if (e == ZP_OK) {
        store_result(c, &res);
    } else if (e != ZP_E_CANCELLED && e != ZP_E_SHUTDOWN) {
        snprintf(why, sizeof why, "%s: %s", zp_errname(e), info.message[0] ? info.message : zp_strerror(e));
        fail_attempt(c, e, why);
    }
    zp_job_result_free(&res);
    claim_done(c);
    return NULL;
}

/* ------------------------------------------------------------ claimer */

/* Cancels the local work of job (NULL: every claim not in keep). */
static void cancel_local(zp__fleet *f, const char *job)
{
    pthread_mutex_lock(&f->mu);
    for (zp__claim *c = f->claims; c; c = c->next)
        if (!job || !strcmp(c->job, job))
            zp_engine_cancel(f->eng, c->local);
    pthread_mutex_unlock(&f->mu);
}

static int claim_some(zp__fleet *f, PGconn *lc, int want)
{
    char machine[24], n[16], why[512];
    pthread_mutex_lock(&f->mu);
    snprintf(machine, sizeof machine, "%lld", f->machine);
    pthread_mutex_unlock(&f->mu);
    snprintf(n, sizeof n, "%d", want);
    const char *v[] = {machine, f->keys_array, n};
    PGresult *r = zp__fdb_run_on(lc, ZP__FQ_CLAIM, 3, v, NULL, NULL, 0, why, sizeof why);
    if (!r) {
        atomic_fetch_add(&f->n.db_errors, 1);
        zp__log(ZP__LOG_WARN, "fleet.claim_failed", "reason=%s", why);
        return -1;
    }
    int got = PQntuples(r);
    for (int i = 0; i < got; i++) {
        zp__claim *c = calloc(1, sizeof *c);
        if (!c)
            break;
        c->f = f;
        snprintf(c->job, sizeof c->job, "%s", PQgetvalue(r, i, 0));
        c->part = atoi(PQgetvalue(r, i, 1));
        c->token = strtoll(PQgetvalue(r, i, 2), NULL, 10);
        snprintf(c->key, sizeof c->key, "%s", PQgetvalue(r, i, 3));
        c->wkind = atoi(PQgetvalue(r, i, 4));
        c->widx = atoi(PQgetvalue(r, i, 5));
        c->seed = (uint64_t)strtoll(PQgetvalue(r, i, 6), NULL, 10);
        c->attempts = atoi(PQgetvalue(r, i, 7));
        int prio = atoi(PQgetvalue(r, i, 8));
        c->priority = prio >= 0 && prio < ZP_PRIO_COUNT ? (zp_priority)prio : ZP_PRIO_NORMAL;
        snprintf(c->local, sizeof c->local, "fleet.%lld", c->token);
        c->claimed_at = zp__fleet_now();
        pthread_mutex_lock(&f->mu);
        c->next = f->claims;
        f->claims = c;
        f->n_claims++;
        pthread_mutex_unlock(&f->mu);
        atomic_fetch_add(&f->n.claimed, 1);
        zp__log(ZP__LOG_DEBUG, "fleet.claim", "job=%s partition=%d attempt=%d token=%lld", c->job,
                c->part, c->attempts, c->token);
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &at, prove_main, c) != 0) {
            fail_attempt(c, ZP_E_NOMEM, "cannot start a prover thread");
            claim_done(c);
        }
        pthread_attr_destroy(&at);
    }
    PQclear(r);
    return got;
}

/* Whether a NOTIFY zp_queue concerns this machine: a submit names its
 * key; an empty payload (a retry, partitions given back) is for all. */
static bool serves(const zp__fleet *f, const char *key)
{
    if (!key[0])
        return true;
    for (int i = 0; i < f->n_keys; i++)
        if (!strcmp(f->keys[i], key))
            return true;
    return false;
}

static PGconn *listen_conn(zp__fleet *f)
{
    char why[512];
    PGconn *c = zp__fdb_connect(f->url, why, sizeof why);
    if (!c)
        return NULL;
    PGresult *r = PQexec(c, "LISTEN zp_queue; LISTEN zp_cancel; LISTEN zp_done");
    bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK && zp__fdb_prepare(c, why, sizeof why);
    PQclear(r);
    if (!ok) {
        PQfinish(c);
        return NULL;
    }
    return c;
}

static void *claimer_main(void *arg)
{
    zp__fleet *f = arg;
    PGconn *lc = NULL;
    bool more = true; /* claim before sleeping: work may be waiting */
    while (!atomic_load(&f->stop)) {
        if (!lc || PQstatus(lc) != CONNECTION_OK) {
            if (lc) {
                PQfinish(lc);
                atomic_fetch_add(&f->n.reconnects, 1);
            }
            lc = listen_conn(f);
            if (!lc) {
                zp__fleet_sleep(0.2);
                continue;
            }
            more = true;
        }
        pthread_mutex_lock(&f->mu);
        int free_slots = f->slots + (int)f->cfg.ahead - f->n_claims;
        pthread_mutex_unlock(&f->mu);
        if (more && free_slots > 0) {
            int got = claim_some(f, lc, free_slots);
            more = got == free_slots;
            if (got < 0) {
                zp__fleet_sleep(0.2); /* the claim failed: not in a tight loop */
                continue;
            }
        }
        if (more && free_slots > 0)
            continue;
        struct pollfd p[2] = {{.fd = PQsocket(lc), .events = POLLIN}, {.fd = f->wake[0], .events = POLLIN}};
        int rc = poll(p, 2, (int)(f->cfg.poll_s * 1000));
        if (rc == 0) {
            atomic_fetch_add(&f->n.wake_poll, 1);
            more = true;
        }
        if (p[1].revents & POLLIN) {
            char buf[64];
            ssize_t n = read(f->wake[0], buf, sizeof buf);
            (void)n;
            more = true;
        }
        if (p[0].revents) {
            if (!PQconsumeInput(lc))
                continue; /* broken: reconnect above */
            PGnotify *nt;
            while ((nt = PQnotifies(lc))) {
                if (!strcmp(nt->relname, "zp_cancel") || !strcmp(nt->relname, "zp_done")) {
                    if (nt->relname[3] == 'c')
                        cancel_local(f, nt->extra);
                    pthread_mutex_lock(&f->mu);
                    snprintf(f->done_ring[f->done_gen % ZP__FLEET_DONE_RING], sizeof f->done_ring[0],
                             "%s", nt->extra);
                    f->done_gen++;
                    pthread_cond_broadcast(&f->done_cv);
                    pthread_mutex_unlock(&f->mu);
                } else if (serves(f, nt->extra)) {
                    atomic_fetch_add(&f->n.wake_notify, 1);
                    more = true;
                }
                PQfreemem(nt);
            }
        }
    }
    PQfinish(lc);
    return NULL;
}

/* ---------------------------------------------------------- heartbeat */

static bool register_machine(zp__fleet *f, char *why, size_t why_len)
{
    char pid[16], slots[16], gpus[16];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    snprintf(slots, sizeof slots, "%d", f->slots);
    snprintf(gpus, sizeof gpus, "%d", f->gpus);
    const char *v[] = {f->host, pid, f->address ? f->address : "", slots, gpus, f->keys_array};
    PGresult *r = zp__fdb_exec(f, "INSERT INTO zp_machines (host, pid, address, slots, gpus, keys) "
                                  "VALUES ($1, $2, $3, $4, $5, $6) RETURNING id", 6, v, NULL, NULL, 0,
                               why, why_len);
    if (!r)
        return false;
    pthread_mutex_lock(&f->mu);
    f->machine = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    pthread_mutex_unlock(&f->mu);
    PQclear(r);
    return true;
}

/* Cancels local work whose claim is no longer this machine's. */
static void check_claims(zp__fleet *f)
{
    char tokens[4096] = "{";
    size_t at = 1;
    pthread_mutex_lock(&f->mu);
    for (zp__claim *c = f->claims; c && at + 24 < sizeof tokens; c = c->next)
        at += (size_t)snprintf(tokens + at, sizeof tokens - at, "%s%lld", at > 1 ? "," : "", c->token);
    pthread_mutex_unlock(&f->mu);
    if (at == 1)
        return;
    snprintf(tokens + at, sizeof tokens - at, "}");
    char why[512];
    const char *v[] = {tokens};
    PGresult *r = zp__fdb_exec(f, "SELECT t FROM unnest($1::bigint[]) t WHERE NOT EXISTS "
                                  "(SELECT 1 FROM zp_partitions q WHERE q.token = t AND q.state = 'claimed')",
                               1, v, NULL, NULL, 0, why, sizeof why);
    if (!r)
        return;
    for (int i = 0; i < PQntuples(r); i++) {
        long long t = strtoll(PQgetvalue(r, i, 0), NULL, 10);
        pthread_mutex_lock(&f->mu);
        for (zp__claim *c = f->claims; c; c = c->next)
            if (c->token == t)
                zp_engine_cancel(f->eng, c->local);
        pthread_mutex_unlock(&f->mu);
    }
    PQclear(r);
}

static void *heartbeat_main(void *arg)
{
    zp__fleet *f = arg;
    char why[512];
    while (!atomic_load(&f->stop_hb)) {
        char machine[24];
        pthread_mutex_lock(&f->mu);
        snprintf(machine, sizeof machine, "%lld", f->machine);
        pthread_mutex_unlock(&f->mu);
        const char *v[] = {machine};
        PGresult *r = zp__fdb_exec(f, "UPDATE zp_machines SET heartbeat = now() WHERE id = $1", 1, v,
                                   NULL, NULL, 0, why, sizeof why);
        double now = zp__fleet_now();
        if (!r) {
            pthread_mutex_lock(&f->mu);
            f->connected_since = -1;
            pthread_mutex_unlock(&f->mu);
        } else {
            bool gone = atoi(PQcmdTuples(r)) == 0;
            PQclear(r);
            pthread_mutex_lock(&f->mu);
            if (f->connected_since < 0)
                f->connected_since = now;
            double up = now - f->connected_since;
            pthread_mutex_unlock(&f->mu);
            /* Silent too long, this machine was reaped: it joins again
             * under a new id; its old claims' results are discarded. */
            if (gone && register_machine(f, why, sizeof why))
                zp__log(ZP__LOG_WARN, "fleet.rejoin", "machine=%lld reason=%s", f->machine,
                        "the machine row was reaped after a silence");
            if (up >= f->cfg.claim_timeout_s) {
                char timeout[32], max[16], code[16];
                snprintf(timeout, sizeof timeout, "%g", f->cfg.claim_timeout_s);
                snprintf(max, sizeof max, "%u", f->cfg.max_attempts);
                snprintf(code, sizeof code, "%d", (int)ZP_E_TIMEOUT);
                const char *rv[] = {timeout, max, code};
                r = zp__fdb_exec(f, "SELECT zp_reap($1, $2, $3)", 3, rv, NULL, NULL, 0, why, sizeof why);
                int n = r && PQntuples(r) ? atoi(PQgetvalue(r, 0, 0)) : 0;
                PQclear(r);
                if (n > 0) {
                    atomic_fetch_add(&f->n.reaped, (uint_fast64_t)n);
                    zp__log(ZP__LOG_WARN, "fleet.reaped", "claims=%d reason=%s", n,
                            "their machines stopped heartbeating");
                }
            }
            check_claims(f);
        }
        /* Sleeps in slices so that stop is seen soon. */
        for (double t = 0; t < f->cfg.heartbeat_s && !atomic_load(&f->stop_hb); t += 0.05)
            zp__fleet_sleep(0.05);
    }
    return NULL;
}

/* ------------------------------------------------------------- start/stop */

zp_err zp__fleet_agent_start(zp__fleet *f, char *why, size_t why_len)
{
    if (!register_machine(f, why, why_len))
        return ZP_E_IO;
    f->connected_since = zp__fleet_now();
    if (pthread_create(&f->heartbeat, NULL, heartbeat_main, f) != 0) {
        snprintf(why, why_len, "cannot start the heartbeat thread");
        return ZP_E_NOMEM;
    }
    f->heartbeat_on = true;
    if (pthread_create(&f->claimer, NULL, claimer_main, f) != 0) {
        snprintf(why, why_len, "cannot start the claimer thread");
        return ZP_E_NOMEM;
    }
    f->claimer_on = true;
    return ZP_OK;
}

void zp__fleet_agent_stop(zp__fleet *f, double grace_s)
{
    atomic_store(&f->stop, true);
    wake(f);
    if (f->claimer_on)
        pthread_join(f->claimer, NULL);
    f->claimer_on = false;
    /* In-flight partitions get grace_s to finish and store their proofs. */
    double end = zp__fleet_now() + grace_s;
    pthread_mutex_lock(&f->mu);
    while (f->n_claims > 0 && zp__fleet_now() < end) {
        pthread_mutex_unlock(&f->mu);
        zp__fleet_sleep(0.02);
        pthread_mutex_lock(&f->mu);
    }
    int left = f->n_claims;
    pthread_mutex_unlock(&f->mu);
    atomic_store(&f->stop_hb, true);
    if (f->heartbeat_on)
        pthread_join(f->heartbeat, NULL);
    f->heartbeat_on = false;
    if (!f->machine)
        return; /* never joined */
    char machine[24], why[512];
    snprintf(machine, sizeof machine, "%lld", f->machine);
    const char *v[] = {machine};
    if (left > 0) {
        /* The rest go back to the queue now, not after the timeout; their
         * local results, should any still come, are discarded. */
        PGresult *r = zp__fdb_exec(f, "UPDATE zp_partitions SET state = 'queued', token = NULL, "
                                      "machine = NULL, attempts = greatest(attempts - 1, 0) "
                                      "WHERE machine = $1 AND state = 'claimed'", 1, v, NULL, NULL, 0,
                                   why, sizeof why);
        if (r)
            PQclear(zp__fdb_exec(f, "SELECT pg_notify('zp_queue', '')", 0, NULL, NULL, NULL, 0, why,
                                 sizeof why));
        zp__log(ZP__LOG_INFO, "fleet.released", "claims=%d", left);
        PQclear(r);
        cancel_local(f, NULL);
        pthread_mutex_lock(&f->mu);
        while (f->n_claims > 0)
            pthread_cond_wait(&f->cv, &f->mu);
        pthread_mutex_unlock(&f->mu);
    }
    PQclear(zp__fdb_exec(f, "DELETE FROM zp_machines WHERE id = $1", 1, v, NULL, NULL, 0, why, sizeof why));
}
