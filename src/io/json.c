/*
 * A strict, bounded JSON parser (RFC 8259). Values live in an arena owned by
 * the document, so a parse is one free. Children of an array or object are
 * gathered on a scratch stack and copied into the arena when the container
 * closes, which keeps each container's items contiguous.
 *
 * Recursion depth is bounded by the limits (default 64), so the C stack
 * stays small whatever the input.
 */
#include <stdlib.h>
#include <string.h>

#include "base/codec.h"
#include "io/io.h"

typedef struct blk {
    struct blk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} blk;

typedef struct parser {
    const unsigned char *s;
    size_t len, pos;
    uint32_t line;
    size_t line_start;
    unsigned depth;
    size_t values;
    const zp__json_limits *lim;
    blk *arena;
    zp__ioerr *why;
    /* scratch stack of children (and keys, for objects) */
    zp__jval *stk;
    const char **kstk;
    size_t *klen;
    size_t sn, scap;
    zp_err err;
} parser;

void zp__json_limits_default(zp__json_limits *l)
{
    l->max_bytes = (size_t)64 << 20;
    l->max_depth = 64;
    l->max_values = (size_t)16 << 20;
}

static void *arena_alloc(parser *p, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    blk *b = p->arena;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ((size_t)1 << 16) ? n : ((size_t)1 << 16);
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = p->arena;
        b->used = 0;
        b->cap = cap;
        p->arena = b;
    }
    void *r = b->data + b->used;
    b->used += n;
    return r;
}

static void arena_free(blk *b)
{
    while (b) {
        blk *n = b->next;
        free(b);
        b = n;
    }
}

static zp_err fail(parser *p, zp_err code, const char *msg)
{
    if (p->err)
        return p->err;
    size_t col = p->pos - p->line_start + 1;
    p->err = zp__fail(p->why, code, "JSON line %u column %zu: %s", p->line, col, msg);
    return p->err;
}

static zp_err nomem(parser *p)
{
    if (!p->err)
        p->err = zp__fail(p->why, ZP_E_NOMEM, "JSON: out of memory");
    return p->err;
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        unsigned char c = p->s[p->pos];
        if (c == '\n') {
            p->line++;
            p->line_start = p->pos + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        p->pos++;
    }
}

static int peek(const parser *p) { return p->pos < p->len ? p->s[p->pos] : -1; }

static zp_err push(parser *p, const zp__jval *v, const char *key, size_t klen)
{
    if (p->sn == p->scap) {
        size_t cap = p->scap ? p->scap * 2 : 64;
        zp__jval *s = realloc(p->stk, cap * sizeof *s);
        if (s)
            p->stk = s;
        const char **k = realloc(p->kstk, cap * sizeof *k);
        if (k)
            p->kstk = k;
        size_t *kl = realloc(p->klen, cap * sizeof *kl);
        if (kl)
            p->klen = kl;
        if (!s || !k || !kl)
            return nomem(p);
        p->scap = cap;
    }
    p->stk[p->sn] = *v;
    p->kstk[p->sn] = key;
    p->klen[p->sn] = klen;
    p->sn++;
    return ZP_OK;
}

static zp_err literal(parser *p, zp__jval *v, const char *word, zp__jtype t)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
        return fail(p, ZP_E_FORMAT, "unexpected character");
    p->pos += n;
    v->type = t;
    return ZP_OK;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static zp_err number(parser *p, zp__jval *v)
{
    size_t start = p->pos;
    if (peek(p) == '-')
        p->pos++;
    if (peek(p) == '0') {
        p->pos++;
        if (is_digit(peek(p)))
            return fail(p, ZP_E_FORMAT, "leading zero in a number");
    } else if (is_digit(peek(p))) {
        while (is_digit(peek(p)))
            p->pos++;
    } else {
        return fail(p, ZP_E_FORMAT, "bad number");
    }
    if (peek(p) == '.') {
        p->pos++;
        if (!is_digit(peek(p)))
            return fail(p, ZP_E_FORMAT, "digit expected after the decimal point");
        while (is_digit(peek(p)))
            p->pos++;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-')
            p->pos++;
        if (!is_digit(peek(p)))
            return fail(p, ZP_E_FORMAT, "digit expected in the exponent");
        while (is_digit(peek(p)))
            p->pos++;
    }
    size_t n = p->pos - start;
    char *t = arena_alloc(p, n + 1);
    if (!t)
        return nomem(p);
    memcpy(t, p->s + start, n);
    t[n] = 0;
    v->type = ZP__J_NUMBER;
    v->str = t;
    v->len = n;
    return ZP_OK;
}

/* Four hex digits after "\u"; -1 when malformed. */
static long hex4(parser *p)
{
    if (p->len - p->pos < 4)
        return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int h = zp__hex_digit(p->s[p->pos + i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    p->pos += 4;
    return v;
}

static size_t put_utf8(char *o, unsigned long cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Length of a valid UTF-8 sequence at s[0..n), 0 when invalid (overlong,
 * surrogate, beyond U+10FFFF, truncated). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t k;
    unsigned long cp, min;
    if (c >= 0xc2 && c <= 0xdf)
        k = 2, cp = c & 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        k = 3, cp = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        k = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n < k)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return k;
}

/* A \u escape (and its low surrogate if it is a high one) as UTF-8. */
static zp_err unicode_escape(parser *p, char *out, size_t *o)
{
    long cp = hex4(p);
    if (cp < 0)
        return fail(p, ZP_E_FORMAT, "bad \\u escape");
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return fail(p, ZP_E_FORMAT, "lone low surrogate");
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
            return fail(p, ZP_E_FORMAT, "lone high surrogate");
        p->pos += 2;
        long lo = hex4(p);
        if (lo < 0xdc00 || lo > 0xdfff)
            return fail(p, ZP_E_FORMAT, "high surrogate without a low one");
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    /* Decoded strings are C strings too: a NUL would cut "abc\u0000../x"
     * to "abc" for whoever reads it as one, after it was checked whole. */
    if (cp == 0)
        return fail(p, ZP_E_FORMAT, "NUL (\\u0000) in a string");
    /* A \u escape is 6 input bytes; its UTF-8 (<= 4 per 6 or 12) fits. */
    *o += put_utf8(out + *o, (unsigned long)cp);
    return ZP_OK;
}

static zp_err escape(parser *p, char *out, size_t *o)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    if (p->pos >= p->len)
        return fail(p, ZP_E_FORMAT, "unterminated string");
    int c = p->s[p->pos++];
    if (c == 'u')
        return unicode_escape(p, out, o);
    const char *f = c ? strchr(from, c) : NULL;
    if (!f)
        return fail(p, ZP_E_FORMAT, "bad escape");
    out[(*o)++] = to[f - from];
    return ZP_OK;
}

/* p->pos is on the opening quote. The decoded text is never longer than the
 * raw text, so one arena block of the raw length holds it. */
static zp_err string(parser *p, const char **str, size_t *len)
{
    size_t end = ++p->pos;
    while (end < p->len && p->s[end] != '"')
        end += (p->s[end] == '\\') ? 2 : 1;
    if (end >= p->len)
        return fail(p, ZP_E_FORMAT, "unterminated string");
    char *out = arena_alloc(p, end - p->pos + 1);
    if (!out)
        return nomem(p);
    size_t o = 0;
    while (p->pos < end) {
        unsigned char c = p->s[p->pos];
        if (c == '\\') {
            p->pos++;
            zp_err e = escape(p, out, &o);
            if (e)
                return e;
        } else if (c < 0x20) {
            return fail(p, ZP_E_FORMAT, "control character in a string");
        } else if (c < 0x80) {
            out[o++] = (char)c;
            p->pos++;
        } else {
            size_t k = utf8_len(p->s + p->pos, end - p->pos);
            if (!k)
                return fail(p, ZP_E_FORMAT, "invalid UTF-8 in a string");
            memcpy(out + o, p->s + p->pos, k);
            o += k;
            p->pos += k;
        }
    }
    p->pos = end + 1;
    out[o] = 0;
    *str = out;
    *len = o;
    return ZP_OK;
}

static zp_err value(parser *p, zp__jval *v);

/* Moves the children above base from the scratch stack into the arena. */
static zp_err close_container(parser *p, zp__jval *v, size_t base, bool keyed)
{
    size_t n = p->sn - base;
    v->n = n;
    if (n) {
        v->items = arena_alloc(p, n * sizeof *v->items);
        if (!v->items)
            return nomem(p);
        memcpy(v->items, p->stk + base, n * sizeof *v->items);
        if (keyed) {
            v->keys = arena_alloc(p, n * sizeof *v->keys);
            size_t *kl = arena_alloc(p, n * sizeof *kl);
            if (!v->keys || !kl)
                return nomem(p);
            memcpy(v->keys, p->kstk + base, n * sizeof *v->keys);
            memcpy(kl, p->klen + base, n * sizeof *kl);
            v->key_lens = kl;
        }
    }
    p->sn = base;
    return ZP_OK;
}

static zp_err array(parser *p, zp__jval *v)
{
    size_t base = p->sn;
    v->type = ZP__J_ARRAY;
    p->pos++;
    skip_ws(p);
    if (peek(p) == ']') {
        p->pos++;
        return close_container(p, v, base, false);
    }
    for (;;) {
        zp__jval child;
        zp_err e = value(p, &child);
        if (e || (e = push(p, &child, NULL, 0)))
            return e;
        skip_ws(p);
        int c = peek(p);
        p->pos += (c >= 0);
        if (c == ']')
            return close_container(p, v, base, false);
        if (c != ',') {
            p->pos -= (c >= 0);
            return fail(p, ZP_E_FORMAT, "',' or ']' expected");
        }
    }
}

typedef struct keyref {
    const char *k;
    size_t n;
} keyref;

static int keyref_cmp(const void *a, const void *b)
{
    const keyref *x = a, *y = b;
    size_t m = x->n < y->n ? x->n : y->n;
    int c = memcmp(x->k, y->k, m);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* True when two keys are equal: quadratic for small objects, sorted for
 * large ones so a hostile object of many keys stays n log n. */
static bool has_dup_keys(parser *p, const char **keys, const size_t *lens, size_t n)
{
    if (n <= 16) {
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                if (lens[i] == lens[j] && memcmp(keys[i], keys[j], lens[i]) == 0)
                    return true;
        return false;
    }
    keyref *r = malloc(n * sizeof *r);
    if (!r) {
        nomem(p);
        return true;
    }
    for (size_t i = 0; i < n; i++)
        r[i] = (keyref){keys[i], lens[i]};
    qsort(r, n, sizeof *r, keyref_cmp);
    bool dup = false;
    for (size_t i = 1; i < n && !dup; i++)
        dup = keyref_cmp(&r[i - 1], &r[i]) == 0;
    free(r);
    return dup;
}

static zp_err object(parser *p, zp__jval *v)
{
    size_t base = p->sn;
    v->type = ZP__J_OBJECT;
    p->pos++;
    skip_ws(p);
    if (peek(p) == '}') {
        p->pos++;
        return close_container(p, v, base, true);
    }
    for (;;) {
        skip_ws(p);
        if (peek(p) != '"')
            return fail(p, ZP_E_FORMAT, "object key (a string) expected");
        const char *key;
        size_t klen;
        zp_err e = string(p, &key, &klen);
        if (e)
            return e;
        skip_ws(p);
        if (peek(p) != ':')
            return fail(p, ZP_E_FORMAT, "':' expected");
        p->pos++;
        zp__jval child;
        if ((e = value(p, &child)) || (e = push(p, &child, key, klen)))
            return e;
        skip_ws(p);
        int c = peek(p);
        if (c == '}') {
            if (has_dup_keys(p, p->kstk + base, p->klen + base, p->sn - base))
                return fail(p, ZP_E_FORMAT, "duplicate key in object");
            p->pos++;
            return close_container(p, v, base, true);
        }
        if (c != ',')
            return fail(p, ZP_E_FORMAT, "',' or '}' expected");
        p->pos++;
    }
}

static zp_err value(parser *p, zp__jval *v)
{
    memset(v, 0, sizeof *v);
    skip_ws(p);
    v->line = p->line;
    v->col = (uint32_t)(p->pos - p->line_start + 1);
    if (++p->values > p->lim->max_values)
        return fail(p, ZP_E_TOO_LARGE, "too many values");
    int c = peek(p);
    zp_err e;
    switch (c) {
    case '{':
    case '[':
        if (++p->depth > p->lim->max_depth)
            return fail(p, ZP_E_TOO_LARGE, "nesting too deep");
        e = c == '{' ? object(p, v) : array(p, v);
        p->depth--;
        return e;
    case '"':
        v->type = ZP__J_STRING;
        return string(p, &v->str, &v->len);
    case 't':
        return literal(p, v, "true", ZP__J_TRUE);
    case 'f':
        return literal(p, v, "false", ZP__J_FALSE);
    case 'n':
        return literal(p, v, "null", ZP__J_NULL);
    case -1:
        return fail(p, ZP_E_FORMAT, "unexpected end of input");
    default:
        if (c == '-' || is_digit(c))
            return number(p, v);
        return fail(p, ZP_E_FORMAT, "unexpected character");
    }
}

zp_err zp__json_parse(zp__json *doc, const char *text, size_t len,
                      const zp__json_limits *lim, zp__ioerr *why)
{
    zp__json_limits dflt;
    if (!lim) {
        zp__json_limits_default(&dflt);
        lim = &dflt;
    }
    memset(doc, 0, sizeof *doc);
    if (len > lim->max_bytes)
        return zp__fail(why, ZP_E_TOO_LARGE, "JSON input of %zu bytes exceeds %zu", len,
                        lim->max_bytes);
    parser p = {.s = (const unsigned char *)text, .len = len, .line = 1, .lim = lim, .why = why};
    zp__jval *root = arena_alloc(&p, sizeof *root);
    zp_err e = root ? value(&p, root) : nomem(&p);
    if (!e) {
        skip_ws(&p);
        if (p.pos != p.len)
            e = fail(&p, ZP_E_FORMAT, "trailing characters after the JSON value");
    }
    free(p.stk);
    free(p.kstk);
    free(p.klen);
    if (e) {
        arena_free(p.arena);
        return e;
    }
    doc->root = root;
    doc->arena_ = p.arena;
    return ZP_OK;
}

void zp__json_free(zp__json *doc)
{
    arena_free(doc->arena_);
    memset(doc, 0, sizeof *doc);
}

const zp__jval *zp__json_get(const zp__jval *obj, const char *key)
{
    if (!obj || obj->type != ZP__J_OBJECT)
        return NULL;
    size_t n = strlen(key);
    for (size_t i = 0; i < obj->n; i++)
        if (obj->key_lens[i] == n && memcmp(obj->keys[i], key, n) == 0)
            return &obj->items[i];
    return NULL;
}
