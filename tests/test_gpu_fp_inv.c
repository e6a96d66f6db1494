/*
 * The device Fp inverse of src/gpu/fp_inv.h (divsteps over 30-bit limbs),
 * compiled for the host, against the CPU field's inverse: on random values
 * below p and on edge values (0, 1, 2, R mod p, p - 1, p - 2, (p +- 1)/2,
 * every power of two below p, 2^k - 1, p - 2^k, small values). Also checks
 * that no input needs more than the 37 batches the loop allows. No GPU.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "gpu/fp_inv.h"
#include "zkpipe.h"

#define N_RANDOM 20000

static int max_batches, total_batches, runs;

static bool below_p(const zp_fp *a)
{
    for (int i = 5; i >= 0; i--)
        if (a->l[i] != ZP_FP_MODULUS.l[i])
            return a->l[i] < ZP_FP_MODULUS.l[i];
    return false;
}

static void rand_below_p(zp_fp *out)
{
    do {
        for (int i = 0; i < 6; i++)
            out->l[i] = check_rand64();
        out->l[5] &= 0x1fffffffffffffffULL; /* < 2^381 */
    } while (!below_p(out));
}

/* out = a - b over 384 bits (a >= b). */
static void sub_limbs(zp_fp *out, const zp_fp *a, const zp_fp *b)
{
    uint64_t borrow = 0;
    for (int i = 0; i < 6; i++) {
        uint64_t x = a->l[i], d = x - b->l[i] - borrow;
        borrow = x < b->l[i] || (x == b->l[i] && borrow);
        out->l[i] = d;
    }
}

/* The device inverse of a (< p) equals the host's; counts the batches. */
static int check_one(const zp_fp *a)
{
    zp_fp want, got;
    uint32_t wa[12], wr[12];
    zp_fp_inv(&want, a);
    memcpy(wa, a->l, sizeof wa);
    int b = zp__fpi_inv(wr, wa);
    memcpy(got.l, wr, sizeof wr);
    max_batches = b > max_batches ? b : max_batches;
    total_batches += b;
    runs++;
    return !zp_fp_eq(&want, &got);
}

static void test_random(void)
{
    int bad = 0;
    for (int i = 0; i < N_RANDOM; i++) {
        zp_fp a;
        rand_below_p(&a);
        bad += check_one(&a);
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_edges(void)
{
    int bad = 0;
    zp_fp a, one_plain, p = ZP_FP_MODULUS;
    memset(&one_plain, 0, sizeof one_plain);
    one_plain.l[0] = 1;
    memset(&a, 0, sizeof a);
    bad += check_one(&a); /* 0 -> 0 */
    for (uint64_t v = 1; v <= 100; v++) {
        memset(&a, 0, sizeof a);
        a.l[0] = v;
        bad += check_one(&a);
    }
    zp_fp_one(&a); /* R mod p */
    bad += check_one(&a);
    for (uint64_t k = 1; k <= 2; k++) { /* p - 1, p - 2 */
        zp_fp s = {{k}};
        sub_limbs(&a, &p, &s);
        bad += check_one(&a);
    }
    /* (p - 1)/2 and (p + 1)/2 */
    sub_limbs(&a, &p, &one_plain);
    for (int i = 0; i < 6; i++)
        a.l[i] = (a.l[i] >> 1) | (i < 5 ? a.l[i + 1] << 63 : 0);
    bad += check_one(&a);
    a.l[0] += 1;
    bad += check_one(&a);
    /* 2^k, 2^k - 1 and p - 2^k for every k with 2^k < p */
    for (int k = 0; k <= 380; k++) {
        zp_fp pk;
        memset(&pk, 0, sizeof pk);
        pk.l[k / 64] = 1ULL << (k % 64);
        bad += check_one(&pk);
        sub_limbs(&a, &pk, &one_plain);
        bad += check_one(&a);
        sub_limbs(&a, &p, &pk);
        bad += check_one(&a);
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_batch_bound(void)
{
    printf("  batches: max %d, mean %.2f over %d inversions\n", max_batches,
           runs ? (double)total_batches / runs : 0.0, runs);
    CHECK(runs > N_RANDOM);
    CHECK(max_batches <= ZP__FPI_BATCHES);
    /* random inputs need most of the bound: far fewer means the loop is
     * not doing divsteps at all */
    CHECK(max_batches >= 20);
}

int main(void)
{
    RUN(test_random);
    RUN(test_edges);
    RUN(test_batch_bound);
    return FINISH();
}
