/*
 * The zkpipe daemon's HTTP layer (docs/engine.md, The daemon): HTTP/1.1 + JSON over a unix
 * socket or TCP, on libmicrohttpd with one thread per connection, in front
 * of one zp_engine. Internal: libzkpipe_server, which the zkpipe program
 * links (built only when libmicrohttpd and cJSON are present; the program
 * then has ZP_HAVE_SERVER).
 *
 *   listen.c    parse "unix:///path" / "tcp://host:port", make the socket
 *   http.c      connections, bearer token, body limits, dispatch, shutdown
 *   route.c     the route table: path → handler, method check
 *   api_jobs.c  POST /v1/jobs, GET and DELETE /v1/jobs/{id}
 *   api_info.c  status, keys, preload/evict, metrics, healthz
 *   reply.c     JSON replies and the zp_err → HTTP status mapping
 *   track.c     ids of unfinished jobs, so shutdown can drain them
 *   journal.c   the job journal of --state-dir (journal.h; its records:
 *               journal_rec.c)
 *   state.c     the journal between the API and the engine: resume, results
 *   ticker.c    a thread calling a function at a period (reaper, watcher)
 *
 * Threads: libmicrohttpd runs each connection on its own thread, so a
 * long-polling await blocks only its own connection; every engine call is
 * thread-safe, and the server's own shared state (tracked jobs, counters)
 * sits behind one mutex or in atomics.
 */
#ifndef ZP_SERVER_H
#define ZP_SERVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include "zkpipe.h"

/* ------------------------------------------------------------- config */

/*
 * Where jobs go: NULL in zp__srv_config, the engine's own in-process queue;
 * otherwise a shared queue (the fleet's database, src/fleet/) that submit,
 * await and cancel go through, so that any daemon answers for any job.
 * status_json and metrics (malloc'd, NULL on failure) add its view to
 * GET /v1/status ("fleet") and GET /metrics.
 */
typedef struct zp__srv_queue {
    void *ctx;
    zp_err (*submit)(void *ctx, const zp_job_request *req, char id[ZP_JOB_ID_MAX + 1], char *why,
                     size_t why_len);
    zp_err (*await)(void *ctx, const char *id, double timeout_s, zp_job_info *info,
                    zp_job_result *res);
    zp_err (*cancel)(void *ctx, const char *id);
    char *(*status_json)(void *ctx);
    char *(*metrics)(void *ctx);
} zp__srv_queue;

typedef struct zp__srv_config {
    const char *listen;     /* "unix:///path" or "tcp://host:port" (port 0: any) */
    const char *token;      /* bearer token; NULL or "": none (unix only) */
    uint64_t max_body;      /* bytes of a binary witness body */
    uint64_t max_json;      /* bytes of any other body (JSON) */
    unsigned max_conns;     /* connections at once (one thread each) */
    unsigned idle_timeout_s;/* an idle connection is closed after this */
    /* Before authentication (only with a token; without one every
     * connection counts as authenticated): */
    unsigned max_conns_per_peer; /* unauthenticated ones from one peer; 0: no cap */
    unsigned reserved_conns;     /* slots unauthenticated ones never take;
                                    ZP__SRV_AUTO: max_conns / 4 */
    double header_timeout_s;     /* an unauthenticated connection lives this long */
    uint64_t body_budget;        /* bytes of all bodies in flight; 0: the larger
                                    of 1 GiB and max_body */
    double max_wait_s;      /* ceiling of ?wait= on GET /v1/jobs/{id} */
    double grace_s;         /* on stop: how long unfinished jobs may still run */
    bool allow_witness_path;/* JSON submits may name a file on this host */
    const zp__srv_queue *queue; /* NULL: the engine's queue (see above) */
    /* A folder for the job journal and spooled uploads (journal.h); NULL:
     * jobs live in memory only. Not with queue. */
    const char *state_dir;
    double state_ttl_s;       /* finished jobs kept (the engine's TTL) */
    uint32_t state_max_jobs;  /* jobs kept (the engine's max_jobs) */
} zp__srv_config;

#define ZP__SRV_MAX_BODY_DEFAULT ((uint64_t)1 << 30)  /* 1 GiB */
#define ZP__SRV_MAX_JSON_DEFAULT ((uint64_t)1 << 20)  /* 1 MiB */
#define ZP__SRV_AUTO UINT32_MAX

void zp__srv_config_default(zp__srv_config *c);

/* ------------------------------------------------------------- listen */

typedef struct zp__listen_addr {
    bool is_unix;
    char path[108];         /* unix: socket path (sun_path limit) */
    char host[256];         /* tcp */
    char port[8];           /* tcp, "0" allowed */
} zp__listen_addr;

/* Parses "unix:///abs/path", "unix:relative" or "tcp://host:port" (IPv6
 * hosts in brackets). false with a reason in why for anything else. */
bool zp__listen_parse(zp__listen_addr *out, const char *spec, char *why, size_t why_len);

/*
 * Makes the listening socket. unix: refuses a path that exists and is not a
 * socket, or a socket some process still accepts on; removes a stale socket
 * (nobody listening); creates the new one readable and writable by its
 * owner only (umask around bind, then chmod 0600). tcp: SO_REUSEADDR, the
 * first address of host that binds. bound receives the address as it can be
 * dialled (the resolved port for port 0). Returns the fd, or -1 with why.
 */
int zp__listen_open(const zp__listen_addr *a, char *bound, size_t bound_len, char *why,
                    size_t why_len);

/* ------------------------------------------------------------- server */

typedef struct zp__srv zp__srv;

/* Starts serving on its own threads. eng stays owned by the caller and must
 * outlive zp__srv_stop. ZP_E_INVALID_ARG (bad address, TCP without token,
 * ...), ZP_E_EXISTS (a daemon already listens on the socket), ZP_E_IO;
 * why explains. */
zp_err zp__srv_start(zp__srv **out, const zp__srv_config *cfg, zp_engine *eng, char *why,
                     size_t why_len);
/* The address clients dial, e.g. "tcp://127.0.0.1:40123". */
const char *zp__srv_address(const zp__srv *s);
/*
 * Graceful stop: stop accepting connections, refuse new jobs (503), let
 * unfinished jobs run for up to cfg->grace_s, cancel the ones still
 * unfinished (logged, and their awaiters see "cancelled"), answer the
 * pending requests, close every connection, remove the unix socket. The
 * engine is left open for the caller to close. NULL is fine.
 */
void zp__srv_stop(zp__srv *s);

/* ------------------------------------------------ internal, shared */

/* Ids of jobs submitted through this server and not yet seen finished. */
typedef struct zp__track {
    pthread_mutex_t mu;
    char (*ids)[ZP_JOB_ID_MAX + 1];
    size_t n, cap;
} zp__track;

zp_err zp__track_init(zp__track *t, size_t cap);
void zp__track_free(zp__track *t);
/* Remembers id (no duplicates); when full, first forgets the ids of jobs
 * the engine says are finished or unknown. ZP_E_BUSY when still full. */
zp_err zp__track_add(zp__track *t, zp_engine *eng, const char *id);
/* Waits until every tracked job is finished or until deadline (engine
 * clock free: CLOCK_MONOTONIC seconds); then cancels the unfinished ones.
 * Logs a job.shutdown event per job. Returns the number cancelled. */
size_t zp__track_drain(zp__track *t, zp_engine *eng, double grace_s);

/*
 * Connections not yet authenticated (conns.c): the limits that hold before
 * a token is checked. Each connection has a zp__conn from its start to its
 * close; it is listed, oldest first, until a request on it carries the
 * right token. A new one over a limit evicts the oldest listed one of its
 * peer (more than per_peer) or of all (more than cap); zp__conns_expire
 * evicts those listed for timeout_s. evict is called under mu, so the
 * connection (and its socket) still exists while it runs.
 */
typedef struct zp__conn {
    struct zp__conn *prev, *next;
    uint8_t peer[17];       /* family tag + address (or unix peer uid) */
    uint8_t peer_len;
    int fd;
    double t0;
    bool listed, authenticated;
} zp__conn;

typedef struct zp__conns {
    pthread_mutex_t mu;
    zp__conn *head, *tail;
    size_t n;
    unsigned cap, per_peer;
    double timeout_s;
    void (*evict)(void *ctx, zp__conn *c);
    void *ctx;
    uint64_t evicted_peer, evicted_reserve, evicted_timeout;
} zp__conns;

typedef struct zp__conns_stats {
    uint64_t unauthenticated, evicted_peer, evicted_reserve, evicted_timeout;
} zp__conns_stats;

/* cap 0 counts as 1; per_peer 0: no per-peer cap. */
void zp__conns_init(zp__conns *t, unsigned cap, unsigned per_peer, double timeout_s,
                    void (*evict)(void *ctx, zp__conn *c), void *ctx);
void zp__conns_destroy(zp__conns *t);
/* Lists c (peer, peer_len, fd set by the caller) as started at now, then
 * evicts over the limits (never c itself). */
void zp__conns_add(zp__conns *t, zp__conn *c, double now);
/* A request on c carried the token: c leaves the list for good. */
void zp__conns_authenticated(zp__conns *t, zp__conn *c);
/* c closes: it leaves the list (c may be freed after). */
void zp__conns_remove(zp__conns *t, zp__conn *c);
/* Evicts every listed connection started timeout_s or more before now. */
size_t zp__conns_expire(zp__conns *t, double now);
void zp__conns_counts(zp__conns *t, zp__conns_stats *out);

/* Bytes of request bodies in flight, within one budget. */
bool zp__budget_take(_Atomic uint64_t *used, uint64_t budget, uint64_t n);
void zp__budget_give(_Atomic uint64_t *used, uint64_t n);

/* A thread that calls fn(ctx) every period_s seconds until stopped
 * (ticker.c). start: false when the thread did not start. stop waits for
 * a call in progress; a ticker never started, or stopped, is fine. */
typedef struct zp__ticker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool on, stop;
    double period_s;
    void (*fn)(void *ctx);
    void *ctx;
} zp__ticker;

bool zp__ticker_start(zp__ticker *t, double period_s, void (*fn)(void *ctx), void *ctx);
void zp__ticker_stop(zp__ticker *t);

struct zp__journal;

struct zp__srv {
    zp__srv_config cfg;
    zp_engine *eng;
    struct MHD_Daemon *mhd;
    int listen_fd;
    zp__listen_addr addr;
    char bound[300];
    char token_hdr[512];    /* "Bearer <token>", "" for none */
    size_t token_hdr_len;
    zp__track track;
    atomic_bool draining;   /* refuse new jobs */
    atomic_bool closing;    /* waiters return now */
    atomic_uint_fast64_t requests, connections, open_conns;
    atomic_uint_fast64_t active;   /* requests between first call and completion */
    atomic_uint_fast64_t by_class[6];  /* responses 1xx..5xx, [0] unused */
    atomic_uint_fast64_t rejected_auth, rejected_size, rejected_budget;
    bool gated;             /* a token is required: conns applies */
    zp__conns conns;
    _Atomic uint64_t body_bytes;   /* reserved by bodies in flight */
    uint64_t body_budget;
    zp__ticker reaper;      /* the header timeout (gated only) */
    pthread_mutex_t log_mu;  /* libmicrohttpd's lines, at most a few a second */
    double log_window;
    unsigned log_in_window;
    uint64_t log_left_out;
    /* --state-dir (state.c): */
    struct zp__journal *jrn;    /* NULL without a state folder */
    pthread_mutex_t submit_mu;  /* a submit's lookup, engine submit and append */
    zp__ticker watcher;         /* journals results, expires old ones */
    double next_expire;         /* the watcher's, on zp__srv_now's clock */
};

/* Opens the journal of cfg.state_dir (nothing without one), submits its
 * unfinished jobs again and starts the watcher. ZP_E_EXISTS when another
 * daemon holds the folder; why explains. */
zp_err zp__state_start(zp__srv *s, char *why, size_t why_len);
/* Stops the watcher, journals the results that came in, closes. */
void zp__state_stop(zp__srv *s);
/* When id is journaled and unfinished but done or failed in the engine:
 * journals its result now, so that no client sees a result the journal
 * does not hold. */
void zp__state_settle(zp__srv *s, const char *id);
/* After a DELETE: journals id as cancelled (or its result, when it had
 * finished first). */
void zp__state_cancelled(zp__srv *s, const char *id);
/* A journaled job as zp_engine_await would answer it: info, *err (ZP_OK
 * done, ZP_E_TIMEOUT unfinished, ZP_E_CANCELLED, or a failed job's error,
 * which may be ZP_E_NOT_FOUND too) and, when res is not NULL, a done job's
 * proofs. false when the journal has no such job. */
bool zp__state_lookup(zp__srv *s, const char *id, zp_job_info *info, zp_job_result *res,
                      zp_err *err);


/* A request as the route handlers see it. */
typedef struct zp__srv_req {
    zp__srv *srv;
    const char *method;
    const char *path;
    const char *param;          /* the {id} or {name} of the route, or NULL */
    const uint8_t *body;
    size_t len;
    bool body_binary;           /* Content-Type application/octet-stream */
    /* The handler may take the body (then it frees it with free()) by
     * setting *take_body to NULL; the witness then needs no copy. */
    uint8_t **take_body;
    /* With a state folder, a binary body is spooled instead (len bytes in
     * the file named spool in the spool folder, fsynced; body NULL). The
     * handler keeps the file by setting *keep_spool; otherwise it goes when
     * the request ends. */
    const char *spool;
    bool *keep_spool;
    void *conn;                 /* struct MHD_Connection * */
} zp__srv_req;

/* The value of query parameter name, or NULL. */
const char *zp__srv_query(const zp__srv_req *r, const char *name);

/* A reply: the handler fills it; http.c sends it. body is malloc'd. */
typedef struct zp__srv_reply {
    unsigned status;
    const char *ctype;
    char *body;
    size_t len;
    unsigned retry_after_s;     /* 0: no Retry-After header */
} zp__srv_reply;

/* An error reply {"error": code, "message": text}. */
void zp__reply_error(zp__srv_reply *out, unsigned status, const char *code, const char *fmt,
                     ...) __attribute__((format(printf, 4, 5)));
/* The same for an engine error: status and code from the zp_err, message
 * "<what>: <zp_strerror> (<ZP_E_NAME>)". */
void zp__reply_zperr(zp__srv_reply *out, zp_err e, const char *what);
/* A JSON reply; takes ownership of body (from cJSON_PrintUnformatted). NULL
 * body: a 500 "out of memory" reply. */
void zp__reply_json(zp__srv_reply *out, unsigned status, char *body);
/* HTTP status for an engine error. */
unsigned zp__http_status_of(zp_err e);

/* Routes. A handler fills out; it may block (await). */
typedef void (*zp__route_fn)(zp__srv_reply *out, const zp__srv_req *r);

enum zp__body_kind { ZP__BODY_NONE, ZP__BODY_JSON, ZP__BODY_WITNESS };

typedef struct zp__route_match {
    zp__route_fn fn;
    enum zp__body_kind body;
    char param[ZP_JOB_ID_MAX + 1];
    bool has_param;
} zp__route_match;

/* Looks up method and path. 0 on a match; otherwise the HTTP status to
 * answer (404 unknown path, 405 known path with another method, 400 a bad
 * {id} or {name}) with allow set to the methods of the path for a 405. */
unsigned zp__route(zp__route_match *m, const char *method, const char *path,
                   const char **allow);

void zp__api_submit(zp__srv_reply *out, const zp__srv_req *r);
void zp__api_job_get(zp__srv_reply *out, const zp__srv_req *r);
void zp__api_job_cancel(zp__srv_reply *out, const zp__srv_req *r);
void zp__api_status(zp__srv_reply *out, const zp__srv_req *r);
void zp__api_keys(zp__srv_reply *out, const zp__srv_req *r);
void zp__api_key_preload(zp__srv_reply *out, const zp__srv_req *r);
void zp__api_key_evict(zp__srv_reply *out, const zp__srv_req *r);
void zp__api_metrics(zp__srv_reply *out, const zp__srv_req *r);
void zp__api_healthz(zp__srv_reply *out, const zp__srv_req *r);

/* Monotonic seconds. */
double zp__srv_now(void);

#endif
