/* The process's log (log.h). */
#include "base/log.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static atomic_int log_level = ZP__LOG_INFO;
static atomic_int log_format = ZP__LOG_TEXT;
static atomic_int log_fd = 2;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

/* Room kept at the end of a line for what closes it: a quote, the cut
 * mark, the brace and the newline. */
#define TAIL 32

static const char *const level_names[] = {"error", "warn", "info", "debug"};

void zp__log_setup(zp__log_level level, zp__log_format format, int fd)
{
    atomic_store(&log_level, (int)level);
    atomic_store(&log_format, (int)format);
    atomic_store(&log_fd, fd);
}

bool zp__log_on(zp__log_level level)
{
    return (int)level <= atomic_load(&log_level);
}

const char *zp__log_level_name(zp__log_level level)
{
    return (unsigned)level < 4 ? level_names[level] : "?";
}

bool zp__log_level_parse(zp__log_level *out, const char *s)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, level_names[i])) {
            *out = (zp__log_level)i;
            return true;
        }
    return false;
}

bool zp__log_format_parse(zp__log_format *out, const char *s)
{
    if (!strcmp(s, "text"))
        *out = ZP__LOG_TEXT;
    else if (!strcmp(s, "json"))
        *out = ZP__LOG_JSON;
    else
        return false;
    return true;
}

/* ------------------------------------------------------------ building */

/* Appends len bytes whole, or nothing (and marks the line cut). */
static bool put(zp__log_ev *ev, const char *s, size_t len)
{
    if (ev->cut || ev->n + len > sizeof ev->buf - TAIL) {
        ev->cut = true;
        return false;
    }
    memcpy(ev->buf + ev->n, s, len);
    ev->n += len;
    return true;
}

static bool puts_(zp__log_ev *ev, const char *s)
{
    return put(ev, s, strlen(s));
}

/* The length of the well-formed UTF-8 sequence at s (at most n bytes), or
 * 0 when the bytes there are not one (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return len;
}

/* Whether text needs quotes: empty, or a byte other than printable ASCII
 * and well-formed UTF-8, or a space, quote, backslash or '='. */
static bool text_needs_quotes(const char *s)
{
    if (!*s)
        return true;
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        if (c >= 0x80) {
            size_t l = utf8_len(u + i, n - i);
            if (!l)
                return true;
            i += l;
            continue;
        }
        if (c <= ' ' || c == '"' || c == '\\' || c == '=' || c == 0x7f)
            return true;
        i++;
    }
    return false;
}

/* Appends s escaped (without the quotes around it), one escape unit at a
 * time, so a cut line stays well-formed. */
static void put_escaped(zp__log_ev *ev, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s);
    char tmp[8];
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        const char *e = NULL;
        size_t len = 1;
        if (c >= 0x80) {
            len = utf8_len(u + i, n - i);
            if (len) {
                if (!put(ev, s + i, len))
                    return;
                i += len;
                continue;
            }
            len = 1;
            if (ev->json)
                e = "\\ufffd";
            else
                snprintf(tmp, sizeof tmp, "\\x%02x", c), e = tmp;
        } else if (c == '"')
            e = "\\\"";
        else if (c == '\\')
            e = "\\\\";
        else if (c == '\n')
            e = "\\n";
        else if (c == '\r')
            e = "\\r";
        else if (c == '\t')
            e = "\\t";
        else if (c < 0x20 || c == 0x7f) {
            snprintf(tmp, sizeof tmp, ev->json ? "\\u%04x" : "\\x%02x", c);
            e = tmp;
        }
        if (!(e ? puts_(ev, e) : put(ev, s + i, 1)))
            return;
        i += len;
    }
}

/* Starts a field: `,"name":` or ` name=`. False when it does not fit. */
static bool put_name(zp__log_ev *ev, const char *name)
{
    size_t before = ev->n;
    bool ok = ev->json ? puts_(ev, ",\"") && (put_escaped(ev, name), !ev->cut) && puts_(ev, "\":")
                       : puts_(ev, " ") && puts_(ev, name) && puts_(ev, "=");
    if (!ok)
        ev->n = before;
    return ok;
}

/* A value as written: a number (unquoted) or a string (escaped). */
static void put_value(zp__log_ev *ev, const char *name, const char *v, bool number)
{
    if (!put_name(ev, name))
        return;
    if (number) {
        puts_(ev, v);
        return;
    }
    bool quote = ev->json || text_needs_quotes(v);
    if (quote)
        put(ev, "\"", 1);
    put_escaped(ev, v);
    if (quote) {
        /* The closing quote may use the tail kept for it. */
        ev->buf[ev->n++] = '"';
    }
}

bool zp__log_begin(zp__log_ev *ev, zp__log_level level, const char *event)
{
    if (!zp__log_on(level))
        return false;
    ev->n = 0;
    ev->cut = false;
    ev->json = atomic_load(&log_format) == ZP__LOG_JSON;
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    char when[64];
    size_t wn = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + wn, sizeof when - wn, ".%03dZ", (int)(ts.tv_nsec / 1000000));
    if (ev->json) {
        puts_(ev, "{\"time\":\"");
        puts_(ev, when);
        puts_(ev, "\",\"level\":\"");
        puts_(ev, zp__log_level_name(level));
        puts_(ev, "\"");
        put_value(ev, "event", event, false);
    } else {
        puts_(ev, when);
        puts_(ev, " ");
        puts_(ev, zp__log_level_name(level));
        puts_(ev, " ");
        put_escaped(ev, event);
    }
    return true;
}

void zp__log_str(zp__log_ev *ev, const char *name, const char *value)
{
    put_value(ev, name, value ? value : "(null)", false);
}

void zp__log_int(zp__log_ev *ev, const char *name, long long value)
{
    char v[32];
    snprintf(v, sizeof v, "%lld", value);
    put_value(ev, name, v, true);
}

void zp__log_uint(zp__log_ev *ev, const char *name, unsigned long long value)
{
    char v[32];
    snprintf(v, sizeof v, "%llu", value);
    put_value(ev, name, v, true);
}

void zp__log_bool(zp__log_ev *ev, const char *name, bool value)
{
    put_value(ev, name, value ? "true" : "false", true);
}

void zp__log_num(zp__log_ev *ev, const char *name, double value)
{
    char v[40];
    snprintf(v, sizeof v, "%g", value);
    put_value(ev, name, v, isfinite(value));
}

void zp__log_end(zp__log_ev *ev)
{
    /* The tail holds the cut mark and the end of the line. */
    const char *end = ev->json ? (ev->cut ? ",\"cut\":true}\n" : "}\n") : (ev->cut ? " cut=true\n" : "\n");
    size_t len = strlen(end);
    memcpy(ev->buf + ev->n, end, len);
    ev->n += len;
    int fd = atomic_load(&log_fd);
    pthread_mutex_lock(&log_mu);
    for (size_t off = 0; off < ev->n;) {
        ssize_t w = write(fd, ev->buf + off, ev->n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    pthread_mutex_unlock(&log_mu);
}

/* ------------------------------------------------------------ printf-style */

/* One conversion at *p ('%' seen): formats the next argument into out and
 * says whether it is a plain number (no flags or width). Advances *p. */
static bool convert(const char **p, va_list *ap, char *out, size_t cap, bool *number)
{
    char spec[32];
    size_t k = 0;
    const char *s = *p;
    bool plain = true;
    spec[k++] = *s++;
    while (*s && strchr("-+ #0", *s)) {
        plain = false;
        if (k < 8)
            spec[k++] = *s;
        s++;
    }
    while (*s >= '0' && *s <= '9') {
        plain = false;
        if (k < 16)
            spec[k++] = *s;
        s++;
    }
    if (*s == '.') {
        spec[k++] = *s++;
        while (*s >= '0' && *s <= '9') {
            if (k < 24)
                spec[k++] = *s;
            s++;
        }
    }
    char len[3] = {0};
    size_t ln = 0;
    while (*s && strchr("hlzjtL", *s) && ln < 2) {
        len[ln++] = *s;
        spec[k++] = *s++;
    }
    char conv = *s ? *s++ : 's';
    spec[k++] = conv;
    spec[k] = 0;
    *p = s;
    *number = false;
    switch (conv) {
    case 'd':
    case 'i':
        *number = plain;
        if (!strcmp(len, "ll"))
            snprintf(out, cap, spec, va_arg(*ap, long long));
        else if (!strcmp(len, "l"))
            snprintf(out, cap, spec, va_arg(*ap, long));
        else if (!strcmp(len, "z") || !strcmp(len, "t"))
            snprintf(out, cap, spec, va_arg(*ap, ptrdiff_t));
        else if (!strcmp(len, "j"))
            snprintf(out, cap, spec, va_arg(*ap, intmax_t));
        else
            snprintf(out, cap, spec, va_arg(*ap, int));
        break;
    case 'u':
    case 'x':
    case 'X':
    case 'o':
        *number = plain && conv == 'u';
        if (!strcmp(len, "ll"))
            snprintf(out, cap, spec, va_arg(*ap, unsigned long long));
        else if (!strcmp(len, "l"))
            snprintf(out, cap, spec, va_arg(*ap, unsigned long));
        else if (!strcmp(len, "z") || !strcmp(len, "t"))
            snprintf(out, cap, spec, va_arg(*ap, size_t));
        else if (!strcmp(len, "j"))
            snprintf(out, cap, spec, va_arg(*ap, uintmax_t));
        else
            snprintf(out, cap, spec, va_arg(*ap, unsigned));
        break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A': {
        double v = !strcmp(len, "L") ? (double)va_arg(*ap, long double) : va_arg(*ap, double);
        if (!strcmp(len, "L")) {
            /* Formatted as a double: drop the L. */
            spec[k - 2] = conv;
            spec[k - 1] = 0;
        }
        snprintf(out, cap, spec, v);
        *number = plain && isfinite(v) && strchr("fFeEgG", conv);
        break;
    }
    case 'c':
        snprintf(out, cap, "%c", va_arg(*ap, int));
        break;
    case 'p':
        snprintf(out, cap, "%p", va_arg(*ap, void *));
        break;
    case 's': {
        const char *v = va_arg(*ap, const char *);
        snprintf(out, cap, spec, v ? v : "(null)");
        break;
    }
    default: /* not a conversion: kept as text */
        snprintf(out, cap, "%s", spec);
        break;
    }
    return true;
}

void zp__log(zp__log_level level, const char *event, const char *fields, ...)
{
    zp__log_ev ev;
    if (!zp__log_begin(&ev, level, event))
        return;
    va_list ap;
    va_start(ap, fields);
    const char *p = fields ? fields : "";
    char name[64], value[ZP__LOG_LINE_MAX], part[ZP__LOG_LINE_MAX];
    for (;;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t nn = 0;
        while (*p && *p != '=' && *p != ' ') {
            if (nn + 1 < sizeof name)
                name[nn++] = *p;
            p++;
        }
        name[nn] = 0;
        size_t vn = 0;
        int convs = 0;
        bool literal = false, number = false;
        value[0] = 0;
        if (*p == '=')
            p++;
        while (*p && *p != ' ') {
            size_t pn;
            if (p[0] == '%' && p[1] == '%') {
                part[0] = '%', part[1] = 0;
                p += 2;
                literal = true;
            } else if (p[0] == '%') {
                convert(&p, &ap, part, sizeof part, &number);
                convs++;
            } else {
                part[0] = *p++, part[1] = 0;
                literal = true;
            }
            pn = strlen(part);
            if (vn + pn < sizeof value) {
                memcpy(value + vn, part, pn + 1);
                vn += pn;
            }
        }
        put_value(&ev, name, value, number && convs == 1 && !literal);
    }
    va_end(ap);
    zp__log_end(&ev);
}
