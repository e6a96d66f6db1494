/*
 * GPU MSM checks that need no points or scalars, on device 0: arguments
 * out of range (too many points, a scratch too small) are refused before
 * any work, and the bounds that the MSM layouts take for CUB's temporary
 * bytes where no device answers (doctor's plans on a machine without a
 * GPU) cover what CUB asks of this GPU. Exit 77 without a GPU.
 */
#include "gpu_test.h"

/* Out-of-range arguments are refused before any work. */
static void test_args(void)
{
    zp_g1_jac r;
    zp__gpu_buf none = {NULL, 0};
    CHECK_EQ_INT(zp__gpu_msm_g1(T_s, &r, NULL, NULL, 0, none), ZP_OK);
    CHECK(zp_g1_jac_is_inf(&r));
    CHECK_EQ_INT(zp__gpu_msm_g1(T_s, &r, NULL, NULL, (uint64_t)1 << 31, none), ZP_E_TOO_LARGE);
    zp__gpu_buf d = gpu_test_alloc(4096);
    CHECK_EQ_INT(zp__gpu_msm_g1(T_s, &r, d.ptr, d.ptr, 1000, d), ZP_E_GPU_OOM);
    CHECK_EQ_INT(zp__gpu_msm_g1_nosplit(T_s, &r, d.ptr, d.ptr, 1000, d), ZP_E_GPU_OOM);
    CHECK_EQ_INT(zp__gpu_msm_g1_nosplit(T_s, &r, NULL, NULL, (uint64_t)1 << 31, none),
                 ZP_E_TOO_LARGE);
    zp__gpu_free(T_gpu, &d);
}

/* The bounds the layouts take for CUB's temporary bytes where no device
 * answers cover what CUB asks of this GPU, up to a pass of 2^30 entries. */
static void test_temp_bounds(void)
{
    static const unsigned cs[] = {8, 9, 13, 16, 17, 20, 22};
    for (uint64_t m = 1 << 10; m <= (uint64_t)1 << 30; m = m * 16 - m / 2)
        for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
            CHECK(zp__gpu_msm_temp_bounds_hold(m, cs[i]));
}

int main(int argc, char **argv)
{
    gpu_test_open(argc, argv, 1);
    RUN(test_args);
    RUN(test_temp_bounds);
    gpu_test_close();
    return FINISH();
}
