/*
 * bellperson .params / .vk: write -> read round trips, the exact layout
 * (checked against files built here by hand from the zcash encoder, not by
 * the writer), hostile inputs with one expected code each, and the whole
 * bellperson round trip: setup in the tau convention -> .params/.vk ->
 * read back with the circuit -> prove -> 192-byte proof -> verify against
 * the .vk read from the file. Attaching a circuit on its own:
 * test_params_attach.c.
 *
 * With --bp-out DIR only the round trip runs, and it leaves its files in
 * DIR (k.params, k.vk, proof.bin, proof.json, public.json, vk.json) for
 * bellperson.test.sh, which checks them with @noble/curves.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cpu/msm_ifma.h"
#include "groth16/groth16.h"
#include "io/bellperson.h"
#include "io/io.h"
#include "io/zpk.h"
#include "r1cs/synth.h"
#include "test_bp_util.h"
#include "test_g16_util.h"
#include "test_io_util.h"

static char dir[64];

/* ------------------------------------------------ a hand-made .params */

typedef struct bbuf {
    uint8_t *p;
    size_t len, cap;
} bbuf;

static void bb_put(bbuf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void bb_be32(bbuf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    bb_put(b, x, 4);
}

static void bb_g1s(bbuf *b, const zp_g1_affine *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t x[96];
        zp_g1_encode(x, &p[i], false);
        bb_put(b, x, 96);
    }
}

static void bb_g2s(bbuf *b, const zp_g2_affine *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t x[192];
        zp_g2_encode(x, &p[i], false);
        bb_put(b, x, 192);
    }
}

/* The fields of docs/formats.md, bellperson and Filecoin in order, with the given counts (each at
 * most the key's own) of the key's points; nfields 1 gives a .vk. */
static uint8_t *hand_file(size_t *len, const zp__pk *pk, const uint32_t count[6], int nfields)
{
    bbuf b = {0};
    const zp__vk *vk = &pk->vk;
    bb_g1s(&b, &vk->alpha1, 1);
    bb_g1s(&b, &vk->beta1, 1);
    bb_g2s(&b, &vk->beta2, 1);
    bb_g2s(&b, &vk->gamma2, 1);
    bb_g1s(&b, &vk->delta1, 1);
    bb_g2s(&b, &vk->delta2, 1);
    const zp_g1_affine *g1[5] = {vk->ic, pk->h, pk->l, pk->a, pk->b1};
    for (int f = 0; f < nfields; f++) {
        bb_be32(&b, count[f]);
        if (f < 5)
            bb_g1s(&b, g1[f], count[f]);
        else
            bb_g2s(&b, pk->b2, count[f]);
    }
    *len = b.len;
    return b.p;
}

static void own_counts(uint32_t c[6], const zp__pk *pk)
{
    c[0] = pk->vk.n_ic;
    c[1] = (uint32_t)pk->n_h;
    c[2] = (uint32_t)pk->n_l;
    c[3] = (uint32_t)pk->n_a;
    c[4] = (uint32_t)pk->n_b;
    c[5] = (uint32_t)pk->n_b;
}

/* Byte offset of the count of field f (0 = ic .. 5 = b_g2). */
static size_t count_off(const uint32_t c[6], int f)
{
    size_t off = 3 * 96 + 3 * 192;
    for (int i = 0; i < f; i++)
        off += 4 + (size_t)c[i] * (i == 5 ? 192 : 96);
    return off;
}

static zp__pk small_pk(void)
{
    zp__pk pk;
    rand_tau_pk(&pk, 3, 12, 16, 9, 5); /* 4 ic, 15 h, 8 l */
    return pk;
}

static zp_err parse(zp__pk *out, const uint8_t *p, size_t n, zp__ioerr *why)
{
    return zp__params_parse(out, p, n, 3, why);
}

/* ------------------------------------------------------------- tests */

static void test_roundtrip(void)
{
    zp__pk pk = small_pk(), back;
    char path[128];
    snprintf(path, sizeof path, "%s/k.params", dir);
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__params_save(path, &pk, 2, &why), ZP_OK);
    for (int threads = 1; threads <= 4; threads += 3) {
        zp_err e = zp__params_load(&back, path, threads, &why);
        CHECK_EQ_INT(e, ZP_OK);
        if (e) {
            fprintf(stderr, "%s\n", why.msg);
            continue;
        }
        CHECK(pk_eq(&pk, &back));
        CHECK_EQ_INT(back.h_conv, ZP_H_TAU);
        CHECK_EQ_INT(back.roots, ZP_ROOTS_BELLPERSON);
        CHECK_EQ_INT(back.domain_size, 16);
        CHECK_EQ_INT(back.n_vars, 12);
        CHECK_EQ_INT(back.n_public, 3);
        CHECK(back.a_density.words == NULL && back.ma.row_ptr == NULL);
        zp__pk_free(&back);
    }
    /* The .vk reader takes the .params prefix (trailing bytes ignored). */
    zp__vk vk;
    CHECK_EQ_INT(zp__params_vk_load(&vk, path, NULL), ZP_OK);
    CHECK(vk_eq(&vk, &pk.vk));
    zp__vk_free(&vk);
    zp__pk_free(&pk);
}

static void test_vk_roundtrip(void)
{
    zp__pk pk = small_pk();
    char path[128];
    snprintf(path, sizeof path, "%s/k.vk", dir);
    CHECK_EQ_INT(zp__params_vk_save(path, &pk.vk, NULL), ZP_OK);
    size_t n;
    uint8_t *bytes = slurp(path, &n);
    CHECK_EQ_INT(n, 3 * 96 + 3 * 192 + 4 + 4 * 96);
    zp__vk vk;
    CHECK_EQ_INT(zp__params_vk_load(&vk, path, NULL), ZP_OK);
    CHECK(vk_eq(&vk, &pk.vk));
    zp__vk_free(&vk);
    /* Truncated .vk files. */
    size_t cuts[] = {0, 95, 864, 867, 868, n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        CHECK_EQ_INT(zp__params_vk_parse(&vk, bytes, cuts[i], NULL), ZP_E_TRUNCATED);
    free(bytes);
    zp__pk_free(&pk);
}

/* The writer's bytes equal the hand-made file, whose layout is spelled out
 * here: points uncompressed at fixed offsets, counts u32 big-endian. */
static void test_layout(void)
{
    zp__pk pk = small_pk();
    char path[128];
    snprintf(path, sizeof path, "%s/l.params", dir);
    CHECK_EQ_INT(zp__params_save(path, &pk, 1, NULL), ZP_OK);
    size_t n, hn;
    uint8_t *w = slurp(path, &n);
    uint32_t c[6];
    own_counts(c, &pk);
    uint8_t *hand = hand_file(&hn, &pk, c, 6);
    CHECK_EQ_INT(n, hn);
    CHECK_EQ_INT(n, zp__params_size(&pk));
    CHECK(n == hn && memcmp(w, hand, n) == 0);

    uint8_t enc[192];
    zp_g1_encode(enc, &pk.vk.alpha1, false);
    CHECK_MEM(w + 0, enc, 96);
    zp_g1_encode(enc, &pk.vk.beta1, false);
    CHECK_MEM(w + 96, enc, 96);
    zp_g2_encode(enc, &pk.vk.beta2, false);
    CHECK_MEM(w + 192, enc, 192);
    zp_g2_encode(enc, &pk.vk.gamma2, false);
    CHECK_MEM(w + 384, enc, 192);
    zp_g1_encode(enc, &pk.vk.delta1, false);
    CHECK_MEM(w + 576, enc, 96);
    zp_g2_encode(enc, &pk.vk.delta2, false);
    CHECK_MEM(w + 672, enc, 192);
    static const uint8_t ic_count[4] = {0, 0, 0, 4};
    CHECK_MEM(w + 864, ic_count, 4);
    zp_g1_encode(enc, &pk.vk.ic[3], false);
    CHECK_MEM(w + 868 + 3 * 96, enc, 96);
    static const uint8_t h_count[4] = {0, 0, 0, 15};
    CHECK_MEM(w + count_off(c, 1), h_count, 4);
    zp_g1_encode(enc, &pk.h[14], false);
    CHECK_MEM(w + count_off(c, 1) + 4 + 14 * 96, enc, 96);
    zp_g1_encode(enc, &pk.a[0], false);
    CHECK_MEM(w + count_off(c, 3) + 4, enc, 96);
    zp_g2_encode(enc, &pk.b2[4], false);
    CHECK_MEM(w + count_off(c, 5) + 4 + 4 * 192, enc, 192);
    CHECK_EQ_INT(count_off(c, 5) + 4 + 5 * 192, n);
    /* Uncompressed, finite: no flag bit on any first byte. */
    CHECK_EQ_INT(w[0] & 0xe0, 0);
    CHECK_EQ_INT(w[count_off(c, 5) + 4] & 0xe0, 0);

    /* The hand-made file parses to the same key. */
    zp__pk back;
    CHECK_EQ_INT(parse(&back, hand, hn, NULL), ZP_OK);
    CHECK(pk_eq(&pk, &back));
    zp__pk_free(&back);
    /* Big counts: a count with a high byte set must not be read LE. */
    free(w);
    free(hand);
    zp__pk_free(&pk);
}

/* Real files hold a header count like 2^27 - 1; here the domain is 2^13
 * so several 4096-point decode chunks run on several threads. The error
 * reported is the lowest bad index, whatever the scheduling. */
static void test_big_and_first_error(void)
{
    zp__pk pk;
    rand_tau_pk(&pk, 1, 4, 1 << 13, 3, 2);
    uint32_t c[6];
    own_counts(c, &pk);
    size_t n;
    uint8_t *f = hand_file(&n, &pk, c, 6);
    zp__pk back;
    CHECK_EQ_INT(zp__params_parse(&back, f, n, 4, NULL), ZP_OK);
    CHECK(pk_eq(&pk, &back));
    zp__pk_free(&back);
    size_t h0 = count_off(c, 1) + 4;
    /* Late in the first chunk, and early in the second, which therefore
     * fails first in time. */
    f[h0 + 4100 * 96 + 95] ^= 1;    /* off the curve */
    f[h0 + 4000 * 96] |= 0x40;      /* infinity flag with other bits set */
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__params_parse(&back, f, n, 4, &why), ZP_E_BAD_FLAGS);
    CHECK(strstr(why.msg, "h point 4000") != NULL);
    f[h0 + 4000 * 96] &= 0x1f;
    CHECK_EQ_INT(zp__params_parse(&back, f, n, 4, &why), ZP_E_NOT_ON_CURVE);
    CHECK(strstr(why.msg, "h point 4100") != NULL);
    /* An outside point before the off-curve one in the same group of eight
     * (the IFMA path tests the subgroup eight points at a time): still the
     * lower index first, with the lanes on and off. */
    zp_g1_affine o1;
    g1_non_subgroup(&o1);
    uint8_t ns1[96], keep[96];
    zp_g1_encode(ns1, &o1, false);
    memcpy(keep, f + h0 + 4098 * 96, 96);
    memcpy(f + h0 + 4098 * 96, ns1, 96);
    for (int lanes = 0; lanes < 2; lanes++) {
        bool saved = zp__msm_ifma;
        zp__msm_ifma = lanes && saved;
        CHECK_EQ_INT(zp__params_parse(&back, f, n, 4, &why), ZP_E_NOT_IN_SUBGROUP);
        CHECK(strstr(why.msg, "h point 4098") != NULL);
        memcpy(f + h0 + 4098 * 96, keep, 96);
        CHECK_EQ_INT(zp__params_parse(&back, f, n, 4, &why), ZP_E_NOT_ON_CURVE);
        CHECK(strstr(why.msg, "h point 4100") != NULL);
        memcpy(f + h0 + 4098 * 96, ns1, 96);
        zp__msm_ifma = saved;
    }
    free(f);
    zp__pk_free(&pk);
}

static void test_truncated(void)
{
    zp__pk pk = small_pk(), back;
    uint32_t c[6];
    own_counts(c, &pk);
    size_t n;
    uint8_t *f = hand_file(&n, &pk, c, 6);
    /* Every field boundary and its neighbours, and a few points inside. */
    for (int fld = 0; fld < 6; fld++) {
        size_t o = count_off(c, fld);
        size_t cuts[] = {o - 1, o, o + 1, o + 3, o + 4, o + 5, o + 100};
        for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
            if (cuts[i] >= n)
                continue;
            zp__ioerr why = {{0}};
            zp_err e = parse(&back, f, cuts[i], &why);
            CHECK_EQ_INT(e, ZP_E_TRUNCATED);
            if (e != ZP_E_TRUNCATED)
                fprintf(stderr, "cut %zu: %s\n", cuts[i], why.msg);
            CHECK_EQ_INT(zp__params_shape_parse(&back, f, cuts[i], NULL), ZP_E_TRUNCATED);
        }
    }
    size_t more[] = {0, 1, 95, 96, 500, 863, n - 96, n - 1};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        CHECK_EQ_INT(parse(&back, f, more[i], NULL), ZP_E_TRUNCATED);
    /* Trailing bytes are ignored. */
    uint8_t *g = malloc(n + 50);
    memcpy(g, f, n);
    memset(g + n, 0xab, 50);
    CHECK_EQ_INT(parse(&back, g, n + 50, NULL), ZP_OK);
    CHECK(pk_eq(&pk, &back));
    zp__pk_free(&back);
    free(g);
    free(f);
    zp__pk_free(&pk);
}

/* Replace the count of field fld in a copy of f. */
static uint8_t *with_count(const uint8_t *f, size_t n, size_t off, uint32_t v)
{
    uint8_t *g = malloc(n);
    memcpy(g, f, n);
    g[off] = (uint8_t)(v >> 24);
    g[off + 1] = (uint8_t)(v >> 16);
    g[off + 2] = (uint8_t)(v >> 8);
    g[off + 3] = (uint8_t)v;
    return g;
}

static void test_bad_counts(void)
{
    zp__pk pk = small_pk(), back;
    uint32_t c[6];
    own_counts(c, &pk);
    size_t n;
    uint8_t *f = hand_file(&n, &pk, c, 6);
    struct { int fld; uint32_t v; zp_err want; } cases[] = {
        {0, 0xffffffffu, ZP_E_TRUNCATED}, /* counts larger than the file */
        {1, 0x7fffffffu, ZP_E_TRUNCATED},
        {3, 1u << 24, ZP_E_TRUNCATED},    /* read as LE this would be 1 */
        {5, 6, ZP_E_TRUNCATED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *g = with_count(f, n, count_off(c, cases[i].fld), cases[i].v);
        CHECK_EQ_INT(parse(&back, g, n, NULL), cases[i].want);
        CHECK_EQ_INT(zp__params_shape_parse(&back, g, n, NULL), cases[i].want);
        free(g);
    }
    /* Counts that fit the file but cannot describe a key. */
    uint32_t d[6];
    struct { int fld; uint32_t v; } fmt[] = {
        {0, 0},  /* no ONE */
        {1, 6},  /* domain 7 */
        {1, 14}, /* domain 15 */
        {3, 13}, /* 13 A points for 12 variables */
        {4, 4},  /* b_g1 4, b_g2 5 */
    };
    zp__pk big;
    rand_tau_pk(&big, 3, 12, 16, 12, 5);
    big.a = realloc(big.a, 13 * sizeof *big.a);
    rand_g1s(big.a, 13);
    for (size_t i = 0; i < sizeof fmt / sizeof fmt[0]; i++) {
        own_counts(d, &pk);
        d[fmt[i].fld] = fmt[i].v;
        size_t m;
        uint8_t *g = hand_file(&m, fmt[i].fld == 3 ? &big : &pk, d, 6);
        zp__ioerr why = {{0}};
        CHECK_EQ_INT(parse(&back, g, m, &why), ZP_E_FORMAT);
        CHECK_EQ_INT(zp__params_shape_parse(&back, g, m, NULL), ZP_E_FORMAT);
        free(g);
    }
    /* h count 0 (domain 1) is a valid, if useless, shape. */
    own_counts(d, &pk);
    d[1] = 0;
    size_t m;
    uint8_t *g = hand_file(&m, &pk, d, 6);
    CHECK_EQ_INT(parse(&back, g, m, NULL), ZP_OK);
    CHECK_EQ_INT(back.domain_size, 1);
    zp__pk_free(&back);
    free(g);
    zp__pk_free(&big);
    free(f);
    zp__pk_free(&pk);
}

/* The shape alone: the counts a full parse gives, no arrays; from a file
 * too. */
static void test_shape(void)
{
    zp__pk pk = small_pk(), full, sh;
    uint32_t c[6];
    own_counts(c, &pk);
    size_t n;
    uint8_t *f = hand_file(&n, &pk, c, 6);
    CHECK_EQ_INT(parse(&full, f, n, NULL), ZP_OK);
    CHECK_EQ_INT(zp__params_shape_parse(&sh, f, n, NULL), ZP_OK);
    CHECK(sh.h_conv == full.h_conv && sh.roots == full.roots);
    CHECK_EQ_INT(sh.domain_size, full.domain_size);
    CHECK_EQ_INT(sh.n_public, full.n_public);
    CHECK_EQ_INT(sh.n_vars, full.n_vars);
    CHECK(sh.n_a == full.n_a && sh.n_b == full.n_b && sh.n_l == full.n_l && sh.n_h == full.n_h);
    CHECK(!sh.a && !sh.b1 && !sh.b2 && !sh.l && !sh.h && !sh.vk.ic);
    char path[128];
    snprintf(path, sizeof path, "%s/shape.params", dir);
    FILE *fp = fopen(path, "wb");
    CHECK(fp && fwrite(f, 1, n, fp) == n);
    if (fp)
        fclose(fp);
    zp__pk sf;
    CHECK_EQ_INT(zp__params_shape_load(&sf, path, NULL), ZP_OK);
    CHECK_EQ_INT(sf.n_vars, full.n_vars);
    CHECK_EQ_INT(sf.domain_size, full.domain_size);
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__params_shape_load(&sf, "/nonexistent/x.params", &why), ZP_E_NOT_FOUND);
    unlink(path);
    zp__pk_free(&full);
    free(f);
    zp__pk_free(&pk);
}

static void test_bad_points(void)
{
    zp__pk pk = small_pk(), back;
    uint32_t c[6];
    own_counts(c, &pk);
    size_t n;
    uint8_t *f = hand_file(&n, &pk, c, 6);
    zp_g1_affine o1;
    zp_g2_affine o2;
    g1_non_subgroup(&o1);
    g2_non_subgroup(&o2);
    CHECK(zp_g1_affine_on_curve(&o1) && !zp_g1_affine_in_subgroup(&o1));
    CHECK(zp_g2_affine_on_curve(&o2) && !zp_g2_affine_in_subgroup(&o2));
    uint8_t inf1[96] = {0x40}, inf2[192] = {0x40}, ns1[96], ns2[192], q[96];
    zp_g1_encode(ns1, &o1, false);
    zp_g2_encode(ns2, &o2, false);
    for (int i = 0; i < 48; i++) /* x = q itself, y = 0 */
        q[i] = ZP__Q_LE[47 - i];
    memset(q + 48, 0, 48);
    size_t a2 = count_off(c, 3) + 4 + 2 * 96, b2 = count_off(c, 5) + 4 + 1 * 192;
    size_t h3 = count_off(c, 1) + 4 + 3 * 96, l7 = count_off(c, 2) + 4 + 7 * 96;
    size_t ic0 = count_off(c, 0) + 4;
    struct { size_t off; const uint8_t *bytes; size_t len; zp_err want; const char *name; } cases[] = {
        {0, inf1, 96, ZP_E_INFINITY, "alpha1"},
        {192, inf2, 192, ZP_E_INFINITY, "beta2"},
        {ic0, inf1, 96, ZP_E_INFINITY, "ic point 0"},
        {h3, inf1, 96, ZP_E_INFINITY, "h point 3"},
        {b2, inf2, 192, ZP_E_INFINITY, "b_g2 point 1"},
        {a2, ns1, 96, ZP_E_NOT_IN_SUBGROUP, "a point 2"},
        {576, ns1, 96, ZP_E_NOT_IN_SUBGROUP, "delta1"},
        {b2, ns2, 192, ZP_E_NOT_IN_SUBGROUP, "b_g2 point 1"},
        {384, ns2, 192, ZP_E_NOT_IN_SUBGROUP, "gamma2"},
        {l7, q, 96, ZP_E_NOT_CANONICAL, "l point 7"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *g = malloc(n);
        memcpy(g, f, n);
        memcpy(g + cases[i].off, cases[i].bytes, cases[i].len);
        zp__ioerr why = {{0}};
        CHECK_EQ_INT(parse(&back, g, n, &why), cases[i].want);
        CHECK(strstr(why.msg, cases[i].name) != NULL);
        free(g);
    }
    /* One flipped bit of y: off the curve. The compression flag on an
     * uncompressed point: bad flags. */
    uint8_t *g = malloc(n);
    memcpy(g, f, n);
    g[l7 + 95] ^= 4;
    CHECK_EQ_INT(parse(&back, g, n, NULL), ZP_E_NOT_ON_CURVE);
    memcpy(g, f, n);
    g[h3] |= 0x80;
    CHECK_EQ_INT(parse(&back, g, n, NULL), ZP_E_BAD_FLAGS);
    memcpy(g, f, n);
    g[96 + 95] ^= 1; /* beta1 */
    CHECK_EQ_INT(zp__params_vk_parse(&back.vk, g, n, NULL), ZP_E_NOT_ON_CURVE);
    free(g);
    free(f);
    zp__pk_free(&pk);
}

static void test_writer_refuses(void)
{
    zp__pk pk = small_pk();
    char path[128];
    snprintf(path, sizeof path, "%s/bad.params", dir);
    zp__ioerr why = {{0}};
    pk.l[5] = (zp_g1_affine){0};
    CHECK_EQ_INT(zp__params_save(path, &pk, 1, &why), ZP_E_INFINITY);
    CHECK(strstr(why.msg, "l point 5") != NULL);
    CHECK(access(path, F_OK) != 0);
    rand_g1s(&pk.l[5], 1);
    pk.h_conv = ZP_H_COSET;
    CHECK_EQ_INT(zp__params_save(path, &pk, 1, NULL), ZP_E_INVALID_ARG);
    CHECK(access(path, F_OK) != 0);
    zp__pk_free(&pk);
    /* A snarkjs key is in the other convention. */
    zp__pk zk;
    CHECK_EQ_INT(zp__zkey_load(&zk, "data/mul3.zkey", NULL), ZP_OK);
    CHECK_EQ_INT(zp__params_save(path, &zk, 1, NULL), ZP_E_INVALID_ARG);
    zp__pk_free(&zk);
}

/* ------------------------------------------------ the full round trip */

static void fixed_opts(zp__prove_opts *o, zp_fr *r, zp_fr *s)
{
    zp__prove_opts_default(o);
    rand_fr(r);
    rand_fr(s);
    o->r = r;
    o->s = s;
    o->threads = 2;
}

/* Writes what the JS check reads, when asked to. */
static void export_for_js(const char *out, const zp__proof *p, const uint8_t bytes[192],
                          const zp__vk *vk, const zp_fr *pub, uint32_t n_pub)
{
    char path[512];
    snprintf(path, sizeof path, "%s/proof.bin", out);
    spit(path, bytes, 192);
    snprintf(path, sizeof path, "%s/proof.json", out);
    CHECK_EQ_INT(zp__proof_json_save(path, p, NULL), ZP_OK);
    snprintf(path, sizeof path, "%s/public.json", out);
    CHECK_EQ_INT(zp__public_json_save(path, pub, n_pub, NULL), ZP_OK);
    snprintf(path, sizeof path, "%s/vk.json", out);
    CHECK_EQ_INT(zp__vk_json_save(path, vk, NULL), ZP_OK);
}

/* --bp-out DIR: the round trip alone, its files left in DIR. */
static const char *bp_out;

static void test_bellperson_roundtrip(void)
{
    const char *where = bp_out ? bp_out : dir;
    g16_fix fx;
    CHECK_EQ_INT(fix_make(&fx, "synth:porep:11", ZP_H_TAU, 11), 0);
    char pp[512], vp[512], zp[512];
    snprintf(pp, sizeof pp, "%s/k.params", where);
    snprintf(vp, sizeof vp, "%s/k.vk", where);
    snprintf(zp, sizeof zp, "%s/k.zpk", where);
    CHECK_EQ_INT(zp__params_save(pp, &fx.pk, 2, NULL), ZP_OK);
    CHECK_EQ_INT(zp__params_vk_save(vp, &fx.pk.vk, NULL), ZP_OK);

    /* Read back with a freshly built copy of the circuit (no C). */
    zp__r1cs cs;
    synth_build(&cs, "synth:porep:11");
    zp__pk pk;
    zp__vk vk;
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__params_load_circuit(&pk, pp, &cs, 2, NULL, &why), ZP_OK);
    CHECK_EQ_INT(zp__params_vk_load(&vk, vp, &why), ZP_OK);
    CHECK(pk_eq(&pk, &fx.pk)); /* matrices and densities too */
    CHECK(vk_eq(&vk, &fx.pk.vk));

    /* The same r, s give the same proof from the original and the read
     * key; the proof survives its 192-byte encoding and verifies against
     * the .vk file. */
    zp__prove_opts o;
    zp_fr r, s;
    fixed_opts(&o, &r, &s);
    zp__proof p1, p2, p3;
    CHECK_EQ_INT(zp__prove(&p1, &pk, fx.w, fx.cs.n_vars, &o, NULL, &why), ZP_OK);
    CHECK_EQ_INT(zp__prove(&p2, &fx.pk, fx.w, fx.cs.n_vars, &o, NULL, &why), ZP_OK);
    CHECK_MEM(&p1, &p2, sizeof p1);
    uint8_t bytes[192];
    CHECK_EQ_INT(zp__proof_encode(bytes, &p1), ZP_OK);
    CHECK_EQ_INT(zp__proof_decode(&p3, bytes, 192), ZP_OK);
    CHECK_MEM(&p1, &p3, sizeof p1);
    const zp_fr *pub = fx.w + 1;
    CHECK_EQ_INT(zp__verify(&vk, pub, fx.cs.n_public, &p3), ZP_OK);
    zp_fr bad[64];
    CHECK(fx.cs.n_public <= 64);
    memcpy(bad, pub, fx.cs.n_public * sizeof *bad);
    zp_fr_add(&bad[0], &bad[0], &r);
    CHECK_EQ_INT(zp__verify(&vk, bad, fx.cs.n_public, &p3), ZP_E_VERIFY_FAILED);

    /* Through the native file: the mapped key proves the same bytes. */
    zp__pk mapped;
    CHECK_EQ_INT(zp__zpk_save(zp, &pk, 2, NULL), ZP_OK);
    CHECK_EQ_INT(zp__zpk_load(&mapped, zp, 0, 2, NULL), ZP_OK);
    zp__proof p4;
    CHECK_EQ_INT(zp__prove(&p4, &mapped, fx.w, fx.cs.n_vars, &o, NULL, &why), ZP_OK);
    CHECK_MEM(&p1, &p4, sizeof p1);
    zp__pk_free(&mapped);

    if (bp_out)
        export_for_js(bp_out, &p1, bytes, &vk, pub, fx.cs.n_public);
    zp__vk_free(&vk);
    zp__pk_free(&pk);
    zp__r1cs_free(&cs);
    fix_free(&fx);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--bp-out"))
        bp_out = argv[2];
    else if (argc != 1) {
        fprintf(stderr, "usage: test_params [--bp-out DIR]\n");
        return 2;
    }
    if (bp_out) {
        make_tmpdir(dir, "params");
        RUN(test_bellperson_roundtrip);
        rm_tree(dir);
        return FINISH();
    }
    make_tmpdir(dir, "params");
    RUN(test_roundtrip);
    RUN(test_vk_roundtrip);
    RUN(test_layout);
    RUN(test_big_and_first_error);
    RUN(test_truncated);
    RUN(test_bad_counts);
    RUN(test_shape);
    RUN(test_bad_points);
    RUN(test_writer_refuses);
    RUN(test_bellperson_roundtrip);
    rm_tree(dir);
    return FINISH();
}
