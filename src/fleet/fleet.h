/*
 * The fleet (docs/fleet.md): many `zkpipe serve` daemons sharing one
 * durable job queue in PostgreSQL. Jobs, their partitions, the machines and
 * the results live in the database; each daemon claims partitions with
 * SELECT ... FOR UPDATE SKIP LOCKED (most urgent priority first, then the
 * oldest job), only as many as its proving workers can start (and two
 * more per worker, queued next, by default) and only for keys it serves,
 * proves each one as a one-partition job of its local
 * engine (which verifies the proof), and writes the proof back under the
 * claim's token. The job's proof is assembled once, in the transaction
 * that stores its last partition.
 *
 *   db.c      connections (a small pool, reconnecting), the hot statements
 *             prepared on each, the migrations
 *   schema.c  the versioned migrations: tables and the PL/pgSQL functions
 *             that claim, store, fail, reap and cancel
 *   agent.c   the daemon's side: machine row, heartbeat and reaper,
 *             LISTEN/NOTIFY claimer, one thread per claimed partition
 *   jobs.c    the client side as the HTTP API uses it: submit, await,
 *             cancel, status, metrics
 *
 * Built only where libpq is found (pkg-config libpq); otherwise
 * fleet_none.c stands in and zp__fleet_open says so.
 */
#ifndef ZP_FLEET_H
#define ZP_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

typedef struct zp__fleet_config {
    const char *url;          /* libpq connection string or postgresql:// URI */
    double heartbeat_s;       /* how often the machine row is touched (1 s) */
    double claim_timeout_s;   /* a machine silent this long loses its claims (30 s) */
    double poll_s;            /* the safety-net poll when no NOTIFY comes (2 s) */
    uint32_t max_attempts;    /* attempts of a partition before its job fails (3) */
    double backoff_s;         /* a failed partition waits backoff_s * 2^(n-1) (1 s) */
    uint32_t ahead;           /* partitions claimed beyond the free workers, so that
                               * a worker finds its next one queued locally
                               * (ZP__FLEET_AHEAD_AUTO: two per proving worker) */
    uint64_t inline_max;      /* witnesses up to this size go into the database (64 MiB) */
    const char *spool;        /* shared folder for larger uploaded witnesses; NULL: none */
    const char *address;      /* what clients dial, shown in status */
} zp__fleet_config;

/* ahead: two per proving worker: one it proves next while the last one
 * is verified and stored, and one more so that a GPU slot still finds a
 * partition to load the witness of while it runs one (the engine's slots
 * take ahead only while as many partitions wait as there are workers). */
#define ZP__FLEET_AHEAD_AUTO UINT32_MAX

void zp__fleet_config_default(zp__fleet_config *c);

/* The schema version this binary creates and understands. */
#define ZP__FLEET_SCHEMA 1

typedef struct zp__fleet zp__fleet;

/*
 * Connects, applies the migrations this binary ships (under an advisory
 * lock: daemons starting together migrate once), registers the machine
 * with the keys of eng it serves and its proving workers as slots, and
 * starts claiming. ZP_E_UNSUPPORTED: a build without libpq, or a database
 * whose schema is newer than this binary; ZP_E_IO: no connection. why
 * explains.
 */
zp_err zp__fleet_open(zp__fleet **out, const zp__fleet_config *cfg, zp_engine *eng, char *why,
                      size_t why_len);
/* Stops claiming, lets in-flight partitions run for up to grace_s, hands
 * the rest back to the queue and removes the machine row. NULL is fine. */
void zp__fleet_close(zp__fleet *f, double grace_s);

/* Queues a job in the database (ids are unique by constraint: the same id
 * with the same request returns the existing job, with another request
 * ZP_E_EXISTS). MEMORY witnesses are released through their callback. */
zp_err zp__fleet_submit(zp__fleet *f, const zp_job_request *req, char id_out[ZP_JOB_ID_MAX + 1],
                        char *why, size_t why_len);
/* As zp_engine_await, from the database: any daemon answers for any job. */
zp_err zp__fleet_await(zp__fleet *f, const char *id, double timeout_s, zp_job_info *info,
                       zp_job_result *res);
/* Cancels the job everywhere: waiting partitions are dropped, claimed ones
 * are cancelled on their machines (NOTIFY) and their results discarded. */
zp_err zp__fleet_cancel(zp__fleet *f, const char *id);
/* The fleet as a JSON object (machines, queue depth by priority, claims in
 * flight); malloc'd, NULL on failure. */
char *zp__fleet_status_json(zp__fleet *f);
/* This daemon's queue metrics and the queue's depth, Prometheus text;
 * malloc'd, NULL on failure. */
char *zp__fleet_metrics(zp__fleet *f);

#endif
