/*
 * The packed witness rebuilt on the device (layout: wpack.h; the host side
 * and the reference: groth16/witness_pack.c): the staging's table says
 * where each packed chunk's region lies (raw chunks: none). One block of
 * ZP_WPACK_TILE threads per tile of a chunk: each warp owns one 32-value
 * word of the bitmaps; the warps' dense counts, scanned in shared memory,
 * give each dense value its place after the tile's offset.
 */
#include "gpu/ctx.cuh"
#include "gpu/wpack.h"

static_assert(ZP_WPACK_TILE == 1024, "one thread per value of a tile, 32 warps");

static __global__ void __launch_bounds__(ZP_WPACK_TILE)
wunpack_kernel(fr_t *out, const uint8_t *stage, uint64_t n, uint64_t table, fr_t one)
{
    const uint64_t k = blockIdx.y, at = ((const uint64_t *)stage)[k];
    if (at == ZP_WPACK_NONE)
        return; /* raw: its values went straight to out */
    const uint8_t *r = stage + table + at;
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const uint64_t base = k * ZP_WPACK_CHUNK + (uint64_t)blockIdx.x * ZP_WPACK_TILE;
    if (base >= n)
        return; /* the whole block: no barrier is left waiting */
    const uint32_t word = blockIdx.x * (ZP_WPACK_TILE / 32) + warp;
    const uint32_t db = ((const uint32_t *)(r + ZP_WPACK_OFF_DBITS))[word];
    const uint32_t ob = ((const uint32_t *)(r + ZP_WPACK_OFF_OBITS))[word];
    __shared__ uint32_t before[32];
    if (lane == 0)
        before[warp] = (uint32_t)__popc(db);
    __syncthreads();
    if (warp == 0) { /* exclusive scan of the 32 warps' counts */
        uint32_t v = before[lane], x = v;
        for (int o = 1; o < 32; o <<= 1) {
            uint32_t y = __shfl_up_sync(0xffffffffu, x, o);
            if (lane >= (unsigned)o)
                x += y;
        }
        before[lane] = x - v;
    }
    __syncthreads();
    const uint64_t i = base + threadIdx.x;
    if (i >= n)
        return;
    fr_t v;
    if (db >> lane & 1) {
        uint32_t at = ((const uint32_t *)(r + ZP_WPACK_OFF_TILES))[blockIdx.x] + before[warp] +
                      (uint32_t)__popc(db & ((1u << lane) - 1));
        v = fr_load((const fr_t *)(r + ZP_WPACK_OFF_DENSE) + at);
    } else if (ob >> lane & 1) {
        v = one;
    } else {
        for (int q = 0; q < 8; q++)
            v.v[q] = 0;
    }
    fr_store(out + i, v);
}

extern "C" zp_err zp__gpu_wunpack(zp__gpu_stream *s, zp_fr *d_out, const void *d_stage,
                                  uint64_t n, const zp_fr *one)
{
    zp__gpu *g = s->g;
    if (n == 0)
        return ZP_OK;
    if (!d_out || !d_stage || !one)
        return ZP_E_INVALID_ARG;
    uint64_t chunks = zp__wpack_chunks(n);
    if (chunks > ZP_WPACK_CHUNKS_MAX)
        return ZP_E_TOO_LARGE;
    fr_t o;
    memcpy(&o, one, sizeof o);
    ZP_CUDA(cudaSetDevice(g->device));
    dim3 grid(ZP_WPACK_CHUNK / ZP_WPACK_TILE, (unsigned)chunks);
    wunpack_kernel<<<grid, ZP_WPACK_TILE, 0, s->st>>>((fr_t *)d_out, (const uint8_t *)d_stage, n,
                                                      zp__wpack_table_bytes(chunks), o);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}
