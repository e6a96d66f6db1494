/* The witness packed for the GPU, one chunk at a time (witness_pack.h). */
#include "groth16/witness_pack.h"

#include <string.h>

#include "base/pool.h"
#include "math/mont.h"

/* v == c, inline: the packing loop runs it on every value (zp_fr_eq is a
 * call). */
static inline bool is_value(const zp_fr *v, const zp_fr *c)
{
    return !((v->l[0] ^ c->l[0]) | (v->l[1] ^ c->l[1]) | (v->l[2] ^ c->l[2]) |
             (v->l[3] ^ c->l[3]));
}

uint64_t zp__wpack_chunk_bytes(const zp_fr *w, uint32_t count, const zp_fr *one)
{
    uint32_t nd = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (zp__is_zero_n(w[i].l, ZP_FR_LIMBS) || is_value(&w[i], one))
            continue;
        if (nd++ == ZP_WPACK_DENSE_MAX)
            return 0;
    }
    return ZP_WPACK_OFF_DENSE + (uint64_t)nd * sizeof(zp_fr);
}

uint64_t zp__wpack_chunk(const zp_fr *w, uint32_t count, const zp_fr *one, void *region)
{
    uint8_t *r = region;
    uint32_t *hdr = (uint32_t *)r;
    uint32_t *tile_off = (uint32_t *)(r + ZP_WPACK_OFF_TILES);
    uint32_t *dbits = (uint32_t *)(r + ZP_WPACK_OFF_DBITS);
    uint32_t *obits = (uint32_t *)(r + ZP_WPACK_OFF_OBITS);
    zp_fr *dense = (zp_fr *)(r + ZP_WPACK_OFF_DENSE);
    uint32_t nd = 0;
    for (uint32_t word = 0; word * 32 < count; word++) {
        if (word % (ZP_WPACK_TILE / 32) == 0)
            tile_off[word / (ZP_WPACK_TILE / 32)] = nd;
        uint32_t db = 0, ob = 0, end = count - word * 32 < 32 ? count - word * 32 : 32;
        const zp_fr *v = w + (uint64_t)word * 32;
        for (uint32_t j = 0; j < end; j++) {
            if (zp__is_zero_n(v[j].l, ZP_FR_LIMBS))
                continue;
            if (is_value(&v[j], one)) {
                ob |= 1u << j;
                continue;
            }
            if (nd == ZP_WPACK_DENSE_MAX) {
                hdr[0] = ZP_WPACK_RAW;
                hdr[1] = 0;
                return 0;
            }
            db |= 1u << j;
            dense[nd++] = v[j];
        }
        dbits[word] = db;
        obits[word] = ob;
    }
    hdr[0] = ZP_WPACK_PACKED;
    hdr[1] = nd;
    return ZP_WPACK_OFF_DENSE + (uint64_t)nd * sizeof(zp_fr);
}

void zp__wpack_unpack_ref(const void *region, uint32_t count, const zp_fr *one, zp_fr *out)
{
    const uint8_t *r = region;
    const uint32_t *tile_off = (const uint32_t *)(r + ZP_WPACK_OFF_TILES);
    const uint32_t *dbits = (const uint32_t *)(r + ZP_WPACK_OFF_DBITS);
    const uint32_t *obits = (const uint32_t *)(r + ZP_WPACK_OFF_OBITS);
    const zp_fr *dense = (const zp_fr *)(r + ZP_WPACK_OFF_DENSE);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t word = i / 32, bit = i % 32, tile = i / ZP_WPACK_TILE;
        if (dbits[word] >> bit & 1) {
            /* dense values of this tile before value i */
            uint32_t k = tile_off[tile];
            for (uint32_t q = tile * (ZP_WPACK_TILE / 32); q < word; q++)
                k += (uint32_t)__builtin_popcount(dbits[q]);
            k += (uint32_t)__builtin_popcount(dbits[word] & ((1u << bit) - 1));
            out[i] = dense[k];
        } else if (obits[word] >> bit & 1) {
            out[i] = *one;
        } else {
            memset(&out[i], 0, sizeof out[i]);
        }
    }
}

uint64_t zp__wpack_place(const uint64_t *bytes, uint64_t chunks, uint64_t cap, uint64_t *off)
{
    const uint64_t table = zp__wpack_table_bytes(chunks);
    uint64_t at = 0; /* past the table */
    for (uint64_t k = 0; k < chunks; k++) {
        const uint64_t len = (bytes[k] + 255) & ~(uint64_t)255;
        if (bytes[k] && table <= cap && len <= cap - table - at) {
            off[k] = at;
            at += len;
        } else {
            off[k] = ZP_WPACK_NONE;
        }
    }
    return table <= cap ? table + at : 0;
}

typedef struct image_job {
    const zp_fr *w;
    uint64_t n, chunks;
    uint64_t *bytes;
    const uint64_t *off;
    uint8_t *image;
    zp_fr one;
} image_job;

static uint32_t chunk_count(const image_job *j, size_t k)
{
    const uint64_t at = (uint64_t)k * ZP_WPACK_CHUNK;
    return (uint32_t)(j->n - at < ZP_WPACK_CHUNK ? j->n - at : ZP_WPACK_CHUNK);
}

/* First pass: each chunk's packed bytes, for the layout. */
static void size_chunks(void *ctx, size_t begin, size_t end)
{
    image_job *j = ctx;
    for (size_t k = begin; k < end; k++)
        j->bytes[k] =
            zp__wpack_chunk_bytes(j->w + (uint64_t)k * ZP_WPACK_CHUNK, chunk_count(j, k), &j->one);
}

/* Second pass: the placed chunks packed straight into the image. */
static void pack_chunks(void *ctx, size_t begin, size_t end)
{
    image_job *j = ctx;
    const uint64_t table = zp__wpack_table_bytes(j->chunks);
    for (size_t k = begin; k < end; k++)
        if (j->off[k] != ZP_WPACK_NONE)
            zp__wpack_chunk(j->w + (uint64_t)k * ZP_WPACK_CHUNK, chunk_count(j, k), &j->one,
                            j->image + table + j->off[k]);
}

uint64_t zp__wpack_image(const zp_fr *w, uint64_t n, uint64_t cap, uint64_t *bytes,
                         uint64_t *off, uint8_t *image)
{
    image_job j = {w, n, zp__wpack_chunks(n), bytes, off, image, {{0}}};
    zp_fr_one(&j.one);
    zp__parallel_for(j.chunks, 16, size_chunks, &j, 0);
    const uint64_t used = zp__wpack_place(bytes, j.chunks, cap, off);
    if (!used)
        return 0;
    memset(image, 0, zp__wpack_table_bytes(j.chunks));
    memcpy(image, off, j.chunks * sizeof *off);
    zp__parallel_for(j.chunks, 16, pack_chunks, &j, 0);
    return used;
}

bool zp__wpack_worth(const uint64_t *off, uint64_t n, uint64_t used, uint64_t *raw)
{
    const uint64_t chunks = zp__wpack_chunks(n);
    uint64_t bytes = 0, runs = 0;
    for (uint64_t k = 0; k < chunks; k++) {
        if (off[k] != ZP_WPACK_NONE)
            continue;
        const uint64_t at = k * ZP_WPACK_CHUNK;
        bytes += (n - at < ZP_WPACK_CHUNK ? n - at : ZP_WPACK_CHUNK) * sizeof(zp_fr);
        runs += k == 0 || off[k - 1] != ZP_WPACK_NONE;
    }
    *raw = bytes;
    const uint64_t plain = n * sizeof(zp_fr);
    return runs <= ZP_WPACK_RUNS_MAX && used <= plain && bytes <= plain - used &&
           used + bytes <= plain - plain / 8;
}
