/*
 * The daemon's job journal (src/server/journal.c) alone, without an engine:
 * write and reopen, a torn tail, a damaged record in the middle, expiry and
 * compaction, the job cap, the lock, spool files, and hand-made records
 * whose checksums are right but whose lengths and fields are not (the
 * journal is input from disk: every length read back is bounded).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "io/io.h"
#include "io/zpk.h"
#include "server/journal.h"

static char dir[256];
static char jpath[300];
static const uint64_t T0 = 1800000000000ull; /* a wall clock, ms */

static zp__journal_cfg cfg(void)
{
    return (zp__journal_cfg){.dir = dir, .ttl_s = 60, .max_jobs = 16, .compact_min = 0};
}

static zp__journal *open_at(uint64_t now)
{
    zp__journal_cfg c = cfg();
    zp__journal *j = NULL;
    char why[512];
    zp_err e = zp__journal_open(&j, &c, now, why, sizeof why);
    if (e)
        fprintf(stderr, "open: %s (%s)\n", zp_strerror(e), why);
    CHECK_EQ_INT(e, ZP_OK);
    return j;
}

static void fresh_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

static long file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

/* A job of p partitions; witness kind k (SPOOL: the name given). */
static void make_job(zp__jjob *j, const char *id, uint32_t p, uint8_t k, const char *path)
{
    memset(j, 0, sizeof *j);
    snprintf(j->id, sizeof j->id, "%s", id);
    snprintf(j->key, sizeof j->key, "mul3");
    j->prio = ZP_PRIO_HIGH;
    j->partitions = p;
    j->submitted_ms = T0;
    j->n_wit = 1;
    j->wit = calloc(1, sizeof *j->wit);
    j->wit[0].kind = k;
    j->wit[0].seed = 77;
    j->wit[0].len = 1234;
    j->wit[0].hash = 0xabcdef;
    if (path)
        j->wit[0].path = strdup(path);
}

/* A done result of p partitions, n public inputs each, bytes from seed. */
static void make_result(zp__jjob *r, uint32_t p, uint32_t n, uint8_t seed, uint64_t at)
{
    memset(r, 0, sizeof *r);
    r->state = ZP_JOB_DONE;
    r->finished_ms = at;
    r->parts_done = p;
    r->n_public = n;
    r->proofs_len = (size_t)p * 192;
    r->pub_len = (size_t)p * n * 32;
    r->proofs = malloc(r->proofs_len);
    r->pub = malloc(r->pub_len ? r->pub_len : 1);
    for (size_t i = 0; i < r->proofs_len; i++)
        r->proofs[i] = (uint8_t)(seed + i);
    for (size_t i = 0; i < r->pub_len; i++)
        r->pub[i] = (uint8_t)(seed ^ i);
}

static void add(zp__journal *j, const char *id, uint8_t kind, const char *path)
{
    zp__jjob x;
    make_job(&x, id, 1, kind, path);
    CHECK_EQ_INT(zp__journal_add(j, &x), ZP_OK);
    zp__jjob_free(&x);
}

static void finish_done(zp__journal *j, const char *id, uint8_t seed, uint64_t at)
{
    zp__jjob r;
    make_result(&r, 1, 2, seed, at);
    CHECK_EQ_INT(zp__journal_finish(j, id, &r), ZP_OK);
    zp__jjob_free(&r);
}

/* ------------------------------------------------------- tests */

static void test_write_reopen(void)
{
    fresh_dir();
    zp__journal *j = open_at(T0);
    add(j, "a", ZP__JWIT_FILE, "/data/a.wtns");
    add(j, "b", ZP__JWIT_SYNTH, NULL);
    zp__jjob m;
    make_job(&m, "c", 3, ZP__JWIT_FILE, NULL);
    free(m.wit);
    m.n_wit = 3;
    m.wit = calloc(3, sizeof *m.wit);
    for (int i = 0; i < 3; i++) {
        char p[32];
        snprintf(p, sizeof p, "/w/%d.wtns", i);
        m.wit[i] = (zp__jwit){.kind = ZP__JWIT_FILE, .path = strdup(p)};
    }
    CHECK_EQ_INT(zp__journal_add(j, &m), ZP_OK);
    CHECK_EQ_INT(zp__journal_add(j, &m), ZP_E_EXISTS);
    finish_done(j, "a", 5, T0 + 10);
    zp__jjob f = {.state = ZP_JOB_FAILED, .error = ZP_E_WITNESS, .finished_ms = T0 + 20};
    snprintf(f.message, sizeof f.message, "witness of the wrong length");
    CHECK_EQ_INT(zp__journal_finish(j, "b", &f), ZP_OK);
    CHECK_EQ_INT(zp__journal_finish(j, "b", &f), ZP_OK); /* again: no change */
    CHECK_EQ_INT(zp__journal_finish(j, "zz", &f), ZP_E_NOT_FOUND);
    /* A refused submit is forgotten, for good. */
    add(j, "gone", ZP__JWIT_FILE, "/g");
    CHECK_EQ_INT(zp__journal_forget(j, "gone"), ZP_OK);
    CHECK_EQ_INT(zp__journal_forget(j, "gone"), ZP_E_NOT_FOUND);
    CHECK_EQ_INT(zp__journal_has(j, "gone"), 0);
    zp__journal_close(j);

    j = open_at(T0 + 30);
    zp__journal_stats st;
    zp__journal_stats_get(j, &st);
    CHECK_EQ_INT(st.jobs, 3);
    CHECK_EQ_INT(st.pending, 1);
    CHECK_EQ_INT(st.dropped_bytes, 0);
    zp__jjob g;
    CHECK(zp__journal_get(j, "a", &g));
    zp__jjob want;
    make_result(&want, 1, 2, 5, 0);
    CHECK(g.finished && g.state == ZP_JOB_DONE && g.n_public == 2);
    CHECK_EQ_INT(g.proofs_len, 192);
    CHECK_EQ_INT(g.pub_len, 64);
    CHECK(g.proofs && g.pub && !memcmp(g.proofs, want.proofs, 192) && !memcmp(g.pub, want.pub, 64));
    CHECK(!strcmp(g.wit[0].path, "/data/a.wtns") && g.prio == ZP_PRIO_HIGH);
    CHECK_EQ_INT(g.finished_ms, T0 + 10);
    zp__jjob_free(&g);
    zp__jjob_free(&want);
    CHECK(zp__journal_get(j, "b", &g));
    CHECK(g.state == ZP_JOB_FAILED && g.error == ZP_E_WITNESS && !strcmp(g.message, "witness of the wrong length"));
    CHECK(g.wit[0].kind == ZP__JWIT_SYNTH && g.wit[0].seed == 77);
    zp__jjob_free(&g);
    CHECK(zp__journal_get(j, "c", &g));
    CHECK(!g.finished && g.n_wit == 3 && !strcmp(g.wit[2].path, "/w/2.wtns"));
    CHECK(zp__jjob_same(&g, &m));
    free(g.wit[1].path);
    g.wit[1].path = strdup("/w/other");
    CHECK(!zp__jjob_same(&g, &m));
    zp__jjob_free(&g);
    CHECK_EQ_INT(zp__journal_has(j, "c"), 1);
    CHECK_EQ_INT(zp__journal_has(j, "a"), 2);
    CHECK_EQ_INT(zp__journal_has(j, "nope"), 0);
    CHECK_EQ_INT(zp__journal_has(j, "gone"), 0);
    char (*ids)[ZP_JOB_ID_MAX + 1];
    size_t n;
    CHECK_EQ_INT(zp__journal_pending(j, &ids, &n), ZP_OK);
    CHECK(n == 1 && !strcmp(ids[0], "c"));
    free(ids);
    zp__jjob_free(&m);
    zp__journal_close(j);
}

/* Cutting the file anywhere inside the last record keeps every record
 * before it, logs, and leaves a file that takes appends again. */
static void test_torn_tail(void)
{
    fresh_dir();
    zp__journal *j = open_at(T0);
    add(j, "a", ZP__JWIT_FILE, "/a");
    add(j, "b", ZP__JWIT_FILE, "/b");
    zp__journal_close(j);
    long before_last = file_size(jpath);
    j = open_at(T0);
    finish_done(j, "b", 9, T0);
    zp__journal_close(j);
    long full = file_size(jpath);
    uint8_t *copy = malloc((size_t)full);
    FILE *f = fopen(jpath, "rb");
    CHECK(f && fread(copy, 1, (size_t)full, f) == (size_t)full);
    fclose(f);
    for (long cut = 1; cut < full - before_last; cut += 37) {
        f = fopen(jpath, "wb");
        fwrite(copy, 1, (size_t)(full - cut), f);
        fclose(f);
        j = open_at(T0);
        zp__journal_stats st;
        zp__journal_stats_get(j, &st);
        CHECK_EQ_INT(st.jobs, 2);
        CHECK_EQ_INT(st.pending, 2);
        CHECK_EQ_INT(st.dropped_bytes, full - cut - before_last);
        CHECK_EQ_INT(file_size(jpath), before_last);
        zp__journal_close(j);
    }
    /* Appends after a cut are read back. */
    j = open_at(T0);
    finish_done(j, "a", 3, T0);
    zp__journal_close(j);
    j = open_at(T0);
    CHECK_EQ_INT(zp__journal_has(j, "a"), 2);
    CHECK_EQ_INT(zp__journal_has(j, "b"), 1);
    zp__journal_close(j);
    free(copy);
}

/* A damaged record in the middle is skipped; the records after it stay. */
static void test_damage(void)
{
    fresh_dir();
    zp__journal *j = open_at(T0);
    add(j, "a", ZP__JWIT_FILE, "/a");
    long a_end = file_size(jpath);
    add(j, "b", ZP__JWIT_FILE, "/b");
    long b_end = file_size(jpath);
    add(j, "c", ZP__JWIT_FILE, "/c");
    finish_done(j, "b", 1, T0); /* skipped too: its job is gone */
    zp__journal_close(j);
    int fd = open(jpath, O_RDWR);
    uint8_t byte;
    long at = (a_end + b_end) / 2;
    CHECK(pread(fd, &byte, 1, at) == 1);
    byte ^= 0x40;
    CHECK(pwrite(fd, &byte, 1, at) == 1);
    close(fd);
    j = open_at(T0);
    zp__journal_stats st;
    zp__journal_stats_get(j, &st);
    CHECK_EQ_INT(st.jobs, 2);
    CHECK_EQ_INT(st.dropped_bytes, b_end - a_end);
    CHECK_EQ_INT(zp__journal_has(j, "a"), 1);
    CHECK_EQ_INT(zp__journal_has(j, "b"), 0);
    CHECK_EQ_INT(zp__journal_has(j, "c"), 1);
    CHECK_EQ_INT(st.compactions, 1); /* rewritten clean at open */
    zp__journal_close(j);
    j = open_at(T0);
    zp__journal_stats_get(j, &st);
    CHECK_EQ_INT(st.jobs, 2);
    CHECK_EQ_INT(st.dropped_bytes, 0);
    zp__journal_close(j);
}

static void test_expiry_compaction(void)
{
    fresh_dir();
    zp__journal *j = open_at(T0);
    char id[16];
    for (int i = 0; i < 12; i++) {
        snprintf(id, sizeof id, "j%d", i);
        add(j, id, ZP__JWIT_FILE, "/w");
        if (i < 10)
            finish_done(j, id, (uint8_t)i, T0 + (uint64_t)i * 1000);
    }
    long big = file_size(jpath);
    /* TTL 60 s: at T0 + 64.5 s the first five (finished by T0 + 4 s) expire. */
    zp__journal_expire(j, T0 + 64500);
    zp__journal_stats st;
    zp__journal_stats_get(j, &st);
    CHECK_EQ_INT(st.jobs, 7);
    CHECK(st.file_bytes == (uint64_t)file_size(jpath));
    /* Everything finished expires; pending jobs never do. */
    zp__journal_expire(j, T0 + 1000000);
    zp__journal_stats_get(j, &st);
    CHECK_EQ_INT(st.jobs, 2);
    CHECK_EQ_INT(st.pending, 2);
    CHECK(st.compactions >= 1);
    CHECK(file_size(jpath) < big / 3);
    CHECK_EQ_INT(st.file_bytes, file_size(jpath));
    CHECK_EQ_INT(st.live_bytes + 8, file_size(jpath));
    zp__journal_close(j);
    j = open_at(T0 + 1000000);
    CHECK_EQ_INT(zp__journal_has(j, "j10"), 1);
    CHECK_EQ_INT(zp__journal_has(j, "j11"), 1);
    CHECK_EQ_INT(zp__journal_has(j, "j0"), 0);
    zp__journal_close(j);
    /* Expired at reopen too. */
    fresh_dir();
    j = open_at(T0);
    add(j, "x", ZP__JWIT_FILE, "/w");
    finish_done(j, "x", 1, T0);
    zp__journal_close(j);
    j = open_at(T0 + 61000);
    CHECK_EQ_INT(zp__journal_has(j, "x"), 0);
    zp__journal_close(j);
}

/* max_jobs: the oldest finished job makes room; unfinished never do. */
static void test_cap(void)
{
    fresh_dir();
    zp__journal *j = open_at(T0);
    char id[16];
    for (int i = 0; i < 16; i++) {
        snprintf(id, sizeof id, "j%d", i);
        add(j, id, ZP__JWIT_FILE, "/w");
    }
    zp__jjob x;
    make_job(&x, "more", 1, ZP__JWIT_FILE, "/w");
    CHECK_EQ_INT(zp__journal_add(j, &x), ZP_E_BUSY);
    finish_done(j, "j3", 1, zp__journal_now_ms());
    CHECK_EQ_INT(zp__journal_add(j, &x), ZP_OK);
    CHECK_EQ_INT(zp__journal_has(j, "j3"), 0);
    zp__jjob_free(&x);
    /* Bad requests are refused before anything is written. */
    make_job(&x, "bad", 0, ZP__JWIT_FILE, "/w");
    CHECK_EQ_INT(zp__journal_add(j, &x), ZP_E_INVALID_ARG);
    zp__jjob_free(&x);
    make_job(&x, "bad", 1, ZP__JWIT_FILE, NULL);
    CHECK_EQ_INT(zp__journal_add(j, &x), ZP_E_INVALID_ARG);
    zp__jjob_free(&x);
    /* A result that does not fit its job is refused. */
    zp__jjob r;
    make_result(&r, 2, 1, 0, T0);
    CHECK_EQ_INT(zp__journal_finish(j, "j4", &r), ZP_E_INVALID_ARG);
    zp__jjob_free(&r);
    zp__journal_close(j);
}

static void test_lock_and_format(void)
{
    fresh_dir();
    zp__journal *j = open_at(T0), *k = NULL;
    zp__journal_cfg c = cfg();
    char why[512];
    CHECK_EQ_INT(zp__journal_open(&k, &c, T0, why, sizeof why), ZP_E_EXISTS);
    CHECK(strstr(why, "another daemon") != NULL);
    zp__journal_close(j);
    FILE *f = fopen(jpath, "wb");
    fputs("not a journal at all", f);
    fclose(f);
    CHECK_EQ_INT(zp__journal_open(&k, &c, T0, why, sizeof why), ZP_E_FORMAT);
    CHECK(strstr(why, "not a zkpipe journal") != NULL);
    /* Cut inside its magic (a crash at creation): a fresh journal. */
    f = fopen(jpath, "wb");
    fputs("ZPJR", f);
    fclose(f);
    j = open_at(T0);
    zp__journal_stats st;
    zp__journal_stats_get(j, &st);
    CHECK_EQ_INT(st.jobs, 0);
    zp__journal_close(j);
}

static void test_spool(void)
{
    fresh_dir();
    zp__journal *j = open_at(T0);
    char keep[ZP__JRN_SPOOL_NAME], orphan[ZP__JRN_SPOOL_NAME], p1[512], p2[512];
    int fd1 = zp__journal_spool_create(j, keep);
    int fd2 = zp__journal_spool_create(j, orphan);
    CHECK(fd1 >= 0 && fd2 >= 0 && strcmp(keep, orphan));
    CHECK(write(fd1, "abc", 3) == 3);
    CHECK_EQ_INT(zp__journal_spool_sync(j, fd1), ZP_OK);
    close(fd1);
    close(fd2);
    CHECK(zp__journal_spool_path(j, keep, p1, sizeof p1));
    CHECK(zp__journal_spool_path(j, orphan, p2, sizeof p2));
    add(j, "up", ZP__JWIT_SPOOL, keep);
    zp__journal_close(j);
    j = open_at(T0);
    CHECK(access(p1, F_OK) == 0);  /* named by an unfinished job */
    CHECK(access(p2, F_OK) != 0);  /* named by none: swept */
    zp__journal_close(j);
    /* A rewrite's temporary file that a crash left. */
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%s.tmp.1.0", jpath);
    FILE *f = fopen(tmp, "wb");
    fputs("half", f);
    fclose(f);
    j = open_at(T0);
    CHECK(access(tmp, F_OK) != 0);
    finish_done(j, "up", 1, T0);
    CHECK(access(p1, F_OK) != 0);  /* the result is durable: gone */
    zp__journal_close(j);
}

/* ---------------------------------------------- hand-made records */

typedef struct rec {
    uint8_t b[8192];
    size_t n;
} rec;

static void r8(rec *r, uint8_t v) { r->b[r->n++] = v; }
static void r32(rec *r, uint32_t v) { zp__put32(r->b + r->n, v); r->n += 4; }
static void r64(rec *r, uint64_t v) { zp__put64(r->b + r->n, v); r->n += 8; }
static void rstr_n(rec *r, const char *s, size_t n)
{
    r8(r, (uint8_t)n);
    r8(r, (uint8_t)(n >> 8));
    memcpy(r->b + r->n, s, n < 4000 ? n : 0);
    r->n += n < 4000 ? n : 0;
}
static void rstr(rec *r, const char *s) { rstr_n(r, s, strlen(s)); }

/* A file: the magic, then payload framed with a right checksum. */
static void write_journal(const rec *payloads, int n)
{
    FILE *f = fopen(jpath, "wb");
    fputs(ZP__JRN_MAGIC, f);
    for (int i = 0; i < n; i++) {
        uint8_t h[16];
        zp__put32(h, ZP__JRN_RECORD_MAGIC);
        zp__put32(h + 4, (uint32_t)payloads[i].n);
        zp__put64(h + 8, zp__hash64(payloads[i].b, payloads[i].n, 1));
        fwrite(h, 1, 16, f);
        fwrite(payloads[i].b, 1, payloads[i].n, f);
    }
    fclose(f);
}

/* SUBMIT of id with one FILE witness; the fields as given. */
static void submit_rec(rec *r, const char *id, uint32_t parts, uint32_t n_wit, const char *path)
{
    r->n = 0;
    r8(r, 1);
    rstr(r, id);
    rstr(r, "k");
    r8(r, 2);
    r32(r, parts);
    r64(r, T0);
    r32(r, n_wit);
    for (uint32_t i = 0; i < n_wit && i < 4; i++) {
        r8(r, ZP__JWIT_FILE);
        rstr(r, path);
    }
}

/* Opens a journal of one good SUBMIT and one bad record: the good job
 * alone survives. */
static void expect_bad(const rec *bad, const char *what)
{
    rec recs[2];
    submit_rec(&recs[0], "good", 1, 1, "/w");
    recs[1] = *bad;
    fresh_dir();
    zp__journal *j = open_at(T0);
    zp__journal_close(j);
    write_journal(recs, 2);
    j = open_at(T0);
    zp__journal_stats st;
    zp__journal_stats_get(j, &st);
    if (st.jobs != 1)
        fprintf(stderr, "bad record accepted: %s\n", what);
    CHECK_EQ_INT(st.jobs, 1);
    CHECK_EQ_INT(zp__journal_has(j, "good"), 1);
    zp__journal_close(j);
}

static void test_bounds(void)
{
    rec r;
    char long_id[80];
    memset(long_id, 'x', sizeof long_id);
    long_id[ZP_JOB_ID_MAX + 1] = 0;
    submit_rec(&r, long_id, 1, 1, "/w");
    expect_bad(&r, "an id of 65 characters");
    submit_rec(&r, "", 1, 1, "/w");
    expect_bad(&r, "an empty id");
    submit_rec(&r, "p0", 0, 1, "/w");
    expect_bad(&r, "zero partitions");
    submit_rec(&r, "pbig", ZP__JRN_PARTS_MAX + 1, 1, "/w");
    expect_bad(&r, "too many partitions");
    submit_rec(&r, "nw", 2, 3, "/w");
    expect_bad(&r, "witnesses neither 1 nor partitions");
    submit_rec(&r, "nwbig", 60000, 60000, "/w");
    expect_bad(&r, "a witness count past the record");
    submit_rec(&r, "nul", 1, 1, "/w");
    r.b[3] = 0; /* a NUL inside the id */
    expect_bad(&r, "a NUL in the id");
    submit_rec(&r, "plen", 1, 1, "/w");
    r.n -= 1; /* the path's length now runs past the record */
    expect_bad(&r, "a path past the record");
    submit_rec(&r, "tail", 1, 1, "/w");
    r8(&r, 0);
    expect_bad(&r, "a byte after the last field");
    submit_rec(&r, "prio", 1, 1, "/w");
    r.b[1 + 2 + 4 + 2 + 1] = 9;
    expect_bad(&r, "a bad priority");
    /* A spool name that leaves the spool folder. */
    r.n = 0;
    r8(&r, 1);
    rstr(&r, "sp");
    rstr(&r, "k");
    r8(&r, 2);
    r32(&r, 1);
    r64(&r, T0);
    r32(&r, 1);
    r8(&r, ZP__JWIT_SPOOL);
    rstr(&r, "../../etc/passwd");
    r64(&r, 1);
    r64(&r, 1);
    expect_bad(&r, "a spool name with a slash");
    r.b[1 + 2 + 2 + 2 + 1 + 1 + 4 + 8 + 4] = 9;
    expect_bad(&r, "an unknown witness kind");
    /* An unknown record type. */
    r.n = 0;
    r8(&r, 7);
    rstr(&r, "x");
    expect_bad(&r, "an unknown record type");
    /* Results: for an unknown job, and with lengths that do not fit. */
    r.n = 0;
    r8(&r, 2);
    rstr(&r, "nobody");
    r8(&r, ZP_JOB_DONE);
    r32(&r, 0);
    rstr(&r, "");
    r64(&r, T0);
    r32(&r, 1);
    r32(&r, 0);
    r64(&r, 0);
    r64(&r, 0);
    expect_bad(&r, "a result for no job");
    const uint64_t lens[][2] = {{191, 0}, {192, 1}, {1ull << 40, 0}, {192, 1ull << 40}};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        rec recs[2];
        submit_rec(&recs[0], "good", 1, 1, "/w");
        rec *x = &recs[1];
        x->n = 0;
        r8(x, 2);
        rstr(x, "good");
        r8(x, ZP_JOB_DONE);
        r32(x, 0);
        rstr(x, "");
        r64(x, T0);
        r32(x, 1);
        r32(x, 0);
        r64(x, lens[i][0]);
        for (uint64_t k = 0; k < lens[i][0] && k < 192; k++)
            r8(x, 1);
        r64(x, lens[i][1]);
        if (lens[i][1] == 1)
            r8(x, 1);
        fresh_dir();
        zp__journal_close(open_at(T0));
        write_journal(recs, 2);
        zp__journal *j = open_at(T0);
        CHECK_EQ_INT(zp__journal_has(j, "good"), 1); /* the result was not taken */
        zp__journal_close(j);
    }
    /* A declared record length past the file, and one past the maximum. */
    fresh_dir();
    zp__journal_close(open_at(T0));
    FILE *f = fopen(jpath, "ab");
    uint8_t h[16];
    zp__put32(h, ZP__JRN_RECORD_MAGIC);
    zp__put32(h + 4, 0xffffffffu);
    zp__put64(h + 8, 0);
    fwrite(h, 1, 16, f);
    zp__put32(h + 4, ZP__JRN_RECORD_MAX + 1);
    fwrite(h, 1, 16, f);
    fclose(f);
    zp__journal *j = open_at(T0);
    zp__journal_stats st;
    zp__journal_stats_get(j, &st);
    CHECK_EQ_INT(st.jobs, 0);
    CHECK_EQ_INT(st.dropped_bytes, 32);
    zp__journal_close(j);
}

/* Random damage to a journal of many jobs: opening never fails nor keeps
 * more than was written, and every job it keeps reads back whole. */
static void test_random_damage(void)
{
    fresh_dir();
    zp__journal *j = open_at(T0);
    char id[16];
    for (int i = 0; i < 12; i++) {
        snprintf(id, sizeof id, "r%d", i);
        add(j, id, i % 2 ? ZP__JWIT_FILE : ZP__JWIT_SYNTH, "/w/x.wtns");
        if (i % 3 == 0)
            finish_done(j, id, (uint8_t)i, T0);
    }
    zp__journal_close(j);
    long full = file_size(jpath);
    uint8_t *orig = malloc((size_t)full), *buf = malloc((size_t)full);
    FILE *f = fopen(jpath, "rb");
    CHECK(fread(orig, 1, (size_t)full, f) == (size_t)full);
    fclose(f);
    for (int round = 0; round < 200; round++) {
        memcpy(buf, orig, (size_t)full);
        long len = full;
        int flips = 1 + (int)(check_rand64() % 4);
        for (int k = 0; k < flips; k++)
            buf[8 + check_rand64() % (uint64_t)(full - 8)] ^= (uint8_t)(1 + check_rand64() % 255);
        if (round % 3 == 0)
            len = 8 + (long)(check_rand64() % (uint64_t)(full - 8));
        f = fopen(jpath, "wb");
        fwrite(buf, 1, (size_t)len, f);
        fclose(f);
        j = open_at(T0);
        if (!j)
            continue;
        zp__journal_stats st;
        zp__journal_stats_get(j, &st);
        CHECK(st.jobs <= 12);
        for (int i = 0; i < 12; i++) {
            snprintf(id, sizeof id, "r%d", i);
            zp__jjob g;
            if (!zp__journal_get(j, id, &g))
                continue;
            CHECK(g.n_wit == 1 && g.partitions == 1);
            CHECK(!g.finished || (g.proofs_len == 192 && g.pub_len == 64));
            zp__jjob_free(&g);
        }
        zp__journal_close(j);
    }
    free(orig);
    free(buf);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/zp_test_journal.%d", (int)getpid());
    snprintf(jpath, sizeof jpath, "%s/journal", dir);
    RUN(test_write_reopen);
    RUN(test_torn_tail);
    RUN(test_damage);
    RUN(test_expiry_compaction);
    RUN(test_cap);
    RUN(test_lock_and_format);
    RUN(test_spool);
    RUN(test_bounds);
    RUN(test_random_damage);
    fresh_dir();
    return FINISH();
}
