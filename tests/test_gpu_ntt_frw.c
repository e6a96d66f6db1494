/*
 * The portable Fr product of src/gpu/ntt_frw.h (the device product of the
 * ZP_NTT_FRW NTT variant) on the host against the CPU field, on random
 * operands and on edge values (0, 1, r - 1, r - 2, one, limb boundaries)
 * that drive the carries and the final conditional subtraction. No GPU.
 */
#include <string.h>

#include "check.h"
#include "gpu/ntt_frw.h"
#include "zkpipe.h"

#define N 20000

static void rand_fr(zp_fr *out)
{
    zp_fr plain;
    for (int i = 0; i < 4; i++)
        plain.l[i] = check_rand64();
    plain.l[3] &= 0x3fffffffffffffffULL; /* < 2^254 < r */
    zp_fr_to_mont(out, &plain);
}

/* Montgomery limbs given directly (all < r). */
static void edge_fr(zp_fr *out, int k)
{
    memset(out, 0, sizeof *out);
    switch (k % 9) {
    case 0: break;
    case 1: out->l[0] = 1; break;
    case 2: zp_fr_one(out); break;
    case 3: *out = ZP_FR_MODULUS; out->l[0] -= 1; break;
    case 4: *out = ZP_FR_MODULUS; out->l[0] -= 2; break;
    case 5: out->l[0] = 0xffffffffULL; break;
    case 6: out->l[0] = out->l[1] = out->l[2] = ~0ULL; break;
    case 7: *out = ZP_FR_MODULUS; out->l[3] -= 1; break;
    default: out->l[2] = 1ULL << 32; break;
    }
}

static void operand(zp_fr *out, int i, int salt)
{
    if (i < 81)
        edge_fr(out, salt ? i / 9 : i % 9);
    else
        rand_fr(out);
}

static void test_mul(void)
{
    int bad = 0;
    for (int i = 0; i < N; i++) {
        zp_fr a, b, want, got;
        uint32_t wa[8], wb[8], wr[8];
        operand(&a, i, 0);
        operand(&b, i, 1);
        zp_fr_mul(&want, &a, &b);
        memcpy(wa, a.l, 32);
        memcpy(wb, b.l, 32);
        zp__frw_mul(wr, wa, wb);
        memcpy(got.l, wr, 32);
        bad += !zp_fr_eq(&want, &got);
    }
    CHECK_EQ_INT(bad, 0);
}

int main(void)
{
    RUN(test_mul);
    return FINISH();
}
