/*
 * The strict JSON parser, decimal field elements (against slow reference
 * twins), and the snarkjs JSON files: byte-exact rewrites of the fixtures,
 * a pairing check of the fixture proof, and hostile variants.
 */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "io/io.h"
#include "test_io_util.h"

static zp_err parse_str(zp__json *doc, const char *s, zp__ioerr *why)
{
    return zp__json_parse(doc, s, strlen(s), NULL, why);
}

/* ----------------------------------------------------------------- parser */

static void test_parse_valid(void)
{
    const char *text = "{\"a\": [1, -2.5e+3, true, false, null, \"x\\u00e9\\n\\\"\\/\", {}],\n"
                       "  \"b\" : {\"c\": [] , \"\": 0}, \"s\": \"\\ud83d\\ude00\xc3\xa9\"}";
    zp__json doc;
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(parse_str(&doc, text, &why), ZP_OK);
    if (!doc.root) {
        fprintf(stderr, "%s\n", why.msg);
        return;
    }
    const zp__jval *r = doc.root, *a = zp__json_get(r, "a"), *b = zp__json_get(r, "b");
    CHECK(r->type == ZP__J_OBJECT && r->n == 3);
    CHECK(a && a->type == ZP__J_ARRAY && a->n == 7);
    CHECK(zp__json_get(r, "z") == NULL && zp__json_get(a, "a") == NULL);
    if (a && a->n == 7) {
        CHECK(a->items[0].type == ZP__J_NUMBER && strcmp(a->items[0].str, "1") == 0);
        CHECK(a->items[1].type == ZP__J_NUMBER && strcmp(a->items[1].str, "-2.5e+3") == 0);
        CHECK(a->items[2].type == ZP__J_TRUE && a->items[3].type == ZP__J_FALSE);
        CHECK(a->items[4].type == ZP__J_NULL);
        CHECK(a->items[5].type == ZP__J_STRING && a->items[5].len == 6 &&
              memcmp(a->items[5].str, "x\xc3\xa9\n\"/", 6) == 0);
        CHECK(a->items[6].type == ZP__J_OBJECT && a->items[6].n == 0);
        CHECK_EQ_INT(a->items[1].line, 1);
        CHECK_EQ_INT(a->items[1].col, 11);
    }
    CHECK(b && b->line == 2 && b->col == 9);
    const zp__jval *e = zp__json_get(b, "");
    CHECK(e && e->type == ZP__J_NUMBER);
    const zp__jval *s = zp__json_get(r, "s");
    CHECK(s && s->len == 6 && memcmp(s->str, "\xf0\x9f\x98\x80\xc3\xa9", 6) == 0);
    zp__json_free(&doc);

    const char *scalars[] = {"0", " -0.0e-0 ", "\"\"", "null", "[]", "{}", "\t\r\n[ ]\n"};
    for (size_t i = 0; i < sizeof scalars / sizeof *scalars; i++) {
        CHECK_EQ_INT(parse_str(&doc, scalars[i], NULL), ZP_OK);
        zp__json_free(&doc);
    }
    /* Many keys take the sorted duplicate check. */
    char big[4096];
    size_t n = (size_t)sprintf(big, "{");
    for (int i = 0; i < 100; i++)
        n += (size_t)sprintf(big + n, "%s\"k%d\":%d", i ? "," : "", i, i);
    sprintf(big + n, "}");
    CHECK_EQ_INT(parse_str(&doc, big, NULL), ZP_OK);
    CHECK(zp__json_get(doc.root, "k77") && strcmp(zp__json_get(doc.root, "k77")->str, "77") == 0);
    zp__json_free(&doc);
    sprintf(big + n, ",\"k42\":0}");
    CHECK_EQ_INT(parse_str(&doc, big, NULL), ZP_E_FORMAT);
}

static void test_parse_invalid(void)
{
    static const char *bad[] = {
        "", " ", "[1,]", "{\"a\":1,}", "01", "-01", "1.", ".5", "-", "+1", "1e", "1e+",
        "NaN", "Infinity", "[1 2]", "{\"a\" 1}", "{a:1}", "'x'", "\"\t\"", "\"\\x\"",
        "\"\\u12\"", "\"\\u12g4\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
        "\"\xc3\"", "\"\xc0\x80\"", "\"\xe0\x80\x80\"", "\"\xf0\x80\x80\x80\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xff\"",
        "[1] x", "/*c*/1", "1 // c", "{\"a\":1,\"a\":2}", "{\"a\":1,\"b\":{},\"a\":[]}",
        "tru", "nul", "falsey", "[", "{", "\"abc", "\"abc\\", "[1,,2]", "[,]", "{,}",
        "{\"a\":}", "{\"a\"}", "[\"a\":1]", "1 2", "\x01", "[\"\\u0000\" 1]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        zp__json doc;
        zp_err e = parse_str(&doc, bad[i], NULL);
        CHECK_EQ_INT(e, ZP_E_FORMAT);
        if (e != ZP_E_FORMAT)
            fprintf(stderr, "  accepted: %s\n", bad[i]);
        CHECK(doc.root == NULL);
        if (e == ZP_OK)
            zp__json_free(&doc);
    }
    /* Embedded NUL bytes are not whitespace. */
    zp__json doc;
    CHECK_EQ_INT(zp__json_parse(&doc, "1\0", 2, NULL, NULL), ZP_E_FORMAT);
    CHECK_EQ_INT(zp__json_parse(&doc, "\"a\0b\"", 5, NULL, NULL), ZP_E_FORMAT);
    /* Errors name the line and column. */
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(parse_str(&doc, "[\n  1,\n  x]", &why), ZP_E_FORMAT);
    CHECK(strstr(why.msg, "line 3 column 3") != NULL);
    CHECK_EQ_INT(parse_str(&doc, "[01]", &why), ZP_E_FORMAT);
    CHECK(strstr(why.msg, "leading zero") != NULL);
    CHECK_EQ_INT(parse_str(&doc, "{\"k\": tru}", &why), ZP_E_FORMAT);
    CHECK(strstr(why.msg, "line 1 column 7") != NULL);
}

/* Each refusal says what it refuses: NUL in a string (escaped or raw), a
 * repeated key, bytes that are not UTF-8. */
static void test_parse_messages(void)
{
    static const struct {
        const char *text;
        size_t len;
        const char *msg;
    } cases[] = {
        {"{\"id\":\"abc\\u0000../x\"}", 0, "NUL (\\u0000) in a string"},
        {"\"a\0b\"", 5, "control character in a string"},
        {"{\"id\":\"a\",\"id\":\"b\"}", 0, "duplicate key"},
        {"\"\xc0\xaf\"", 0, "invalid UTF-8"},          /* overlong '/' */
        {"\"\xed\xb0\x80\"", 0, "invalid UTF-8"},      /* a surrogate */
        {"\"\xe2\x82\"", 0, "invalid UTF-8"},          /* truncated */
        {"{\"\xe9\":1}", 0, "invalid UTF-8"},           /* Latin-1 key */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        zp__json doc;
        zp__ioerr why = {{0}};
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
        CHECK_EQ_INT(zp__json_parse(&doc, cases[i].text, len, NULL, &why), ZP_E_FORMAT);
        CHECK(strstr(why.msg, cases[i].msg) != NULL);
        if (!strstr(why.msg, cases[i].msg))
            fprintf(stderr, "  case %zu: %s\n", i, why.msg);
    }
    /* Multi-byte UTF-8 of every length, raw and escaped, passes intact. */
    const char *ok = "[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\", \"\\u20ac\\u0001\"]";
    zp__json doc;
    CHECK_EQ_INT(parse_str(&doc, ok, NULL), ZP_OK);
    if (doc.root) {
        CHECK(doc.root->items[0].len == 9);
        CHECK(doc.root->items[1].len == 4 && memcmp(doc.root->items[1].str, "\xe2\x82\xac\x01", 4) == 0);
        zp__json_free(&doc);
    }
}

static void test_limits(void)
{
    zp__json_limits lim;
    zp__json_limits_default(&lim);
    char deep[200];
    for (int d = 63; d <= 66; d++) {
        memset(deep, '[', (size_t)d);
        memset(deep + d, ']', (size_t)d);
        zp__json doc;
        zp_err e = zp__json_parse(&doc, deep, 2 * (size_t)d, &lim, NULL);
        CHECK_EQ_INT(e, d <= 64 ? ZP_OK : ZP_E_TOO_LARGE);
        if (!e)
            zp__json_free(&doc);
    }
    /* A million opening brackets: refused at the depth limit, no deep
     * recursion. */
    size_t n = 1000000;
    char *p = malloc(n);
    memset(p, '[', n);
    zp__json doc;
    CHECK_EQ_INT(zp__json_parse(&doc, p, n, NULL, NULL), ZP_E_TOO_LARGE);
    lim.max_bytes = 10;
    CHECK_EQ_INT(zp__json_parse(&doc, "[1,2,3,4,5]", 11, &lim, NULL), ZP_E_TOO_LARGE);
    CHECK_EQ_INT(zp__json_parse(&doc, "[1,2,3,4]", 9, &lim, NULL), ZP_OK);
    zp__json_free(&doc);
    zp__json_limits_default(&lim);
    lim.max_values = 4;
    CHECK_EQ_INT(zp__json_parse(&doc, "[1,2,3,4]", 9, &lim, NULL), ZP_E_TOO_LARGE);
    CHECK_EQ_INT(zp__json_parse(&doc, "[1,2,3]", 7, &lim, NULL), ZP_OK);
    zp__json_free(&doc);
    /* A long array forces the scratch stack and arena to grow. */
    size_t len = 0;
    for (int i = 0; i < 100000; i++)
        len += (size_t)sprintf(p + len, "%s\"%d\"", i ? "," : "[", i);
    p[len++] = ']';
    CHECK_EQ_INT(zp__json_parse(&doc, p, len, NULL, NULL), ZP_OK);
    CHECK(doc.root && doc.root->n == 100000 && strcmp(doc.root->items[99999].str, "99999") == 0);
    zp__json_free(&doc);
    free(p);
}

/* Every proper prefix of a document is an error; random byte changes
 * never crash (the sanitizer build checks for memory errors). */
static void test_mangled(void)
{
    size_t len;
    char *vk = (char *)slurp("data/vk.json", &len);
    zp__json doc;
    for (size_t cut = 0; cut < len; cut++)
        CHECK_EQ_INT(zp__json_parse(&doc, vk, cut, NULL, NULL), ZP_E_FORMAT);
    char *m = malloc(len);
    static const char chars[] = "[]{}\",:\\u0123456789eE+-.tfn \n\x80\xc3\xff";
    for (int it = 0; it < 3000; it++) {
        memcpy(m, vk, len);
        int k = 1 + (int)(check_rand64() % 4);
        for (int j = 0; j < k; j++)
            m[check_rand64() % len] = chars[check_rand64() % (sizeof chars - 1)];
        if (zp__json_parse(&doc, m, len, NULL, NULL) == ZP_OK)
            zp__json_free(&doc);
        zp__vk v;
        if (zp__vk_from_json(&v, m, len, NULL) == ZP_OK)
            zp__vk_free(&v);
    }
    free(m);
    free(vk);
}

/* -------------------------------------------------------------- decimals */

static const char *Q_DEC = "4002409555221667393417789825735904156556882819939007885332058136124"
                           "031650490837864442687629129015664037894272559787";
static const char *R_DEC = "52435875175126190479447740508185965837690552500527637822603658699938"
                           "581184513";

/* Slow twins: one decimal digit at a time. */
static void ref_to_dec(char *out, const uint64_t *in, int n)
{
    uint64_t v[6];
    char tmp[130];
    int k = 0;
    memcpy(v, in, (size_t)n * 8);
    for (;;) {
        unsigned __int128 rem = 0;
        int nz = 0;
        for (int i = n - 1; i >= 0; i--) {
            unsigned __int128 cur = rem << 64 | v[i];
            v[i] = (uint64_t)(cur / 10);
            rem = cur % 10;
            nz |= v[i] != 0;
        }
        tmp[k++] = (char)('0' + (int)rem);
        if (!nz)
            break;
    }
    for (int i = 0; i < k; i++)
        out[i] = tmp[k - 1 - i];
    out[k] = 0;
}

static void ref_fp_from_dec(zp_fp *out, const char *s)
{
    zp_fp ten, d;
    zp_fp_from_u64(&ten, 10);
    zp_fp_zero(out);
    for (; *s; s++) {
        zp_fp_mul(out, out, &ten);
        zp_fp_from_u64(&d, (uint64_t)(*s - '0'));
        zp_fp_add(out, out, &d);
    }
}

static void test_decimal_fp(void)
{
    char dec[ZP__FP_DEC_MAX], ref[130];
    zp_fp a, b, plain;
    for (int it = 0; it < 300; it++) {
        for (int i = 0; i < 6; i++)
            plain.l[i] = check_rand64();
        int kind = it % 5;
        if (kind == 0)
            plain.l[5] &= 0x0fffffffffffffffULL;
        else if (kind == 1) /* small values */
            memset(plain.l + 1, 0, 40), plain.l[0] >>= (it % 64);
        else if (kind == 2) /* q - small */
            plain = ZP_FP_MODULUS, plain.l[0] -= 1 + (uint64_t)it;
        else if (kind == 3) /* powers of ten straddling chunks */
            memset(plain.l, 0, 48), plain.l[0] = 10000000000000000000ULL - (uint64_t)(it % 3);
        else
            plain.l[5] &= 0x0fffffffffffffffULL, plain.l[0] = 0;
        zp_fp_to_mont(&a, &plain);
        zp__fp_to_dec(dec, &a);
        ref_to_dec(ref, plain.l, 6);
        CHECK(strcmp(dec, ref) == 0);
        CHECK_EQ_INT(zp__fp_from_dec(&b, dec, strlen(dec)), ZP_OK);
        CHECK(zp_fp_eq(&a, &b));
        ref_fp_from_dec(&b, dec);
        CHECK(zp_fp_eq(&a, &b));
    }
    zp_fp_zero(&a);
    zp__fp_to_dec(dec, &a);
    CHECK(strcmp(dec, "0") == 0);
    /* q - 1 is the largest canonical value; q and beyond are not. */
    strcpy(dec, Q_DEC);
    dec[strlen(dec) - 1] = '6';
    CHECK_EQ_INT(zp__fp_from_dec(&a, dec, strlen(dec)), ZP_OK);
    zp_fp_one(&b);
    zp_fp_neg(&b, &b);
    CHECK(zp_fp_eq(&a, &b));
    CHECK_EQ_INT(zp__fp_from_dec(&a, Q_DEC, strlen(Q_DEC)), ZP_E_NOT_CANONICAL);
    const char *big = "39402006196394479212279040100143613805079739270465446667948293404245"
                      "721771497210611414266254884915640806627990306816"; /* 2^384 */
    CHECK_EQ_INT(zp__fp_from_dec(&a, big, strlen(big)), ZP_E_NOT_CANONICAL);
    char nines[200];
    memset(nines, '9', 199);
    nines[199] = 0;
    CHECK_EQ_INT(zp__fp_from_dec(&a, nines, 199), ZP_E_NOT_CANONICAL);
    CHECK_EQ_INT(zp__fp_from_dec(&a, nines, 116), ZP_E_NOT_CANONICAL);
    const char *syntax[] = {"", "01", "00", "-1", "+1", "1a", " 1", "1.0", "1e3", "0x1"};
    for (size_t i = 0; i < sizeof syntax / sizeof *syntax; i++)
        CHECK_EQ_INT(zp__fp_from_dec(&a, syntax[i], strlen(syntax[i])), ZP_E_FORMAT);
}

static void test_decimal_fr(void)
{
    char dec[ZP__FR_DEC_MAX], ref[130];
    zp_fr a, b, plain;
    for (int it = 0; it < 300; it++) {
        for (int i = 0; i < 4; i++)
            plain.l[i] = check_rand64();
        plain.l[3] &= 0x3fffffffffffffffULL;
        if (it % 3 == 1)
            memset(plain.l + 1, 0, 24);
        zp_fr_to_mont(&a, &plain);
        zp__fr_to_dec(dec, &a);
        ref_to_dec(ref, plain.l, 4);
        CHECK(strcmp(dec, ref) == 0);
        CHECK_EQ_INT(zp__fr_from_dec(&b, dec, strlen(dec)), ZP_OK);
        CHECK(zp_fr_eq(&a, &b));
    }
    CHECK_EQ_INT(zp__fr_from_dec(&a, R_DEC, strlen(R_DEC)), ZP_E_NOT_CANONICAL);
    strcpy(dec, R_DEC);
    dec[strlen(dec) - 1] = '2';
    CHECK_EQ_INT(zp__fr_from_dec(&a, dec, strlen(dec)), ZP_OK);
    zp_fr_one(&b);
    zp_fr_neg(&b, &b);
    CHECK(zp_fr_eq(&a, &b));
    CHECK_EQ_INT(zp__fr_from_dec(&a, "0", 1), ZP_OK);
    CHECK(zp_fr_is_zero(&a));
}

/* -------------------------------------------------------- snarkjs files */

static void check_same_text(const char *file, const char *text, size_t n)
{
    size_t len;
    char *orig = (char *)slurp(file, &len);
    CHECK(n == len && memcmp(orig, text, len) == 0);
    if (!(n == len && memcmp(orig, text, len) == 0))
        fprintf(stderr, "  rewrite of %s differs\n", file);
    free(orig);
}

static void test_snarkjs_rewrite(void)
{
    zp__proof p;
    zp_fr *pub;
    size_t npub, n;
    zp__vk vk;
    char *t;
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__proof_json_load(&p, "data/proof.json", &why), ZP_OK);
    CHECK_EQ_INT(zp__public_json_load(&pub, &npub, "data/public.json", NULL), ZP_OK);
    CHECK_EQ_INT(zp__vk_json_load(&vk, "data/vk.json", NULL), ZP_OK);
    CHECK_EQ_INT(npub, 2);
    zp_fr want;
    zp_fr_from_u64(&want, 832);
    CHECK(npub == 2 && zp_fr_eq(&pub[0], &want));
    CHECK(zp_g1_affine_is_inf(&vk.beta1) && zp_g1_affine_is_inf(&vk.delta1));

    CHECK_EQ_INT(zp__proof_to_json(&t, &n, &p), ZP_OK);
    check_same_text("data/proof.json", t, n);
    free(t);
    CHECK_EQ_INT(zp__public_to_json(&t, &n, pub, npub), ZP_OK);
    check_same_text("data/public.json", t, n);
    free(t);
    /* Includes vk_alphabeta_12 = e(alpha1, beta2) from our pairing. */
    CHECK_EQ_INT(zp__vk_to_json(&t, &n, &vk), ZP_OK);
    check_same_text("data/vk.json", t, n);
    free(t);

    char path[] = "/tmp/zp_test_json_XXXXXX";
    close(mkstemp(path));
    CHECK_EQ_INT(zp__vk_json_save(path, &vk, NULL), ZP_OK);
    zp__vk vk2;
    CHECK_EQ_INT(zp__vk_json_load(&vk2, path, NULL), ZP_OK);
    CHECK(vk2.n_ic == vk.n_ic && memcmp(vk2.ic, vk.ic, vk.n_ic * sizeof *vk.ic) == 0);
    zp__vk_free(&vk2);
    CHECK_EQ_INT(zp__proof_json_save(path, &p, NULL), ZP_OK);
    zp__proof p2;
    CHECK_EQ_INT(zp__proof_json_load(&p2, path, NULL), ZP_OK);
    CHECK(memcmp(&p, &p2, sizeof p) == 0);
    CHECK_EQ_INT(zp__public_json_save(path, pub, 0, NULL), ZP_OK);
    free(pub);
    CHECK_EQ_INT(zp__public_json_load(&pub, &npub, path, NULL), ZP_OK);
    CHECK_EQ_INT(npub, 0);
    free(pub);
    unlink(path);
    zp__vk_free(&vk);
}

/* The fixture proof satisfies the Groth16 equation under the fixture key:
 * e(-A, B) e(alpha, beta) e(IC_0 + sum pub_i IC_i, gamma) e(C, delta) = 1. */
static void test_pairing_check(void)
{
    zp__proof p;
    zp_fr *pub;
    size_t npub;
    zp__vk vk;
    CHECK_EQ_INT(zp__proof_json_load(&p, "data/proof.json", NULL), ZP_OK);
    CHECK_EQ_INT(zp__public_json_load(&pub, &npub, "data/public.json", NULL), ZP_OK);
    CHECK_EQ_INT(zp__vk_json_load(&vk, "data/vk.json", NULL), ZP_OK);
    if (vk.n_ic != npub + 1)
        return;
    for (int tamper = 0; tamper < 2; tamper++) {
        zp_g1_jac acc, t;
        zp_g1_jac_from_affine(&acc, &vk.ic[0]);
        for (size_t i = 0; i < npub; i++) {
            zp_fr s;
            zp_fr_from_mont(&s, &pub[i]);
            if (tamper && i == 1)
                s.l[0] ^= 1;
            zp_g1_jac_from_affine(&t, &vk.ic[i + 1]);
            zp_g1_jac_mul_vartime(&t, &t, s.l, 4);
            zp_g1_jac_add(&acc, &acc, &t);
        }
        zp_g1_affine g1[4];
        zp_g2_affine g2[4] = {p.b, vk.beta2, vk.gamma2, vk.delta2};
        zp_g1_affine_neg(&g1[0], &p.a);
        g1[1] = vk.alpha1;
        zp_g1_jac_to_affine(&g1[2], &acc);
        g1[3] = p.c;
        zp_fp12 out;
        zp_multi_pairing(&out, g1, g2, 4);
        CHECK(zp_fp12_is_one(&out) == !tamper);
    }
    free(pub);
    zp__vk_free(&vk);
}

/* A compact proof.json from 14 strings (coordinates, protocol, curve) and
 * the name of the third key. */
enum { AX, AY, AZ, BX0, BX1, BY0, BY1, BZ0, BZ1, CX, CY, CZ, PROTO, CURVE, CKEY, NF };

static zp_err proof_try(const char *f[NF], zp__proof *out, zp__ioerr *why)
{
    char text[4096];
    int n = snprintf(text, sizeof text,
                     "{\"pi_a\":[\"%s\",\"%s\",\"%s\"],\"pi_b\":[[\"%s\",\"%s\"],[\"%s\",\"%s\"],"
                     "[\"%s\",\"%s\"]],\"%s\":[\"%s\",\"%s\",\"%s\"],\"protocol\":\"%s\","
                     "\"curve\":\"%s\"}",
                     f[AX], f[AY], f[AZ], f[BX0], f[BX1], f[BY0], f[BY1], f[BZ0], f[BZ1],
                     f[CKEY], f[CX], f[CY], f[CZ], f[PROTO], f[CURVE]);
    zp__proof tmp;
    return zp__proof_from_json(out ? out : &tmp, text, (size_t)n, why);
}

static void test_bad_proof(void)
{
    zp__proof p;
    CHECK_EQ_INT(zp__proof_json_load(&p, "data/proof.json", NULL), ZP_OK);
    char s[NF][ZP__FP_DEC_MAX];
    const char *f[NF];
    zp__fp_to_dec(s[AX], &p.a.x);
    zp__fp_to_dec(s[AY], &p.a.y);
    zp__fp_to_dec(s[BX0], &p.b.x.c0);
    zp__fp_to_dec(s[BX1], &p.b.x.c1);
    zp__fp_to_dec(s[BY0], &p.b.y.c0);
    zp__fp_to_dec(s[BY1], &p.b.y.c1);
    zp__fp_to_dec(s[CX], &p.c.x);
    zp__fp_to_dec(s[CY], &p.c.y);
    strcpy(s[AZ], "1");
    strcpy(s[BZ0], "1");
    strcpy(s[BZ1], "0");
    strcpy(s[CZ], "1");
    strcpy(s[PROTO], "groth16");
    strcpy(s[CURVE], "bls12381");
    strcpy(s[CKEY], "pi_c");
    zp_g1_affine g1x;
    zp_g2_affine g2x;
    g1_non_subgroup(&g1x);
    g2_non_subgroup(&g2x);
    char g1xs[2][ZP__FP_DEC_MAX], g2xs[4][ZP__FP_DEC_MAX], ybad[ZP__FP_DEC_MAX];
    zp__fp_to_dec(g1xs[0], &g1x.x);
    zp__fp_to_dec(g1xs[1], &g1x.y);
    zp__fp_to_dec(g2xs[0], &g2x.x.c0);
    zp__fp_to_dec(g2xs[1], &g2x.x.c1);
    zp__fp_to_dec(g2xs[2], &g2x.y.c0);
    zp__fp_to_dec(g2xs[3], &g2x.y.c1);
    zp_fp y1;
    zp_fp_one(&y1);
    zp_fp_add(&y1, &y1, &p.a.y);
    zp__fp_to_dec(ybad, &y1);

#define RESET()                                                                 \
    for (int i_ = 0; i_ < NF; i_++)                                             \
    f[i_] = s[i_]
#define PVARIANT(mutation, expect_err)                                          \
    do {                                                                        \
        RESET();                                                                \
        mutation;                                                               \
        zp_err got_ = proof_try(f, NULL, NULL);                                 \
        CHECK_EQ_INT(got_, expect_err);                                         \
        if (got_ != (expect_err))                                               \
            fprintf(stderr, "  variant: %s\n", #mutation);                      \
    } while (0)
    zp__proof q;
    RESET();
    CHECK_EQ_INT(proof_try(f, &q, NULL), ZP_OK);
    CHECK(memcmp(&q, &p, sizeof p) == 0);
    PVARIANT((void)0, ZP_OK);
    PVARIANT(f[AY] = ybad, ZP_E_NOT_ON_CURVE);
    PVARIANT(f[AX] = Q_DEC, ZP_E_NOT_CANONICAL);
    PVARIANT(f[BY1] = Q_DEC, ZP_E_NOT_CANONICAL);
    PVARIANT(f[BY1] = s[BY0], ZP_E_NOT_ON_CURVE);
    PVARIANT((f[AX] = g1xs[0], f[AY] = g1xs[1]), ZP_E_NOT_IN_SUBGROUP);
    PVARIANT((f[CX] = g1xs[0], f[CY] = g1xs[1]), ZP_E_NOT_IN_SUBGROUP);
    PVARIANT((f[BX0] = g2xs[0], f[BX1] = g2xs[1], f[BY0] = g2xs[2], f[BY1] = g2xs[3]),
             ZP_E_NOT_IN_SUBGROUP);
    PVARIANT(f[AZ] = "2", ZP_E_FORMAT);
    PVARIANT(f[BZ1] = "1", ZP_E_FORMAT);
    PVARIANT(f[AX] = "0123", ZP_E_FORMAT);
    PVARIANT(f[AX] = "-1", ZP_E_FORMAT);
    PVARIANT(f[AX] = "", ZP_E_FORMAT);
    PVARIANT(f[CURVE] = "bn128", ZP_E_BAD_PRIME);
    PVARIANT(f[PROTO] = "plonk", ZP_E_UNSUPPORTED);
    PVARIANT(f[CKEY] = "pi_x", ZP_E_FORMAT);
    /* infinity, as ffjavascript writes it, and malformed variants */
    PVARIANT((f[CX] = "0", f[CY] = "1", f[CZ] = "0"), ZP_OK);
    PVARIANT((f[CX] = "0", f[CY] = "0", f[CZ] = "0"), ZP_E_FORMAT);
    PVARIANT((f[CX] = "0", f[CY] = "0", f[CZ] = "1"), ZP_E_NOT_ON_CURVE);
    PVARIANT((f[CX] = "0", f[CY] = "1", f[CZ] = "1"), ZP_E_NOT_ON_CURVE);
    PVARIANT((f[BX0] = "0", f[BX1] = "0", f[BY0] = "1", f[BY1] = "0", f[BZ0] = "0"), ZP_OK);
    PVARIANT((f[BX0] = "0", f[BX1] = "0", f[BY0] = "0", f[BY1] = "0", f[BZ0] = "0"),
             ZP_E_FORMAT);
    RESET();
    f[CX] = "0", f[CY] = "1", f[CZ] = "0";
    CHECK_EQ_INT(proof_try(f, &q, NULL), ZP_OK);
    CHECK(zp_g1_affine_is_inf(&q.c));
    /* Infinity is written back the way ffjavascript writes it. */
    memset(&q.b, 0, sizeof q.b);
    char *t;
    size_t tn;
    CHECK_EQ_INT(zp__proof_to_json(&t, &tn, &q), ZP_OK);
    CHECK(strstr(t, "\"pi_c\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ]") != NULL);
    CHECK(strstr(t, "\"pi_b\": [\n  [\n   \"0\",\n   \"0\"\n  ],\n  [\n   \"1\",\n"
                    "   \"0\"\n  ],\n  [\n   \"0\",\n   \"0\"\n  ]\n ]") != NULL);
    zp__proof q2;
    CHECK_EQ_INT(zp__proof_from_json(&q2, t, tn, NULL), ZP_OK);
    CHECK(memcmp(&q, &q2, sizeof q) == 0);
    free(t);
    /* The messages say which point. */
    zp__ioerr why = {{0}};
    RESET();
    f[BY1] = Q_DEC;
    CHECK_EQ_INT(proof_try(f, NULL, &why), ZP_E_NOT_CANONICAL);
    CHECK(strstr(why.msg, "pi_b") != NULL);
#undef PVARIANT
#undef RESET
}

/* Replaces the first occurrence of from (which must occur) with to. */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    CHECK(at != NULL);
    if (!at)
        at = text;
    size_t n = strlen(text) - strlen(from) + strlen(to);
    char *r = malloc(n + 1);
    size_t pre = (size_t)(at - text);
    memcpy(r, text, pre);
    strcpy(r + pre, to);
    strcat(r, at + strlen(from));
    return r;
}

static void test_bad_vk_public(void)
{
    size_t len;
    char *vk = (char *)slurp("data/vk.json", &len);
    struct { const char *from, *to; zp_err want; } v[] = {
        {"\"nPublic\": 2", "\"nPublic\": 2", ZP_OK},
        {"\"nPublic\": 2", "\"nPublic\": 3", ZP_E_FORMAT},
        {"\"nPublic\": 2", "\"nPublic\": -1", ZP_E_FORMAT},
        {"\"nPublic\": 2", "\"nPublic\": 2.0", ZP_E_FORMAT},
        {"\"nPublic\": 2", "\"nPublic\": \"2\"", ZP_E_FORMAT},
        {"\"nPublic\": 2", "\"nPublic\": 99999999999", ZP_E_FORMAT},
        {"\"nPublic\": 2", "\"nPublic\": 4294967295", ZP_E_TOO_LARGE},
        {"\"curve\": \"bls12381\"", "\"curve\": \"bn128\"", ZP_E_BAD_PRIME},
        {"\"curve\": \"bls12381\"", "\"kurve\": \"bls12381\"", ZP_E_FORMAT},
        {"\"protocol\": \"groth16\"", "\"protocol\": \"fflonk\"", ZP_E_UNSUPPORTED},
        {"\"IC\"", "\"ic\"", ZP_E_FORMAT},
        {"\"vk_gamma_2\"", "\"vk_gamma2\"", ZP_E_FORMAT},
        {"\"1\"\n ],\n \"vk_beta_2\"", "\"2\"\n ],\n \"vk_beta_2\"", ZP_E_FORMAT},
        {"vk_alphabeta_12", "vk_alphabeta_12_ignored", ZP_OK},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        char *t = replaced(vk, v[i].from, v[i].to);
        zp__vk k;
        zp_err e = zp__vk_from_json(&k, t, strlen(t), NULL);
        CHECK_EQ_INT(e, v[i].want);
        if (e != v[i].want)
            fprintf(stderr, "  variant %zu: %s\n", i, v[i].to);
        if (!e)
            zp__vk_free(&k);
        CHECK(k.ic == NULL || !e);
        free(t);
    }
    free(vk);

    struct { const char *text; zp_err want; size_t n; } pub[] = {
        {"[\"832\", \"3\"]", ZP_OK, 2},
        {"[]", ZP_OK, 0},
        {"[832]", ZP_E_FORMAT, 0},
        {"{\"a\": \"1\"}", ZP_E_FORMAT, 0},
        {"[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]",
         ZP_E_NOT_CANONICAL, 0},
        {"[\"52435875175126190479447740508185965837690552500527637822603658699938581184512\"]",
         ZP_OK, 1},
        {"[\"1\", \"01\"]", ZP_E_FORMAT, 0},
        {"[\"1\",]", ZP_E_FORMAT, 0},
    };
    for (size_t i = 0; i < sizeof pub / sizeof *pub; i++) {
        zp_fr *w = NULL;
        size_t n = 99;
        zp_err e = zp__public_from_json(&w, &n, pub[i].text, strlen(pub[i].text), NULL);
        CHECK_EQ_INT(e, pub[i].want);
        CHECK_EQ_INT(n, pub[i].n);
        CHECK((w != NULL) == (e == ZP_OK));
        free(w);
    }
}

int main(void)
{
    RUN(test_parse_valid);
    RUN(test_parse_invalid);
    RUN(test_parse_messages);
    RUN(test_limits);
    RUN(test_mangled);
    RUN(test_decimal_fp);
    RUN(test_decimal_fr);
    RUN(test_snarkjs_rewrite);
    RUN(test_pairing_check);
    RUN(test_bad_proof);
    RUN(test_bad_vk_public);
    return FINISH();
}
