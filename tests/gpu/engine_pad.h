/*
 * Small arenas for engine tests on a large GPU: what a device carves
 * before any key, and a pad that leaves an open engine's GPU 0 exactly
 * the free bytes a test wants (an arena under 64 MiB cannot be opened,
 * and the tables take some 36 MiB, so a small arena is made this way).
 */
#ifndef ZP_TEST_ENGINE_PAD_H
#define ZP_TEST_ENGINE_PAD_H

#include <string.h>

#include "../test_engine_util.h"
#include "gpu/gpu.h"

/* Arena bytes a device takes before any key (NTT tables) and per stream
 * (its scratch), measured on a device opened for the purpose. */
static inline void base_bytes(uint64_t *dev, uint64_t *stream)
{
    zp__gpu_config c;
    zp__gpu_config_default(&c);
    c.arena_bytes = (uint64_t)4 << 30;
    zp__gpu *g = NULL;
    zp__gpu_stream *s = NULL;
    zp__gpu_info a, b;
    *dev = *stream = 0;
    if (zp__gpu_open(&g, &c))
        return;
    zp__gpu_get_info(g, &a);
    if (zp__gpu_stream_open(g, &s) == ZP_OK) {
        zp__gpu_get_info(g, &b);
        *stream = b.arena_used - a.arena_used;
        zp__gpu_stream_close(s);
    }
    *dev = a.arena_used;
    zp__gpu_close(g);
}

/* Carves a pad from e's GPU 0 so that `free_bytes` of its arena are left;
 * false (a failed check) where less than that is free. */
static inline bool pad_arena(zp_engine *e, uint64_t free_bytes, zp__gpu_buf *pad)
{
    memset(pad, 0, sizeof *pad);
    zp__gpu_info info;
    zp__gpu_get_info(e->gpus[0].dev, &info);
    uint64_t avail = info.arena_bytes - info.arena_used;
    CHECK(avail > free_bytes + 4096);
    if (avail <= free_bytes + 4096)
        return false;
    CHECK_EQ_INT(zp__gpu_alloc(e->gpus[0].dev, pad, avail - free_bytes), ZP_OK);
    return true;
}

/* Closes e, its pad first. */
static inline void close_with_pad(zp_engine *e, zp__gpu_buf *pad)
{
    if (pad->ptr)
        zp__gpu_free(e->gpus[0].dev, pad);
    zp_engine_close(e);
}

#endif
