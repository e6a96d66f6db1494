/*
 * The iden3 binary container shared by .r1cs, .wtns, .zkey and .ptau:
 * magic[4] ‖ u32 version ‖ u32 nSections ‖ (u32 id ‖ u64 size ‖ body)*.
 * Section order is not fixed (circom writes the constraints before the
 * header), so readers look sections up by id.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "io/io.h"

const uint8_t ZP__R_LE[32] = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
    0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73,
};

const uint8_t ZP__Q_LE[48] = {
    0xab, 0xaa, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xb9, 0xff, 0xff, 0x53, 0xb1, 0xfe, 0xff, 0xab, 0x1e,
    0x24, 0xf6, 0xb0, 0xf6, 0xa0, 0xd2, 0x30, 0x67, 0xbf, 0x12, 0x85, 0xf3, 0x84, 0x4b, 0x77, 0x64,
    0xd7, 0xac, 0x4b, 0x43, 0xb6, 0xa7, 0x1b, 0x4b, 0x9a, 0xe6, 0x7f, 0x39, 0xea, 0x11, 0x01, 0x1a,
};

/* The headers' bytes [off, off + len) into buf: from memory or a file. */
typedef zp_err (*read_fn)(void *ctx, uint8_t *buf, uint64_t len, uint64_t off, zp__ioerr *why);

static zp_err read_mem(void *ctx, uint8_t *buf, uint64_t len, uint64_t off, zp__ioerr *why)
{
    (void)why;
    memcpy(buf, (const uint8_t *)ctx + off, (size_t)len);
    return ZP_OK;
}

static zp_err read_fd(void *ctx, uint8_t *buf, uint64_t len, uint64_t off, zp__ioerr *why)
{
    return zp__pread_all(*(const int *)ctx, buf, len, off, why);
}

/* The sections of a container of len bytes, their headers read through rd
 * (never past len). */
static zp_err walk(zp__container *c, uint64_t len, const char magic[4], read_fn rd, void *ctx,
                   zp__ioerr *why)
{
    uint8_t h[12];
    if (len < 4)
        return zp__fail(why, ZP_E_TRUNCATED, "file of %llu bytes is too short for a header",
                        (unsigned long long)len);
    zp_err e = rd(ctx, h, len < 12 ? 4 : 12, 0, why);
    if (e)
        return e;
    if (memcmp(h, magic, 4) != 0)
        return zp__fail(why, ZP_E_FORMAT, "bad magic: expected \"%.4s\"", magic);
    if (len < 12)
        return zp__fail(why, ZP_E_TRUNCATED, "file ends inside the header");
    c->version = zp__le32(h + 4);
    uint32_t nsec = zp__le32(h + 8);
    if (nsec > ZP__MAX_SECTIONS)
        return zp__fail(why, ZP_E_FORMAT, "%u sections (at most %d are expected)", nsec,
                        ZP__MAX_SECTIONS);
    uint64_t pos = 12;
    for (uint32_t i = 0; i < nsec; i++) {
        if (len - pos < 12)
            return zp__fail(why, ZP_E_TRUNCATED, "file ends in the header of section %u of %u",
                            i + 1, nsec);
        if ((e = rd(ctx, h, 12, pos, why)))
            return e;
        uint32_t id = zp__le32(h);
        uint64_t size = zp__le64(h + 4);
        pos += 12;
        /* size is untrusted: compare against what is left, never add. */
        if (size > len - pos)
            return zp__fail(why, ZP_E_TRUNCATED,
                            "section %u declares %llu bytes but %llu remain", id,
                            (unsigned long long)size, (unsigned long long)(len - pos));
        if (zp__container_find(c, id))
            return zp__fail(why, ZP_E_FORMAT, "section %u appears twice", id);
        c->s[c->n++] = (zp__section){.id = id, .off = pos, .size = size};
        pos += size;
    }
    /* Bytes after the last section are tolerated, as snarkjs does. */
    return ZP_OK;
}

zp_err zp__container_parse(zp__container *c, const uint8_t *data, size_t len,
                           const char magic[4], zp__ioerr *why)
{
    memset(c, 0, sizeof *c);
    c->data = data;
    c->len = len;
    return walk(c, len, magic, read_mem, (void *)data, why);
}

const zp__section *zp__container_find(const zp__container *c, uint32_t id)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (c->s[i].id == id)
            return &c->s[i];
    return NULL;
}

zp_err zp__container_section(zp__rd *out, const zp__container *c, uint32_t id,
                             const char *what, zp__ioerr *why)
{
    const zp__section *s = zp__container_find(c, id);
    if (!s)
        return zp__fail(why, ZP_E_FORMAT, "section %u (%s) is missing", id, what);
    *out = (zp__rd){.p = c->data + s->off, .len = s->size, .pos = 0};
    return ZP_OK;
}

zp_err zp__afile_container(zp__afile *f, const char magic[4], uint32_t version, uint32_t nsec)
{
    zp__afile_write(f, magic, 4);
    zp__afile_u32(f, version);
    return zp__afile_u32(f, nsec);
}

zp_err zp__afile_section(zp__afile *f, uint32_t id, uint64_t size)
{
    zp__afile_u32(f, id);
    return zp__afile_u64(f, size);
}

zp_err zp__g1_check(const zp_g1_affine *p)
{
    if (!zp_g1_affine_on_curve(p))
        return ZP_E_NOT_ON_CURVE;
    if (!zp_g1_affine_in_subgroup(p))
        return ZP_E_NOT_IN_SUBGROUP;
    return ZP_OK;
}

zp_err zp__g2_check(const zp_g2_affine *p)
{
    if (!zp_g2_affine_on_curve(p))
        return ZP_E_NOT_ON_CURVE;
    if (!zp_g2_affine_in_subgroup(p))
        return ZP_E_NOT_IN_SUBGROUP;
    return ZP_OK;
}

zp_err zp__pread_all(int fd, void *buf, uint64_t len, uint64_t off, zp__ioerr *why)
{
    uint8_t *p = buf;
    while (len) {
        ssize_t n = pread(fd, p, len > ((size_t)1 << 30) ? ((size_t)1 << 30) : (size_t)len,
                          (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return zp__fail(why, ZP_E_IO, "read: %s", strerror(errno));
        if (n == 0)
            return zp__fail(why, ZP_E_TRUNCATED, "the file ended early: it changed while being read");
        p += n;
        off += (uint64_t)n;
        len -= (uint64_t)n;
    }
    return ZP_OK;
}

zp_err zp__container_scan(zp__container *c, int fd, uint64_t len, const char magic[4],
                          zp__ioerr *why)
{
    memset(c, 0, sizeof *c);
    c->len = len;
    return walk(c, len, magic, read_fd, &fd, why);
}
