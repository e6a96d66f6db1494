/* Stage timelines: a ring of events, Chrome trace JSON, TIMELINE lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/trace.h"
#include "engine/util.h"

static const char *const stage_names[ZP__ST_ALL] = {
    "acquire", "eval",   "h",      "msm",    "finish", "verify",
    "msm_h",   "msm_a",  "msm_b1", "msm_b2", "msm_l",  "msm_wait",
};

const char *zp__stage_name(zp__stage s)
{
    return (unsigned)s < ZP__ST_ALL ? stage_names[s] : "?";
}

zp_err zp__trace_init(zp__trace *t, uint32_t cap, uint32_t n_lanes,
                      void (*log)(void *ctx, const char *line), void *log_ctx)
{
    memset(t, 0, sizeof *t);
    if (cap) {
        t->ring = calloc(cap, sizeof *t->ring);
        if (!t->ring)
            return ZP_E_NOMEM;
    }
    t->lanes = calloc(n_lanes ? n_lanes : 1, sizeof *t->lanes);
    if (!t->lanes) {
        free(t->ring);
        t->ring = NULL;
        return ZP_E_NOMEM;
    }
    t->cap = cap;
    t->n_lanes = n_lanes;
    t->log = log;
    t->log_ctx = log_ctx;
    pthread_mutex_init(&t->mu, NULL);
    return ZP_OK;
}

void zp__trace_free(zp__trace *t)
{
    if (!t->lanes)
        return;
    pthread_mutex_destroy(&t->mu);
    free(t->ring);
    free(t->lanes);
    memset(t, 0, sizeof *t);
}

void zp__trace_set_lane(zp__trace *t, uint32_t lane, const char *name)
{
    if (lane < t->n_lanes)
        snprintf(t->lanes[lane], ZP__LANE_NAME, "%s", name);
}

static void log_line(zp__trace *t, double at, const char *event, const char *job,
                     int64_t part)
{
    char line[ZP_JOB_ID_MAX + 96];
    if (part < 0)
        snprintf(line, sizeof line, "TIMELINE,%.3f,%s,%s,-", at * 1e3, event, job);
    else
        snprintf(line, sizeof line, "TIMELINE,%.3f,%s,%s,%lld", at * 1e3, event, job,
                 (long long)part);
    t->log(t->log_ctx, line);
}

void zp__trace_log(zp__trace *t, double at, const char *event, const char *job, int64_t part)
{
    if (t->log)
        log_line(t, at, event, job, part);
}

void zp__trace_add(zp__trace *t, uint32_t lane, zp__stage stage, const char *job,
                   uint32_t part, double t0, double t1)
{
    zp__trace_add_io(t, lane, stage, job, part, t0, t1, NULL);
}

void zp__trace_add_io(zp__trace *t, uint32_t lane, zp__stage stage, const char *job,
                      uint32_t part, double t0, double t1, const zp__trace_io *io)
{
    if (t->log) {
        char ev[32];
        snprintf(ev, sizeof ev, "%s.begin", zp__stage_name(stage));
        log_line(t, t0, ev, job, part);
        snprintf(ev, sizeof ev, "%s.end", zp__stage_name(stage));
        log_line(t, t1, ev, job, part);
    }
    if (!t->cap)
        return;
    pthread_mutex_lock(&t->mu);
    zp__trace_ev *e;
    if (t->n < t->cap) {
        e = &t->ring[(t->head + t->n) % t->cap];
        t->n++;
    } else {
        e = &t->ring[t->head];
        t->head = (t->head + 1) % t->cap;
        t->dropped++;
    }
    e->t0 = t0;
    e->t1 = t1 < t0 ? t0 : t1;
    e->part = part;
    e->lane = (uint16_t)lane;
    e->stage = (uint8_t)stage;
    e->has_io = io != NULL;
    e->io = io ? *io : (zp__trace_io){0, 0};
    snprintf(e->job, sizeof e->job, "%s", job);
    pthread_mutex_unlock(&t->mu);
}

/* A copy of the kept events, oldest first, so export does not hold the
 * lock while formatting. */
static zp_err snapshot(zp__trace *t, zp__trace_ev **out, uint32_t *n)
{
    pthread_mutex_lock(&t->mu);
    *n = t->n;
    *out = malloc((t->n ? t->n : 1) * sizeof **out);
    if (*out) {
        for (uint32_t i = 0; i < t->n; i++)
            (*out)[i] = t->ring[(t->head + i) % t->cap];
    }
    pthread_mutex_unlock(&t->mu);
    return *out ? ZP_OK : ZP_E_NOMEM;
}

static void json_meta(zp__sb *sb, zp__trace *t)
{
    zp__sb_puts(sb, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
                    "\"args\":{\"name\":\"zkpipe\"}}");
    for (uint32_t i = 0; i < t->n_lanes; i++) {
        zp__sb_printf(sb, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
                          "\"args\":{\"name\":",
                      i);
        zp__sb_json_str(sb, t->lanes[i], strlen(t->lanes[i]));
        zp__sb_puts(sb, "}}");
    }
}

zp_err zp__trace_json(zp__trace *t, char **out, size_t *len)
{
    zp__trace_ev *ev;
    uint32_t n;
    if (snapshot(t, &ev, &n))
        return ZP_E_NOMEM;
    zp__sb sb = {0};
    zp__sb_puts(&sb, "{\"traceEvents\":[\n");
    json_meta(&sb, t);
    for (uint32_t i = 0; i < n; i++) {
        const zp__trace_ev *e = &ev[i];
        zp__sb_printf(&sb,
                      ",\n{\"name\":\"%s\",\"cat\":\"partition\",\"ph\":\"X\",\"pid\":1,"
                      "\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"job\":",
                      zp__stage_name((zp__stage)e->stage), e->lane, e->t0 * 1e6,
                      (e->t1 - e->t0) * 1e6);
        zp__sb_json_str(&sb, e->job, strlen(e->job));
        zp__sb_printf(&sb, ",\"partition\":%u", e->part);
        if (e->has_io)
            zp__sb_printf(&sb, ",\"h2d_bytes\":%llu,\"streamed_bytes\":%llu",
                          (unsigned long long)e->io.h2d, (unsigned long long)e->io.streamed);
        zp__sb_puts(&sb, "}}");
    }
    zp__sb_puts(&sb, "\n],\"displayTimeUnit\":\"ms\"}\n");
    free(ev);
    return zp__sb_finish(&sb, out, len);
}

typedef struct tl_item {
    double at;
    uint32_t ev;  /* index into the snapshot */
    bool end;
} tl_item;

static int tl_cmp(const void *a, const void *b)
{
    const tl_item *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    if (x->ev != y->ev)
        return x->ev < y->ev ? -1 : 1;
    return (int)x->end - (int)y->end;
}

zp_err zp__trace_timeline(zp__trace *t, char **out, size_t *len)
{
    zp__trace_ev *ev;
    uint32_t n;
    if (snapshot(t, &ev, &n))
        return ZP_E_NOMEM;
    tl_item *it = malloc(2 * (size_t)(n ? n : 1) * sizeof *it);
    if (!it) {
        free(ev);
        return ZP_E_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        it[2 * i] = (tl_item){ev[i].t0, i, false};
        it[2 * i + 1] = (tl_item){ev[i].t1, i, true};
    }
    qsort(it, 2 * (size_t)n, sizeof *it, tl_cmp);
    zp__sb sb = {0};
    for (size_t i = 0; i < 2 * (size_t)n; i++) {
        const zp__trace_ev *e = &ev[it[i].ev];
        zp__sb_printf(&sb, "TIMELINE,%.3f,%s.%s,%s,%u\n", it[i].at * 1e3,
                      zp__stage_name((zp__stage)e->stage), it[i].end ? "end" : "begin", e->job,
                      e->part);
    }
    free(it);
    free(ev);
    return zp__sb_finish(&sb, out, len);
}
