/*
 * zkpipe selftest: a quick check of this build's arithmetic against known
 * answers (from @noble/curves 2.4.0) and algebraic identities. The full
 * suites live in tests/; this is what a user runs on a new machine.
 */
#include <stdio.h>
#include <string.h>

#include "base/codec.h"
#include "cli/cli.h"
#include "zkpipe.h"

static int failures;

static void report(const char *name, bool ok)
{
    printf("%-44s %s\n", name, ok ? "ok" : "FAILED");
    if (!ok)
        failures++;
}

static bool hex_eq(const uint8_t *bytes, size_t n, const char *hex)
{
    uint8_t want[96];
    return n <= sizeof want && strlen(hex) == 2 * n && zp__hex_decode(want, hex, 2 * n) &&
           memcmp(bytes, want, n) == 0;
}

static void check_fields(void)
{
    zp_fp a, b, one;
    zp_fp_one(&one);
    zp_fp_neg(&a, &one);
    zp_fp_sqr(&b, &a);
    report("Fp: (q-1)^2 = 1", zp_fp_is_one(&b));
    zp_fr w, t;
    bool roots_ok = true;
    for (int conv = 0; conv < 2; conv++) {
        zp_fr_root_of_unity(&w, 32, conv ? ZP_ROOTS_BELLPERSON : ZP_ROOTS_SNARKJS);
        t = w;
        for (int i = 0; i < 31; i++)
            zp_fr_sqr(&t, &t);
        zp_fr mone, fone;
        zp_fr_one(&fone);
        zp_fr_neg(&mone, &fone);
        roots_ok = roots_ok && zp_fr_eq(&t, &mone);
    }
    report("Fr: roots of unity have order 2^32", roots_ok);
}

static const char g1_hex[] =
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char g2_hex[] =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
static const char g1k_hex[] =
    "86108816a69a1dc709dc6fdb084e9d5431414b46e7b56772260a6c695663cfc66ce0afee43b1a5dd51241a3478386521";
static const char e_c000_hex[] =
    "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6";

static void check_curves(void)
{
    zp_g1_affine g1, p1;
    zp_g2_affine g2, p2;
    uint8_t buf[ZP_G2_UNCOMPRESSED];
    zp_g1_generator(&g1);
    zp_g2_generator(&g2);
    zp_g1_encode(buf, &g1, true);
    report("G1 generator encoding", hex_eq(buf, 48, g1_hex));
    zp_g2_encode(buf, &g2, true);
    report("G2 generator encoding", hex_eq(buf, 96, g2_hex));

    const uint64_t k = 0x1234567890abcdefULL;
    zp_g1_jac j;
    zp_g1_jac_from_affine(&j, &g1);
    zp_g1_jac_mul_vartime(&j, &j, &k, 1);
    zp_g1_jac_to_affine(&p1, &j);
    zp_g1_encode(buf, &p1, true);
    report("G1 scalar multiplication known answer", hex_eq(buf, 48, g1k_hex));
    bool round = zp_g1_decode(&p1, buf, 48) == ZP_OK;
    zp_g1_jac_to_affine(&g1, &j);
    report("G1 decode(encode(P)) = P", round && zp_g1_affine_eq(&p1, &g1));

    zp_g1_generator(&g1);
    zp_g1_jac_from_affine(&j, &g1);
    zp_g1_jac_mul_vartime(&j, &j, ZP_FR_MODULUS.l, 4);
    report("[r]G1 = infinity", zp_g1_jac_is_inf(&j));
    zp_g2_jac k2;
    zp_g2_jac_from_affine(&k2, &g2);
    zp_g2_jac_mul_vartime(&k2, &k2, ZP_FR_MODULUS.l, 4);
    report("[r]G2 = infinity", zp_g2_jac_is_inf(&k2));

    buf[0] = 0x97 ^ 0x40; /* infinity flag on a non-infinity encoding */
    report("bad flags rejected", zp_g1_decode(&p1, buf, 48) == ZP_E_BAD_FLAGS);
    (void)p2;
}

static void check_pairing(void)
{
    zp_g1_affine g1, a1;
    zp_g2_affine g2, b2;
    zp_fp12 e, e6, x;
    uint8_t bytes[576];
    zp_g1_generator(&g1);
    zp_g2_generator(&g2);
    zp_pairing(&e, &g1, &g2);
    zp_fp12_to_bytes(bytes, &e);
    report("e(G1, G2) known answer", hex_eq(bytes, 48, e_c000_hex));
    report("e(G1, G2) != 1", !zp_fp12_is_one(&e));

    const uint64_t two = 2, three = 3, six = 6;
    zp_g1_jac j;
    zp_g2_jac k;
    zp_g1_jac_from_affine(&j, &g1);
    zp_g1_jac_mul_vartime(&j, &j, &two, 1);
    zp_g1_jac_to_affine(&a1, &j);
    zp_g2_jac_from_affine(&k, &g2);
    zp_g2_jac_mul_vartime(&k, &k, &three, 1);
    zp_g2_jac_to_affine(&b2, &k);
    zp_pairing(&x, &a1, &b2);
    zp_fp12_pow(&e6, &e, &six, 1);
    report("e(2 G1, 3 G2) = e(G1, G2)^6", zp_fp12_eq(&x, &e6));

    zp_g1_affine ps[2];
    zp_g2_affine qs[2];
    ps[0] = g1;
    zp_g1_affine_neg(&ps[1], &g1);
    qs[0] = g2;
    qs[1] = g2;
    zp_multi_pairing(&x, ps, qs, 2);
    report("e(G1, G2) e(-G1, G2) = 1", zp_fp12_is_one(&x));
}

int zp__cmd_selftest(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv,
                           "usage: zkpipe selftest\n"
                           "Checks this build's arithmetic against known answers.\n"
                           "Exit status 0 when every check passes, 1 otherwise.\n"))
        return 0;
    failures = 0;
    check_fields();
    check_curves();
    check_pairing();
    printf("selftest: %s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
