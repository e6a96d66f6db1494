/* The progress reporter (src/tool/progress.c) with a fake clock: its
 * terminal and plain lines (rate, time left, the end), how often each mode
 * writes, --quiet, and zp__parallel_for_progress's reports. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/progress.h"
#include "check.h"
#include "tool/progress.h"

static double fake_t;
static double fake_now(void)
{
    return fake_t;
}

static char *fmt(zp__bar_mode m, uint64_t done, uint64_t total, double elapsed)
{
    static char buf[256];
    size_t n = zp__bar_format(buf, sizeof buf, m, "x", done, total, elapsed);
    CHECK_EQ_INT(n, strlen(buf));
    return buf;
}

static void test_format_tty(void)
{
    CHECK(!strcmp(fmt(ZP__BAR_TTY, 250, 1000, 5),
                  "\rx [######..................]  25% 50/s, 15 s left\033[K"));
    CHECK(!strcmp(fmt(ZP__BAR_TTY, 1000, 1000, 20),
                  "\rx [########################] 100% 50/s, took 20 s\033[K\n"));
    /* Nothing done yet: no rate, no time left. */
    CHECK(!strcmp(fmt(ZP__BAR_TTY, 0, 1000, 3),
                  "\rx [........................]   0% ?/s, ? left\033[K"));
    /* A rate in M, a time left over an hour. */
    CHECK(!strcmp(fmt(ZP__BAR_TTY, 3000000, 12000000, 2),
                  "\rx [######..................]  25% 1.50M/s, 6.0 s left\033[K"));
    CHECK(strstr(fmt(ZP__BAR_TTY, 1, 4000, 1), " 1:06:39 left") != NULL);
    CHECK(strstr(fmt(ZP__BAR_TTY, 10, 20, 50), " 50 s left") != NULL);
    CHECK(strstr(fmt(ZP__BAR_TTY, 1, 3, 40), " 1:20 left") != NULL);
}

static void test_format_plain(void)
{
    CHECK(!strcmp(fmt(ZP__BAR_PLAIN, 250, 1000, 5), "x: 25% (250 of 1.00k), 50/s, 15 s left\n"));
    CHECK(!strcmp(fmt(ZP__BAR_PLAIN, 1000, 1000, 20), "x: done, 1.00k in 20 s (50/s)\n"));
    CHECK(!strcmp(fmt(ZP__BAR_PLAIN, 123456, 1234567, 10),
                  "x: 9% (123k of 1.23M), 12.3k/s, 1:30 left\n"));
    /* No escape sequences, no carriage returns in plain lines. */
    CHECK(strchr(fmt(ZP__BAR_PLAIN, 5, 10, 1), '\r') == NULL);
    CHECK(strchr(fmt(ZP__BAR_PLAIN, 5, 10, 1), '\033') == NULL);
    /* A small buffer is cut, terminated. */
    char small[8];
    size_t n = zp__bar_format(small, sizeof small, ZP__BAR_PLAIN, "x", 5, 10, 1);
    CHECK_EQ_INT(n, 7);
    CHECK_EQ_INT(strlen(small), 7);
}

/* What a reporter in mode m wrote for the notes (t, done) of a 1000-unit
 * step, in a buffer that stays valid until the next call. */
static char *run(zp__bar_mode m, const double *t, const uint64_t *done, int n)
{
    static char buf[4096];
    FILE *f = tmpfile();
    CHECK(f != NULL);
    zp__bar b;
    zp__bar_init(&b, f, m);
    b.now = fake_now;
    for (int i = 0; i < n; i++) {
        fake_t = t[i];
        zp__bar_note(&b, "step", done[i], 1000);
    }
    zp__bar_close(&b);
    long len = ftell(f);
    CHECK(len >= 0 && len < (long)sizeof buf);
    rewind(f);
    size_t r = fread(buf, 1, sizeof buf - 1, f);
    buf[r] = 0;
    fclose(f);
    return buf;
}

static int count(const char *s, char c)
{
    int n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

static void test_plain_pace(void)
{
    /* A line at 10 % (after a second), at 5 s without 10 %, and the end;
     * none within a second of the last, nor for less than 10 % in 5 s. */
    const double t[] = {0, 0.5, 1.2, 2.0, 7.3, 7.5, 8.0};
    const uint64_t d[] = {0, 150, 160, 200, 210, 400, 1000};
    char *out = run(ZP__BAR_PLAIN, t, d, 7);
    CHECK_EQ_INT(count(out, '\n'), 3);
    CHECK(!strncmp(out, "step: 16% (160 of 1.00k)", 24));
    CHECK(strstr(out, "\nstep: 21% (210 of 1.00k)") != NULL);
    CHECK(strstr(out, "\nstep: done, 1.00k in 8.0 s (125/s)\n") != NULL);
    CHECK(count(out, '\r') == 0);
}

static void test_tty_pace(void)
{
    /* Redraws at most every 0.1 s, each with \r; one newline, at the end. */
    const double t[] = {0, 0.05, 0.12, 0.15, 0.3, 0.31, 0.5};
    const uint64_t d[] = {0, 100, 200, 300, 400, 500, 1000};
    char *out = run(ZP__BAR_TTY, t, d, 7);
    CHECK_EQ_INT(count(out, '\r'), 3);
    CHECK_EQ_INT(count(out, '\n'), 1);
    CHECK(strstr(out, " 20% ") && strstr(out, " 40% ") && strstr(out, "100% "));
    CHECK(out[strlen(out) - 1] == '\n');
    /* A step cut short: close ends its line. */
    out = run(ZP__BAR_TTY, t, d, 5);
    CHECK_EQ_INT(count(out, '\n'), 1);
    CHECK(out[strlen(out) - 1] == '\n');
}

static void test_quiet(void)
{
    const double t[] = {0, 2, 9};
    const uint64_t d[] = {0, 500, 1000};
    CHECK(!strcmp(run(ZP__BAR_OFF, t, d, 3), ""));
    zp__bar b;
    zp__bar_init(&b, stderr, ZP__BAR_OFF);
    zp__progress p = zp__bar_progress(&b);
    CHECK(p.fn == NULL);
    zp__bar_close(&b);

    char a0[] = "cmd", a1[] = "in", a2[] = "--quiet", a3[] = "out", a4[] = "--quiet";
    char *argv[] = {a0, a1, a2, a3, a4, NULL};
    int argc = 5;
    zp__bar_from_args(&b, &argc, argv);
    CHECK_EQ_INT(argc, 3);
    CHECK(!strcmp(argv[1], "in") && !strcmp(argv[2], "out") && argv[3] == NULL);
    CHECK_EQ_INT(b.mode, ZP__BAR_OFF);
    zp__bar_close(&b);
    char *argv2[] = {a0, a1, a3, NULL};
    argc = 3;
    zp__bar_from_args(&b, &argc, argv2);
    CHECK_EQ_INT(argc, 3);
    CHECK_EQ_INT(b.mode, isatty(2) ? ZP__BAR_TTY : ZP__BAR_PLAIN);
    zp__bar_close(&b);
}

typedef struct seen {
    atomic_uint_fast64_t calls, ends, bad;
    atomic_uint_fast64_t sum;
} seen;

static void seen_fn(void *ctx, const char *step, uint64_t done, uint64_t total)
{
    seen *s = ctx;
    atomic_fetch_add(&s->calls, 1);
    if (strcmp(step, "adding") || total != 100000 || done > total)
        atomic_fetch_add(&s->bad, 1);
    if (done == total)
        atomic_fetch_add(&s->ends, 1);
}

static void add_range(void *ctx, size_t begin, size_t end)
{
    seen *s = ctx;
    atomic_fetch_add(&s->sum, end - begin);
}

static void test_parallel_for_progress(void)
{
    seen s;
    atomic_init(&s.calls, 0);
    atomic_init(&s.ends, 0);
    atomic_init(&s.bad, 0);
    atomic_init(&s.sum, 0);
    zp__progress p = {seen_fn, &s};
    zp__parallel_for_progress(100000, 1000, add_range, &s, 4, &p, "adding");
    CHECK_EQ_INT(atomic_load(&s.sum), 100000);
    CHECK_EQ_INT(atomic_load(&s.bad), 0);
    CHECK_EQ_INT(atomic_load(&s.ends), 1);
    /* The start, 99 ranges before the last, the end. */
    CHECK_EQ_INT(atomic_load(&s.calls), 101);
    /* Without progress it is the plain parallel-for. */
    atomic_store(&s.sum, 0);
    zp__parallel_for_progress(100000, 1000, add_range, &s, 4, NULL, "adding");
    CHECK_EQ_INT(atomic_load(&s.sum), 100000);
}

int main(void)
{
    RUN(test_format_tty);
    RUN(test_format_plain);
    RUN(test_plain_pace);
    RUN(test_tty_pace);
    RUN(test_quiet);
    RUN(test_parallel_for_progress);
    return FINISH();
}
