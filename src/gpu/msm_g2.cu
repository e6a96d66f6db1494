/* The G2 MSM entry point (msm_impl.cuh). */
#include "gpu/msm_impl.cuh"

static zp_err msm_g2(zp__gpu_stream *s, zp_g2_jac *out, const zp_g2_affine *d_points,
                     const zp_fr *d_scalars, uint64_t n, zp__gpu_buf scratch, const wsel_t *ws)
{
    zp_g2_jac_inf(out);
    if (n > ZP_GPU_MSM_MAX)
        return ZP_E_TOO_LARGE;
    if (n == 0)
        return ZP_OK;
    xyzz_t<fp2_t> *h = NULL;
    unsigned nw = 0, c = 0;
    ZP_TRY(msm_device<fp2_t>(s, &h, &nw, &c, (const aff_t<fp2_t> *)d_points,
                             (const fr_t *)d_scalars, n, scratch, true, 0, ws));
    const zp_g2_xyzz *w = (const zp_g2_xyzz *)h;
    zp_g2_xyzz acc;
    zp_g2_xyzz_inf(&acc);
    for (unsigned i = nw; i-- > 0;) {
        for (unsigned b = 0; b < c; b++)
            zp_g2_xyzz_dbl(&acc, &acc);
        zp_g2_xyzz_add(&acc, &acc, &w[i]);
    }
    zp_g2_xyzz_add(&acc, &acc, &w[nw]);
    zp_g2_xyzz_to_jac(out, &acc);
    return ZP_OK;
}

extern "C" zp_err zp__gpu_msm_g2(zp__gpu_stream *s, zp_g2_jac *out, const zp_g2_affine *d_points,
                                 const zp_fr *d_scalars, uint64_t n, zp__gpu_buf scratch)
{
    return msm_g2(s, out, d_points, d_scalars, n, scratch, NULL);
}

extern "C" zp_err zp__gpu_msm_g2_w(zp__gpu_stream *s, zp_g2_jac *out,
                                   const zp_g2_affine *d_points, const zp__gpu_wsc *sc,
                                   uint64_t n, zp__gpu_buf scratch)
{
    wsel_t ws;
    zp_g2_jac_inf(out);
    ZP_TRY(wsel_of(&ws, sc, n));
    return msm_g2(s, out, d_points, NULL, n, scratch, &ws);
}
