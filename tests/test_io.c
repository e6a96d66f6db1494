/*
 * File helpers, the iden3 container, .wtns and .r1cs readers: the circom
 * fixtures in data/ (made by data/make.sh) and hostile variants of them.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "io/io.h"
#include "test_io_util.h"

static char tmpdir[64];

static void path_in_tmp(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", tmpdir, name);
}

/* Number of directory entries other than . and .. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

/* ------------------------------------------------------------------ files */

static void test_file_roundtrip(void)
{
    char p[128];
    path_in_tmp(p, sizeof p, "a.bin");
    uint8_t data[100000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)check_rand64();
    CHECK_EQ_INT(zp__file_write_atomic(p, data, sizeof data, NULL), ZP_OK);
    size_t n;
    uint8_t *back = slurp(p, &n);
    CHECK_EQ_INT(n, sizeof data);
    CHECK_MEM(back, data, sizeof data);
    free(back);

    zp__buf b;
    CHECK_EQ_INT(zp__file_read(&b, p, sizeof data, NULL), ZP_OK);
    CHECK(b.len == sizeof data && memcmp(b.data, data, sizeof data) == 0);
    zp__buf_free(&b);
    CHECK_EQ_INT(zp__file_map(&b, p, UINT64_MAX, NULL), ZP_OK);
    CHECK(b.len == sizeof data && memcmp(b.data, data, sizeof data) == 0);
    zp__buf_free(&b);

    /* The ceiling is checked before reading: one byte short fails. */
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__file_read(&b, p, sizeof data - 1, &why), ZP_E_TOO_LARGE);
    CHECK(strstr(why.msg, "limit") != NULL);
    CHECK_EQ_INT(zp__file_map(&b, p, 10, NULL), ZP_E_TOO_LARGE);

    /* Overwrite replaces the file whole. */
    CHECK_EQ_INT(zp__file_write_atomic(p, "xyz", 3, NULL), ZP_OK);
    CHECK_EQ_INT(zp__file_read(&b, p, 100, NULL), ZP_OK);
    CHECK(b.len == 3 && memcmp(b.data, "xyz", 3) == 0);
    zp__buf_free(&b);

    /* Empty files map and read as zero bytes. */
    CHECK_EQ_INT(zp__file_write_atomic(p, "", 0, NULL), ZP_OK);
    CHECK_EQ_INT(zp__file_map(&b, p, 100, NULL), ZP_OK);
    CHECK_EQ_INT(b.len, 0);
    zp__buf_free(&b);
    CHECK_EQ_INT(zp__file_read(&b, p, 100, NULL), ZP_OK);
    CHECK_EQ_INT(b.len, 0);
    zp__buf_free(&b);
    unlink(p);
    CHECK_EQ_INT(count_entries(tmpdir), 0);
}

static void test_file_errors(void)
{
    char p[128];
    zp__buf b;
    zp__ioerr why = {{0}};
    path_in_tmp(p, sizeof p, "missing");
    CHECK_EQ_INT(zp__file_read(&b, p, 100, &why), ZP_E_NOT_FOUND);
    CHECK(strstr(why.msg, "missing") != NULL);
    CHECK_EQ_INT(zp__file_map(&b, p, 100, NULL), ZP_E_NOT_FOUND);
    CHECK_EQ_INT(zp__file_read(&b, tmpdir, 100, &why), ZP_E_IO);
    CHECK(strstr(why.msg, "a directory") != NULL);
    /* Devices have no size to cap a read by: refused before any read. */
    CHECK_EQ_INT(zp__file_read(&b, "/dev/zero", 1000, &why), ZP_E_IO);
    CHECK(strstr(why.msg, "/dev/zero is a character device") != NULL);
    CHECK_EQ_INT(zp__file_map(&b, "/dev/zero", UINT64_MAX, NULL), ZP_E_IO);
    CHECK_EQ_INT(zp__file_read(&b, "/dev/null", 1000, NULL), ZP_E_IO);
    /* Writing into a folder that does not exist creates nothing. */
    path_in_tmp(p, sizeof p, "nodir/x");
    CHECK_EQ_INT(zp__file_write_atomic(p, "a", 1, NULL), ZP_E_NOT_FOUND);
    CHECK_EQ_INT(count_entries(tmpdir), 0);
}

/* A failure at any point leaves neither the target nor a temporary file. */
/* A FIFO without a writer would block a plain open() forever; the helper
 * refuses it at once (the test alarm ends a hang). */
static void test_file_fifo(void)
{
    char p[128];
    path_in_tmp(p, sizeof p, "fifo");
    CHECK_EQ_INT(mkfifo(p, 0600), 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    alarm(10);
    zp__buf b;
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__file_read(&b, p, 1000, &why), ZP_E_IO);
    CHECK(strstr(why.msg, "is a FIFO, not a regular file") != NULL);
    CHECK_EQ_INT(zp__file_map(&b, p, UINT64_MAX, NULL), ZP_E_IO);
    int fd;
    struct stat st;
    CHECK_EQ_INT(zp__file_open(&fd, &st, p, 1000, NULL), ZP_E_IO);
    CHECK_EQ_INT(fd, -1);
    alarm(0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK((t1.tv_sec - t0.tv_sec) < 2);
    unlink(p);

    /* A regular file comes back blocking, its size in st. */
    path_in_tmp(p, sizeof p, "reg");
    CHECK_EQ_INT(zp__file_write_atomic(p, "abc", 3, NULL), ZP_OK);
    CHECK_EQ_INT(zp__file_open(&fd, &st, p, 3, NULL), ZP_OK);
    CHECK_EQ_INT(st.st_size, 3);
    CHECK_EQ_INT(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
    close(fd);
    CHECK_EQ_INT(zp__file_open(&fd, &st, p, 2, NULL), ZP_E_TOO_LARGE);
    unlink(p);
}

static void test_atomic_failure(void)
{
    char p[128];
    path_in_tmp(p, sizeof p, "out.bin");
    zp__afile f;
    CHECK_EQ_INT(zp__afile_open(&f, p, NULL), ZP_OK);
    CHECK_EQ_INT(zp__afile_write(&f, "hello", 5), ZP_OK);
    CHECK_EQ_INT(count_entries(tmpdir), 1); /* the temporary file */
    zp__afile_abort(&f);
    CHECK_EQ_INT(count_entries(tmpdir), 0);

    /* A write error (simulated: the sticky error set) fails the commit. */
    CHECK_EQ_INT(zp__afile_open(&f, p, NULL), ZP_OK);
    uint8_t big[200000] = {0};
    CHECK_EQ_INT(zp__afile_write(&f, big, sizeof big), ZP_OK);
    f.err = ZP_E_IO;
    CHECK_EQ_INT(zp__afile_write(&f, "x", 1), ZP_E_IO);
    CHECK_EQ_INT(zp__afile_commit(&f, NULL), ZP_E_IO);
    CHECK_EQ_INT(count_entries(tmpdir), 0);

    /* A real write error: the descriptor closed under the writer. */
    CHECK_EQ_INT(zp__file_write_atomic(p, "old", 3, NULL), ZP_OK);
    CHECK_EQ_INT(zp__afile_open(&f, p, NULL), ZP_OK);
    close(f.fd);
    f.fd = open("/dev/null", 0); /* read-only: writes fail */
    CHECK_EQ_INT(zp__afile_write(&f, big, sizeof big), ZP_E_IO);
    CHECK_EQ_INT(zp__afile_commit(&f, NULL), ZP_E_IO);
    CHECK_EQ_INT(count_entries(tmpdir), 1); /* only the old file */
    size_t n;
    uint8_t *old = slurp(p, &n);
    CHECK(n == 3 && memcmp(old, "old", 3) == 0);
    free(old);
    unlink(p);
}

/* -------------------------------------------------------------- container */

static uint8_t *make_container(size_t *len)
{
    /* Sections 2 then 1, as circom orders them; then a third, empty one. */
    static const uint8_t c[] = {'t', 'e', 's', 't', 7, 0, 0, 0, 3, 0, 0, 0,
                                2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 'a', 'b', 'c',
                                1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 'z',
                                9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    uint8_t *p = malloc(sizeof c);
    memcpy(p, c, sizeof c);
    *len = sizeof c;
    return p;
}

static void test_container(void)
{
    size_t len;
    uint8_t *p = make_container(&len);
    zp__container c;
    CHECK_EQ_INT(zp__container_parse(&c, p, len, "test", NULL), ZP_OK);
    CHECK_EQ_INT(c.version, 7);
    CHECK_EQ_INT(c.n, 3);
    zp__rd r;
    CHECK_EQ_INT(zp__container_section(&r, &c, 2, "two", NULL), ZP_OK);
    CHECK(r.len == 3 && memcmp(r.p, "abc", 3) == 0);
    CHECK_EQ_INT(zp__container_section(&r, &c, 1, "one", NULL), ZP_OK);
    CHECK(r.len == 1 && r.p[0] == 'z');
    CHECK_EQ_INT(zp__container_section(&r, &c, 9, "nine", NULL), ZP_OK);
    CHECK_EQ_INT(r.len, 0);
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__container_section(&r, &c, 4, "four", &why), ZP_E_FORMAT);
    CHECK(strstr(why.msg, "four") != NULL);

    /* Every proper prefix is truncated, never accepted. */
    for (size_t cut = 0; cut < len; cut++) {
        CHECK_EQ_INT(zp__container_parse(&c, p, cut, "test", NULL), ZP_E_TRUNCATED);
    }
    /* Trailing bytes are tolerated. */
    uint8_t *q = malloc(len + 5);
    memcpy(q, p, len);
    CHECK_EQ_INT(zp__container_parse(&c, q, len + 5, "test", NULL), ZP_OK);
    free(q);

    CHECK_EQ_INT(zp__container_parse(&c, p, len, "tesT", NULL), ZP_E_FORMAT);
    p[24 + 3 + 0] = 2; /* section 1 becomes a second section 2 */
    CHECK_EQ_INT(zp__container_parse(&c, p, len, "test", &why), ZP_E_FORMAT);
    CHECK(strstr(why.msg, "twice") != NULL);
    p[27] = 1;
    p[8] = 200; /* section count beyond the table */
    CHECK_EQ_INT(zp__container_parse(&c, p, len, "test", NULL), ZP_E_FORMAT);
    p[8] = 3;
    /* A section size near 2^64 must not wrap the bounds check. */
    memset(p + 16, 0xff, 8);
    CHECK_EQ_INT(zp__container_parse(&c, p, len, "test", NULL), ZP_E_TRUNCATED);
    free(p);
}

/* ------------------------------------------------------------------- wtns */

static const uint64_t mul3_w[7] = {1, 832, 3, 5, 11, 15, 165};

static void test_wtns_fixture(void)
{
    zp_fr *w;
    uint64_t n;
    CHECK_EQ_INT(zp__wtns_load(&w, &n, "data/mul3.wtns", 0, NULL), ZP_OK);
    CHECK_EQ_INT(n, 7);
    for (uint64_t i = 0; i < n && i < 7; i++) {
        zp_fr want;
        zp_fr_from_u64(&want, mul3_w[i]);
        CHECK(zp_fr_eq(&w[i], &want));
    }
    /* Our writer reproduces the circom file byte for byte. */
    char p[128];
    path_in_tmp(p, sizeof p, "w.wtns");
    CHECK_EQ_INT(zp__wtns_save(p, w, n, NULL), ZP_OK);
    size_t la, lb;
    uint8_t *a = slurp("data/mul3.wtns", &la), *b = slurp(p, &lb);
    CHECK(la == lb && memcmp(a, b, la) == 0);
    free(b);
    uint64_t cnt;
    CHECK_EQ_INT(zp__wtns_count(&cnt, a, la, NULL), ZP_OK);
    CHECK_EQ_INT(cnt, 7);
    zp_fr into[7];
    CHECK_EQ_INT(zp__wtns_decode_into(into, 7, a, la, NULL), ZP_OK);
    CHECK_MEM(into, w, sizeof into);
    CHECK_EQ_INT(zp__wtns_decode_into(into, 6, a, la, NULL), ZP_E_WITNESS);
    free(a);
    free(w);
    unlink(p);

    zp_fr *w2;
    CHECK_EQ_INT(zp__wtns_load(&w2, &n, "data/mul3.wtns", 7, NULL), ZP_OK);
    free(w2);
    CHECK_EQ_INT(zp__wtns_load(&w2, &n, "data/mul3.wtns", 8, NULL), ZP_E_WITNESS);
    CHECK(w2 == NULL && n == 0);
}

/* Random witnesses, including edge values 0 and r-1, round-trip. */
/* Writes len bytes to a temporary file whose path goes to path. */
static void put_file(char *path, size_t cap, const uint8_t *p, size_t len)
{
    path_in_tmp(path, cap, "try.wtns");
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(p, 1, len, f) == len);
        fclose(f);
    }
}

/* A witness of several read chunks (zp__wtns_read_into reads 2^17 values
 * at a time): the same values, and a bad value's index counted across
 * chunks. */
static void test_wtns_chunks(void)
{
    enum { N = 300001 };
    zp_fr *w = malloc(N * sizeof *w), *back = NULL;
    zp_fr_one(&w[0]);
    for (int i = 1; i < N; i++)
        zp_fr_from_u64(&w[i], check_rand64());
    char p[128];
    path_in_tmp(p, sizeof p, "big.wtns");
    CHECK_EQ_INT(zp__wtns_save(p, w, N, NULL), ZP_OK);
    uint64_t n = 0;
    CHECK_EQ_INT(zp__wtns_load(&back, &n, p, N, NULL), ZP_OK);
    CHECK(n == N && back && memcmp(back, w, N * sizeof *w) == 0);
    free(back);
    size_t len;
    uint8_t *raw = slurp(p, &len);
    const size_t at = len - 32 * (N - 200000); /* value 200000, in the second chunk */
    memcpy(raw + at, ZP__R_LE, 32);
    zp__ioerr why = {""};
    char q[128];
    put_file(q, sizeof q, raw, len);
    CHECK_EQ_INT(zp__wtns_load(&back, &n, q, N, &why), ZP_E_NOT_CANONICAL);
    CHECK(strstr(why.msg, "value 200000 ") != NULL);
    /* Cut inside the values: the file read says so. */
    CHECK(truncate(q, (off_t)(len - 1000)) == 0);
    CHECK_EQ_INT(zp__wtns_load(&back, &n, q, N, NULL), ZP_E_TRUNCATED);
    unlink(q);
    free(raw);
    free(w);
    unlink(p);
}

static void test_wtns_random(void)
{
    enum { N = 300 };
    zp_fr *w = malloc(N * sizeof *w), *back;
    zp_fr_one(&w[0]);
    zp_fr_zero(&w[1]);
    zp_fr_one(&w[2]);
    zp_fr_neg(&w[2], &w[2]);
    for (int i = 3; i < N; i++) {
        zp_fr plain;
        for (int k = 0; k < 4; k++)
            plain.l[k] = check_rand64();
        plain.l[3] &= 0x3fffffffffffffffULL;
        zp_fr_to_mont(&w[i], &plain);
    }
    char p[128];
    path_in_tmp(p, sizeof p, "r.wtns");
    CHECK_EQ_INT(zp__wtns_save(p, w, N, NULL), ZP_OK);
    uint64_t n;
    CHECK_EQ_INT(zp__wtns_load(&back, &n, p, N, NULL), ZP_OK);
    CHECK(n == N && memcmp(back, w, N * sizeof *w) == 0);
    /* The file holds standard form: value 1 is 01 00 .. 00. */
    size_t len;
    uint8_t *raw = slurp(p, &len);
    CHECK(raw[76] == 1 && raw[77] == 0);
    free(raw);
    free(back);
    free(w);
    unlink(p);
}

/* Both readers of a .wtns, from memory (zp__wtns_parse) and from a file a
 * chunk at a time (zp__wtns_load: zp__wtns_read_into), give the same code
 * and the same values. */
static zp_err wtns_bytes(const uint8_t *p, size_t len, uint64_t expect)
{
    zp_fr *w = NULL, *v = NULL;
    uint64_t n = 0, m = 0;
    zp_err e = zp__wtns_parse(&w, &n, p, len, expect, NULL);
    char path[128];
    put_file(path, sizeof path, p, len);
    zp_err f = zp__wtns_load(&v, &m, path, expect, NULL);
    CHECK_EQ_INT(f, e);
    if (!e && !f)
        CHECK(n == m && memcmp(w, v, n * sizeof *w) == 0);
    unlink(path);
    free(w);
    free(v);
    return e;
}

static zp_err wtns_try(const tcont *c, uint64_t expect)
{
    size_t len;
    uint8_t *p = tcont_join(c, &len);
    zp_err e = wtns_bytes(p, len, expect);
    free(p);
    return e;
}

static void test_wtns_bad(void)
{
    size_t len;
    uint8_t *orig = slurp("data/mul3.wtns", &len);
    for (size_t cut = 0; cut < len; cut++) {
        zp_fr *w = NULL;
        uint64_t n;
        CHECK_EQ_INT(zp__wtns_parse(&w, &n, orig, cut, 0, NULL), ZP_E_TRUNCATED);
        CHECK(w == NULL);
        CHECK_EQ_INT(wtns_bytes(orig, cut, 0), ZP_E_TRUNCATED);
    }
    tcont base, c;
    tcont_split(&base, orig, len);
    CHECK_EQ_INT(wtns_try(&base, 0), ZP_OK);
    zp__ioerr why;
#define VARIANT(mutation, expect_err)                                      \
    do {                                                                   \
        tcont_copy(&c, &base);                                             \
        mutation;                                                          \
        CHECK_EQ_INT(wtns_try(&c, 0), expect_err);                         \
        tcont_free(&c);                                                    \
    } while (0)
    VARIANT(c.head[4] = 1, ZP_E_UNSUPPORTED);                /* version 1 */
    VARIANT(c.head[0] = 'W', ZP_E_FORMAT);                   /* magic */
    VARIANT(tcont_get(&c, 1)->body[4] ^= 1, ZP_E_BAD_PRIME); /* prime */
    VARIANT(tcont_get(&c, 1)->body[0] = 48, ZP_E_BAD_PRIME); /* n8 */
    VARIANT(tcont_get(&c, 1)->size = 20, ZP_E_FORMAT);       /* header cut */
    VARIANT(tput32(tcont_get(&c, 1)->body + 36, 8), ZP_E_FORMAT);          /* count */
    VARIANT(tput32(tcont_get(&c, 1)->body + 36, 0xffffffff), ZP_E_FORMAT); /* huge */
    VARIANT(tcont_get(&c, 2)->size -= 32, ZP_E_FORMAT);     /* values short */
    VARIANT(tcont_get(&c, 2)->id = 3, ZP_E_FORMAT);         /* values missing */
    VARIANT(tcont_get(&c, 2)->id = 1, ZP_E_FORMAT);         /* duplicate */
    /* w[0] must be 1 */
    VARIANT(tcont_get(&c, 2)->body[0] = 2, ZP_E_WITNESS);
    /* a value equal to r */
    VARIANT(memcpy(tcont_get(&c, 2)->body + 64, ZP__R_LE, 32), ZP_E_NOT_CANONICAL);
    /* r - 1 is fine */
    VARIANT((memcpy(tcont_get(&c, 2)->body + 64, ZP__R_LE, 32),
             tcont_get(&c, 2)->body[64] = 0), ZP_OK);
    /* zero values: w[0] cannot be 1 */
    VARIANT((tput32(tcont_get(&c, 1)->body + 36, 0), tcont_get(&c, 2)->size = 0),
            ZP_E_WITNESS);
#undef VARIANT
    CHECK_EQ_INT(wtns_try(&base, 6), ZP_E_WITNESS);
    tcont_copy(&c, &base);
    memcpy(tcont_get(&c, 2)->body + 96, ZP__R_LE, 32);
    size_t l2;
    uint8_t *p2 = tcont_join(&c, &l2);
    zp_fr *w = NULL;
    uint64_t n;
    CHECK_EQ_INT(zp__wtns_parse(&w, &n, p2, l2, 0, &why), ZP_E_NOT_CANONICAL);
    CHECK(strstr(why.msg, "value 3") != NULL);
    free(p2);
    tcont_free(&c);
    tcont_free(&base);
    free(orig);
}

/* ------------------------------------------------------------------- r1cs */

static void test_r1cs_fixture(void)
{
    zp__r1cs cs;
    CHECK_EQ_INT(zp__r1cs_load(&cs, "data/mul3.r1cs", NULL), ZP_OK);
    CHECK_EQ_INT(cs.n_vars, 7);
    CHECK_EQ_INT(cs.n_public, 2);
    CHECK_EQ_INT(cs.n_constraints, 3);
    CHECK_EQ_INT(cs.a.nrows, 3);
    CHECK_EQ_INT(cs.c.nrows, 3);
    /* mul3: t1 = a*b, t2 = t1*c, out = t2*b + 7: one term per A and B row;
     * circom negates A and C: -a * b = -t1 and so on. */
    CHECK_EQ_INT(cs.a.nnz, 3);
    CHECK_EQ_INT(cs.b.nnz, 3);
    CHECK_EQ_INT(cs.c.nnz, 4);
    zp_fr w[7];
    for (int i = 0; i < 7; i++)
        zp_fr_from_u64(&w[i], mul3_w[i]);
    uint64_t bad = 99;
    CHECK(zp__r1cs_is_satisfied(&cs, w, &bad));
    /* Reference: evaluate row 2 by hand from the CSR arrays. */
    zp_fr a = {{0}}, b = {{0}}, c = {{0}}, t;
    for (uint64_t k = cs.a.row_ptr[2]; k < cs.a.row_ptr[3]; k++)
        zp_fr_mul(&t, &cs.a.val[k], &w[cs.a.col[k]]), zp_fr_add(&a, &a, &t);
    for (uint64_t k = cs.b.row_ptr[2]; k < cs.b.row_ptr[3]; k++)
        zp_fr_mul(&t, &cs.b.val[k], &w[cs.b.col[k]]), zp_fr_add(&b, &b, &t);
    for (uint64_t k = cs.c.row_ptr[2]; k < cs.c.row_ptr[3]; k++)
        zp_fr_mul(&t, &cs.c.val[k], &w[cs.c.col[k]]), zp_fr_add(&c, &c, &t);
    zp_fr_mul(&t, &a, &b);
    CHECK(zp_fr_eq(&t, &c));
    zp_fr want;
    zp_fr_from_u64(&want, 165 * 5);
    zp_fr_neg(&want, &want); /* -t2 * b */
    CHECK(zp_fr_eq(&t, &want));
    zp_fr_from_u64(&w[6], 166);
    CHECK(!zp__r1cs_is_satisfied(&cs, w, &bad));
    zp__r1cs_free(&cs);
}

static zp_err r1cs_try(const tcont *c, zp__ioerr *why)
{
    size_t len;
    uint8_t *p = tcont_join(c, &len);
    zp__r1cs cs;
    zp_err e = zp__r1cs_parse(&cs, p, len, why);
    if (e == ZP_OK)
        zp__r1cs_free(&cs);
    free(p);
    return e;
}

/* Bytes of section 2 at the first term of constraint 0's A. */
#define C0_WIRE 4
#define C0_COEF 8

static void test_r1cs_bad(void)
{
    size_t len;
    uint8_t *orig = slurp("data/mul3.r1cs", &len);
    for (size_t cut = 0; cut < len; cut++) {
        zp__r1cs cs;
        CHECK_EQ_INT(zp__r1cs_parse(&cs, orig, cut, NULL), ZP_E_TRUNCATED);
    }
    tcont base, c;
    tcont_split(&base, orig, len);
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(r1cs_try(&base, NULL), ZP_OK);
    /* The bn254 scalar field, which circom uses by default. */
    static const uint8_t bn254_r[32] = {
        0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9, 0x79, 0x48, 0xe8, 0x33, 0x28,
        0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};
#define VARIANT(mutation, expect_err)                                      \
    do {                                                                   \
        tcont_copy(&c, &base);                                             \
        mutation;                                                          \
        CHECK_EQ_INT(r1cs_try(&c, &why), expect_err);                      \
        tcont_free(&c);                                                    \
    } while (0)
    VARIANT(memcpy(tcont_get(&c, 1)->body + 4, bn254_r, 32), ZP_E_BAD_PRIME);
    CHECK(strstr(why.msg, "bls12381") != NULL);
    VARIANT(tcont_get(&c, 1)->body[0] = 8, ZP_E_BAD_PRIME);
    VARIANT(c.head[4] = 2, ZP_E_UNSUPPORTED);
    VARIANT(c.head[1] = 'x', ZP_E_FORMAT);
    VARIANT(tcont_get(&c, 3)->id = 4, ZP_E_UNSUPPORTED);  /* custom gates */
    VARIANT(tcont_get(&c, 1)->id = 6, ZP_E_FORMAT);       /* header missing */
    VARIANT(tcont_get(&c, 2)->id = 1, ZP_E_FORMAT);       /* duplicate */
    VARIANT(tcont_get(&c, 1)->size = 40, ZP_E_FORMAT);    /* header cut */
    /* nWires = 3 < inputs and outputs */
    VARIANT(tput32(tcont_get(&c, 1)->body + 36, 3), ZP_E_FORMAT);
    /* nConstraints huge: more than the section could hold */
    VARIANT(tput32(tcont_get(&c, 1)->body + 60, 0xffffffff), ZP_E_FORMAT);
    /* nConstraints 4: the section ends inside constraint 3 */
    VARIANT(tput32(tcont_get(&c, 1)->body + 60, 4), ZP_E_FORMAT);
    /* nConstraints 2: stray bytes remain */
    VARIANT(tput32(tcont_get(&c, 1)->body + 60, 2), ZP_E_FORMAT);
    /* a term count far beyond the section */
    VARIANT(tput32(tcont_get(&c, 2)->body, 0x7fffffff), ZP_E_FORMAT);
    /* wire index out of range */
    VARIANT(tput32(tcont_get(&c, 2)->body + C0_WIRE, 7), ZP_E_FORMAT);
    VARIANT(tput32(tcont_get(&c, 2)->body + C0_WIRE, 6), ZP_OK);
    /* coefficient = r */
    VARIANT(memcpy(tcont_get(&c, 2)->body + C0_COEF, ZP__R_LE, 32), ZP_E_NOT_CANONICAL);
    /* section 2 cut short by one byte */
    VARIANT(tcont_get(&c, 2)->size -= 1, ZP_E_FORMAT);
#undef VARIANT
    tcont_free(&base);
    free(orig);
}

int main(void)
{
    strcpy(tmpdir, "/tmp/zp_test_io_XXXXXX");
    if (!mkdtemp(tmpdir))
        return 2;
    RUN(test_file_roundtrip);
    RUN(test_file_errors);
    RUN(test_file_fifo);
    RUN(test_atomic_failure);
    RUN(test_container);
    RUN(test_wtns_fixture);
    RUN(test_wtns_random);
    RUN(test_wtns_chunks);
    RUN(test_wtns_bad);
    RUN(test_r1cs_fixture);
    RUN(test_r1cs_bad);
    rmdir(tmpdir);
    return FINISH();
}
