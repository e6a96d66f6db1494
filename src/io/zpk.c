/*
 * Loads a .zpk (zpk.h) by reading it into memory of its own (or mapping
 * it, for a caller that trusts it and reads little): the header is decoded
 * and every bound checked before anything in it is trusted; then the
 * section checksums and the index structure (density popcounts, CSR
 * offsets and columns) are verified, unless the caller says the file was
 * verified before; then the key's arrays are pointed into those bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/pool.h"
#include "io/zpk_impl.h"

/* ----------------------------------------------------------- the header */

static zp_err parse_counts(zp__zpk_header *h, const uint8_t *p, zp__ioerr *why)
{
    h->h_conv = (zp_h_conv)zp__le32(p + 16);
    h->roots = (zp_roots)zp__le32(p + 20);
    h->n_vars = zp__le32(p + 24);
    h->n_public = zp__le32(p + 28);
    uint64_t *v[] = {&h->domain_size, &h->n_a, &h->n_b, &h->n_l, &h->n_h, &h->ma_rows,
                     &h->ma_nnz, &h->mb_rows, &h->mb_nnz, &h->file_size};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        *v[i] = zp__le64(p + 32 + 8 * i);
    return zp__zpk_check_counts(h, ZP_E_FORMAT, why);
}

/* Sections in id order, aligned, not overlapping, of the implied length,
 * inside the recorded file size. */
static zp_err parse_table(zp__zpk_header *h, const uint8_t *p, zp__ioerr *why)
{
    uint64_t end = ZP__ZPK_ALIGN;
    for (uint32_t id = 1; id <= ZP__ZPK_NSEC; id++) {
        const uint8_t *e = p + ZP__ZPK_TABLE + (id - 1) * ZP__ZPK_ENTRY;
        const char *name = zp__zpk_section_name(id);
        zp__zpk_section s = {zp__le64(e + 8), zp__le64(e + 16), zp__le64(e + 24)};
        if (zp__le32(e) != id || zp__le32(e + 4) != 0)
            return zp__fail(why, ZP_E_FORMAT, "section table entry %u is not section %u (%s)",
                            id - 1, id, name);
        if (s.off % ZP__ZPK_ALIGN != 0 || s.off < end)
            return zp__fail(why, ZP_E_FORMAT,
                            "section %s at offset %llu: unaligned or overlapping", name,
                            (unsigned long long)s.off);
        uint64_t want = zp__zpk_section_len(h, id);
        if (s.len != want)
            return zp__fail(why, ZP_E_FORMAT, "section %s has %llu bytes, the counts need %llu",
                            name, (unsigned long long)s.len, (unsigned long long)want);
        if (s.off > h->file_size || s.len > h->file_size - s.off)
            return zp__fail(why, ZP_E_FORMAT,
                            "section %s (%llu bytes at %llu) runs past the file size %llu",
                            name, (unsigned long long)s.len, (unsigned long long)s.off,
                            (unsigned long long)h->file_size);
        end = s.off + s.len;
        h->sec[id] = s;
    }
    return ZP_OK;
}

zp_err zp__zpk_header_parse(zp__zpk_header *out, const uint8_t *p, size_t len,
                            uint64_t file_len, zp__ioerr *why)
{
    memset(out, 0, sizeof *out);
    if (len >= 8 && memcmp(p, ZP__ZPK_MAGIC, 8) != 0)
        return zp__fail(why, ZP_E_FORMAT, "not a .zpk file (bad magic)");
    if (len < ZP__ZPK_ALIGN)
        return zp__fail(why, ZP_E_TRUNCATED, "%zu bytes: shorter than the %d-byte header", len,
                        ZP__ZPK_ALIGN);
    out->version = zp__le32(p + 8);
    if (out->version != ZP__ZPK_VERSION)
        return zp__fail(why, ZP_E_UNSUPPORTED, ".zpk version %u (this build reads %d)",
                        out->version, ZP__ZPK_VERSION);
    if (zp__le32(p + 12) != ZP__ZPK_TABLE_END || zp__le32(p + 112) != ZP__ZPK_NSEC ||
        zp__le32(p + 116) != 0)
        return zp__fail(why, ZP_E_FORMAT, "header: %u sections ending at %u, expected %d at %d",
                        zp__le32(p + 112), zp__le32(p + 12), ZP__ZPK_NSEC, (int)ZP__ZPK_TABLE_END);
    if (zp__hash64(p, ZP__ZPK_TABLE_END, 1) != zp__le64(p + ZP__ZPK_TABLE_END))
        return zp__fail(why, ZP_E_CHECKSUM, "checksum mismatch in section header");
    zp_err e = parse_counts(out, p, why);
    if (e)
        return e;
    if (file_len < out->file_size)
        return zp__fail(why, ZP_E_TRUNCATED, "the file has %llu bytes, its header says %llu",
                        (unsigned long long)file_len, (unsigned long long)out->file_size);
    if (file_len > out->file_size)
        return zp__fail(why, ZP_E_FORMAT, "the file has %llu bytes, its header says %llu",
                        (unsigned long long)file_len, (unsigned long long)out->file_size);
    return parse_table(out, p, why);
}

/* ------------------------------------------------------------- checking */

/* Section by section; a big section hashes its 1 MiB chunks in parallel
 * (small ones are a single chunk and start no thread). */
static zp_err verify_sections(const uint8_t *base, const zp__zpk_header *h, int threads,
                              zp__ioerr *why)
{
    for (uint32_t id = 1; id <= ZP__ZPK_NSEC; id++) {
        const zp__zpk_section *s = &h->sec[id];
        if (zp__hash64(base + s->off, (size_t)s->len, threads) != s->sum)
            return zp__fail(why, ZP_E_CHECKSUM, "checksum mismatch in section %s",
                            zp__zpk_section_name(id));
    }
    return ZP_OK;
}

static zp_err check_structure(const zp__pk *pk, int threads, zp__ioerr *why)
{
    zp_err e;
    if ((e = zp__zpk_check_bitmap(&pk->a_density, pk->n_vars, pk->n_a, "A density",
                                  ZP_E_FORMAT, why)) ||
        (e = zp__zpk_check_bitmap(&pk->b_density, pk->n_vars, pk->n_b, "B density",
                                  ZP_E_FORMAT, why)) ||
        (e = zp__zpk_check_csr(&pk->ma, pk->n_vars, "A", ZP_E_FORMAT, threads, why)))
        return e;
    return zp__zpk_check_csr(&pk->mb, pk->n_vars, "B", ZP_E_FORMAT, threads, why);
}

/* -------------------------------------------------------------- mapping */

static const void *at(const uint8_t *base, const zp__zpk_header *h, uint32_t id)
{
    return base + h->sec[id].off;
}

static zp_err copy_vk(zp__vk *vk, const uint8_t *p, uint32_t n_ic)
{
    memcpy(&vk->alpha1, p, 96), p += 96;
    memcpy(&vk->beta1, p, 96), p += 96;
    memcpy(&vk->beta2, p, 192), p += 192;
    memcpy(&vk->gamma2, p, 192), p += 192;
    memcpy(&vk->delta1, p, 96), p += 96;
    memcpy(&vk->delta2, p, 192), p += 192;
    vk->ic = malloc((size_t)n_ic * sizeof *vk->ic);
    if (!vk->ic)
        return ZP_E_NOMEM;
    memcpy(vk->ic, p, (size_t)n_ic * sizeof *vk->ic);
    vk->n_ic = n_ic;
    return ZP_OK;
}

/* The key's arrays point into the mapping: the casts drop const because
 * zp__pk's arrays are not const; the mapping is read-only, so a stray
 * write faults instead of corrupting the key. */
static void point_into(zp__pk *pk, uint8_t *base, const zp__zpk_header *h)
{
    pk->h_conv = h->h_conv;
    pk->roots = h->roots;
    pk->n_vars = h->n_vars;
    pk->n_public = h->n_public;
    pk->domain_size = h->domain_size;
    pk->n_a = h->n_a;
    pk->n_b = h->n_b;
    pk->n_l = h->n_l;
    pk->n_h = h->n_h;
    pk->a = (zp_g1_affine *)at(base, h, ZP__ZPK_A);
    pk->b1 = (zp_g1_affine *)at(base, h, ZP__ZPK_B1);
    pk->b2 = (zp_g2_affine *)at(base, h, ZP__ZPK_B2);
    pk->l = (zp_g1_affine *)at(base, h, ZP__ZPK_L);
    pk->h = (zp_g1_affine *)at(base, h, ZP__ZPK_H);
    pk->a_density = (zp__bitmap){h->n_vars, (uint64_t *)at(base, h, ZP__ZPK_ADENS)};
    pk->b_density = (zp__bitmap){h->n_vars, (uint64_t *)at(base, h, ZP__ZPK_BDENS)};
    pk->ma = (zp__csr){h->ma_rows, h->ma_nnz, (uint64_t *)at(base, h, ZP__ZPK_MA_ROWS),
                       (uint32_t *)at(base, h, ZP__ZPK_MA_COLS),
                       (zp_fr *)at(base, h, ZP__ZPK_MA_VALS)};
    pk->mb = (zp__csr){h->mb_rows, h->mb_nnz, (uint64_t *)at(base, h, ZP__ZPK_MB_ROWS),
                       (uint32_t *)at(base, h, ZP__ZPK_MB_COLS),
                       (zp_fr *)at(base, h, ZP__ZPK_MB_VALS)};
}

/* The file read into anonymous memory in chunks of READ_CHUNK, on all
 * threads: the key then owns its bytes, and a file truncated or rewritten
 * under a live daemon can neither raise SIGBUS nor change an array the
 * structure checks passed. */
#define READ_CHUNK ((size_t)64 << 20)

typedef struct read_job {
    int fd;
    uint8_t *base;
    uint64_t size;
    atomic_int failed; /* 0, or the errno (-1: a short read) of the first failure */
} read_job;

static void read_chunks(void *ctx, size_t begin, size_t end)
{
    read_job *j = ctx;
    for (size_t c = begin; c < end && !atomic_load(&j->failed); c++) {
        uint64_t off = (uint64_t)c * READ_CHUNK;
        size_t len = j->size - off < READ_CHUNK ? (size_t)(j->size - off) : READ_CHUNK;
        while (len) {
            ssize_t n = pread(j->fd, j->base + off, len, (off_t)off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                int want = n < 0 ? errno : -1, none = 0;
                atomic_compare_exchange_strong(&j->failed, &none, want);
                return;
            }
            off += (uint64_t)n;
            len -= (size_t)n;
        }
    }
}

static zp_err read_owned(uint8_t **base, int fd, uint64_t size, const char *path, int threads,
                         zp__ioerr *why)
{
    void *m = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return zp__fail(why, ZP_E_NOMEM, "no memory to read %s (%llu bytes)", path,
                        (unsigned long long)size);
#ifdef MADV_HUGEPAGE
    (void)madvise(m, (size_t)size, MADV_HUGEPAGE); /* fewer TLB misses; a hint only */
#endif
    read_job j = {.fd = fd, .base = m, .size = size};
    atomic_init(&j.failed, 0);
    zp__parallel_for((size_t)((size + READ_CHUNK - 1) / READ_CHUNK), 1, read_chunks, &j, threads);
    struct stat st;
    int f = atomic_load(&j.failed);
    zp_err e = ZP_OK;
    if (f > 0)
        e = zp__fail(why, ZP_E_IO, "reading %s: %s", path, strerror(f));
    else if (f < 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_size != size)
        e = zp__fail(why, ZP_E_TRUNCATED, "%s changed size while being read", path);
    if (e) {
        munmap(m, (size_t)size);
        return e;
    }
    mprotect(m, (size_t)size, PROT_READ); /* read-only from here, as the mapping was */
    *base = m;
    return ZP_OK;
}

/* The file's bytes: mapped read-only where `mapped` (ZP__ZPK_TRUSTED),
 * else read into memory of its own. */
static zp_err load_file(uint8_t **base, uint64_t *size, const char *path, bool mapped,
                        int threads, zp__ioerr *why)
{
    int fd;
    struct stat st;
    zp_err e = zp__file_open(&fd, &st, path, UINT64_MAX, why);
    if (e)
        return e;
    if (st.st_size < ZP__ZPK_ALIGN)
        e = zp__fail(why, ZP_E_TRUNCATED, "%s: %lld bytes, shorter than the .zpk header",
                     path, (long long)st.st_size);
    if (e) {
        close(fd);
        return e;
    }
    *size = (uint64_t)st.st_size;
    if (!mapped) {
        e = read_owned(base, fd, *size, path, threads, why);
        close(fd);
        return e;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int err = errno;
    close(fd);
    if (m == MAP_FAILED)
        return zp__fail(why, ZP_E_IO, "mmap %s: %s", path, strerror(err));
    *base = m;
    return ZP_OK;
}

zp_err zp__zpk_load(zp__pk *out, const char *path, unsigned flags, int threads,
                    zp__ioerr *why)
{
    memset(out, 0, sizeof *out);
    uint8_t *base = NULL;
    uint64_t size = 0;
    const bool mapped = flags & ZP__ZPK_TRUSTED;
    zp_err e = load_file(&base, &size, path, mapped, threads, why);
    if (e)
        return e;
    zp__zpk_header h;
    if ((e = zp__zpk_header_parse(&h, base, ZP__ZPK_ALIGN, size, why)))
        goto fail;
    if (!(flags & ZP__ZPK_TRUSTED) && (e = verify_sections(base, &h, threads, why)))
        goto fail;
    point_into(out, base, &h);
    out->map_base = base;
    out->map_len = (size_t)size;
    out->map_file = mapped;
    if (!(flags & ZP__ZPK_TRUSTED) && (e = check_structure(out, threads, why)))
        goto fail_pk;
    if ((e = copy_vk(&out->vk, at(base, &h, ZP__ZPK_VK), h.n_public + 1))) {
        zp__fail(why, e, "no memory for the verifying key");
        goto fail_pk;
    }
    return ZP_OK;
fail_pk:
    zp__pk_free(out); /* unmaps */
    return e;
fail:
    munmap(base, (size_t)size);
    return e;
}
