/*
 * The daemon's HTTP front: libmicrohttpd with one thread per connection,
 * the bearer token, the limits on connections not yet authenticated
 * (conns.c), body limits enforced while the body streams in and one budget
 * for all bodies in flight, the dispatch to route handlers, and the
 * graceful stop.
 */
#define _GNU_SOURCE /* struct ucred */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <microhttpd.h>

#include "base/log.h"
#include "server/journal.h"
#include "server/server.h"

/* Bytes of an over-limit body (without Content-Length: chunked) that are
 * read and dropped so the 413 can still be sent; past this the connection
 * is simply closed. Nothing beyond the limit is ever kept. */
#define DISCARD_MAX ((uint64_t)16 << 20)

void zp__srv_config_default(zp__srv_config *c)
{
    memset(c, 0, sizeof *c);
    c->max_body = ZP__SRV_MAX_BODY_DEFAULT;
    c->max_json = ZP__SRV_MAX_JSON_DEFAULT;
    c->max_conns = 64;
    c->idle_timeout_s = 120;
    c->max_conns_per_peer = 16;
    c->reserved_conns = ZP__SRV_AUTO;
    c->header_timeout_s = 10;
    c->max_wait_s = 600;
    c->grace_s = 30;
    c->allow_witness_path = true;
}

/* libmicrohttpd logs a line per refused or evicted connection: at most
 * MHD_LOG_PER_S of them a second reach the log, and the next line after
 * says how many were left out, so a flood of connections is not a flood
 * of log. */
#define MHD_LOG_PER_S 10

static bool mhd_log_allowed(zp__srv *s, uint64_t *suppressed)
{
    double now = zp__srv_now();
    bool ok;
    pthread_mutex_lock(&s->log_mu);
    *suppressed = 0;
    if (now - s->log_window >= 1) {
        s->log_window = now;
        s->log_in_window = 0;
        *suppressed = s->log_left_out;
        s->log_left_out = 0;
    }
    ok = s->log_in_window++ < MHD_LOG_PER_S;
    if (!ok)
        s->log_left_out++;
    pthread_mutex_unlock(&s->log_mu);
    return ok;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    uint64_t suppressed;
    bool ok = mhd_log_allowed(cls, &suppressed);
    if (suppressed)
        zp__log(ZP__LOG_WARN, "http.log_dropped", "count=%llu", (unsigned long long)suppressed);
    if (!ok)
        return;
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = 0;
    zp__log(ZP__LOG_WARN, "http.log", "msg=%s", line);
}

/* The state of one request, kept across the handler's calls. */
struct request {
    zp__route_match m;
    uint64_t limit;
    bool binary;
    bool answered;      /* a reply was queued before the body was read */
    bool too_big;
    bool over_budget;   /* the bodies in flight would pass --body-budget */
    uint64_t reserved;  /* bytes of the budget this body holds */
    uint8_t *body;
    size_t len, cap;
    uint64_t dropped;
    /* A binary body spooled to the state folder (fd -1: none). */
    int spool_fd;
    char spool[ZP__JRN_SPOOL_NAME];
    bool spool_failed, keep_spool;
};

const char *zp__srv_query(const zp__srv_req *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

/* Constant time in the token's contents; the time depends only on the
 * token's length (not secret in any useful way) and not on where a guess
 * first differs. */
static bool token_equal(const char *got, size_t got_len, const char *want, size_t want_len)
{
    volatile unsigned char d = got_len != want_len;
    for (size_t i = 0; i < want_len; i++) {
        unsigned char g = i < got_len ? (unsigned char)got[i] : 0;
        d |= g ^ (unsigned char)want[i];
    }
    return d == 0;
}

/* The connection's own record (NULL without a token). */
static zp__conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i ? i->socket_context : NULL;
}

static bool authorized(const zp__srv *s, struct MHD_Connection *c)
{
    if (!s->cfg.token || !*s->cfg.token)
        return true;
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!h || strncasecmp(h, "Bearer ", 7) != 0)
        return false;
    h += 7;
    while (*h == ' ')
        h++;
    return token_equal(h, strlen(h), s->cfg.token, strlen(s->cfg.token));
}

static enum MHD_Result send_reply(zp__srv *s, struct MHD_Connection *c, zp__srv_reply *r,
                                  const char *allow)
{
    struct MHD_Response *resp;
    if (r->body)
        resp = MHD_create_response_from_buffer_with_free_callback(r->len, r->body, free);
    else
        resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        free(r->body);
        return MHD_NO;
    }
    r->body = NULL; /* the response owns it now */
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->ctype ? r->ctype : "application/json");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (allow)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    if (r->status == 401)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    if (r->retry_after_s) {
        char ra[16];
        snprintf(ra, sizeof ra, "%u", r->retry_after_s);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, ra);
    }
    unsigned cls = r->status / 100;
    if (cls >= 1 && cls <= 5)
        atomic_fetch_add(&s->by_class[cls], 1);
    enum MHD_Result ok = MHD_queue_response(c, r->status, resp);
    MHD_destroy_response(resp);
    return ok;
}

/* Content-Length as a number; false when absent or not plain digits. */
static bool content_length(struct MHD_Connection *c, uint64_t *out)
{
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (!v || !*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 19)
        return false;
    *out = strtoull(v, NULL, 10);
    return true;
}

/* The media type without parameters, compared case-insensitively. */
static bool ctype_is(struct MHD_Connection *c, const char *want)
{
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    if (!v)
        return false;
    size_t n = strcspn(v, "; \t");
    return n == strlen(want) && strncasecmp(v, want, n) == 0;
}

/* First call of a request: headers are in, the body is not. Returns 0 to
 * go on reading the body, or a status replied to already in *rep. */
static unsigned admit(zp__srv *s, struct MHD_Connection *c, struct request *q, const char *method,
                      const char *url, zp__srv_reply *rep, const char **allow)
{
    if (!authorized(s, c)) {
        atomic_fetch_add(&s->rejected_auth, 1);
        zp__reply_error(rep, 401, "unauthorized", "missing or wrong bearer token (send 'Authorization: Bearer <token>')");
        return 401;
    }
    zp__conn *k = conn_of(c);
    if (k && !k->authenticated)
        zp__conns_authenticated(&s->conns, k);
    unsigned st = zp__route(&q->m, method, url, allow);
    if (st == 404)
        zp__reply_error(rep, 404, "not_found", "no route %s %s", method, url);
    else if (st == 405)
        zp__reply_error(rep, 405, "method_not_allowed", "%s is not allowed on %s (allowed: %s)", method, url, *allow);
    else if (st)
        zp__reply_error(rep, st, "bad_request", "bad id or name in %s: 1..%d characters of [A-Za-z0-9._-] (':' also in job ids)",
                        url, ZP_JOB_ID_MAX);
    if (st)
        return st;
    q->binary = q->m.body == ZP__BODY_WITNESS && ctype_is(c, "application/octet-stream");
    if (q->m.body == ZP__BODY_WITNESS && !q->binary &&
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE) &&
        !ctype_is(c, "application/json")) {
        zp__reply_error(rep, 415, "unsupported_media_type",
                        "POST /v1/jobs takes application/json or application/octet-stream (a .wtns)");
        return 415;
    }
    q->limit = q->binary ? s->cfg.max_body : s->cfg.max_json;
    uint64_t cl;
    if (content_length(c, &cl) && cl > q->limit) {
        atomic_fetch_add(&s->rejected_size, 1);
        zp__reply_error(rep, 413, "payload_too_large", "body of %llu bytes is over the limit of %llu bytes",
                        (unsigned long long)cl, (unsigned long long)q->limit);
        return 413;
    }
    /* With a state folder a witness upload goes to disk as it arrives: it
     * must be durable before the job is accepted, and holds no memory. */
    if (s->jrn && q->binary) {
        q->spool_fd = zp__journal_spool_create(s->jrn, q->spool);
        if (q->spool_fd < 0) {
            q->spool[0] = 0;
            zp__reply_error(rep, 503, "spool_failed", "cannot make a spool file in the state folder: %s",
                            strerror(errno));
            return 503;
        }
        return 0;
    }
    if (content_length(c, &cl) && cl > 0) {
        if (!zp__budget_take(&s->body_bytes, s->body_budget, cl)) {
            atomic_fetch_add(&s->rejected_budget, 1);
            zp__reply_error(rep, 503, "body_budget",
                            "bodies in flight hold the daemon's budget of %llu bytes (--body-budget); retry",
                            (unsigned long long)s->body_budget);
            rep->retry_after_s = 1;
            return 503;
        }
        q->reserved = cl;
        /* One allocation for the common case; a huge declared length still
         * grows as bytes actually arrive. */
        size_t first = cl < ((uint64_t)64 << 20) ? (size_t)cl : (size_t)64 << 20;
        q->body = malloc(first);
        if (!q->body) {
            zp__reply_error(rep, 503, "out_of_memory", "cannot hold a body of %llu bytes now", (unsigned long long)cl);
            return 503;
        }
        q->cap = first;
    }
    return 0;
}

/* Takes one piece of the body; never holds more than the limit, nor more
 * than the budget lets it reserve (a body without Content-Length reserves
 * as it grows). */
static bool absorb(zp__srv *s, struct request *q, const char *data, size_t n)
{
    if (!q->too_big && n > q->limit - q->len)
        q->too_big = true;
    if (!q->too_big && !q->over_budget && q->len + n > q->reserved) {
        uint64_t more = q->len + n - q->reserved;
        if (zp__budget_take(&s->body_bytes, s->body_budget, more))
            q->reserved += more;
        else
            q->over_budget = true;
    }
    if (q->too_big || q->over_budget || q->spool_failed) {
        q->dropped += n;
        return q->dropped <= DISCARD_MAX;
    }
    if (q->spool_fd >= 0) {
        for (size_t done = 0; done < n;) {
            ssize_t w = write(q->spool_fd, data + done, n - done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                zp__log(ZP__LOG_ERROR, "http.spool_failed", "file=%s error=%s", q->spool, strerror(errno));
                q->spool_failed = true;
                return true;
            }
            done += (size_t)w;
        }
        q->len += n;
        return true;
    }
    if (q->len + n > q->cap) {
        uint64_t want = q->cap ? (uint64_t)q->cap * 2 : 65536;
        while (want < q->len + n)
            want *= 2;
        if (want > q->limit)
            want = q->limit;
        uint8_t *nb = realloc(q->body, (size_t)want);
        if (!nb)
            return false;
        q->body = nb;
        q->cap = (size_t)want;
    }
    memcpy(q->body + q->len, data, n);
    q->len += n;
    return true;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    zp__srv *s = cls;
    struct request *q = *con_cls;
    zp__srv_reply rep = {0};
    const char *allow = NULL;
    if (!q) {
        q = calloc(1, sizeof *q);
        if (!q)
            return MHD_NO;
        *con_cls = q;
        q->spool_fd = -1;
        atomic_fetch_add(&s->requests, 1);
        atomic_fetch_add(&s->active, 1);
        unsigned st = admit(s, c, q, method, url, &rep, &allow);
        if (st) {
            q->answered = true;
            return send_reply(s, c, &rep, allow);
        }
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (q->answered)
            return MHD_YES;
        return absorb(s, q, upload, n) ? MHD_YES : MHD_NO;
    }
    if (q->answered)
        return MHD_YES;
    if (q->spool_fd >= 0 && !q->too_big && !q->spool_failed &&
        zp__journal_spool_sync(s->jrn, q->spool_fd) != ZP_OK) {
        zp__log(ZP__LOG_ERROR, "http.spool_failed", "file=%s error=%s", q->spool, strerror(errno));
        q->spool_failed = true;
    }
    if (q->spool_failed) {
        zp__reply_error(&rep, 503, "spool_failed", "the upload could not be written to the state folder; retry");
        rep.retry_after_s = 1;
    } else if (q->too_big) {
        atomic_fetch_add(&s->rejected_size, 1);
        zp__reply_error(&rep, 413, "payload_too_large", "body is over the limit of %llu bytes",
                        (unsigned long long)q->limit);
    } else if (q->over_budget) {
        atomic_fetch_add(&s->rejected_budget, 1);
        zp__reply_error(&rep, 503, "body_budget",
                        "bodies in flight hold the daemon's budget of %llu bytes (--body-budget); retry",
                        (unsigned long long)s->body_budget);
        rep.retry_after_s = 1;
    } else {
        zp__srv_req r = {.srv = s, .method = method, .path = url,
                         .param = q->m.has_param ? q->m.param : NULL,
                         .body = q->body, .len = q->len, .body_binary = q->binary,
                         .take_body = &q->body, .conn = c,
                         .spool = q->spool_fd >= 0 ? q->spool : NULL, .keep_spool = &q->keep_spool};
        q->m.fn(&rep, &r);
        if (!rep.body && !rep.status)
            zp__reply_error(&rep, 500, "internal", "handler gave no reply");
    }
    if (rep.status >= 500)
        zp__log(ZP__LOG_ERROR, "http.error", "method=%s path=%s status=%u", method, url,
                rep.status);
    q->answered = true;
    return send_reply(s, c, &rep, NULL);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)c, (void)toe;
    zp__srv *s = cls;
    struct request *q = *con_cls;
    if (q) {
        atomic_fetch_sub(&s->active, 1);
        if (q->reserved)
            zp__budget_give(&s->body_bytes, q->reserved);
        if (q->spool_fd >= 0) {
            close(q->spool_fd);
            if (!q->keep_spool)
                zp__journal_spool_remove(s->jrn, q->spool);
        }
        free(q->body);
        free(q);
        *con_cls = NULL;
    }
}

/* Who a connection comes from, for the per-peer cap: an IPv4 address, an
 * IPv6 /64 (one host's share of a typical allocation), or on a unix socket
 * the peer's uid. */
static void peer_key(zp__conn *k, struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = i ? i->client_addr : NULL;
    if (sa && sa->sa_family == AF_INET) {
        k->peer[0] = 4;
        memcpy(k->peer + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        k->peer_len = 5;
    } else if (sa && sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a)) {
            k->peer[0] = 4;
            memcpy(k->peer + 1, a->s6_addr + 12, 4);
            k->peer_len = 5;
        } else {
            k->peer[0] = 6;
            memcpy(k->peer + 1, a->s6_addr, 8);
            k->peer_len = 9;
        }
    } else {
        struct ucred cr = {0};
        socklen_t len = sizeof cr;
        k->peer[0] = 'u';
        if (getsockopt(k->fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0)
            cr.uid = (uid_t)-1;
        memcpy(k->peer + 1, &cr.uid, sizeof cr.uid);
        k->peer_len = 1 + sizeof cr.uid;
    }
}

/* Called by conns under its lock, while the connection still owns its
 * socket (libmicrohttpd tells it closed before it closes the fd): its own
 * thread then reads end-of-file and closes the connection. */
static void evict_conn(void *ctx, zp__conn *k)
{
    (void)ctx;
    shutdown(k->fd, SHUT_RDWR);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx,
                          enum MHD_ConnectionNotificationCode toe)
{
    zp__srv *s = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        atomic_fetch_add(&s->connections, 1);
        atomic_fetch_add(&s->open_conns, 1);
        if (!s->gated)
            return;
        const union MHD_ConnectionInfo *fi = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        zp__conn *k = fi ? calloc(1, sizeof *k) : NULL;
        if (!k) {
            /* Not tracked would mean not limited: refuse instead. */
            if (fi)
                shutdown(fi->connect_fd, SHUT_RDWR);
            return;
        }
        k->fd = fi->connect_fd;
        peer_key(k, c);
        *socket_ctx = k;
        zp__conns_add(&s->conns, k, zp__srv_now());
    } else {
        atomic_fetch_sub(&s->open_conns, 1);
        zp__conn *k = *socket_ctx;
        if (k) {
            zp__conns_remove(&s->conns, k);
            free(k);
            *socket_ctx = NULL;
        }
    }
}

/* Closes the connections still unauthenticated after the header timeout,
 * however slowly they trickle bytes. */
static void reap(void *arg)
{
    zp__srv *s = arg;
    zp__conns_expire(&s->conns, zp__srv_now());
}

/* A few ticks per timeout. */
static bool reaper_start(zp__srv *s)
{
    double tick = s->cfg.header_timeout_s / 4;
    if (tick > 0.25)
        tick = 0.25;
    if (tick < 0.01)
        tick = 0.01;
    return zp__ticker_start(&s->reaper, tick, reap, s);
}

/* The limits as they apply: reserved slots resolved, the budget set. */
static bool resolve_limits(zp__srv *s, char *why, size_t why_len)
{
    const zp__srv_config *cfg = &s->cfg;
    unsigned reserved = cfg->reserved_conns == ZP__SRV_AUTO ? cfg->max_conns / 4 : cfg->reserved_conns;
    if (cfg->max_conns < 2 || reserved >= cfg->max_conns) {
        snprintf(why, why_len, "--reserved-conns (%u) must be below --max-conns (%u)", reserved,
                 cfg->max_conns);
        return false;
    }
    if (!(cfg->header_timeout_s > 0)) {
        snprintf(why, why_len, "--header-timeout must be above 0 seconds");
        return false;
    }
    s->body_budget = cfg->body_budget;
    if (!s->body_budget)
        s->body_budget = cfg->max_body > ((uint64_t)1 << 30) ? cfg->max_body : (uint64_t)1 << 30;
    s->gated = cfg->token && *cfg->token;
    zp__conns_init(&s->conns, cfg->max_conns - reserved, cfg->max_conns_per_peer,
                   cfg->header_timeout_s, evict_conn, s);
    return true;
}

zp_err zp__srv_start(zp__srv **out, const zp__srv_config *cfg, zp_engine *eng, char *why,
                     size_t why_len)
{
    *out = NULL;
    zp__srv *s = calloc(1, sizeof *s);
    if (!s)
        return ZP_E_NOMEM;
    s->cfg = *cfg;
    s->eng = eng;
    pthread_mutex_init(&s->log_mu, NULL);
    s->listen_fd = -1;
    /* A failure undoes what was set up, last first (the labels below). */
    zp_err e = ZP_E_INVALID_ARG;
    if (!zp__listen_parse(&s->addr, cfg->listen, why, why_len))
        goto out_free;
    if (!s->addr.is_unix && (!cfg->token || !*cfg->token)) {
        snprintf(why, why_len, "a TCP listener needs a bearer token (--token or --token-file)");
        goto out_free;
    }
    if (!resolve_limits(s, why, why_len))
        goto out_free;
    if (cfg->state_dir && cfg->queue) {
        snprintf(why, why_len,
                 "a state folder and a shared queue together: the queue is durable already");
        goto out_conns;
    }
    e = ZP_E_NOMEM;
    if (zp__track_init(&s->track, 4096) != ZP_OK)
        goto out_conns;
    /* Before listening: the journal's jobs are queued before new ones. */
    e = zp__state_start(s, why, why_len);
    if (e)
        goto out_track;
    s->listen_fd = zp__listen_open(&s->addr, s->bound, sizeof s->bound, why, why_len);
    if (s->listen_fd < 0) { /* nothing of ours to unlink: the path may be another daemon's */
        e = strstr(why, "already listening") ? ZP_E_EXISTS : ZP_E_IO;
        goto out_state;
    }
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                     MHD_USE_POLL | MHD_USE_ITC | MHD_USE_ERROR_LOG;
    s->mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,
                              MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
                              MHD_OPTION_LISTEN_SOCKET, s->listen_fd,
                              MHD_OPTION_CONNECTION_LIMIT, (unsigned)cfg->max_conns,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)cfg->idle_timeout_s,
                              MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                              MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
                              MHD_OPTION_END);
    e = ZP_E_IO;
    if (!s->mhd) {
        snprintf(why, why_len, "libmicrohttpd did not start on %s", s->bound);
        close(s->listen_fd);
        goto out_unlink;
    }
    if (s->gated && !reaper_start(s)) {
        snprintf(why, why_len, "cannot start the header-timeout thread");
        MHD_stop_daemon(s->mhd);
        goto out_unlink;
    }
    *out = s;
    return ZP_OK;
out_unlink:
    if (s->addr.is_unix)
        unlink(s->addr.path);
out_state:
    zp__state_stop(s);
out_track:
    zp__track_free(&s->track);
out_conns:
    zp__conns_destroy(&s->conns);
out_free:
    free(s);
    return e;
}

const char *zp__srv_address(const zp__srv *s)
{
    return s->bound;
}

void zp__srv_stop(zp__srv *s)
{
    if (!s)
        return;
    atomic_store(&s->draining, true);
    /* No new connections from here on; the socket file goes at once so a
     * new daemon may start while this one drains. */
    int fd = MHD_quiesce_daemon(s->mhd);
    if (fd >= 0)
        close(fd);
    if (s->addr.is_unix)
        unlink(s->addr.path);
    size_t cancelled = zp__track_drain(&s->track, s->eng, s->cfg.grace_s);
    if (cancelled)
        zp__log(ZP__LOG_WARN, "serve.cancelled", "jobs=%zu grace_s=%g", cancelled, s->cfg.grace_s);
    /* Every job is finished now; awaiters answer within one wait slice.
     * Stopping libmicrohttpd aborts answers not yet sent, so first let the
     * requests in progress finish (bounded: a client may stall). */
    atomic_store(&s->closing, true);
    for (int i = 0; i < 1000 && atomic_load(&s->active) > 0; i++)
        usleep(10000);
    if (atomic_load(&s->active) > 0)
        zp__log(ZP__LOG_WARN, "serve.requests_cut", "requests=%llu",
                (unsigned long long)atomic_load(&s->active));
    zp__ticker_stop(&s->reaper);
    MHD_stop_daemon(s->mhd);
    /* Jobs the drain cancelled stay unfinished in the journal: they run
     * again when a daemon starts on the same state folder. */
    zp__state_stop(s);
    zp__conns_destroy(&s->conns);
    pthread_mutex_destroy(&s->log_mu);
    zp__track_free(&s->track);
    free(s);
}
