/*
 * A small HTTP/1.1 client for the daemon: one request per connection over a
 * unix or TCP socket, Content-Length or chunked bodies both ways, bounded
 * responses. Bodies are sent after "Expect: 100-continue" so that an early
 * refusal (401, 413) is read before megabytes are pushed at a server that
 * will not read them.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "client/client.h"

#define HEAD_MAX 65536

static bool io_fail(char *why, size_t n, const char *fmt, const char *arg)
{
    snprintf(why, n, fmt, arg ? arg : "", strerror(errno));
    return false;
}

bool zp__cli_addr_parse(zp__cli_addr *out, const char *spec, char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    const char *hp = NULL;
    if (!strncmp(spec, "unix://", 7) || !strncmp(spec, "unix:", 5)) {
        const char *p = spec + (strncmp(spec, "unix://", 7) ? 5 : 7);
        if (!*p || strlen(p) >= sizeof out->path) {
            snprintf(why, n, "bad unix socket path in '%s'", spec);
            return false;
        }
        out->is_unix = true;
        strcpy(out->path, p);
        return true;
    }
    if (!strncmp(spec, "http://", 7))
        hp = spec + 7;
    else if (!strncmp(spec, "tcp://", 6))
        hp = spec + 6;
    if (!hp) {
        snprintf(why, n, "address '%s' must start with unix://, http:// or tcp://", spec);
        return false;
    }
    size_t hl = strcspn(hp, "/");
    const char *colon = NULL;
    if (hp[0] == '[') {
        const char *close = memchr(hp, ']', hl);
        colon = close && close[1] == ':' ? close + 1 : NULL;
    } else {
        colon = memchr(hp, ':', hl);
    }
    size_t host_len = colon ? (size_t)(colon - hp) : 0;
    size_t port_len = colon ? hl - host_len - 1 : 0;
    if (!colon || host_len == 0 || host_len >= sizeof out->host || port_len == 0 ||
        port_len >= sizeof out->port) {
        snprintf(why, n, "address '%s' must be host:port", spec);
        return false;
    }
    if (hp[0] == '[')
        memcpy(out->host, hp + 1, host_len - 2);
    else
        memcpy(out->host, hp, host_len);
    memcpy(out->port, colon + 1, port_len);
    return true;
}

void zp__http_resp_free(zp__http_resp *r)
{
    free(r->body);
    memset(r, 0, sizeof *r);
}

static void set_timeouts(int fd, double s)
{
    struct timeval tv = {.tv_sec = (time_t)s, .tv_usec = (suseconds_t)((s - (double)(time_t)s) * 1e6)};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static int dial(const zp__cli_addr *a, double timeout_s, char *why, size_t n)
{
    if (a->is_unix) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        strcpy(sa.sun_path, a->path);
        if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
            io_fail(why, n, "cannot connect to unix://%s: %s", a->path);
            if (fd >= 0)
                close(fd);
            return -1;
        }
        set_timeouts(fd, timeout_s);
        return fd;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    int gai = getaddrinfo(a->host, a->port, &hints, &res);
    if (gai != 0) {
        snprintf(why, n, "cannot resolve %s: %s", a->host, gai_strerror(gai));
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        set_timeouts(fd, timeout_s);
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            io_fail(why, n, "cannot connect to %s: %s", a->host);
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}

/* All of p, or false (EPIPE and ECONNRESET included: the server may have
 * answered already and closed; the caller still reads the answer). */
static bool send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        c += k;
        n -= (size_t)k;
    }
    return true;
}

static bool send_chunk(int fd, const void *p, size_t n, bool chunked)
{
    if (!chunked)
        return send_all(fd, p, n);
    char head[32];
    int hl = snprintf(head, sizeof head, "%zx\r\n", n);
    return send_all(fd, head, (size_t)hl) && send_all(fd, p, n) && send_all(fd, "\r\n", 2);
}

static bool send_body(int fd, const zp__http_body *b)
{
    bool ok = true;
    if (b->fd < 0) {
        /* Chunks of 64 KiB so that chunked mode has several chunks. */
        for (size_t off = 0; ok && off < b->len; off += 65536) {
            size_t k = b->len - off < 65536 ? b->len - off : 65536;
            ok = send_chunk(fd, (const char *)b->data + off, k, b->chunked);
        }
    } else {
        static char buf[1 << 16];
        for (size_t left = b->len; ok && left;) {
            ssize_t k = read(b->fd, buf, left < sizeof buf ? left : sizeof buf);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                return false;
            ok = send_chunk(fd, buf, (size_t)k, b->chunked);
            left -= (size_t)k;
        }
    }
    return ok && (!b->chunked || send_all(fd, "0\r\n\r\n", 5));
}

/* A buffered reader over the socket. */
struct rd {
    int fd;
    size_t pos, len;
    char buf[8192];
};

static int rd_byte(struct rd *r)
{
    if (r->pos == r->len) {
        ssize_t k;
        do
            k = recv(r->fd, r->buf, sizeof r->buf, 0);
        while (k < 0 && errno == EINTR);
        if (k <= 0)
            return -1;
        r->pos = 0;
        r->len = (size_t)k;
    }
    return (unsigned char)r->buf[r->pos++];
}

/* One line without its CR LF; false at EOF or past cap - 1 bytes. */
static bool rd_line(struct rd *r, char *out, size_t cap)
{
    size_t n = 0;
    for (;;) {
        int c = rd_byte(r);
        if (c < 0 || n + 1 >= cap)
            return false;
        if (c == '\n')
            break;
        out[n++] = (char)c;
    }
    if (n && out[n - 1] == '\r')
        n--;
    out[n] = 0;
    return true;
}

static bool rd_n(struct rd *r, char *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int c = rd_byte(r);
        if (c < 0)
            return false;
        out[i] = (char)c;
    }
    return true;
}

struct head {
    int status;
    bool chunked, has_len;
    size_t len;
};

/* Status line and headers. */
static bool read_head(struct rd *r, struct head *h, zp__http_resp *out, char *why, size_t n)
{
    char line[4096];
    memset(h, 0, sizeof *h);
    if (!rd_line(r, line, sizeof line)) {
        snprintf(why, n, "no response (connection closed or timed out)");
        return false;
    }
    if (strncmp(line, "HTTP/1.", 7) || strlen(line) < 12 || line[8] != ' ') {
        snprintf(why, n, "not an HTTP/1.x response: '%.60s'", line);
        return false;
    }
    h->status = atoi(line + 9);
    for (size_t total = 0;;) {
        if (!rd_line(r, line, sizeof line) || (total += strlen(line)) > HEAD_MAX) {
            snprintf(why, n, "response headers cut short or too long");
            return false;
        }
        if (!line[0])
            return true;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = 0;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        if (!strcasecmp(line, "Content-Length")) {
            h->has_len = true;
            h->len = strtoull(v, NULL, 10);
        } else if (!strcasecmp(line, "Transfer-Encoding")) {
            /* chunked, when used, is the last coding applied */
            size_t vl = strlen(v);
            while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
                vl--;
            h->chunked = vl >= 7 && !strncasecmp(v + vl - 7, "chunked", 7);
        } else if (!strcasecmp(line, "Content-Type")) {
            snprintf(out->ctype, sizeof out->ctype, "%s", v);
        }
    }
}

static bool grow_append(zp__http_resp *out, struct rd *r, size_t n, size_t max, char *why, size_t wn)
{
    if (n > max - out->len) {
        snprintf(why, wn, "response body over %zu bytes", max);
        return false;
    }
    char *nb = realloc(out->body, out->len + n + 1);
    if (!nb) {
        snprintf(why, wn, "out of memory for the response");
        return false;
    }
    out->body = nb;
    if (!rd_n(r, out->body + out->len, n)) {
        snprintf(why, wn, "response body cut short");
        return false;
    }
    out->len += n;
    out->body[out->len] = 0;
    return true;
}

static bool read_body(struct rd *r, const struct head *h, zp__http_resp *out, size_t max, char *why,
                      size_t n)
{
    out->body = calloc(1, 1);
    if (!out->body)
        return false;
    if (h->chunked) {
        char line[256];
        for (;;) {
            if (!rd_line(r, line, sizeof line)) {
                snprintf(why, n, "chunked response cut short");
                return false;
            }
            size_t k = strtoull(line, NULL, 16);
            if (k == 0)
                break;
            if (!grow_append(out, r, k, max, why, n) || !rd_line(r, line, sizeof line))
                return false;
        }
        while (rd_line(r, line, sizeof line) && line[0]) /* trailers */
            ;
        return true;
    }
    if (h->has_len)
        return grow_append(out, r, h->len, max, why, n);
    for (;;) { /* until the server closes */
        int c = rd_byte(r);
        if (c < 0)
            return true;
        r->pos--;
        if (!grow_append(out, r, r->len - r->pos, max, why, n))
            return false;
    }
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

static int request_head(char *head, size_t cap, const zp__cli_addr *a, const char *token,
                        const char *method, const char *target, const zp__http_body *body)
{
    char tgt[2048];
    pct(tgt, sizeof tgt, target);
    int k = snprintf(head, cap, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: zkpipe\r\nConnection: close\r\n",
                     method, tgt, a->is_unix ? "localhost" : a->host);
    if (token && *token)
        k += snprintf(head + k, cap - (size_t)k, "Authorization: Bearer %s\r\n", token);
    if (body) {
        k += snprintf(head + k, cap - (size_t)k, "Content-Type: %s\r\nExpect: 100-continue\r\n",
                      body->ctype ? body->ctype : "application/json");
        if (body->chunked)
            k += snprintf(head + k, cap - (size_t)k, "Transfer-Encoding: chunked\r\n");
        else
            k += snprintf(head + k, cap - (size_t)k, "Content-Length: %zu\r\n", body->len);
    }
    k += snprintf(head + k, cap - (size_t)k, "\r\n");
    return k < (int)cap ? k : -1;
}

bool zp__http_do(zp__http_resp *out, const zp__cli_addr *a, const char *token, const char *method,
                 const char *target, const zp__http_body *body, double timeout_s, size_t max_resp,
                 char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    char head[4096];
    int hl = request_head(head, sizeof head, a, token, method, target, body);
    if (hl < 0) {
        snprintf(why, n, "request head too long");
        return false;
    }
    int fd = dial(a, timeout_s, why, n);
    if (fd < 0)
        return false;
    struct rd *r = calloc(1, sizeof *r);
    struct head h;
    bool ok = r && send_all(fd, head, (size_t)hl);
    if (r)
        r->fd = fd;
    if (ok && body) {
        /* Wait briefly for "100 Continue" or an early final answer; a
         * server that says nothing gets the body anyway (RFC 9110). */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        bool early = poll(&p, 1, 2000) == 1;
        if (early) {
            ok = read_head(r, &h, out, why, n);
            early = ok && h.status != 100;
        }
        if (ok && !early)
            send_body(fd, body); /* a failed send still leaves an answer to read */
        if (ok && !early)
            ok = read_head(r, &h, out, why, n);
    } else if (ok) {
        ok = read_head(r, &h, out, why, n);
    } else {
        io_fail(why, n, "cannot send the request%s: %s", NULL);
    }
    while (ok && h.status == 100) /* an unsolicited interim answer */
        ok = read_head(r, &h, out, why, n);
    if (ok && (!strcmp(method, "HEAD") || h.status == 204 || h.status == 304)) {
        out->body = calloc(1, 1); /* no body, whatever Content-Length says */
        ok = out->body != NULL;
    } else {
        ok = ok && read_body(r, &h, out, max_resp, why, n);
    }
    if (ok)
        out->status = h.status;
    else
        zp__http_resp_free(out);
    free(r);
    close(fd);
    return ok;
}
