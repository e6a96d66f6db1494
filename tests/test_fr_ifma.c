/*
 * The eight-lane IFMA Fr arithmetic (src/math/fr_ifma.c) against the
 * scalar zp_fr_*: lanes set and read back, the contiguous load and store,
 * products against zp_fr_mul with one side in c16 form (and both sides
 * plain: a b / 16), products on a loose left operand (x + r, below 2r, as
 * the NTT passes x - y + r), add and sub; operands random and at the edges
 * (0, 1, one, r - 1, r - 2, the largest values below r, 2^k and 2^k - 1
 * at every 52-bit limb and 64-bit word boundary). Exits 77 (skipped) on a
 * CPU without AVX-512 IFMA.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "math/fp_ifma.h"
#include "math/fr_ifma.h"

#define ROUNDS 4000

/* 2^e, or 2^e - 1 when minus_one, for e < 255 (a plain integer below r). */
static void power_of_two(zp_fr *out, unsigned e, bool minus_one)
{
    memset(out, 0, sizeof *out);
    out->l[e / 64] = (uint64_t)1 << (e % 64);
    if (minus_one) {
        for (unsigned w = 0; w < 4; w++)
            if (out->l[w]--) /* borrow through the zero words below */
                break;
    }
}

/* Operand i: an edge value for i % 24 below 22 (the words themselves: the
 * lanes see words, whatever element they stand for), else random. */
static void operand(zp_fr *out, int i)
{
    static const unsigned edges[] = {52, 64, 104, 128, 156, 192, 208, 254};
    int e = i % 24;
    memset(out, 0, sizeof *out);
    if (e == 0)
        return;
    if (e == 1) {
        out->l[0] = 1;
    } else if (e == 2) {
        zp_fr_one(out);
    } else if (e <= 4) {
        *out = ZP_FR_MODULUS;
        out->l[0] -= (uint64_t)(e - 2); /* r - 1, r - 2 */
    } else if (e == 5) {
        *out = ZP_FR_MODULUS; /* r - 2^192: the top word one lower */
        out->l[3] -= 1;
    } else if (e < 6 + 2 * 8) {
        power_of_two(out, edges[(e - 6) / 2], e % 2);
    } else { /* words below r's top word: any value below r */
        for (int j = 0; j < 4; j++)
            out->l[j] = check_rand64();
        out->l[3] %= ZP_FR_MODULUS.l[3];
    }
}

static void lanes_of(zp__fr52x8 *v, const zp_fr x[8])
{
    for (int k = 0; k < 8; k++)
        zp__fr52x8_set_lane(v, k, &x[k]);
}

static void test_lanes_and_load(void)
{
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        zp_fr in[8], back[8];
        zp__fr52x8 a, b;
        for (int k = 0; k < 8; k++)
            operand(&in[k], 8 * r + k + (r & 7));
        lanes_of(&a, in);
        for (int j = 0; j < 5; j++)
            for (int k = 0; k < 8; k++)
                bad += a.l[j][k] >> 52 != 0;
        zp__fr52x8_load(&b, in);
        bad += memcmp(&a, &b, sizeof a) != 0;
        zp__fr52x8_store(back, &b);
        bad += memcmp(in, back, sizeof in) != 0;
        for (int k = 0; k < 8; k++) {
            zp__fr52x8_get_lane(&back[k], &a, k);
            bad += memcmp(&back[k], &in[k], sizeof in[k]) != 0;
        }
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_mul(void)
{
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        zp_fr a[8], b[8], b16[8], want[8], got[8];
        zp__fr52x8 va, vb, vr;
        for (int k = 0; k < 8; k++) {
            operand(&a[k], 8 * r + k);
            operand(&b[k], 8 * r + 5 * k + 3);
            zp__fr_c16(&b16[k], &b[k]);
            zp_fr_mul(&want[k], &a[k], &b[k]);
        }
        zp__fr52x8_load(&va, a);
        lanes_of(&vb, b16);
        zp__fr52x8_mul(&vr, &va, &vb);
        zp__fr52x8_store(got, &vr);
        bad += memcmp(want, got, sizeof got) != 0;
        /* both plain: a b / 2^260, sixteen times less */
        lanes_of(&vb, b);
        zp__fr52x8_mul(&vr, &va, &vb);
        zp__fr52x8_store(got, &vr);
        for (int k = 0; k < 8; k++) {
            zp__fr_c16(&got[k], &got[k]);
            bad += memcmp(&want[k], &got[k], sizeof got[k]) != 0;
        }
        /* in place, and a loose left side: a + r < 2r, the same product */
        lanes_of(&vb, b16);
        for (int k = 0; k < 8; k++) {
            zp_fr loose = a[k];
            unsigned char c = 0;
            for (int w = 0; w < 4; w++) {
                uint64_t s = loose.l[w] + ZP_FR_MODULUS.l[w] + c;
                c = s < loose.l[w] || (c && s == loose.l[w]);
                loose.l[w] = s;
            }
            zp__fr52x8_set_lane(&va, k, &loose);
        }
        zp__fr52x8_mul(&va, &va, &vb);
        zp__fr52x8_store(got, &va);
        bad += memcmp(want, got, sizeof got) != 0;
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_add_sub(void)
{
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        zp_fr a[8], b[8], sum[8], diff[8], got[8];
        zp__fr52x8 va, vb, vr;
        for (int k = 0; k < 8; k++) {
            operand(&a[k], 8 * r + k + 1);
            operand(&b[k], 8 * r + 7 * k);
            zp_fr_add(&sum[k], &a[k], &b[k]);
            zp_fr_sub(&diff[k], &a[k], &b[k]);
        }
        zp__fr52x8_load(&va, a);
        zp__fr52x8_load(&vb, b);
        zp__fr52x8_add(&vr, &va, &vb);
        zp__fr52x8_store(got, &vr);
        bad += memcmp(sum, got, sizeof got) != 0;
        zp__fr52x8_sub(&vr, &va, &vb);
        zp__fr52x8_store(got, &vr);
        bad += memcmp(diff, got, sizeof got) != 0;
    }
    CHECK_EQ_INT(bad, 0);
}

int main(void)
{
    if (!zp__ifma_available()) {
        printf("no AVX-512 IFMA on this CPU: skipped\n");
        return 77;
    }
    RUN(test_lanes_and_load);
    RUN(test_mul);
    RUN(test_add_sub);
    return FINISH();
}
