/*
 * The operations Fp and Fr share, written once. A field's .c file defines
 * ZP__F(name) (the public name prefix), ZP__FI(name) (the internal one),
 * ZP__N (limbs), ZP__T (the type) and ZP__M (a const zp__mont * to static
 * storage: the x86 kernels address its words directly), then includes this
 * file.
 */
#include <string.h>

#include "field.h"
#include "mont.h"
#include "mont_x86.h"

void ZP__F(zero)(ZP__T *out) { memset(out, 0, sizeof *out); }
void ZP__F(one)(ZP__T *out) { memcpy(out->l, ZP__M->one, sizeof out->l); }

void ZP__F(from_u64)(ZP__T *out, uint64_t v)
{
    ZP__T plain;
    memset(&plain, 0, sizeof plain);
    plain.l[0] = v;
    /* Reduce: only Fr and Fp moduli exceed 2^64, so v < m always holds. */
    ZP__F(to_mont)(out, &plain);
}

bool ZP__F(is_zero)(const ZP__T *a) { return zp__is_zero_n(a->l, ZP__N); }
bool ZP__F(is_one)(const ZP__T *a) { return memcmp(a->l, ZP__M->one, sizeof a->l) == 0; }
bool ZP__F(eq)(const ZP__T *a, const ZP__T *b) { return memcmp(a->l, b->l, sizeof a->l) == 0; }

/* Additive operations: the x86-64 kernels need no optional instructions,
 * so they are used on every x86-64 CPU; mont.h holds the portable twins. */
void ZP__F(add)(ZP__T *out, const ZP__T *a, const ZP__T *b)
{
#if defined(ZP__X86_ASM) && ZP__N == 6
    ZP__X86_MOD_ADD6(out->l, a->l, b->l, ZP__M);
#elif defined(ZP__X86_ASM) && ZP__N == 4
    ZP__X86_MOD_ADD4(out->l, a->l, b->l, ZP__M);
#else
    zp__mod_add(out->l, a->l, b->l, ZP__M->m, ZP__N);
#endif
}

void ZP__F(sub)(ZP__T *out, const ZP__T *a, const ZP__T *b)
{
#if defined(ZP__X86_ASM) && ZP__N == 6
    ZP__X86_MOD_SUB6(out->l, a->l, b->l, ZP__M);
#elif defined(ZP__X86_ASM) && ZP__N == 4
    ZP__X86_MOD_SUB4(out->l, a->l, b->l, ZP__M);
#else
    zp__mod_sub(out->l, a->l, b->l, ZP__M->m, ZP__N);
#endif
}

void ZP__F(dbl)(ZP__T *out, const ZP__T *a) { ZP__F(add)(out, a, a); }

/* 0 - a with the subtraction's correction gives 0 for a = 0, m - a else. */
void ZP__F(neg)(ZP__T *out, const ZP__T *a)
{
    static const ZP__T zero;
    ZP__F(sub)(out, &zero, a);
}

/* The portable twin, kept out of line so that the fast path below pays no
 * prologue for its registers. */
__attribute__((noinline)) static void ZP__F(mont_mul_portable)(uint64_t *out, const uint64_t *a,
                                                             const uint64_t *b)
{
    zp__mont_mul(out, a, b, ZP__M->m, ZP__M->inv, ZP__N);
}

/* The x86-64 kernel for this field's size when the CPU has BMI2 and ADX,
 * otherwise the portable twin. */
static inline void ZP__F(mont_mul)(uint64_t *out, const uint64_t *a, const uint64_t *b)
{
#ifdef ZP__X86_ASM
    if (ZP__X86_FAST_ALWAYS || __builtin_expect(zp__x86_fast, 1)) {
#if ZP__N == 6
        ZP__X86_MONT_MUL6(out, a, b, ZP__M);
#else
        ZP__X86_MONT_MUL4(out, a, b, ZP__M);
#endif
        return;
    }
#endif
    ZP__F(mont_mul_portable)(out, a, b);
}

void ZP__F(mul)(ZP__T *out, const ZP__T *a, const ZP__T *b) { ZP__F(mont_mul)(out->l, a->l, b->l); }
void ZP__F(sqr)(ZP__T *out, const ZP__T *a) { ZP__F(mont_mul)(out->l, a->l, a->l); }

/*
 * Fixed 4-bit windows: a^0..a^15 in a table, then per window four
 * squarings and one multiply. Variable time in the exponent (public here:
 * field constants and sqrt exponents), not in a: the table index is a
 * window of e.
 */
void ZP__F(pow)(ZP__T *out, const ZP__T *a, const uint64_t *e, size_t nlimbs)
{
    uint64_t tab[16][ZP__N], acc[ZP__N];
    memcpy(tab[0], ZP__M->one, sizeof tab[0]);
    memcpy(tab[1], a->l, sizeof tab[1]);
    for (int i = 2; i < 16; i++)
        ZP__F(mont_mul)(tab[i], tab[i - 1], a->l);
    bool started = false;
    memcpy(acc, ZP__M->one, sizeof acc);
    for (size_t i = nlimbs; i-- > 0;) {
        for (int sh = 60; sh >= 0; sh -= 4) {
            unsigned w = (unsigned)(e[i] >> sh) & 15;
            if (started)
                for (int k = 0; k < 4; k++)
                    ZP__F(mont_mul)(acc, acc, acc);
            if (w) {
                if (started)
                    ZP__F(mont_mul)(acc, acc, tab[w]);
                else
                    memcpy(acc, tab[w], sizeof acc);
                started = true;
            }
        }
    }
    memcpy(out->l, acc, sizeof acc);
}

/* Bernstein-Yang in constant time (inv.c); zero maps to zero. The Fermat
 * power a^(m-2) is the reference twin in tests/test_mont.c. */
void ZP__F(inv)(ZP__T *out, const ZP__T *a) { zp__mont_inv(out->l, a->l, ZP__M); }

/* For public values only: faster, but its time depends on a. */
void ZP__FI(inv_vartime)(ZP__T *out, const ZP__T *a) { zp__mont_inv_vartime(out->l, a->l, ZP__M); }

/* Binary Jacobi symbol, variable time (inv.c); the reference twin is
 * Euler's criterion a^((m-1)/2) in tests/test_mont.c. */
int ZP__F(legendre)(const ZP__T *a) { return zp__mont_legendre_vartime(a->l, ZP__M); }

void ZP__F(to_mont)(ZP__T *out, const ZP__T *plain)
{
    ZP__F(mont_mul)(out->l, plain->l, ZP__M->r2);
}

void ZP__F(from_mont)(ZP__T *plain, const ZP__T *a)
{
    static const uint64_t one[ZP__N] = {1};
    ZP__F(mont_mul)(plain->l, a->l, one);
}

/* Decode limbs already read from bytes: reject >= m, then enter Montgomery. */
static zp_err ZP__F(from_plain_checked)(ZP__T *out, const ZP__T *plain)
{
    if (zp__geq_n(plain->l, ZP__M->m, ZP__N))
        return ZP_E_NOT_CANONICAL;
    ZP__F(to_mont)(out, plain);
    return ZP_OK;
}

zp_err ZP__F(from_be)(ZP__T *out, const uint8_t *in)
{
    ZP__T plain;
    zp__limbs_from_be(plain.l, in, ZP__N);
    return ZP__F(from_plain_checked)(out, &plain);
}

zp_err ZP__F(from_le)(ZP__T *out, const uint8_t *in)
{
    ZP__T plain;
    zp__limbs_from_le(plain.l, in, ZP__N);
    return ZP__F(from_plain_checked)(out, &plain);
}

void ZP__F(to_be)(uint8_t *out, const ZP__T *a)
{
    ZP__T plain;
    ZP__F(from_mont)(&plain, a);
    zp__limbs_to_be(out, plain.l, ZP__N);
}

void ZP__F(to_le)(uint8_t *out, const ZP__T *a)
{
    ZP__T plain;
    ZP__F(from_mont)(&plain, a);
    zp__limbs_to_le(out, plain.l, ZP__N);
}
