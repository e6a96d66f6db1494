/*
 * Writes a proving key as a .zpk (zpk.h): the header page with the section
 * table, then each section at a 4 KiB boundary. Every checksum is computed
 * from the in-memory arrays before the first byte is written, so the file
 * is one sequential pass through an atomic (temp, fsync, rename) writer.
 */
#include <stdlib.h>
#include <string.h>

#include "io/zpk_impl.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .zpk layout stores in-memory arrays and assumes a little-endian host"
#endif
_Static_assert(sizeof(zp_g1_affine) == 96, "zp_g1_affine must be 96 packed bytes");
_Static_assert(sizeof(zp_g2_affine) == 192, "zp_g2_affine must be 192 packed bytes");
_Static_assert(sizeof(zp_fr) == 32, "zp_fr must be 32 packed bytes");

static uint64_t align_up(uint64_t v)
{
    return (v + ZP__ZPK_ALIGN - 1) / ZP__ZPK_ALIGN * ZP__ZPK_ALIGN;
}

/* The VK section: the six points, then the IC points. */
static uint8_t *vk_bytes(const zp__vk *vk, uint64_t len)
{
    uint8_t *b = malloc((size_t)len);
    if (!b)
        return NULL;
    uint8_t *p = b;
    memcpy(p, &vk->alpha1, 96), p += 96;
    memcpy(p, &vk->beta1, 96), p += 96;
    memcpy(p, &vk->beta2, 192), p += 192;
    memcpy(p, &vk->gamma2, 192), p += 192;
    memcpy(p, &vk->delta1, 96), p += 96;
    memcpy(p, &vk->delta2, 192), p += 192;
    memcpy(p, vk->ic, (size_t)vk->n_ic * 96);
    return b;
}

/* Where each section's bytes are in memory. */
static void section_sources(const void *src[ZP__ZPK_NSEC + 1], const zp__pk *pk,
                            const uint8_t *vk)
{
    src[ZP__ZPK_VK] = vk;
    src[ZP__ZPK_A] = pk->a;
    src[ZP__ZPK_B1] = pk->b1;
    src[ZP__ZPK_B2] = pk->b2;
    src[ZP__ZPK_L] = pk->l;
    src[ZP__ZPK_H] = pk->h;
    src[ZP__ZPK_ADENS] = pk->a_density.words;
    src[ZP__ZPK_BDENS] = pk->b_density.words;
    src[ZP__ZPK_MA_ROWS] = pk->ma.row_ptr;
    src[ZP__ZPK_MA_COLS] = pk->ma.col;
    src[ZP__ZPK_MA_VALS] = pk->ma.val;
    src[ZP__ZPK_MB_ROWS] = pk->mb.row_ptr;
    src[ZP__ZPK_MB_COLS] = pk->mb.col;
    src[ZP__ZPK_MB_VALS] = pk->mb.val;
}

/* Lays the sections out, checksums them, and fills h->sec and file_size. */
static void plan(zp__zpk_header *h, const void *const src[], int threads)
{
    uint64_t off = ZP__ZPK_ALIGN;
    for (uint32_t id = 1; id <= ZP__ZPK_NSEC; id++) {
        uint64_t len = zp__zpk_section_len(h, id);
        h->sec[id] = (zp__zpk_section){.off = off, .len = len,
                                        .sum = zp__hash64(src[id], (size_t)len, threads)};
        h->file_size = off + len;
        off = align_up(off + len);
    }
}

static void encode_header(uint8_t page[ZP__ZPK_ALIGN], const zp__zpk_header *h)
{
    memset(page, 0, ZP__ZPK_ALIGN);
    memcpy(page, ZP__ZPK_MAGIC, 8);
    zp__put32(page + 8, ZP__ZPK_VERSION);
    zp__put32(page + 12, ZP__ZPK_TABLE_END);
    zp__put32(page + 16, (uint32_t)h->h_conv);
    zp__put32(page + 20, (uint32_t)h->roots);
    zp__put32(page + 24, h->n_vars);
    zp__put32(page + 28, h->n_public);
    const uint64_t v[] = {h->domain_size, h->n_a, h->n_b, h->n_l, h->n_h, h->ma_rows,
                          h->ma_nnz, h->mb_rows, h->mb_nnz, h->file_size};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        zp__put64(page + 32 + 8 * i, v[i]);
    zp__put32(page + 112, ZP__ZPK_NSEC);
    for (uint32_t id = 1; id <= ZP__ZPK_NSEC; id++) {
        uint8_t *e = page + ZP__ZPK_TABLE + (id - 1) * ZP__ZPK_ENTRY;
        zp__put32(e, id);
        zp__put64(e + 8, h->sec[id].off);
        zp__put64(e + 16, h->sec[id].len);
        zp__put64(e + 24, h->sec[id].sum);
    }
    zp__put64(page + ZP__ZPK_TABLE_END, zp__hash64_ref(page, ZP__ZPK_TABLE_END));
}

static void put_zeros(zp__afile *f, uint64_t n)
{
    static const uint8_t zero[ZP__ZPK_ALIGN];
    while (n > 0) {
        size_t k = n < sizeof zero ? (size_t)n : sizeof zero;
        zp__afile_write(f, zero, k);
        n -= k;
    }
}

static zp_err write_all(const char *path, const zp__zpk_header *h, const void *const src[],
                        zp__ioerr *why)
{
    uint8_t *page = malloc(ZP__ZPK_ALIGN);
    if (!page)
        return zp__fail(why, ZP_E_NOMEM, "no memory for the header");
    encode_header(page, h);
    zp__afile f;
    zp_err e = zp__afile_open(&f, path, why);
    if (e) {
        free(page);
        return e;
    }
    zp__afile_write(&f, page, ZP__ZPK_ALIGN);
    free(page);
    uint64_t pos = ZP__ZPK_ALIGN;
    for (uint32_t id = 1; id <= ZP__ZPK_NSEC; id++) {
        put_zeros(&f, h->sec[id].off - pos);
        if (h->sec[id].len)
            zp__afile_write(&f, src[id], (size_t)h->sec[id].len);
        pos = h->sec[id].off + h->sec[id].len;
    }
    /* Write errors are sticky in f; commit reports them and removes the
     * temporary file. */
    return zp__afile_commit(&f, why);
}

zp_err zp__zpk_save(const char *path, const zp__pk *pk, int threads, zp__ioerr *why)
{
    zp_err e = zp__zpk_check_pk(pk, threads, why);
    if (e)
        return e;
    zp__zpk_header h;
    zp__zpk_header_of(&h, pk);
    uint8_t *vk = vk_bytes(&pk->vk, zp__zpk_section_len(&h, ZP__ZPK_VK));
    if (!vk)
        return zp__fail(why, ZP_E_NOMEM, "no memory for the verifying key section");
    const void *src[ZP__ZPK_NSEC + 1];
    section_sources(src, pk, vk);
    plan(&h, src, threads);
    e = write_all(path, &h, src, why);
    free(vk);
    return e;
}
