/*
 * Which GPUs run which build (src/gpu/arch.c): the driver's rules for the
 * SASS and PTX images of a fat binary, the 8.0 floor, the variants with
 * 'a' and 'f', lists that do not parse, and the line a refused GPU gets.
 * No GPU needed.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "gpu/gpu.h"

/* The default build (CMakeLists.txt). */
static const char *const ALL = "80 86 89 90 100 120 +PTX 120";

/* Whether major.minor under archs fits as `want` with image `img`. */
static bool fits(int major, int minor, const char *archs, zp__gpu_arch_fit want, unsigned img)
{
    unsigned got = 99999;
    zp__gpu_arch_fit f = zp__gpu_arch_fit_of(major, minor, archs, &got);
    if (f != want || got != img)
        fprintf(stderr, "  %d.%d under \"%s\": fit %d image %u, want %d image %u\n", major,
                minor, archs ? archs : "(null)", (int)f, got, (int)want, img);
    return f == want && got == img;
}

/* Every GPU generation of the default build on its own SASS; the minors
 * between on the highest SASS of their major at or below them. */
static void test_default_sass(void)
{
    CHECK(fits(8, 0, ALL, ZP_GPU_ARCH_SASS, 80));  /* A100 */
    CHECK(fits(8, 6, ALL, ZP_GPU_ARCH_SASS, 86));  /* RTX 3090, A6000 */
    CHECK(fits(8, 7, ALL, ZP_GPU_ARCH_SASS, 86));  /* Jetson Orin: 8.6 SASS, 8.7 >= 8.6 */
    CHECK(fits(8, 8, ALL, ZP_GPU_ARCH_SASS, 86));
    CHECK(fits(8, 9, ALL, ZP_GPU_ARCH_SASS, 89));  /* RTX 4090, L40S */
    CHECK(fits(9, 0, ALL, ZP_GPU_ARCH_SASS, 90));  /* H100, H200 */
    CHECK(fits(10, 0, ALL, ZP_GPU_ARCH_SASS, 100)); /* B200 */
    CHECK(fits(10, 3, ALL, ZP_GPU_ARCH_SASS, 100)); /* B300 */
    CHECK(fits(12, 0, ALL, ZP_GPU_ARCH_SASS, 120)); /* RTX 5090, 5070 Ti */
    CHECK(fits(12, 1, ALL, ZP_GPU_ARCH_SASS, 120));
}

/* Newer majors JIT the compute_120 PTX; 11.0 sits between SASS families
 * below a PTX it could take, so nothing serves it; below 8.0 is refused. */
static void test_default_edges(void)
{
    CHECK(fits(13, 0, ALL, ZP_GPU_ARCH_PTX, 120));
    CHECK(fits(15, 2, ALL, ZP_GPU_ARCH_PTX, 120));
    CHECK(fits(11, 0, ALL, ZP_GPU_ARCH_NO_IMAGE, 0)); /* no 11.x SASS, 11.0 < compute_120 */
    CHECK(fits(9, 9, ALL, ZP_GPU_ARCH_SASS, 90));
    CHECK(fits(7, 5, ALL, ZP_GPU_ARCH_TOO_OLD, 0)); /* T4, RTX 2080 */
    CHECK(fits(7, 0, ALL, ZP_GPU_ARCH_TOO_OLD, 0)); /* V100 */
    CHECK(fits(6, 1, ALL, ZP_GPU_ARCH_TOO_OLD, 0));
    CHECK(fits(0, 0, ALL, ZP_GPU_ARCH_TOO_OLD, 0));
}

/* SASS never crosses a major, nor runs on a lower minor; PTX runs on
 * anything at or above it; the driver takes SASS before a newer PTX. */
static void test_rules(void)
{
    CHECK(fits(8, 6, "90", ZP_GPU_ARCH_NO_IMAGE, 0));
    CHECK(fits(10, 0, "90", ZP_GPU_ARCH_NO_IMAGE, 0));
    CHECK(fits(8, 0, "86", ZP_GPU_ARCH_NO_IMAGE, 0)); /* 8.0 < 8.6 */
    CHECK(fits(8, 9, "80 86", ZP_GPU_ARCH_SASS, 86));
    CHECK(fits(8, 6, "120 80", ZP_GPU_ARCH_SASS, 80)); /* order does not matter */
    CHECK(fits(8, 9, "80 +PTX 89", ZP_GPU_ARCH_SASS, 80));
    /* The old default, sm_90 and compute_90: no Ampere or Ada. */
    CHECK(fits(8, 6, "90 +PTX 90", ZP_GPU_ARCH_NO_IMAGE, 0));
    CHECK(fits(8, 9, "90 +PTX 90", ZP_GPU_ARCH_NO_IMAGE, 0));
    CHECK(fits(10, 0, "90 +PTX 90", ZP_GPU_ARCH_PTX, 90));
    CHECK(fits(12, 0, "90 +PTX 90", ZP_GPU_ARCH_PTX, 90));
    CHECK(fits(8, 6, "+PTX 80", ZP_GPU_ARCH_PTX, 80));
    CHECK(fits(12, 0, "+PTX 80 90", ZP_GPU_ARCH_PTX, 90)); /* the newest it can take */
    CHECK(fits(8, 9, "+PTX 80 90", ZP_GPU_ARCH_PTX, 80));
    CHECK(fits(8, 0, "+PTX 86", ZP_GPU_ARCH_NO_IMAGE, 0));
    /* Code for older GPUs does not make them supported. */
    CHECK(fits(7, 5, "75 +PTX 75", ZP_GPU_ARCH_TOO_OLD, 0));
    CHECK(fits(7, 5, "+PTX 52", ZP_GPU_ARCH_TOO_OLD, 0));
    CHECK(fits(8, 6, "75 +PTX 75", ZP_GPU_ARCH_PTX, 75));
}

/* 'a': that GPU only; 'f': its family (same major, minor at or above). */
static void test_variants(void)
{
    CHECK(fits(9, 0, "90a", ZP_GPU_ARCH_SASS, 90));
    CHECK(fits(9, 1, "90a", ZP_GPU_ARCH_NO_IMAGE, 0));
    CHECK(fits(10, 3, "100a", ZP_GPU_ARCH_NO_IMAGE, 0));
    CHECK(fits(10, 3, "100f", ZP_GPU_ARCH_SASS, 100));
    CHECK(fits(12, 0, "100f", ZP_GPU_ARCH_NO_IMAGE, 0));
    CHECK(fits(10, 0, "+PTX 100a", ZP_GPU_ARCH_PTX, 100));
    CHECK(fits(10, 3, "+PTX 100a", ZP_GPU_ARCH_NO_IMAGE, 0));
    CHECK(fits(10, 3, "+PTX 100f", ZP_GPU_ARCH_PTX, 100));
    CHECK(fits(12, 0, "+PTX 100f", ZP_GPU_ARCH_NO_IMAGE, 0));
    CHECK(fits(12, 0, "+PTX 100f 90", ZP_GPU_ARCH_PTX, 90));
}

/* What is not a list of architectures is said so, whatever the GPU. */
static void test_bad_lists(void)
{
    static const char *const bad[] = {
        "8", "sm_80", "80x", "1000", "09", "80,86", "80 +PTX 90 +PTX 100", "+PTXX 80",
        "80-real", "80 +ptx 90", "80a1", "-80",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(fits(9, 0, bad[i], ZP_GPU_ARCH_BAD_LIST, 0));
    CHECK(fits(7, 5, "sm_75", ZP_GPU_ARCH_BAD_LIST, 0));
    CHECK(fits(9, 10, ALL, ZP_GPU_ARCH_BAD_LIST, 0)); /* a minor past 9 */
    CHECK(fits(-1, 0, ALL, ZP_GPU_ARCH_BAD_LIST, 0));
    /* Empty lists hold nothing; spaces around are fine. */
    CHECK(fits(9, 0, "", ZP_GPU_ARCH_NO_IMAGE, 0));
    CHECK(fits(9, 0, NULL, ZP_GPU_ARCH_NO_IMAGE, 0));
    CHECK(fits(9, 0, "+PTX", ZP_GPU_ARCH_NO_IMAGE, 0));
    CHECK(fits(9, 0, "  90  +PTX  ", ZP_GPU_ARCH_SASS, 90));
    CHECK(zp__gpu_arch_fit_of(9, 0, ALL, NULL) == ZP_GPU_ARCH_SASS);
}

/* The build's own list parses and says SASS and PTX as built. */
static void test_this_build(void)
{
    const char *archs = zp__gpu_archs();
    CHECK(archs != NULL);
    printf("  this build: \"%s\"\n", archs);
    if (!zp__gpu_compiled()) {
        CHECK(!strcmp(archs, ""));
        return;
    }
    CHECK(*archs);
    CHECK(zp__gpu_arch_fit_of(9, 0, archs, NULL) != ZP_GPU_ARCH_BAD_LIST);
}

/* The line names the GPU, its compute capability, the build and the way
 * out; it is cut, not overrun, in a short buffer. */
static void test_describe(void)
{
    char s[512];
    zp__gpu_arch_describe(s, sizeof s, 1, "Tesla T4", 7, 5, ALL, ZP_GPU_ARCH_TOO_OLD, 0);
    printf("  %s\n", s);
    CHECK(strstr(s, "GPU 1 (Tesla T4, compute capability 7.5)"));
    CHECK(strstr(s, "8.0 or newer"));
    CHECK(strstr(s, ALL));
    zp__gpu_arch_describe(s, sizeof s, 0, "Jetson Thor", 11, 0, ALL, ZP_GPU_ARCH_NO_IMAGE, 0);
    printf("  %s\n", s);
    CHECK(strstr(s, "compute capability 11.0"));
    CHECK(strstr(s, ALL));
    CHECK(strstr(s, "110-real"));
    zp__gpu_arch_describe(s, sizeof s, 0, "NVIDIA GeForce RTX 3090", 8, 6, ALL,
                          ZP_GPU_ARCH_SASS, 86);
    CHECK(strstr(s, "sm_86"));
    zp__gpu_arch_describe(s, sizeof s, 0, "next", 13, 0, ALL, ZP_GPU_ARCH_PTX, 120);
    CHECK(strstr(s, "compute_120 PTX"));
    zp__gpu_arch_describe(s, sizeof s, 0, "X", 9, 0, "", ZP_GPU_ARCH_NO_IMAGE, 0);
    CHECK(strstr(s, "code for none"));
    char small[24];
    memset(small, 'x', sizeof small);
    zp__gpu_arch_describe(small, 16, 0, "NVIDIA GeForce RTX 3090", 8, 6, ALL,
                          ZP_GPU_ARCH_SASS, 86);
    CHECK(strlen(small) == 15 && small[16] == 'x');
}

/* No device to check: not one that does not exist, not in a CPU build. */
static void test_device_check(void)
{
    char s[256];
    CHECK(zp__gpu_device_check(-1, s, sizeof s) == ZP_E_NO_GPU);
    CHECK(zp__gpu_device_check(zp__gpu_count(), s, sizeof s) == ZP_E_NO_GPU);
}

/* The driver's CUDA against the runtime's: equal or newer runs, an older
 * minor runs with a warning, an older major or no driver does not. */
static void test_cuda_fit(void)
{
    CHECK(zp__cuda_fit_of(13000, 13000) == ZP_CUDA_FIT_OK);
    CHECK(zp__cuda_fit_of(13010, 13000) == ZP_CUDA_FIT_OK);
    CHECK(zp__cuda_fit_of(13000, 12080) == ZP_CUDA_FIT_OK);
    CHECK(zp__cuda_fit_of(12020, 12080) == ZP_CUDA_FIT_MINOR);
    CHECK(zp__cuda_fit_of(12080, 13000) == ZP_CUDA_FIT_TOO_OLD);
    CHECK(zp__cuda_fit_of(11080, 12000) == ZP_CUDA_FIT_TOO_OLD);
    CHECK(zp__cuda_fit_of(0, 13000) == ZP_CUDA_FIT_NO_DRIVER);
    char s[16];
    zp__cuda_version_str(s, sizeof s, 12080);
    CHECK(!strcmp(s, "12.8"));
    zp__cuda_version_str(s, sizeof s, 13000);
    CHECK(!strcmp(s, "13.0"));
    zp__cuda_version_str(s, sizeof s, 11010);
    CHECK(!strcmp(s, "11.1"));
    /* This build's runtime: none without CUDA, a real one with it. */
    int driver = -1, runtime = -1;
    zp__gpu_cuda_versions(&driver, &runtime);
    CHECK(driver >= 0);
    CHECK(zp__gpu_compiled() ? runtime >= 11000 : runtime == 0 && driver == 0);
}

int main(void)
{
    RUN(test_default_sass);
    RUN(test_default_edges);
    RUN(test_rules);
    RUN(test_variants);
    RUN(test_bad_lists);
    RUN(test_this_build);
    RUN(test_describe);
    RUN(test_device_check);
    RUN(test_cuda_fit);
    return FINISH();
}
