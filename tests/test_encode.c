/* zcash/IETF point encoding: known answers from @noble/curves, round trips,
 * and every rejection rule of docs/formats.md, Constants and point encoding with its own error code. */
#include <stdlib.h>

#include "base/codec.h"
#include "check.h"
#include "math/curve.h"
#include "vectors/curve_kat.h"
#include "zkpipe.h"

static size_t from_hex(uint8_t *out, const char *hex)
{
    size_t n = strlen(hex) / 2;
    CHECK(zp__hex_decode(out, hex, 2 * n));
    return n;
}

/* Big-endian hex of any length up to 64 digits into 4 little-endian limbs. */
static void scalar_from_hex(uint64_t k[4], const char *hex)
{
    memset(k, 0, 4 * sizeof k[0]);
    size_t n = strlen(hex);
    for (size_t i = 0; i < n; i++) {
        size_t pos = n - 1 - i; /* nibble index from the low end */
        k[i / 16] |= (uint64_t)zp__hex_digit(hex[pos]) << (4 * (i % 16));
    }
}

/* Decode from a heap copy of exactly len bytes, so that ASan sees any
 * read past the end. */
static zp_err g1_decode_exact(zp_g1_affine *out, const uint8_t *in, size_t len)
{
    uint8_t *buf = malloc(len ? len : 1);
    if (len)
        memcpy(buf, in, len);
    zp_err e = zp_g1_decode(out, buf, len);
    free(buf);
    return e;
}

static zp_err g2_decode_exact(zp_g2_affine *out, const uint8_t *in, size_t len)
{
    uint8_t *buf = malloc(len ? len : 1);
    if (len)
        memcpy(buf, in, len);
    zp_err e = zp_g2_decode(out, buf, len);
    free(buf);
    return e;
}

static void g1_mul_gen(zp_g1_affine *out, const uint64_t k[4])
{
    zp_g1_affine g;
    zp_g1_jac p;
    zp_g1_generator(&g);
    zp_g1_jac_from_affine(&p, &g);
    zp_g1_jac_mul_vartime(&p, &p, k, 4);
    zp_g1_jac_to_affine(out, &p);
}

static void g2_mul_gen(zp_g2_affine *out, const uint64_t k[4])
{
    zp_g2_affine g;
    zp_g2_jac p;
    zp_g2_generator(&g);
    zp_g2_jac_from_affine(&p, &g);
    zp_g2_jac_mul_vartime(&p, &p, k, 4);
    zp_g2_jac_to_affine(out, &p);
}

static void rand_scalar(uint64_t k[4])
{
    for (int i = 0; i < 4; i++)
        k[i] = check_rand64();
    k[3] &= 0x3fffffffffffffffULL;
}

/* ---------------------------------------------------------- known answers */

static void test_generator_prefix(void)
{
    zp_g1_affine g, ng;
    uint8_t b[48];
    zp_g1_generator(&g);
    zp_g1_encode(b, &g, true);
    CHECK(b[0] == 0x97 && b[1] == 0xf1 && b[2] == 0xd3 && b[3] == 0xa7);
    zp_g1_affine_neg(&ng, &g);
    zp_g1_encode(b, &ng, true);
    CHECK(b[0] == 0xb7 && b[1] == 0xf1);
}

static void test_kat(void)
{
    uint8_t want[192], got[192];
    for (size_t i = 0; i < sizeof curve_kats / sizeof curve_kats[0]; i++) {
        const struct curve_kat *v = &curve_kats[i];
        uint64_t k[4];
        scalar_from_hex(k, v->k);
        zp_g1_affine p, d;
        zp_g2_affine q, e;
        g1_mul_gen(&p, k);
        g2_mul_gen(&q, k);

        size_t n = from_hex(want, v->g1c);
        CHECK_EQ_INT(n, ZP_G1_COMPRESSED);
        zp_g1_encode(got, &p, true);
        CHECK_MEM(got, want, n);
        CHECK_EQ_INT(g1_decode_exact(&d, want, n), ZP_OK);
        CHECK(zp_g1_affine_eq(&d, &p));

        n = from_hex(want, v->g1u);
        CHECK_EQ_INT(n, ZP_G1_UNCOMPRESSED);
        zp_g1_encode(got, &p, false);
        CHECK_MEM(got, want, n);
        CHECK_EQ_INT(g1_decode_exact(&d, want, n), ZP_OK);
        CHECK(zp_g1_affine_eq(&d, &p));

        n = from_hex(want, v->g2c);
        CHECK_EQ_INT(n, ZP_G2_COMPRESSED);
        zp_g2_encode(got, &q, true);
        CHECK_MEM(got, want, n);
        CHECK_EQ_INT(g2_decode_exact(&e, want, n), ZP_OK);
        CHECK(zp_g2_affine_eq(&e, &q));

        n = from_hex(want, v->g2u);
        CHECK_EQ_INT(n, ZP_G2_UNCOMPRESSED);
        zp_g2_encode(got, &q, false);
        CHECK_MEM(got, want, n);
        CHECK_EQ_INT(g2_decode_exact(&e, want, n), ZP_OK);
        CHECK(zp_g2_affine_eq(&e, &q));
    }
}

/* ------------------------------------------------------------ round trips */

static void test_round_trip(void)
{
    uint8_t b[192], b2[192];
    for (int it = 0; it < 8; it++) {
        uint64_t k[4];
        rand_scalar(k);
        zp_g1_affine p, np, d;
        zp_g2_affine q, nq, e;
        g1_mul_gen(&p, k);
        g2_mul_gen(&q, k);
        zp_g1_affine_neg(&np, &p);
        zp_g2_affine_neg(&nq, &q);
        for (int c = 0; c < 2; c++) {
            size_t n1 = c ? ZP_G1_COMPRESSED : ZP_G1_UNCOMPRESSED;
            size_t n2 = c ? ZP_G2_COMPRESSED : ZP_G2_UNCOMPRESSED;
            zp_g1_encode(b, &p, c);
            CHECK_EQ_INT(g1_decode_exact(&d, b, n1), ZP_OK);
            CHECK(zp_g1_affine_eq(&d, &p));
            zp_g1_encode(b2, &np, c);
            CHECK_EQ_INT(g1_decode_exact(&d, b2, n1), ZP_OK);
            CHECK(zp_g1_affine_eq(&d, &np));
            zp_g2_encode(b, &q, c);
            CHECK_EQ_INT(g2_decode_exact(&e, b, n2), ZP_OK);
            CHECK(zp_g2_affine_eq(&e, &q));
            zp_g2_encode(b2, &nq, c);
            CHECK_EQ_INT(g2_decode_exact(&e, b2, n2), ZP_OK);
            CHECK(zp_g2_affine_eq(&e, &nq));
        }
        /* P and -P compressed differ only in the sort bit. */
        zp_g1_encode(b, &p, true);
        zp_g1_encode(b2, &np, true);
        CHECK((b[0] ^ b2[0]) == 0x20);
        CHECK_MEM(b + 1, b2 + 1, 47);
        zp_g2_encode(b, &q, true);
        zp_g2_encode(b2, &nq, true);
        CHECK((b[0] ^ b2[0]) == 0x20);
        CHECK_MEM(b + 1, b2 + 1, 95);
    }
}

static void test_infinity(void)
{
    uint8_t b[192], want[192];
    zp_g1_affine inf1, d1;
    zp_g2_affine inf2, d2;
    memset(&inf1, 0, sizeof inf1);
    memset(&inf2, 0, sizeof inf2);
    memset(want, 0, sizeof want);

    want[0] = 0xc0;
    zp_g1_encode(b, &inf1, true);
    CHECK_MEM(b, want, 48);
    zp_g2_encode(b, &inf2, true);
    CHECK_MEM(b, want, 96);
    memset(&d1, 0x11, sizeof d1);
    CHECK_EQ_INT(g1_decode_exact(&d1, want, 48), ZP_OK);
    CHECK(zp_g1_affine_is_inf(&d1));
    memset(&d2, 0x11, sizeof d2);
    CHECK_EQ_INT(g2_decode_exact(&d2, want, 96), ZP_OK);
    CHECK(zp_g2_affine_is_inf(&d2));

    want[0] = 0x40;
    zp_g1_encode(b, &inf1, false);
    CHECK_MEM(b, want, 96);
    zp_g2_encode(b, &inf2, false);
    CHECK_MEM(b, want, 192);
    memset(&d1, 0x11, sizeof d1);
    CHECK_EQ_INT(g1_decode_exact(&d1, want, 96), ZP_OK);
    CHECK(zp_g1_affine_is_inf(&d1));
    memset(&d2, 0x11, sizeof d2);
    CHECK_EQ_INT(g2_decode_exact(&d2, want, 192), ZP_OK);
    CHECK(zp_g2_affine_is_inf(&d2));
}

/* --------------------------------------------------------------- rejects */

/* Decoding must fail with the code and leave *out untouched. */
static void expect_g1(const uint8_t *in, size_t len, zp_err code)
{
    zp_g1_affine d, before;
    memset(&d, 0x5a, sizeof d);
    before = d;
    CHECK_EQ_INT(g1_decode_exact(&d, in, len), code);
    CHECK_MEM(&d, &before, sizeof d);
}

static void expect_g2(const uint8_t *in, size_t len, zp_err code)
{
    zp_g2_affine d, before;
    memset(&d, 0x5a, sizeof d);
    before = d;
    CHECK_EQ_INT(g2_decode_exact(&d, in, len), code);
    CHECK_MEM(&d, &before, sizeof d);
}

static void test_bad_length(void)
{
    uint8_t b[200];
    zp_g1_affine g;
    zp_g2_affine h;
    zp_g1_generator(&g);
    zp_g2_generator(&h);
    zp_g1_encode(b, &g, false);
    static const size_t l1[] = {0, 1, 47, 49, 95, 97, 192};
    for (size_t i = 0; i < sizeof l1 / sizeof l1[0]; i++)
        expect_g1(b, l1[i], ZP_E_BAD_LENGTH);
    zp_g2_encode(b, &h, false);
    static const size_t l2[] = {0, 1, 48, 95, 97, 191, 193};
    for (size_t i = 0; i < sizeof l2 / sizeof l2[0]; i++)
        expect_g2(b, l2[i], ZP_E_BAD_LENGTH);
}

static void test_bad_flags(void)
{
    uint8_t c1[48], u1[96], c2[96], u2[192], t[192];
    zp_g1_affine g;
    zp_g2_affine h;
    zp_g1_generator(&g);
    zp_g2_generator(&h);
    zp_g1_encode(c1, &g, true);
    zp_g1_encode(u1, &g, false);
    zp_g2_encode(c2, &h, true);
    zp_g2_encode(u2, &h, false);

    /* compressed length without the compression flag */
    memcpy(t, c1, 48);
    t[0] &= 0x7f;
    expect_g1(t, 48, ZP_E_BAD_FLAGS);
    memcpy(t, c2, 96);
    t[0] &= 0x7f;
    expect_g2(t, 96, ZP_E_BAD_FLAGS);
    /* uncompressed length with the compression flag */
    memcpy(t, u1, 96);
    t[0] |= 0x80;
    expect_g1(t, 96, ZP_E_BAD_FLAGS);
    memcpy(t, u2, 192);
    t[0] |= 0x80;
    expect_g2(t, 192, ZP_E_BAD_FLAGS);
    /* sort bit on uncompressed data */
    memcpy(t, u1, 96);
    t[0] |= 0x20;
    expect_g1(t, 96, ZP_E_BAD_FLAGS);
    memcpy(t, u2, 192);
    t[0] |= 0x20;
    expect_g2(t, 192, ZP_E_BAD_FLAGS);

    /* infinity with the sort bit, another bit of byte 0, or another byte */
    static const uint8_t bad0[] = {0xe0, 0xc1, 0xd0, 0xc8};
    for (size_t i = 0; i < sizeof bad0; i++) {
        memset(t, 0, sizeof t);
        t[0] = bad0[i];
        expect_g1(t, 48, ZP_E_BAD_FLAGS);
        expect_g2(t, 96, ZP_E_BAD_FLAGS);
        t[0] = bad0[i] & 0x7f; /* the same on the uncompressed form */
        expect_g1(t, 96, ZP_E_BAD_FLAGS);
        expect_g2(t, 192, ZP_E_BAD_FLAGS);
    }
    static const size_t pos[] = {1, 47, 48, 95, 96, 191};
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
        memset(t, 0, sizeof t);
        t[0] = 0xc0;
        t[pos[i]] = 1;
        if (pos[i] < 48)
            expect_g1(t, 48, ZP_E_BAD_FLAGS);
        if (pos[i] < 96)
            expect_g2(t, 96, ZP_E_BAD_FLAGS);
        t[0] = 0x40;
        if (pos[i] < 96)
            expect_g1(t, 96, ZP_E_BAD_FLAGS);
        expect_g2(t, 192, ZP_E_BAD_FLAGS);
    }
    /* an infinity flag on a real point's bytes */
    memcpy(t, c1, 48);
    t[0] |= 0x40;
    expect_g1(t, 48, ZP_E_BAD_FLAGS);
    memcpy(t, u2, 192);
    t[0] |= 0x40;
    expect_g2(t, 192, ZP_E_BAD_FLAGS);
}

/* Write q (or q + add) big-endian into 48 bytes. */
static void put_q(uint8_t *out, uint8_t add)
{
    zp_fp q = ZP_FP_MODULUS;
    q.l[0] += add;
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 8; k++)
            out[(5 - i) * 8 + k] = (uint8_t)(q.l[i] >> (56 - 8 * k));
}

static void test_not_canonical(void)
{
    uint8_t t[192];
    zp_g1_affine g;
    zp_g2_affine h;
    zp_g1_generator(&g);
    zp_g2_generator(&h);

    for (uint8_t add = 0; add < 2; add++) {
        /* G1 compressed x >= q; uncompressed x >= q; uncompressed y >= q */
        put_q(t, add);
        t[0] |= 0x80;
        expect_g1(t, 48, ZP_E_NOT_CANONICAL);
        t[0] |= 0x20;
        expect_g1(t, 48, ZP_E_NOT_CANONICAL);
        zp_g1_encode(t, &g, false);
        put_q(t, add);
        expect_g1(t, 96, ZP_E_NOT_CANONICAL);
        zp_g1_encode(t, &g, false);
        put_q(t + 48, add);
        expect_g1(t, 96, ZP_E_NOT_CANONICAL);
        /* G2: each of x.c1, x.c0 (both forms), y.c1, y.c0 */
        for (int coord = 0; coord < 4; coord++) {
            zp_g2_encode(t, &h, false);
            put_q(t + 48 * coord, add);
            expect_g2(t, 192, ZP_E_NOT_CANONICAL);
            if (coord < 2) {
                zp_g2_encode(t, &h, true);
                put_q(t + 48 * coord, add);
                t[0] |= 0x80;
                expect_g2(t, 96, ZP_E_NOT_CANONICAL);
            }
        }
    }
    /* the largest value the 5 free bits of byte 0 allow */
    memset(t, 0xff, sizeof t);
    t[0] = 0x9f;
    expect_g1(t, 48, ZP_E_NOT_CANONICAL);
    expect_g2(t, 96, ZP_E_NOT_CANONICAL);
}

static void test_not_on_curve(void)
{
    uint8_t t[192];
    zp_g1_affine g;
    zp_g2_affine h;
    zp_g1_generator(&g);
    zp_g2_generator(&h);

    /* uncompressed with y off by one */
    zp_g1_encode(t, &g, false);
    t[95] ^= 1;
    expect_g1(t, 96, ZP_E_NOT_ON_CURVE);
    zp_g2_encode(t, &h, false);
    t[191] ^= 1;
    expect_g2(t, 192, ZP_E_NOT_ON_CURVE);
    /* all zero without the infinity flag is (0, 0), not infinity */
    memset(t, 0, sizeof t);
    expect_g1(t, 96, ZP_E_NOT_ON_CURVE);
    expect_g2(t, 192, ZP_E_NOT_ON_CURVE);

    /* compressed x for which x^3 + b has no square root */
    zp_fp x, rhs, y;
    zp_fp_from_u64(&x, 1);
    for (;;) {
        zp__g1_rhs(&rhs, &x);
        if (!zp_fp_sqrt(&y, &rhs))
            break;
        zp_fp_add(&x, &x, &g.x);
    }
    zp_fp_to_be(t, &x);
    t[0] |= 0x80;
    expect_g1(t, 48, ZP_E_NOT_ON_CURVE);
    t[0] |= 0x20;
    expect_g1(t, 48, ZP_E_NOT_ON_CURVE);
    zp_fp2 x2, rhs2, y2;
    x2 = h.x;
    for (;;) {
        zp__g2_rhs(&rhs2, &x2);
        if (!zp_fp2_sqrt(&y2, &rhs2))
            break;
        zp_fp_add(&x2.c0, &x2.c0, &g.x);
    }
    zp_fp_to_be(t, &x2.c1);
    zp_fp_to_be(t + 48, &x2.c0);
    t[0] |= 0x80;
    expect_g2(t, 96, ZP_E_NOT_ON_CURVE);
}

static void test_not_in_subgroup(void)
{
    uint8_t t[192];
    /* G1: (0, 2) has order 3; and a random point of E(Fp) */
    zp_g1_affine a;
    zp_fp_zero(&a.x);
    zp_fp_from_u64(&a.y, 2);
    zp_g1_encode(t, &a, false);
    expect_g1(t, 96, ZP_E_NOT_IN_SUBGROUP);
    zp_g1_encode(t, &a, true);
    expect_g1(t, 48, ZP_E_NOT_IN_SUBGROUP);

    zp_fp rhs, one;
    zp_fp_one(&one);
    zp_fp_from_u64(&a.x, 0x1234);
    while (zp__g1_rhs(&rhs, &a.x), !zp_fp_sqrt(&a.y, &rhs))
        zp_fp_add(&a.x, &a.x, &one);
    CHECK(zp_g1_affine_on_curve(&a));
    CHECK(!zp__g1_in_subgroup_slow(&a));
    zp_g1_encode(t, &a, false);
    expect_g1(t, 96, ZP_E_NOT_IN_SUBGROUP);
    zp_g1_encode(t, &a, true);
    expect_g1(t, 48, ZP_E_NOT_IN_SUBGROUP);

    zp_g2_affine b;
    zp_fp2 rhs2;
    zp_fp_from_u64(&b.x.c0, 0x1234);
    zp_fp_from_u64(&b.x.c1, 0x5678);
    while (zp__g2_rhs(&rhs2, &b.x), !zp_fp2_sqrt(&b.y, &rhs2))
        zp_fp_add(&b.x.c0, &b.x.c0, &one);
    CHECK(zp_g2_affine_on_curve(&b));
    CHECK(!zp__g2_in_subgroup_slow(&b));
    zp_g2_encode(t, &b, false);
    expect_g2(t, 192, ZP_E_NOT_IN_SUBGROUP);
    zp_g2_encode(t, &b, true);
    expect_g2(t, 96, ZP_E_NOT_IN_SUBGROUP);
}

/* Decoding arbitrary bytes never crashes and only accepts what re-encodes
 * to the same bytes (the encoding is canonical). */
static void test_random_bytes(void)
{
    uint8_t t[192], r[192];
    for (int it = 0; it < 400; it++) {
        for (size_t i = 0; i < sizeof t; i++)
            t[i] = (uint8_t)check_rand64();
        size_t l1 = (it & 4) ? 48 : 96, l2 = (it & 4) ? 96 : 192;
        if (it % 2) /* consistent flags, no infinity: reach the field checks */
            t[0] = (uint8_t)((t[0] & (l1 == 48 ? 0x3f : 0x1f)) | (l1 == 48 ? 0x80 : 0));
        if (it % 2 && (t[0] & 0x1f) >= 0x1a) /* and often x < q */
            t[0] &= 0xf7;
        zp_g1_affine a;
        zp_g2_affine b;
        if (g1_decode_exact(&a, t, l1) == ZP_OK) {
            zp_g1_encode(r, &a, l1 == 48);
            CHECK_MEM(r, t, l1);
        }
        if (g2_decode_exact(&b, t, l2) == ZP_OK) {
            zp_g2_encode(r, &b, l2 == 96);
            CHECK_MEM(r, t, l2);
        }
    }
}

int main(void)
{
    RUN(test_generator_prefix);
    RUN(test_kat);
    RUN(test_round_trip);
    RUN(test_infinity);
    RUN(test_bad_length);
    RUN(test_bad_flags);
    RUN(test_not_canonical);
    RUN(test_not_on_curve);
    RUN(test_not_in_subgroup);
    RUN(test_random_bytes);
    return FINISH();
}
