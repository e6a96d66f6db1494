/*
 * The witness packed for its trip to the GPU (layout: gpu/wpack.h) on the
 * host: a chunk at a time, or a whole staging image; and the reference
 * unpacking the GPU's zp__gpu_wunpack must equal.
 */
#ifndef ZP_GROTH16_WITNESS_PACK_H
#define ZP_GROTH16_WITNESS_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/wpack.h"
#include "zkpipe.h"

/*
 * Packs w[0 .. count) (1 <= count <= ZP_WPACK_CHUNK; Montgomery values,
 * `one` the Montgomery 1) into region (zp__wpack_region_bytes() bytes).
 * Returns the bytes to send, from the region's start through its last
 * dense value, and writes no further; 0 when the chunk has more than
 * ZP_WPACK_DENSE_MAX dense values: then the region's header says raw and
 * the chunk goes as it is.
 */
uint64_t zp__wpack_chunk(const zp_fr *w, uint32_t count, const zp_fr *one, void *region);

/* What zp__wpack_chunk returns for w[0 .. count), without writing: a
 * count of its dense values, so that a staging can be laid out before
 * the chunks are packed straight into it. */
uint64_t zp__wpack_chunk_bytes(const zp_fr *w, uint32_t count, const zp_fr *one);

/* out[0 .. count) from a packed region (not raw), as the GPU rebuilds it. */
void zp__wpack_unpack_ref(const void *region, uint32_t count, const zp_fr *one, zp_fr *out);

/*
 * Where each chunk's region goes in a device staging of `cap` bytes
 * (layout: gpu/wpack.h): bytes[k] is what zp__wpack_chunk returned for
 * chunk k (0: raw). off[k] gets the region's offset past the table,
 * 256-aligned, in chunk order, or ZP_WPACK_NONE where the chunk is raw or
 * no longer fits (then it goes raw too). Returns the staging bytes used,
 * the table included (0 where not even the table fits: every chunk raw).
 */
uint64_t zp__wpack_place(const uint64_t *bytes, uint64_t chunks, uint64_t cap, uint64_t *off);

/* Raw runs a packed send may copy at the most (a copy each): past that
 * the witness goes plain, in one copy. */
#define ZP_WPACK_RUNS_MAX 4096

/*
 * Whether a staging of `used` bytes placed as off[] (zp__wpack_place's,
 * for n values) is worth sending instead of the n values: the image and
 * the raw chunks (off[k] ZP_WPACK_NONE, sent as they are) together at
 * most seven eighths of the plain bytes, in at most ZP_WPACK_RUNS_MAX runs
 * of raw chunks. *raw gets the raw chunks' bytes.
 */
bool zp__wpack_worth(const uint64_t *off, uint64_t n, uint64_t used, uint64_t *raw);

/*
 * The whole staging image for w[0 .. n) (Montgomery values) in `image`
 * (cap bytes, pinned where it is to be copied from): the chunks' sizes
 * first (bytes[], zp__wpack_chunks(n) of them), their places (off[], as
 * zp__wpack_place), then each placed chunk packed straight into its
 * region, on every CPU. Returns the image's bytes to send, 0 where not
 * even the table fits (every chunk goes raw then).
 */
uint64_t zp__wpack_image(const zp_fr *w, uint64_t n, uint64_t cap, uint64_t *bytes,
                         uint64_t *off, uint8_t *image);

#endif
