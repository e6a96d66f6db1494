/*
 * The witness packed for its trip to the GPU (layout: gpu/wpack.h): one
 * chunk at a time on the host, and the reference unpacking the GPU's
 * zp__gpu_wunpack must equal.
 */
#ifndef ZP_GROTH16_WITNESS_PACK_H
#define ZP_GROTH16_WITNESS_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/wpack.h"
#include "zkpipe.h"

/*
 * Packs w[0 .. count) (1 <= count <= ZP_WPACK_CHUNK; Montgomery values,
 * `one` the Montgomery 1) into region (zp__wpack_region_bytes() bytes).
 * Returns the bytes to send, from the region's start through its last
 * dense value; 0 when the chunk has more than ZP_WPACK_DENSE_MAX dense
 * values: then the region's header says raw and the chunk goes as it is.
 */
uint64_t zp__wpack_chunk(const zp_fr *w, uint32_t count, const zp_fr *one, void *region);

/* out[0 .. count) from a packed region (not raw), as the GPU rebuilds it. */
void zp__wpack_unpack_ref(const void *region, uint32_t count, const zp_fr *one, zp_fr *out);

#endif
