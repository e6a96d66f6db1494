/*
 * The GPU MSM's window choice (zp__gpu_msm_window: host code of
 * src/gpu/msm_impl.cuh, run here without a device). Without the affine
 * round's override it never decreases with the dense count m: msm_g1.cu's
 * scratch_for finds each window's range of m by binary search on it. And
 * the choices measured best on the H200 hold (bench/history/2026-11.md:
 * c = 16 for G1 at 2^20 and G2 at 2^22, 17 for G2 at 2^23, 17 for G1's
 * affine round at 2^24 and porep's A and L, 20 for G1 at 2^26 and 2^27).
 * Skipped (77) in builds without CUDA, whose stub answers 0.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "gpu/gpu.h"

static void test_non_decreasing(void)
{
    for (int g2 = 0; g2 < 2; g2++) {
        unsigned prev = 0;
        int steps = 0;
        /* m from 1 to 2^31 in steps of ~1 %, every m below 256 */
        for (uint64_t m = 1; m <= ((uint64_t)1 << 31); m += m < 256 ? 1 : m / 100) {
            unsigned c = zp__gpu_msm_window(m, g2, false);
            if (c < prev || c < 2 || c > 22) {
                printf("  %s m=%llu: c=%u after %u\n", g2 ? "G2" : "G1", (unsigned long long)m,
                       c, prev);
                CHECK(false);
                break;
            }
            prev = c;
            steps++;
        }
        CHECK(steps > 1000);
        CHECK(prev >= 20); /* the largest sizes take wide windows */
    }
}

static void test_measured(void)
{
    CHECK_EQ_INT(zp__gpu_msm_window((uint64_t)1 << 20, false, false), 16);
    CHECK_EQ_INT(zp__gpu_msm_window((uint64_t)1 << 22, true, false), 16);
    CHECK_EQ_INT(zp__gpu_msm_window((uint64_t)1 << 23, true, false), 17);
    CHECK_EQ_INT(zp__gpu_msm_window((uint64_t)1 << 24, false, true), 17);
    CHECK_EQ_INT(zp__gpu_msm_window(13400000, false, true), 17);
    CHECK_EQ_INT(zp__gpu_msm_window((uint64_t)1 << 26, false, true), 20);
    CHECK_EQ_INT(zp__gpu_msm_window((uint64_t)1 << 27, false, true), 20);
}

int main(void)
{
    if (zp__gpu_msm_window(1000, false, false) == 0) {
        printf("skipped: a build without CUDA has no GPU MSM\n");
        return 77;
    }
    RUN(test_non_decreasing);
    RUN(test_measured);
    return FINISH();
}
