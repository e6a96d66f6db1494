/*
 * Timelines (src/engine/trace.c): the Chrome trace JSON parses with the
 * project's strict JSON parser and holds exactly the kept events; the ring
 * keeps the newest; TIMELINE lines are well formed and in time order; the
 * log callback sees every stage as it is recorded; a GPU msm stage's parts
 * (msm_h, ...) read back with their medians, leave the lane's busy
 * fraction as the msm stage made it, and draw in the lower half of a row;
 * the bytes a partition moved host to device read back and average.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/trace.h"
#include "bench/trace_read.h"
#include "io/io.h"

static int count_x_events(const char *text, size_t len, const char *stage, int *lanes_named)
{
    zp__json doc;
    zp__ioerr why;
    if (zp__json_parse(&doc, text, len, NULL, &why)) {
        fprintf(stderr, "trace JSON: %s\n", why.msg);
        return -1;
    }
    const zp__jval *ev = zp__json_get(doc.root, "traceEvents");
    int n = 0;
    *lanes_named = 0;
    for (size_t i = 0; ev && i < ev->n; i++) {
        const zp__jval *e = &ev->items[i];
        const zp__jval *ph = zp__json_get(e, "ph"), *name = zp__json_get(e, "name");
        if (ph && !strcmp(ph->str, "M") && !strcmp(name->str, "thread_name"))
            (*lanes_named)++;
        if (!ph || strcmp(ph->str, "X"))
            continue;
        const zp__jval *args = zp__json_get(e, "args");
        if (!zp__json_get(e, "ts") || !zp__json_get(e, "dur") || !zp__json_get(e, "tid") ||
            !zp__json_get(args, "job") || !zp__json_get(args, "partition"))
            return -1;
        if (!stage || !strcmp(name->str, stage))
            n++;
    }
    zp__json_free(&doc);
    return n;
}

/* The recorder's Chrome trace, loaded by the reader. */
static void read_back(zp__trace *t, zp__tr *r)
{
    char *text;
    size_t len;
    zp__ioerr why;
    CHECK_EQ_INT(zp__trace_json(t, &text, &len), ZP_OK);
    CHECK_EQ_INT(zp__tr_load(r, text, len, &why), ZP_OK);
    free(text);
}

static void test_json_shape(void)
{
    zp__trace t;
    CHECK_EQ_INT(zp__trace_init(&t, 64, 2, NULL, NULL), ZP_OK);
    zp__trace_set_lane(&t, 0, "cpu0");
    zp__trace_set_lane(&t, 1, "verify0");
    double at = 0.5;
    for (uint32_t p = 0; p < 3; p++)
        for (int s = 0; s < ZP__ST_COUNT; s++, at += 0.001)
            zp__trace_add(&t, s == ZP__ST_VERIFY, (zp__stage)s, "job \"q\"\\1", p, at,
                          at + 0.0005);
    char *text;
    size_t len;
    CHECK_EQ_INT(zp__trace_json(&t, &text, &len), ZP_OK);
    CHECK_EQ_INT(strlen(text), len);
    int lanes;
    CHECK_EQ_INT(count_x_events(text, len, NULL, &lanes), 3 * ZP__ST_COUNT);
    CHECK_EQ_INT(lanes, 2);
    for (int s = 0; s < ZP__ST_COUNT; s++)
        CHECK_EQ_INT(count_x_events(text, len, zp__stage_name((zp__stage)s), &lanes), 3);
    CHECK(strstr(text, "\"ts\":500000.000,\"dur\":500.000") != NULL);
    free(text);
    zp__trace_free(&t);
}

static void test_ring_keeps_newest(void)
{
    zp__trace t;
    CHECK_EQ_INT(zp__trace_init(&t, 5, 1, NULL, NULL), ZP_OK);
    for (uint32_t p = 0; p < 12; p++)
        zp__trace_add(&t, 0, ZP__ST_MSM, "j", p, p, p + 0.5);
    CHECK_EQ_INT(t.n, 5);
    CHECK_EQ_INT(t.dropped, 7);
    char *text;
    size_t len;
    CHECK_EQ_INT(zp__trace_timeline(&t, &text, &len), ZP_OK);
    /* Partitions 7..11 remain, two lines each, in time order. */
    CHECK(strstr(text, ",j,6\n") == NULL);
    const char *head = "TIMELINE,7000.000,msm.begin,j,7\nTIMELINE,7500.000,msm.end,j,7\n";
    CHECK(strncmp(text, head, strlen(head)) == 0);
    int lines = 0;
    double last = -1;
    for (char *s = text; *s; s = strchr(s, '\n') + 1) {
        double ms;
        char ev[32], job[8];
        unsigned part;
        CHECK_EQ_INT(sscanf(s, "TIMELINE,%lf,%31[^,],%7[^,],%u", &ms, ev, job, &part), 4);
        CHECK(ms >= last);
        last = ms;
        lines++;
    }
    CHECK_EQ_INT(lines, 10);
    free(text);
    zp__trace_free(&t);
}

static void test_disabled_and_empty(void)
{
    zp__trace t;
    CHECK_EQ_INT(zp__trace_init(&t, 0, 1, NULL, NULL), ZP_OK);
    zp__trace_add(&t, 0, ZP__ST_EVAL, "j", 0, 1, 2);
    char *text;
    size_t len;
    int lanes;
    CHECK_EQ_INT(zp__trace_json(&t, &text, &len), ZP_OK);
    CHECK_EQ_INT(count_x_events(text, len, NULL, &lanes), 0);
    free(text);
    CHECK_EQ_INT(zp__trace_timeline(&t, &text, &len), ZP_OK);
    CHECK_EQ_INT(len, 0);
    CHECK(text && text[0] == 0);
    free(text);
    zp__trace_free(&t);
}

typedef struct log_ctx {
    int n;
    char last[128];
} log_ctx;

static void on_line(void *ctx, const char *line)
{
    log_ctx *c = ctx;
    c->n++;
    snprintf(c->last, sizeof c->last, "%s", line);
}

static void test_log_callback(void)
{
    zp__trace t;
    log_ctx c = {0};
    CHECK_EQ_INT(zp__trace_init(&t, 4, 1, on_line, &c), ZP_OK);
    zp__trace_add(&t, 0, ZP__ST_H, "a-1", 3, 0.25, 0.375);
    CHECK_EQ_INT(c.n, 2);
    CHECK(!strcmp(c.last, "TIMELINE,375.000,h.end,a-1,3"));
    zp__trace_log(&t, 1.0, "done", "a-1", -1);
    CHECK(!strcmp(c.last, "TIMELINE,1000.000,done,a-1,-"));
    zp__trace_free(&t);
}

/* The reader twin: what the writer wrote comes back, and the busy
 * fraction is the length of the union of a lane's intervals over the span
 * of the trace, computed here by hand. */
static void test_read_back(void)
{
    zp__trace t;
    CHECK_EQ_INT(zp__trace_init(&t, 16, 2, NULL, NULL), ZP_OK);
    zp__trace_set_lane(&t, 0, "cpu0");
    zp__trace_set_lane(&t, 1, "verify0");
    zp__trace_add(&t, 0, ZP__ST_EVAL, "a", 0, 0.0, 1.0);
    zp__trace_add(&t, 0, ZP__ST_MSM, "a", 1, 0.5, 1.5);  /* overlaps the first */
    zp__trace_add(&t, 0, ZP__ST_MSM, "b", 7, 3.0, 4.0);
    zp__trace_add(&t, 1, ZP__ST_VERIFY, "a", 0, 1.0, 2.0);
    zp__tr r;
    read_back(&t, &r);
    CHECK_EQ_INT(r.n, 4);
    CHECK_EQ_INT(r.n_lanes, 2);
    CHECK(!strcmp(r.lanes[0].name, "cpu0") && !strcmp(r.lanes[1].name, "verify0"));
    CHECK(fabs(r.t0 - 0.0) < 1e-9 && fabs(r.t1 - 4.0) < 1e-9);
    CHECK(fabs(zp__tr_busy(&r, 0) - 2.5 / 4) < 1e-9);
    CHECK(fabs(zp__tr_busy(&r, 1) - 1.0 / 4) < 1e-9);
    CHECK(fabs(zp__tr_stage_median(&r, "msm") - 1.0) < 1e-9);
    CHECK(fabs(zp__tr_stage_median(&r, "eval") - 1.0) < 1e-9);
    CHECK(zp__tr_stage_median(&r, "h") < 0);
    CHECK_EQ_INT(r.ev[2].part, 7);
    CHECK(!strcmp(r.ev[2].job, "b"));
    char *svg;
    size_t len;
    CHECK_EQ_INT(zp__tr_svg(&r, &svg, &len), ZP_OK);
    int rects = 0, titles = 0;
    for (const char *p = svg; (p = strstr(p, "<rect ")); p++)
        rects++;
    for (const char *p = svg; (p = strstr(p, "<title>")); p++)
        titles++;
    CHECK_EQ_INT(titles, 4);
    CHECK_EQ_INT(rects, 4 + 6 + 1); /* bars, legend, background */
    CHECK(strstr(svg, ">62.5 %<") != NULL && strstr(svg, ">25.0 %<") != NULL);
    CHECK(!strncmp(svg, "<svg ", 5) && strstr(svg, "</svg>\n"));
    free(svg);
    zp__tr_free(&r);
    zp__trace_free(&t);
}

static void test_msm_parts(void)
{
    CHECK(!strcmp(zp__stage_name(ZP__ST_MSM_H), "msm_h"));
    CHECK(!strcmp(zp__stage_name(ZP__ST_MSM_L), "msm_l"));
    CHECK(!strcmp(zp__stage_name(ZP__ST_MSM_WAIT), "msm_wait"));
    CHECK(!strcmp(zp__stage_name(ZP__ST_ALL), "?"));
    zp__trace t;
    CHECK_EQ_INT(zp__trace_init(&t, 16, 1, NULL, NULL), ZP_OK);
    zp__trace_set_lane(&t, 0, "gpu0/0");
    zp__trace_add(&t, 0, ZP__ST_MSM, "a", 0, 1.0, 2.0);
    static const double at[6] = {1.0, 1.5, 1.625, 1.75, 1.875, 2.0};
    for (int i = 0; i < 5; i++)
        zp__trace_add(&t, 0, (zp__stage)(ZP__ST_MSM_H + i), "a", 0, at[i], at[i + 1]);
    char *text;
    size_t len;
    int lanes;
    CHECK_EQ_INT(zp__trace_json(&t, &text, &len), ZP_OK);
    CHECK_EQ_INT(count_x_events(text, len, "msm", &lanes), 1);
    CHECK_EQ_INT(count_x_events(text, len, "msm_b2", &lanes), 1);
    CHECK_EQ_INT(count_x_events(text, len, NULL, &lanes), 6);
    free(text);
    zp__tr r;
    read_back(&t, &r);
    CHECK(fabs(zp__tr_busy(&r, 0) - 1.0) < 1e-9); /* the parts lie within msm */
    CHECK(fabs(zp__tr_stage_median(&r, "msm_h") - 0.5) < 1e-9);
    CHECK(fabs(zp__tr_stage_median(&r, "msm_b1") - 0.125) < 1e-9);
    char *svg;
    CHECK_EQ_INT(zp__tr_svg(&r, &svg, &len), ZP_OK);
    /* lane 0's row: bars at y = TOP + 3 = 43, 20 high; parts at 53, 10 high */
    CHECK(strstr(svg, "y=\"43\" width=\"") != NULL);
    int parts = 0;
    for (const char *p = svg; (p = strstr(p, "y=\"53\" width=\"")); p++)
        parts++;
    CHECK_EQ_INT(parts, 5);
    CHECK(strstr(svg, "#ffe0b2") != NULL && strstr(svg, "msm_b2 125.000 ms") != NULL);
    free(svg);
    zp__tr_free(&r);
    zp__trace_free(&t);
}

static void test_read_hostile(void)
{
    static const char *bad[] = {
        "not json",
        "{\"events\":[]}",
        "{\"traceEvents\":{}}",
        "{\"traceEvents\":[{\"name\":\"h\",\"ph\":\"X\",\"tid\":1e300,\"ts\":0,\"dur\":1}]}",
        "{\"traceEvents\":[{\"name\":\"h\",\"ph\":\"X\",\"tid\":0.5,\"ts\":0,\"dur\":1}]}",
        "{\"traceEvents\":[{\"name\":\"h\",\"ph\":\"X\",\"tid\":0,\"ts\":\"0\",\"dur\":1}]}",
        "{\"traceEvents\":[{\"name\":\"h\",\"ph\":\"X\",\"tid\":0,\"ts\":0,\"dur\":-1}]}",
        "{\"traceEvents\":[{\"name\":\"h\",\"ph\":\"X\",\"tid\":0,\"ts\":0,\"dur\":1e999}]}",
        /* byte counts: negative, fractional, past 2^53, a string, missing,
         * more streamed than moved */
        "{\"traceEvents\":[{\"name\":\"h\",\"ph\":\"X\",\"tid\":0,\"ts\":0,\"dur\":1,"
        "\"args\":{\"h2d_bytes\":-1,\"streamed_bytes\":0}}]}",
        "{\"traceEvents\":[{\"name\":\"h\",\"ph\":\"X\",\"tid\":0,\"ts\":0,\"dur\":1,"
        "\"args\":{\"h2d_bytes\":1.5,\"streamed_bytes\":0}}]}",
        "{\"traceEvents\":[{\"name\":\"h\",\"ph\":\"X\",\"tid\":0,\"ts\":0,\"dur\":1,"
        "\"args\":{\"h2d_bytes\":1e300,\"streamed_bytes\":0}}]}",
        "{\"traceEvents\":[{\"name\":\"h\",\"ph\":\"X\",\"tid\":0,\"ts\":0,\"dur\":1,"
        "\"args\":{\"h2d_bytes\":\"8\",\"streamed_bytes\":0}}]}",
        "{\"traceEvents\":[{\"name\":\"h\",\"ph\":\"X\",\"tid\":0,\"ts\":0,\"dur\":1,"
        "\"args\":{\"h2d_bytes\":8}}]}",
        "{\"traceEvents\":[{\"name\":\"h\",\"ph\":\"X\",\"tid\":0,\"ts\":0,\"dur\":1,"
        "\"args\":{\"h2d_bytes\":8,\"streamed_bytes\":9}}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        zp__tr r;
        zp__ioerr why;
        zp_err err = zp__tr_load(&r, bad[i], strlen(bad[i]), &why);
        CHECK(err == ZP_E_FORMAT || err == ZP_E_TOO_LARGE);
        CHECK(r.ev == NULL);
    }
    /* Odd but harmless: other phases, a huge partition, no events. */
    const char *ok = "{\"traceEvents\":[{\"ph\":\"B\",\"name\":\"x\"},"
                     "{\"name\":\"h\",\"ph\":\"X\",\"tid\":3,\"ts\":5,\"dur\":0,"
                     "\"args\":{\"partition\":1e20}}]}";
    zp__tr r;
    zp__ioerr why;
    CHECK_EQ_INT(zp__tr_load(&r, ok, strlen(ok), &why), ZP_OK);
    CHECK_EQ_INT(r.n, 1);
    CHECK_EQ_INT(r.ev[0].part, 0);
    CHECK(zp__tr_busy(&r, 0) == 0);
    char *svg;
    size_t len;
    CHECK_EQ_INT(zp__tr_svg(&r, &svg, &len), ZP_OK);
    free(svg);
    zp__tr_free(&r);
    const char *empty = "{\"traceEvents\":[]}";
    CHECK_EQ_INT(zp__tr_load(&r, empty, strlen(empty), &why), ZP_OK);
    CHECK_EQ_INT(r.n, 0);
    CHECK_EQ_INT(zp__tr_svg(&r, &svg, &len), ZP_OK);
    free(svg);
    zp__tr_free(&r);
}

/* A GPU's busy fraction: the union of the device stages of all its slot
 * lanes (not other GPUs', not finish), and clipping to a measured window,
 * both checked against sums done by hand. */
static void test_group_busy_and_clip(void)
{
    zp__trace t;
    CHECK_EQ_INT(zp__trace_init(&t, 16, 4, NULL, NULL), ZP_OK);
    zp__trace_set_lane(&t, 0, "gpu0/0");
    zp__trace_set_lane(&t, 1, "gpu0/1");
    zp__trace_set_lane(&t, 2, "gpu1/0");
    zp__trace_set_lane(&t, 3, "verify0");
    zp__trace_add(&t, 0, ZP__ST_EVAL, "a", 0, 0.0, 1.0);
    zp__trace_add(&t, 0, ZP__ST_MSM, "a", 0, 1.0, 3.0);
    zp__trace_add(&t, 0, ZP__ST_FINISH, "a", 0, 3.0, 3.5); /* host: not GPU time */
    zp__trace_add(&t, 1, ZP__ST_MSM, "a", 1, 2.0, 5.0);     /* overlaps slot 0 */
    zp__trace_add(&t, 2, ZP__ST_MSM, "b", 0, 6.0, 8.0);     /* another GPU */
    zp__trace_add(&t, 3, ZP__ST_VERIFY, "a", 0, 5.0, 6.0);
    zp__tr r;
    read_back(&t, &r);
    static const char *const dev[] = {"eval", "h", "msm", NULL};
    CHECK(fabs(zp__tr_busy_group(&r, "gpu0/", dev) - 5.0 / 8) < 1e-9);
    CHECK(fabs(zp__tr_busy_group(&r, "gpu1/", dev) - 2.0 / 8) < 1e-9);
    CHECK(fabs(zp__tr_busy_group(&r, "gpu0/", NULL) - 5.0 / 8) < 1e-9);
    CHECK(zp__tr_busy_group(&r, "gpu9/", dev) == 0);
    /* From 2.5 on: gpu0 is busy 2.5 .. 5 of 2.5 .. 8. */
    zp__tr_clip(&r, 2.5);
    CHECK(fabs(r.t0 - 2.5) < 1e-9 && fabs(r.t1 - 8.0) < 1e-9);
    CHECK_EQ_INT(r.n, 5);
    CHECK(fabs(zp__tr_busy_group(&r, "gpu0/", dev) - 2.5 / 5.5) < 1e-9);
    zp__tr_free(&r);
    zp__trace_free(&t);
}

/* A trace of `slots` lanes whose partitions of job "a" complete every P
 * seconds per lane, lane k `k * off` after lane 0 (its msm, then a verify
 * on a verify lane), `per_lane` each; and one slow partition of job "w"
 * (warm-up) ending at 0.5. */
static void slots_trace(zp__trace *t, int slots, int per_lane, double P, double off)
{
    CHECK_EQ_INT(zp__trace_init(t, 1024, 2, NULL, NULL), ZP_OK);
    zp__trace_set_lane(t, 0, "gpu0/0");
    zp__trace_set_lane(t, 1, "verify0");
    zp__trace_add(t, 0, ZP__ST_MSM, "w", 0, 0.0, 0.5);
    for (int k = 0; k < slots; k++)
        for (int i = 0; i < per_lane; i++) {
            double end = 1.0 + P * i + off * k;
            uint32_t part = (uint32_t)(i * slots + k);
            zp__trace_add(t, 0, ZP__ST_MSM, "a", part, end - 0.75, end - 0.25);
            zp__trace_add(t, 1, ZP__ST_VERIFY, "a", part, end - 0.25, end);
        }
}

/* The steady-state rate: a partition completes when its last event ends
 * (its verify here), partitions of different jobs with the same index stay
 * apart, job "w" can be left out, and slots that finish in step (pairs or
 * triples, as two or three GPU slots do) give the rate exactly, P / slots,
 * where the first-to-last difference need not (on an H200 trace of two
 * slots finishing 0.27 s apart every 2.43 s it gave 1.1845 s for 1.215). A slow first
 * completion (fill) inside the trim does not count; fewer than 24
 * completions after the trim average fewer a side (down to 2); fewer than
 * 4: no rate. */
static void test_steady_rate(void)
{
    zp__trace t;
    zp__tr r;
    zp__tr_steady ss;
    for (int slots = 1; slots <= 3; slots++) {
        slots_trace(&t, slots, 60 / slots, 2.43, 0.27);
        read_back(&t, &r);
        CHECK_EQ_INT(zp__tr_steady_rate(&r, 0.1, "w", &ss), ZP_OK);
        CHECK_EQ_INT((int)ss.parts, 60);
        CHECK_EQ_INT((int)ss.from, 6);
        CHECK_EQ_INT((int)ss.to, 53);
        CHECK(fabs(ss.per_part - 2.43 / slots) < 1e-9);
        CHECK_EQ_INT(zp__tr_steady_rate(&r, 0.1, NULL, &ss), ZP_OK); /* "w" counted */
        CHECK_EQ_INT((int)ss.parts, 61);
        CHECK(fabs(ss.per_part - 2.43 / slots) < 1e-9); /* inside the trim */
        zp__tr_free(&r);
        zp__trace_free(&t);
    }
    slots_trace(&t, 2, 14, 2.43, 0.27); /* 28: 24 after the trim (2 each end) */
    read_back(&t, &r);
    CHECK_EQ_INT(zp__tr_steady_rate(&r, 0.1, "w", &ss), ZP_OK);
    CHECK(fabs(ss.per_part - 2.43 / 2) < 1e-9);
    /* 28 - 10: too few for 12 a side, pairs averaged 6 a side */
    CHECK_EQ_INT(zp__tr_steady_rate(&r, 0.2, "w", &ss), ZP_OK);
    CHECK(fabs(ss.per_part - 2.43 / 2) < 1e-9);
    zp__tr_free(&r);
    zp__trace_free(&t);
    /* One job of 10 partitions on one slot, the first done 2 s after the
     * trace's start: completions 2..9, 4 a side, the rate between
     * completions (the job's wall time over 10 would count that start). */
    CHECK_EQ_INT(zp__trace_init(&t, 64, 1, NULL, NULL), ZP_OK);
    zp__trace_set_lane(&t, 0, "gpu0/0");
    for (int i = 0; i < 10; i++) {
        const double end = 2.0 + 1.5 * i;
        zp__trace_add(&t, 0, ZP__ST_MSM, "a", (uint32_t)i, i ? end - 1.5 : 0.0, end);
    }
    read_back(&t, &r);
    CHECK_EQ_INT(zp__tr_steady_rate(&r, 0.1, NULL, &ss), ZP_OK);
    CHECK_EQ_INT((int)ss.from, 1);
    CHECK_EQ_INT((int)ss.to, 8);
    CHECK(fabs(ss.per_part - 1.5) < 1e-9);
    zp__tr_free(&r);
    zp__trace_free(&t);
    /* Three completions: no rate. */
    slots_trace(&t, 1, 3, 2.43, 0);
    read_back(&t, &r);
    CHECK_EQ_INT(zp__tr_steady_rate(&r, 0.1, "w", &ss), ZP_OK);
    CHECK(ss.per_part < 0);
    zp__tr_free(&r);
    zp__trace_free(&t);
}

/* What partitions moved host to device: the msm event that carries it has
 * h2d_bytes and streamed_bytes in its args (64-bit counts), other events
 * none; the reader sums them per partition (a partition proved twice
 * moved its bytes twice) and averages over the partitions that carry any,
 * leaving out job "w" and the trimmed completions, against sums by hand.
 * A trace without them (CPU workers, an older engine) reads with none. */
static void test_io_bytes(void)
{
    const uint64_t G4 = (uint64_t)1 << 32;
    zp__trace t;
    CHECK_EQ_INT(zp__trace_init(&t, 64, 2, NULL, NULL), ZP_OK);
    zp__trace_set_lane(&t, 0, "gpu0/0");
    zp__trace_set_lane(&t, 1, "cpu0");
    zp__trace_io big = {1000 * G4, 999 * G4};
    zp__trace_add_io(&t, 0, ZP__ST_MSM, "w", 0, 0.0, 0.5, &big);
    for (uint32_t i = 0; i < 10; i++) {
        zp__trace_io io = {(i + 1) * G4 + 32, (i + 1) * G4};
        if (i == 5) /* proved on the CPU: nothing moved */
            zp__trace_add(&t, 1, ZP__ST_MSM, "a", i, i + 0.25, i + 0.5);
        else
            zp__trace_add_io(&t, 0, ZP__ST_MSM, "a", i, i + 0.25, i + 0.5, &io);
        zp__trace_add(&t, 0, ZP__ST_EVAL, "a", i, i + 0.0, i + 0.25);
    }
    zp__trace_io again = {100, 0};
    zp__trace_add_io(&t, 0, ZP__ST_MSM, "a", 3, 3.5, 3.75, &again); /* proved again */
    char *text;
    size_t len;
    CHECK_EQ_INT(zp__trace_json(&t, &text, &len), ZP_OK);
    CHECK(strstr(text, "\"partition\":2,\"h2d_bytes\":12884901920,"
                       "\"streamed_bytes\":12884901888}") != NULL);
    int n_io = 0;
    for (const char *p = text; (p = strstr(p, "h2d_bytes")); p++)
        n_io++;
    CHECK_EQ_INT(n_io, 1 + 9 + 1);
    free(text);
    zp__tr r;
    read_back(&t, &r);
    int carried = 0;
    for (size_t i = 0; i < r.n; i++) {
        const zp__tr_event *v = &r.ev[i];
        carried += v->has_io;
        CHECK(v->has_io == (!strcmp(r.stages[v->stage], "msm") && r.lanes[v->lane].name[0] == 'g'));
        if (v->has_io && !strcmp(v->job, "a") && v->h2d != 100)
            CHECK(v->h2d == (v->part + 1) * G4 + 32 && v->streamed == (v->part + 1) * G4);
    }
    CHECK_EQ_INT(carried, 11);
    /* Trim 0.1 of 10 partitions: 0 and 9 out; 5 carries nothing; 3 twice. */
    zp__tr_io io;
    CHECK_EQ_INT(zp__tr_io_steady(&r, 0.1, "w", &io), ZP_OK);
    CHECK_EQ_INT((int)io.parts, 7);
    double h2d = 0, streamed = 0;
    const uint32_t kept[7] = {1, 2, 3, 4, 6, 7, 8};
    for (int k = 0; k < 7; k++) {
        h2d += (double)((kept[k] + 1) * G4 + 32);
        streamed += (double)((kept[k] + 1) * G4);
    }
    h2d += 100;
    CHECK(fabs(io.h2d - h2d / 7) < 1e-3 && fabs(io.streamed - streamed / 7) < 1e-3);
    /* Without the trim and with "w": all that carry bytes. */
    CHECK_EQ_INT(zp__tr_io_steady(&r, 0, NULL, &io), ZP_OK);
    CHECK_EQ_INT((int)io.parts, 10);
    zp__tr_free(&r);
    zp__trace_free(&t);
    const char *old = "{\"traceEvents\":[{\"name\":\"msm\",\"ph\":\"X\",\"tid\":0,\"ts\":0,"
                      "\"dur\":1,\"args\":{\"job\":\"a\",\"partition\":0}}]}";
    zp__ioerr why;
    CHECK_EQ_INT(zp__tr_load(&r, old, strlen(old), &why), ZP_OK);
    CHECK_EQ_INT(r.n, 1);
    CHECK(!r.ev[0].has_io);
    CHECK_EQ_INT(zp__tr_io_steady(&r, 0.1, NULL, &io), ZP_OK);
    CHECK_EQ_INT((int)io.parts, 0);
    CHECK(io.h2d == 0 && io.streamed == 0);
    zp__tr_free(&r);
}

int main(void)
{
    RUN(test_json_shape);
    RUN(test_ring_keeps_newest);
    RUN(test_disabled_and_empty);
    RUN(test_log_callback);
    RUN(test_read_back);
    RUN(test_msm_parts);
    RUN(test_read_hostile);
    RUN(test_group_busy_and_clip);
    RUN(test_steady_rate);
    RUN(test_io_bytes);
    return FINISH();
}
