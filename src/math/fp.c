/* Fp, the 381-bit base field of BLS12-381. */
#include "zkpipe.h"
#include "mont.h"

static const zp__mont fp_mont = {
    .m = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
          0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL},
    .one = {0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
            0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL},
    .r2 = {0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
           0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL},
    .inv = 0x89f3fffcfffcfffdULL,
    .n = 6,
};

const zp_fp ZP_FP_MODULUS = {{0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL,
                              0x6730d2a0f6b0f624ULL, 0x64774b84f38512bfULL,
                              0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL}};

#define ZP__F(name) zp_fp_##name
#define ZP__FI(name) zp__fp_##name
#define ZP__N 6
#define ZP__T zp_fp
#define ZP__M (&fp_mont)
#include "field_impl.h"

/* q = 3 mod 4, so a square root is a^((q+1)/4); check it by squaring. */
bool zp_fp_sqrt(zp_fp *out, const zp_fp *a)
{
    static const uint64_t e[6] = {0xee7fbfffffffeaabULL, 0x07aaffffac54ffffULL,
                                  0xd9cc34a83dac3d89ULL, 0xd91dd2e13ce144afULL,
                                  0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL};
    zp_fp s, s2;
    zp_fp_pow(&s, a, e, 6);
    zp_fp_sqr(&s2, &s);
    if (!zp_fp_eq(&s2, a))
        return false;
    *out = s;
    return true;
}

bool zp_fp_is_lex_largest(const zp_fp *a)
{
    static const uint64_t half[6] = {0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL,
                                     0xb39869507b587b12ULL, 0xb23ba5c279c2895fULL,
                                     0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL};
    zp_fp plain;
    zp_fp_from_mont(&plain, a);
    /* plain > (q-1)/2  <=>  !(half >= plain) */
    return !zp__geq_n(half, plain.l, 6);
}

zp_err zp_fp_from_mont_le(zp_fp *out, const uint8_t *in)
{
    zp_fp v;
    zp__limbs_from_le(v.l, in, 6);
    if (zp__geq_n(v.l, fp_mont.m, 6))
        return ZP_E_NOT_CANONICAL;
    *out = v;
    return ZP_OK;
}
