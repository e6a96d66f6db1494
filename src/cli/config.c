/*
 * The daemon's config file: one `key = value` setting per line, `#` comment
 * lines, blank lines. Keys are `zkpipe serve`'s flag names without the
 * leading `--`; a value may be put in double quotes to keep leading or
 * trailing spaces (inside them, \" and \\ stand for " and \). A `#` after a
 * value is part of the value: only whole lines are comments, so a token
 * may hold any visible character.
 *
 * The file is read like every other path a user names (zp__file_read:
 * regular files only, read with a cap), and both a line and the file are
 * bounded, so a wrong path (a device, a log) fails at once with a reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/io.h"

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

static bool key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* A quoted value in place: q points at the opening quote; the unquoted
 * text ends up at q. */
static const char *unquote(char *q)
{
    char *w = q;
    const char *r = q + 1;
    for (; *r && *r != '"'; r++) {
        if (*r == '\\') {
            if (r[1] != '"' && r[1] != '\\')
                return "only \\\" and \\\\ are escapes inside quotes";
            r++;
        }
        *w++ = *r;
    }
    if (*r != '"')
        return "a quote that is not closed";
    *w = 0;
    for (r++; is_space(*r); r++)
        ;
    return *r ? "text after the closing quote" : NULL;
}

int zp__cfg_parse_line(char *line, const char **key, const char **value, const char **why)
{
    *key = *value = NULL;
    *why = NULL;
    for (const char *c = line; *c; c++)
        if ((unsigned char)*c < ' ' && *c != '\t') {
            *why = "a control character in the line";
            return ZP__CFG_BAD;
        }
    char *s = line;
    while (is_space(*s))
        s++;
    if (!*s || *s == '#')
        return ZP__CFG_BLANK;
    char *eq = strchr(s, '=');
    if (!eq) {
        *why = "missing '=' (settings are key = value)";
        return ZP__CFG_BAD;
    }
    char *k_end = eq;
    while (k_end > s && is_space(k_end[-1]))
        k_end--;
    *k_end = 0;
    if (!*s) {
        *why = "no setting name before '='";
        return ZP__CFG_BAD;
    }
    for (const char *c = s; *c; c++)
        if (!key_char(*c)) {
            *why = "a setting name is lower-case letters, digits and '-'";
            return ZP__CFG_BAD;
        }
    char *v = eq + 1;
    while (is_space(*v))
        v++;
    if (*v == '"') {
        if ((*why = unquote(v)))
            return ZP__CFG_BAD;
    } else {
        char *end = v + strlen(v);
        while (end > v && is_space(end[-1]))
            end--;
        *end = 0;
    }
    if (!*v) {
        *why = "no value after '='";
        return ZP__CFG_BAD;
    }
    *key = s;
    *value = v;
    return ZP__CFG_ENTRY;
}

void zp__cfg_free(zp__cfg *c)
{
    free(c->entries);
    free(c->text);
    memset(c, 0, sizeof *c);
}

/* Splits the text into lines in place and parses each; the first bad line
 * stops it with FILE:LINE: reason. */
static bool parse_text(zp__cfg *c, char *text, size_t len, const char *path, char *why, size_t cap)
{
    size_t n_lines = 1;
    for (size_t i = 0; i < len; i++)
        n_lines += text[i] == '\n';
    c->entries = calloc(n_lines, sizeof *c->entries);
    if (!c->entries) {
        snprintf(why, cap, "%s: out of memory", path);
        return false;
    }
    char *p = text, *end = text + len;
    for (int no = 1; p < end; no++) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *le = nl ? nl : end;
        if (le - p > ZP__CFG_LINE_MAX) {
            snprintf(why, cap, "%s:%d: a line longer than %d bytes", path, no, ZP__CFG_LINE_MAX);
            return false;
        }
        if (memchr(p, 0, (size_t)(le - p))) {
            snprintf(why, cap, "%s:%d: a NUL byte in the line", path, no);
            return false;
        }
        if (le > p && le[-1] == '\r')
            le[-1] = 0;
        *le = 0;
        const char *k, *v, *reason;
        int kind = zp__cfg_parse_line(p, &k, &v, &reason);
        if (kind == ZP__CFG_BAD) {
            snprintf(why, cap, "%s:%d: %s", path, no, reason);
            return false;
        }
        if (kind == ZP__CFG_ENTRY)
            c->entries[c->n++] = (zp__cfg_entry){k, v, no};
        p = le + 1;
    }
    return true;
}

bool zp__cfg_load(zp__cfg *c, const char *path, char *why, size_t cap)
{
    memset(c, 0, sizeof *c);
    zp__ioerr ioe = {""};
    int fd;
    struct stat st;
    if (zp__file_open(&fd, &st, path, ZP__CFG_FILE_MAX, &ioe)) {
        snprintf(why, cap, "config file: %s", ioe.msg);
        return false;
    }
    close(fd);
    zp__buf b;
    if (zp__file_read(&b, path, ZP__CFG_FILE_MAX, &ioe)) {
        snprintf(why, cap, "config file: %s", ioe.msg);
        return false;
    }
    c->path = path;
    c->mode = (unsigned)(st.st_mode & 07777);
    c->text = malloc(b.len + 1);
    if (!c->text) {
        zp__buf_free(&b);
        snprintf(why, cap, "%s: out of memory", path);
        return false;
    }
    memcpy(c->text, b.data, b.len);
    c->text[b.len] = 0;
    size_t len = b.len;
    zp__buf_free(&b);
    if (!parse_text(c, c->text, len, path, why, cap)) {
        zp__cfg_free(c);
        return false;
    }
    return true;
}
