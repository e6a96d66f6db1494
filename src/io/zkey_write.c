/*
 * Writes a zp__pk as a snarkjs Groth16 .zkey (docs/formats.md, circom and snarkjs). Sections 1-9
 * come out byte for byte as snarkjs writes them for the same key; section
 * 10 (circuit hash and contributions, unused by provers) holds a zero hash
 * and no contributions.
 */
#include <string.h>

#include "io/zkey_impl.h"
#include "math/mont.h"

static void put_g1(zp__afile *f, const zp_g1_affine *p)
{
    uint8_t b[ZP__ZKEY_G1];
    zp__limbs_to_le(b, p->x.l, 6);
    zp__limbs_to_le(b + 48, p->y.l, 6);
    zp__afile_write(f, b, sizeof b);
}

static void put_g2(zp__afile *f, const zp_g2_affine *p)
{
    uint8_t b[ZP__ZKEY_G2];
    zp__limbs_to_le(b, p->x.c0.l, 6);
    zp__limbs_to_le(b + 48, p->x.c1.l, 6);
    zp__limbs_to_le(b + 96, p->y.c0.l, 6);
    zp__limbs_to_le(b + 144, p->y.c1.l, 6);
    zp__afile_write(f, b, sizeof b);
}

static void put_zero(zp__afile *f, size_t n)
{
    static const uint8_t z[ZP__ZKEY_G2];
    zp__afile_write(f, z, n);
}

static zp_err check_shape(const zp__pk *pk, zp__ioerr *why)
{
    if (pk->h_conv != ZP_H_COSET || pk->roots != ZP_ROOTS_SNARKJS)
        return zp__fail(why, ZP_E_UNSUPPORTED,
                        "a .zkey holds only snarkjs-convention keys (coset H, 5-based roots)");
    if (pk->vk.n_ic != (uint64_t)pk->n_public + 1 || pk->n_public >= pk->n_vars ||
        pk->n_l != (uint64_t)pk->n_vars - pk->n_public - 1 || pk->n_h != pk->domain_size ||
        pk->domain_size > UINT32_MAX || pk->a_density.nbits != pk->n_vars ||
        pk->b_density.nbits != pk->n_vars)
        return zp__fail(why, ZP_E_INVALID_ARG, "proving key has inconsistent counts");
    if (pk->ma.nnz + pk->mb.nnz > UINT32_MAX)
        return zp__fail(why, ZP_E_TOO_LARGE, "more than 2^32-1 matrix entries");
    return ZP_OK;
}

static void write_header(zp__afile *f, const zp__pk *pk)
{
    zp__afile_section(f, 1, 4);
    zp__afile_u32(f, 1); /* Groth16 */
    zp__afile_section(f, 2, 4 + 48 + 4 + 32 + 12 + 3 * ZP__ZKEY_G1 + 3 * ZP__ZKEY_G2);
    zp__afile_u32(f, 48);
    zp__afile_write(f, ZP__Q_LE, 48);
    zp__afile_u32(f, 32);
    zp__afile_write(f, ZP__R_LE, 32);
    zp__afile_u32(f, pk->n_vars);
    zp__afile_u32(f, pk->n_public);
    zp__afile_u32(f, (uint32_t)pk->domain_size);
    put_g1(f, &pk->vk.alpha1);
    put_g1(f, &pk->vk.beta1);
    put_g2(f, &pk->vk.beta2);
    put_g2(f, &pk->vk.gamma2);
    put_g1(f, &pk->vk.delta1);
    put_g2(f, &pk->vk.delta2);
}

/* A, B1, B2 back at full length with infinity where the density is 0. */
static void write_ab(zp__afile *f, const zp__pk *pk)
{
    zp__afile_section(f, 5, (uint64_t)pk->n_vars * ZP__ZKEY_G1);
    for (uint64_t i = 0, k = 0; i < pk->n_vars; i++) {
        if (zp__bitmap_get(&pk->a_density, i))
            put_g1(f, &pk->a[k++]);
        else
            put_zero(f, ZP__ZKEY_G1);
    }
    zp__afile_section(f, 6, (uint64_t)pk->n_vars * ZP__ZKEY_G1);
    for (uint64_t i = 0, k = 0; i < pk->n_vars; i++) {
        if (zp__bitmap_get(&pk->b_density, i))
            put_g1(f, &pk->b1[k++]);
        else
            put_zero(f, ZP__ZKEY_G1);
    }
    zp__afile_section(f, 7, (uint64_t)pk->n_vars * ZP__ZKEY_G2);
    for (uint64_t i = 0, k = 0; i < pk->n_vars; i++) {
        if (zp__bitmap_get(&pk->b_density, i))
            put_g2(f, &pk->b2[k++]);
        else
            put_zero(f, ZP__ZKEY_G2);
    }
}

zp_err zp__zkey_save(const char *path, const zp__pk *pk, zp__ioerr *why)
{
    zp_err e = check_shape(pk, why);
    if (e)
        return e;
    zp__afile f;
    if ((e = zp__afile_open(&f, path, why)))
        return e;
    zp__afile_container(&f, "zkey", 1, 10);
    write_header(&f, pk);
    zp__afile_section(&f, 3, (uint64_t)pk->vk.n_ic * ZP__ZKEY_G1);
    for (uint32_t i = 0; i < pk->vk.n_ic; i++)
        put_g1(&f, &pk->vk.ic[i]);
    zp__afile_section(&f, 4, zp__zkey_matrices_size(pk));
    zp__zkey_write_matrices(&f, pk);
    write_ab(&f, pk);
    zp__afile_section(&f, 8, pk->n_l * ZP__ZKEY_G1);
    for (uint64_t i = 0; i < pk->n_l; i++)
        put_g1(&f, &pk->l[i]);
    zp__afile_section(&f, 9, pk->n_h * ZP__ZKEY_G1);
    for (uint64_t i = 0; i < pk->n_h; i++)
        put_g1(&f, &pk->h[i]);
    zp__afile_section(&f, 10, 64 + 4);
    put_zero(&f, 64);
    zp__afile_u32(&f, 0);
    return zp__afile_commit(&f, why);
}
