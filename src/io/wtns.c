/*
 * snarkjs/circom witness files (.wtns, version 2): section 1 = u32 n8 ‖
 * prime ‖ u32 count, section 2 = count values of n8 bytes, little-endian,
 * standard form. We hold witnesses in Montgomery form.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/pool.h"
#include "io/io.h"

#define WTNS_VERSION 2

/* A witness of `got` values for a key of `want`. */
static zp_err count_mismatch(zp__ioerr *why, uint64_t got, uint64_t want)
{
    return zp__fail(why, ZP_E_WITNESS, "witness has %llu values, the key needs %llu",
                    (unsigned long long)got, (unsigned long long)want);
}

static zp_err version_ok(const zp__container *c, zp__ioerr *why)
{
    if (c->version != WTNS_VERSION)
        return zp__fail(why, ZP_E_UNSUPPORTED, "wtns version %u (only 2 is supported)",
                        c->version);
    return ZP_OK;
}

/* The header section's fields: n8 (32), the prime (r), the count. */
static zp_err header_fields(uint32_t *n, zp__rd *h, zp__ioerr *why)
{
    uint32_t n8 = 0;
    if (!zp__rd_u32(h, &n8))
        return zp__fail(why, ZP_E_FORMAT, "wtns header section is too short");
    if (n8 != 32)
        return zp__fail(why, ZP_E_BAD_PRIME,
                        "witness field elements have %u bytes: not BLS12-381's r (32)", n8);
    const uint8_t *prime = zp__rd_take(h, 32);
    if (!prime || !zp__rd_u32(h, n))
        return zp__fail(why, ZP_E_FORMAT, "wtns header section is too short");
    if (memcmp(prime, ZP__R_LE, 32) != 0)
        return zp__fail(why, ZP_E_BAD_PRIME,
                        "witness is for another field (only BLS12-381's r is supported; "
                        "compile with circom --prime bls12381)");
    return ZP_OK;
}

static zp_err values_ok(uint32_t n, uint64_t bytes, zp__ioerr *why)
{
    if (bytes != (uint64_t)n * 32)
        return zp__fail(why, ZP_E_FORMAT,
                        "wtns declares %u values but its value section has %llu bytes", n,
                        (unsigned long long)bytes);
    return ZP_OK;
}

/* Checks container, version, header and the value section's size; leaves
 * a cursor on the values. */
static zp_err wtns_open(zp__rd *vals, uint64_t *count, const uint8_t *data, size_t len,
                        zp__ioerr *why)
{
    zp__container c;
    zp__rd h;
    uint32_t n = 0;
    zp_err e;
    if ((e = zp__container_parse(&c, data, len, "wtns", why)) || (e = version_ok(&c, why)) ||
        (e = zp__container_section(&h, &c, 1, "header", why)) ||
        (e = header_fields(&n, &h, why)) ||
        (e = zp__container_section(vals, &c, 2, "values", why)) ||
        (e = values_ok(n, vals->len, why)))
        return e;
    *count = n;
    return ZP_OK;
}

zp_err zp__wtns_count(uint64_t *n, const uint8_t *data, size_t len, zp__ioerr *why)
{
    zp__rd vals;
    return wtns_open(&vals, n, data, len, why);
}

typedef struct decode_job {
    zp_fr *out;
    const uint8_t *in;
    _Atomic uint64_t bad;  /* smallest index found not below r; UINT64_MAX none */
} decode_job;

static void decode_range(void *p, size_t begin, size_t end)
{
    decode_job *j = p;
    for (size_t i = begin; i < end; i++)
        if (zp_fr_from_le(&j->out[i], j->in + 32 * i) != ZP_OK) {
            uint64_t cur = atomic_load(&j->bad);
            while (i < cur && !atomic_compare_exchange_weak(&j->bad, &cur, i))
                ;
            return;
        }
}

/* Standard form to Montgomery on every CPU: a PoRep partition's witness
 * is 130 M values, several seconds on one core. */
static zp_err decode_values(zp_fr *out, uint64_t n, zp__rd *vals, zp__ioerr *why)
{
    decode_job j = {out, vals->p, UINT64_MAX};
    zp__parallel_for((size_t)n, 1 << 15, decode_range, &j, 0);
    uint64_t bad = atomic_load(&j.bad);
    if (bad != UINT64_MAX)
        return zp__fail(why, ZP_E_NOT_CANONICAL, "witness value %llu is not below r",
                        (unsigned long long)bad);
    if (n == 0 || !zp_fr_is_one(&out[0]))
        return zp__fail(why, ZP_E_WITNESS, "witness value 0 must be 1 (the constant ONE)");
    return ZP_OK;
}

zp_err zp__wtns_decode_into(zp_fr *out, uint64_t n, const uint8_t *data, size_t len,
                            zp__ioerr *why)
{
    zp__rd vals;
    uint64_t count;
    zp_err e = wtns_open(&vals, &count, data, len, why);
    if (e)
        return e;
    if (count != n)
        return count_mismatch(why, count, n);
    return decode_values(out, n, &vals, why);
}

zp_err zp__wtns_parse(zp_fr **out, uint64_t *n, const uint8_t *data, size_t len,
                      uint64_t expect, zp__ioerr *why)
{
    *out = NULL;
    *n = 0;
    zp__rd vals;
    uint64_t count;
    zp_err e = wtns_open(&vals, &count, data, len, why);
    if (e)
        return e;
    if (expect && count != expect)
        return count_mismatch(why, count, expect);
    /* count * 32 bytes are present, so this allocation is bounded by the file. */
    zp_fr *w = malloc(count ? count * sizeof *w : 1);
    if (!w)
        return ZP_E_NOMEM;
    if ((e = decode_values(w, count, &vals, why))) {
        free(w);
        return e;
    }
    *out = w;
    *n = count;
    return ZP_OK;
}

zp_err zp__wtns_load(zp_fr **out, uint64_t *n, const char *path, uint64_t expect,
                     zp__ioerr *why)
{
    *out = NULL;
    *n = 0;
    uint64_t count;
    zp_err e = zp__wtns_file_count(&count, path, zp__wtns_max_bytes(expect), why);
    if (e)
        return e;
    if (expect && count != expect)
        return count_mismatch(why, count, expect);
    zp_fr *w = malloc((size_t)(count ? count : 1) * sizeof *w);
    if (!w)
        return zp__fail(why, ZP_E_NOMEM, "no memory for %llu witness values",
                        (unsigned long long)count);
    if ((e = zp__wtns_read_into(w, count, path, why))) {
        free(w);
        return e;
    }
    *out = w;
    *n = count;
    return ZP_OK;
}

zp_err zp__wtns_save(const char *path, const zp_fr *w, uint64_t n, zp__ioerr *why)
{
    if (n > UINT32_MAX)
        return zp__fail(why, ZP_E_TOO_LARGE, "a .wtns holds at most 2^32-1 values");
    zp__afile f;
    zp_err e = zp__afile_open(&f, path, why);
    if (e)
        return e;
    zp__afile_container(&f, "wtns", WTNS_VERSION, 2);
    zp__afile_section(&f, 1, 4 + 32 + 4);
    zp__afile_u32(&f, 32);
    zp__afile_write(&f, ZP__R_LE, 32);
    zp__afile_u32(&f, (uint32_t)n);
    zp__afile_section(&f, 2, n * 32);
    for (uint64_t i = 0; i < n; i++) {
        uint8_t b[32];
        zp_fr_to_le(b, &w[i]);
        zp__afile_write(&f, b, 32);
    }
    return zp__afile_commit(&f, why);
}

/* ------------------------------------------------- from a file, unmapped */

/* The headers of an open .wtns of len bytes: the count and where its values
 * lie, in the order and with the messages of wtns_open. */
static zp_err fd_open(uint64_t *count, uint64_t *voff, int fd, uint64_t len, zp__ioerr *why)
{
    zp__container c;
    zp_err e;
    if ((e = zp__container_scan(&c, fd, len, "wtns", why)) || (e = version_ok(&c, why)))
        return e;
    const zp__section *hs = zp__container_find(&c, 1);
    if (!hs)
        return zp__fail(why, ZP_E_FORMAT, "section 1 (header) is missing");
    uint8_t hb[40];
    const uint64_t hl = hs->size < sizeof hb ? hs->size : sizeof hb; /* the fields' bytes */
    if ((e = zp__pread_all(fd, hb, hl, hs->off, why)))
        return e;
    zp__rd h = {.p = hb, .len = hl, .pos = 0};
    uint32_t n = 0;
    if ((e = header_fields(&n, &h, why)))
        return e;
    const zp__section *vs = zp__container_find(&c, 2);
    if (!vs)
        return zp__fail(why, ZP_E_FORMAT, "section 2 (values) is missing");
    if ((e = values_ok(n, vs->size, why)))
        return e;
    *count = n;
    *voff = vs->off;
    return ZP_OK;
}

zp_err zp__wtns_file_count(uint64_t *n, const char *path, uint64_t max_len, zp__ioerr *why)
{
    int fd;
    struct stat st;
    uint64_t voff;
    zp_err e = zp__file_open(&fd, &st, path, max_len, why);
    if (e)
        return e;
    e = fd_open(n, &voff, fd, (uint64_t)st.st_size, why);
    close(fd);
    return e;
}

/* Values read and decoded this many at a time (4 MiB of file). */
#define READ_VALUES ((uint64_t)1 << 17)

zp_err zp__wtns_read_into(zp_fr *out, uint64_t n, const char *path, zp__ioerr *why)
{
    int fd;
    struct stat st;
    uint64_t count = 0, voff = 0;
    zp_err e = zp__file_open(&fd, &st, path, zp__wtns_max_bytes(n), why);
    if (e)
        return e;
    uint8_t *buf = NULL;
    if (!(e = fd_open(&count, &voff, fd, (uint64_t)st.st_size, why)) && count != n)
        e = count_mismatch(why, count, n);
    if (!e && !(buf = malloc(32 * READ_VALUES)))
        e = zp__fail(why, ZP_E_NOMEM, "no memory to read the witness");
    for (uint64_t i = 0; !e && i < n; i += READ_VALUES) {
        const uint64_t m = n - i < READ_VALUES ? n - i : READ_VALUES;
        if ((e = zp__pread_all(fd, buf, 32 * m, voff + 32 * i, why)))
            break;
        decode_job j = {out + i, buf, UINT64_MAX};
        zp__parallel_for((size_t)m, 1 << 15, decode_range, &j, 0);
        const uint64_t bad = atomic_load(&j.bad);
        if (bad != UINT64_MAX)
            e = zp__fail(why, ZP_E_NOT_CANONICAL, "witness value %llu is not below r",
                         (unsigned long long)(i + bad));
    }
    struct stat now;
    if (!e && (fstat(fd, &now) != 0 || now.st_size != st.st_size))
        e = zp__fail(why, ZP_E_TRUNCATED, "%s changed size while being read", path);
    if (!e && (n == 0 || !zp_fr_is_one(&out[0])))
        e = zp__fail(why, ZP_E_WITNESS, "witness value 0 must be 1 (the constant ONE)");
    free(buf);
    close(fd);
    return e;
}
