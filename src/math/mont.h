/*
 * Generic Montgomery arithmetic over n 64-bit limbs, shared by Fp (n = 6)
 * and Fr (n = 4). Everything is static inline so that each field's file
 * instantiates it with a constant n and the compiler unrolls the loops.
 * Products use unsigned __int128; nothing here allocates.
 */
#ifndef ZP_MONT_H
#define ZP_MONT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define ZP__MONT_MAX 6

typedef unsigned __int128 zp__u128;

/* Tells gcc that n is a limb count: where a caller passes n at run time,
 * its unrolled loops otherwise warn about indices past the arrays. */
#define ZP__ASSUME_N(n)                                                      \
    do {                                                                     \
        if ((n) < 1 || (n) > ZP__MONT_MAX)                                   \
            __builtin_unreachable();                                         \
    } while (0)

/* A modulus with its Montgomery constants. */
typedef struct zp__mont {
    uint64_t m[ZP__MONT_MAX];   /* modulus */
    uint64_t one[ZP__MONT_MAX]; /* R mod m */
    uint64_t r2[ZP__MONT_MAX];  /* R^2 mod m */
    uint64_t inv;               /* -m^-1 mod 2^64 */
    int n;
} zp__mont;

/* out = a - b over n limbs; returns the borrow (0 or 1). */
static inline uint64_t zp__sub_n(uint64_t *out, const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t borrow = 0;
#pragma GCC unroll 6
    for (int i = 0; i < n; i++) {
        zp__u128 d = (zp__u128)a[i] - b[i] - borrow;
        out[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

/* out = a + b over n limbs; returns the carry. */
static inline uint64_t zp__add_n(uint64_t *out, const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t carry = 0;
#pragma GCC unroll 6
    for (int i = 0; i < n; i++) {
        zp__u128 s = (zp__u128)a[i] + b[i] + carry;
        out[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    return carry;
}

/* a >= b as n-limb integers. */
static inline bool zp__geq_n(const uint64_t *a, const uint64_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (a[i] != b[i])
            return a[i] > b[i];
    }
    return true;
}

static inline bool zp__is_zero_n(const uint64_t *a, int n)
{
    uint64_t acc = 0;
    for (int i = 0; i < n; i++)
        acc |= a[i];
    return acc == 0;
}

/* out = (a + b) mod m for a, b < m; branch-free. */
static inline void zp__mod_add(uint64_t *out, const uint64_t *a, const uint64_t *b,
                               const uint64_t *m, int n)
{
    uint64_t t[ZP__MONT_MAX] = {0}, u[ZP__MONT_MAX] = {0}; /* n may be unknown here */
    uint64_t carry = zp__add_n(t, a, b, n);
    uint64_t borrow = zp__sub_n(u, t, m, n);
    /* a + b < m exactly when t - m borrowed and a + b did not carry out. */
    uint64_t keep_t = 0 - (borrow & (carry ^ 1));
#pragma GCC unroll 6
    for (int i = 0; i < n; i++)
        out[i] = (t[i] & keep_t) | (u[i] & ~keep_t);
}

/* out = (a - b) mod m for a, b < m; branch-free. */
static inline void zp__mod_sub(uint64_t *out, const uint64_t *a, const uint64_t *b,
                               const uint64_t *m, int n)
{
    uint64_t t[ZP__MONT_MAX] = {0}, mm[ZP__MONT_MAX] = {0};
    uint64_t mask = 0 - zp__sub_n(t, a, b, n);
#pragma GCC unroll 6
    for (int i = 0; i < n; i++)
        mm[i] = m[i] & mask;
    zp__add_n(out, t, mm, n);
}

/* out = -a mod m for a < m (zero stays zero); branch-free. */
static inline void zp__mod_neg(uint64_t *out, const uint64_t *a, const uint64_t *m, int n)
{
    uint64_t nz = 0;
    for (int i = 0; i < n; i++)
        nz |= a[i];
    uint64_t mask = 0 - (uint64_t)(nz != 0);
    uint64_t t[ZP__MONT_MAX];
    zp__sub_n(t, m, a, n);
#pragma GCC unroll 6
    for (int i = 0; i < n; i++)
        out[i] = t[i] & mask;
}

/*
 * Montgomery product out = a*b/R mod m (CIOS). The accumulator carries two
 * extra words so the method is correct for any modulus below 2^(64n); the
 * result is below 2m and one conditional subtraction reduces it.
 */
static inline void zp__mont_mul(uint64_t *out, const uint64_t *a, const uint64_t *b,
                                const uint64_t *m, uint64_t inv, int n)
{
    ZP__ASSUME_N(n);
    uint64_t t[ZP__MONT_MAX + 2] = {0};
    /* Loops are unrolled explicitly: gcc does not unroll these nested loops
     * on its own, and the unrolled form runs several times faster. */
#pragma GCC unroll 6
    for (int i = 0; i < n; i++) {
        zp__u128 c = 0;
#pragma GCC unroll 6
        for (int j = 0; j < n; j++) {
            c += (zp__u128)a[j] * b[i] + t[j];
            t[j] = (uint64_t)c;
            c >>= 64;
        }
        c += t[n];
        t[n] = (uint64_t)c;
        t[n + 1] = (uint64_t)(c >> 64);

        uint64_t q = t[0] * inv;
        c = (zp__u128)q * m[0] + t[0];
        c >>= 64;
#pragma GCC unroll 6
        for (int j = 1; j < n; j++) {
            c += (zp__u128)q * m[j] + t[j];
            t[j - 1] = (uint64_t)c;
            c >>= 64;
        }
        c += t[n];
        t[n - 1] = (uint64_t)c;
        t[n] = t[n + 1] + (uint64_t)(c >> 64);
    }
    uint64_t u[ZP__MONT_MAX] = {0};
    uint64_t borrow = zp__sub_n(u, t, m, n);
    uint64_t keep_t = (t[n] == 0) & (borrow != 0);
    uint64_t mask = 0 - keep_t;
#pragma GCC unroll 6
    for (int i = 0; i < n; i++)
        out[i] = (t[i] & mask) | (u[i] & ~mask);
}

/* out = a^e for a little-endian exponent of nlimbs limbs (variable time). */
static inline void zp__mont_pow(uint64_t *out, const uint64_t *a, const uint64_t *e,
                                size_t nlimbs, const zp__mont *f)
{
    uint64_t acc[ZP__MONT_MAX], base[ZP__MONT_MAX];
    memcpy(acc, f->one, sizeof acc);
    memcpy(base, a, (size_t)f->n * 8); /* a has only n limbs (4 for Fr) */
    for (size_t i = nlimbs; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            zp__mont_mul(acc, acc, acc, f->m, f->inv, f->n);
            if ((e[i] >> bit) & 1)
                zp__mont_mul(acc, acc, base, f->m, f->inv, f->n);
        }
    }
    memcpy(out, acc, (size_t)f->n * 8);
}

/*
 * Inversion and Legendre symbol without exponentiation (inv.c). a is a
 * Montgomery form below m; so is out = a^-1. The inverse of 0 is 0.
 * zp__mont_inv runs in time independent of a; the _vartime ones do not
 * and are for public values.
 */
void zp__mont_inv(uint64_t *out, const uint64_t *a, const zp__mont *f);
void zp__mont_inv_vartime(uint64_t *out, const uint64_t *a, const zp__mont *f);
int zp__mont_legendre_vartime(const uint64_t *a, const zp__mont *f);

/* Big-endian bytes <-> little-endian limbs. */
static inline void zp__limbs_from_be(uint64_t *out, const uint8_t *in, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t v = 0;
        for (int k = 0; k < 8; k++)
            v = (v << 8) | in[(n - 1 - i) * 8 + k];
        out[i] = v;
    }
}

static inline void zp__limbs_to_be(uint8_t *out, const uint64_t *a, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 8; k++)
            out[(n - 1 - i) * 8 + k] = (uint8_t)(a[i] >> (56 - 8 * k));
}

static inline void zp__limbs_from_le(uint64_t *out, const uint8_t *in, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--)
            v = (v << 8) | in[i * 8 + k];
        out[i] = v;
    }
}

static inline void zp__limbs_to_le(uint8_t *out, const uint64_t *a, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 8; k++)
            out[i * 8 + k] = (uint8_t)(a[i] >> (8 * k));
}

#endif
