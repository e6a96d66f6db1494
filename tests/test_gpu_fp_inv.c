/*
 * The device Fp inverse of src/gpu/fp_inv.h (divsteps over 30-bit limbs),
 * compiled for the host, against the CPU field's inverse: on random values
 * below p and on edge values (0, 1, 2, R mod p, p - 1, p - 2, (p +- 1)/2,
 * every power of two below p, 2^k - 1, p - 2^k, small values). Also checks
 * that no input needs more than the 30 batches the loop allows, and the
 * packed batch of 30 divsteps against one divstep at a time. No GPU.
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

/*
 * The reference twin of zp__fpi_divsteps: n half-delta divsteps one at a
 * time on plain integers, delta kept doubled (d2 = 2 delta, odd), the
 * matrix (times 2^n) in 64-bit entries.
 */
static void ref_divsteps(int64_t *d2, int64_t f, int64_t g, int n, int64_t m[4])
{
    int64_t u = 1, v = 0, q = 0, r = 1;
    for (int i = 0; i < n; i++) {
        if (*d2 > 0 && (g & 1)) {
            int64_t nf = g, nu = 2 * q, nv = 2 * r;
            *d2 = 2 - *d2;
            g = (g - f) / 2, q -= u, r -= v;
            f = nf, u = nu, v = nv;
        } else if (g & 1) {
            *d2 = 2 + *d2;
            g = (g + f) / 2, q += u, r += v;
            u *= 2, v *= 2;
        } else {
            *d2 = 2 + *d2;
            g /= 2;
            u *= 2, v *= 2;
        }
    }
    m[0] = u, m[1] = v, m[2] = q, m[3] = r;
}

/* One batch against the twin; f odd, both below 2^30, delta = d2 / 2. */
static int check_batch(int64_t d2, uint32_t f, uint32_t g)
{
    int64_t m[4], want_d2 = d2;
    ref_divsteps(&want_d2, f, g, 30, m);
    zp__fpi_mat t;
    uint32_t eta = (uint32_t)(int32_t)((-d2 - 1) / 2); /* -delta - 1/2 */
    eta = zp__fpi_divsteps(eta, f, g, &t);
    int64_t got_d2 = -2 * (int64_t)(int32_t)eta - 1;
    return got_d2 != want_d2 || t.u != m[0] || t.v != m[1] || t.q != m[2] || t.r != m[3];
}

static void test_divsteps(void)
{
    int bad = 0;
    const uint32_t mask = (1u << 30) - 1;
    for (int i = 0; i < 200000; i++) {
        uint64_t x = check_rand64();
        uint32_t f = ((uint32_t)x & mask) | 1, g = (uint32_t)(x >> 32) & mask;
        int64_t d2 = (int64_t)(check_rand64() % 4001) - 2000;
        bad += check_batch(d2 | 1, f, g);
    }
    /* g = 0 (every step halves), g = f, g = -f's low bits, f = 1, single
     * bits, and delta at both signs' extremes that a run can reach */
    const uint32_t fs[] = {1, 3, mask, 0x2aaaaaab, 0x15555555};
    const int64_t ds[] = {1, -1, 3, -3, 61, -61, 1757, -1757};
    for (size_t a = 0; a < sizeof fs / sizeof *fs; a++)
        for (size_t b = 0; b < sizeof ds / sizeof *ds; b++) {
            uint32_t f = fs[a];
            bad += check_batch(ds[b], f, 0);
            bad += check_batch(ds[b], f, f);
            bad += check_batch(ds[b], f, (0u - f) & mask);
            for (int k = 0; k < 30; k++)
                bad += check_batch(ds[b], f, 1u << k);
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
    RUN(test_divsteps);
    return FINISH();
}
