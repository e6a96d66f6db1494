/*
 * The CLI's progress reporter: what a zp__progress (base/progress.h)
 * reports, drawn on stderr. On a terminal, one line redrawn in place: a
 * bar, the percentage, the rate and the time left. Elsewhere (a log file,
 * a pipe, systemd's journal), plain lines: one every 10 % or 5 s, whichever
 * comes first, at most one a second. With --quiet, nothing. Every step
 * ends with a line that says how long it took.
 */
#ifndef ZP_TOOL_PROGRESS_H
#define ZP_TOOL_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/progress.h"

typedef enum zp__bar_mode { ZP__BAR_OFF, ZP__BAR_TTY, ZP__BAR_PLAIN } zp__bar_mode;

typedef struct zp__bar {
    FILE *out;
    zp__bar_mode mode;
    double (*now)(void); /* the clock (zp__now; tests pass a fake one) */
    pthread_mutex_t mu;
    char step[64];
    uint64_t total;
    double t0, last;     /* the step's start, the last line or redraw */
    uint64_t last_done;  /* done at the last line or redraw */
    bool open;           /* a terminal line drawn and not yet ended */
} zp__bar;

/* Starts a reporter on out in mode (the clock is zp__now). */
void zp__bar_init(zp__bar *b, FILE *out, zp__bar_mode mode);
/* Ends a line still open on the terminal. */
void zp__bar_close(zp__bar *b);
/* The callback to pass to library calls; {NULL, NULL} when the mode is off. */
zp__progress zp__bar_progress(zp__bar *b);
/* Reports done of total of step (what the callback calls); thread-safe. */
void zp__bar_note(zp__bar *b, const char *step, uint64_t done, uint64_t total);

/*
 * The common option of the commands that report progress: removes every
 * --quiet from argv (so the command's own parser never sees it) and starts
 * b on stderr, off with --quiet, ZP__BAR_TTY when stderr is a terminal,
 * ZP__BAR_PLAIN otherwise.
 */
void zp__bar_from_args(zp__bar *b, int *argc, char **argv);

/*
 * One report as text (what zp__bar_note prints), into buf (cap bytes,
 * always terminated): in mode tty a redraw ("\r" ... erase to the end of
 * the line), else a plain line; done == total is the step's last line in
 * both. elapsed: seconds since the step began. Returns the length.
 */
size_t zp__bar_format(char *buf, size_t cap, zp__bar_mode mode, const char *step,
                      uint64_t done, uint64_t total, double elapsed);

#endif
