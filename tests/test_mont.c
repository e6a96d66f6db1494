/*
 * The fast field kernels against their reference twins: the x86-64
 * Montgomery multiply/square and add/sub/neg against the portable code in
 * mont.h and against slow branchy references written here, on random and
 * edge inputs, with every aliasing pattern, on both dispatch paths; the
 * divstep inversions against Fermat, the binary Legendre symbol against
 * Euler's criterion, and the windowed power against square-and-multiply.
 */
#include "check.h"
#include "math/field.h"
#include "math/mont.h"
#include "math/mont_x86.h"
#include "zkpipe.h"

#define RANDOM_PAIRS 20000
#define RANDOM_INV 400
#define MAXN ZP__MONT_MAX

/* ---- slow, obviously correct references ------------------------------- */

static int cmp_n(const uint64_t *a, const uint64_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* a + b mod m with a branch: the obvious version. */
static void slow_add(uint64_t *out, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                     int n)
{
    uint64_t t[MAXN + 1];
    uint64_t c = 0;
    for (int i = 0; i < n; i++) {
        zp__u128 s = (zp__u128)a[i] + b[i] + c;
        t[i] = (uint64_t)s;
        c = (uint64_t)(s >> 64);
    }
    if (c || cmp_n(t, m, n) >= 0) {
        uint64_t br = 0;
        for (int i = 0; i < n; i++) {
            zp__u128 d = (zp__u128)t[i] - m[i] - br;
            t[i] = (uint64_t)d;
            br = (uint64_t)(d >> 64) & 1;
        }
    }
    memcpy(out, t, (size_t)n * 8);
}

/* a - b mod m as a + (m - b), with m - 0 = m reduced by slow_add. */
static void slow_sub(uint64_t *out, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                     int n)
{
    uint64_t nb[MAXN], br = 0;
    for (int i = 0; i < n; i++) {
        zp__u128 d = (zp__u128)m[i] - b[i] - br;
        nb[i] = (uint64_t)d;
        br = (uint64_t)(d >> 64) & 1;
    }
    if (cmp_n(nb, m, n) == 0)
        memset(nb, 0, sizeof nb);
    slow_add(out, a, nb, m, n);
}

/* A field as the tests see it: modulus, Montgomery constants derived here
 * from the modulus alone (not the library's tables), and its operations. */
struct field {
    const char *name;
    int n;
    zp__mont mont;
    void (*mul)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*sqr)(uint64_t *, const uint64_t *);
    void (*add)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*sub)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*dbl)(uint64_t *, const uint64_t *);
    void (*neg)(uint64_t *, const uint64_t *);
    void (*to_mont)(uint64_t *, const uint64_t *);
    void (*from_mont)(uint64_t *, const uint64_t *);
};

/* Thin adapters from the typed API to limb arrays. */
#define ADAPT1(name, fn, T)                                                  \
    static void name(uint64_t *o, const uint64_t *a) { fn((T *)o, (const T *)a); }
#define ADAPT2(name, fn, T)                                                  \
    static void name(uint64_t *o, const uint64_t *a, const uint64_t *b)      \
    {                                                                        \
        fn((T *)o, (const T *)a, (const T *)b);                              \
    }
ADAPT2(fp_mul, zp_fp_mul, zp_fp)
ADAPT1(fp_sqr, zp_fp_sqr, zp_fp)
ADAPT2(fp_add, zp_fp_add, zp_fp)
ADAPT2(fp_sub, zp_fp_sub, zp_fp)
ADAPT1(fp_dbl, zp_fp_dbl, zp_fp)
ADAPT1(fp_neg, zp_fp_neg, zp_fp)
ADAPT1(fp_to, zp_fp_to_mont, zp_fp)
ADAPT1(fp_from, zp_fp_from_mont, zp_fp)
ADAPT2(fr_mul, zp_fr_mul, zp_fr)
ADAPT1(fr_sqr, zp_fr_sqr, zp_fr)
ADAPT2(fr_add, zp_fr_add, zp_fr)
ADAPT2(fr_sub, zp_fr_sub, zp_fr)
ADAPT1(fr_dbl, zp_fr_dbl, zp_fr)
ADAPT1(fr_neg, zp_fr_neg, zp_fr)
ADAPT1(fr_to, zp_fr_to_mont, zp_fr)
ADAPT1(fr_from, zp_fr_from_mont, zp_fr)

static void field_init(struct field *f, const char *name, const uint64_t *m, int n)
{
    memset(&f->mont, 0, sizeof f->mont);
    f->name = name;
    f->n = n;
    f->mont.n = n;
    memcpy(f->mont.m, m, (size_t)n * 8);
    /* -m^-1 mod 2^64 by Newton: m0*m0 = 1 mod 8, each step doubles the bits. */
    uint64_t x = m[0];
    for (int i = 0; i < 5; i++)
        x *= 2 - m[0] * x;
    f->mont.inv = 0 - x;
    /* R = 2^(64n) and R^2 mod m by doubling 1. */
    uint64_t r[MAXN] = {1};
    for (int k = 0; k < 64 * n; k++)
        slow_add(r, r, r, m, n);
    memcpy(f->mont.one, r, sizeof r);
    for (int k = 0; k < 64 * n; k++)
        slow_add(r, r, r, m, n);
    memcpy(f->mont.r2, r, sizeof r);
}

static struct field fp_field, fr_field;

static void fields_init(void)
{
    field_init(&fp_field, "Fp", ZP_FP_MODULUS.l, 6);
    fp_field.mul = fp_mul, fp_field.sqr = fp_sqr, fp_field.add = fp_add;
    fp_field.sub = fp_sub, fp_field.dbl = fp_dbl, fp_field.neg = fp_neg;
    fp_field.to_mont = fp_to, fp_field.from_mont = fp_from;
    field_init(&fr_field, "Fr", ZP_FR_MODULUS.l, 4);
    fr_field.mul = fr_mul, fr_field.sqr = fr_sqr, fr_field.add = fr_add;
    fr_field.sub = fr_sub, fr_field.dbl = fr_dbl, fr_field.neg = fr_neg;
    fr_field.to_mont = fr_to, fr_field.from_mont = fr_from;
}

/* Uniform in [0, m): random limbs cut to m's bit length, rejected if >= m. */
static void rand_elem(uint64_t *out, const struct field *f)
{
    int top = f->n - 1;
    uint64_t mask = ~0ULL >> __builtin_clzll(f->mont.m[top]);
    do {
        for (int i = 0; i < f->n; i++)
            out[i] = check_rand64();
        out[top] &= mask;
    } while (cmp_n(out, f->mont.m, f->n) >= 0);
}

/* Edge values below m; returns 0 past the last one. */
static int edge_elem(uint64_t *out, const struct field *f, int k)
{
    const uint64_t *m = f->mont.m;
    int n = f->n;
    memset(out, 0, MAXN * 8);
    switch (k) {
    case 0: break;                                        /* 0 */
    case 1: out[0] = 1; break;                            /* 1 */
    case 2: out[0] = 2; break;
    case 3: memcpy(out, m, (size_t)n * 8); out[0] -= 1; break; /* m - 1 */
    case 4: memcpy(out, m, (size_t)n * 8); out[0] -= 2; break; /* m - 2 */
    case 5:                                               /* (m - 1) / 2 */
        for (int i = 0; i < n; i++)
            out[i] = (m[i] >> 1) | (i + 1 < n ? m[i + 1] << 63 : 0);
        break;
    case 6: memcpy(out, f->mont.one, (size_t)n * 8); break; /* R mod m */
    case 7: memcpy(out, f->mont.r2, (size_t)n * 8); break;  /* R^2 mod m */
    case 8: out[0] = ~0ULL; break;
    case 9: /* all-ones limbs under a top limb just below m's */
        for (int i = 0; i < n - 1; i++)
            out[i] = ~0ULL;
        out[n - 1] = m[n - 1] - 1;
        break;
    case 10: for (int i = 0; i < n - 1; i++) out[i] = ~0ULL; break; /* 2^(64(n-1)) - 1 */
    case 11: out[n - 1] = m[n - 1]; break;                /* m's top limb alone */
    case 12: out[n - 1] = 1ULL << (63 - __builtin_clzll(m[n - 1])); break; /* top bit */
    case 13: memcpy(out, m, (size_t)n * 8); out[1] -= 1; break; /* m - 2^64 */
    case 14: out[n / 2] = 1; break;                       /* a middle limb */
    default: return 0;
    }
    return 1;
}

/* ---- checks ----------------------------------------------------------- */

/* All aliasing patterns of mul, sqr, add, sub against references. */
static void check_pair(const struct field *f, const uint64_t *a, const uint64_t *b)
{
    const zp__mont *M = &f->mont;
    int n = f->n;
    size_t sz = (size_t)n * 8;
    uint64_t want[MAXN], got[MAXN], x[MAXN], y[MAXN];

    zp__mont_mul(want, a, b, M->m, M->inv, n);
    f->mul(got, a, b);
    CHECK_MEM(got, want, sz);
    memcpy(x, a, sz); f->mul(x, x, b); CHECK_MEM(x, want, sz);   /* out == a */
    memcpy(y, b, sz); f->mul(y, a, y); CHECK_MEM(y, want, sz);   /* out == b */

    zp__mont_mul(want, a, a, M->m, M->inv, n);
    memcpy(x, a, sz); f->mul(got, x, x); CHECK_MEM(got, want, sz); /* a == b */
    f->mul(x, x, x); CHECK_MEM(x, want, sz);                       /* all three */
    f->sqr(got, a); CHECK_MEM(got, want, sz);
    memcpy(x, a, sz); f->sqr(x, x); CHECK_MEM(x, want, sz);

    slow_add(want, a, b, M->m, n);
    f->add(got, a, b); CHECK_MEM(got, want, sz);
    zp__mod_add(got, a, b, M->m, n); CHECK_MEM(got, want, sz);  /* portable twin */
    memcpy(x, a, sz); f->add(x, x, b); CHECK_MEM(x, want, sz);
    memcpy(y, b, sz); f->add(y, a, y); CHECK_MEM(y, want, sz);

    slow_add(want, a, a, M->m, n);
    f->dbl(got, a); CHECK_MEM(got, want, sz);
    memcpy(x, a, sz); f->dbl(x, x); CHECK_MEM(x, want, sz);
    memcpy(x, a, sz); f->add(x, x, x); CHECK_MEM(x, want, sz);

    slow_sub(want, a, b, M->m, n);
    f->sub(got, a, b); CHECK_MEM(got, want, sz);
    zp__mod_sub(got, a, b, M->m, n); CHECK_MEM(got, want, sz);
    memcpy(x, a, sz); f->sub(x, x, b); CHECK_MEM(x, want, sz);
    memcpy(y, b, sz); f->sub(y, a, y); CHECK_MEM(y, want, sz);
    memcpy(x, a, sz); f->sub(x, x, x); CHECK(zp__is_zero_n(x, n));

    uint64_t one[MAXN] = {1};
    zp__mont_mul(want, a, M->r2, M->m, M->inv, n);
    f->to_mont(got, a); CHECK_MEM(got, want, sz);
    f->from_mont(x, got); CHECK_MEM(x, a, sz);
    zp__mont_mul(want, a, one, M->m, M->inv, n);
    f->from_mont(got, a); CHECK_MEM(got, want, sz);

    uint64_t zero[MAXN] = {0};
    slow_sub(want, zero, a, M->m, n);
    f->neg(got, a); CHECK_MEM(got, want, sz);
    zp__mod_neg(got, a, M->m, n); CHECK_MEM(got, want, sz);
    memcpy(x, a, sz); f->neg(x, x); CHECK_MEM(x, want, sz);
}

static void check_field(const struct field *f)
{
    uint64_t a[MAXN] = {0}, b[MAXN] = {0};
    for (int i = 0; edge_elem(a, f, i); i++)
        for (int j = 0; edge_elem(b, f, j); j++)
            check_pair(f, a, b);
    for (int i = 0; i < RANDOM_PAIRS; i++) {
        rand_elem(a, f);
        rand_elem(b, f);
        check_pair(f, a, b);
        /* random against every edge, both ways */
        if (i % 64 == 0)
            for (int j = 0; edge_elem(b, f, j); j++) {
                check_pair(f, a, b);
                check_pair(f, b, a);
            }
    }
}

/* The tables in fp.c/fr.c agree with constants derived from the modulus. */
static void test_constants(void)
{
    zp_fp one_p, plain_p = {{1}}, t_p;
    zp_fp_one(&one_p);
    CHECK_MEM(one_p.l, fp_field.mont.one, 48);
    zp_fp_to_mont(&t_p, &plain_p);
    CHECK_MEM(t_p.l, fp_field.mont.one, 48);
    zp_fr one_r, plain_r = {{1}}, t_r;
    zp_fr_one(&one_r);
    CHECK_MEM(one_r.l, fr_field.mont.one, 32);
    zp_fr_to_mont(&t_r, &plain_r);
    CHECK_MEM(t_r.l, fr_field.mont.one, 32);
    /* the spare top bit the fast kernels rely on: 2m < 2^(64n) */
    CHECK(ZP_FP_MODULUS.l[5] >> 63 == 0);
    CHECK(ZP_FR_MODULUS.l[3] >> 63 == 0);
}

static void test_portable_path(void)
{
#ifdef ZP__X86_ASM
    bool was = zp__x86_fast;
    zp__x86_set_fast(false, false);
#endif
    check_field(&fp_field);
    check_field(&fr_field);
#ifdef ZP__X86_ASM
    zp__x86_fast = was;
#endif
}

/* The BMI2/ADX kernels, where the CPU has them (skipped, and said so, where
 * it does not: e.g. under valgrind, whose CPUID hides ADX). */
static void test_fast_path(void)
{
#ifdef ZP__X86_ASM
    bool was = zp__x86_fast;
    bool cpu = zp__x86_cpu_has_fast();
    CHECK(zp__x86_set_fast(true, false) == cpu);
    if (!cpu) {
        printf("     (no BMI2/ADX reported by this CPU: fast kernels not tested)\n");
        zp__x86_fast = was;
        return;
    }
    check_field(&fp_field);
    check_field(&fr_field);
    zp__x86_fast = was;
#else
    printf("     (not x86-64: portable code only)\n");
#endif
}


/* ---- inversion, Legendre, power ----------------------------------------- */

ADAPT1(fp_inv, zp_fp_inv, zp_fp)
ADAPT1(fr_inv, zp_fr_inv, zp_fr)
ADAPT1(fp_inv_vt, zp__fp_inv_vartime, zp_fp)
ADAPT1(fr_inv_vt, zp__fr_inv_vartime, zp_fr)
static int fp_leg(const uint64_t *a) { return zp_fp_legendre((const zp_fp *)a); }
static int fr_leg(const uint64_t *a) { return zp_fr_legendre((const zp_fr *)a); }
static void fp_pow(uint64_t *o, const uint64_t *a, const uint64_t *e, size_t k)
{
    zp_fp_pow((zp_fp *)o, (const zp_fp *)a, e, k);
}
static void fr_pow(uint64_t *o, const uint64_t *a, const uint64_t *e, size_t k)
{
    zp_fr_pow((zp_fr *)o, (const zp_fr *)a, e, k);
}

struct field_ops2 {
    const struct field *f;
    void (*inv)(uint64_t *, const uint64_t *);
    void (*inv_vt)(uint64_t *, const uint64_t *);
    int (*legendre)(const uint64_t *);
    void (*pow)(uint64_t *, const uint64_t *, const uint64_t *, size_t);
};

/* Fermat: a^(m-2), by the reference square-and-multiply. */
static void fermat_inv(uint64_t *out, const uint64_t *a, const zp__mont *M)
{
    uint64_t e[MAXN];
    memcpy(e, M->m, sizeof e);
    e[0] -= 2; /* m is odd and above 2^64: no borrow */
    zp__mont_pow(out, a, e, (size_t)M->n, M);
}

/* Euler: a^((m-1)/2) is R (1), m - R (-1) or 0. */
static int euler_legendre(const uint64_t *a, const zp__mont *M)
{
    uint64_t e[MAXN] = {0}, t[MAXN], minus_one[MAXN];
    int n = M->n;
    for (int i = 0; i < n; i++)
        e[i] = (M->m[i] >> 1) | (i + 1 < n ? M->m[i + 1] << 63 : 0);
    zp__mont_pow(t, a, e, (size_t)n, M);
    slow_sub(minus_one, (const uint64_t[MAXN]){0}, M->one, M->m, n);
    if (zp__is_zero_n(t, n))
        return 0;
    if (cmp_n(t, M->one, n) == 0)
        return 1;
    return cmp_n(t, minus_one, n) == 0 ? -1 : 99;
}

static void check_inverse_of(const struct field_ops2 *o, const uint64_t *a)
{
    const zp__mont *M = &o->f->mont;
    int n = o->f->n;
    size_t sz = (size_t)n * 8;
    uint64_t want[MAXN], got[MAXN], x[MAXN];
    fermat_inv(want, a, M); /* also 0 -> 0 */
    o->inv(got, a);
    CHECK_MEM(got, want, sz);
    o->inv_vt(got, a);
    CHECK_MEM(got, want, sz);
    memcpy(x, a, sz);
    o->inv(x, x); /* out == a */
    CHECK_MEM(x, want, sz);
    memcpy(x, a, sz);
    o->inv_vt(x, x);
    CHECK_MEM(x, want, sz);
    if (!zp__is_zero_n(a, n)) { /* a * a^-1 = 1, i.e. R in Montgomery form */
        zp__mont_mul(x, a, got, M->m, M->inv, n);
        CHECK_MEM(x, M->one, sz);
    }
    CHECK_EQ_INT(o->legendre(a), euler_legendre(a, M));
}

static void check_inverse(const struct field_ops2 *o)
{
    uint64_t a[MAXN] = {0}, b[MAXN];
    int squares = 0, nonsquares = 0;
    for (int i = 0; edge_elem(a, o->f, i); i++)
        check_inverse_of(o, a);
    for (int i = 0; i < RANDOM_INV; i++) {
        rand_elem(a, o->f);
        check_inverse_of(o, a);
        int l = o->legendre(a);
        squares += l == 1;
        nonsquares += l == -1;
        /* a square is a square */
        zp__mont_mul(b, a, a, o->f->mont.m, o->f->mont.inv, o->f->n);
        CHECK_EQ_INT(o->legendre(b), 1);
    }
    CHECK(squares > RANDOM_INV / 4 && nonsquares > RANDOM_INV / 4);
}

/* The windowed power against the reference square-and-multiply, for
 * exponents of every length up to 2n limbs, with zero limbs and zero. */
static void check_pow(const struct field_ops2 *o)
{
    const zp__mont *M = &o->f->mont;
    int n = o->f->n;
    size_t sz = (size_t)n * 8;
    uint64_t a[MAXN] = {0}, e[2 * MAXN], want[MAXN], got[MAXN];
    for (int i = 0; i < 200; i++) {
        rand_elem(a, o->f);
        size_t k = (size_t)i % (size_t)(2 * n + 1);
        for (size_t j = 0; j < k; j++) {
            e[j] = check_rand64();
            if (i % 7 == 0)
                e[j] = 0;
            if (i % 11 == 0)
                e[j] >>= i % 64;
        }
        zp__mont_pow(want, a, e, k, M);
        o->pow(got, a, e, k);
        CHECK_MEM(got, want, sz);
        o->pow(a, a, e, k); /* out == a */
        CHECK_MEM(a, want, sz);
    }
}

static void for_both_paths(void (*fn)(const struct field_ops2 *))
{
    struct field_ops2 p = {&fp_field, fp_inv, fp_inv_vt, fp_leg, fp_pow};
    struct field_ops2 r = {&fr_field, fr_inv, fr_inv_vt, fr_leg, fr_pow};
#ifdef ZP__X86_ASM
    bool was = zp__x86_fast;
    zp__x86_set_fast(false, false);
    fn(&p);
    fn(&r);
    if (zp__x86_set_fast(true, false)) {
        fn(&p);
        fn(&r);
    }
    zp__x86_fast = was;
#else
    fn(&p);
    fn(&r);
#endif
}

static void test_inverse_and_legendre(void) { for_both_paths(check_inverse); }
static void test_pow(void) { for_both_paths(check_pow); }

int main(void)
{
    fields_init();
    RUN(test_constants);
    RUN(test_portable_path);
    RUN(test_fast_path);
    RUN(test_inverse_and_legendre);
    RUN(test_pow);
    return FINISH();
}
