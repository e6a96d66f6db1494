/* The queue options of `zkpipe serve` (serve_queue.h). */
#include <stdlib.h>
#include <string.h>

#include "cli/serve_queue.h"
#include "tool/timing.h"

static bool seconds(double *out, const char *v, double lo, double hi)
{
    char *end;
    double s = strtod(v, &end);
    if (end == v || *end || !(s >= lo && s <= hi))
        return false;
    *out = s;
    return true;
}

static bool whole(uint32_t *out, const char *v, double lo, double hi)
{
    double n;
    if (!seconds(&n, v, lo, hi) || n != (double)(uint32_t)n)
        return false;
    *out = (uint32_t)n;
    return true;
}

int zp__serve_queue_opt(zp__fleet_config *q, const char *a, const char *v, const char **msg)
{
    if (!strcmp(a, "--queue")) {
        q->url = v;
        *msg = "--queue wants a postgresql:// URL, got";
        return *v ? 0 : -1;
    }
    if (!strcmp(a, "--queue-spool")) {
        q->spool = v;
        *msg = "--queue-spool wants a folder, got";
        return *v ? 0 : -1;
    }
    if (!strcmp(a, "--queue-heartbeat")) {
        *msg = "--queue-heartbeat wants 0.05..3600 seconds, got";
        return seconds(&q->heartbeat_s, v, 0.05, 3600) ? 0 : -1;
    }
    if (!strcmp(a, "--queue-timeout")) {
        *msg = "--queue-timeout wants 0.2..86400 seconds, got";
        return seconds(&q->claim_timeout_s, v, 0.2, 86400) ? 0 : -1;
    }
    if (!strcmp(a, "--queue-poll")) {
        *msg = "--queue-poll wants 0.01..3600 seconds, got";
        return seconds(&q->poll_s, v, 0.01, 3600) ? 0 : -1;
    }
    if (!strcmp(a, "--queue-backoff")) {
        *msg = "--queue-backoff wants 0..3600 seconds, got";
        return seconds(&q->backoff_s, v, 0, 3600) ? 0 : -1;
    }
    if (!strcmp(a, "--queue-attempts")) {
        *msg = "--queue-attempts wants 1..100, got";
        return whole(&q->max_attempts, v, 1, 100) ? 0 : -1;
    }
    if (!strcmp(a, "--queue-ahead")) {
        *msg = "--queue-ahead wants 0..64 or auto, got";
        if (!strcmp(v, "auto")) {
            q->ahead = ZP__FLEET_AHEAD_AUTO;
            return 0;
        }
        return whole(&q->ahead, v, 0, 64) ? 0 : -1;
    }
    if (!strcmp(a, "--queue-inline")) {
        uint64_t n;
        *msg = "--queue-inline wants a size like 64M (at most 1G), got";
        if (zp__parse_size(v, &n) || n > (1u << 30))
            return -1;
        q->inline_max = n;
        return 0;
    }
    return 1;
}

void zp__serve_queue_print(FILE *f, const zp__fleet_config *q)
{
    if (!q->url)
        return; /* the in-process queue: nothing to set */
    /* postgresql://user:PASSWORD@host/... and password=... are not shown. */
    const char *at = strchr(q->url, '@'), *scheme = strstr(q->url, "://");
    const char *colon = scheme && at ? memchr(scheme + 3, ':', (size_t)(at - scheme - 3)) : NULL;
    if (colon)
        fprintf(f, "queue = %.*s:<redacted>%s\n", (int)(colon - q->url), q->url, at);
    else if (strstr(q->url, "password"))
        fprintf(f, "# queue = <set> (redacted: it holds a password)\n");
    else
        fprintf(f, "queue = %s\n", q->url);
    fprintf(f, "queue-heartbeat = %g\n", q->heartbeat_s);
    fprintf(f, "queue-timeout = %g\n", q->claim_timeout_s);
    fprintf(f, "queue-poll = %g\n", q->poll_s);
    fprintf(f, "queue-attempts = %u\n", q->max_attempts);
    fprintf(f, "queue-backoff = %g\n", q->backoff_s);
    if (q->ahead == ZP__FLEET_AHEAD_AUTO)
        fprintf(f, "queue-ahead = auto\n");
    else
        fprintf(f, "queue-ahead = %u\n", q->ahead);
    fprintf(f, "queue-inline = %llu\n", (unsigned long long)q->inline_max);
    if (q->spool)
        fprintf(f, "queue-spool = %s\n", q->spool);
}
