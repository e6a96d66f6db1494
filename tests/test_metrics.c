/*
 * Metrics: the stage histogram's buckets, and the engine's Prometheus text
 * after a few jobs: every line is a comment or `name{labels} value`, every
 * family is typed before its samples, histograms are cumulative and end at
 * their count, and the counters agree with what ran.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>

#include "engine/metrics.h"
#include "test_engine_util.h"

static void test_histogram(void)
{
    zp__hist h;
    memset(&h, 0, sizeof h);
    zp__hist_observe(&h, 0.0005); /* first bucket */
    zp__hist_observe(&h, 0.001);  /* le is inclusive */
    zp__hist_observe(&h, 0.3);    /* (0.25, 0.5] */
    zp__hist_observe(&h, 1e6);    /* +Inf */
    CHECK_EQ_INT(h.bucket[0], 2);
    CHECK_EQ_INT(h.bucket[8], 1);
    CHECK_EQ_INT(h.bucket[ZP__HIST_BUCKETS], 1);
    CHECK_EQ_INT(h.count, 4);
    CHECK(fabs(h.sum - (0.0015 + 0.3 + 1e6)) < 1e-6);
    zp__sb sb = {0};
    zp__prom_hist(&sb, "x_seconds", "stage=\"h\"", &h);
    CHECK(strstr(sb.p, "x_seconds_bucket{stage=\"h\",le=\"0.001\"} 2\n") != NULL);
    CHECK(strstr(sb.p, "x_seconds_bucket{stage=\"h\",le=\"0.5\"} 3\n") != NULL);
    CHECK(strstr(sb.p, "x_seconds_bucket{stage=\"h\",le=\"+Inf\"} 4\n") != NULL);
    CHECK(strstr(sb.p, "x_seconds_count{stage=\"h\"} 4\n") != NULL);
    free(sb.p);
    memset(&sb, 0, sizeof sb);
    zp__prom_label(&sb, "a\"b\\c\nd");
    CHECK(!strcmp(sb.p, "\"a\\\"b\\\\c\\nd\""));
    free(sb.p);
}

/* One sample line: name, the raw label text (without braces) and value.
 * Returns false when the line is not of the exposition format. */
static bool parse_sample(const char *line, char *name, char *labels, double *value)
{
    const char *p = line;
    size_t n = 0;
    if (!(isalpha((unsigned char)*p) || *p == '_' || *p == ':'))
        return false;
    while (isalnum((unsigned char)*p) || *p == '_' || *p == ':')
        name[n++] = *p++;
    name[n] = 0;
    labels[0] = 0;
    if (*p == '{') {
        p++;
        size_t m = 0;
        /* k="v" pairs with escapes in v. */
        while (*p != '}') {
            while (isalnum((unsigned char)*p) || *p == '_')
                labels[m++] = *p++;
            if (p[0] != '=' || p[1] != '"')
                return false;
            labels[m++] = *p++;
            labels[m++] = *p++;
            while (*p && *p != '"') {
                if (*p == '\\')
                    labels[m++] = *p++;
                if (!*p)
                    return false;
                labels[m++] = *p++;
            }
            if (*p != '"')
                return false;
            labels[m++] = *p++;
            if (*p == ',')
                labels[m++] = *p++;
            else if (*p != '}')
                return false;
        }
        labels[m] = 0;
        p++;
    }
    if (*p++ != ' ')
        return false;
    char *end;
    *value = strtod(p, &end);
    return end != p && *end == 0;
}

typedef struct scan {
    int samples, bad;
    double eval_count, verified, done_k, inf_eval, queue_normal;
    bool cumulative_ok;
} scan;

static void scan_text(scan *s, char *text)
{
    memset(s, 0, sizeof *s);
    s->cumulative_ok = true;
    char typed[64][64];
    int ntyped = 0;
    double last_bucket = -1;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "# TYPE ", 7)) {
            if (ntyped < 64)
                sscanf(line + 7, "%63s", typed[ntyped++]);
            continue;
        }
        if (line[0] == '#')
            continue;
        char name[128], labels[512];
        double v;
        if (!parse_sample(line, name, labels, &v)) {
            fprintf(stderr, "bad metrics line: %s\n", line);
            s->bad++;
            continue;
        }
        s->samples++;
        bool is_typed = false;
        for (int i = 0; i < ntyped; i++)
            if (!strncmp(name, typed[i], strlen(typed[i])))
                is_typed = true;
        s->bad += !is_typed;
        if (!strcmp(name, "zkpipe_stage_seconds_bucket") && strstr(labels, "stage=\"eval\"")) {
            if (v < last_bucket)
                s->cumulative_ok = false;
            last_bucket = v;
            if (strstr(labels, "le=\"+Inf\""))
                s->inf_eval = v;
        }
        if (!strcmp(name, "zkpipe_stage_seconds_count") && strstr(labels, "stage=\"eval\""))
            s->eval_count = v;
        if (!strcmp(name, "zkpipe_proofs_verified_total"))
            s->verified = v;
        if (!strcmp(name, "zkpipe_jobs_total") &&
            !strcmp(labels, "key=\"k\",priority=\"normal\",outcome=\"done\""))
            s->done_k = v;
        if (!strcmp(name, "zkpipe_queue_depth") && !strcmp(labels, "priority=\"normal\""))
            s->queue_normal = v;
    }
}

static void test_engine_metrics(void)
{
    zp_engine *e = t_open(2, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "a", "k", ZP_PRIO_NORMAL, 2, 1, NULL), ZP_OK);
    CHECK_EQ_INT(t_submit(e, "b", "k", ZP_PRIO_NORMAL, 1, 2, NULL), ZP_OK);
    t_await_ok(e, "a", "k", 2);
    t_await_ok(e, "b", "k", 1);
    zp__engine_pause(e, true);
    CHECK_EQ_INT(t_submit(e, "c", "k", ZP_PRIO_NORMAL, 2, 3, NULL), ZP_OK);
    char *text;
    size_t len;
    CHECK_EQ_INT(zp_engine_metrics(e, &text, &len), ZP_OK);
    CHECK_EQ_INT(strlen(text), len);
    CHECK(strstr(text, "zkpipe_worker_busy_ratio{worker=\"cpu1\"} ") != NULL);
    CHECK(strstr(text, "zkpipe_key_bytes{key=\"k\",tier=\"host\"} ") != NULL);
    scan s;
    scan_text(&s, text);
    zp_free(text);
    CHECK(s.samples > 50);
    CHECK_EQ_INT(s.bad, 0);
    CHECK(s.cumulative_ok);
    CHECK_EQ_INT(s.eval_count, 3);
    CHECK_EQ_INT(s.inf_eval, 3);
    CHECK_EQ_INT(s.verified, 3);
    CHECK_EQ_INT(s.done_k, 2);
    CHECK_EQ_INT(s.queue_normal, 2);
    zp__engine_pause(e, false);
    zp_engine_close(e);
}

int main(void)
{
    RUN(test_histogram);
    RUN(test_engine_metrics);
    return FINISH();
}
