/* Fixed-base window tables for G1 and G2 (setup_impl.h, setup_fb_impl.h). */
#include "cpu/cpu.h"
#include "groth16/setup_impl.h"

unsigned zp__fb_window(uint64_t count)
{
    unsigned best = 4;
    double best_cost = 0;
    for (unsigned w = 4; w <= 14; w++) {
        double nwin = (double)((255 + w - 1) / w);
        double cost = nwin * ((double)count + (double)((uint64_t)1 << w));
        if (w == 4 || cost < best_cost) {
            best = w;
            best_cost = cost;
        }
    }
    return best;
}

#define FB(name) zp__fb_g1_##name
#define FB_T zp__fb_g1
#define FB_AFF zp_g1_affine
#define FB_JAC zp_g1_jac
#define FB_P(name) zp_g1_##name
#include "groth16/setup_fb_impl.h"
#undef FB
#undef FB_T
#undef FB_AFF
#undef FB_JAC
#undef FB_P

#define FB(name) zp__fb_g2_##name
#define FB_T zp__fb_g2
#define FB_AFF zp_g2_affine
#define FB_JAC zp_g2_jac
#define FB_P(name) zp_g2_##name
#include "groth16/setup_fb_impl.h"
