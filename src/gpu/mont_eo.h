/*
 * Montgomery product over n 32-bit words (n even: 12 for Fp, 8 for Fr) with
 * two independent carry chains per step instead of one.
 *
 * A plain CIOS product adds the low halves of a*b[i] in one chain and the
 * high halves in a second chain over the same words, so every instruction
 * of a step waits for the one before it. Here the running value is kept as
 *
 *     T = x + 2^32 * y      (x: n words from word 0; y: n words from word 1)
 *
 * and the products of even words of a (or p) go to x, those of odd words to
 * y. Each such product's low and high halves land on two adjacent words of
 * one array, so one array takes its n/2 products as a single chain of n
 * instructions, and the x chain and the y chain do not depend on each
 * other: the scheduler can interleave them.
 *
 * One step (word i of b), with x[0] = 0 left by the previous reduction:
 *   row:  T / 2^32 + a * b[i] becomes
 *           x' = y + x[1] + a_even * b[i]       (from word 0, in y's registers)
 *           y' = x[2..] + a_odd * b[i]          (from word 1, in x's registers)
 *         so x and y swap registers every step (no moves);
 *   redc: q = x[0] * (-p^-1 mod 2^32); x += p_even * q; y += p_odd * q,
 *         which makes x[0] zero.
 * The last step leaves T = x + 2^32 y with x[0] = 0; the result is
 * T / 2^32 = x[1..] + y, below 2p, and one conditional subtraction of p.
 *
 * Bounds (a, b < m, the modulus; m < 2^(32n - 1), both fields): T is the
 * same integer as in the one-chain product, so T / 2^32 < 2m. The carry out
 * of every x chain goes into y's top word (word n). The y chains never carry
 * out: y < x / 2^64 + a_odd * b[i] + q * p_odd + 2^(32(n-1)), and with the
 * top word of m below 0x74000000 (Fr's is 0x73eda753, Fp's 0x1a0111ea) the
 * two products are each below 0.46 * 2^(32n), so y < 2^(32n). The host
 * build below counts every carry that an instruction without .cc would drop
 * (zp__eo_dropped); tests/test_gpu_mont_eo.c checks it stays zero.
 *
 * The same code compiles for the device (each step one PTX instruction, the
 * carry in the condition code, the cf argument unused) and for the host
 * (cf holds the carry), where tests/test_gpu_mont_eo.c compares it with the
 * CPU fields.
 */
#ifndef ZP_GPU_MONT_EO_H
#define ZP_GPU_MONT_EO_H

#include <stdint.h>

#ifdef __CUDACC__
#define ZP__EO_FN static __host__ __device__ __forceinline__
#else
#define ZP__EO_FN static inline
#endif
#ifdef __CUDA_ARCH__
#define ZP__EO_UNROLL _Pragma("unroll")
#else
#define ZP__EO_UNROLL
#endif

#define ZP__EO_MAXN 12

#ifdef __CUDA_ARCH__

/* PTX carry-chain steps; the carry lives in the condition code. */
#define ZP__EO_ASM3(op)                                                                  \
    uint32_t d;                                                                          \
    (void)cf;                                                                            \
    asm volatile(op " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));             \
    return d
ZP__EO_FN uint32_t zp__eo_mad_lo_cc(uint32_t a, uint32_t b, uint32_t c, uint32_t *cf)
{
    ZP__EO_ASM3("mad.lo.cc.u32");
}
ZP__EO_FN uint32_t zp__eo_madc_lo_cc(uint32_t a, uint32_t b, uint32_t c, uint32_t *cf)
{
    ZP__EO_ASM3("madc.lo.cc.u32");
}
ZP__EO_FN uint32_t zp__eo_mad_hi_cc(uint32_t a, uint32_t b, uint32_t c, uint32_t *cf)
{
    ZP__EO_ASM3("mad.hi.cc.u32");
}
ZP__EO_FN uint32_t zp__eo_madc_hi_cc(uint32_t a, uint32_t b, uint32_t c, uint32_t *cf)
{
    ZP__EO_ASM3("madc.hi.cc.u32");
}
ZP__EO_FN uint32_t zp__eo_madc_hi(uint32_t a, uint32_t b, uint32_t c, uint32_t *cf)
{
    ZP__EO_ASM3("madc.hi.u32");
}
#undef ZP__EO_ASM3
#define ZP__EO_ASM2(op)                                                                  \
    uint32_t d;                                                                          \
    (void)cf;                                                                            \
    asm volatile(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));                         \
    return d
ZP__EO_FN uint32_t zp__eo_add_cc(uint32_t a, uint32_t b, uint32_t *cf) { ZP__EO_ASM2("add.cc.u32"); }
ZP__EO_FN uint32_t zp__eo_addc_cc(uint32_t a, uint32_t b, uint32_t *cf) { ZP__EO_ASM2("addc.cc.u32"); }
ZP__EO_FN uint32_t zp__eo_addc(uint32_t a, uint32_t b, uint32_t *cf) { ZP__EO_ASM2("addc.u32"); }
ZP__EO_FN uint32_t zp__eo_sub_cc(uint32_t a, uint32_t b, uint32_t *cf) { ZP__EO_ASM2("sub.cc.u32"); }
ZP__EO_FN uint32_t zp__eo_subc_cc(uint32_t a, uint32_t b, uint32_t *cf) { ZP__EO_ASM2("subc.cc.u32"); }
ZP__EO_FN uint32_t zp__eo_subc(uint32_t a, uint32_t b, uint32_t *cf) { ZP__EO_ASM2("subc.u32"); }
#undef ZP__EO_ASM2
ZP__EO_FN uint32_t zp__eo_mul_hi(uint32_t a, uint32_t b) { return __umulhi(a, b); }
/* (hi << 1) | (lo >> 31) */
ZP__EO_FN uint32_t zp__eo_shl1(uint32_t hi, uint32_t lo) { return __funnelshift_l(lo, hi, 1); }

#else /* host: the same steps with the carry in *cf */

/* Carries an instruction without .cc would have dropped (must stay 0). */
static unsigned long zp__eo_dropped;

ZP__EO_FN uint32_t zp__eo_keep(uint64_t s, uint32_t *cf)
{
    *cf = (uint32_t)(s >> 32);
    return (uint32_t)s;
}
ZP__EO_FN uint32_t zp__eo_drop(uint64_t s)
{
    zp__eo_dropped += (s >> 32) != 0;
    return (uint32_t)s;
}
ZP__EO_FN uint32_t zp__eo_mad_lo_cc(uint32_t a, uint32_t b, uint32_t c, uint32_t *cf)
{
    return zp__eo_keep((uint64_t)(uint32_t)((uint64_t)a * b) + c, cf);
}
ZP__EO_FN uint32_t zp__eo_madc_lo_cc(uint32_t a, uint32_t b, uint32_t c, uint32_t *cf)
{
    return zp__eo_keep((uint64_t)(uint32_t)((uint64_t)a * b) + c + *cf, cf);
}
ZP__EO_FN uint32_t zp__eo_mad_hi_cc(uint32_t a, uint32_t b, uint32_t c, uint32_t *cf)
{
    return zp__eo_keep((((uint64_t)a * b) >> 32) + c, cf);
}
ZP__EO_FN uint32_t zp__eo_madc_hi_cc(uint32_t a, uint32_t b, uint32_t c, uint32_t *cf)
{
    return zp__eo_keep((((uint64_t)a * b) >> 32) + c + *cf, cf);
}
ZP__EO_FN uint32_t zp__eo_madc_hi(uint32_t a, uint32_t b, uint32_t c, uint32_t *cf)
{
    return zp__eo_drop((((uint64_t)a * b) >> 32) + c + *cf);
}
ZP__EO_FN uint32_t zp__eo_add_cc(uint32_t a, uint32_t b, uint32_t *cf)
{
    return zp__eo_keep((uint64_t)a + b, cf);
}
ZP__EO_FN uint32_t zp__eo_addc_cc(uint32_t a, uint32_t b, uint32_t *cf)
{
    return zp__eo_keep((uint64_t)a + b + *cf, cf);
}
ZP__EO_FN uint32_t zp__eo_addc(uint32_t a, uint32_t b, uint32_t *cf)
{
    return zp__eo_drop((uint64_t)a + b + *cf);
}
/* Subtraction: *cf is the borrow (0 or 1). */
ZP__EO_FN uint32_t zp__eo_sub_cc(uint32_t a, uint32_t b, uint32_t *cf)
{
    uint64_t s = (uint64_t)a - b;
    *cf = (uint32_t)(s >> 63);
    return (uint32_t)s;
}
ZP__EO_FN uint32_t zp__eo_subc_cc(uint32_t a, uint32_t b, uint32_t *cf)
{
    uint64_t s = (uint64_t)a - b - *cf;
    *cf = (uint32_t)(s >> 63);
    return (uint32_t)s;
}
/* subc.u32 d, 0, 0 gives 0 or all ones: the borrow as a mask. */
ZP__EO_FN uint32_t zp__eo_subc(uint32_t a, uint32_t b, uint32_t *cf)
{
    return (uint32_t)((uint64_t)a - b - *cf);
}
ZP__EO_FN uint32_t zp__eo_mul_hi(uint32_t a, uint32_t b)
{
    return (uint32_t)(((uint64_t)a * b) >> 32);
}
ZP__EO_FN uint32_t zp__eo_shl1(uint32_t hi, uint32_t lo) { return (hi << 1) | (lo >> 31); }

#endif

/*
 * q = x0 * inv, the word that clears x0. Fr's inv (-r^-1 mod 2^32) is
 * 2^32 - 1, so q = -x0; given that literal, ptxas (CUDA 13.0, sm_90) splits
 * every q * p[j] of the reduction into IMAD.X + IMAD.HI.U32.X (two issues)
 * instead of one IMAD.WIDE.U32.X. Read from constant memory, which it cannot
 * see through, the products fuse: 264 instructions an Fr product instead of
 * 312, and ~1,100 fewer in each NTT pass kernel (tests/test_kernel_size.c
 * checks it). Other moduli keep the literal.
 */
#if defined(__CUDACC__)
static __constant__ uint32_t zp__eo_inv_m1 = 0xffffffffu;
#endif
ZP__EO_FN uint32_t zp__eo_q(uint32_t x0, uint32_t inv)
{
#ifdef __CUDA_ARCH__
    if (inv == 0xffffffffu)
        return x0 * zp__eo_inv_m1;
#endif
    return x0 * inv;
}

/* r = t - p unless that borrows, else t (t < 2p). */
ZP__EO_FN void zp__eo_sub_p_once(uint32_t *r, const uint32_t *t, const uint32_t *p, int n)
{
    uint32_t u[ZP__EO_MAXN], cf = 0;
    u[0] = zp__eo_sub_cc(t[0], p[0], &cf);
    ZP__EO_UNROLL
    for (int j = 1; j < n; j++)
        u[j] = zp__eo_subc_cc(t[j], p[j], &cf);
    uint32_t br = zp__eo_subc(0, 0, &cf); /* all ones if t < p */
    ZP__EO_UNROLL
    for (int j = 0; j < n; j++)
        r[j] = (t[j] & br) | (u[j] & ~br);
}

/* Step i > 0, first half: x (from word 0, x[0] = 0) and y (from word 1)
 * become T / 2^32 + a * bi, the new x in y's registers, the new y in x's. */
ZP__EO_FN void zp__eo_row(uint32_t *x, uint32_t *y, const uint32_t *a, uint32_t bi, int n)
{
    uint32_t cf = 0;
    y[0] = zp__eo_add_cc(y[0], x[1], &cf); /* x[1] is word 0 of T / 2^32 */
    ZP__EO_UNROLL
    for (int j = 0; j < n - 2; j += 2) { /* y' = x[2..] + a_odd * bi */
        x[j] = zp__eo_madc_lo_cc(a[j + 1], bi, x[j + 2], &cf);
        x[j + 1] = zp__eo_madc_hi_cc(a[j + 1], bi, x[j + 3], &cf);
    }
    x[n - 2] = zp__eo_madc_lo_cc(a[n - 1], bi, 0, &cf);
    x[n - 1] = zp__eo_madc_hi(a[n - 1], bi, 0, &cf);
    y[0] = zp__eo_mad_lo_cc(a[0], bi, y[0], &cf); /* x' = y + x[1] + a_even * bi */
    y[1] = zp__eo_madc_hi_cc(a[0], bi, y[1], &cf);
    ZP__EO_UNROLL
    for (int j = 2; j < n; j += 2) {
        y[j] = zp__eo_madc_lo_cc(a[j], bi, y[j], &cf);
        y[j + 1] = zp__eo_madc_hi_cc(a[j], bi, y[j + 1], &cf);
    }
    x[n - 1] = zp__eo_addc(x[n - 1], 0, &cf); /* x' carries into word n */
}

/* Second half: x += p_even * q and y += p_odd * q with q clearing x[0]. */
ZP__EO_FN void zp__eo_redc(uint32_t *x, uint32_t *y, const uint32_t *p, uint32_t inv, int n)
{
    uint32_t cf = 0;
    uint32_t q = zp__eo_q(x[0], inv);
    y[0] = zp__eo_mad_lo_cc(p[1], q, y[0], &cf);
    y[1] = zp__eo_madc_hi_cc(p[1], q, y[1], &cf);
    ZP__EO_UNROLL
    for (int j = 2; j < n - 2; j += 2) {
        y[j] = zp__eo_madc_lo_cc(p[j + 1], q, y[j], &cf);
        y[j + 1] = zp__eo_madc_hi_cc(p[j + 1], q, y[j + 1], &cf);
    }
    y[n - 2] = zp__eo_madc_lo_cc(p[n - 1], q, y[n - 2], &cf);
    y[n - 1] = zp__eo_madc_hi(p[n - 1], q, y[n - 1], &cf);
    x[0] = zp__eo_mad_lo_cc(p[0], q, x[0], &cf);
    x[1] = zp__eo_madc_hi_cc(p[0], q, x[1], &cf);
    ZP__EO_UNROLL
    for (int j = 2; j < n; j += 2) {
        x[j] = zp__eo_madc_lo_cc(p[j], q, x[j], &cf);
        x[j + 1] = zp__eo_madc_hi_cc(p[j], q, x[j + 1], &cf);
    }
    y[n - 1] = zp__eo_addc(y[n - 1], 0, &cf);
}

/* r = a * b / 2^(32n) mod p for a, b < p; r may alias a or b. */
ZP__EO_FN void zp__eo_mul(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *p,
                          uint32_t inv, int n)
{
    uint32_t e[ZP__EO_MAXN], o[ZP__EO_MAXN], cf = 0;
    ZP__EO_UNROLL
    for (int j = 0; j < n; j += 2) { /* step 0: disjoint halves, no chains */
        e[j] = a[j] * b[0];
        e[j + 1] = zp__eo_mul_hi(a[j], b[0]);
        o[j] = a[j + 1] * b[0];
        o[j + 1] = zp__eo_mul_hi(a[j + 1], b[0]);
    }
    zp__eo_redc(e, o, p, inv, n);
    ZP__EO_UNROLL
    for (int i = 1; i < n; i++) {
        if (i & 1) { /* x in e, y in o before the row; swapped after */
            zp__eo_row(e, o, a, b[i], n);
            zp__eo_redc(o, e, p, inv, n);
        } else {
            zp__eo_row(o, e, a, b[i], n);
            zp__eo_redc(e, o, p, inv, n);
        }
    }
    /* n even: the last step left x in o, y in e. t = o[1..] + e < 2p. */
    uint32_t t[ZP__EO_MAXN];
    t[0] = zp__eo_add_cc(o[1], e[0], &cf);
    ZP__EO_UNROLL
    for (int j = 1; j < n - 1; j++)
        t[j] = zp__eo_addc_cc(o[j + 1], e[j], &cf);
    t[n - 1] = zp__eo_addc(e[n - 1], 0, &cf);
    zp__eo_sub_p_once(r, t, p, n);
}

#endif
