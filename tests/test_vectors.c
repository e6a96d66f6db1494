/*
 * Known-answer vectors from @noble/curves 2.4.0, an independent BLS12-381
 * implementation: fields, tower, G1/G2 arithmetic and zcash encoding
 * (including one refused encoding per rejection rule, each with the error
 * code zkpipe must give), pairings, and MSM sums. The data lives in
 * tests/vectors/ and is written by tests/js/gen_vectors.mjs; this program
 * runs from tests/ and fails when a file is missing, empty, malformed, or
 * lacks a kind of vector it should have.
 */
#include "check.h"
#include "zkpipe.h"
#include "vectors/vreader.h"

#define VF(name) zp_fp_##name
#define VT zp_fp
#define VN 48
#define VL 6
#define VFN(name) fp_##name
#define VHAS_LEX 1
#include "vectors/vfield.h"

#define VF(name) zp_fr_##name
#define VT zp_fr
#define VN 32
#define VL 4
#define VFN(name) fr_##name
#define VHAS_LEX 0
#include "vectors/vfield.h"

#define VG(name) zp_g1_##name
#define VAFF zp_g1_affine
#define VJAC zp_g1_jac
#define VXYZZ zp_g1_xyzz
#define VCB ZP_G1_COMPRESSED
#define VUB ZP_G1_UNCOMPRESSED
#define VC(name) g1_##name
#include "vectors/vcurve.h"

#define VG(name) zp_g2_##name
#define VAFF zp_g2_affine
#define VJAC zp_g2_jac
#define VXYZZ zp_g2_xyzz
#define VCB ZP_G2_COMPRESSED
#define VUB ZP_G2_UNCOMPRESSED
#define VC(name) g2_##name
#include "vectors/vcurve.h"

/* ------------------------------------------------------------ Fp2 .. Fp12 */

/* Tower values are written in noble's order: Fp2 = c0 c1, Fp6 = c0 c1 c2,
 * Fp12 = c0 c1, each Fp 48 bytes big-endian. */
static bool parse_fp2_at(zp_fp2 *out, const char *hex)
{
    uint8_t b[96];
    if (!hex_to_bytes(b, 96, hex))
        return false;
    return zp_fp_from_be(&out->c0, b) == ZP_OK && zp_fp_from_be(&out->c1, b + 48) == ZP_OK;
}

static bool parse_fp2(vfile *vf, zp_fp2 *out, const char *hex)
{
    if (!parse_fp2_at(out, hex)) {
        VFAIL(vf, "malformed Fp2");
        return false;
    }
    return true;
}

/* Fixed-width pieces of a longer hex string, without copying it around. */
static bool parse_fp2_slice(zp_fp2 *out, const char *hex, size_t i)
{
    char part[193];
    memcpy(part, hex + 192 * i, 192);
    part[192] = '\0';
    return parse_fp2_at(out, part);
}

static bool parse_fp6(vfile *vf, zp_fp6 *out, const char *hex)
{
    if (strlen(hex) != 3 * 192 || !parse_fp2_slice(&out->c0, hex, 0) ||
        !parse_fp2_slice(&out->c1, hex, 1) || !parse_fp2_slice(&out->c2, hex, 2)) {
        VFAIL(vf, "malformed Fp6");
        return false;
    }
    return true;
}

static bool parse_fp12(vfile *vf, zp_fp12 *out, const char *hex)
{
    zp_fp2 *c[6] = {&out->c0.c0, &out->c0.c1, &out->c0.c2, &out->c1.c0, &out->c1.c1, &out->c1.c2};
    bool ok = strlen(hex) == 6 * 192;
    for (size_t i = 0; ok && i < 6; i++)
        ok = parse_fp2_slice(c[i], hex, i);
    if (!ok)
        VFAIL(vf, "malformed Fp12");
    return ok;
}

static void expect_fp2(vfile *vf, const zp_fp2 *got, const char *hex)
{
    zp_fp2 want;
    if (parse_fp2(vf, &want, hex))
        VCHECK(vf, zp_fp2_eq(got, &want));
}

/* Fp12 results are compared as values and as zp_fp12_to_bytes output, so an
 * ordering slip in the serializer shows up on its own. */
static void expect_fp12(vfile *vf, const zp_fp12 *got, const char *hex)
{
    zp_fp12 want;
    uint8_t wb[576], gb[576];
    if (!parse_fp12(vf, &want, hex) || !hex_to_bytes(wb, 576, hex))
        return;
    VCHECK(vf, zp_fp12_eq(got, &want));
    zp_fp12_to_bytes(gb, got);
    VCHECK(vf, memcmp(gb, wb, 576) == 0);
}

static void fp2_sqrt_check(vfile *vf, const zp_fp2 *a, const char *want)
{
    zp_fp2 s, s2, w, nw;
    bool ok = zp_fp2_sqrt(&s, a);
    if (strcmp(want, "none") == 0) {
        VCHECK(vf, !ok);
        return;
    }
    VCHECK(vf, ok);
    if (!ok || !parse_fp2(vf, &w, want))
        return;
    zp_fp2_neg(&nw, &w);
    VCHECK(vf, zp_fp2_eq(&s, &w) || zp_fp2_eq(&s, &nw));
    zp_fp2_sqr(&s2, &s);
    VCHECK(vf, zp_fp2_eq(&s2, a));
}

static void fp2_line(vfile *vf, const vec *v)
{
    const char *op = v->op;
    bool two = !strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul") || !strcmp(op, "pow");
    zp_fp2 a, b, out;
    if (v->narg != (two ? 2 : 1) || v->nres != 1) {
        VFAIL(vf, "malformed");
        return;
    }
    if (!parse_fp2(vf, &a, v->arg[0]))
        return;
    if (two && strcmp(op, "pow") && !parse_fp2(vf, &b, v->arg[1]))
        return;
    if (!strcmp(op, "add")) {
        zp_fp2_add(&out, &a, &b);
    } else if (!strcmp(op, "sub")) {
        zp_fp2_sub(&out, &a, &b);
    } else if (!strcmp(op, "mul")) {
        zp_fp2_mul(&out, &a, &b);
        zp_fp2 t; /* mul by an Fp element agrees when b is in Fp */
        if (zp_fp_is_zero(&b.c1)) {
            zp_fp2_mul_fp(&t, &a, &b.c0);
            VCHECK(vf, zp_fp2_eq(&t, &out));
        }
    } else if (!strcmp(op, "sqr")) {
        zp_fp2_sqr(&out, &a);
    } else if (!strcmp(op, "neg")) {
        zp_fp2_neg(&out, &a);
    } else if (!strcmp(op, "conj")) {
        zp_fp2_frobenius(&out, &a);
        expect_fp2(vf, &out, v->res[0]);
        zp_fp2_conj(&out, &a);
    } else if (!strcmp(op, "mul_nr")) {
        zp_fp2_mul_nr(&out, &a);
    } else if (!strcmp(op, "inv")) {
        zp_fp2_inv(&out, &a);
    } else if (!strcmp(op, "pow")) {
        uint64_t e[16];
        size_t n = hex_limbs(e, 16, v->arg[1]);
        if (!n) {
            VFAIL(vf, "malformed exponent");
            return;
        }
        zp_fp2_pow(&out, &a, e, n);
    } else if (!strcmp(op, "sqrt")) {
        fp2_sqrt_check(vf, &a, v->res[0]);
        return;
    } else if (!strcmp(op, "lex")) {
        VCHECK(vf, zp_fp2_is_lex_largest(&a) == (atoi(v->res[0]) == 1));
        return;
    } else {
        return;
    }
    expect_fp2(vf, &out, v->res[0]);
}

static void fp6_line(vfile *vf, const vec *v)
{
    const char *op = v->op;
    zp_fp6 a, b, out, want;
    bool two = !strcmp(op, "fp6_mul") || !strcmp(op, "fp6_frob");
    if (v->narg != (two ? 2 : 1) || v->nres != 1) {
        VFAIL(vf, "malformed");
        return;
    }
    if (!parse_fp6(vf, &a, v->arg[0]) || !parse_fp6(vf, &want, v->res[0]))
        return;
    if (!strcmp(op, "fp6_mul")) {
        if (!parse_fp6(vf, &b, v->arg[1]))
            return;
        zp_fp6_mul(&out, &a, &b);
    } else if (!strcmp(op, "fp6_sqr")) {
        zp_fp6_sqr(&out, &a);
    } else if (!strcmp(op, "fp6_inv")) {
        zp_fp6_inv(&out, &a);
    } else if (!strcmp(op, "fp6_mul_nr")) {
        zp_fp6_mul_nr(&out, &a);
    } else {
        zp_fp6_frobenius(&out, &a, (unsigned)atoi(v->arg[1]));
    }
    VCHECK(vf, zp_fp6_eq(&out, &want));
}

static void fp12_line(vfile *vf, const vec *v)
{
    const char *op = v->op;
    if (!strncmp(op, "fp6_", 4)) {
        fp6_line(vf, v);
        return;
    }
    zp_fp12 a, b, out;
    bool two = !strcmp(op, "fp12_mul") || !strcmp(op, "fp12_frob") || !strcmp(op, "fp12_pow");
    if (v->narg != (two ? 2 : 1) || v->nres != 1) {
        VFAIL(vf, "malformed");
        return;
    }
    if (!parse_fp12(vf, &a, v->arg[0]))
        return;
    if (!strcmp(op, "fp12_mul")) {
        if (!parse_fp12(vf, &b, v->arg[1]))
            return;
        zp_fp12_mul(&out, &a, &b);
    } else if (!strcmp(op, "fp12_sqr")) {
        zp_fp12_sqr(&out, &a);
    } else if (!strcmp(op, "fp12_inv")) {
        zp_fp12_inv(&out, &a);
    } else if (!strcmp(op, "fp12_conj")) {
        zp_fp12_conj(&out, &a);
    } else if (!strcmp(op, "fp12_frob")) {
        zp_fp12_frobenius(&out, &a, (unsigned)atoi(v->arg[1]));
    } else if (!strcmp(op, "fp12_pow")) {
        uint64_t e[16];
        size_t n = hex_limbs(e, 16, v->arg[1]);
        if (!n) {
            VFAIL(vf, "malformed exponent");
            return;
        }
        zp_fp12_pow(&out, &a, e, n);
    } else {
        return;
    }
    expect_fp12(vf, &out, v->res[0]);
}

/* ---------------------------------------------------------------- pairing */

static void pairing_line(vfile *vf, const vec *v)
{
    zp_fp12 e;
    if (!strcmp(v->op, "pair")) {
        zp_g1_affine p;
        zp_g2_affine q;
        if (v->narg != 4 || v->nres != 1) {
            VFAIL(vf, "malformed");
            return;
        }
        if (!g1_decode(vf, &p, v->arg[2], ZP_G1_UNCOMPRESSED) ||
            !g2_decode(vf, &q, v->arg[3], ZP_G2_UNCOMPRESSED))
            return;
        zp_pairing(&e, &p, &q);
        expect_fp12(vf, &e, v->res[0]);
        return;
    }
    if (strcmp(v->op, "multi"))
        return;
    int n = atoi(v->arg[0]);
    if (n < 1 || n > 8 || v->narg != 1 + 2 * n || v->nres != 1) {
        VFAIL(vf, "malformed");
        return;
    }
    zp_g1_affine p[8];
    zp_g2_affine q[8];
    for (int i = 0; i < n; i++) {
        if (!g1_decode(vf, &p[i], v->arg[1 + 2 * i], ZP_G1_UNCOMPRESSED) ||
            !g2_decode(vf, &q[i], v->arg[2 + 2 * i], ZP_G2_UNCOMPRESSED))
            return;
    }
    zp_multi_pairing(&e, p, q, (size_t)n);
    expect_fp12(vf, &e, v->res[0]);
}

static void msm_line(vfile *vf, const vec *v)
{
    if (!strcmp(v->op, "g1"))
        g1_msm(vf, v);
    else if (!strcmp(v->op, "g2"))
        g2_msm(vf, v);
}

/* ------------------------------------------------------------------ tests */

static void test_fp(void)
{
    static const char *const ops[] = {"add", "sub", "mul", "sqr", "dbl", "neg", "inv",
                                      "legendre", "sqrt", "pow", "from_be", "from_le", "lex",
                                      NULL};
    vr_run_file("fp.txt", ops, fp_line);
}

static void test_fr(void)
{
    static const char *const ops[] = {"add", "sub", "mul", "sqr", "dbl", "neg", "inv",
                                      "legendre", "sqrt", "pow", "from_be", "from_le", NULL};
    vr_run_file("fr.txt", ops, fr_line);
}

static void test_fp2(void)
{
    static const char *const ops[] = {"add", "sub", "mul", "sqr", "neg", "conj", "mul_nr",
                                      "inv", "sqrt", "lex", "pow", NULL};
    vr_run_file("fp2.txt", ops, fp2_line);
}

static void test_fp12(void)
{
    static const char *const ops[] = {"fp6_mul", "fp6_sqr", "fp6_inv", "fp6_mul_nr",
                                      "fp6_frob", "fp12_mul", "fp12_sqr", "fp12_inv",
                                      "fp12_conj", "fp12_frob", "fp12_pow", NULL};
    vr_run_file("fp12.txt", ops, fp12_line);
}

static void test_g1(void)
{
    static const char *const ops[] = {"mul", "add", "bad", NULL};
    vr_run_file("g1.txt", ops, g1_line);
    g1_report_codes("g1.txt");
}

static void test_g2(void)
{
    static const char *const ops[] = {"mul", "add", "bad", NULL};
    vr_run_file("g2.txt", ops, g2_line);
    g2_report_codes("g2.txt");
}

static void test_pairing(void)
{
    static const char *const ops[] = {"pair", "multi", NULL};
    vr_run_file("pairing.txt", ops, pairing_line);
}

static void test_msm(void)
{
    static const char *const ops[] = {"g1", "g2", NULL};
    vr_run_file("msm.txt", ops, msm_line);
}

int main(void)
{
    /* Counts go to stdout, failures to stderr: keep them in order. */
    setvbuf(stdout, NULL, _IONBF, 0);
    RUN(test_fp);
    RUN(test_fr);
    RUN(test_fp2);
    RUN(test_fp12);
    RUN(test_g1);
    RUN(test_g2);
    RUN(test_pairing);
    RUN(test_msm);
    return FINISH();
}
