/*
 * The daemon's job journal (docs/service.md, Durable jobs): with
 * `--state-dir DIR` every accepted job and every result is appended to
 * DIR/journal and fsynced before the client hears of it, so that a daemon
 * killed at any moment resumes its unfinished jobs and still serves its
 * finished ones after a restart. Uploaded witnesses live in DIR/spool/
 * while their job is unfinished.
 *
 * The file: 8 bytes "ZPJRNL01", then records
 *     u32 RECORD_MAGIC, u32 len, u64 zp__hash64(payload), payload[len]
 * little-endian. payload[0] is the type: a SUBMIT (id, key, priority,
 * partitions, submitted time, witnesses), a RESULT (id, state, error,
 * message, finished time, proofs and public inputs) or a FORGET (id: a
 * submit the engine refused after it was journaled). The journal is input
 * from disk: every length is bounded before it is used, a record whose
 * checksum fails is skipped (the reader looks for the next record magic),
 * and a torn tail (a crash in the middle of an append) is cut off; both are
 * logged. Finished jobs are dropped TTL seconds after they finish, oldest
 * first when more than max_jobs are held; the file is rewritten (temporary
 * file, fsync, rename, fsync of the folder) when it holds more than twice
 * the bytes of the jobs it keeps.
 *
 * Thread-safe: one mutex around the table and the file. Independent of the
 * engine, so tests/test_journal.c drives it alone.
 */
#ifndef ZP_SERVER_JOURNAL_H
#define ZP_SERVER_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

#define ZP__JRN_MAGIC "ZPJRNL01"
#define ZP__JRN_RECORD_MAGIC 0x7a6a726eu  /* "nrjz" little-endian */
#define ZP__JRN_RECORD_MAX ((uint32_t)256 << 20)
#define ZP__JRN_PATH_MAX 4096   /* a witness path */
#define ZP__JRN_PARTS_MAX 65536 /* partitions of one job */
#define ZP__JRN_SPOOL_NAME 48   /* a spool file's name, with its NUL */

enum zp__jwit_kind {
    ZP__JWIT_FILE = 1,   /* a path the client named */
    ZP__JWIT_SYNTH = 3,  /* a synthetic witness's seed */
    ZP__JWIT_SPOOL = 4,  /* an upload, kept in DIR/spool/ */
};

typedef struct zp__jwit {
    uint8_t kind;
    char *path;          /* FILE: the path; SPOOL: the file's name in spool/ */
    uint64_t seed;       /* SYNTH */
    uint64_t len, hash;  /* SPOOL: the upload's length and zp__hash64 */
} zp__jwit;

typedef struct zp__jjob {
    char id[ZP_JOB_ID_MAX + 1];
    char key[ZP_NAME_MAX + 1];
    zp_priority prio;
    uint32_t partitions, n_wit;
    zp__jwit *wit;
    uint64_t submitted_ms;   /* wall clock, milliseconds since the epoch */
    /* The result, once journaled: */
    bool finished;
    zp_job_state state;      /* DONE, FAILED or CANCELLED */
    zp_err error;
    char message[256];
    uint64_t finished_ms;
    uint32_t parts_done, n_public;
    uint8_t *proofs;         /* partitions × 192 bytes (DONE) */
    size_t proofs_len;
    uint8_t *pub;            /* partitions × n_public × 32 bytes (DONE) */
    size_t pub_len;
    uint64_t rec_bytes;      /* bytes of its records in the file */
} zp__jjob;

/* Frees what a zp__jjob points to (not j itself). */
void zp__jjob_free(zp__jjob *j);
/* Whether a and b describe the same request (key, priority, partitions,
 * witnesses: paths, seeds, uploads by length and hash). */
bool zp__jjob_same(const zp__jjob *a, const zp__jjob *b);

typedef struct zp__journal_cfg {
    const char *dir;        /* the state folder; made (0700) when missing */
    double ttl_s;           /* finished jobs are dropped this long after */
    uint32_t max_jobs;      /* jobs held; the oldest finished make room */
    uint64_t compact_min;   /* no rewrite while the file is smaller */
} zp__journal_cfg;

typedef struct zp__journal_stats {
    size_t jobs, pending;
    uint64_t file_bytes, live_bytes;
    uint64_t dropped_bytes;  /* damaged or torn bytes skipped at open */
    uint64_t compactions;
} zp__journal_stats;

typedef struct zp__journal zp__journal;

/*
 * Opens (or makes) DIR/journal and DIR/spool/, takes DIR/lock (a second
 * daemon on the same folder is ZP_E_EXISTS), replays the records, drops
 * what expired by now_ms, removes spool files no unfinished job names, and
 * rewrites the file when anything was dropped. ZP_E_IO, ZP_E_FORMAT (not a
 * journal), ZP_E_NOMEM; why says which file and what.
 */
zp_err zp__journal_open(zp__journal **out, const zp__journal_cfg *cfg, uint64_t now_ms,
                        char *why, size_t why_len);
void zp__journal_close(zp__journal *j);

/* Journals a new job (a copy of job's request fields) and fsyncs it.
 * ZP_E_EXISTS when the id is there already, ZP_E_BUSY when max_jobs
 * unfinished jobs are held, ZP_E_IO when the write failed (the job is not
 * journaled), ZP_E_TOO_LARGE past ZP__JRN_RECORD_MAX. */
zp_err zp__journal_add(zp__journal *j, const zp__jjob *job);
/* Journals the result of id from res (state .. pub; finished_ms as given)
 * and fsyncs it, then removes the job's spool files. ZP_OK also when its
 * result was journaled before (nothing changes); ZP_E_NOT_FOUND, ZP_E_IO. */
zp_err zp__journal_finish(zp__journal *j, const char *id, const zp__jjob *res);
/* Journals that job id is no more (its submit failed after it was
 * journaled) and drops it; its spool files are left to the caller.
 * ZP_E_NOT_FOUND, ZP_E_IO. */
zp_err zp__journal_forget(zp__journal *j, const char *id);
/* 0: no job id; 1: journaled, unfinished; 2: its result is journaled. */
int zp__journal_has(zp__journal *j, const char *id);
/* A deep copy of job id (zp__jjob_free it); false when there is none. */
bool zp__journal_get(zp__journal *j, const char *id, zp__jjob *out);
/* The ids of the unfinished jobs in the order they were journaled
 * (malloc'd, *n of them; NULL with *n = 0 when none). */
zp_err zp__journal_pending(zp__journal *j, char (**ids)[ZP_JOB_ID_MAX + 1], size_t *n);
/* Drops finished jobs whose TTL ran out by now_ms; rewrites the file when
 * it holds more than twice the bytes kept (and compact_min). */
void zp__journal_expire(zp__journal *j, uint64_t now_ms);
/* Rewrites the file with the jobs kept, atomically. */
zp_err zp__journal_compact(zp__journal *j);
void zp__journal_stats_get(zp__journal *j, zp__journal_stats *out);

/* A new, empty spool file for an upload: its fd (write-only, 0600) and its
 * name in spool/; -1 on failure. */
int zp__journal_spool_create(zp__journal *j, char name[ZP__JRN_SPOOL_NAME]);
/* DIR/spool/name into out (false when it does not fit). */
bool zp__journal_spool_path(const zp__journal *j, const char *name, char *out, size_t cap);
/* fsyncs fd and the spool folder: the upload is durable. */
zp_err zp__journal_spool_sync(zp__journal *j, int fd);
/* Removes spool/name (a name zp__journal_spool_create gave). */
void zp__journal_spool_remove(zp__journal *j, const char *name);

/* Wall clock in milliseconds since the epoch. */
uint64_t zp__journal_now_ms(void);

#endif
