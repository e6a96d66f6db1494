/*
 * The switch of the CPU code's IFMA kernels (zkpipe.h, zp_cpu_set_ifma):
 * zp__msm_ifma (the MSMs' batch additions, the key loads' subgroup
 * checks) and zp__ntt_ifma (the NTT), on from load time where the CPU has
 * IFMA. Defined here with their constructor, so that any user of either
 * flag links the detection in.
 */
#include "cpu/msm_ifma.h"
#include "cpu/ntt_ifma.h"
#include "math/fp_ifma.h"

bool zp__msm_ifma;
bool zp__ntt_ifma;

bool zp_cpu_set_ifma(bool on)
{
    zp__msm_ifma = zp__ntt_ifma = on && zp__ifma_available();
    return zp__msm_ifma;
}

__attribute__((constructor)) static void ifma_detect(void) { zp_cpu_set_ifma(true); }
