/* The daemon's listening socket: address parsing, unix socket hygiene, TCP. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "server/server.h"

static bool listen_fail(char *why, size_t n, const char *msg, const char *arg)
{
    snprintf(why, n, "%s%s%s", msg, arg ? ": " : "", arg ? arg : "");
    return false;
}

static bool parse_tcp(zp__listen_addr *out, const char *hp, char *why, size_t n)
{
    const char *colon;
    if (hp[0] == '[') { /* [v6]:port */
        const char *close = strchr(hp, ']');
        if (!close || close[1] != ':')
            return listen_fail(why, n, "expected tcp://[v6-address]:port", hp);
        size_t hl = (size_t)(close - hp - 1);
        if (hl == 0 || hl >= sizeof out->host)
            return listen_fail(why, n, "bad host", hp);
        memcpy(out->host, hp + 1, hl);
        out->host[hl] = 0;
        colon = close + 1;
    } else {
        colon = strrchr(hp, ':');
        if (!colon || colon == hp)
            return listen_fail(why, n, "expected tcp://host:port", hp);
        size_t hl = (size_t)(colon - hp);
        if (hl >= sizeof out->host || memchr(hp, ':', hl))
            return listen_fail(why, n, "bad host (put IPv6 addresses in brackets)", hp);
        memcpy(out->host, hp, hl);
        out->host[hl] = 0;
    }
    const char *port = colon + 1;
    size_t pl = strlen(port);
    if (pl == 0 || pl > 5 || strspn(port, "0123456789") != pl || atoi(port) > 65535)
        return listen_fail(why, n, "bad port", port);
    memcpy(out->port, port, pl + 1);
    return true;
}

bool zp__listen_parse(zp__listen_addr *out, const char *spec, char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    if (!spec || !*spec)
        return listen_fail(why, n, "empty listen address", NULL);
    if (!strncmp(spec, "unix://", 7) || !strncmp(spec, "unix:", 5)) {
        const char *p = spec + (strncmp(spec, "unix://", 7) ? 5 : 7);
        size_t pl = strlen(p);
        if (pl == 0)
            return listen_fail(why, n, "empty unix socket path", spec);
        if (pl >= sizeof out->path)
            return listen_fail(why, n, "unix socket path longer than 107 bytes", spec);
        out->is_unix = true;
        memcpy(out->path, p, pl + 1);
        return true;
    }
    if (!strncmp(spec, "tcp://", 6))
        return parse_tcp(out, spec + 6, why, n);
    return listen_fail(why, n, "listen address must start with unix:// or tcp://", spec);
}

/* A socket file at path: is somebody accepting on it? */
static bool unix_alive(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path, path, strlen(path) + 1);
    bool alive = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    close(fd);
    return alive;
}

static int open_unix(const zp__listen_addr *a, char *bound, size_t bl, char *why, size_t n)
{
    struct stat st;
    if (lstat(a->path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            listen_fail(why, n, "refusing to replace a file that is not a socket", a->path);
            return -1;
        }
        if (unix_alive(a->path)) {
            listen_fail(why, n, "another daemon is already listening on", a->path);
            errno = EADDRINUSE;
            return -1;
        }
        /* Left behind by a daemon that died without cleaning up. */
        if (unlink(a->path) != 0) {
            snprintf(why, n, "cannot remove stale socket %s: %s", a->path, strerror(errno));
            return -1;
        }
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, n, "socket: %s", strerror(errno));
        return -1;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path, a->path, strlen(a->path) + 1);
    /* The socket is the daemon's front door: no moment where another user
     * could connect, so the mode is set by umask at creation, then again
     * explicitly in case the umask was already looser in some way. */
    mode_t old = umask(0177);
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    int bind_errno = errno;
    umask(old);
    if (rc != 0) {
        snprintf(why, n, "bind %s: %s", a->path, strerror(bind_errno));
        close(fd);
        return -1;
    }
    if (chmod(a->path, 0600) != 0 || listen(fd, 128) != 0) {
        snprintf(why, n, "listen on %s: %s", a->path, strerror(errno));
        close(fd);
        unlink(a->path);
        return -1;
    }
    snprintf(bound, bl, "unix://%s", a->path);
    return fd;
}

static void describe_tcp(char *bound, size_t bl, int fd)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char host[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET) {
            struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &s4->sin_addr, host, sizeof host);
            port = ntohs(s4->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof host);
            port = ntohs(s6->sin6_port);
            snprintf(bound, bl, "tcp://[%s]:%u", host, port);
            return;
        }
    }
    snprintf(bound, bl, "tcp://%s:%u", host, port);
}

static int open_tcp(const zp__listen_addr *a, char *bound, size_t bl, char *why, size_t n)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    int gai = getaddrinfo(a->host, a->port, &hints, &res);
    if (gai != 0) {
        snprintf(why, n, "cannot resolve %s: %s", a->host, gai_strerror(gai));
        return -1;
    }
    int fd = -1;
    snprintf(why, n, "no address of %s to bind", a->host);
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 128) != 0) {
            snprintf(why, n, "bind %s:%s: %s", a->host, a->port, strerror(errno));
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd >= 0)
        describe_tcp(bound, bl, fd);
    return fd;
}

int zp__listen_open(const zp__listen_addr *a, char *bound, size_t bl, char *why, size_t n)
{
    return a->is_unix ? open_unix(a, bound, bl, why, n) : open_tcp(a, bound, bl, why, n);
}
