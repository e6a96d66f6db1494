/*
 * The portable 32-bit-limb Fp code of src/gpu/field_wide.h (used on the
 * device by the ZP_FP_WIDE / ZP_FP2_LAZY build variants) run on the host
 * against the CPU field: product, squaring, the 24-word product plus
 * reduction, and the Fp2 product with two reductions, on random operands
 * and on the edge values (0, 1, p - 1, limb boundaries, large ones) that
 * drive the carries and the conditional subtractions. No GPU needed.
 */
#include <string.h>

#include "check.h"
#include "gpu/field_wide.h"
#include "zkpipe.h"

#define N 20000

static void rand_fp(zp_fp *out)
{
    zp_fp plain;
    for (int i = 0; i < 6; i++)
        plain.l[i] = check_rand64();
    plain.l[5] &= 0x0fffffffffffffffULL;
    zp_fp_to_mont(out, &plain);
}

/* Montgomery limbs given directly; the large ones stress the carries. */
static void edge_fp(zp_fp *out, int k)
{
    memset(out, 0, sizeof *out);
    switch (k % 10) {
    case 0: break;
    case 1: out->l[0] = 1; break;
    case 2: zp_fp_one(out); break;
    case 3: *out = ZP_FP_MODULUS; out->l[0] -= 1; break;
    case 4: *out = ZP_FP_MODULUS; out->l[0] -= 2; break;
    case 5: out->l[0] = 0xffffffffULL; break;
    case 6: for (int i = 0; i < 5; i++) out->l[i] = ~0ULL; break;
    case 7: *out = ZP_FP_MODULUS; out->l[5] -= 1; break;
    case 8: *out = ZP_FP_MODULUS; out->l[2] = 0; break;
    default: out->l[3] = 1ULL << 32; break;
    }
}

static void operand(zp_fp *out, int i, int salt)
{
    if (i < 100)
        edge_fp(out, (i + salt) % 10 + (salt ? i / 10 : 0));
    else
        rand_fp(out);
}

static void to32(uint32_t *w, const zp_fp *a) { memcpy(w, a->l, 48); }
static void from32(zp_fp *a, const uint32_t *w) { memcpy(a->l, w, 48); }

static void test_mul_sqr(void)
{
    int bad_mul = 0, bad_sqr = 0, bad_redc = 0;
    for (int i = 0; i < N; i++) {
        zp_fp a, b, want, got;
        uint32_t wa[12], wb[12], wr[12], t[24];
        operand(&a, i, 0);
        operand(&b, i, 3);
        to32(wa, &a);
        to32(wb, &b);

        zp_fp_mul(&want, &a, &b);
        zp__fpw_mul(wr, wa, wb);
        from32(&got, wr);
        bad_mul += !zp_fp_eq(&want, &got) || memcmp(&want, &got, sizeof got) != 0;

        zp__fpw_prod(t, wa, wb);
        zp__fpw_redc(wr, t);
        from32(&got, wr);
        bad_redc += memcmp(&want, &got, sizeof got) != 0;

        zp_fp_sqr(&want, &a);
        zp__fpw_sqr(wr, wa);
        from32(&got, wr);
        bad_sqr += memcmp(&want, &got, sizeof got) != 0;
    }
    CHECK_EQ_INT(bad_mul, 0);
    CHECK_EQ_INT(bad_redc, 0);
    CHECK_EQ_INT(bad_sqr, 0);
}

static void test_fp2_mul(void)
{
    int bad = 0;
    for (int i = 0; i < N; i++) {
        zp_fp2 a, b, want, got;
        operand(&a.c0, i, 0);
        operand(&a.c1, i, 1);
        operand(&b.c0, i, 2);
        operand(&b.c1, i, 3);
        if (i % 7 == 0) /* a1 b1 > a0 b0 often: the negative c0 path */
            b.c0 = a.c0;
        uint32_t a0[12], a1[12], b0[12], b1[12], r0[12], r1[12];
        to32(a0, &a.c0);
        to32(a1, &a.c1);
        to32(b0, &b.c0);
        to32(b1, &b.c1);
        zp_fp2_mul(&want, &a, &b);
        zp__fp2w_mul(r0, r1, a0, a1, b0, b1);
        from32(&got.c0, r0);
        from32(&got.c1, r1);
        bad += memcmp(&want, &got, sizeof got) != 0;
    }
    CHECK_EQ_INT(bad, 0);
}

int main(void)
{
    RUN(test_mul_sqr);
    RUN(test_fp2_mul);
    return FINISH();
}
