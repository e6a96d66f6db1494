/*
 * An Fp product on the FP64 pipe (an experiment, measured by field_rate.cu):
 * the integer product kernels of field.cuh keep the 32-bit multiply-add
 * pipe busy and leave the double-precision units idle, so a product that
 * runs there could add throughput rather than replace it.
 *
 * Form: eight limbs of 48 bits, each an exact integer held in a double;
 * a = sum a_i 2^(48 i), 384 bits, Montgomery with R = 2^384 (the same R as
 * the 12 x 32-bit form, so converted results compare bit for bit).
 *
 * One 48 x 48-bit limb product a b < 2^96 is split exactly into 48-bit
 * halves with fused multiply-adds: h = fma_rz(a, b, 2^100) lies in
 * [2^100, 2^101), where doubles are spaced 2^48 apart, so with rounding
 * toward zero h - 2^100 = floor(a b / 2^48) 2^48 = s exactly, and
 * fma(a, b, -s) = a b - s < 2^48 is exact because it is representable
 * (one rounding of the exact value). Column sums stay exact integers as
 * long as they stay below 2^53: a column takes at most eight low and eight
 * high halves in the product (< 2^52) and at most sixteen more, plus
 * small carries, in the reduction (< 2^53), as counted below.
 */
#ifndef ZP_GPU_FIELD_DP_CUH
#define ZP_GPU_FIELD_DP_CUH

#include "gpu/field.cuh"

struct fpd_t { double l[8]; };

/* p in 48-bit limbs and -p^-1 mod 2^48 (made on the host, field_rate.cu). */
struct fpd_consts { double p[8]; double pinv; };

#define FPD_SPLIT 0x1p100 /* doubles in [2^100, 2^101) are 2^48 apart */
#define FPD_DOWN 0x1p-48

/* lo = a b mod 2^48 and hi = floor(a b / 2^48), both exact (a, b < 2^48). */
static __device__ __forceinline__ void fpd_split(double &lo, double &hi, double a, double b)
{
    double s = __fma_rz(a, b, FPD_SPLIT) - FPD_SPLIT;
    lo = __fma_rn(a, b, -s);
    hi = s * FPD_DOWN;
}

/* x = floor(t / 2^48) (returned) and t mod 2^48 (in t), t < 2^53 exact. */
static __device__ __forceinline__ double fpd_carry(double &t)
{
    double s = __dadd_rz(t, FPD_SPLIT) - FPD_SPLIT;
    t -= s;
    return s * FPD_DOWN;
}

/* r = a b / 2^384 mod p, fully reduced, for a, b < p. */
static __device__ __forceinline__ fpd_t fpd_mul(const fpd_t &a, const fpd_t &b,
                                                const fpd_consts &k)
{
    double t[17];
#pragma unroll
    for (int i = 0; i < 17; i++)
        t[i] = 0;
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) {
            double lo, hi;
            fpd_split(lo, hi, a.l[i], b.l[j]);
            t[i + j] += lo;
            t[i + j + 1] += hi;
        }
    /* Montgomery rounds: make t[i] zero mod 2^48 with m p 2^(48 i) and
     * move it into t[i + 1]. */
#pragma unroll
    for (int i = 0; i < 8; i++) {
        t[i + 1] += fpd_carry(t[i]); /* t[i] < 2^48 now */
        double m, unused;
        fpd_split(m, unused, t[i], k.pinv);
        (void)unused;
        double lo0, hi0;
        fpd_split(lo0, hi0, m, k.p[0]);
        t[i + 1] += hi0 + (t[i] + lo0) * FPD_DOWN; /* t[i] + lo0 is 0 or 2^48 */
#pragma unroll
        for (int j = 1; j < 8; j++) {
            double lo, hi;
            fpd_split(lo, hi, m, k.p[j]);
            t[i + j] += lo;
            t[i + j + 1] += hi;
        }
    }
#pragma unroll
    for (int i = 8; i < 16; i++)
        t[i + 1] += fpd_carry(t[i]);
    /* t[8..15] < 2p now (t[16] is 0): subtract p unless that borrows. */
    fpd_t d, r;
    double borrow = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) {
        double v = t[8 + j] - k.p[j] - borrow;
        borrow = v < 0 ? 1.0 : 0.0;
        d.l[j] = v < 0 ? v + 0x1p48 : v;
    }
    bool keep = borrow != 0 && t[16] == 0;
#pragma unroll
    for (int j = 0; j < 8; j++)
        r.l[j] = keep ? t[8 + j] : d.l[j];
    return r;
}

/* The 12 x 32-bit form to 48-bit limbs and back (exact). */
static __device__ __forceinline__ fpd_t fpd_from(const fp_t &a)
{
    fpd_t r;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        uint32_t w0 = a.v[3 * k], w1 = a.v[3 * k + 1], w2 = a.v[3 * k + 2];
        r.l[2 * k] = (double)w0 + (double)(w1 & 0xffffu) * 0x1p32;
        r.l[2 * k + 1] = (double)(w1 >> 16) + (double)w2 * 0x1p16;
    }
    return r;
}

static __device__ __forceinline__ fp_t fpd_to(const fpd_t &a)
{
    fp_t r;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        uint64_t lo = (uint64_t)a.l[2 * k], hi = (uint64_t)a.l[2 * k + 1];
        r.v[3 * k] = (uint32_t)lo;
        r.v[3 * k + 1] = (uint32_t)(lo >> 32) | (uint32_t)(hi << 16);
        r.v[3 * k + 2] = (uint32_t)(hi >> 16);
    }
    return r;
}

#endif
