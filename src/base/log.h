/*
 * The process's log: one line per event, with the time (UTC, milliseconds),
 * the level, the event's name and its fields, as text
 *
 *   2026-12-02T02:20:01.123Z info key.resident key=porep gpu=0 plan="resident L A"
 *
 * or as a JSON object per line
 *
 *   {"time":"2026-12-02T02:20:01.123Z","level":"info","event":"key.resident",
 *    "key":"porep","gpu":0,"plan":"resident L A"}
 *
 * A line is built whole and written with one write(2) under a lock, so
 * lines of different threads never interleave. Lines are cut (and marked
 * cut=true) at ZP__LOG_LINE_MAX bytes, the size a pipe writes atomically.
 * Strings are escaped in both forms: quotes, backslashes, control bytes,
 * and bytes that are not UTF-8 (U+FFFD in JSON, \xNN in text).
 */
#ifndef ZP_BASE_LOG_H
#define ZP_BASE_LOG_H

#include <stdbool.h>
#include <stddef.h>

typedef enum zp__log_level {
    ZP__LOG_ERROR = 0,
    ZP__LOG_WARN = 1,
    ZP__LOG_INFO = 2,
    ZP__LOG_DEBUG = 3,
} zp__log_level;

typedef enum zp__log_format {
    ZP__LOG_TEXT = 0,
    ZP__LOG_JSON = 1,
} zp__log_format;

#define ZP__LOG_LINE_MAX 4096

/* Sets the level (events above it are dropped), the format and the file
 * descriptor of every later line; the process calls it once at start,
 * before its threads log. Until then: info, text, stderr. */
void zp__log_setup(zp__log_level level, zp__log_format format, int fd);
/* Whether an event of this level is written. */
bool zp__log_on(zp__log_level level);

/* "error", "warn", "info", "debug". */
const char *zp__log_level_name(zp__log_level level);
/* The reverse of zp__log_level_name; false for another word. */
bool zp__log_level_parse(zp__log_level *out, const char *s);
/* "text" or "json"; false for another word. */
bool zp__log_format_parse(zp__log_format *out, const char *s);

/*
 * One event, fields given printf-style: `fields` is a list of NAME=VALUE
 * separated by spaces, each VALUE one conversion (%s, %d, %u, %llu, %zu,
 * %.1f, %g, ...), literal text, or both. A value that is exactly one
 * integer or floating conversion is a JSON number; anything else a string.
 * fields may be NULL (no fields). Example:
 *   zp__log(ZP__LOG_WARN, "key.unpinned", "key=%s reason=%s", name, why);
 */
void zp__log(zp__log_level level, const char *event, const char *fields, ...)
    __attribute__((format(printf, 3, 4)));

/* An event built field by field, for fields known only at run time:
 *   zp__log_ev ev;
 *   if (zp__log_begin(&ev, ZP__LOG_INFO, "serve.start")) {
 *       zp__log_str(&ev, "version", "0.1.0");
 *       zp__log_end(&ev);
 *   }
 * zp__log_begin returns false (and the event must not be used) when the
 * level is off. */
typedef struct zp__log_ev {
    char buf[ZP__LOG_LINE_MAX];
    size_t n;
    bool cut;   /* something did not fit */
    bool json;
} zp__log_ev;

bool zp__log_begin(zp__log_ev *ev, zp__log_level level, const char *event);
void zp__log_str(zp__log_ev *ev, const char *name, const char *value);
void zp__log_int(zp__log_ev *ev, const char *name, long long value);
void zp__log_uint(zp__log_ev *ev, const char *name, unsigned long long value);
void zp__log_bool(zp__log_ev *ev, const char *name, bool value);
/* A number as %g would print it (non-finite ones as the string "nan", ...). */
void zp__log_num(zp__log_ev *ev, const char *name, double value);
/* Ends the line and writes it. */
void zp__log_end(zp__log_ev *ev);

#endif
