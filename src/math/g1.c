/* G1: y^2 = x^3 + 4 over Fp. The group law lives in curve_impl.h. */
#include "zkpipe.h"
#include "math/curve.h"

/* 4 in Montgomery form. */
static const zp_fp g1_b = {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL,
                            0x478fe97a6b0a807fULL, 0xb1d37ebee6ba24d7ULL,
                            0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}};

#define ZP__G(name) zp_g1_##name
#define ZP__GI(name) zp__g1_##name
#define ZP__E zp_fp
#define ZP__E_(op) zp_fp_##op
#define ZP__AFF zp_g1_affine
#define ZP__JAC zp_g1_jac
#define ZP__XYZZ zp_g1_xyzz
#define ZP__B (&g1_b)
#include "curve_impl.h"

/* The standard generator (zcash/IETF), Montgomery form; the plain values
 * and the check that it has order r are in tests/vectors/curve_constants.py. */
void zp_g1_generator(zp_g1_affine *out)
{
    static const zp_g1_affine g = {
        {{0x5cb38790fd530c16ULL, 0x7817fc679976fff5ULL, 0x154f95c7143ba1c1ULL,
          0xf0ae6acdf3d0e747ULL, 0xedce6ecc21dbf440ULL, 0x120177419e0bfb75ULL}},
        {{0xbaac93d50ce72271ULL, 0x8c22631a7918fd8eULL, 0xdd595f13570725ceULL,
          0x51ac582950405194ULL, 0x0e1c8c3fad0059c0ULL, 0x0bbc3efc5008a26aULL}},
    };
    *out = g;
}
