/*
 * The journal's records (journal_rec.h): a job record's comparison and
 * release (journal.h), encoding into a growable buffer, decoding with
 * every length and bound checked, and finding intact records in a file's
 * bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "io/zpk.h"
#include "server/journal_rec.h"

/* ------------------------------------------------------------ jobs */

void zp__jjob_free(zp__jjob *j)
{
    for (uint32_t i = 0; j->wit && i < j->n_wit; i++)
        free(j->wit[i].path);
    free(j->wit);
    free(j->proofs);
    free(j->pub);
    j->wit = NULL;
    j->proofs = j->pub = NULL;
}

bool zp__jjob_same(const zp__jjob *a, const zp__jjob *b)
{
    if (strcmp(a->key, b->key) || a->prio != b->prio || a->partitions != b->partitions ||
        a->n_wit != b->n_wit)
        return false;
    for (uint32_t i = 0; i < a->n_wit; i++) {
        const zp__jwit *x = &a->wit[i], *y = &b->wit[i];
        if (x->kind != y->kind)
            return false;
        if (x->kind == ZP__JWIT_FILE && strcmp(x->path, y->path))
            return false;
        if (x->kind == ZP__JWIT_SYNTH && x->seed != y->seed)
            return false;
        if (x->kind == ZP__JWIT_SPOOL && (x->len != y->len || x->hash != y->hash))
            return false;
    }
    return true;
}

/* ------------------------------------------------------------ encoding */

static void put(zp__jbuf *b, const void *d, size_t n)
{
    if (b->bad)
        return;
    if (n > ZP__JRN_RECORD_MAX || b->n + n > (size_t)ZP__JRN_RECORD_MAX + ZP__JREC_HDR) {
        b->bad = true;
        return;
    }
    if (b->n + n > b->cap) {
        size_t want = b->cap ? b->cap : 256;
        while (want < b->n + n)
            want *= 2;
        uint8_t *p = realloc(b->p, want);
        if (!p) {
            b->bad = true;
            return;
        }
        b->p = p;
        b->cap = want;
    }
    if (n)
        memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put8(zp__jbuf *b, uint8_t v) { put(b, &v, 1); }

static void put32(zp__jbuf *b, uint32_t v)
{
    uint8_t t[4];
    zp__put32(t, v);
    put(b, t, 4);
}

static void put64(zp__jbuf *b, uint64_t v)
{
    uint8_t t[8];
    zp__put64(t, v);
    put(b, t, 8);
}

/* A string with a u16 length. */
void zp__jrec_put_str(zp__jbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (n > 0xffff) {
        b->bad = true;
        return;
    }
    uint8_t t[2] = {(uint8_t)n, (uint8_t)(n >> 8)};
    put(b, t, 2);
    put(b, s, n);
}

void zp__jrec_begin(zp__jbuf *b, uint8_t type)
{
    uint8_t hdr[ZP__JREC_HDR] = {0};
    put(b, hdr, sizeof hdr);
    put8(b, type);
}

/* Fills the record header once the payload is in. */
void zp__jrec_seal(zp__jbuf *b)
{
    if (b->bad)
        return;
    size_t len = b->n - ZP__JREC_HDR;
    zp__put32(b->p, ZP__JRN_RECORD_MAGIC);
    zp__put32(b->p + 4, (uint32_t)len);
    zp__put64(b->p + 8, zp__hash64(b->p + ZP__JREC_HDR, len, 1));
}

void zp__jrec_submit(zp__jbuf *b, const zp__jjob *j)
{
    zp__jrec_begin(b, ZP__JREC_SUBMIT);
    zp__jrec_put_str(b, j->id);
    zp__jrec_put_str(b, j->key);
    put8(b, (uint8_t)j->prio);
    put32(b, j->partitions);
    put64(b, j->submitted_ms);
    put32(b, j->n_wit);
    for (uint32_t i = 0; i < j->n_wit; i++) {
        const zp__jwit *w = &j->wit[i];
        put8(b, w->kind);
        if (w->kind == ZP__JWIT_SYNTH) {
            put64(b, w->seed);
            continue;
        }
        zp__jrec_put_str(b, w->path);
        if (w->kind == ZP__JWIT_SPOOL) {
            put64(b, w->len);
            put64(b, w->hash);
        }
    }
    zp__jrec_seal(b);
}

void zp__jrec_result(zp__jbuf *b, const zp__jjob *j)
{
    zp__jrec_begin(b, ZP__JREC_RESULT);
    zp__jrec_put_str(b, j->id);
    put8(b, (uint8_t)j->state);
    put32(b, (uint32_t)j->error);
    zp__jrec_put_str(b, j->message);
    put64(b, j->finished_ms);
    put32(b, j->parts_done);
    put32(b, j->n_public);
    put64(b, j->proofs_len);
    put(b, j->proofs, j->proofs_len);
    put64(b, j->pub_len);
    put(b, j->pub, j->pub_len);
    zp__jrec_seal(b);
}

/* ------------------------------------------------------------ decoding */

/* A string with a u16 length of 1..max bytes, without NUL, into out
 * (max + 1 bytes). */
bool zp__jrec_get_str(zp__rd *r, char *out, size_t max)
{
    const uint8_t *p = zp__rd_take(r, 2);
    if (!p)
        return false;
    size_t n = (size_t)p[0] | (size_t)p[1] << 8;
    const uint8_t *s = n <= max ? zp__rd_take(r, n) : NULL;
    if (!s || n == 0 || memchr(s, 0, n))
        return false;
    memcpy(out, s, n);
    out[n] = 0;
    return true;
}

static bool get8(zp__rd *r, uint8_t *v)
{
    const uint8_t *p = zp__rd_take(r, 1);
    if (p)
        *v = *p;
    return p != NULL;
}

static bool get64(zp__rd *r, uint64_t *v)
{
    const uint8_t *p = zp__rd_take(r, 8);
    if (p)
        *v = zp__le64(p);
    return p != NULL;
}

static bool decode_wit(zp__rd *r, zp__jwit *w)
{
    char path[ZP__JRN_PATH_MAX + 1];
    if (!get8(r, &w->kind))
        return false;
    if (w->kind == ZP__JWIT_SYNTH)
        return get64(r, &w->seed);
    if (w->kind != ZP__JWIT_FILE && w->kind != ZP__JWIT_SPOOL)
        return false;
    size_t max = w->kind == ZP__JWIT_SPOOL ? ZP__JRN_SPOOL_NAME - 1 : ZP__JRN_PATH_MAX;
    if (!zp__jrec_get_str(r, path, max))
        return false;
    /* A spool name is a plain name: it must not leave the spool folder. */
    if (w->kind == ZP__JWIT_SPOOL && (strchr(path, '/') || path[0] == '.'))
        return false;
    if (w->kind == ZP__JWIT_SPOOL && (!get64(r, &w->len) || !get64(r, &w->hash)))
        return false;
    return (w->path = strdup(path)) != NULL;
}

/* A SUBMIT payload (after its type byte) into j; false when malformed. */
bool zp__jrec_decode_submit(zp__rd *r, zp__jjob *j)
{
    uint8_t prio;
    uint32_t n_wit;
    if (!zp__jrec_get_str(r, j->id, ZP_JOB_ID_MAX) || !zp__jrec_get_str(r, j->key, ZP_NAME_MAX) ||
        !get8(r, &prio) || prio >= ZP_PRIO_COUNT || !zp__rd_u32(r, &j->partitions) ||
        j->partitions == 0 || j->partitions > ZP__JRN_PARTS_MAX || !get64(r, &j->submitted_ms) ||
        !zp__rd_u32(r, &n_wit) || (n_wit != 1 && n_wit != j->partitions))
        return false;
    j->prio = (zp_priority)prio;
    /* Each witness takes at least 3 bytes: bound the count by what is left
     * before allocating for it. */
    if ((uint64_t)n_wit * 3 > zp__rd_left(r) || !(j->wit = calloc(n_wit, sizeof *j->wit)))
        return false;
    j->n_wit = n_wit;
    for (uint32_t i = 0; i < n_wit; i++)
        if (!decode_wit(r, &j->wit[i]))
            return false;
    return zp__rd_left(r) == 0;
}

/* A RESULT payload (after its type byte) into res; false when malformed. */
bool zp__jrec_decode_result(zp__rd *r, zp__jjob *res)
{
    uint8_t state;
    uint32_t err;
    uint64_t n;
    if (!zp__jrec_get_str(r, res->id, ZP_JOB_ID_MAX) || !get8(r, &state) ||
        (state != ZP_JOB_DONE && state != ZP_JOB_FAILED && state != ZP_JOB_CANCELLED) ||
        !zp__rd_u32(r, &err))
        return false;
    const uint8_t *p = zp__rd_take(r, 2);
    size_t ml = p ? ((size_t)p[0] | (size_t)p[1] << 8) : 0;
    const uint8_t *m = p && ml < sizeof res->message ? zp__rd_take(r, ml) : NULL;
    if (!m || memchr(m, 0, ml))
        return false;
    memcpy(res->message, m, ml);
    res->message[ml] = 0;
    res->state = (zp_job_state)state;
    res->error = (zp_err)(int32_t)err;
    if (!get64(r, &res->finished_ms) || !zp__rd_u32(r, &res->parts_done) ||
        !zp__rd_u32(r, &res->n_public) || !get64(r, &n))
        return false;
    const uint8_t *d = zp__rd_take(r, n);
    if (!d || (n && !(res->proofs = malloc(n))))
        return false;
    if (n)
        memcpy(res->proofs, d, n);
    res->proofs_len = n;
    if (!get64(r, &n) || !(d = zp__rd_take(r, n)) || (n && !(res->pub = malloc(n))))
        return false;
    if (n)
        memcpy(res->pub, d, n);
    res->pub_len = n;
    res->finished = true;
    return zp__rd_left(r) == 0;
}

/* The result's sizes agree with the job's partitions. */
bool zp__jrec_fits(const zp__jjob *job, const zp__jjob *res)
{
    if (res->parts_done > job->partitions)
        return false;
    if (res->state != ZP_JOB_DONE)
        return res->proofs_len == 0 && res->pub_len == 0;
    /* partitions <= 2^16 and n_public < 2^32: the product fits. */
    return res->proofs_len == (uint64_t)job->partitions * 192 &&
           res->pub_len == (uint64_t)job->partitions * res->n_public * 32;
}

/* ------------------------------------------------------------ framing */

bool zp__jrec_at(const uint8_t *d, uint64_t len, uint64_t at, uint32_t *plen)
{
    if (len - at < ZP__JREC_HDR || zp__le32(d + at) != ZP__JRN_RECORD_MAGIC)
        return false;
    uint32_t n = zp__le32(d + at + 4);
    if (n == 0 || n > ZP__JRN_RECORD_MAX || n > len - at - ZP__JREC_HDR)
        return false;
    *plen = n;
    return zp__hash64(d + at + ZP__JREC_HDR, n, 1) == zp__le64(d + at + 8);
}

uint64_t zp__jrec_resync(const uint8_t *d, uint64_t len, uint64_t from)
{
    uint32_t n;
    for (uint64_t at = from; at + ZP__JREC_HDR <= len; at++)
        if (zp__jrec_at(d, len, at, &n))
            return at;
    return len;
}
