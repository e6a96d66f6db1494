/*
 * A streaming slot's witness sent packed (witness_pack.h, gpu/wpack.h),
 * inside the MSM phase of a streaming key, where the bus carries the key's
 * points: ahead, into the witness region (a lean slot's: c's) while the
 * partition before sums its last H chunks (zp__g16_slot_send_next); a lean
 * slot again after h, which overwrote it. A PoRep witness is mostly 0 and
 * 1, so the packed chunks (bits, and the other values listed) cross in a
 * tenth of the plain bytes; chunks with many other values go as they are.
 *
 * The host packs the next witness, on every CPU, into the pack that is
 * not the current partition's, so that the current witness's pack stays
 * for its second send: the engine's witness loader does it once the
 * witness is loaded (zp__g16_slot_pack_ahead); a witness that no one
 * packed goes plain. The device staging is the tail of the witness region
 * past the witness (domain_size - n_vars values: 129 MB for synth:porep:27;
 * a slot without a ring has none); packed chunks that do not fit there,
 * and a key with no such room, go plain.
 */
#include <stdlib.h>
#include <string.h>

#include "groth16/prove_gpu_slot_impl.h"
#include "groth16/witness_pack.h"

struct zp__g16_wpack {
    uint64_t n, cap;
    uint64_t *bytes, *off; /* each chunk's packed bytes (0: raw), its place */
    uint8_t *image;   /* pinned: the staging as it goes up (table, regions) */
    uint64_t used;    /* bytes of image (0: none packed) */
    uint64_t raw;     /* bytes of the raw chunks, sent as they are */
    const zp_fr *w;   /* the witness packed (NULL: none) */
};

static void wpack_drop(zp__g16_wpack *p)
{
    if (!p)
        return;
    free(p->bytes);
    free(p->off);
    zp__gpu_host_free(p->image);
    free(p);
}

void zp__g16_wpack_free(zp__g16_slot *s)
{
    for (int i = 0; i < 2; i++) {
        wpack_drop(s->wpack[i]);
        s->wpack[i] = NULL;
    }
}

/* The staging's room: the witness region past the witness, 256-aligned
 * (less than 256 bytes in a slot without a ring: none). */
static uint64_t room_of(const zp__g16_slot *s, const zp__pk *pk)
{
    const uint64_t w = (uint64_t)pk->n_vars * sizeof(zp_fr);
    return s->witness.bytes > w ? (s->witness.bytes - w) & ~(uint64_t)255 : 0;
}

/* Whether a pack can be made for keys of pk's shape in s. */
static bool packs(const zp__g16_slot *s, const zp__pk *pk)
{
    const uint64_t chunks = zp__wpack_chunks(pk->n_vars);
    return chunks && chunks <= ZP_WPACK_CHUNKS_MAX &&
           room_of(s, pk) > zp__wpack_table_bytes(chunks);
}

uint64_t zp__g16_slot_wpack_pinned(const zp__g16_slot *s, const zp__pk *pk)
{
    return packs(s, pk) ? 2 * room_of(s, pk) : 0;
}

static zp__g16_wpack *wpack_get(zp__g16_slot *s, const zp__pk *pk, int i)
{
    const uint64_t n = pk->n_vars, cap = room_of(s, pk), chunks = zp__wpack_chunks(n);
    zp__g16_wpack *p = s->wpack[i];
    if (p && p->n == n && p->cap == cap)
        return p;
    wpack_drop(p); /* another shape: made again */
    s->wpack[i] = NULL;
    if (!packs(s, pk) || !(p = calloc(1, sizeof *p)))
        return NULL;
    p->n = n;
    p->cap = cap;
    p->bytes = malloc(chunks * sizeof *p->bytes);
    p->off = malloc(chunks * sizeof *p->off);
    if (!p->bytes || !p->off || zp__gpu_host_alloc(s->dev, (void **)&p->image, cap)) {
        wpack_drop(p);
        return NULL;
    }
    s->wpack[i] = p;
    return p;
}

/* Packs w into pack i (nothing where it cannot: then its sends go plain). */
static void wpack_make(zp__g16_slot *s, const zp__pk *pk, const zp_fr *w, int i)
{
    zp__g16_wpack *p = wpack_get(s, pk, i);
    if (!p)
        return;
    p->w = NULL;
    p->used = zp__wpack_image(w, p->n, p->cap, p->bytes, p->off, p->image);
    if (p->used && zp__wpack_worth(p->off, p->n, p->used, &p->raw))
        p->w = w;
}

zp_err zp__g16_wpack_send(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w, int i,
                          bool last, uint64_t *bytes)
{
    const uint64_t n = k->pk->n_vars, chunks = zp__wpack_chunks(n);
    zp_fr *d_w = s->witness.ptr;
    zp__g16_wpack *p = s->wpack[i];
    if (!p || p->w != w || p->n != n || p->cap != room_of(s, k->pk)) {
        *bytes = n * sizeof(zp_fr);
        return zp__gpu_upload(s->copy_stream, d_w, w, n * sizeof(zp_fr));
    }
    *bytes = p->used + p->raw;
    /* The staging at the end of c's region, past the witness. */
    char *stage = (char *)s->witness.ptr + ((s->witness.bytes - p->used) & ~(uint64_t)255);
    zp_err e = zp__gpu_upload(s->copy_stream, stage, p->image, p->used);
    /* The raw chunks straight to their place, a run of them a copy. */
    for (uint64_t c = 0; !e && c < chunks;) {
        if (p->off[c] != ZP_WPACK_NONE) {
            c++;
            continue;
        }
        uint64_t end = c;
        while (end < chunks && p->off[end] == ZP_WPACK_NONE)
            end++;
        const uint64_t at = c * ZP_WPACK_CHUNK;
        const uint64_t to = end * ZP_WPACK_CHUNK < n ? end * ZP_WPACK_CHUNK : n;
        e = zp__gpu_upload(s->copy_stream, d_w + at, w + at, (to - at) * sizeof(zp_fr));
        c = end;
    }
    zp_fr one;
    zp_fr_one(&one);
    if (!e)
        e = zp__gpu_wunpack(s->copy_stream, d_w, stage, n, &one);
    if (!e) {
        /* what the bus did not carry: the plain witness less the image and
         * the raw chunks (zp__wpack_worth: less than the plain bytes) */
        s->wpack_saved += n * sizeof(zp_fr) - p->used - p->raw;
        s->took_wpack++;
    }
    if (last) /* its second send: no later one may take it for another witness */
        p->w = NULL;
    return e;
}

void zp__g16_slot_pack_ahead(zp__g16_slot *s, const zp__pk *pk, const zp_fr *w)
{
    if (w)
        wpack_make(s, pk, w, s->wpack_next);
}
