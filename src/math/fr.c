/* Fr, the 255-bit scalar field of BLS12-381. */
#include <errno.h>
#include <sys/random.h>

#include "zkpipe.h"
#include "mont.h"

static const zp__mont fr_mont = {
    .m = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
          0x73eda753299d7d48ULL},
    .one = {0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL,
            0x1824b159acc5056fULL},
    .r2 = {0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL,
           0x0748d9d99f59ff11ULL},
    .inv = 0xfffffffeffffffffULL,
    .n = 4,
};

const zp_fr ZP_FR_MODULUS = {{0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                              0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL}};

#define ZP__F(name) zp_fr_##name
#define ZP__FI(name) zp__fr_##name
#define ZP__N 4
#define ZP__T zp_fr
#define ZP__M (&fr_mont)
#include "field_impl.h"

/* Roots of unity of order 2^32 in plain form (docs/formats.md, Constants and point encoding). */
static const zp_fr root5_plain = {{0x1b788f500b912f1fULL, 0xc4024ff270b3e094ULL,
                                   0x0fd56dc8d168d6c0ULL, 0x0212d79e5b416b6fULL}};
static const zp_fr root7_plain = {{0x3829971f439f0d2bULL, 0xb63683508c2280b9ULL,
                                   0xd09b681922c813b4ULL, 0x16a2a19edfe81f20ULL}};

void zp_fr_root_of_unity(zp_fr *out, unsigned log2n, zp_roots conv)
{
    zp_fr_to_mont(out, conv == ZP_ROOTS_BELLPERSON ? &root7_plain : &root5_plain);
    for (unsigned k = 32; k > log2n; k--)
        zp_fr_sqr(out, out);
}

/*
 * Tonelli-Shanks: r - 1 = 2^32 * t. The non-residue 5 gives z = 5^t, which
 * is the snarkjs root of unity of order 2^32.
 */
bool zp_fr_sqrt(zp_fr *out, const zp_fr *a)
{
    static const uint64_t t_half[4] = {0x7fff2dff7fffffffULL, 0x04d0ec02a9ded201ULL,
                                       0x94cebea4199cec04ULL, 0x0000000039f6d3a9ULL};
    if (zp_fr_is_zero(a)) {
        zp_fr_zero(out);
        return true;
    }
    if (zp_fr_legendre(a) != 1)
        return false;
    zp_fr c, w, x, b, one;
    unsigned m = 32;
    zp_fr_one(&one);
    zp_fr_root_of_unity(&c, 32, ZP_ROOTS_SNARKJS);
    zp_fr_pow(&w, a, t_half, 4);  /* a^((t-1)/2) */
    zp_fr_mul(&x, &w, a);         /* a^((t+1)/2) */
    zp_fr_mul(&b, &x, &w);        /* a^t */
    while (!zp_fr_is_one(&b)) {
        unsigned i = 0;
        zp_fr b2 = b;
        /* b has order 2^i < 2^m; the bound only guards against a broken
         * multiply turning into an endless loop. */
        while (!zp_fr_is_one(&b2) && i < m) {
            zp_fr_sqr(&b2, &b2);
            i++;
        }
        if (i == m)
            return false;
        zp_fr g = c;
        for (unsigned k = 0; k + i + 1 < m; k++)
            zp_fr_sqr(&g, &g);
        zp_fr_mul(&x, &x, &g);
        zp_fr_sqr(&c, &g);
        zp_fr_mul(&b, &b, &c);
        m = i;
    }
    *out = x;
    return true;
}

zp_err zp_fr_random(zp_fr *out)
{
    for (int tries = 0; tries < 64; tries++) {
        uint8_t buf[32];
        size_t got = 0;
        while (got < sizeof buf) {
            ssize_t n = getrandom(buf + got, sizeof buf - got, 0);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                return ZP_E_RANDOM;
            }
            got += (size_t)n;
        }
        buf[31] &= 0x7f; /* r < 2^255: rejection keeps it uniform */
        zp_fr v;
        if (zp_fr_from_le(&v, buf) == ZP_OK) {
            *out = v;
            return ZP_OK;
        }
    }
    return ZP_E_RANDOM;
}
