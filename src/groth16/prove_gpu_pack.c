/*
 * A slot's witness sent packed (witness_pack.h, gpu/wpack.h): every CPU
 * packs chunks and enqueues each one's copy as soon as it is packed, so
 * packing and PCIe overlap; a raw chunk (too many values other than 0 and
 * 1) goes as it is, straight to its place. Then one kernel rebuilds the
 * packed chunks. The device staging is the slot's big region when it
 * holds it (dead until eval writes a, b and c, after the rebuild), else
 * a region of its own.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "cpu/cpu.h"
#include "groth16/prove_gpu_stages.h"
#include "groth16/witness_pack.h"
#include "gpu/knob.h"

struct zp__g16_pack {
    zp__gpu *dev;
    uint64_t n;         /* values it was sized for */
    void *host;         /* pinned: the regions */
    zp__gpu_buf own;    /* the device regions when big cannot hold them */
    void *dstage;       /* the device regions */
};

bool zp__g16_pack_wanted(void)
{
    return zp__env_knob("ZKPIPE_WITNESS_PACK", 0, 1, 0) == 1;
}

/* The staging's bytes for n values, device and host alike. */
static uint64_t stage_bytes(uint64_t n)
{
    return zp__wpack_chunks(n) * zp__wpack_region_bytes();
}

uint64_t zp__g16_pack_own_bytes(uint64_t n, uint64_t big_bytes)
{
    uint64_t b = stage_bytes(n);
    return zp__g16_pack_wanted() && b > big_bytes ? b : 0;
}

void zp__g16_pack_close(zp__g16_pack *p)
{
    if (!p)
        return;
    zp__gpu_host_free(p->host);
    zp__gpu_free(p->dev, &p->own);
    free(p);
}

zp_err zp__g16_pack_open(zp__g16_pack **out, zp__gpu *dev, uint64_t n, zp__gpu_buf big)
{
    *out = NULL;
    uint64_t chunks = zp__wpack_chunks(n), bytes = stage_bytes(n);
    if (!chunks || chunks > 65535)
        return ZP_E_TOO_LARGE;
    zp__g16_pack *p = calloc(1, sizeof *p);
    if (!p)
        return ZP_E_NOMEM;
    p->dev = dev;
    p->n = n;
    zp_err e = ZP_OK;
    if (big.bytes >= bytes) {
        p->dstage = big.ptr;
    } else {
        e = zp__gpu_alloc_high(dev, &p->own, bytes);
        p->dstage = p->own.ptr;
    }
    if (!e)
        e = zp__gpu_host_alloc(dev, &p->host, bytes);
    if (e) {
        zp__g16_pack_close(p);
        return e;
    }
    *out = p;
    return ZP_OK;
}

typedef struct pack_job {
    zp__g16_pack *p;
    zp__gpu_stream *st;
    zp_fr *d_w;
    const zp_fr *w;
    uint64_t n;
    zp_fr one;
    _Atomic int err; /* the first failure, 0 none */
} pack_job;

static void pack_chunks(void *ctx, size_t begin, size_t end)
{
    pack_job *j = ctx;
    const uint64_t rb = zp__wpack_region_bytes();
    for (size_t k = begin; k < end; k++) {
        uint64_t at = (uint64_t)k * ZP_WPACK_CHUNK;
        uint32_t count = (uint32_t)(j->n - at < ZP_WPACK_CHUNK ? j->n - at : ZP_WPACK_CHUNK);
        char *host = (char *)j->p->host + k * rb, *dev = (char *)j->p->dstage + k * rb;
        uint64_t bytes = zp__wpack_chunk(j->w + at, count, &j->one, host);
        zp_err e;
        if (bytes) {
            e = zp__gpu_upload(j->st, dev, host, bytes);
        } else { /* the header (raw: the rebuild skips it), then the values */
            e = zp__gpu_upload(j->st, dev, host, 2 * sizeof(uint32_t));
            if (!e)
                e = zp__gpu_upload(j->st, j->d_w + at, j->w + at, (uint64_t)count * sizeof(zp_fr));
        }
        int none = 0;
        if (e)
            atomic_compare_exchange_strong(&j->err, &none, (int)e);
    }
}

zp_err zp__g16_pack_put(zp__g16_pack *p, zp__gpu_stream *st, zp_fr *d_w, const zp_fr *w,
                        uint64_t n)
{
    if (n > p->n)
        return ZP_E_INVALID_ARG;
    pack_job j = {.p = p, .st = st, .d_w = d_w, .w = w, .n = n};
    zp_fr_one(&j.one);
    atomic_init(&j.err, 0);
    zp__parallel_for(zp__wpack_chunks(n), 1, pack_chunks, &j, 0);
    zp_err e = (zp_err)atomic_load(&j.err);
    return e ? e : zp__gpu_wunpack(st, d_w, p->dstage, n, &j.one);
}
