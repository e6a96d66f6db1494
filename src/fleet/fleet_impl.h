/* The fleet's shared state (fleet.h): one per daemon. */
#ifndef ZP_FLEET_IMPL_H
#define ZP_FLEET_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include <libpq-fe.h>

#include "fleet/fleet.h"

#define ZP__FLEET_POOL 8      /* connections for HTTP handlers and provers */
#define ZP__FLEET_MAX_KEYS 64
#define ZP__FLEET_DONE_RING 64 /* finished jobs an awaiter can tell apart */

/* The hot statements, prepared on every connection of the pool and on
 * the claimer's (db.c): parsed once, planned once they have a generic
 * plan, instead of at every call. */
typedef enum zp__fq {
    ZP__FQ_CLAIM,  /* machine, keys, n: the partitions claimed */
    ZP__FQ_RESULT, /* zp_result */
    ZP__FQ_SUBMIT, /* a job and its partitions, one statement */
    ZP__FQ_LOOK,   /* a job's state, and its proof when done and wanted */
    ZP__FQ_COUNT
} zp__fq;

/* A partition this daemon claimed and proves. */
typedef struct zp__claim {
    struct zp__claim *next;
    struct zp__fleet *f;
    char job[ZP_JOB_ID_MAX + 1];
    char key[ZP_NAME_MAX + 1];
    char local[ZP_JOB_ID_MAX + 1]; /* its job in the local engine */
    int part, wkind, widx, attempts;
    zp_priority priority;          /* its job's, kept in the local engine */
    long long token;
    uint64_t seed;
    double claimed_at;             /* monotonic */
} zp__claim;

typedef struct zp__fleet_counters {
    atomic_uint_fast64_t claimed, stored, assembled, late, failed_attempts, jobs_failed, reaped,
        submitted, wake_notify, wake_poll, db_errors, reconnects, witness_bad;
    atomic_uint_fast64_t claim_to_result_us; /* summed over stored results */
} zp__fleet_counters;

struct zp__fleet {
    zp__fleet_config cfg;
    char *url, *spool, *address;
    zp_engine *eng;
    char keys[ZP__FLEET_MAX_KEYS][ZP_NAME_MAX + 1];
    int n_keys;
    char keys_array[ZP__FLEET_MAX_KEYS * (ZP_NAME_MAX + 1) + 3]; /* "{a,b}" */
    int slots, gpus;
    char host[256];

    pthread_mutex_t mu;       /* pool, claims, machine id */
    pthread_cond_t cv;        /* a pooled connection or a claim came back */
    pthread_cond_t done_cv;   /* a job finished somewhere (NOTIFY zp_done, zp_cancel) */
    uint64_t done_gen;        /* counts those notifications */
    /* The job of notification g is done_ring[g % ZP__FLEET_DONE_RING]: an
     * awaiter looks at the database only when its own job was named (or
     * the ring went round), not at every job's end. */
    char done_ring[ZP__FLEET_DONE_RING][ZP_JOB_ID_MAX + 1];
    PGconn *pool[ZP__FLEET_POOL];
    int n_pool;               /* idle connections in pool */
    int n_out;                /* connections handed out */
    long long machine;
    zp__claim *claims;        /* in flight */
    int n_claims;
    double connected_since;   /* heartbeat's view: the database answered since then */

    atomic_bool stop;         /* no more claims */
    atomic_bool stop_hb;      /* no more heartbeats (after the grace) */
    int wake[2];              /* a pipe: a slot came free, or stop */
    pthread_t claimer, heartbeat;
    bool claimer_on, heartbeat_on;
    zp__fleet_counters n;
};

double zp__fleet_now(void);
void zp__fleet_sleep(double s);

/* A connection of the pool (connecting one when none is idle and fewer
 * than ZP__FLEET_POOL are out); NULL with why when the database cannot be
 * reached. */
PGconn *zp__fdb_get(zp__fleet *f, char *why, size_t why_len);
/* Gives c back; a broken one is closed instead. */
void zp__fdb_put(zp__fleet *f, PGconn *c);
/* A new connection outside the pool; NULL with why. */
PGconn *zp__fdb_connect(const char *url, char *why, size_t why_len);

/*
 * Runs one statement with text parameters (lens and fmts NULL) or with
 * binary ones where fmts[i] is 1, on a pooled connection; retries once on
 * a fresh connection when the first one was broken. Results in text
 * (rfmt 0) or binary (1). Returns the result (PQclear it) when it has rows
 * or ran, NULL with why otherwise; *sqlstate (may be NULL) gets the error's
 * SQLSTATE or "".
 */
PGresult *zp__fdb_exec(zp__fleet *f, const char *sql, int n, const char *const *vals,
                       const int *lens, const int *fmts, int rfmt, char *why, size_t why_len);
/* The same on the caller's connection, no retry. */
PGresult *zp__fdb_exec_on(PGconn *c, const char *sql, int n, const char *const *vals,
                          const int *lens, const int *fmts, int rfmt, char *why, size_t why_len);

/* As zp__fdb_exec and zp__fdb_exec_on, for a prepared statement. */
PGresult *zp__fdb_run(zp__fleet *f, zp__fq q, int n, const char *const *vals, const int *lens,
                      const int *fmts, int rfmt, char *why, size_t why_len);
PGresult *zp__fdb_run_on(PGconn *c, zp__fq q, int n, const char *const *vals, const int *lens,
                         const int *fmts, int rfmt, char *why, size_t why_len);
/* Prepares the statements of zp__fq on c (a connection to a migrated
 * database); false with why. */
bool zp__fdb_prepare(PGconn *c, char *why, size_t why_len);

/* Applies the migrations (fleet.h, zp__fleet_open). */
zp_err zp__fdb_migrate(PGconn *c, char *why, size_t why_len);

/* agent.c */
zp_err zp__fleet_agent_start(zp__fleet *f, char *why, size_t why_len);
void zp__fleet_agent_stop(zp__fleet *f, double grace_s);

#endif
