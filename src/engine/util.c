/* Helpers shared by the engine's files (util.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/util.h"

double zp__mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void zp__sb_printf(zp__sb *s, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) {
        /* Every caller formats short lines; a longer one is a bug that
         * must not silently truncate output. */
        s->oom = true;
        return;
    }
    zp__sb_putn(s, buf, (size_t)n);
}

zp_err zp__sb_finish(zp__sb *s, char **out, size_t *len)
{
    if (!s->oom && !s->p)
        zp__sb_putn(s, "", 0);
    if (!s->oom && !s->p) {
        s->p = malloc(1);
        if (s->p)
            s->p[0] = 0;
    }
    if (s->oom || !s->p) {
        free(s->p);
        memset(s, 0, sizeof *s);
        return ZP_E_NOMEM;
    }
    *out = s->p;
    if (len)
        *len = s->len;
    memset(s, 0, sizeof *s);
    return ZP_OK;
}

/* 64-bit multiply-xorshift over 8-byte words (a simple mixer, enough to
 * tell two witness buffers apart; not a defence against a chosen
 * collision, which would only let a caller confuse its own job ids). */
uint64_t zp__eng_hash(const void *p, size_t len, uint64_t seed)
{
    const uint8_t *b = p;
    uint64_t h = seed ^ (0x9e3779b97f4a7c15ULL * (len + 1));
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h ^= w * 0xff51afd7ed558ccdULL;
        h = (h << 29 | h >> 35) * 0xc4ceb9fe1a85ec53ULL;
    }
    uint64_t w = 0;
    memcpy(&w, b + i, len - i);
    h ^= w * 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 29);
}

int zp__eng_name_ok(const char *s, size_t max, int colon)
{
    if (!s)
        return 0;
    size_t n = strnlen(s, max + 1);
    if (n == 0 || n > max)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-' || (colon && c == ':');
        if (!ok)
            return 0;
    }
    return 1;
}
