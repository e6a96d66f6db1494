/* The progress reporter of progress.h. */
#include <string.h>
#include <unistd.h>

#include "tool/progress.h"
#include "tool/timing.h"

#define BAR_WIDTH 24
/* Terminal redraws at most this often; a faster one only flickers. */
#define TTY_EVERY_S 0.1
/* Plain lines: every PLAIN_STEP of the total or PLAIN_EVERY_S seconds,
 * whichever comes first, but not within PLAIN_MIN_S of the last line. */
#define PLAIN_STEP 0.10
#define PLAIN_EVERY_S 5.0
#define PLAIN_MIN_S 1.0

/* A count as 3 significant figures with an SI suffix: 950, 12.3k, 4.56M. */
static void si(char *out, size_t cap, double v)
{
    static const char suffix[] = " kMGTP";
    int k = 0;
    while (v >= 999.5 && k < 5) {
        v /= 1000;
        k++;
    }
    if (k == 0)
        snprintf(out, cap, "%.0f", v);
    else
        snprintf(out, cap, "%.*f%c", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v, suffix[k]);
}

/* Seconds as 0.4 s, 7.0 s, 12 s, 1:05, 1:02:03. */
static void duration(char *out, size_t cap, double s)
{
    unsigned long t = (unsigned long)(s + 0.5);
    if (s < 9.95)
        snprintf(out, cap, "%.1f s", s);
    else if (t < 60)
        snprintf(out, cap, "%lu s", t);
    else if (t < 3600)
        snprintf(out, cap, "%lu:%02lu", t / 60, t % 60);
    else
        snprintf(out, cap, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
}

size_t zp__bar_format(char *buf, size_t cap, zp__bar_mode mode, const char *step,
                      uint64_t done, uint64_t total, double elapsed)
{
    if (done > total)
        done = total;
    double frac = total ? (double)done / (double)total : 1.0;
    char rate[16] = "?", left[24] = "?", took[24];
    if (elapsed > 0 && done > 0) {
        si(rate, sizeof rate, (double)done / elapsed);
        duration(left, sizeof left, elapsed * (double)(total - done) / (double)done);
    }
    duration(took, sizeof took, elapsed);
    bool end = done == total;
    int n;
    if (mode == ZP__BAR_TTY) {
        char bar[BAR_WIDTH + 1];
        int fill = (int)(frac * BAR_WIDTH);
        memset(bar, '#', (size_t)fill);
        memset(bar + fill, '.', (size_t)(BAR_WIDTH - fill));
        bar[BAR_WIDTH] = 0;
        n = end ? snprintf(buf, cap, "\r%s [%s] 100%% %s/s, took %s\033[K\n", step, bar, rate,
                           took)
                : snprintf(buf, cap, "\r%s [%s] %3d%% %s/s, %s left\033[K", step, bar,
                           (int)(frac * 100), rate, left);
    } else {
        char d[16], t[16];
        si(d, sizeof d, (double)done);
        si(t, sizeof t, (double)total);
        n = end ? snprintf(buf, cap, "%s: done, %s in %s (%s/s)\n", step, t, took, rate)
                : snprintf(buf, cap, "%s: %d%% (%s of %s), %s/s, %s left\n", step,
                           (int)(frac * 100), d, t, rate, left);
    }
    if (n < 0)
        n = 0;
    return (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
}

void zp__bar_init(zp__bar *b, FILE *out, zp__bar_mode mode)
{
    memset(b, 0, sizeof *b);
    b->out = out;
    b->mode = mode;
    b->now = zp__now;
    pthread_mutex_init(&b->mu, NULL);
}

void zp__bar_close(zp__bar *b)
{
    if (b->open)
        fputc('\n', b->out);
    b->open = false;
    pthread_mutex_destroy(&b->mu);
}

static void bar_cb(void *ctx, const char *step, uint64_t done, uint64_t total)
{
    zp__bar_note(ctx, step, done, total);
}

zp__progress zp__bar_progress(zp__bar *b)
{
    zp__progress p = {NULL, NULL};
    if (b->mode != ZP__BAR_OFF) {
        p.fn = bar_cb;
        p.ctx = b;
    }
    return p;
}

/* Whether a report of done (not the end) is due now. */
static bool due(const zp__bar *b, uint64_t done, double t)
{
    if (b->mode == ZP__BAR_TTY)
        return t - b->last >= TTY_EVERY_S;
    if (t - b->last < PLAIN_MIN_S)
        return false;
    return t - b->last >= PLAIN_EVERY_S ||
           (double)(done - b->last_done) >= PLAIN_STEP * (double)b->total;
}

/* Prints the report of done at t (the mutex held). */
static void show(zp__bar *b, uint64_t done, double t, bool end)
{
    char line[256];
    size_t n = zp__bar_format(line, sizeof line, b->mode, b->step, done, b->total, t - b->t0);
    fwrite(line, 1, n, b->out);
    fflush(b->out);
    b->open = b->mode == ZP__BAR_TTY && !end;
    b->last = t;
    b->last_done = done;
    if (end) /* the next report, even of the same step, starts afresh */
        b->step[0] = 0;
}

void zp__bar_note(zp__bar *b, const char *step, uint64_t done, uint64_t total)
{
    if (b->mode == ZP__BAR_OFF)
        return;
    pthread_mutex_lock(&b->mu);
    double t = b->now();
    /* Threads report out of order: a done below the last one shown is
     * old news, not a new step. */
    if (strncmp(b->step, step, sizeof b->step - 1) || b->total != total) {
        /* A new step: an unfinished terminal line of the last one ends. */
        if (b->open)
            fputc('\n', b->out);
        b->open = false;
        snprintf(b->step, sizeof b->step, "%s", step);
        b->total = total;
        b->t0 = b->last = t;
        b->last_done = 0;
    }
    bool end = done >= total;
    if (end || (done > b->last_done && due(b, done, t)))
        show(b, done, t, end);
    pthread_mutex_unlock(&b->mu);
}

void zp__bar_from_args(zp__bar *b, int *argc, char **argv)
{
    bool quiet = false;
    int k = 1;
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], "--quiet"))
            quiet = true;
        else
            argv[k++] = argv[i];
    }
    argv[k] = NULL;
    *argc = k;
    zp__bar_mode m = quiet ? ZP__BAR_OFF : isatty(fileno(stderr)) ? ZP__BAR_TTY : ZP__BAR_PLAIN;
    zp__bar_init(b, stderr, m);
}
