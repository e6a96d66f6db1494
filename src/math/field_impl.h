/*
 * The operations Fp and Fr share, written once. A field's .c file defines
 * ZP__F(name) (the public name prefix), ZP__N (limbs), ZP__T (the type) and
 * ZP__M (a const zp__mont *), then includes this file.
 */
#include <string.h>

#include "mont.h"

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

void ZP__F(add)(ZP__T *out, const ZP__T *a, const ZP__T *b)
{
    zp__mod_add(out->l, a->l, b->l, ZP__M->m, ZP__N);
}

void ZP__F(sub)(ZP__T *out, const ZP__T *a, const ZP__T *b)
{
    zp__mod_sub(out->l, a->l, b->l, ZP__M->m, ZP__N);
}

void ZP__F(dbl)(ZP__T *out, const ZP__T *a) { zp__mod_add(out->l, a->l, a->l, ZP__M->m, ZP__N); }
void ZP__F(neg)(ZP__T *out, const ZP__T *a) { zp__mod_neg(out->l, a->l, ZP__M->m, ZP__N); }

void ZP__F(mul)(ZP__T *out, const ZP__T *a, const ZP__T *b)
{
    zp__mont_mul(out->l, a->l, b->l, ZP__M->m, ZP__M->inv, ZP__N);
}

void ZP__F(sqr)(ZP__T *out, const ZP__T *a)
{
    zp__mont_mul(out->l, a->l, a->l, ZP__M->m, ZP__M->inv, ZP__N);
}

void ZP__F(pow)(ZP__T *out, const ZP__T *a, const uint64_t *e, size_t nlimbs)
{
    zp__mont_pow(out->l, a->l, e, nlimbs, ZP__M);
}

/* Fermat: a^(m-2). Zero maps to zero, as documented. */
void ZP__F(inv)(ZP__T *out, const ZP__T *a)
{
    uint64_t e[ZP__N], two[ZP__N] = {2};
    zp__sub_n(e, ZP__M->m, two, ZP__N);
    zp__mont_pow(out->l, a->l, e, ZP__N, ZP__M);
}

int ZP__F(legendre)(const ZP__T *a)
{
    if (ZP__F(is_zero)(a))
        return 0;
    uint64_t e[ZP__N];
    memcpy(e, ZP__M->m, sizeof e);
    for (int i = 0; i < ZP__N; i++) /* (m - 1) / 2: m is odd, so a shift */
        e[i] = (e[i] >> 1) | (i + 1 < ZP__N ? ZP__M->m[i + 1] << 63 : 0);
    ZP__T t;
    zp__mont_pow(t.l, a->l, e, ZP__N, ZP__M);
    return ZP__F(is_one)(&t) ? 1 : -1;
}

void ZP__F(to_mont)(ZP__T *out, const ZP__T *plain)
{
    zp__mont_mul(out->l, plain->l, ZP__M->r2, ZP__M->m, ZP__M->inv, ZP__N);
}

void ZP__F(from_mont)(ZP__T *plain, const ZP__T *a)
{
    uint64_t one[ZP__N] = {1};
    zp__mont_mul(plain->l, a->l, one, ZP__M->m, ZP__M->inv, ZP__N);
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
