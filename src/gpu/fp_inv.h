/*
 * The Fp inverse of the device (field.cuh's fp_inv), written so that the
 * same code also compiles as C on the host, where tests/test_gpu_fp_inv.c
 * checks it against the CPU field. The design is src/math/inv.c's
 * (Bernstein-Yang divsteps, eprint 2019/266) with 30-bit limbs for a
 * machine whose fast products are 32 x 32 -> 64 bits:
 *
 *   - numbers are 13 signed limbs of 30 bits (390 bits: 381 and a sign,
 *     and room for the cofactors' growth), limbs 0..11 in [0, 2^30);
 *   - a batch runs 30 divsteps on the low limbs of f and g alone (step s
 *     reads only their low 30 - s bits) into a 2x2 matrix whose entries
 *     stay within 2^30, then applies it to the full f, g (an exact
 *     division by 2^30) and to the cofactors d, e (division by 2^30 mod p,
 *     by adding a multiple of p as in Montgomery reduction);
 *   - the divsteps are the half-delta variant (delta starts at 1/2),
 *     whose bound below makes 30 batches the most; a batch runs three runs
 *     of 10 with each matrix row packed in one 32-bit word, two entries of
 *     16 bits, so that one operation moves both entries;
 *   - e starts at R^2 mod p, so that d ends as the Montgomery form of the
 *     inverse with no product after (inv.c explains the invariants).
 *
 * Variable time: it stops once g = 0 (the MSM's sums are public data; a
 * warp waits for its slowest lane). For 0 <= g <= f <= M the half-delta
 * divsteps number at most floor((3787 log2(M) + 2166) / 1644) (Wuille's
 * convex-hull bound, checked for every M up to 2^4096): 878 for M = 2^381,
 * so at most 30 batches; the loop stops there whatever happens. Costs
 * about 25k instructions against ~350k for Fermat's a^(p-2) (570
 * products). Zero maps to zero.
 */
#ifndef ZP_GPU_FP_INV_H
#define ZP_GPU_FP_INV_H

#include <stdint.h>

#ifdef __CUDACC__
#define ZP__FPI_FN static __host__ __device__ __forceinline__
#else
#define ZP__FPI_FN static inline
#endif
#ifdef __CUDA_ARCH__
#define ZP__FPI_UNROLL _Pragma("unroll")
#else
#define ZP__FPI_UNROLL
#endif
/*
 * The batch loop stays a loop on the device: fully unrolled, its 30
 * batches make the inversion ~30k SASS instructions, seven times the rest of
 * the MSM's affine add kernel, so the one inversion a step misses the
 * instruction cache throughout (tests/test_kernel_size.c checks the
 * kernel's size). Unrolled twice it runs no faster.
 */
#ifdef __CUDA_ARCH__
#define ZP__FPI_BATCH_LOOP _Pragma("unroll 1")
#else
#define ZP__FPI_BATCH_LOOP
#endif

#define ZP__FPI_L 13          /* limbs of 30 bits */
#define ZP__FPI_MASK 0x3fffffff
#define ZP__FPI_MINV 0x3ffcfffdu /* -p^-1 mod 2^30 */
#define ZP__FPI_BATCHES 30    /* ceil(878 / 30) */

/* Limb i of p, the BLS12-381 base field modulus. */
ZP__FPI_FN int32_t zp__fpi_p(int i)
{
    switch (i) {
    case 0: return 0x3fffaaab; case 1: return 0x27fbffff; case 2: return 0x153ffffb;
    case 3: return 0x2affffac; case 4: return 0x30f6241e; case 5: return 0x034a83da;
    case 6: return 0x112bf673; case 7: return 0x12e13ce1; case 8: return 0x2cd76477;
    case 9: return 0x1ed90d2e; case 10: return 0x29a4b1ba; case 11: return 0x3a8e5ff9;
    default: return 0x001a0111;
    }
}

/* Limb i of R^2 mod p (R = 2^384). */
ZP__FPI_FN int32_t zp__fpi_r2(int i)
{
    switch (i) {
    case 0: return 0x1c341746; case 1: return 0x137c7cd0; case 2: return 0x1d104f1f;
    case 3: return 0x1db9a982; case 4: return 0x15b6d50a; case 5: return 0x151db132;
    case 6: return 0x183c08de; case 7: return 0x222a64e7; case 8: return 0x152d67eb;
    case 9: return 0x3a16d466; case 10: return 0x3aa9a793; case 11: return 0x3964b2b8;
    default: return 0x0011988f;
    }
}

/* 2^30 (f', g') = (u f + v g, q f + r g) after a batch. */
typedef struct zp__fpi_mat {
    int32_t u, v, q, r;
} zp__fpi_mat;

/* x's low 16 bits as a signed number. */
ZP__FPI_FN int32_t zp__fpi_sx16(uint32_t x)
{
    return (int32_t)((x & 0xffffu) ^ 0x8000u) - 0x8000;
}

/*
 * n <= 14 divsteps on (eta, f odd, g) into t, the rows packed in one word
 * each (u + 2^16 v, q + 2^16 r: entries stay within 2^14), without
 * branches on the data. eta is -delta - 1/2 for the half-delta steps
 * (delta starts at 1/2; eta < 0 is delta > 0):
 *   delta > 0 and g odd:  (1 - delta, g, (g - f)/2)
 *   g odd otherwise:      (1 + delta, f, (g + f)/2)
 *   g even:               (1 + delta, f, g/2)
 * Halving g doubles the f row instead, so the entries are the matrix
 * times 2^n; |u| + |v| and |q| + |r| at most double per step.
 */
ZP__FPI_FN void zp__fpi_divsteps_n(uint32_t *eta, uint32_t *fp, uint32_t *gp, zp__fpi_mat *t,
                                   int n)
{
    uint32_t U = 1, Q = 1u << 16, e = *eta, f = *fp, g = *gp;
    ZP__FPI_UNROLL
    for (int i = 0; i < n; i++) {
        uint32_t odd = 0u - (g & 1u);
        uint32_t swap = odd & (0u - (e >> 31));
        /* what joins g (and the g row): -f if swapping, f if odd, else 0 */
        uint32_t tf = ((f & odd) ^ swap) - swap;
        uint32_t tU = ((U & odd) ^ swap) - swap;
        /* on a swap the new f row is the old g row */
        f = (g & swap) | (f & ~swap);
        U = ((Q & swap) | (U & ~swap)) << 1;
        g = (g + tf) >> 1;
        Q += tU;
        e = (e ^ swap) - 1u;
    }
    *eta = e, *fp = f, *gp = g;
    int32_t u = zp__fpi_sx16(U), q = zp__fpi_sx16(Q);
    t->u = u, t->v = zp__fpi_sx16((U - (uint32_t)u) >> 16);
    t->q = q, t->r = zp__fpi_sx16((Q - (uint32_t)q) >> 16);
}

/* a <- b a (2x2 products; the entries of the result stay within 2^30). */
ZP__FPI_FN void zp__fpi_mat_mul(zp__fpi_mat *a, const zp__fpi_mat *b)
{
    zp__fpi_mat c;
    c.u = b->u * a->u + b->v * a->q;
    c.v = b->u * a->v + b->v * a->r;
    c.q = b->q * a->u + b->r * a->q;
    c.r = b->q * a->v + b->r * a->r;
    *a = c;
}

/* 30 divsteps on the low 30 bits of f and g (step s reads only their low
 * 30 - s bits) into t: three runs of 10, their matrices multiplied. */
ZP__FPI_FN uint32_t zp__fpi_divsteps(uint32_t eta, uint32_t f, uint32_t g, zp__fpi_mat *t)
{
    zp__fpi_mat m;
    zp__fpi_divsteps_n(&eta, &f, &g, t, 10);
    zp__fpi_divsteps_n(&eta, &f, &g, &m, 10);
    zp__fpi_mat_mul(t, &m);
    zp__fpi_divsteps_n(&eta, &f, &g, &m, 10);
    zp__fpi_mat_mul(t, &m);
    return eta;
}

/* (f, g) <- (u f + v g, q f + r g) / 2^30: exact, the low bits cancel. */
ZP__FPI_FN void zp__fpi_update_fg(int32_t *f, int32_t *g, const zp__fpi_mat *t)
{
    int64_t cf = (int64_t)t->u * f[0] + (int64_t)t->v * g[0];
    int64_t cg = (int64_t)t->q * f[0] + (int64_t)t->r * g[0];
    cf >>= 30;
    cg >>= 30;
    ZP__FPI_UNROLL
    for (int i = 1; i < ZP__FPI_L; i++) {
        cf += (int64_t)t->u * f[i] + (int64_t)t->v * g[i];
        cg += (int64_t)t->q * f[i] + (int64_t)t->r * g[i];
        f[i - 1] = (int32_t)(cf & ZP__FPI_MASK);
        g[i - 1] = (int32_t)(cg & ZP__FPI_MASK);
        cf >>= 30;
        cg >>= 30;
    }
    f[ZP__FPI_L - 1] = (int32_t)cf;
    g[ZP__FPI_L - 1] = (int32_t)cg;
}

/* k with x + k p = 0 mod 2^30, |k| <= 2^29. */
ZP__FPI_FN int32_t zp__fpi_k(int64_t x)
{
    uint32_t k = ((uint32_t)x * ZP__FPI_MINV + (1u << 29)) & ZP__FPI_MASK;
    return (int32_t)k - (1 << 29);
}

/*
 * (d, e) <- (u d + v e, q d + r e) / 2^30 mod p. If |d|, |e| < B before,
 * the results are below B + p/2 (|u| + |v| <= 2^30, |k| <= 2^29): from
 * B = p, 30 batches stay below 16p, inside what zp__fpi_reduce takes.
 */
ZP__FPI_FN void zp__fpi_update_de(int32_t *d, int32_t *e, const zp__fpi_mat *t)
{
    int64_t cd = (int64_t)t->u * d[0] + (int64_t)t->v * e[0];
    int64_t ce = (int64_t)t->q * d[0] + (int64_t)t->r * e[0];
    int32_t kd = zp__fpi_k(cd), ke = zp__fpi_k(ce);
    cd += (int64_t)kd * zp__fpi_p(0);
    ce += (int64_t)ke * zp__fpi_p(0);
    cd >>= 30;
    ce >>= 30;
    ZP__FPI_UNROLL
    for (int i = 1; i < ZP__FPI_L; i++) {
        cd += (int64_t)t->u * d[i] + (int64_t)t->v * e[i] + (int64_t)kd * zp__fpi_p(i);
        ce += (int64_t)t->q * d[i] + (int64_t)t->r * e[i] + (int64_t)ke * zp__fpi_p(i);
        d[i - 1] = (int32_t)(cd & ZP__FPI_MASK);
        e[i - 1] = (int32_t)(ce & ZP__FPI_MASK);
        cd >>= 30;
        ce >>= 30;
    }
    d[ZP__FPI_L - 1] = (int32_t)cd;
    e[ZP__FPI_L - 1] = (int32_t)ce;
}

/* x <- x + s (p << k) for s = 1 (add) or -1 (subtract), k <= 5. */
ZP__FPI_FN void zp__fpi_addp(int32_t *x, const int32_t *y, int32_t sign, int k)
{
    int64_t c = 0;
    uint32_t prev = 0;
    ZP__FPI_UNROLL
    for (int i = 0; i < ZP__FPI_L; i++) {
        uint32_t pi = (uint32_t)zp__fpi_p(i);
        uint32_t sh = ((pi << k) | (prev >> (30 - k))) & (i < ZP__FPI_L - 1 ? ZP__FPI_MASK : ~0u);
        prev = pi;
        c += (int64_t)y[i] + (int64_t)sign * (int64_t)sh;
        x[i] = i < ZP__FPI_L - 1 ? (int32_t)(c & ZP__FPI_MASK) : (int32_t)c;
        c >>= 30;
    }
}

/* x in (-32p, 32p) -> [0, p) without branches: add 32p, then subtract
 * 32p, 16p, 8p, 4p, 2p, p wherever the result stays non-negative. */
ZP__FPI_FN void zp__fpi_reduce(int32_t *x)
{
    int32_t t[ZP__FPI_L];
    zp__fpi_addp(x, x, 1, 5);
    ZP__FPI_UNROLL
    for (int k = 5; k >= 0; k--) {
        zp__fpi_addp(t, x, -1, k);
        uint32_t keep = (uint32_t)(t[ZP__FPI_L - 1] >> 31); /* all ones: went negative */
        ZP__FPI_UNROLL
        for (int i = 0; i < ZP__FPI_L; i++)
            x[i] = (int32_t)(((uint32_t)x[i] & keep) | ((uint32_t)t[i] & ~keep));
    }
}

/*
 * out = a^-1 in Montgomery form (12 little-endian 32-bit words) for a
 * Montgomery form a < p (0 gives 0). Returns the batches run (at most
 * ZP__FPI_BATCHES), for tests.
 */
ZP__FPI_FN int zp__fpi_inv(uint32_t *out, const uint32_t *a)
{
    int32_t f[ZP__FPI_L], g[ZP__FPI_L], d[ZP__FPI_L], e[ZP__FPI_L];
    ZP__FPI_UNROLL
    for (int i = 0; i < ZP__FPI_L; i++) {
        int bit = 30 * i, w = bit / 32, sh = bit % 32;
        uint32_t x = a[w] >> sh;
        if (sh > 2 && w + 1 < 12)
            x |= a[w + 1] << (32 - sh);
        f[i] = zp__fpi_p(i);
        g[i] = (int32_t)(x & ZP__FPI_MASK);
        d[i] = 0;
        e[i] = zp__fpi_r2(i);
    }
    uint32_t eta = 0u - 1u; /* delta = 1/2 */
    int b = 0;
    ZP__FPI_BATCH_LOOP
    for (; b < ZP__FPI_BATCHES; b++) {
        int32_t any = 0;
        ZP__FPI_UNROLL
        for (int i = 0; i < ZP__FPI_L; i++)
            any |= g[i];
        if (!any)
            break;
        zp__fpi_mat t;
        eta = zp__fpi_divsteps(eta, (uint32_t)f[0], (uint32_t)g[0], &t);
        zp__fpi_update_fg(f, g, &t);
        zp__fpi_update_de(d, e, &t);
    }
    /* f = +-1 now; d = +-(a^-1 R): negate when f < 0 (d != 0 then). */
    uint32_t neg = (uint32_t)(f[ZP__FPI_L - 1] >> 31);
    zp__fpi_reduce(d);
    int32_t nd[ZP__FPI_L];
    ZP__FPI_UNROLL
    for (int i = 0; i < ZP__FPI_L; i++)
        nd[i] = -d[i];
    zp__fpi_addp(nd, nd, 1, 0); /* p - d */
    ZP__FPI_UNROLL
    for (int i = 0; i < ZP__FPI_L; i++)
        d[i] = (int32_t)(((uint32_t)nd[i] & neg) | ((uint32_t)d[i] & ~neg));
    ZP__FPI_UNROLL
    for (int w = 0; w < 12; w++) {
        int bit = 32 * w, i = bit / 30, sh = bit % 30;
        uint32_t x = (uint32_t)d[i] >> sh;
        x |= (uint32_t)d[i + 1] << (30 - sh); /* sh is even: 30 - sh >= 2 */
        out[w] = x;
    }
    return b;
}

#endif
