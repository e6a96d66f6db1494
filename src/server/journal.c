/*
 * The job journal (journal.h): an append-only file of checksummed records,
 * replayed at open into a table of jobs, rewritten atomically when it has
 * grown to more than twice what it keeps.
 */
#define _GNU_SOURCE /* O_CLOEXEC, O_DIRECTORY */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "io/io.h"
#include "io/zpk.h"
#include "server/journal.h"
#include "server/journal_rec.h"

#define FILE_MAX ((uint64_t)16 << 30)

struct zp__journal {
    pthread_mutex_t mu;
    zp__journal_cfg cfg;
    char *dir, *path, *spool;
    int fd, lock_fd;
    zp__jjob **jobs;        /* in journal order */
    size_t n, cap;
    uint64_t file_bytes, live_bytes, dropped_bytes, compactions;
    uint64_t spool_seq;
};

uint64_t zp__journal_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------ the table */

static zp__jjob *find(const zp__journal *j, const char *id, size_t *at)
{
    for (size_t i = 0; i < j->n; i++)
        if (!strcmp(j->jobs[i]->id, id)) {
            if (at)
                *at = i;
            return j->jobs[i];
        }
    return NULL;
}

static bool push(zp__journal *j, zp__jjob *job)
{
    if (j->n == j->cap) {
        size_t cap = j->cap ? j->cap * 2 : 64;
        zp__jjob **p = realloc(j->jobs, cap * sizeof *p);
        if (!p)
            return false;
        j->jobs = p;
        j->cap = cap;
    }
    j->jobs[j->n++] = job;
    j->live_bytes += job->rec_bytes;
    return true;
}

static void drop_at(zp__journal *j, size_t i)
{
    zp__jjob *job = j->jobs[i];
    j->live_bytes -= job->rec_bytes;
    zp__jjob_free(job);
    free(job);
    memmove(&j->jobs[i], &j->jobs[i + 1], (j->n - i - 1) * sizeof *j->jobs);
    j->n--;
}

/* Drops expired finished jobs, then the oldest finished ones beyond room
 * (max_jobs less room). Returns how many went. */
static size_t drop_finished(zp__journal *j, uint64_t now_ms, size_t room)
{
    size_t dropped = 0;
    uint64_t ttl_ms = j->cfg.ttl_s > 0 ? (uint64_t)(j->cfg.ttl_s * 1000) : 0;
    for (size_t i = 0; i < j->n;) {
        const zp__jjob *job = j->jobs[i];
        if (job->finished && job->finished_ms + ttl_ms <= now_ms) {
            drop_at(j, i);
            dropped++;
        } else {
            i++;
        }
    }
    for (size_t i = 0; i < j->n && j->n + room > j->cfg.max_jobs;) {
        if (j->jobs[i]->finished) {
            drop_at(j, i);
            dropped++;
        } else {
            i++;
        }
    }
    return dropped;
}

/* ------------------------------------------------------------ replay */

/* One record's payload applied to the table. Unknown or duplicate ids and
 * results that do not fit their job are skipped: the journal only ever
 * appends one SUBMIT per id and one RESULT after it. */
static void apply(zp__journal *j, const uint8_t *payload, uint32_t len, uint64_t *bad)
{
    zp__rd r = {.p = payload + 1, .len = len - 1};
    zp__jjob *x = calloc(1, sizeof *x);
    bool ok = x != NULL;
    if (ok && payload[0] == ZP__JREC_SUBMIT) {
        ok = zp__jrec_decode_submit(&r, x) && !find(j, x->id, NULL);
        x->rec_bytes = ZP__JREC_HDR + (uint64_t)len;
        if (ok && push(j, x))
            return;
    } else if (ok && payload[0] == ZP__JREC_RESULT) {
        zp__jjob *job;
        ok = zp__jrec_decode_result(&r, x) && (job = find(j, x->id, NULL)) && !job->finished &&
             zp__jrec_fits(job, x);
        if (ok) {
            j->live_bytes += ZP__JREC_HDR + (uint64_t)len;
            job->rec_bytes += ZP__JREC_HDR + (uint64_t)len;
            job->finished = true;
            job->state = x->state;
            job->error = x->error;
            memcpy(job->message, x->message, sizeof job->message);
            job->finished_ms = x->finished_ms;
            job->parts_done = x->parts_done;
            job->n_public = x->n_public;
            job->proofs = x->proofs;
            job->proofs_len = x->proofs_len;
            job->pub = x->pub;
            job->pub_len = x->pub_len;
            x->proofs = x->pub = NULL;
        }
    } else if (ok && payload[0] == ZP__JREC_FORGET) {
        size_t at;
        ok = zp__jrec_get_str(&r, x->id, ZP_JOB_ID_MAX) && zp__rd_left(&r) == 0 && find(j, x->id, &at);
        if (ok)
            drop_at(j, at);
    } else {
        ok = false;
    }
    if (!ok)
        (*bad)++;
    if (x) {
        zp__jjob_free(x);
        free(x);
    }
}

/*
 * Replays data into the table. *good_end receives the end of the last
 * intact record: bytes past it are a torn tail. Damaged stretches before
 * it are skipped (logged), their bytes counted in *skipped.
 */
static void replay(zp__journal *j, const uint8_t *d, uint64_t len, uint64_t *good_end,
                   uint64_t *skipped, uint64_t *bad_records)
{
    uint64_t at = sizeof ZP__JRN_MAGIC - 1;
    *good_end = at;
    *skipped = 0;
    while (at < len) {
        uint32_t n;
        if (!zp__jrec_at(d, len, at, &n)) {
            uint64_t next = zp__jrec_resync(d, len, at + 1);
            if (next == len)
                break; /* the tail: cut by the caller */
            zp__log(ZP__LOG_WARN, "journal.damaged", "path=%s offset=%llu bytes=%llu reason=%s",
                    j->path, (unsigned long long)at, (unsigned long long)(next - at),
                    "a record failed its checksum or length: skipped");
            *skipped += next - at;
            at = next;
            continue;
        }
        apply(j, d + at + ZP__JREC_HDR, n, bad_records);
        at += ZP__JREC_HDR + (uint64_t)n;
        *good_end = at;
    }
}

/* ------------------------------------------------------------ files */

static zp_err fail(char *why, size_t why_len, zp_err e, const char *fmt, const char *a)
{
    snprintf(why, why_len, fmt, a, strerror(errno));
    return e;
}

static bool sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = fsync(fd) == 0;
    close(fd);
    return ok;
}

static bool write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Appends one sealed record and makes it durable. On a failed write the
 * file is cut back to where it was, so a later append starts clean. */
static zp_err append(zp__journal *j, const zp__jbuf *b)
{
    if (b->bad)
        return b->n > ZP__JRN_RECORD_MAX ? ZP_E_TOO_LARGE : ZP_E_NOMEM;
    if (!write_all(j->fd, b->p, b->n) || fdatasync(j->fd) != 0) {
        zp__log(ZP__LOG_ERROR, "journal.write_failed", "path=%s error=%s", j->path, strerror(errno));
        if (ftruncate(j->fd, (off_t)j->file_bytes) == 0)
            (void)lseek(j->fd, 0, SEEK_END);
        return ZP_E_IO;
    }
    j->file_bytes += b->n;
    return ZP_OK;
}

static zp_err open_append(zp__journal *j)
{
    int fd = open(j->path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return ZP_E_IO;
    if (j->fd >= 0)
        close(j->fd);
    j->fd = fd;
    return ZP_OK;
}

/* Called with mu held. */
static zp_err compact_locked(zp__journal *j)
{
    zp__afile f;
    zp__ioerr why = {{0}};
    zp_err e = zp__afile_open(&f, j->path, &why);
    if (e)
        goto out;
    uint64_t bytes = sizeof ZP__JRN_MAGIC - 1;
    zp__afile_write(&f, ZP__JRN_MAGIC, bytes);
    for (size_t i = 0; i < j->n; i++) {
        zp__jbuf b = {0};
        zp__jrec_submit(&b, j->jobs[i]);
        if (j->jobs[i]->finished)
            zp__jrec_result(&b, j->jobs[i]);
        if (b.bad)
            e = ZP_E_NOMEM;
        else
            zp__afile_write(&f, b.p, b.n);
        bytes += b.n;
        j->jobs[i]->rec_bytes = b.n;
        free(b.p);
        if (e)
            break;
    }
    if (e) {
        zp__afile_abort(&f);
        goto out;
    }
    if ((e = zp__afile_commit(&f, &why)) || (e = open_append(j)))
        goto out;
    j->file_bytes = bytes;
    j->live_bytes = bytes - (sizeof ZP__JRN_MAGIC - 1);
    j->compactions++;
out:
    if (e)
        zp__log(ZP__LOG_WARN, "journal.compact_failed", "path=%s error=%s reason=%s", j->path,
                zp_strerror(e), why.msg[0] ? why.msg : "-");
    return e;
}

static bool worth_compacting(const zp__journal *j)
{
    return j->file_bytes > j->cfg.compact_min && j->file_bytes > 2 * j->live_bytes + 64;
}

/* Removes spool files that no unfinished job names: uploads whose job was
 * never journaled, or whose result was journaled just before a crash. */
static void sweep_spool(zp__journal *j)
{
    DIR *d = opendir(j->spool);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        bool used = false;
        for (size_t i = 0; i < j->n && !used; i++) {
            const zp__jjob *job = j->jobs[i];
            for (uint32_t w = 0; !job->finished && w < job->n_wit && !used; w++)
                used = job->wit[w].kind == ZP__JWIT_SPOOL && !strcmp(job->wit[w].path, de->d_name);
        }
        if (!used && unlinkat(dirfd(d), de->d_name, 0) == 0)
            zp__log(ZP__LOG_INFO, "journal.spool_removed", "file=%s reason=%s", de->d_name,
                    "no unfinished job names it");
    }
    closedir(d);
}

/* Removes temporary files of a rewrite a crash interrupted (journal.tmp.*,
 * zp__afile's names): the journal itself is whole either way. */
static void sweep_tmp(zp__journal *j)
{
    DIR *d = opendir(j->dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)))
        if (!strncmp(de->d_name, "journal.tmp.", 12) && unlinkat(dirfd(d), de->d_name, 0) == 0)
            zp__log(ZP__LOG_INFO, "journal.tmp_removed", "file=%s reason=%s", de->d_name,
                    "left by a rewrite that a crash interrupted");
    closedir(d);
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", a, b);
    return p;
}

/* fsyncs the folder that holds path: a new entry in it is durable. */
static bool sync_parent(const char *path)
{
    char *copy = strdup(path);
    bool ok = copy && sync_dir(dirname(copy));
    free(copy);
    return ok;
}

/* The folders, the lock and an empty journal when none exists; every new
 * entry fsynced in its folder. */
static zp_err prepare(zp__journal *j, char *why, size_t why_len)
{
    if (mkdir(j->dir, 0700) == 0) {
        if (!sync_parent(j->dir))
            return fail(why, why_len, ZP_E_IO, "cannot sync the folder of %s: %s", j->dir);
    } else if (errno != EEXIST) {
        return fail(why, why_len, ZP_E_IO, "cannot make the state folder %s: %s", j->dir);
    }
    if (mkdir(j->spool, 0700) == 0) {
        if (!sync_dir(j->dir))
            return fail(why, why_len, ZP_E_IO, "cannot sync the state folder %s: %s", j->dir);
    } else if (errno != EEXIST) {
        return fail(why, why_len, ZP_E_IO, "cannot make the spool folder %s: %s", j->spool);
    }
    char *lock = join(j->dir, "lock");
    if (!lock)
        return ZP_E_NOMEM;
    j->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    free(lock);
    if (j->lock_fd < 0)
        return fail(why, why_len, ZP_E_IO, "cannot open the lock file in %s: %s", j->dir);
    if (flock(j->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK)
            return fail(why, why_len, ZP_E_IO, "cannot lock the state folder %s: %s", j->dir);
        snprintf(why, why_len, "another daemon uses the state folder %s (its lock file is held)", j->dir);
        return ZP_E_EXISTS;
    }
    int fd = open(j->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST)
        return fail(why, why_len, ZP_E_IO, "cannot make the journal %s: %s", j->path);
    if (fd >= 0) {
        bool ok = write_all(fd, (const uint8_t *)ZP__JRN_MAGIC, sizeof ZP__JRN_MAGIC - 1) &&
                  fsync(fd) == 0;
        close(fd);
        if (!ok || !sync_dir(j->dir))
            return fail(why, why_len, ZP_E_IO, "cannot write the journal %s: %s", j->path);
    }
    return ZP_OK;
}

/* Reads and replays the journal; cuts a torn tail. */
static zp_err load(zp__journal *j, uint64_t now_ms, char *why, size_t why_len)
{
    zp__buf b;
    zp__ioerr ie = {{0}};
    zp_err e = zp__file_read(&b, j->path, FILE_MAX, &ie);
    if (e) {
        snprintf(why, why_len, "%s", ie.msg);
        return e;
    }
    size_t ml = sizeof ZP__JRN_MAGIC - 1;
    if (b.len < ml || memcmp(b.data, ZP__JRN_MAGIC, ml)) {
        /* A file cut inside its magic was made by us and never held a job. */
        bool ours = b.len < ml && !memcmp(b.data, ZP__JRN_MAGIC, b.len);
        zp__buf_free(&b);
        if (!ours) {
            snprintf(why, why_len, "%s is not a zkpipe journal (no %s at its start)", j->path, ZP__JRN_MAGIC);
            return ZP_E_FORMAT;
        }
        zp__ioerr we;
        if (zp__file_write_atomic(j->path, ZP__JRN_MAGIC, ml, &we)) {
            snprintf(why, why_len, "%s", we.msg);
            return ZP_E_IO;
        }
        j->file_bytes = ml;
        return ZP_OK;
    }
    uint64_t good_end, skipped, bad = 0;
    replay(j, b.data, b.len, &good_end, &skipped, &bad);
    uint64_t torn = b.len - good_end;
    zp__buf_free(&b);
    j->file_bytes = good_end;
    j->dropped_bytes = skipped + torn;
    if (torn) {
        zp__log(ZP__LOG_WARN, "journal.torn", "path=%s offset=%llu bytes=%llu reason=%s", j->path,
                (unsigned long long)good_end, (unsigned long long)torn,
                "the last record is incomplete or damaged (a crash while it was written): dropped");
        if (truncate(j->path, (off_t)good_end) != 0)
            return fail(why, why_len, ZP_E_IO, "cannot cut the torn tail of %s: %s", j->path);
    }
    if (bad)
        zp__log(ZP__LOG_WARN, "journal.skipped", "path=%s records=%llu reason=%s", j->path,
                (unsigned long long)bad, "records that do not fit the jobs before them");
    size_t expired = drop_finished(j, now_ms, 0);
    if (skipped || bad || expired || worth_compacting(j))
        compact_locked(j);
    return ZP_OK;
}

zp_err zp__journal_open(zp__journal **out, const zp__journal_cfg *cfg, uint64_t now_ms, char *why,
                        size_t why_len)
{
    *out = NULL;
    why[0] = 0;
    zp__journal *j = calloc(1, sizeof *j);
    if (!j)
        return ZP_E_NOMEM;
    j->cfg = *cfg;
    if (!j->cfg.max_jobs)
        j->cfg.max_jobs = 4096;
    j->fd = j->lock_fd = -1;
    pthread_mutex_init(&j->mu, NULL);
    j->dir = strdup(cfg->dir);
    j->path = j->dir ? join(j->dir, "journal") : NULL;
    j->spool = j->dir ? join(j->dir, "spool") : NULL;
    j->cfg.dir = j->dir;
    zp_err e = !j->path || !j->spool ? ZP_E_NOMEM : prepare(j, why, why_len);
    if (!e)
        e = load(j, now_ms, why, why_len);
    if (!e && open_append(j))
        e = fail(why, why_len, ZP_E_IO, "cannot open the journal %s for appending: %s", j->path);
    if (e) {
        zp__journal_close(j);
        return e;
    }
    sweep_spool(j);
    sweep_tmp(j);
    *out = j;
    return ZP_OK;
}

void zp__journal_close(zp__journal *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n; i++) {
        zp__jjob_free(j->jobs[i]);
        free(j->jobs[i]);
    }
    free(j->jobs);
    if (j->fd >= 0)
        close(j->fd);
    if (j->lock_fd >= 0)
        close(j->lock_fd); /* releases the flock */
    pthread_mutex_destroy(&j->mu);
    free(j->dir);
    free(j->path);
    free(j->spool);
    free(j);
}

/* ------------------------------------------------------------ updates */

static bool copy_wit(zp__jjob *dst, const zp__jjob *src)
{
    dst->wit = calloc(src->n_wit, sizeof *dst->wit);
    if (!dst->wit)
        return false;
    dst->n_wit = src->n_wit;
    for (uint32_t i = 0; i < src->n_wit; i++) {
        dst->wit[i] = src->wit[i];
        dst->wit[i].path = NULL;
        if (src->wit[i].path && !(dst->wit[i].path = strdup(src->wit[i].path)))
            return false;
    }
    return true;
}

static bool copy_result(zp__jjob *dst, const zp__jjob *src)
{
    dst->finished = src->finished;
    dst->state = src->state;
    dst->error = src->error;
    snprintf(dst->message, sizeof dst->message, "%s", src->message);
    dst->finished_ms = src->finished_ms;
    dst->parts_done = src->parts_done;
    dst->n_public = src->n_public;
    dst->proofs = src->proofs_len ? malloc(src->proofs_len) : NULL;
    dst->pub = src->pub_len ? malloc(src->pub_len) : NULL;
    if ((src->proofs_len && !dst->proofs) || (src->pub_len && !dst->pub))
        return false;
    if (src->proofs_len)
        memcpy(dst->proofs, src->proofs, src->proofs_len);
    if (src->pub_len)
        memcpy(dst->pub, src->pub, src->pub_len);
    dst->proofs_len = src->proofs_len;
    dst->pub_len = src->pub_len;
    return true;
}

static bool request_ok(const zp__jjob *job)
{
    if (!job->id[0] || !job->key[0] || (unsigned)job->prio >= ZP_PRIO_COUNT || !job->partitions ||
        job->partitions > ZP__JRN_PARTS_MAX || (job->n_wit != 1 && job->n_wit != job->partitions))
        return false;
    for (uint32_t i = 0; i < job->n_wit; i++) {
        const zp__jwit *w = &job->wit[i];
        if (w->kind != ZP__JWIT_SYNTH && (!w->path || !w->path[0] || strlen(w->path) > ZP__JRN_PATH_MAX))
            return false;
    }
    return true;
}

zp_err zp__journal_add(zp__journal *j, const zp__jjob *job)
{
    if (!request_ok(job))
        return ZP_E_INVALID_ARG;
    zp__jjob *x = calloc(1, sizeof *x);
    if (!x)
        return ZP_E_NOMEM;
    memcpy(x->id, job->id, sizeof x->id);
    memcpy(x->key, job->key, sizeof x->key);
    x->prio = job->prio;
    x->partitions = job->partitions;
    x->submitted_ms = job->submitted_ms;
    zp__jbuf b = {0};
    zp_err e = copy_wit(x, job) ? ZP_OK : ZP_E_NOMEM;
    pthread_mutex_lock(&j->mu);
    if (!e && find(j, x->id, NULL))
        e = ZP_E_EXISTS;
    if (!e && j->n >= j->cfg.max_jobs)
        drop_finished(j, zp__journal_now_ms(), 1);
    if (!e && j->n >= j->cfg.max_jobs)
        e = ZP_E_BUSY;
    if (!e) {
        zp__jrec_submit(&b, x);
        e = append(j, &b);
    }
    if (!e) {
        x->rec_bytes = b.n;
        if (!push(j, x))
            e = ZP_E_NOMEM; /* journaled: replayed after a restart */
        else
            x = NULL;
    }
    pthread_mutex_unlock(&j->mu);
    free(b.p);
    if (x) {
        zp__jjob_free(x);
        free(x);
    }
    return e;
}

zp_err zp__journal_finish(zp__journal *j, const char *id, const zp__jjob *res)
{
    zp__jjob r = {0};
    snprintf(r.id, sizeof r.id, "%s", id);
    if (!copy_result(&r, res)) {
        zp__jjob_free(&r);
        return ZP_E_NOMEM;
    }
    r.finished = true;
    zp__jbuf b = {0};
    zp_err e = ZP_OK;
    char (*spooled)[ZP__JRN_SPOOL_NAME] = NULL;
    uint32_t n_spooled = 0;
    pthread_mutex_lock(&j->mu);
    zp__jjob *job = find(j, id, NULL);
    if (!job)
        e = ZP_E_NOT_FOUND;
    else if (job->finished)
        goto out;
    else if (!zp__jrec_fits(job, &r))
        e = ZP_E_INVALID_ARG;
    if (!e) {
        zp__jrec_result(&b, &r);
        e = append(j, &b);
    }
    if (!e) {
        job->rec_bytes += b.n;
        j->live_bytes += b.n;
        job->finished = true;
        job->state = r.state;
        job->error = r.error;
        memcpy(job->message, r.message, sizeof job->message);
        job->finished_ms = r.finished_ms;
        job->parts_done = r.parts_done;
        job->n_public = r.n_public;
        job->proofs = r.proofs;
        job->proofs_len = r.proofs_len;
        job->pub = r.pub;
        job->pub_len = r.pub_len;
        r.proofs = r.pub = NULL;
        spooled = calloc(job->n_wit, sizeof *spooled);
        for (uint32_t i = 0; spooled && i < job->n_wit; i++)
            if (job->wit[i].kind == ZP__JWIT_SPOOL)
                snprintf(spooled[n_spooled++], sizeof *spooled, "%s", job->wit[i].path);
    }
out:
    pthread_mutex_unlock(&j->mu);
    /* The result is durable: the upload is no longer needed. A file left
     * by a crash here is swept at the next open. */
    for (uint32_t i = 0; i < n_spooled; i++)
        zp__journal_spool_remove(j, spooled[i]);
    free(spooled);
    free(b.p);
    zp__jjob_free(&r);
    return e;
}

int zp__journal_has(zp__journal *j, const char *id)
{
    pthread_mutex_lock(&j->mu);
    const zp__jjob *job = find(j, id, NULL);
    int r = !job ? 0 : job->finished ? 2 : 1;
    pthread_mutex_unlock(&j->mu);
    return r;
}

zp_err zp__journal_forget(zp__journal *j, const char *id)
{
    zp__jbuf b = {0};
    zp__jrec_begin(&b, ZP__JREC_FORGET);
    zp__jrec_put_str(&b, id);
    zp__jrec_seal(&b);
    size_t at;
    pthread_mutex_lock(&j->mu);
    zp_err e = find(j, id, &at) ? append(j, &b) : ZP_E_NOT_FOUND;
    if (!e)
        drop_at(j, at);
    pthread_mutex_unlock(&j->mu);
    free(b.p);
    return e;
}

bool zp__journal_get(zp__journal *j, const char *id, zp__jjob *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&j->mu);
    const zp__jjob *job = find(j, id, NULL);
    bool ok = job != NULL;
    if (ok) {
        memcpy(out->id, job->id, sizeof out->id);
        memcpy(out->key, job->key, sizeof out->key);
        out->prio = job->prio;
        out->partitions = job->partitions;
        out->submitted_ms = job->submitted_ms;
        out->rec_bytes = job->rec_bytes;
        ok = copy_wit(out, job) && (!job->finished || copy_result(out, job));
    }
    pthread_mutex_unlock(&j->mu);
    if (!ok)
        zp__jjob_free(out);
    return ok;
}

zp_err zp__journal_pending(zp__journal *j, char (**ids)[ZP_JOB_ID_MAX + 1], size_t *n)
{
    *ids = NULL;
    *n = 0;
    zp_err e = ZP_OK;
    pthread_mutex_lock(&j->mu);
    size_t k = 0;
    for (size_t i = 0; i < j->n; i++)
        k += !j->jobs[i]->finished;
    if (k && !(*ids = malloc(k * sizeof **ids)))
        e = ZP_E_NOMEM;
    for (size_t i = 0; !e && i < j->n; i++)
        if (!j->jobs[i]->finished)
            memcpy((*ids)[(*n)++], j->jobs[i]->id, sizeof **ids);
    pthread_mutex_unlock(&j->mu);
    return e;
}

void zp__journal_expire(zp__journal *j, uint64_t now_ms)
{
    pthread_mutex_lock(&j->mu);
    drop_finished(j, now_ms, 0);
    if (worth_compacting(j))
        compact_locked(j);
    pthread_mutex_unlock(&j->mu);
}

zp_err zp__journal_compact(zp__journal *j)
{
    pthread_mutex_lock(&j->mu);
    zp_err e = compact_locked(j);
    pthread_mutex_unlock(&j->mu);
    return e;
}

void zp__journal_stats_get(zp__journal *j, zp__journal_stats *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&j->mu);
    out->jobs = j->n;
    for (size_t i = 0; i < j->n; i++)
        out->pending += !j->jobs[i]->finished;
    out->file_bytes = j->file_bytes;
    out->live_bytes = j->live_bytes;
    out->dropped_bytes = j->dropped_bytes;
    out->compactions = j->compactions;
    pthread_mutex_unlock(&j->mu);
}

/* ------------------------------------------------------------ spool */

int zp__journal_spool_create(zp__journal *j, char name[ZP__JRN_SPOOL_NAME])
{
    for (int tries = 0; tries < 8; tries++) {
        uint64_t r = 0;
        if (getrandom(&r, sizeof r, 0) != sizeof r)
            r = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
        pthread_mutex_lock(&j->mu);
        uint64_t seq = ++j->spool_seq;
        pthread_mutex_unlock(&j->mu);
        snprintf(name, ZP__JRN_SPOOL_NAME, "up-%016llx-%llu.wtns", (unsigned long long)r,
                 (unsigned long long)seq);
        char path[ZP__JRN_PATH_MAX];
        if (!zp__journal_spool_path(j, name, path, sizeof path))
            return -1;
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

bool zp__journal_spool_path(const zp__journal *j, const char *name, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s/%s", j->spool, name);
    return n > 0 && (size_t)n < cap;
}

zp_err zp__journal_spool_sync(zp__journal *j, int fd)
{
    return fsync(fd) == 0 && sync_dir(j->spool) ? ZP_OK : ZP_E_IO;
}

void zp__journal_spool_remove(zp__journal *j, const char *name)
{
    char path[ZP__JRN_PATH_MAX];
    if (zp__journal_spool_path(j, name, path, sizeof path))
        unlink(path);
}
