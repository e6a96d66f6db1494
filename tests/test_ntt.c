/* The CPU NTT against the O(n^2) DFT and other independent checks. */
#include <stdatomic.h>
#include <stdlib.h>

#include "check.h"
#include "cpu/cpu.h"
#include "cpu/msm_ifma.h"
#include "cpu/ntt_ifma.h"
#include "zkpipe.h"

static const zp_roots CONVS[2] = {ZP_ROOTS_SNARKJS, ZP_ROOTS_BELLPERSON};

static void rand_fr(zp_fr *out)
{
    zp_fr plain;
    for (int i = 0; i < 4; i++)
        plain.l[i] = check_rand64();
    plain.l[3] &= 0x3fffffffffffffffULL; /* below r */
    zp_fr_to_mont(out, &plain);
}

static zp_fr *rand_vec(size_t n)
{
    zp_fr *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        rand_fr(&v[i]);
    return v;
}

static zp_fr *copy_vec(const zp_fr *a, size_t n)
{
    zp_fr *v = malloc((n ? n : 1) * sizeof *v);
    memcpy(v, a, n * sizeof *v);
    return v;
}

/* sum_j a[j] x^j by Horner: an evaluation independent of any NTT code. */
static void poly_eval(zp_fr *out, const zp_fr *a, size_t n, const zp_fr *x)
{
    zp_fr acc;
    zp_fr_zero(&acc);
    for (size_t j = n; j-- > 0;) {
        zp_fr_mul(&acc, &acc, x);
        zp_fr_add(&acc, &acc, &a[j]);
    }
    *out = acc;
}

static void pow_u64(zp_fr *out, const zp_fr *b, uint64_t e)
{
    zp_fr_pow(out, b, &e, 1);
}

/* Fast vs the quadratic DFT for every size up to 2^10 in both conventions
 * and directions, then 2^11 (the four-step path) once per convention: the
 * quadratic reference costs seconds beyond. test_large_spot covers more. */
static void test_vs_naive(void)
{
    for (int c = 0; c < 2; c++) {
        for (unsigned k = 0; k <= 11; k++) {
            size_t n = (size_t)1 << k;
            zp_fr *a = rand_vec(n), *want = malloc(n * sizeof *want);
            for (int inv = 0; inv < 2; inv++) {
                if (k > 10 && inv != (int)((k + c) & 1))
                    continue; /* one direction per size and convention */
                zp_fr *got = copy_vec(a, n);
                CHECK_EQ_INT(zp__ntt_ref(want, a, k, inv, CONVS[c]), ZP_OK);
                CHECK_EQ_INT(zp__cpu_ntt(got, k, inv, CONVS[c], 2), ZP_OK);
                CHECK_MEM(got, want, n * sizeof *got);
                free(got);
            }
            free(a);
            free(want);
        }
    }
}

/* The reference itself against Horner evaluation at w^f, so that a wrong
 * root in both would still be caught. */
static void test_ref_is_evaluation(void)
{
    for (int c = 0; c < 2; c++) {
        unsigned k = 5;
        size_t n = (size_t)1 << k;
        zp_fr *a = rand_vec(n), *out = malloc(n * sizeof *out), w, x, y;
        CHECK_EQ_INT(zp__ntt_ref(out, a, k, false, CONVS[c]), ZP_OK);
        zp_fr_root_of_unity(&w, k, CONVS[c]);
        for (size_t f = 0; f < n; f++) {
            pow_u64(&x, &w, f);
            poly_eval(&y, a, n, &x);
            CHECK(zp_fr_eq(&y, &out[f]));
        }
        /* The root is primitive: w^(n/2) = -1. */
        zp_fr one, m1;
        zp_fr_one(&one);
        zp_fr_neg(&m1, &one);
        pow_u64(&x, &w, n / 2);
        CHECK(zp_fr_eq(&x, &m1));
        free(a);
        free(out);
    }
}

/* Large sizes: spot-check outputs against Horner at chosen frequencies. */
static void test_large_spot(void)
{
    unsigned ks[] = {12, 13, 16, 17};
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        unsigned k = ks[t];
        zp_roots conv = CONVS[t % 2];
        size_t n = (size_t)1 << k;
        zp_fr *a = rand_vec(n), *got = copy_vec(a, n), w, x, y;
        CHECK_EQ_INT(zp__cpu_ntt(got, k, false, conv, 2), ZP_OK);
        zp_fr_root_of_unity(&w, k, conv);
        size_t fs[8] = {0, 1, 2, n / 2, n - 1, 0, 0, 0};
        for (int i = 5; i < 8; i++)
            fs[i] = check_rand64() % n;
        for (int i = 0; i < 8; i++) {
            pow_u64(&x, &w, fs[i]);
            poly_eval(&y, a, n, &x);
            CHECK(zp_fr_eq(&y, &got[fs[i]]));
        }
        free(a);
        free(got);
    }
}

static void test_round_trip(void)
{
    for (unsigned k = 0; k <= 18; k++) {
        if (k == 17)
            continue; /* 2^18 once covers the top; keep the runtime small */
        size_t n = (size_t)1 << k;
        zp_roots conv = CONVS[k % 2];
        zp_fr *a = rand_vec(n), *b = copy_vec(a, n);
        CHECK_EQ_INT(zp__cpu_ntt(b, k, false, conv, 2), ZP_OK);
        if (k >= 2)
            CHECK(memcmp(a, b, n * sizeof *a) != 0);
        CHECK_EQ_INT(zp__cpu_ntt(b, k, true, conv, 2), ZP_OK);
        CHECK_MEM(a, b, n * sizeof *a);
        free(a);
        free(b);
    }
}

/* Coset forward = evaluation at g w^f; coset inverse undoes it. */
static void test_coset(void)
{
    unsigned ks[] = {0, 3, 9, 12, 15};
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        unsigned k = ks[t];
        zp_roots conv = CONVS[t % 2];
        size_t n = (size_t)1 << k;
        zp_fr g, w, x, y, wf;
        zp_fr_from_u64(&g, 7);
        zp_fr_root_of_unity(&w, k, conv);
        zp_fr *a = rand_vec(n), *b = copy_vec(a, n);
        CHECK_EQ_INT(zp__cpu_coset_ntt(b, k, false, &g, conv, 2), ZP_OK);
        for (int i = 0; i < 4; i++) {
            size_t f = i == 0 ? n - 1 : check_rand64() % n;
            pow_u64(&wf, &w, f);
            zp_fr_mul(&x, &g, &wf);
            poly_eval(&y, a, n, &x);
            CHECK(zp_fr_eq(&y, &b[f]));
        }
        CHECK_EQ_INT(zp__cpu_coset_ntt(b, k, true, &g, conv, 2), ZP_OK);
        CHECK_MEM(a, b, n * sizeof *a);
        free(a);
        free(b);
    }
}

/* zp__cpu_ntt_to_coset (n^-1 folded into the coset scaling) equals the
 * iNTT followed by the coset NTT. */
static void test_ntt_to_coset(void)
{
    unsigned ks[] = {0, 1, 3, 9, 11, 12, 15};
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        unsigned k = ks[t];
        zp_roots conv = CONVS[t % 2];
        size_t n = (size_t)1 << k;
        zp_fr g, *a = rand_vec(n), *b = copy_vec(a, n);
        rand_fr(&g);
        CHECK_EQ_INT(zp__cpu_ntt(a, k, true, conv, 2), ZP_OK);
        CHECK_EQ_INT(zp__cpu_coset_ntt(a, k, false, &g, conv, 2), ZP_OK);
        CHECK_EQ_INT(zp__cpu_ntt_to_coset(b, k, &g, conv, 2), ZP_OK);
        CHECK_MEM(a, b, n * sizeof *a);
        free(a);
        free(b);
    }
}

static void test_scale_by_powers(void)
{
    size_t n = 40000; /* several chunks, not a power of two */
    zp_fr g, cur, *a = rand_vec(n), *b = copy_vec(a, n);
    rand_fr(&g);
    zp__cpu_scale_by_powers(b, n, &g, 3);
    zp_fr_one(&cur);
    for (size_t i = 0; i < n; i++) {
        zp_fr want;
        zp_fr_mul(&want, &a[i], &cur);
        CHECK(zp_fr_eq(&want, &b[i]));
        zp_fr_mul(&cur, &cur, &g);
    }
    free(a);
    free(b);
}

static void test_threads_agree(void)
{
    unsigned ks[] = {11, 14, 15};
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        size_t n = (size_t)1 << ks[t];
        zp_fr *a = rand_vec(n), *b = copy_vec(a, n), *c = copy_vec(a, n);
        CHECK_EQ_INT(zp__cpu_ntt(a, ks[t], t == 1, ZP_ROOTS_BELLPERSON, 1), ZP_OK);
        CHECK_EQ_INT(zp__cpu_ntt(b, ks[t], t == 1, ZP_ROOTS_BELLPERSON, 2), ZP_OK);
        CHECK_EQ_INT(zp__cpu_ntt(c, ks[t], t == 1, ZP_ROOTS_BELLPERSON, 5), ZP_OK);
        CHECK_MEM(a, b, n * sizeof *a);
        CHECK_MEM(a, c, n * sizeof *a);
        free(a);
        free(b);
        free(c);
    }
}

/* zero -> zero; delta -> all ones; all ones -> n * delta; delta at 1 ->
 * the powers of w. */
static void test_edges(void)
{
    unsigned ks[] = {0, 1, 4, 11, 14};
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        unsigned k = ks[t];
        zp_roots conv = CONVS[t % 2];
        size_t n = (size_t)1 << k;
        zp_fr *a = calloc(n, sizeof *a), one, zero, nn, w, x;
        zp_fr_one(&one);
        zp_fr_zero(&zero);
        zp_fr_from_u64(&nn, n);
        zp_fr_root_of_unity(&w, k, conv);

        CHECK_EQ_INT(zp__cpu_ntt(a, k, false, conv, 2), ZP_OK);
        for (size_t i = 0; i < n; i++)
            CHECK(zp_fr_is_zero(&a[i]));

        a[0] = one;
        CHECK_EQ_INT(zp__cpu_ntt(a, k, false, conv, 2), ZP_OK);
        for (size_t i = 0; i < n; i++)
            CHECK(zp_fr_is_one(&a[i]));

        CHECK_EQ_INT(zp__cpu_ntt(a, k, false, conv, 2), ZP_OK);
        CHECK(zp_fr_eq(&a[0], &nn));
        for (size_t i = 1; i < n; i++)
            CHECK(zp_fr_is_zero(&a[i]));

        if (n > 1) {
            memset(a, 0, n * sizeof *a);
            a[1] = one;
            CHECK_EQ_INT(zp__cpu_ntt(a, k, false, conv, 2), ZP_OK);
            zp_fr_one(&x);
            for (size_t i = 0; i < n; i++) {
                CHECK(zp_fr_eq(&a[i], &x));
                zp_fr_mul(&x, &x, &w);
            }
            /* ... and the inverse takes the powers back to the delta. */
            CHECK_EQ_INT(zp__cpu_ntt(a, k, true, conv, 2), ZP_OK);
            CHECK(zp_fr_is_one(&a[1]) && zp_fr_is_zero(&a[0]));
        }
        free(a);
    }
}

/* The eight-lane kernels (zp__ntt_ifma) against the scalar twin, bit for
 * bit: every size 2^0 .. 2^12 (direct and four-step), then 2^14, 2^15 and
 * 2^17 (odd and even splits), forward, inverse, coset both ways, the
 * powers scaling (n not a multiple of 8 too) and the shift to a coset,
 * both conventions. */
static void test_ifma_vs_scalar(void)
{
    bool saved = zp__ntt_ifma;
    unsigned ks[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 17};
    zp_fr g, gs[2]; /* gs: the scaling's base, one per root convention */
    zp_fr_from_u64(&g, 7);
    zp_fr_from_u64(&gs[0], 5);
    zp_fr_from_u64(&gs[1], 11);
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        unsigned k = ks[t];
        size_t n = (size_t)1 << k;
        zp_fr *a = rand_vec(n);
        for (int c = 0; c < 2; c++)
            for (int mode = 0; mode < 6; mode++) {
                zp_fr *x[2] = {copy_vec(a, n), copy_vec(a, n)};
                for (int lanes = 0; lanes < 2; lanes++) {
                    zp__ntt_ifma = lanes && saved;
                    if (mode < 2)
                        CHECK_EQ_INT(zp__cpu_ntt(x[lanes], k, mode, CONVS[c], 2), ZP_OK);
                    else if (mode < 4)
                        CHECK_EQ_INT(zp__cpu_coset_ntt(x[lanes], k, mode == 3, &g, CONVS[c], 2),
                                     ZP_OK);
                    else if (mode == 4) /* n - 3: a tail of five past the last vector */
                        zp__cpu_scale_by_powers(x[lanes], n > 3 ? n - 3 : n, &gs[c], 2);
                    else
                        CHECK_EQ_INT(zp__cpu_ntt_to_coset(x[lanes], k, &g, CONVS[c], 2), ZP_OK);
                }
                CHECK_MEM(x[0], x[1], n * sizeof *a);
                free(x[0]);
                free(x[1]);
            }
        free(a);
    }
    zp__ntt_ifma = saved;
}

/* The h stage's pointwise steps on the lanes against zp_fr_mul / _sub:
 * lengths with and without a tail, with and without the product, the
 * difference and the factor, in place over a. */
static void test_ifma_mul_sub(void)
{
    for (size_t n = 0; n < 70; n += 1 + n / 8) {
        zp_fr *a = rand_vec(n), *b = rand_vec(n), *c = rand_vec(n), s;
        zp_fr *want = malloc((n + 1) * sizeof *want), *h = malloc((n + 1) * sizeof *h);
        rand_fr(&s);
        for (int mode = 0; mode < 8; mode++) {
            bool scaled = mode & 1, prod = !(mode & 2), diff = !(mode & 4);
            for (size_t i = 0; i < n; i++) {
                want[i] = a[i];
                if (prod)
                    zp_fr_mul(&want[i], &want[i], &b[i]);
                if (diff)
                    zp_fr_sub(&want[i], &want[i], &c[i]);
                if (scaled)
                    zp_fr_mul(&want[i], &want[i], &s);
            }
            zp__ntt8_mul_sub(h, a, prod ? b : NULL, diff ? c : NULL, n, scaled ? &s : NULL);
            CHECK_MEM(h, want, n * sizeof *h);
        }
        for (size_t i = 0; i < n; i++) { /* the full step, scaled */
            zp_fr_mul(&want[i], &a[i], &b[i]);
            zp_fr_sub(&want[i], &want[i], &c[i]);
            zp_fr_mul(&want[i], &want[i], &s);
        }
        zp__ntt8_mul_sub(a, a, b, c, n, &s); /* in place */
        CHECK_MEM(a, want, n * sizeof *a);
        free(a), free(b), free(c), free(want), free(h);
    }
}

/* zp__parallel_for: every index exactly once, chunks at most grain long. */
typedef struct pf_check {
    atomic_int *hits;
    size_t grain;
    atomic_int too_long;
} pf_check;

static void pf_mark(void *ctx, size_t begin, size_t end)
{
    pf_check *c = ctx;
    if (end <= begin || end - begin > c->grain)
        atomic_fetch_add(&c->too_long, 1);
    for (size_t i = begin; i < end; i++)
        atomic_fetch_add(&c->hits[i], 1);
}

static void test_parallel_for(void)
{
    size_t ns[] = {0, 1, 7, 1000, 4097};
    size_t grains[] = {0, 1, 3, 64, 5000};
    int threads[] = {1, 2, 3, 0};
    for (size_t a = 0; a < 5; a++)
        for (size_t b = 0; b < 5; b++)
            for (size_t t = 0; t < 4; t++) {
                size_t n = ns[a];
                pf_check c = {calloc(n + 1, sizeof(atomic_int)), grains[b] ? grains[b] : 1, 0};
                zp__parallel_for(n, grains[b], pf_mark, &c, threads[t]);
                int bad = 0;
                for (size_t i = 0; i < n; i++)
                    bad += atomic_load(&c.hits[i]) != 1;
                CHECK_EQ_INT(bad, 0);
                CHECK_EQ_INT(atomic_load(&c.too_long), 0);
                free(c.hits);
            }
    CHECK(zp__cpu_threads(0) >= 1);
    CHECK_EQ_INT(zp__cpu_threads(3), 3);
}

static void test_bad_args(void)
{
    zp_fr a;
    zp_fr_zero(&a);
    CHECK_EQ_INT(zp__cpu_ntt(&a, 33, false, ZP_ROOTS_SNARKJS, 1), ZP_E_INVALID_ARG);
    zp_fr g;
    zp_fr_one(&g);
    CHECK_EQ_INT(zp__cpu_coset_ntt(&a, 40, true, &g, ZP_ROOTS_SNARKJS, 1), ZP_E_INVALID_ARG);
}

/* zp_cpu_set_ifma: on from load time where the CPU has IFMA, off and on
 * again for both the NTT's and the MSMs' kernels, never on without IFMA. */
static void test_ifma_switch(void)
{
    const bool have = zp__ifma_available();
    CHECK_EQ_INT(zp__ntt_ifma, have);
    CHECK_EQ_INT(zp__msm_ifma, have);
    CHECK(!zp_cpu_set_ifma(false));
    CHECK(!zp__ntt_ifma && !zp__msm_ifma);
    CHECK_EQ_INT(zp_cpu_set_ifma(true), have);
    CHECK_EQ_INT(zp__ntt_ifma, have);
    CHECK_EQ_INT(zp__msm_ifma, have);
}

int main(void)
{
    RUN(test_parallel_for);
    RUN(test_ref_is_evaluation);
    RUN(test_vs_naive);
    RUN(test_large_spot);
    RUN(test_round_trip);
    RUN(test_coset);
    RUN(test_ntt_to_coset);
    RUN(test_scale_by_powers);
    RUN(test_threads_agree);
    RUN(test_edges);
    RUN(test_bad_args);
    RUN(test_ifma_switch);
    if (zp__ntt_ifma) {
        RUN(test_ifma_vs_scalar);
        RUN(test_ifma_mul_sub);
    } else {
        printf("skip test_ifma_vs_scalar, test_ifma_mul_sub (no AVX-512 IFMA; not counted)\n");
    }
    return FINISH();
}
