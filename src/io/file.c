/*
 * Whole-file reads of regular files only, with a size ceiling, read-only
 * mappings that survive the file's truncation, and atomic
 * writes (temporary file in the same folder, fsync, rename, fsync folder).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io.h"

zp_err zp__fail(zp__ioerr *e, zp_err code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

static zp_err fail_errno(zp__ioerr *why, const char *what, const char *path)
{
    int e = errno;
    zp_err code = (e == ENOENT) ? ZP_E_NOT_FOUND : ZP_E_IO;
    return zp__fail(why, code, "%s %s: %s", what, path, strerror(e));
}

/* What a non-regular file is, for the message that refuses it. */
static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

/* O_NONBLOCK keeps open() of a FIFO without a writer from waiting forever;
 * anything that is not a regular file is refused before a byte is read, so
 * /dev/zero, a FIFO or a terminal can neither stall a thread nor fill
 * memory. */
zp_err zp__file_open(int *fd, struct stat *st, const char *path, uint64_t max_len,
                     zp__ioerr *why)
{
    do
        *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    while (*fd < 0 && errno == EINTR);
    if (*fd < 0)
        return fail_errno(why, "open", path);
    zp_err e = ZP_OK;
    if (fstat(*fd, st) != 0)
        e = fail_errno(why, "stat", path);
    else if (!S_ISREG(st->st_mode))
        e = zp__fail(why, ZP_E_IO, "%s is %s, not a regular file", path,
                     kind_of(st->st_mode));
    else if ((uint64_t)st->st_size > max_len)
        e = zp__fail(why, ZP_E_TOO_LARGE, "%s: %llu bytes, the limit is %llu", path,
                     (unsigned long long)st->st_size, (unsigned long long)max_len);
    else if (fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK) != 0)
        e = fail_errno(why, "fcntl", path);
    if (e) {
        close(*fd);
        *fd = -1;
    }
    return e;
}

static zp_err read_exact(zp__buf *out, int fd, const char *path, size_t size, zp__ioerr *why)
{
    /* One extra byte so a file that grew since fstat is noticed, not cut. */
    uint8_t *p = malloc(size + 1);
    if (!p)
        return ZP_E_NOMEM;
    size_t len = 0;
    while (len < size + 1) {
        ssize_t n = read(fd, p + len, size + 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(p);
            return fail_errno(why, "read", path);
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    if (len != size) {
        free(p);
        return zp__fail(why, ZP_E_IO, "%s changed size while being read", path);
    }
    *out = (zp__buf){.data = p, .len = len, .base_ = p, .kind_ = 1};
    return ZP_OK;
}

zp_err zp__file_read(zp__buf *out, const char *path, uint64_t max_len, zp__ioerr *why)
{
    memset(out, 0, sizeof *out);
    int fd;
    struct stat st;
    zp_err e = zp__file_open(&fd, &st, path, max_len, why);
    if (e)
        return e;
    e = read_exact(out, fd, path, (size_t)st.st_size, why);
    close(fd);
    return e;
}

/* ------------------------------------------------- mappings that fail */

/*
 * A file truncated under a mapping raises SIGBUS where a page past its new
 * end is read. zp__file_map registers each mapping here, and a SIGBUS
 * handler installed once replaces the mapping from the faulting page to
 * its end with zero pages (an anonymous MAP_FIXED mapping: the read that
 * faulted is retried and reads zeros) and marks the mapping changed. The
 * parser then sees zeros and the caller, asking zp__buf_changed, fails
 * with ZP_E_TRUNCATED instead of the process ending. A SIGBUS outside the
 * registered mappings is a real fault: the default action ends the
 * process as before.
 */
#define MAPS_MAX 64

typedef struct map_slot {
    _Atomic(uintptr_t) base; /* 0: free */
    _Atomic(size_t) len;
    atomic_int changed;
} map_slot;

static map_slot maps[MAPS_MAX];
#define MAP_TAKEN ((uintptr_t)1) /* a slot being filled */
static pthread_once_t maps_once = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    const uintptr_t a = (uintptr_t)si->si_addr;
    for (int i = 0; i < MAPS_MAX; i++) {
        const uintptr_t b = atomic_load(&maps[i].base);
        const size_t len = atomic_load(&maps[i].len);
        if (b <= MAP_TAKEN || a < b || a - b >= len)
            continue;
        const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        const uintptr_t from = a & ~(page - 1);
        if (mmap((void *)from, b + len - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                 -1, 0) == MAP_FAILED)
            break;
        atomic_store(&maps[i].changed, 1);
        return;
    }
    signal(sig, SIG_DFL); /* not ours: die of it, as without the handler */
    raise(sig);
}

static void install_sigbus(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

/* A slot for the mapping (-1: none free; the mapping is then unguarded). */
static int map_register(const void *base, size_t len)
{
    pthread_once(&maps_once, install_sigbus);
    for (int i = 0; i < MAPS_MAX; i++) {
        uintptr_t none = 0;
        /* Taken with a placeholder first (the handler skips it), filled,
         * then published. */
        if (!atomic_compare_exchange_strong(&maps[i].base, &none, MAP_TAKEN))
            continue;
        atomic_store(&maps[i].changed, 0);
        atomic_store(&maps[i].len, len);
        atomic_store(&maps[i].base, (uintptr_t)base);
        return i;
    }
    return -1;
}

static map_slot *slot_of(const zp__buf *b)
{
    if (b->kind_ != 2)
        return NULL;
    for (int i = 0; i < MAPS_MAX; i++)
        if (atomic_load(&maps[i].base) == (uintptr_t)b->base_ && b->base_)
            return &maps[i];
    return NULL;
}

bool zp__buf_changed(const zp__buf *b)
{
    const map_slot *m = slot_of(b);
    return m && atomic_load(&m->changed);
}

zp_err zp__file_map(zp__buf *out, const char *path, uint64_t max_len, zp__ioerr *why)
{
    memset(out, 0, sizeof *out);
    int fd;
    struct stat st;
    zp_err e = zp__file_open(&fd, &st, path, max_len, why);
    if (e)
        return e;
    if (st.st_size == 0) {
        close(fd);
        static const uint8_t empty[1];
        out->data = empty;
        return ZP_OK;
    }
    size_t size = (size_t)st.st_size;
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        e = fail_errno(why, "mmap", path);
        close(fd);
        return e;
    }
    close(fd);
    map_register(m, size);
    *out = (zp__buf){.data = m, .len = size, .base_ = m, .size_ = size, .kind_ = 2};
    return ZP_OK;
}

void zp__buf_free(zp__buf *b)
{
    if (b->kind_ == 1) {
        free(b->base_);
    } else if (b->kind_ == 2) {
        map_slot *m = slot_of(b);
        munmap(b->base_, b->size_);
        if (m)
            atomic_store(&m->base, 0);
    }
    memset(b, 0, sizeof *b);
}

/* ------------------------------------------------------------ atomic write */

static atomic_uint tmp_counter;

/* A fresh name beside path; O_EXCL makes a collision a retry, not a clash. */
static zp_err create_tmp(zp__afile *f, zp__ioerr *why)
{
    size_t n = strlen(f->path) + 64;
    f->tmp = malloc(n);
    if (!f->tmp)
        return ZP_E_NOMEM;
    for (int tries = 0; tries < 100; tries++) {
        unsigned c = atomic_fetch_add(&tmp_counter, 1);
        snprintf(f->tmp, n, "%s.tmp.%ld.%u", f->path, (long)getpid(), c);
        f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (f->fd >= 0)
            return ZP_OK;
        if (errno != EEXIST && errno != EINTR)
            return fail_errno(why, "create", f->tmp);
    }
    return zp__fail(why, ZP_E_IO, "create %s: too many collisions", f->tmp);
}

static void afile_release(zp__afile *f)
{
    if (f->fd >= 0)
        close(f->fd);
    free(f->path);
    free(f->tmp);
    free(f->buf);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

zp_err zp__afile_open(zp__afile *f, const char *path, zp__ioerr *why)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->path = strdup(path);
    f->buf = malloc(ZP__AFILE_BUF);
    if (!f->path || !f->buf) {
        afile_release(f);
        return ZP_E_NOMEM;
    }
    zp_err e = create_tmp(f, why);
    if (e) {
        afile_release(f);
        return e;
    }
    return ZP_OK;
}

static zp_err write_all(zp__afile *f, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(f->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return f->err = ZP_E_IO;
        p += w;
        n -= (size_t)w;
    }
    return ZP_OK;
}

static zp_err flush(zp__afile *f)
{
    zp_err e = write_all(f, f->buf, f->fill);
    f->fill = 0;
    return e;
}

zp_err zp__afile_write(zp__afile *f, const void *p, size_t n)
{
    if (f->err)
        return f->err;
    const uint8_t *b = p;
    if (f->fill + n > ZP__AFILE_BUF) {
        if (flush(f))
            return f->err;
        if (n >= ZP__AFILE_BUF)
            return write_all(f, b, n);
    }
    memcpy(f->buf + f->fill, b, n);
    f->fill += n;
    return ZP_OK;
}

zp_err zp__afile_u32(zp__afile *f, uint32_t v)
{
    uint8_t b[4];
    zp__put32(b, v);
    return zp__afile_write(f, b, 4);
}

zp_err zp__afile_u64(zp__afile *f, uint64_t v)
{
    uint8_t b[8];
    zp__put64(b, v);
    return zp__afile_write(f, b, 8);
}

void zp__afile_abort(zp__afile *f)
{
    if (f->tmp) {
        if (f->fd >= 0)
            close(f->fd);
        f->fd = -1;
        unlink(f->tmp);
    }
    afile_release(f);
}

static zp_err fsync_dir(const char *path)
{
    char *dir = strdup(path);
    if (!dir)
        return ZP_E_NOMEM;
    char *slash = strrchr(dir, '/');
    const char *d = ".";
    if (slash == dir)
        d = "/";
    else if (slash) {
        *slash = 0;
        d = dir;
    }
    int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    zp_err e = ZP_OK;
    if (fd < 0 || fsync(fd) != 0)
        e = ZP_E_IO;
    if (fd >= 0)
        close(fd);
    free(dir);
    return e;
}

zp_err zp__afile_commit(zp__afile *f, zp__ioerr *why)
{
    zp_err e = f->err;
    if (e == ZP_OK && flush(f))
        e = zp__fail(why, ZP_E_IO, "write %s: %s", f->tmp, strerror(errno));
    else if (e)
        zp__fail(why, e, "write %s failed", f->tmp);
    if (e == ZP_OK && fsync(f->fd) != 0)
        e = fail_errno(why, "fsync", f->tmp);
    if (e == ZP_OK && close(f->fd) != 0)
        e = fail_errno(why, "close", f->tmp);
    f->fd = -1;
    if (e == ZP_OK && rename(f->tmp, f->path) != 0)
        e = fail_errno(why, "rename to", f->path);
    if (e) {
        zp__afile_abort(f);
        return e;
    }
    /* The rename is done; a failed directory fsync means the new name may
     * not survive a crash, which the caller should know about. */
    e = fsync_dir(f->path);
    if (e)
        zp__fail(why, e, "fsync of the folder of %s failed", f->path);
    afile_release(f);
    return e;
}

zp_err zp__file_write_atomic(const char *path, const void *data, size_t len, zp__ioerr *why)
{
    zp__afile f;
    zp_err e = zp__afile_open(&f, path, why);
    if (e)
        return e;
    zp__afile_write(&f, data, len);
    return zp__afile_commit(&f, why);
}
