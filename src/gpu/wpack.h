/*
 * The packed witness's layout, shared by the host packer
 * (groth16/witness_pack.c) and the GPU unpacker (wunpack.cu).
 *
 * A witness whose values are mostly 0 and 1 (a PoRep's are) crosses PCIe
 * as bits plus its other ("dense") values, and the GPU rebuilds it. The
 * values go in chunks of ZP_WPACK_CHUNK. The device staging holds a table
 * of zp__wpack_table_bytes(chunks) (chunk k's region offset past the
 * table, a uint64, or ZP_WPACK_NONE where the chunk goes raw, straight to
 * its place), then the packed chunks' regions, each 256-aligned, only as
 * long as its bytes (zp__wpack_place). A region (at most
 * zp__wpack_region_bytes() on the host) is laid out
 *
 *   kind, ndense   two u32: ZP_WPACK_PACKED or ZP_WPACK_RAW (the chunk is
 *                  sent as it is, straight to its place), dense count
 *   tile_off       u32 per tile of ZP_WPACK_TILE values: dense values of
 *                  the chunk before the tile
 *   dense_bits     u32 per 32 values: bit j set when value j is dense
 *   one_bits       u32 per 32 values: bit j set when value j is one
 *   dense          the dense values in order, 32 bytes each
 *
 * Values are Montgomery Fr (zero is all-zero limbs, one is R mod r). A
 * chunk packs while its dense values number at most ZP_WPACK_DENSE_MAX (an
 * eighth: then it crosses in at most a quarter of its plain bytes); past
 * that it is raw. Only the bytes up to its last dense value cross.
 */
#ifndef ZP_GPU_WPACK_H
#define ZP_GPU_WPACK_H

#include <stdint.h>

#define ZP_WPACK_CHUNK (1u << 12)
#define ZP_WPACK_TILE 1024u
#define ZP_WPACK_DENSE_MAX (ZP_WPACK_CHUNK / 8)
#define ZP_WPACK_NONE UINT64_MAX
#define ZP_WPACK_PACKED 0u
#define ZP_WPACK_RAW 1u
/* The most chunks a packed witness has (the rebuild's grid: a row a chunk). */
#define ZP_WPACK_CHUNKS_MAX 65535u

/* Byte offsets within a chunk's region (the dense values 256-aligned, as
 * is every region: its size is a multiple of 256). */
#define ZP_WPACK_OFF_TILES 16u
#define ZP_WPACK_OFF_DBITS (ZP_WPACK_OFF_TILES + 4u * (ZP_WPACK_CHUNK / ZP_WPACK_TILE))
#define ZP_WPACK_OFF_OBITS (ZP_WPACK_OFF_DBITS + 4u * (ZP_WPACK_CHUNK / 32u))
#define ZP_WPACK_OFF_DENSE ((ZP_WPACK_OFF_OBITS + 4u * (ZP_WPACK_CHUNK / 32u) + 255u) & ~255u)

static inline uint64_t zp__wpack_region_bytes(void)
{
    return ZP_WPACK_OFF_DENSE + 32ull * ZP_WPACK_DENSE_MAX;
}

/* Chunks for n values. */
static inline uint64_t zp__wpack_chunks(uint64_t n)
{
    return (n + ZP_WPACK_CHUNK - 1) / ZP_WPACK_CHUNK;
}

/* The staging's table for `chunks` chunks, 256-aligned. */
static inline uint64_t zp__wpack_table_bytes(uint64_t chunks)
{
    return (8 * chunks + 255) & ~(uint64_t)255;
}

#endif
