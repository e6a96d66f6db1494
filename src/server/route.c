/* The route table of the daemon (docs/engine.md, The daemon). */
#include <string.h>

#include "server/server.h"

/* A pattern is a literal path, or one with a single "{}" segment. */
struct route {
    const char *method;
    const char *pattern;
    zp__route_fn fn;
    enum zp__body_kind body;
    const char *allow;  /* every method of this pattern, for 405 */
    bool id_chars;      /* the {} is a job id (also ':'), else a key name */
};

static const struct route routes[] = {
    {"GET", "/healthz", zp__api_healthz, ZP__BODY_NONE, "GET, HEAD", false},
    {"GET", "/metrics", zp__api_metrics, ZP__BODY_NONE, "GET, HEAD", false},
    {"GET", "/v1/status", zp__api_status, ZP__BODY_NONE, "GET, HEAD", false},
    {"GET", "/v1/keys", zp__api_keys, ZP__BODY_NONE, "GET, HEAD", false},
    {"POST", "/v1/jobs", zp__api_submit, ZP__BODY_WITNESS, "POST", false},
    {"GET", "/v1/jobs/{}", zp__api_job_get, ZP__BODY_NONE, "GET, HEAD, DELETE", true},
    {"DELETE", "/v1/jobs/{}", zp__api_job_cancel, ZP__BODY_NONE, "GET, HEAD, DELETE", true},
    {"POST", "/v1/keys/{}/preload", zp__api_key_preload, ZP__BODY_JSON, "POST", false},
    {"POST", "/v1/keys/{}/evict", zp__api_key_evict, ZP__BODY_JSON, "POST", false},
};

static bool name_char(char c, bool id)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-' || (id && c == ':');
}

enum { NO_MATCH, MATCH, BAD_PARAM };

/* Matches path against pattern; the {} part (one segment) goes to param. */
static int match(const char *pattern, const char *path, bool id, char *param, bool *has)
{
    const char *hole = strstr(pattern, "{}");
    if (!hole)
        return strcmp(pattern, path) == 0 ? MATCH : NO_MATCH;
    size_t pre = (size_t)(hole - pattern);
    const char *suffix = hole + 2;
    size_t pl = strlen(path), sl = strlen(suffix);
    if (pl < pre + sl || strncmp(path, pattern, pre) || strcmp(path + pl - sl, suffix))
        return NO_MATCH;
    const char *seg = path + pre;
    size_t n = pl - pre - sl;
    if (memchr(seg, '/', n))
        return NO_MATCH;
    if (n == 0 || n > ZP_JOB_ID_MAX || (!id && n > ZP_NAME_MAX))
        return BAD_PARAM;
    for (size_t i = 0; i < n; i++)
        if (!name_char(seg[i], id))
            return BAD_PARAM;
    memcpy(param, seg, n);
    param[n] = 0;
    *has = true;
    return MATCH;
}

unsigned zp__route(zp__route_match *m, const char *method, const char *path, const char **allow)
{
    memset(m, 0, sizeof *m);
    *allow = NULL;
    /* HEAD is GET without the body; libmicrohttpd drops the body. */
    const char *meth = strcmp(method, "HEAD") == 0 ? "GET" : method;
    unsigned found = 404;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        const struct route *r = &routes[i];
        bool has = false;
        char param[ZP_JOB_ID_MAX + 1];
        int k = match(r->pattern, path, r->id_chars, param, &has);
        if (k == NO_MATCH)
            continue;
        if (k == BAD_PARAM) {
            found = 400;
            continue;
        }
        if (strcmp(r->method, meth) != 0) {
            if (found == 404) {
                found = 405;
                *allow = r->allow;
            }
            continue;
        }
        m->fn = r->fn;
        m->body = r->body;
        m->has_param = has;
        if (has)
            memcpy(m->param, param, sizeof param);
        return 0;
    }
    return found;
}
