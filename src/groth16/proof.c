/*
 * bellperson's 192-byte proof: A (G1, 48) ‖ B (G2, 96) ‖ C (G1, 48), zcash
 * compressed, and the multi-partition form, k proofs concatenated in
 * partition order with no header (docs/formats.md, bellperson and Filecoin). bellperson's reader
 * refuses the point at infinity, so the writer refuses it too: a proof
 * zkpipe writes is always one that a reader accepts.
 */
#include "groth16/groth16.h"

#define OFF_B ZP_G1_COMPRESSED
#define OFF_C (ZP_G1_COMPRESSED + ZP_G2_COMPRESSED)

zp_err zp__proof_encode(uint8_t out[ZP__PROOF_BYTES], const zp__proof *p)
{
    if (zp_g1_affine_is_inf(&p->a) || zp_g2_affine_is_inf(&p->b) ||
        zp_g1_affine_is_inf(&p->c))
        return ZP_E_INFINITY;
    zp_g1_encode(out, &p->a, true);
    zp_g2_encode(out + OFF_B, &p->b, true);
    zp_g1_encode(out + OFF_C, &p->c, true);
    return ZP_OK;
}

zp_err zp__proof_decode(zp__proof *out, const uint8_t *in, size_t len)
{
    if (len != ZP__PROOF_BYTES)
        return ZP_E_BAD_LENGTH;
    zp__proof p;
    zp_err e;
    /* A compressed point decodes to infinity only from the infinity flag,
     * so checking the decoded value is the same as checking the flag. */
    if ((e = zp_g1_decode(&p.a, in, ZP_G1_COMPRESSED)) ||
        (e = zp_g2_decode(&p.b, in + OFF_B, ZP_G2_COMPRESSED)) ||
        (e = zp_g1_decode(&p.c, in + OFF_C, ZP_G1_COMPRESSED)))
        return e;
    if (zp_g1_affine_is_inf(&p.a) || zp_g2_affine_is_inf(&p.b) || zp_g1_affine_is_inf(&p.c))
        return ZP_E_INFINITY;
    *out = p;
    return ZP_OK;
}

zp_err zp__proofs_encode(uint8_t *out, const zp__proof *p, size_t k)
{
    for (size_t i = 0; i < k; i++) {
        zp_err e = zp__proof_encode(out + i * ZP__PROOF_BYTES, &p[i]);
        if (e)
            return e;
    }
    return ZP_OK;
}

zp_err zp__proofs_decode(zp__proof *out, size_t max_k, size_t *k, const uint8_t *in,
                         size_t len)
{
    *k = 0;
    if (len == 0 || len % ZP__PROOF_BYTES)
        return ZP_E_BAD_LENGTH;
    size_t n = len / ZP__PROOF_BYTES;
    if (n > max_k)
        return ZP_E_TOO_LARGE;
    for (size_t i = 0; i < n; i++) {
        zp_err e = zp__proof_decode(&out[i], in + i * ZP__PROOF_BYTES, ZP__PROOF_BYTES);
        if (e)
            return e;
    }
    *k = n;
    return ZP_OK;
}
