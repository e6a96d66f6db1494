/*
 * What the client's transport (client_http.c, over libcurl) and its
 * stand-in for builds without libcurl (client_http_none.c) share: the
 * daemon's address and the response's lifetime.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"

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
