/* The device field benchmark in a build without CUDA: no GPU to measure. */
#include "gpu/bench/field_rate.h"

uint64_t zp__gpu_field_rate_bytes(void) { return 0; }

zp_err zp__gpu_field_rate(zp__gpu_stream *s, zp__gpu_buf scratch, int op, double *per_s)
{
    (void)s; (void)scratch; (void)op;
    *per_s = 0;
    return ZP_E_NO_GPU;
}
