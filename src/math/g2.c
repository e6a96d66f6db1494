/* G2: y^2 = x^3 + 4(u + 1) over Fp2 (the M-twist). The group law lives in
 * curve_impl.h. */
#include "zkpipe.h"
#include "math/curve.h"

/* 4 + 4u in Montgomery form. */
static const zp_fp2 g2_b = {
    {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
      0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}},
    {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
      0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}},
};

#define ZP__G(name) zp_g2_##name
#define ZP__GI(name) zp__g2_##name
#define ZP__E zp_fp2
#define ZP__E_(op) zp_fp2_##op
#define ZP__AFF zp_g2_affine
#define ZP__JAC zp_g2_jac
#define ZP__XYZZ zp_g2_xyzz
#define ZP__B (&g2_b)
#include "curve_impl.h"

/* The standard generator (zcash/IETF), Montgomery form, c0 then c1; see
 * tests/vectors/curve_constants.py for the plain values and checks. */
void zp_g2_generator(zp_g2_affine *out)
{
    static const zp_g2_affine g = {
        {{{0xf5f28fa202940a10ULL, 0xb3f5fb2687b4961aULL, 0xa1a893b53e2ae580ULL,
           0x9894999d1a3caee9ULL, 0x6f67b7631863366bULL, 0x058191924350bcd7ULL}},
         {{0xa5a9c0759e23f606ULL, 0xaaa0c59dbccd60c3ULL, 0x3bb17e18e2867806ULL,
           0x1b1ab6cc8541b367ULL, 0xc2b6ed0ef2158547ULL, 0x11922a097360edf3ULL}}},
        {{{0x4c730af860494c4aULL, 0x597cfa1f5e369c5aULL, 0xe7e6856caa0a635aULL,
           0xbbefb5e96e0d495fULL, 0x07d3a975f0ef25a2ULL, 0x0083fd8e7e80dae5ULL}},
         {{0xadc0fc92df64b05dULL, 0x18aa270a2b1461dcULL, 0x86adac6a3be4eba0ULL,
           0x79495c4ec93da33aULL, 0xe7175850a43ccaedULL, 0x0b2bc2a163de1bf2ULL}}},
    };
    *out = g;
}
