/* Pieces of the .zkey reader and writer shared between their files. */
#ifndef ZP_IO_ZKEY_IMPL_H
#define ZP_IO_ZKEY_IMPL_H

#include "io/io.h"

#define ZP__ZKEY_G1 96    /* x ‖ y, 48-byte Montgomery LE each */
#define ZP__ZKEY_G2 192   /* x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1 */
#define ZP__ZKEY_COEF 44  /* u32 matrix ‖ u32 row ‖ u32 signal ‖ 32-byte value */

/* Decode and check one point (not-canonical, on curve, subgroup). */
zp_err zp__zkey_g1(zp_g1_affine *out, const uint8_t *p);
zp_err zp__zkey_g2(zp_g2_affine *out, const uint8_t *p);
bool zp__zkey_is_zero(const uint8_t *p, size_t n);

/* Decodes and checks the points of one section: all n_src of them, or
 * (density not NULL) only those whose bit is set, stored compactly in dst.
 * On failure *bad is the source index of the lowest bad point. threads <= 0
 * uses every online CPU. */
typedef struct zp__zkey_pts {
    const uint8_t *src;
    uint64_t n_src;
    bool g2;
    const zp__bitmap *density;
    void *dst;
    int threads;
    /* The points scanned (n_src) are added to it and reported; NULL: none. */
    zp__progress_span *progress;
} zp__zkey_pts;

zp_err zp__zkey_points(const zp__zkey_pts *job, uint64_t *bad);

/* Section 4 into pk->ma, pk->mb; needs n_vars and domain_size set. */
zp_err zp__zkey_read_matrices(zp__pk *pk, const zp__container *c, zp__ioerr *why);
/* Bytes of section 4 for pk's matrices, and the section body itself. */
uint64_t zp__zkey_matrices_size(const zp__pk *pk);
zp_err zp__zkey_write_matrices(zp__afile *f, const zp__pk *pk);

#endif
