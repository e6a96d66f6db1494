/*
 * The NTT kernels of ntt_ifma.h. Data stays in the library's form (four
 * words an element, fully reduced); each kernel loads eight consecutive
 * elements into the lanes (fr_loadu), works on registers and stores
 * canonical values back. Every constant multiplier (twiddles, n^-1, coset
 * powers) is in c16 form, so one R' = 2^260 product is the library
 * product (fr_ifma.h).
 *
 * A DIF of length 2^m runs its stages with h >= 8 as eight butterflies on
 * the contiguous j of x[j], y[j] = x[j + h]: x + y, and (x - y + r) w^j,
 * where x - y + r < 2r is a valid multiplicand against a canonical
 * twiddle. The last three stages (h = 4, 2, 1) pair lanes inside one
 * vector: lane k and k ^ h swap by a permute; the lane without bit h keeps
 * the sum, the one with it the difference, and the whole vector is
 * multiplied by a twiddle vector that holds 1 on the sum lanes (h = 1
 * multiplies by w^0 = 1 only, so it has no product). From 2^6 on, they
 * run on blocks of 64 instead, gathered with a stride of eight (lane k of
 * vector v is element 8k + v): then the stages pair whole vectors v and v
 * + h, twiddled by one broadcast w_8^j, which saves the permutes and the
 * products by 1 (five products a block instead of sixteen).
 *
 * Table (zp__ntt8_table): the stages with h >= 8, then T4, T2 (the in-vector
 * twiddles) and w_8^1, w_8^2, w_8^3 broadcast.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/ntt_ifma.h"
#include "math/fp_ifma.h"

/* Lane k of v = x in c16 form. */
static void set_c16(zp__fr52x8 *v, int k, const zp_fr *x)
{
    zp_fr y;
    zp__fr_c16(&y, x);
    zp__fr52x8_set_lane(v, k, &y);
}

size_t zp__ntt8_table_len(unsigned m)
{
    return ((size_t)1 << (m - 3)) + 4; /* n/8 - 1 for h >= 8, five for the last */
}

/* Stage h uses w^(j n / 2h) for j < h (tw[] is indexed with that step). */
void zp__ntt8_table(zp__fr52x8 *t, unsigned m, const zp_fr *tw)
{
    size_t n = (size_t)1 << m;
    for (size_t h = n / 2; h >= 8; h >>= 1) {
        size_t step = n / (2 * h);
        for (size_t j = 0; j < h; j++)
            set_c16(&t[j / 8], (int)(j % 8), &tw[j * step]);
        t += h / 8;
    }
    zp_fr one;
    zp_fr_one(&one);
    for (int k = 0; k < 8; k++) {
        set_c16(&t[0], k, k < 4 ? &one : &tw[(size_t)(k - 4) * (n / 8)]);
        set_c16(&t[1], k, !(k & 2) ? &one : &tw[(size_t)(k & 1) * (n / 4)]);
        for (size_t j = 1; j < 4; j++)
            set_c16(&t[1 + j], k, &tw[j * (n / 8)]);
    }
}

#ifdef ZP_FR_IFMA_VEC

#include "math/fr_ifma_vec.h"

FR_TGT static void butterflies8(zp_fr *x, zp_fr *y, const zp__fr52x8 *tw)
{
    __m512i X[5], Y[5], T[5];
    fr_loadu(X, x);
    fr_loadu(Y, y);
    fr_ld(T, tw);
    __m512i S[5], D[5];
    fr_add(S, X, Y);
    fr_sub_lazy(D, X, Y);
    fr_mul(D, D, T);
    fr_storeu(x, S);
    fr_storeu(y, D);
}

/* Two stages at once (h = 2q, then q) on x[0], x[q], x[2q], x[3q], eight
 * of each: half the loads and stores of two single stages. tq and t3q are
 * stage h's twiddles at j and j + q, tn stage q's at j. */
FR_TGT static void butterflies8x4(zp_fr *x, size_t q, const zp__fr52x8 *tq,
                                  const zp__fr52x8 *t3q, const zp__fr52x8 *tn)
{
    __m512i X[4][5], T[5], S[5], D[5];
    for (int i = 0; i < 4; i++)
        fr_loadu(X[i], x + i * q);
    for (int i = 0; i < 2; i++) { /* (0, 2) and (1, 3) */
        fr_ld(T, i ? t3q : tq);
        fr_add(S, X[i], X[i + 2]);
        fr_sub_lazy(D, X[i], X[i + 2]);
        fr_mul(X[i + 2], D, T);
        memcpy(X[i], S, sizeof S);
    }
    fr_ld(T, tn);
    for (int i = 0; i < 4; i += 2) { /* (0, 1) and (2, 3) */
        fr_add(S, X[i], X[i + 1]);
        fr_sub_lazy(D, X[i], X[i + 1]);
        fr_mul(X[i + 1], D, T);
        memcpy(X[i], S, sizeof S);
    }
    for (int i = 0; i < 4; i++)
        fr_storeu(x + i * q, X[i]);
}

/* One stage inside the vector: lanes k and k ^ h (idx), upper = the lanes
 * with bit h. The upper lanes get partner - self, lazy (below 2r) when a
 * product follows, canonical when not. */
FR_TGT static void lane_stage(__m512i v[5], __m512i idx, __mmask8 upper, bool lazy)
{
    __m512i P[5], S[5], D[5];
    for (int j = 0; j < 5; j++)
        P[j] = _mm512_permutexvar_epi64(idx, v[j]);
    fr_add(S, v, P);
    if (lazy)
        fr_sub_lazy(D, P, v);
    else
        fr_sub(D, P, v);
    for (int j = 0; j < 5; j++)
        v[j] = _mm512_mask_blend_epi64(upper, S[j], D[j]);
}

FR_TGT static void last_stages8(zp_fr *x, const __m512i T4[5], const __m512i T2[5])
{
    __m512i V[5];
    fr_loadu(V, x);
    lane_stage(V, _mm512_setr_epi64(4, 5, 6, 7, 0, 1, 2, 3), 0xf0, true);
    fr_mul(V, V, T4);
    lane_stage(V, _mm512_setr_epi64(2, 3, 0, 1, 6, 7, 4, 5), 0xcc, true);
    fr_mul(V, V, T2);
    lane_stage(V, _mm512_setr_epi64(1, 0, 3, 2, 5, 4, 7, 6), 0xaa, false);
    fr_storeu(x, V);
}

/* Stage h pairs positions v and v + h (v without bit h) with twiddle
 * w_(2h)^(v mod h) = w_8^(4 (v mod h) / h); w8[j - 1] = w_8^j. */
FR_TGT static void last_stages64(zp_fr *x, const zp__fr52x8 w8[3])
{
    __m512i V[8][5];
    for (int v = 0; v < 8; v++)
        fr_gather8(V[v], x + v);
    for (int h = 4; h >= 1; h >>= 1)
        for (int v = 0; v < 8; v++) {
            if (v & h)
                continue;
            int j = (v & (h - 1)) * (4 / h);
            __m512i S[5], D[5];
            fr_add(S, V[v], V[v + h]);
            if (j == 0) {
                fr_sub(D, V[v], V[v + h]);
            } else {
                __m512i W[5];
                fr_ld(W, &w8[j - 1]);
                fr_sub_lazy(D, V[v], V[v + h]);
                fr_mul(D, D, W);
            }
            memcpy(V[v], S, sizeof S);
            memcpy(V[v + h], D, sizeof D);
        }
    for (int v = 0; v < 8; v++)
        fr_scatter8(x + v, V[v]);
}

FR_TGT void zp__ntt8_dif(zp_fr *a, unsigned m, const zp__fr52x8 *t)
{
    size_t n = (size_t)1 << m, h = n / 2;
    for (; h >= 16; h /= 4) { /* stages h and h / 2 */
        const zp__fr52x8 *t2 = t + h / 8;
        for (size_t s = 0; s < n; s += 2 * h)
            for (size_t j = 0; j < h / 2; j += 8)
                butterflies8x4(a + s + j, h / 2, &t[j / 8], &t[(j + h / 2) / 8], &t2[j / 8]);
        t = t2 + h / 16;
    }
    if (h == 8) {
        for (size_t s = 0; s < n; s += 16)
            butterflies8(a + s, a + s + 8, &t[0]);
        t += 1;
    }
    if (n >= 64) {
        for (size_t i = 0; i < n; i += 64)
            last_stages64(a + i, &t[2]);
        return;
    }
    __m512i T4[5], T2[5];
    fr_ld(T4, &t[0]);
    fr_ld(T2, &t[1]);
    for (size_t i = 0; i < n; i += 8)
        last_stages8(a + i, T4, T2);
}

/* The lanes hold c g^k (c16 form); each vector moves them on by g^8. */
FR_TGT void zp__ntt8_scale(zp_fr *a, size_t n, const zp_fr *c, const zp_fr *g)
{
    zp__fr52x8 cur, step;
    zp_fr x = *c, g8;
    for (int k = 0; k < 8; k++) {
        set_c16(&cur, k, &x);
        if (g)
            zp_fr_mul(&x, &x, g);
    }
    if (g) {
        zp_fr_sqr(&g8, g);
        zp_fr_sqr(&g8, &g8);
        zp_fr_sqr(&g8, &g8);
        for (int k = 0; k < 8; k++)
            set_c16(&step, k, &g8);
    }
    size_t n8 = n & ~(size_t)7;
    __m512i C[5], G[5], X[5];
    fr_ld(C, &cur);
    if (g)
        fr_ld(G, &step);
    for (size_t i = 0; i < n8; i += 8) {
        fr_loadu(X, a + i);
        fr_mul(X, X, C);
        fr_storeu(a + i, X);
        if (g)
            fr_mul(C, C, G);
    }
    /* The last n mod 8 by scalar products from c g^n8. */
    x = *c;
    if (g && n8 < n) {
        uint64_t e = n8;
        zp_fr_pow(&g8, g, &e, 1);
        zp_fr_mul(&x, &x, &g8);
    }
    for (size_t i = n8; i < n; i++) {
        zp_fr_mul(&a[i], &a[i], &x);
        if (g)
            zp_fr_mul(&x, &x, g);
    }
}

/* rev_m(i) for i < 8 is rev_3(i) 2^(m-3); then f doubles: rev_m(i + 2^t)
 * = rev_m(i) + 2^(m-1-t) for i < 2^t, so f[i + 2^t] = f[i] base^(2^(m-1-t)). */
FR_TGT void zp__ntt8_bitrev_powers(zp__fr52x8 *f, unsigned m, const zp_fr *base)
{
    static const int rev3[8] = {0, 4, 2, 6, 1, 5, 3, 7};
    zp_fr sq[ZP_NTT_MAX_LOG2], pw[8]; /* sq[s] = base^(2^s) */
    sq[0] = *base;
    for (unsigned s = 1; s < m; s++)
        zp_fr_sqr(&sq[s], &sq[s - 1]);
    zp_fr_one(&pw[0]);
    for (int e = 1; e < 8; e++)
        zp_fr_mul(&pw[e], &pw[e - 1], &sq[m - 3]);
    for (int k = 0; k < 8; k++)
        set_c16(&f[0], k, &pw[rev3[k]]);
    for (unsigned t = 3; t < m; t++) {
        zp__fr52x8 mv;
        set_c16(&mv, 0, &sq[m - 1 - t]);
        __m512i M[5], F[5];
        fr_bcast_lane(M, &mv, 0);
        size_t half = (size_t)1 << (t - 3);
        for (size_t u = 0; u < half; u++) {
            fr_ld(F, &f[u]);
            fr_mul(F, F, M);
            fr_st(&f[half + u], F);
        }
    }
}

FR_TGT void zp__ntt8_twist(zp_fr *a, unsigned m, zp__fr52x8 *f, const zp__fr52x8 *step)
{
    size_t nv = (size_t)1 << (m - 3);
    for (size_t v = 0; v < nv; v++) {
        __m512i X[5], F[5], S[5];
        fr_loadu(X, a + 8 * v);
        fr_ld(F, &f[v]);
        fr_mul(X, X, F);
        fr_storeu(a + 8 * v, X);
        fr_ld(S, &step[v]);
        fr_mul(F, F, S);
        fr_st(&f[v], F);
    }
}

/* The lane product of two library elements is a b / 16 (both plain), so
 * the c16 form of 16 puts the factor back. */
FR_TGT void zp__ntt8_mul_sub(zp_fr *h, const zp_fr *a, const zp_fr *b, const zp_fr *c, size_t n,
                             const zp_fr *s)
{
    zp__fr52x8 k16, s16;
    zp_fr sixteen;
    zp_fr_from_u64(&sixteen, 16);
    for (int k = 0; k < 8; k++) {
        set_c16(&k16, k, &sixteen);
        if (s)
            set_c16(&s16, k, s);
    }
    __m512i K[5], S[5], A[5], B[5], C[5];
    fr_ld(K, &k16);
    if (s)
        fr_ld(S, &s16);
    size_t n8 = n & ~(size_t)7;
    for (size_t i = 0; i < n8; i += 8) {
        fr_loadu(A, a + i);
        if (b) {
            fr_loadu(B, b + i);
            fr_mul(A, A, B);
            fr_mul(A, A, K);
        }
        if (c) {
            fr_loadu(C, c + i);
            fr_sub(A, A, C);
        }
        if (s)
            fr_mul(A, A, S);
        fr_storeu(h + i, A);
    }
    for (size_t i = n8; i < n; i++) {
        zp_fr t = a[i];
        if (b)
            zp_fr_mul(&t, &t, &b[i]);
        if (c)
            zp_fr_sub(&t, &t, &c[i]);
        if (s)
            zp_fr_mul(&t, &t, s);
        h[i] = t;
    }
}

#else

/* Never called: zp__ntt_ifma is false. */
void zp__ntt8_mul_sub(zp_fr *h, const zp_fr *a, const zp_fr *b, const zp_fr *c, size_t n,
                      const zp_fr *s)
{
    (void)h, (void)a, (void)b, (void)c, (void)n, (void)s;
}
void zp__ntt8_dif(zp_fr *a, unsigned m, const zp__fr52x8 *t) { (void)a, (void)m, (void)t; }
void zp__ntt8_scale(zp_fr *a, size_t n, const zp_fr *c, const zp_fr *g)
{
    (void)a, (void)n, (void)c, (void)g;
}
void zp__ntt8_bitrev_powers(zp__fr52x8 *f, unsigned m, const zp_fr *base)
{
    (void)f, (void)m, (void)base;
}
void zp__ntt8_twist(zp_fr *a, unsigned m, zp__fr52x8 *f, const zp__fr52x8 *step)
{
    (void)a, (void)m, (void)f, (void)step;
}

#endif
