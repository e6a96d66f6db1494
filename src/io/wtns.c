/*
 * snarkjs/circom witness files (.wtns, version 2): section 1 = u32 n8 ‖
 * prime ‖ u32 count, section 2 = count values of n8 bytes, little-endian,
 * standard form. We hold witnesses in Montgomery form.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "io/io.h"

#define WTNS_VERSION 2

/* Checks container, version, header and the value section's size; leaves
 * a cursor on the values. */
static zp_err wtns_open(zp__rd *vals, uint64_t *count, const uint8_t *data, size_t len,
                        zp__ioerr *why)
{
    zp__container c;
    zp_err e = zp__container_parse(&c, data, len, "wtns", why);
    if (e)
        return e;
    if (c.version != WTNS_VERSION)
        return zp__fail(why, ZP_E_UNSUPPORTED, "wtns version %u (only 2 is supported)",
                        c.version);
    zp__rd h;
    if ((e = zp__container_section(&h, &c, 1, "header", why)))
        return e;
    uint32_t n8 = 0, n = 0;
    if (!zp__rd_u32(&h, &n8))
        return zp__fail(why, ZP_E_FORMAT, "wtns header section is too short");
    if (n8 != 32)
        return zp__fail(why, ZP_E_BAD_PRIME,
                        "witness field elements have %u bytes: not BLS12-381's r (32)", n8);
    const uint8_t *prime = zp__rd_take(&h, 32);
    if (!prime || !zp__rd_u32(&h, &n))
        return zp__fail(why, ZP_E_FORMAT, "wtns header section is too short");
    if (memcmp(prime, ZP__R_LE, 32) != 0)
        return zp__fail(why, ZP_E_BAD_PRIME,
                        "witness is for another field (only BLS12-381's r is supported; "
                        "compile with circom --prime bls12381)");
    if ((e = zp__container_section(vals, &c, 2, "values", why)))
        return e;
    if (vals->len != (uint64_t)n * 32)
        return zp__fail(why, ZP_E_FORMAT,
                        "wtns declares %u values but its value section has %llu bytes", n,
                        (unsigned long long)vals->len);
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
        return zp__fail(why, ZP_E_WITNESS, "witness has %llu values, the key needs %llu",
                        (unsigned long long)count, (unsigned long long)n);
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
        return zp__fail(why, ZP_E_WITNESS, "witness has %llu values, the key needs %llu",
                        (unsigned long long)count, (unsigned long long)expect);
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
    zp__buf b;
    *out = NULL;
    *n = 0;
    zp_err e = zp__file_map(&b, path, zp__wtns_max_bytes(expect), why);
    if (e)
        return e;
    e = zp__wtns_parse(out, n, b.data, b.len, expect, why);
    zp__buf_free(&b);
    return e;
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
