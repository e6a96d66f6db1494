/*
 * Reading an engine trace back (trace_read.h): busy fractions, stage
 * medians and the SVG Gantt chart of `zkpipe trace svg`.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/trace_read.h"
#include "engine/util.h"

static double num(const zp__jval *v, bool *ok)
{
    if (!v || v->type != ZP__J_NUMBER) {
        *ok = false;
        return 0;
    }
    return strtod(v->str, NULL);
}

/* An integral value in [lo, hi], or *ok = false (a cast of an out of range
 * double would be undefined behaviour). */
static int64_t num_int(const zp__jval *v, double lo, double hi, bool *ok)
{
    double d = num(v, ok);
    if (!*ok || !(d >= lo && d <= hi) || d != floor(d)) {
        *ok = false;
        return 0;
    }
    return (int64_t)d;
}

static size_t lane_of(zp__tr *t, int64_t tid)
{
    for (size_t i = 0; i < t->n_lanes; i++)
        if (t->lanes[i].tid == tid)
            return i;
    zp__tr_lane *l = &t->lanes[t->n_lanes];
    l->tid = tid;
    snprintf(l->name, sizeof l->name, "lane %lld", (long long)tid);
    return t->n_lanes++;
}

static uint32_t stage_of(zp__tr *t, const char *name)
{
    for (size_t i = 0; i < t->n_stages; i++)
        if (!strcmp(t->stages[i], name))
            return (uint32_t)i;
    if (t->n_stages == ZP__TR_MAX_STAGES)
        return ZP__TR_MAX_STAGES - 1; /* lumps exotic names together */
    snprintf(t->stages[t->n_stages], ZP__TR_NAME, "%s", name);
    return (uint32_t)t->n_stages++;
}

/* One element of traceEvents. */
static zp_err take_event(zp__tr *t, const zp__jval *e, zp__ioerr *why)
{
    const zp__jval *ph = zp__json_get(e, "ph"), *name = zp__json_get(e, "name");
    if (!ph || ph->type != ZP__J_STRING || !name || name->type != ZP__J_STRING)
        return ZP_OK; /* not ours to judge */
    bool ok = true;
    int64_t tid = num_int(zp__json_get(e, "tid"), -1e15, 1e15, &ok);
    if (!strcmp(ph->str, "M") && !strcmp(name->str, "thread_name")) {
        const zp__jval *n = zp__json_get(zp__json_get(e, "args"), "name");
        if (ok && n && n->type == ZP__J_STRING)
            snprintf(t->lanes[lane_of(t, tid)].name, ZP__TR_NAME, "%s", n->str);
        return ZP_OK;
    }
    if (strcmp(ph->str, "X"))
        return ZP_OK;
    double ts = num(zp__json_get(e, "ts"), &ok), dur = num(zp__json_get(e, "dur"), &ok);
    if (!ok || !(dur >= 0) || !isfinite(ts) || !isfinite(dur) || fabs(ts) > 1e15 || dur > 1e15)
        return zp__fail(why, ZP_E_FORMAT, "line %u: an X event without numeric tid, ts, dur",
                        e->line);
    zp__tr_event *v = &t->ev[t->n++];
    memset(v, 0, sizeof *v);
    v->lane = (uint32_t)lane_of(t, tid);
    v->stage = stage_of(t, name->str);
    v->t0 = ts * 1e-6;
    v->t1 = (ts + dur) * 1e-6;
    const zp__jval *args = zp__json_get(e, "args");
    const zp__jval *job = zp__json_get(args, "job");
    if (job && job->type == ZP__J_STRING)
        snprintf(v->job, sizeof v->job, "%s", job->str);
    bool pok = true;
    v->part = (uint32_t)num_int(zp__json_get(args, "partition"), 0, UINT32_MAX, &pok);
    /* Byte counts: integral and below 2^53, where doubles are exact. */
    const zp__jval *h2d = zp__json_get(args, "h2d_bytes");
    if (h2d) {
        bool iok = true;
        v->h2d = (uint64_t)num_int(h2d, 0, 0x1p53, &iok);
        v->streamed = (uint64_t)num_int(zp__json_get(args, "streamed_bytes"), 0, 0x1p53, &iok);
        if (!iok || v->streamed > v->h2d)
            return zp__fail(why, ZP_E_FORMAT,
                            "line %u: h2d_bytes and streamed_bytes must be byte counts, "
                            "streamed_bytes at most h2d_bytes",
                            e->line);
        v->has_io = true;
    }
    return ZP_OK;
}

zp_err zp__tr_load(zp__tr *out, const char *text, size_t len, zp__ioerr *why)
{
    memset(out, 0, sizeof *out);
    zp__json doc;
    zp_err err = zp__json_parse(&doc, text, len, NULL, why);
    if (err)
        return err;
    const zp__jval *ev = zp__json_get(doc.root, "traceEvents");
    if (!ev || ev->type != ZP__J_ARRAY) {
        zp__json_free(&doc);
        return zp__fail(why, ZP_E_FORMAT, "no traceEvents array: not a Chrome trace");
    }
    out->ev = malloc((ev->n ? ev->n : 1) * sizeof *out->ev);
    out->lanes = malloc((ev->n ? ev->n : 1) * sizeof *out->lanes);
    if (!out->ev || !out->lanes) {
        zp__json_free(&doc);
        zp__tr_free(out);
        return ZP_E_NOMEM;
    }
    for (size_t i = 0; !err && i < ev->n; i++)
        err = take_event(out, &ev->items[i], why);
    zp__json_free(&doc);
    if (err) {
        zp__tr_free(out);
        return err;
    }
    out->t0 = INFINITY;
    out->t1 = -INFINITY;
    for (size_t i = 0; i < out->n; i++) {
        out->t0 = fmin(out->t0, out->ev[i].t0);
        out->t1 = fmax(out->t1, out->ev[i].t1);
    }
    if (!out->n)
        out->t0 = out->t1 = 0;
    return ZP_OK;
}

void zp__tr_free(zp__tr *t)
{
    free(t->ev);
    free(t->lanes);
    memset(t, 0, sizeof *t);
}

void zp__tr_clip(zp__tr *t, double from)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        zp__tr_event ev = t->ev[i];
        if (ev.t1 < from)
            continue;
        if (ev.t0 < from)
            ev.t0 = from;
        t->ev[k++] = ev;
    }
    t->n = k;
    if (t->t0 < from)
        t->t0 = from;
    if (t->t1 < t->t0)
        t->t1 = t->t0;
}

static int cmp_t0(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

static bool lane_in(const zp__tr *t, size_t lane, const char *prefix)
{
    return lane < t->n_lanes && !strncmp(t->lanes[lane].name, prefix, strlen(prefix));
}

static bool stage_in(const zp__tr *t, uint32_t stage, const char *const *stages)
{
    if (!stages)
        return true;
    for (size_t i = 0; stages[i]; i++)
        if (stage < t->n_stages && !strcmp(t->stages[stage], stages[i]))
            return true;
    return false;
}

/* Fraction of the span covered by the union of the chosen events: lane
 * `lane`, or (lane == SIZE_MAX) every lane named prefix*; stages from the
 * NULL-terminated list, or all. */
static double busy_union(const zp__tr *t, size_t lane, const char *prefix,
                         const char *const *stages)
{
    double span = t->t1 - t->t0;
    if (!(span > 0))
        return 0;
    size_t n = 0;
    double *iv = malloc((t->n ? t->n : 1) * 2 * sizeof *iv);
    if (!iv)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        const zp__tr_event *ev = &t->ev[i];
        bool in = lane == SIZE_MAX ? lane_in(t, ev->lane, prefix) : ev->lane == lane;
        if (in && stage_in(t, ev->stage, stages)) {
            iv[2 * n] = ev->t0;
            iv[2 * n + 1] = ev->t1;
            n++;
        }
    }
    qsort(iv, n, 2 * sizeof *iv, cmp_t0);
    /* Length of the union: stages of one partition touch end to start,
     * and GPU slots of one device overlap each other, so merge first. */
    double busy = 0, cur0 = 0, cur1 = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (iv[2 * i] > cur1) {
            if (cur1 > cur0)
                busy += cur1 - cur0;
            cur0 = iv[2 * i];
            cur1 = iv[2 * i + 1];
        } else if (iv[2 * i + 1] > cur1) {
            cur1 = iv[2 * i + 1];
        }
    }
    if (n && cur1 > cur0)
        busy += cur1 - cur0;
    free(iv);
    return busy / span;
}

double zp__tr_busy(const zp__tr *t, size_t lane)
{
    return busy_union(t, lane, NULL, NULL);
}

double zp__tr_busy_group(const zp__tr *t, const char *prefix, const char *const *stages)
{
    return busy_union(t, SIZE_MAX, prefix, stages);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double zp__tr_stage_median(const zp__tr *t, const char *stage)
{
    double *d = malloc((t->n ? t->n : 1) * sizeof *d);
    if (!d)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->stages[t->ev[i].stage], stage))
            d[n++] = t->ev[i].t1 - t->ev[i].t0;
    double m = -1;
    if (n) {
        qsort(d, n, sizeof *d, cmp_d);
        m = n % 2 ? d[n / 2] : 0.5 * (d[n / 2 - 1] + d[n / 2]);
    }
    free(d);
    return m;
}

/* One partition (job and index): when its last event ended, and the
 * bytes its events carry. */
typedef struct part_rec {
    const char *job;
    uint32_t part;
    double t1;
    bool has_io;
    uint64_t h2d, streamed;
} part_rec;

static int cmp_rec(const void *a, const void *b)
{
    const part_rec *x = a, *y = b;
    int c = strcmp(x->job, y->job);
    return c ? c : (x->part > y->part) - (x->part < y->part);
}

static int cmp_rec_t1(const void *a, const void *b)
{
    const part_rec *x = a, *y = b;
    return (x->t1 > y->t1) - (x->t1 < y->t1);
}

/* The partitions of t's events other than job skip's, sorted by
 * completion: malloc'd into *out (NULL: no memory). */
static size_t parts_of(const zp__tr *t, const char *skip, part_rec **out)
{
    part_rec *d = malloc((t->n ? t->n : 1) * sizeof *d);
    *out = d;
    if (!d)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const zp__tr_event *v = &t->ev[i];
        if (!skip || strcmp(v->job, skip))
            d[n++] = (part_rec){v->job, v->part, v->t1, v->has_io, v->h2d, v->streamed};
    }
    qsort(d, n, sizeof *d, cmp_rec);
    size_t parts = 0;
    for (size_t i = 0; i < n; i++) {
        if (parts && !cmp_rec(&d[i], &d[parts - 1])) {
            part_rec *p = &d[parts - 1];
            p->t1 = d[i].t1 > p->t1 ? d[i].t1 : p->t1;
            p->has_io |= d[i].has_io;
            p->h2d += d[i].h2d;
            p->streamed += d[i].streamed;
        } else {
            d[parts++] = d[i];
        }
    }
    qsort(d, parts, sizeof *d, cmp_rec_t1);
    return parts;
}

/* The completions left out at each end of `parts` for trim. */
static size_t trim_cut(size_t parts, double trim)
{
    if (trim < 0 || trim >= 0.5)
        trim = 0;
    return (size_t)((double)parts * trim);
}

zp_err zp__tr_steady_rate(const zp__tr *t, double trim, const char *skip, zp__tr_steady *out)
{
    memset(out, 0, sizeof *out);
    out->per_part = -1;
    part_rec *c;
    size_t parts = parts_of(t, skip, &c);
    if (!c)
        return ZP_E_NOMEM;
    out->parts = parts;
    size_t cut = trim_cut(parts, trim);
    if (parts > 2 * cut) {
        /* The mean of the last w completions minus that of the first, over
         * their rank distance: exact for slots that finish in a pattern
         * repeating every k completions where k divides w (two slots of a
         * GPU finish in pairs, close together and then long apart, where
         * (c[to] - c[from]) / (to - from) depends on where the ends fall in
         * a pair). w is ZP__STEADY_AVG (12: k = 1, 2, 3, 4, 6, 12) where
         * there are twice as many completions, else the largest of 6, 4
         * and 2 that has them (a job of 10 partitions: 4). */
        static const size_t ws[] = {ZP__STEADY_AVG, 6, 4, 2};
        const size_t lo = cut, hi = parts - 1 - cut;
        size_t w = 0;
        for (size_t k = 0; k < sizeof ws / sizeof *ws && !w; k++)
            if (hi + 1 - lo >= 2 * ws[k])
                w = ws[k];
        if (w) {
            double a = 0, b = 0;
            for (size_t k = 0; k < w; k++) {
                a += c[lo + k].t1;
                b += c[hi + 1 - w + k].t1;
            }
            out->from = lo;
            out->to = hi;
            out->per_part = (b - a) / (double)w / (double)(hi + 1 - w - lo);
        }
    }
    free(c);
    return ZP_OK;
}

zp_err zp__tr_io_steady(const zp__tr *t, double trim, const char *skip, zp__tr_io *out)
{
    memset(out, 0, sizeof *out);
    part_rec *c;
    size_t parts = parts_of(t, skip, &c);
    if (!c)
        return ZP_E_NOMEM;
    size_t cut = trim_cut(parts, trim);
    double h2d = 0, streamed = 0;
    for (size_t i = cut; i + cut < parts; i++)
        if (c[i].has_io) {
            out->parts++;
            h2d += (double)c[i].h2d;
            streamed += (double)c[i].streamed;
        }
    if (out->parts) {
        out->h2d = h2d / (double)out->parts;
        out->streamed = streamed / (double)out->parts;
    }
    free(c);
    return ZP_OK;
}

/* ------------------------------------------------------------------ SVG */

#define SVG_W 1200
#define LEFT 150
#define RIGHT 70
#define TOP 40
#define ROW 26

static const char *stage_color(const char *s)
{
    static const struct {
        const char *name, *color;
    } c[] = {{"acquire", "#9e9e9e"}, {"upload", "#8d6e63"}, {"eval", "#1e88e5"},
             {"h", "#43a047"},       {"split", "#00acc1"},  {"msm", "#fb8c00"},
             {"finish", "#8e24aa"},  {"verify", "#e53935"}, {"msm_h", "#bf360c"},
             {"msm_a", "#ffcc80"},   {"msm_b1", "#e65100"}, {"msm_b2", "#ffe0b2"},
             {"msm_l", "#8d6e63"},   {"msm_wait", "#bdbdbd"}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        if (!strcmp(s, c[i].name))
            return c[i].color;
    return "#455a64";
}

/* A round step for about 10 ticks over span seconds. */
static double tick_step(double span)
{
    double raw = span / 10, p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

static void svg_axis(zp__sb *s, const zp__tr *t, double scale, int height)
{
    double span = t->t1 - t->t0, step = tick_step(span > 0 ? span : 1);
    for (double x = 0; x <= span + 1e-12; x += step) {
        double px = LEFT + x * scale;
        zp__sb_printf(s, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n",
                      px, TOP - 5, px, height - 25);
        zp__sb_printf(s, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">"
                         "%g s</text>\n",
                      px, height - 10, x);
    }
}

static void svg_title_text(zp__sb *s, const char *v)
{
    for (; *v; v++) {
        if (*v == '<')
            zp__sb_puts(s, "&lt;");
        else if (*v == '&')
            zp__sb_puts(s, "&amp;");
        else if (*v == '"')
            zp__sb_puts(s, "&quot;");
        else
            zp__sb_putc(s, *v);
    }
}

static void svg_lanes(zp__sb *s, const zp__tr *t, double scale)
{
    for (size_t l = 0; l < t->n_lanes; l++) {
        int y = TOP + (int)l * ROW;
        zp__sb_printf(s, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"end\">",
                      LEFT - 8, y + 16);
        svg_title_text(s, t->lanes[l].name);
        zp__sb_printf(s, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"12\">%.1f %%</text>\n",
                      SVG_W - RIGHT + 6, y + 16, 100 * zp__tr_busy(t, l));
    }
    for (size_t i = 0; i < t->n; i++) {
        const zp__tr_event *e = &t->ev[i];
        const char *st = t->stages[e->stage];
        double x = LEFT + (e->t0 - t->t0) * scale, w = (e->t1 - e->t0) * scale;
        /* The msm stage's parts (msm_h, ...) in the lower half of its bar. */
        bool part = !strncmp(st, "msm_", 4);
        int y = TOP + (int)e->lane * ROW + 3, h = ROW - 6;
        zp__sb_printf(s, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
                         "<title>",
                      x, part ? y + h / 2 : y, w < 0.5 ? 0.5 : w, part ? h - h / 2 : h,
                      stage_color(st));
        svg_title_text(s, e->job);
        zp__sb_printf(s, " #%u %s %.3f ms", e->part, st, (e->t1 - e->t0) * 1e3);
        if (e->has_io)
            zp__sb_printf(s, ", host to device %.1f MiB (streamed %.1f MiB)",
                          (double)e->h2d / (1 << 20), (double)e->streamed / (1 << 20));
        zp__sb_puts(s, "</title></rect>\n");
    }
}

static void svg_legend(zp__sb *s)
{
    static const char *names[] = {"acquire", "eval", "h", "msm", "finish", "verify"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        int x = LEFT + (int)i * 90;
        zp__sb_printf(s, "<rect x=\"%d\" y=\"12\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                         "<text x=\"%d\" y=\"22\" font-size=\"12\">%s</text>\n",
                      x, stage_color(names[i]), x + 16, names[i]);
    }
    zp__sb_printf(s, "<text x=\"%d\" y=\"22\" font-size=\"12\">busy</text>\n",
                  SVG_W - RIGHT + 6);
}

zp_err zp__tr_svg(const zp__tr *t, char **out, size_t *len)
{
    int height = TOP + (int)t->n_lanes * ROW + 35;
    double span = t->t1 - t->t0;
    double scale = (SVG_W - LEFT - RIGHT) / (span > 0 ? span : 1);
    zp__sb s = {0};
    zp__sb_printf(&s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                      "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" "
                      "fill=\"white\"/>\n",
                  SVG_W, height);
    svg_legend(&s);
    svg_axis(&s, t, scale, height);
    svg_lanes(&s, t, scale);
    zp__sb_puts(&s, "</svg>\n");
    return zp__sb_finish(&s, out, len);
}

