/*
 * The fleet's connections and migrations. libpq connections are not shared
 * between threads: each thread takes one from the pool for a statement or
 * a transaction and gives it back. A connection that broke (the server
 * restarted, the network dropped) is closed when given back, and the next
 * one is made afresh, so the daemon reconnects by itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "fleet/fleet_impl.h"
#include "fleet/schema.h"

double zp__fleet_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void zp__fleet_sleep(double s)
{
    if (s <= 0)
        return;
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&t, &t) == -1 && errno == EINTR) {
    }
}

/* libpq's message without its trailing newline. */
static void pq_why(char *why, size_t why_len, const char *what, const char *msg)
{
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        n--;
    snprintf(why, why_len, "%s: %.*s", what, (int)n, msg);
}

static void no_notice(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

PGconn *zp__fdb_connect(const char *url, char *why, size_t why_len)
{
    const char *k[] = {"dbname", "application_name", "connect_timeout", NULL};
    const char *v[] = {url, "zkpipe", "10", NULL};
    PGconn *c = PQconnectdbParams(k, v, 1);
    if (!c) {
        snprintf(why, why_len, "cannot connect to the queue database: out of memory");
        return NULL;
    }
    if (PQstatus(c) != CONNECTION_OK) {
        pq_why(why, why_len, "cannot connect to the queue database", PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    /* Notices (e.g. of CREATE ... IF NOT EXISTS) are not errors. */
    PQsetNoticeProcessor(c, no_notice, NULL);
    return c;
}

/* The statements of zp__fq. CLAIM is the body of zp_claim (schema.c) as
 * one statement (a SQL function's plan lives for one call only, a
 * prepared statement's for the connection), returning the priority too. */
static const struct {
    const char *name, *sql;
} fq[ZP__FQ_COUNT] = {
    [ZP__FQ_CLAIM] = {"zp_q_claim",
        "WITH c AS (SELECT q.job_id, q.part FROM zp_partitions q "
        "WHERE q.state = 'queued' AND q.key = ANY ($2::text[]) AND q.not_before <= now() "
        "ORDER BY q.priority, q.job_seq, q.part LIMIT $3::integer FOR UPDATE SKIP LOCKED) "
        "UPDATE zp_partitions p SET state = 'claimed', token = nextval('zp_claim_token'), "
        "machine = $1::bigint, claimed = clock_timestamp(), attempts = p.attempts + 1 "
        "FROM c WHERE p.job_id = c.job_id AND p.part = c.part "
        "RETURNING p.job_id, p.part, p.token, p.key, p.wkind, p.widx, p.seed, p.attempts, "
        "p.priority"},
    [ZP__FQ_RESULT] = {"zp_q_result", "SELECT zp_result($1, $2, $3, $4, $5, $6)"},
    /* served (a machine has the key), the new job's seq (NULL: the id
     * exists), and the partitions are queued with a NOTIFY at commit. */
    [ZP__FQ_SUBMIT] = {"zp_q_submit",
        "WITH s AS (SELECT EXISTS (SELECT 1 FROM zp_machines WHERE $2::text = ANY (keys)) AS served), "
        "j AS (INSERT INTO zp_jobs (id, key, priority, partitions, request) "
        "SELECT $1::text, $2::text, $3::smallint, $4::integer, $5::bigint FROM s WHERE s.served "
        "ON CONFLICT (id) DO NOTHING RETURNING seq), "
        "p AS (INSERT INTO zp_partitions (job_id, part, key, priority, job_seq, wkind, widx, seed) "
        "SELECT $1::text, u.o - 1, $2::text, $3::smallint, j.seq, u.k, u.i, u.s FROM j, "
        "unnest($6::smallint[], $7::integer[], $8::bigint[]) WITH ORDINALITY AS u(k, i, s, o)), "
        "n AS (SELECT pg_notify('zp_queue', $2::text) FROM j) "
        "SELECT s.served, (SELECT seq FROM j), (SELECT count(*) FROM n) FROM s"},
    [ZP__FQ_LOOK] = {"zp_q_look",
        "SELECT j.key, j.priority, j.partitions, j.state, extract(epoch from j.submitted), "
        "extract(epoch from j.finished), j.code, j.error, q.done, q.claimed, q.started, j.n_public, "
        "CASE WHEN $2::boolean AND j.state = 'done' THEN j.proofs END, "
        "CASE WHEN $2::boolean AND j.state = 'done' THEN j.public_inputs END "
        "FROM zp_jobs j, LATERAL (SELECT count(*) FILTER (WHERE p.state = 'done') AS done, "
        "count(*) FILTER (WHERE p.state = 'claimed') AS claimed, "
        "extract(epoch from min(p.claimed)) AS started FROM zp_partitions p WHERE p.job_id = j.id) q "
        "WHERE j.id = $1::text"},
};

bool zp__fdb_prepare(PGconn *c, char *why, size_t why_len)
{
    for (int i = 0; i < ZP__FQ_COUNT; i++) {
        PGresult *r = PQprepare(c, fq[i].name, fq[i].sql, 0, NULL);
        bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!ok)
            pq_why(why, why_len, "queue database: preparing a statement",
                   r ? PQresultErrorMessage(r) : PQerrorMessage(c));
        PQclear(r);
        if (!ok)
            return false;
    }
    return true;
}

PGconn *zp__fdb_get(zp__fleet *f, char *why, size_t why_len)
{
    pthread_mutex_lock(&f->mu);
    while (f->n_pool == 0 && f->n_out >= ZP__FLEET_POOL)
        pthread_cond_wait(&f->cv, &f->mu);
    PGconn *c = f->n_pool ? f->pool[--f->n_pool] : NULL;
    f->n_out++;
    pthread_mutex_unlock(&f->mu);
    if (c)
        return c;
    c = zp__fdb_connect(f->url, why, why_len);
    if (c && !zp__fdb_prepare(c, why, why_len)) {
        PQfinish(c);
        c = NULL;
    }
    if (!c) {
        atomic_fetch_add(&f->n.db_errors, 1);
        pthread_mutex_lock(&f->mu);
        f->n_out--;
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
    }
    return c;
}

void zp__fdb_put(zp__fleet *f, PGconn *c)
{
    bool keep = c && PQstatus(c) == CONNECTION_OK && PQtransactionStatus(c) == PQTRANS_IDLE;
    if (c && !keep)
        PQfinish(c);
    pthread_mutex_lock(&f->mu);
    if (keep)
        f->pool[f->n_pool++] = c;
    f->n_out--;
    /* Broadcast: the stop path waits on the same condition for claims. */
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

/* r as a result, or NULL with why. */
static PGresult *checked(PGconn *c, PGresult *r, char *why, size_t why_len)
{
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
        return r;
    pq_why(why, why_len, "queue database", r ? PQresultErrorMessage(r) : PQerrorMessage(c));
    PQclear(r);
    return NULL;
}

PGresult *zp__fdb_exec_on(PGconn *c, const char *sql, int n, const char *const *vals,
                          const int *lens, const int *fmts, int rfmt, char *why, size_t why_len)
{
    return checked(c, PQexecParams(c, sql, n, NULL, vals, lens, fmts, rfmt), why, why_len);
}

PGresult *zp__fdb_run_on(PGconn *c, zp__fq q, int n, const char *const *vals, const int *lens,
                         const int *fmts, int rfmt, char *why, size_t why_len)
{
    return checked(c, PQexecPrepared(c, fq[q].name, n, vals, lens, fmts, rfmt), why, why_len);
}

/* sql, or the prepared statement q where sql is NULL, on a pooled
 * connection, once more on a fresh one when the first was broken. */
static PGresult *exec_pooled(zp__fleet *f, const char *sql, zp__fq q, int n, const char *const *vals,
                             const int *lens, const int *fmts, int rfmt, char *why, size_t why_len)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        PGconn *c = zp__fdb_get(f, why, why_len);
        if (!c)
            return NULL;
        PGresult *r = sql ? zp__fdb_exec_on(c, sql, n, vals, lens, fmts, rfmt, why, why_len)
                          : zp__fdb_run_on(c, q, n, vals, lens, fmts, rfmt, why, why_len);
        bool broken = PQstatus(c) != CONNECTION_OK;
        zp__fdb_put(f, c);
        if (r)
            return r;
        atomic_fetch_add(&f->n.db_errors, 1);
        if (!broken)
            return NULL;
        atomic_fetch_add(&f->n.reconnects, 1);
    }
    return NULL;
}

PGresult *zp__fdb_exec(zp__fleet *f, const char *sql, int n, const char *const *vals,
                       const int *lens, const int *fmts, int rfmt, char *why, size_t why_len)
{
    return exec_pooled(f, sql, ZP__FQ_COUNT, n, vals, lens, fmts, rfmt, why, why_len);
}

PGresult *zp__fdb_run(zp__fleet *f, zp__fq q, int n, const char *const *vals, const int *lens,
                      const int *fmts, int rfmt, char *why, size_t why_len)
{
    return exec_pooled(f, NULL, q, n, vals, lens, fmts, rfmt, why, why_len);
}

/* One statement of the migration transaction; false with why. */
static bool run(PGconn *c, const char *sql, char *why, size_t why_len)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    bool ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok)
        pq_why(why, why_len, "queue database migration", r ? PQresultErrorMessage(r) : PQerrorMessage(c));
    PQclear(r);
    return ok;
}

zp_err zp__fdb_migrate(PGconn *c, char *why, size_t why_len)
{
    /* The advisory lock serialises daemons that start together: the
     * second one sees the first one's migrations once it gets the lock. */
    if (!run(c, "BEGIN; SELECT pg_advisory_xact_lock(2053925477)", why, why_len))
        return ZP_E_IO;
    long have = 0;
    for (int step = 0; step < 2; step++) {
        /* The table is read only once it is known to exist. */
        PGresult *r = PQexec(c, step ? "SELECT max(version) FROM zp_schema_version"
                                     : "SELECT to_regclass('zp_schema_version') IS NOT NULL");
        if (!r || PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
            pq_why(why, why_len, "queue database", r ? PQresultErrorMessage(r) : PQerrorMessage(c));
            PQclear(r);
            char ignore[8];
            run(c, "ROLLBACK", ignore, sizeof ignore);
            return ZP_E_IO;
        }
        bool exists = !strcmp(PQgetvalue(r, 0, 0), "t");
        if (step)
            have = strtol(PQgetvalue(r, 0, 0), NULL, 10);
        PQclear(r);
        if (!step && !exists)
            break;
    }
    long want = (long)zp__fleet_n_migrations;
    if (have > want) {
        snprintf(why, why_len, "the queue database has schema version %ld, newer than this zkpipe "
                 "knows (up to %ld): upgrade zkpipe on this host before it joins the fleet", have, want);
        char ignore[8];
        run(c, "ROLLBACK", ignore, sizeof ignore);
        return ZP_E_UNSUPPORTED;
    }
    for (long v = have; v < want; v++) {
        char set[96];
        snprintf(set, sizeof set, "UPDATE zp_schema_version SET version = %ld", v + 1);
        if (!run(c, zp__fleet_migrations[v], why, why_len) || !run(c, set, why, why_len)) {
            char ignore[8];
            run(c, "ROLLBACK", ignore, sizeof ignore);
            return ZP_E_IO;
        }
        zp__log(ZP__LOG_INFO, "fleet.migrate", "version=%ld", v + 1);
    }
    return run(c, "COMMIT", why, why_len) ? ZP_OK : ZP_E_IO;
}
