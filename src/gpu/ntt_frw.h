/*
 * Fr product for the NTT variant ZP_NTT_FRW: the same Montgomery form and
 * 8 x 32-bit limbs as field.cuh's fr_mul, written in portable C with
 * 32x32->64-bit products instead of PTX mad.lo.cc / madc.hi.cc pairs, so
 * that ptxas may use IMAD.WIDE.U32 (which is faster on an H200 is what the
 * variant measures; field_wide.h does the same for Fp), and so that the same
 * code runs on the host, where tests/test_gpu_ntt_frw.c checks it against
 * the CPU field.
 *
 * CIOS, one word of b per round: t += a * b[i], then t += q * r with
 * q = -t[0] / r mod 2^32 (r[0] = 1, so q = -t[0]), and t shifts down a word.
 * r < 2^255 keeps t < 2r < 2^256 between rounds, and t + a * b[i] fits 9
 * words; one conditional subtraction gives a result < r for inputs < r.
 */
#ifndef ZP_GPU_NTT_FRW_H
#define ZP_GPU_NTT_FRW_H

#include <stdint.h>

#ifdef __CUDACC__
#define ZP__FRW_FN static __host__ __device__ __forceinline__
#else
#define ZP__FRW_FN static inline
#endif
/* Only the device pass knows the pragma (the host compiler warns). */
#ifdef __CUDA_ARCH__
#define ZP__FRW_UNROLL _Pragma("unroll")
#else
#define ZP__FRW_UNROLL
#endif

#define ZP__FRW_N 8

/* Word i of r, the BLS12-381 scalar field modulus. */
ZP__FRW_FN uint32_t zp__frw_r(int i)
{
    switch (i) {
    case 0: return 0x00000001u; case 1: return 0xffffffffu;
    case 2: return 0xfffe5bfeu; case 3: return 0x53bda402u;
    case 4: return 0x09a1d805u; case 5: return 0x3339d808u;
    case 6: return 0x299d7d48u; default: return 0x73eda753u;
    }
}

ZP__FRW_FN void zp__frw_mul(uint32_t *out, const uint32_t *a, const uint32_t *b)
{
    uint32_t t[ZP__FRW_N + 1];
    ZP__FRW_UNROLL
    for (int j = 0; j <= ZP__FRW_N; j++)
        t[j] = 0;
    ZP__FRW_UNROLL
    for (int i = 0; i < ZP__FRW_N; i++) {
        uint64_t acc = 0;
        ZP__FRW_UNROLL
        for (int j = 0; j < ZP__FRW_N; j++) {
            acc = (uint64_t)a[j] * b[i] + t[j] + (acc >> 32);
            t[j] = (uint32_t)acc;
        }
        t[ZP__FRW_N] += (uint32_t)(acc >> 32);
        uint32_t q = (uint32_t)0 - t[0];
        /* word 0: q * 1 + t[0] is 0 mod 2^32, with carry t[0] != 0 */
        acc = (uint64_t)(t[0] != 0) << 32;
        ZP__FRW_UNROLL
        for (int j = 1; j < ZP__FRW_N; j++) {
            acc = (uint64_t)q * zp__frw_r(j) + t[j] + (acc >> 32);
            t[j - 1] = (uint32_t)acc;
        }
        acc = (uint64_t)t[ZP__FRW_N] + (acc >> 32);
        t[ZP__FRW_N - 1] = (uint32_t)acc;
        t[ZP__FRW_N] = (uint32_t)(acc >> 32);
    }
    /* t < 2r: subtract r unless that borrows. */
    uint32_t u[ZP__FRW_N];
    uint32_t br = 0;
    ZP__FRW_UNROLL
    for (int j = 0; j < ZP__FRW_N; j++) {
        uint64_t d = (uint64_t)t[j] - zp__frw_r(j) - br;
        u[j] = (uint32_t)d;
        br = (uint32_t)(d >> 32) & 1;
    }
    uint32_t keep = (uint32_t)0 - br; /* all ones: t < r, keep t */
    ZP__FRW_UNROLL
    for (int j = 0; j < ZP__FRW_N; j++)
        out[j] = (t[j] & keep) | (u[j] & ~keep);
}

#endif
