/*
 * What zp__gpu_open decides about the device from its properties: that
 * this build serves it (src/gpu/arch.c's rules agree with the driver, which
 * loaded a kernel's image), and the NTT tile it takes (src/gpu/ntt.cu,
 * tile_log_for) or is given. Exits 77 without a GPU.
 */
#include "gpu_test.h"

/* The device passes the check it was opened with, and the line says how
 * it runs the build: its name, its compute capability, SASS or PTX. */
static void test_check(void)
{
    zp__gpu_info info;
    zp__gpu_get_info(T_gpu, &info);
    char line[512];
    CHECK_EQ_INT(zp__gpu_device_check(0, line, sizeof line), ZP_OK);
    printf("  %s\n  built: %s\n", line, zp__gpu_archs());
    CHECK(strstr(line, info.name) != NULL);
    unsigned image = 0;
    zp__gpu_arch_fit fit = zp__gpu_arch_fit_of(info.cc_major, info.cc_minor, zp__gpu_archs(),
                                               &image);
    CHECK(fit == ZP_GPU_ARCH_SASS || fit == ZP_GPU_ARCH_PTX);
    char want[32];
    snprintf(want, sizeof want, fit == ZP_GPU_ARCH_SASS ? "sm_%u " : "compute_%u ", image);
    CHECK(strstr(line, want) != NULL);
    CHECK(info.cc_major * 10 + info.cc_minor >= ZP_GPU_ARCH_MIN);
}

/* The default tile: 2^11 on GPUs whose SMs hold two blocks of 72 KiB (8.0,
 * 9.0, 10.0), 2^10 on the 100 KiB SMs (8.6, 8.9, 12.0). */
static void test_tile(void)
{
    zp__gpu_info info;
    zp__gpu_get_info(T_gpu, &info);
    const int cc = info.cc_major * 10 + info.cc_minor;
    printf("  compute capability %d: NTT tile 2^%u\n", cc, info.ntt_tile_log);
    if (cc == 80 || cc == 90 || cc == 100)
        CHECK_EQ_INT(info.ntt_tile_log, 11);
    else if (cc == 86 || cc == 89 || cc == 120)
        CHECK_EQ_INT(info.ntt_tile_log, 10);
    else
        CHECK(info.ntt_tile_log == 10 || info.ntt_tile_log == 11);
}

/* A tile given is taken; one out of 10..11 is refused before anything. */
static void test_tile_config(void)
{
    for (unsigned t = 9; t <= 12; t++) {
        zp__gpu_config cfg;
        zp__gpu_config_default(&cfg);
        cfg.arena_bytes = (uint64_t)256 << 20;
        cfg.ntt_tile_log = t;
        zp__gpu *g = NULL;
        zp_err e = zp__gpu_open(&g, &cfg);
        if (t == 10 || t == 11) {
            CHECK_EQ_INT(e, ZP_OK);
            zp__gpu_info info;
            if (g) {
                zp__gpu_get_info(g, &info);
                CHECK_EQ_INT(info.ntt_tile_log, t);
            }
        } else {
            CHECK_EQ_INT(e, ZP_E_INVALID_ARG);
            CHECK(g == NULL);
        }
        zp__gpu_close(g);
    }
}

/* The memory outside an arena: a second device opened in this process
 * takes its arena out of what the first left free, so what it finds free
 * once its arena is taken is the first's free less its arena, give or take
 * what the driver took between the two (kernels loaded by the second's
 * table build, granularity: at most 256 MiB). */
static void test_outside(void)
{
    uint64_t open1 = 0, now1 = 0;
    CHECK_EQ_INT(zp__gpu_outside(T_gpu, &open1, &now1), ZP_OK);
    const uint64_t arena2 = (uint64_t)256 << 20, slack = (uint64_t)256 << 20;
    zp__gpu_config cfg;
    zp__gpu_config_default(&cfg);
    cfg.arena_bytes = arena2;
    zp__gpu *g = NULL;
    CHECK_EQ_INT(zp__gpu_open(&g, &cfg), ZP_OK);
    uint64_t open2 = 0, now2 = 0;
    if (g)
        CHECK_EQ_INT(zp__gpu_outside(g, &open2, &now2), ZP_OK);
    printf("  outside the arena: %llu MiB free at open, %llu now; a second device's %llu MiB "
           "arena leaves %llu MiB\n",
           (unsigned long long)(open1 >> 20), (unsigned long long)(now1 >> 20),
           (unsigned long long)(arena2 >> 20), (unsigned long long)(open2 >> 20));
    CHECK(open1 > 0 && now1 > 0);
    CHECK(now1 >= arena2 + slack); /* room for the second arena (test-sized first) */
    CHECK(open2 + arena2 <= now1);
    CHECK(open2 + arena2 + slack >= now1);
    CHECK(now2 <= open2);
    zp__gpu_close(g);
}

/* Ranked streams: rank 0 the device's greatest priority, each rank one
 * step less until the least, which plain and copy streams take and ranks
 * past the range keep (GPU slots rank their streams by slot index). */
static void test_ranks(void)
{
    zp__gpu_stream *plain = NULL, *copy = NULL;
    CHECK_EQ_INT(zp__gpu_stream_open(T_gpu, &plain), ZP_OK);
    CHECK_EQ_INT(zp__gpu_stream_open_copy(T_gpu, &copy), ZP_OK);
    if (!plain || !copy)
        goto out;
    const int least = zp__gpu_stream_priority(plain);
    CHECK_EQ_INT(zp__gpu_stream_priority(copy), least);
    int first = 0, last = 0;
    for (unsigned r = 0; r <= 16; r++) {
        zp__gpu_stream *s = NULL;
        CHECK_EQ_INT(zp__gpu_stream_open_ranked(T_gpu, &s, r), ZP_OK);
        if (!s)
            break;
        const int p = zp__gpu_stream_priority(s);
        if (r == 0)
            first = p;
        else
            CHECK_EQ_INT(p, last + 1 <= least ? last + 1 : least);
        CHECK(p <= least);
        last = p;
        zp__gpu_stream_close(s);
    }
    printf("  stream priorities %d (rank 0) .. %d (least)\n", first, least);
    CHECK(first < least); /* every CUDA GPU zkpipe serves has a range */
    CHECK_EQ_INT(last, least);
    zp__gpu_stream *far = NULL;
    CHECK_EQ_INT(zp__gpu_stream_open_ranked(T_gpu, &far, 4000000000u), ZP_OK);
    if (far)
        CHECK_EQ_INT(zp__gpu_stream_priority(far), least);
    zp__gpu_stream_close(far);
out:
    zp__gpu_stream_close(plain);
    zp__gpu_stream_close(copy);
}

int main(int argc, char **argv)
{
    gpu_test_open(argc, argv, 1);
    RUN(test_check);
    RUN(test_tile);
    RUN(test_tile_config);
    RUN(test_outside);
    RUN(test_ranks);
    gpu_test_close();
    return FINISH();
}
