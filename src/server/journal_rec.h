/*
 * The journal's records (journal_rec.c), internal to journal.c: a record
 * is a 16-byte header (u32 magic, u32 payload length, u64 hash of the
 * payload) and a payload whose first byte is its type. Writing goes
 * through a growable buffer that turns bad instead of failing at each
 * step; reading checks every length against what is left and every
 * bound against journal.h's limits.
 */
#ifndef ZP_SERVER_JOURNAL_REC_H
#define ZP_SERVER_JOURNAL_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/io.h"
#include "server/journal.h"

enum { ZP__JREC_SUBMIT = 1, ZP__JREC_RESULT = 2, ZP__JREC_FORGET = 3 };

#define ZP__JREC_HDR 16 /* u32 magic, u32 len, u64 hash */

/* A record being written; bad once anything failed (no memory, a field
 * or the record too long): then it is not to be written. */
typedef struct zp__jbuf {
    uint8_t *p;
    size_t n, cap;
    bool bad;
} zp__jbuf;

/* A header to fill and the type byte; the fields; the header filled. */
void zp__jrec_begin(zp__jbuf *b, uint8_t type);
void zp__jrec_put_str(zp__jbuf *b, const char *s);
void zp__jrec_seal(zp__jbuf *b);
/* A whole SUBMIT (the job's request) or RESULT record. */
void zp__jrec_submit(zp__jbuf *b, const zp__jjob *j);
void zp__jrec_result(zp__jbuf *b, const zp__jjob *j);

/* Readers of a payload after its type byte; false when malformed. */
bool zp__jrec_get_str(zp__rd *r, char *out, size_t max);
bool zp__jrec_decode_submit(zp__rd *r, zp__jjob *j);
bool zp__jrec_decode_result(zp__rd *r, zp__jjob *res);
/* The result's sizes agree with the job's partitions. */
bool zp__jrec_fits(const zp__jjob *job, const zp__jjob *res);

/* The intact record at d[at], its payload length in *plen; false when the
 * bytes there are not one. */
bool zp__jrec_at(const uint8_t *d, uint64_t len, uint64_t at, uint32_t *plen);
/* Where the next intact record starts at or after from (len when none). */
uint64_t zp__jrec_resync(const uint8_t *d, uint64_t len, uint64_t from);

#endif
