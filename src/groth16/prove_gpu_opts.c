/*
 * The GPU prover's options (gpu_prover.h): the public tuning (zkpipe.h,
 * zp_gpu_tuning) and the internal options tests set on top of it.
 */
#include <string.h>

#include "groth16/gpu_prover.h"

void zp_gpu_tuning_default(zp_gpu_tuning *t)
{
    memset(t, 0, sizeof *t);
    t->ntt_twist = true;
    t->h_table = ZP_GPU_H_TABLE_AUTO;
}

zp_err zp_gpu_tuning_check(const zp_gpu_tuning *t)
{
    if (!t || t->h_table > ZP_GPU_H_TABLE_MAX)
        return ZP_E_INVALID_ARG;
    return ZP_OK;
}

void zp__g16_gpu_opts_default(zp__g16_gpu_opts *o)
{
    memset(o, 0, sizeof *o);
    zp_gpu_tuning_default(&o->tuning);
    o->beside_h = true;
    o->upload_parts = ZP_G16_PARTS_AUTO;
    o->upload_head = ZP_G16_HEAD_PLANNED;
    zp__gpu_msm_opts_default(&o->msm);
    o->resident_cap = UINT64_MAX;
    o->ring_buffer = 0;
}

zp__g16_gpu_opts zp__g16_gpu_opts_of(const zp__g16_gpu_opts *o)
{
    zp__g16_gpu_opts d;
    if (o)
        return *o;
    zp__g16_gpu_opts_default(&d);
    return d;
}

zp_err zp__g16_gpu_opts_check(const zp__g16_gpu_opts *o)
{
    if (zp_gpu_tuning_check(&o->tuning) || o->upload_parts > ZP_G16_PARTS_MAX ||
        o->upload_head > ZP_G16_HEAD_PLANNED ||
        (o->ring_buffer && o->ring_buffer < sizeof(zp_g2_affine)) ||
        (o->usual && (o->lean || o->stream_matrices)))
        return ZP_E_INVALID_ARG;
    return ZP_OK;
}
