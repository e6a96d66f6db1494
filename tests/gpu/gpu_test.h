/*
 * Shared setup of the GPU tests: open device 0 with a modest arena and one
 * stream, or exit 77 (ctest: skipped) when there is no GPU. `--small` (used
 * under compute-sanitizer) limits the sizes a test runs; `--ntt-tile-log N`
 * opens the device with that NTT tile (zp__gpu_config.ntt_tile_log), so
 * that one GPU runs the tile every other device takes.
 */
#ifndef ZP_GPU_TEST_H
#define ZP_GPU_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu/gpu.h"
#include "zkpipe.h"

static zp__gpu *T_gpu;
static zp__gpu_stream *T_s;
static int T_small;

#define GPU_OK(call)                                                             \
    do {                                                                         \
        zp_err e_ = (call);                                                      \
        if (e_ != ZP_OK) {                                                       \
            fprintf(stderr, "%s:%d: %s -> %s (%s)\n", __FILE__, __LINE__, #call, \
                    zp_errname(e_), zp__gpu_last_error());                       \
            check_failed_count++;                                                \
            check_test_failed = 1;                                               \
        }                                                                        \
    } while (0)

/* Opens the GPU with cfg (its arena_bytes set from arena_gib) or exits 77;
 * arena_gib 0 takes the default (free memory). */
static inline void gpu_test_open_cfg(int argc, char **argv, unsigned arena_gib,
                                     zp__gpu_config *cfg)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--small"))
            T_small = 1;
        if (!strcmp(argv[i], "--ntt-tile-log") && i + 1 < argc)
            cfg->ntt_tile_log = (unsigned)atoi(argv[i + 1]);
    }
    if (zp__gpu_count() == 0) {
        printf("no GPU: skipped\n");
        exit(77);
    }
    cfg->arena_bytes = (uint64_t)arena_gib << 30;
    zp_err e = zp__gpu_open(&T_gpu, cfg);
    if (e == ZP_OK)
        e = zp__gpu_stream_open(T_gpu, &T_s);
    if (e != ZP_OK) {
        fprintf(stderr, "cannot open the GPU: %s (%s)\n", zp_errname(e), zp__gpu_last_error());
        exit(1);
    }
    zp__gpu_info info;
    zp__gpu_get_info(T_gpu, &info);
    printf("GPU: %s, %d SMs, arena %.1f GiB, NTT tile 2^%u\n", info.name, info.sm_count,
           (double)info.arena_bytes / (1 << 30), info.ntt_tile_log);
}

/* gpu_test_open_cfg with the default configuration. */
static inline void gpu_test_open(int argc, char **argv, unsigned arena_gib)
{
    zp__gpu_config cfg;
    zp__gpu_config_default(&cfg);
    gpu_test_open_cfg(argc, argv, arena_gib, &cfg);
}

static inline void gpu_test_close(void)
{
    zp__gpu_stream_close(T_s);
    zp__gpu_close(T_gpu);
}

/* Device buffer from the arena; aborts the test program when it fails. */
static inline zp__gpu_buf gpu_test_alloc(uint64_t bytes)
{
    zp__gpu_buf b;
    zp_err e = zp__gpu_alloc(T_gpu, &b, bytes);
    if (e != ZP_OK) {
        fprintf(stderr, "alloc %llu: %s\n", (unsigned long long)bytes, zp_errname(e));
        exit(1);
    }
    return b;
}

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu)\n", n);
        exit(1);
    }
    return p;
}

static inline void rand_fr_mont(zp_fr *out)
{
    zp_fr plain;
    for (int i = 0; i < 4; i++)
        plain.l[i] = check_rand64();
    plain.l[3] &= 0x3fffffffffffffffULL;
    zp_fr_to_mont(out, &plain);
}

/* A standard-form scalar below r. */
static inline void rand_scalar(zp_fr *out)
{
    do {
        for (int i = 0; i < 4; i++)
            out->l[i] = check_rand64();
        out->l[3] &= 0x7fffffffffffffffULL;
    } while (out->l[3] >= ZP_FR_MODULUS.l[3]);
}

#endif
