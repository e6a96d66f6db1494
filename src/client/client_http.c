/*
 * The client's HTTP/1.1 transport over libcurl: one request per easy handle
 * (a fresh connection) over a unix socket (CURLOPT_UNIX_SOCKET_PATH) or
 * TCP. Request bodies stream from memory or from a file through a read
 * callback, with Content-Length or chunked; a body is sent after
 * "Expect: 100-continue", so that an early refusal (401, 413) is read
 * before megabytes are pushed at a server that will not read them.
 * Responses are bounded: the write callback refuses the byte past the
 * bound. No proxy, no redirects: the address is the daemon.
 */
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"

/* How long a body waits for "100 Continue" before it is sent anyway (at
 * most half the timeout, which that silence counts against): a server that
 * says nothing still gets it (RFC 9110). */
#define EXPECT_WAIT_MS 2000L

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

/* curl_global_init is not thread-safe in every libcurl, and the client
 * runs in several threads at once (bench batch --addr). Never cleaned up:
 * the process ends first. */
static void curl_init_once(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* One exchange: the body going out, the response coming in, and what
 * ended it when it failed. */
typedef struct xfer {
    const zp__http_body *body;
    size_t sent;
    off_t fd_start;
    int read_errno;         /* reading the body's file failed (0: it ended early) */
    bool read_failed;
    zp__http_resp *out;
    size_t cap, max;
    bool too_big, no_memory;
    double timeout_s, last_move;
    curl_off_t moved;       /* bytes up plus down at last_move */
    bool timed_out;
} xfer;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static size_t read_body(char *buf, size_t size, size_t nitems, void *p)
{
    xfer *x = p;
    const zp__http_body *b = x->body;
    size_t want = size * nitems, left = b->len - x->sent;
    if (want > left)
        want = left;
    if (!want)
        return 0;
    if (b->fd < 0) {
        memcpy(buf, (const char *)b->data + x->sent, want);
    } else {
        ssize_t k;
        do
            k = read(b->fd, buf, want);
        while (k < 0 && errno == EINTR);
        if (k <= 0) {
            x->read_errno = k < 0 ? errno : 0;
            x->read_failed = true;
            return CURL_READFUNC_ABORT;
        }
        want = (size_t)k;
    }
    x->sent += want;
    return want;
}

/* curl rewinds the body when it must send it again (a 417 answer to the
 * Expect header, say). */
static int seek_body(void *p, curl_off_t offset, int origin)
{
    xfer *x = p;
    if (origin != SEEK_SET || offset < 0 || (size_t)offset > x->body->len)
        return CURL_SEEKFUNC_FAIL;
    if (x->body->fd >= 0 && lseek(x->body->fd, x->fd_start + (off_t)offset, SEEK_SET) < 0)
        return CURL_SEEKFUNC_CANTSEEK;
    x->sent = (size_t)offset;
    return CURL_SEEKFUNC_OK;
}

static size_t write_resp(char *p, size_t size, size_t nmemb, void *arg)
{
    xfer *x = arg;
    zp__http_resp *r = x->out;
    size_t n = size * nmemb;
    if (n > x->max - r->len) {
        x->too_big = true;
        return 0;
    }
    if (r->len + n + 1 > x->cap) {
        size_t cap = x->cap ? x->cap : 4096;
        while (cap < r->len + n + 1)
            cap *= 2;
        char *nb = realloc(r->body, cap);
        if (!nb) {
            x->no_memory = true;
            return 0;
        }
        r->body = nb;
        x->cap = cap;
    }
    memcpy(r->body + r->len, p, n);
    r->len += n;
    r->body[r->len] = 0;
    return n;
}

/* The idle timeout: fails the exchange when no byte has moved either way
 * for timeout_s (a long poll passes its wait in timeout_s). curl calls
 * this about once a second even when nothing moves. */
static int progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    (void)dltotal;
    (void)ultotal;
    xfer *x = arg;
    double t = now_s();
    if (dlnow + ulnow != x->moved) {
        x->moved = dlnow + ulnow;
        x->last_move = t;
    }
    if (t - x->last_move <= x->timeout_s)
        return 0;
    x->timed_out = true;
    return 1;
}

/* Query-safe percent-encoding of unreserved characters only. */
static void pct(char *out, size_t cap, const char *s)
{
    size_t o = 0;
    for (; *s && o + 4 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
            c == '.' || c == '_' || c == '~' || c == '/' || c == '?' || c == '=' || c == '&' || c == ':')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, cap - o, "%%%02X", c);
    }
    out[o] = 0;
}

/* The address as the user writes it, for messages. */
static void addr_name(char *out, size_t cap, const zp__cli_addr *a)
{
    if (a->is_unix)
        snprintf(out, cap, "unix://%s", a->path);
    else
        snprintf(out, cap, strchr(a->host, ':') ? "http://[%s]:%s" : "http://%s:%s", a->host, a->port);
}

/* The request URL: the unix socket's requests go to http://localhost. */
static bool request_url(char *url, size_t cap, const zp__cli_addr *a, const char *target)
{
    char tgt[2048];
    pct(tgt, sizeof tgt, target);
    const char *slash = tgt[0] == '/' ? "" : "/";
    int k = a->is_unix ? snprintf(url, cap, "http://localhost%s%s", slash, tgt)
                       : snprintf(url, cap, strchr(a->host, ':') ? "http://[%s]:%s%s%s" : "http://%s:%s%s%s",
                                  a->host, a->port, slash, tgt);
    return k > 0 && (size_t)k < cap;
}

static struct curl_slist *request_headers(const char *token, const zp__http_body *body, bool *ok)
{
    char auth[600], ctype[300];
    const char *lines[4];
    int n = 0;
    if (token && *token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        lines[n++] = auth;
    }
    if (body) {
        snprintf(ctype, sizeof ctype, "Content-Type: %s", body->ctype ? body->ctype : "application/json");
        lines[n++] = ctype;
        lines[n++] = "Expect: 100-continue";
        if (body->chunked)
            lines[n++] = "Transfer-Encoding: chunked";
    }
    struct curl_slist *h = NULL;
    for (int i = 0; i < n; i++) {
        struct curl_slist *t = curl_slist_append(h, lines[i]);
        if (!t) {
            curl_slist_free_all(h);
            *ok = false;
            return NULL;
        }
        h = t;
    }
    *ok = true;
    return h;
}

/* The options that make one request; false when curl refuses one. */
static bool set_request(CURL *c, xfer *x, const char *url, const zp__cli_addr *a, const char *method,
                        const zp__http_body *body, struct curl_slist *headers, char *err)
{
    long connect_ms = x->timeout_s * 1000 < 1 ? 1 : (long)(x->timeout_s * 1000);
    long expect_ms = connect_ms / 2 < EXPECT_WAIT_MS ? connect_ms / 2 : EXPECT_WAIT_MS;
    bool ok = curl_easy_setopt(c, CURLOPT_URL, url) == CURLE_OK;
    ok = ok && curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err) == CURLE_OK;
    if (a->is_unix)
        ok = ok && curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, a->path) == CURLE_OK;
    ok = ok && curl_easy_setopt(c, CURLOPT_PROXY, "") == CURLE_OK; /* not $http_proxy */
    ok = ok && curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) == CURLE_OK;
    ok = ok && curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1) == CURLE_OK;
    ok = ok && curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L) == CURLE_OK;
    ok = ok && curl_easy_setopt(c, CURLOPT_USERAGENT, "zkpipe") == CURLE_OK;
    ok = ok && curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers) == CURLE_OK;
    ok = ok && curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, connect_ms) == CURLE_OK;
    ok = ok && curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L) == CURLE_OK;
    ok = ok && curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress) == CURLE_OK;
    ok = ok && curl_easy_setopt(c, CURLOPT_XFERINFODATA, x) == CURLE_OK;
    ok = ok && curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_resp) == CURLE_OK;
    ok = ok && curl_easy_setopt(c, CURLOPT_WRITEDATA, x) == CURLE_OK;
    if (x->max < (size_t)INT64_MAX)
        ok = ok && curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)x->max) == CURLE_OK;
    if (body) {
        ok = ok && curl_easy_setopt(c, CURLOPT_POST, 1L) == CURLE_OK;
        ok = ok && curl_easy_setopt(c, CURLOPT_READFUNCTION, read_body) == CURLE_OK;
        ok = ok && curl_easy_setopt(c, CURLOPT_READDATA, x) == CURLE_OK;
        ok = ok && curl_easy_setopt(c, CURLOPT_SEEKFUNCTION, seek_body) == CURLE_OK;
        ok = ok && curl_easy_setopt(c, CURLOPT_SEEKDATA, x) == CURLE_OK;
        ok = ok && curl_easy_setopt(c, CURLOPT_EXPECT_100_TIMEOUT_MS, expect_ms) == CURLE_OK;
        if (!body->chunked)
            ok = ok && curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body->len) == CURLE_OK;
        if (strcmp(method, "POST"))
            ok = ok && curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method) == CURLE_OK;
    } else if (!strcmp(method, "HEAD")) {
        ok = ok && curl_easy_setopt(c, CURLOPT_NOBODY, 1L) == CURLE_OK;
    } else if (strcmp(method, "GET")) {
        ok = ok && curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method) == CURLE_OK;
    }
    return ok;
}

/* why for a failed exchange: what went wrong, naming the address. os_errno
 * is the system's reason for a failed connect (0: none). */
static void explain(char *why, size_t n, CURLcode rc, const xfer *x, const char *addr, const char *err,
                    long os_errno)
{
    const char *what = err[0] ? err : curl_easy_strerror(rc);
    if (x->too_big || rc == CURLE_FILESIZE_EXCEEDED)
        snprintf(why, n, "the response from %s is over %zu bytes", addr, x->max);
    else if (x->no_memory)
        snprintf(why, n, "out of memory for the response from %s", addr);
    else if (x->read_failed)
        snprintf(why, n, "cannot read the request body: %s",
                 x->read_errno ? strerror(x->read_errno) : "the file ended early");
    else if (x->timed_out)
        snprintf(why, n, "nothing moved to or from %s for %g s (timed out)", addr, x->timeout_s);
    else if (rc == CURLE_OPERATION_TIMEDOUT)
        snprintf(why, n, "cannot connect to %s within %g s", addr, x->timeout_s);
    else if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST)
        snprintf(why, n, "cannot connect to %s: %s", addr,
                 rc == CURLE_COULDNT_CONNECT && os_errno ? strerror((int)os_errno) : what);
    else if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_WEIRD_SERVER_REPLY)
        snprintf(why, n, "%s did not answer in HTTP/1.x (%s)", addr, what);
    else
        snprintf(why, n, "HTTP exchange with %s failed: %s", addr, what);
}

bool zp__http_do(zp__http_resp *out, const zp__cli_addr *a, const char *token, const char *method,
                 const char *target, const zp__http_body *body, double timeout_s, size_t max_resp,
                 char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    char addr[400], url[2400], err[CURL_ERROR_SIZE] = "";
    addr_name(addr, sizeof addr, a);
    if (!request_url(url, sizeof url, a, target)) {
        snprintf(why, n, "request target too long");
        return false;
    }
    pthread_once(&curl_once, curl_init_once);
    if (curl_init_rc != CURLE_OK) {
        snprintf(why, n, "cannot initialise libcurl: %s", curl_easy_strerror(curl_init_rc));
        return false;
    }
    xfer x = {.body = body, .out = out, .max = max_resp, .timeout_s = timeout_s, .last_move = now_s()};
    if (body && body->fd >= 0)
        x.fd_start = lseek(body->fd, 0, SEEK_CUR);
    bool ok;
    struct curl_slist *headers = request_headers(token, body, &ok);
    CURL *c = ok ? curl_easy_init() : NULL;
    if (!c || !set_request(c, &x, url, a, method, body, headers, err)) {
        snprintf(why, n, "cannot set up the request to %s%s%s", addr, err[0] ? ": " : "", err);
        ok = false;
    } else {
        CURLcode rc = curl_easy_perform(c);
        char *ctype = NULL;
        long status = 0, os_errno = 0;
        ok = rc == CURLE_OK && curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK;
        if (ok && curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ctype) == CURLE_OK && ctype)
            snprintf(out->ctype, sizeof out->ctype, "%s", ctype);
        if (ok && !out->body && !(out->body = calloc(1, 1))) {
            x.no_memory = true;
            ok = false;
        }
        if (ok) {
            out->status = (int)status;
        } else {
            if (curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &os_errno) != CURLE_OK)
                os_errno = 0;
            explain(why, n, rc, &x, addr, err, os_errno);
        }
    }
    if (c)
        curl_easy_cleanup(c);
    curl_slist_free_all(headers);
    if (!ok)
        zp__http_resp_free(out);
    return ok;
}
