/*
 * Fp arithmetic for BLS12-381 in portable C with 32x32->64-bit products:
 * the same Montgomery form and 12 x 32-bit limbs as field.cuh, written
 * without inline PTX so that
 *   - ptxas sees plain 64-bit multiply-adds and may fuse each
 *     `(uint64_t)a * b + c + d` into one IMAD.WIDE.U32 plus an add, instead
 *     of the mad.lo.cc / madc.hi.cc pairs of field.cuh (which variant is
 *     faster on an H200 is what the ZP_FP_WIDE build variant measures), and
 *   - the very same code compiles on the host, where
 *     tests/test_gpu_field_wide.c compares it with the CPU field.
 *
 * Pieces: a CIOS product, a squaring that forms each off-diagonal product
 * once, a full 24-word product and a Montgomery reduction of 24 words (for
 * the Fp2 product with two reductions instead of three).
 *
 * Bounds (p < 2^381, R = 2^384, so 8p < R):
 *   - zp__fpw_mul / zp__fpw_sqr: inputs < p give a result < p.
 *   - zp__fpw_prod: any 12-word inputs (< 2^384) give the exact product.
 *   - zp__fpw_redc: T < R * p gives T / R mod p, fully reduced, because
 *     (T + m p) / R < T / R + p < 2p and one conditional subtraction follows.
 */
#ifndef ZP_GPU_FIELD_WIDE_H
#define ZP_GPU_FIELD_WIDE_H

#include <stdint.h>

#ifdef __CUDACC__
#define ZP__WIDE_FN static __host__ __device__ __forceinline__
#else
#define ZP__WIDE_FN static inline
#endif
#ifdef __CUDA_ARCH__ /* the device pass; the host compiler would warn */
#define ZP__WIDE_UNROLL _Pragma("unroll")
#else
#define ZP__WIDE_UNROLL
#endif

#define ZP__FPW_N 12
#define ZP__FPW_INV 0xfffcfffdu /* -p^-1 mod 2^32 */

ZP__WIDE_FN uint32_t zp__fpw_p(int i)
{
    switch (i) {
    case 0: return 0xffffaaabu; case 1: return 0xb9feffffu;
    case 2: return 0xb153ffffu; case 3: return 0x1eabfffeu;
    case 4: return 0xf6b0f624u; case 5: return 0x6730d2a0u;
    case 6: return 0xf38512bfu; case 7: return 0x64774b84u;
    case 8: return 0x434bacd7u; case 9: return 0x4b1ba7b6u;
    case 10: return 0x397fe69au; default: return 0x1a0111eau;
    }
}

/* r = t - p if that does not borrow, else t (t < 2p). */
ZP__WIDE_FN void zp__fpw_sub_p_once(uint32_t *r, const uint32_t *t)
{
    uint32_t u[ZP__FPW_N];
    uint64_t br = 0;
    ZP__WIDE_UNROLL
    for (int j = 0; j < ZP__FPW_N; j++) {
        uint64_t d = (uint64_t)t[j] - zp__fpw_p(j) - br;
        u[j] = (uint32_t)d;
        br = (d >> 32) & 1;
    }
    uint32_t keep = (uint32_t)0 - (uint32_t)br; /* all ones: t < p, keep t */
    ZP__WIDE_UNROLL
    for (int j = 0; j < ZP__FPW_N; j++)
        r[j] = (t[j] & keep) | (u[j] & ~keep);
}

/*
 * CIOS: per word of b, t += a * b[i], then t += q * p with q making the low
 * word zero, and a shift down by one word. t < 2p between iterations, and
 * t + a * b[i] < 2p + 2^32 p fits 13 words, so no 14th word is needed.
 */
ZP__WIDE_FN void zp__fpw_mul(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t t[ZP__FPW_N + 1];
    ZP__WIDE_UNROLL
    for (int j = 0; j <= ZP__FPW_N; j++)
        t[j] = 0;
    ZP__WIDE_UNROLL
    for (int i = 0; i < ZP__FPW_N; i++) {
        uint64_t c = 0, s;
        ZP__WIDE_UNROLL
        for (int j = 0; j < ZP__FPW_N; j++) {
            s = (uint64_t)a[j] * b[i] + t[j] + c;
            t[j] = (uint32_t)s;
            c = s >> 32;
        }
        t[ZP__FPW_N] += (uint32_t)c;
        uint32_t q = t[0] * ZP__FPW_INV;
        s = (uint64_t)q * zp__fpw_p(0) + t[0];
        c = s >> 32;
        ZP__WIDE_UNROLL
        for (int j = 1; j < ZP__FPW_N; j++) {
            s = (uint64_t)q * zp__fpw_p(j) + t[j] + c;
            t[j - 1] = (uint32_t)s;
            c = s >> 32;
        }
        s = (uint64_t)t[ZP__FPW_N] + c;
        t[ZP__FPW_N - 1] = (uint32_t)s;
        t[ZP__FPW_N] = (uint32_t)(s >> 32);
    }
    zp__fpw_sub_p_once(r, t);
}

/* t (24 words) = a * b, exact, by rows. */
ZP__WIDE_FN void zp__fpw_prod(uint32_t *t, const uint32_t *a, const uint32_t *b)
{
    ZP__WIDE_UNROLL
    for (int j = 0; j < ZP__FPW_N; j++)
        t[j] = 0;
    ZP__WIDE_UNROLL
    for (int i = 0; i < ZP__FPW_N; i++) {
        uint64_t c = 0;
        ZP__WIDE_UNROLL
        for (int j = 0; j < ZP__FPW_N; j++) {
            uint64_t s = (uint64_t)a[j] * b[i] + t[i + j] + c;
            t[i + j] = (uint32_t)s;
            c = s >> 32;
        }
        t[i + ZP__FPW_N] = (uint32_t)c;
    }
}

/*
 * r = T / R mod p for T (24 words) < R * p. Word i of T is cleared by
 * adding q * p * 2^(32 i); the carry out of word i + 12 waits in `hi` for
 * the next step. The final T / R < 2p fits 12 words, so `hi` ends at zero.
 */
ZP__WIDE_FN void zp__fpw_redc(uint32_t *r, const uint32_t *T)
{
    uint32_t t[2 * ZP__FPW_N];
    ZP__WIDE_UNROLL
    for (int j = 0; j < 2 * ZP__FPW_N; j++)
        t[j] = T[j];
    uint32_t hi = 0;
    ZP__WIDE_UNROLL
    for (int i = 0; i < ZP__FPW_N; i++) {
        uint32_t q = t[i] * ZP__FPW_INV;
        uint64_t c = 0, s;
        ZP__WIDE_UNROLL
        for (int j = 0; j < ZP__FPW_N; j++) {
            s = (uint64_t)q * zp__fpw_p(j) + t[i + j] + c;
            t[i + j] = (uint32_t)s;
            c = s >> 32;
        }
        s = (uint64_t)t[i + ZP__FPW_N] + c + hi;
        t[i + ZP__FPW_N] = (uint32_t)s;
        hi = (uint32_t)(s >> 32);
    }
    zp__fpw_sub_p_once(r, t + ZP__FPW_N);
}

/*
 * r = a^2 / R mod p: the 66 products a[i] a[j] (i < j) once, doubled by a
 * one-bit shift, plus the 12 squares on the diagonal (78 products instead
 * of 144), then the reduction.
 */
ZP__WIDE_FN void zp__fpw_sqr(uint32_t *r, const uint32_t *a)
{
    uint32_t t[2 * ZP__FPW_N];
    ZP__WIDE_UNROLL
    for (int j = 0; j < 2 * ZP__FPW_N; j++)
        t[j] = 0;
    ZP__WIDE_UNROLL
    for (int i = 0; i < ZP__FPW_N - 1; i++) {
        uint64_t c = 0;
        ZP__WIDE_UNROLL
        for (int j = i + 1; j < ZP__FPW_N; j++) {
            uint64_t s = (uint64_t)a[i] * a[j] + t[i + j] + c;
            t[i + j] = (uint32_t)s;
            c = s >> 32;
        }
        t[i + ZP__FPW_N] = (uint32_t)c;
    }
    /* Double (the top bit of t is zero: the off-diagonal sum < 2^767). */
    ZP__WIDE_UNROLL
    for (int j = 2 * ZP__FPW_N - 1; j > 0; j--)
        t[j] = (t[j] << 1) | (t[j - 1] >> 31);
    t[0] <<= 1;
    uint64_t c = 0;
    ZP__WIDE_UNROLL
    for (int i = 0; i < ZP__FPW_N; i++) {
        uint64_t s = (uint64_t)a[i] * a[i] + t[2 * i] + c;
        t[2 * i] = (uint32_t)s;
        s = (s >> 32) + t[2 * i + 1];
        t[2 * i + 1] = (uint32_t)s;
        c = s >> 32;
    }
    zp__fpw_redc(r, t);
}

/* t (24 words) -= u; returns the borrow (1 when t < u). */
ZP__WIDE_FN uint32_t zp__fpw_sub24(uint32_t *t, const uint32_t *u)
{
    uint64_t br = 0;
    ZP__WIDE_UNROLL
    for (int j = 0; j < 2 * ZP__FPW_N; j++) {
        uint64_t d = (uint64_t)t[j] - u[j] - br;
        t[j] = (uint32_t)d;
        br = (d >> 32) & 1;
    }
    return (uint32_t)br;
}

/*
 * (a0 + a1 u)(b0 + b1 u) with u^2 = -1 by Karatsuba on exact 24-word
 * products and two reductions instead of three:
 *   c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 = a0 b1 + a1 b0, in [0, 2p^2)
 *        (the sums are left unreduced: < 2p < 2^384, so the product is exact);
 *   c0 = a0 b0 - a1 b1 in (-p^2, p^2); where negative, p R is added (a
 *        multiple of p: p in the upper 12 words), giving [0, p R).
 * Both are below R p, as zp__fpw_redc needs. Inputs < p.
 */
ZP__WIDE_FN void zp__fp2w_mul(uint32_t *r0, uint32_t *r1, const uint32_t *a0,
                              const uint32_t *a1, const uint32_t *b0, const uint32_t *b1)
{
    uint32_t t0[2 * ZP__FPW_N], t1[2 * ZP__FPW_N], t2[2 * ZP__FPW_N];
    uint32_t sa[ZP__FPW_N], sb[ZP__FPW_N];
    uint64_t ca = 0, cb = 0;
    ZP__WIDE_UNROLL
    for (int j = 0; j < ZP__FPW_N; j++) {
        ca += (uint64_t)a0[j] + a1[j];
        cb += (uint64_t)b0[j] + b1[j];
        sa[j] = (uint32_t)ca;
        sb[j] = (uint32_t)cb;
        ca >>= 32;
        cb >>= 32;
    }
    zp__fpw_prod(t0, a0, b0);
    zp__fpw_prod(t1, a1, b1);
    zp__fpw_prod(t2, sa, sb);
    zp__fpw_sub24(t2, t0);
    zp__fpw_sub24(t2, t1);
    zp__fpw_redc(r1, t2);
    uint32_t neg = (uint32_t)0 - zp__fpw_sub24(t0, t1);
    uint64_t c = 0;
    ZP__WIDE_UNROLL
    for (int j = 0; j < ZP__FPW_N; j++) {
        c += (uint64_t)t0[ZP__FPW_N + j] + (zp__fpw_p(j) & neg);
        t0[ZP__FPW_N + j] = (uint32_t)c;
        c >>= 32;
    }
    zp__fpw_redc(r0, t0);
}

#endif
