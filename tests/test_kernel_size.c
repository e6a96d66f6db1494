/*
 * The size of the MSM's batch-affine add kernels in SASS instructions, read
 * from sm_90 cubins of src/gpu/msm_g1.cu and msm_g2.cu that the build makes
 * for this test (tests/CMakeLists.txt). The kernel calls the divsteps
 * inverse once a step; when the compiler unrolls its 30 batches the G1
 * kernel grows about sevenfold (~30k instructions more) and misses the
 * instruction cache. Rolled it is ~4.7k (G1) and ~8.5k (G2); the limits leave room for
 * honest growth and catch the unrolled inverse.
 *
 * Also the NTT pass kernels of src/gpu/ntt.cu, every instance: 4,400 to
 * 5,500 instructions where each Fr product's reduction is fused into
 * IMAD.WIDE (mont_eo.h, zp__eo_q); the limit of 6,000 catches ptxas
 * splitting them (~1,100 more a kernel). The same kernels compiled for
 * sm_120 (4,800 to 5,950; at most 7,000), whose compiler unrolls the stage
 * pairs into ~11,000 instructions unless told not to (ntt_stages.cuh).
 *
 * Skipped (77) in builds without CUDA.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ZP_TEST_CUBIN_DIR
int main(void)
{
    printf("skipped: a build without CUDA has no cubins to read\n");
    return 77;
}
#else
#include "check.h"

/* The whole file, or NULL; *len its size (bounded: a cubin is a few MB). */
static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n > 0 && n < (64L << 20) && fseek(f, 0, SEEK_SET) == 0) {
            buf = malloc((size_t)n);
            if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
                free(buf);
                buf = NULL;
            }
            *len = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

static uint64_t rd(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/*
 * Instructions (16 bytes each) of the section ".text.<name>" in the ELF64
 * image, where name contains `want`; -1 when the image is malformed or no
 * such section exists.
 */
static long text_instructions(const unsigned char *d, size_t len, const char *want)
{
    if (len < 64 || memcmp(d, "\177ELF", 4) || d[4] != 2 || d[5] != 1)
        return -1;
    uint64_t shoff = rd(d + 0x28, 8);
    uint64_t shentsize = rd(d + 0x3a, 2), shnum = rd(d + 0x3c, 2), shstrndx = rd(d + 0x3e, 2);
    if (shentsize < 64 || shstrndx >= shnum || shoff > len || shnum * shentsize > len - shoff)
        return -1;
    const unsigned char *strhdr = d + shoff + shstrndx * shentsize;
    uint64_t stroff = rd(strhdr + 0x18, 8), strsize = rd(strhdr + 0x20, 8);
    if (stroff > len || strsize > len - stroff)
        return -1;
    for (uint64_t i = 0; i < shnum; i++) {
        const unsigned char *h = d + shoff + i * shentsize;
        uint64_t nm = rd(h, 4), size = rd(h + 0x20, 8);
        if (nm >= strsize)
            continue;
        const char *name = (const char *)d + stroff + nm;
        size_t room = (size_t)(strsize - nm);
        if (!memchr(name, 0, room))
            continue;
        if (!strncmp(name, ".text.", 6) && strstr(name, want))
            return (long)(size / 16);
    }
    return -1;
}

/* The instructions of `kernel` in the cubin of `unit`, or -1. */
static long kernel_size(const char *unit, const char *kernel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.cubin", ZP_TEST_CUBIN_DIR, unit);
    size_t len = 0;
    unsigned char *d = read_all(path, &len);
    if (!d) {
        fprintf(stderr, "  %s: cannot read\n", path);
        return -1;
    }
    long n = text_instructions(d, len, kernel);
    free(d);
    printf("  %s %s: %ld instructions\n", unit, kernel, n);
    return n;
}

/* Whether `kernel` is in the cubin of `unit` with at most `most`
 * instructions. */
static bool size_ok(const char *unit, const char *kernel, long most)
{
    long n = kernel_size(unit, kernel);
    return n > 0 && n <= most;
}

/* Mangled names: aff_add_kernel<fp_t, 3> (3 blocks an SM, lone and shared
 * slots alike), aff_add_kernel<fp2_t, blocks>. */
static void test_g1_affine_kernel(void)
{
    CHECK(size_ok("msm_g1", "_Z14aff_add_kernelI4fp_tLi3E", 12000));
}

static void test_g2_affine_kernel(void)
{
    CHECK(size_ok("msm_g2", "_Z14aff_add_kernelI5fp2_tLi", 20000));
}

/* ntt_pass_kernel<DIT, BATCH, MUL, BIG>, every instance (ntt.cu's
 * pass_kernel_at): the four without MUL or BIG, the DIT one with MUL, and
 * with BIG DIF, DIT and DIT with MUL (BATCH false in all four). */
static void ntt_pass_kernels(const char *unit, long most)
{
    char name[80];
    for (int v = 0; v < 8; v++) {
        const int dit = v < 4 ? v & 1 : v != 5, batch = v < 4 ? v >> 1 : 0,
                  mul = v == 4 || v == 7, big = v >= 5;
        snprintf(name, sizeof name, "_Z15ntt_pass_kernelILb%dELb%dELb%dELb%dE", dit, batch, mul,
                 big);
        CHECK(size_ok(unit, name, most));
    }
}

static void test_ntt_pass_kernel(void) { ntt_pass_kernels("ntt", 6000); }
static void test_ntt_pass_kernel_sm120(void) { ntt_pass_kernels("ntt_sm120", 7000); }

/* The reader refuses what is not an ELF64 image and finds no section it
 * was not given. */
static void test_reader(void)
{
    static const unsigned char junk[80] = "\177ELF";
    CHECK(text_instructions(junk, 4, "x") == -1);
    CHECK(text_instructions(junk, sizeof junk, "x") == -1);
    CHECK(kernel_size("msm_g1", "no_such_kernel") == -1);
}

int main(void)
{
    RUN(test_reader);
    RUN(test_g1_affine_kernel);
    RUN(test_g2_affine_kernel);
    RUN(test_ntt_pass_kernel);
    RUN(test_ntt_pass_kernel_sm120);
    return FINISH();
}
#endif
