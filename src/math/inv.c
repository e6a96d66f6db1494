/*
 * Inversion and Legendre symbol for the Montgomery fields, without
 * exponentiation.
 *
 * Inversion: Bernstein-Yang divsteps ("safegcd", eprint 2019/266) in
 * batches of 62. Each batch runs 62 divsteps on the low 62 bits of f and g
 * alone, collecting them into a 2x2 matrix, then applies the matrix to the
 * full f, g and to the cofactors d, e. Numbers are held as signed 62-bit
 * limbs so that 64x64-bit products plus carries fit a 128-bit accumulator
 * with room for the sign. Two drivers share the matrix code:
 *   zp__mont_inv      constant time: branch-free divsteps, a fixed batch
 *                     count from the paper's bound (for secrets: the
 *                     proof's r and s reach zp_fp_inv through to_affine);
 *   zp__mont_inv_vartime  skips runs of even steps and stops when g = 0
 *                     (for public values).
 *
 * Legendre: binary Jacobi symbol (Stein's gcd with the reciprocity and
 * (2|m) rules) over shrinking 64-bit limbs; variable time.
 */
#include <stdint.h>
#include <string.h>

#include "math/mont.h"

#define L62 7                  /* 62-bit limbs: 7*62 = 434 bits > 384 + sign */
#define MASK62 ((1ULL << 62) - 1)

typedef __int128 zp__s128;

/* A signed integer sum v[i] * 2^(62 i): v[0..L-2] in [0, 2^62), v[L-1]
 * signed. L is 7 for Fp and 5 for Fr. */
typedef struct s62 {
    int64_t v[L62];
} s62;

/* Transition matrix of 62 divsteps, scaled by 2^62:
 * 2^62 (f', g') = (u f + v g, q f + r g). */
typedef struct divmat {
    int64_t u, v, q, r;
} divmat;

static int limbs62(int n) { return (64 * n) / 62 + 1; }

static void to62(s62 *out, const uint64_t *a, int n)
{
    int L = limbs62(n);
    for (int i = 0; i < L; i++) {
        int bit = 62 * i, w = bit / 64, sh = bit % 64;
        uint64_t x = w < n ? a[w] >> sh : 0;
        if (sh > 2 && w + 1 < n)
            x |= a[w + 1] << (64 - sh);
        out->v[i] = (int64_t)(x & MASK62);
    }
}

/* For 0 <= a < 2^(64n). */
static void from62(uint64_t *out, const s62 *a, int n)
{
    for (int w = 0; w < n; w++) {
        int bit = 64 * w, i = bit / 62, sh = bit % 62;
        uint64_t x = (uint64_t)a->v[i] >> sh;
        x |= (uint64_t)a->v[i + 1] << (62 - sh);
        if (sh > 60) /* the word reaches a third limb */
            x |= (uint64_t)a->v[i + 2] << (124 - sh);
        out[w] = x;
    }
}

/*
 * Divsteps (delta, f odd, g) as in the paper:
 *   delta > 0 and g odd:  (1 - delta, g, (g - f)/2)
 *   g odd otherwise:      (1 + delta, f, (g + f)/2)
 *   g even:               (1 + delta, f, g/2)
 * Only bit 0 of g steers, and step s reads only the low 62 - s bits of the
 * inputs, so 62 steps need only the low limbs. The matrix entries are kept
 * as uint64_t (wrapping) and read back as signed: |u| + |v| and |q| + |r|
 * at most double per step, so they end at most 2^62 in magnitude.
 */

/* 62 divsteps; runs of even steps are taken at once (variable time). */
static int64_t divsteps62_vartime(int64_t delta, uint64_t f, uint64_t g, divmat *t)
{
    uint64_t u = 1, v = 0, q = 0, r = 1;
    int left = 62;
    for (;;) {
        int z = __builtin_ctzll(g | (1ULL << left));
        g >>= z;
        u <<= z;
        v <<= z;
        delta += z;
        left -= z;
        if (left == 0)
            break;
        /* g odd: combine, making g even; the next shift halves it */
        if (delta > 0) {
            uint64_t x = f;
            f = g;
            g -= x;
            x = u, u = q, q -= x;
            x = v, v = r, r -= x;
            delta = -delta; /* the shift adds 1: 1 - delta */
        } else {
            g += f;
            q += u;
            r += v;
        }
    }
    t->u = (int64_t)u, t->v = (int64_t)v, t->q = (int64_t)q, t->r = (int64_t)r;
    return delta;
}

/* 62 divsteps without branches on the data: each step selects with masks
 * (swap: the first case; odd: g odd). */
static int64_t divsteps62(int64_t delta, uint64_t f, uint64_t g, divmat *t)
{
    uint64_t u = 1, v = 0, q = 0, r = 1;
    for (int i = 0; i < 62; i++) {
        uint64_t odd = 0 - (g & 1);
        uint64_t swap = odd & (0 - ((uint64_t)(-delta) >> 63)); /* delta > 0 */
        /* what joins g (and q, r): -f if swapping, f if odd, else 0 */
        uint64_t tf = ((f ^ swap) - swap) & odd;
        uint64_t tu = ((u ^ swap) - swap) & odd;
        uint64_t tv = ((v ^ swap) - swap) & odd;
        /* on a swap the new f row is the old g row */
        f += (g - f) & swap;
        u += (q - u) & swap;
        v += (r - v) & swap;
        g = (g + tf) >> 1;
        q += tu;
        r += tv;
        u <<= 1;
        v <<= 1;
        delta = 1 + (int64_t)(((uint64_t)delta ^ swap) - swap);
    }
    t->u = (int64_t)u, t->v = (int64_t)v, t->q = (int64_t)q, t->r = (int64_t)r;
    return delta;
}

/* (f, g) <- (u f + v g, q f + r g) / 2^62: exact, the low bits cancel. */
static void update_fg(s62 *f, s62 *g, const divmat *t, int L)
{
    zp__s128 cf = (zp__s128)t->u * f->v[0] + (zp__s128)t->v * g->v[0];
    zp__s128 cg = (zp__s128)t->q * f->v[0] + (zp__s128)t->r * g->v[0];
    cf >>= 62;
    cg >>= 62;
    for (int i = 1; i < L; i++) {
        cf += (zp__s128)t->u * f->v[i] + (zp__s128)t->v * g->v[i];
        cg += (zp__s128)t->q * f->v[i] + (zp__s128)t->r * g->v[i];
        f->v[i - 1] = (int64_t)((uint64_t)cf & MASK62);
        g->v[i - 1] = (int64_t)((uint64_t)cg & MASK62);
        cf >>= 62;
        cg >>= 62;
    }
    f->v[L - 1] = (int64_t)cf;
    g->v[L - 1] = (int64_t)cg;
}

/* x += m & mask, keeping the limb form (mask 0 or all ones). */
static void add_masked(s62 *x, const s62 *m, uint64_t mask, int L)
{
    int64_t carry = 0;
    for (int i = 0; i < L - 1; i++) {
        int64_t s = x->v[i] + (int64_t)((uint64_t)m->v[i] & mask) + carry;
        x->v[i] = (int64_t)((uint64_t)s & MASK62);
        carry = s >> 62;
    }
    x->v[L - 1] += (int64_t)((uint64_t)m->v[L - 1] & mask) + carry;
}

/* x -= y unless that goes negative (branch-free). */
static void sub_if_nonneg(s62 *x, const s62 *y, int L)
{
    s62 t = {{0}};
    int64_t borrow = 0;
    for (int i = 0; i < L - 1; i++) {
        int64_t s = x->v[i] - y->v[i] + borrow;
        t.v[i] = (int64_t)((uint64_t)s & MASK62);
        borrow = s >> 62;
    }
    t.v[L - 1] = x->v[L - 1] - y->v[L - 1] + borrow;
    uint64_t keep_x = (uint64_t)(t.v[L - 1] >> 63);
    for (int i = 0; i < L; i++)
        x->v[i] = (int64_t)(((uint64_t)x->v[i] & keep_x) | ((uint64_t)t.v[i] & ~keep_x));
}

/* out = m * 2^k for small k, in limb form. */
static void shl62(s62 *out, const s62 *m, int k, int L)
{
    uint64_t carry = 0;
    for (int i = 0; i < L; i++) {
        uint64_t x = ((uint64_t)m->v[i] << k) | carry;
        carry = (uint64_t)m->v[i] >> (62 - k);
        out->v[i] = (int64_t)(i < L - 1 ? x & MASK62 : x);
    }
}

/* x in (-16m, 16m) -> [0, m) without branches: add 16m, then subtract
 * 16m, 8m, 4m, 2m, m wherever the result stays non-negative. */
static void reduce_wide(s62 *x, const s62 *m, int L)
{
    s62 mk[5];
    for (int k = 0; k < 5; k++)
        shl62(&mk[k], m, k, L);
    add_masked(x, &mk[4], ~0ULL, L);
    for (int k = 4; k >= 0; k--)
        sub_if_nonneg(x, &mk[k], L);
}

/*
 * (d, e) <- (u d + v e, q d + r e) / 2^62 mod m. A multiple k m with
 * |k| <= 2^61 is added to make each sum divisible by 2^62 (k = sum *
 * (-m^-1) mod 2^62, centred, as in Montgomery reduction). If |d|, |e| < B
 * before, then as |u| + |v| <= 2^62 the results are below B + m/2: the
 * cofactors grow by at most m/2 per batch and are reduced once at the end.
 * From B = m, 30 batches stay below 16m, the range reduce_wide() takes;
 * both drivers stop within 18 (see ct_batches()).
 */
static void update_de(s62 *d, s62 *e, const divmat *t, const s62 *m, uint64_t minv, int L)
{
    const uint64_t half = 1ULL << 61;
    zp__s128 cd = (zp__s128)t->u * d->v[0] + (zp__s128)t->v * e->v[0];
    zp__s128 ce = (zp__s128)t->q * d->v[0] + (zp__s128)t->r * e->v[0];
    int64_t kd = (int64_t)((((uint64_t)cd * minv + half) & MASK62) - half);
    int64_t ke = (int64_t)((((uint64_t)ce * minv + half) & MASK62) - half);
    cd += (zp__s128)kd * m->v[0];
    ce += (zp__s128)ke * m->v[0];
    cd >>= 62;
    ce >>= 62;
    for (int i = 1; i < L; i++) {
        cd += (zp__s128)t->u * d->v[i] + (zp__s128)t->v * e->v[i] + (zp__s128)kd * m->v[i];
        ce += (zp__s128)t->q * d->v[i] + (zp__s128)t->r * e->v[i] + (zp__s128)ke * m->v[i];
        d->v[i - 1] = (int64_t)((uint64_t)cd & MASK62);
        e->v[i - 1] = (int64_t)((uint64_t)ce & MASK62);
        cd >>= 62;
        ce >>= 62;
    }
    d->v[L - 1] = (int64_t)cd;
    e->v[L - 1] = (int64_t)ce;
}

static bool is_zero62(const s62 *x, int L)
{
    int64_t acc = 0;
    for (int i = 0; i < L; i++)
        acc |= x->v[i];
    return acc == 0;
}

/*
 * State of an inversion of x (a Montgomery form a R) modulo m. With
 * c = R^2 mod m the invariants are f = d x / c and g = e x / c (mod m):
 * they hold at the start (f = m, d = 0; g = x, e = c) and every batch
 * keeps them. Once g = 0, f = +-gcd(x, m) = +-1, so d = +-c / x, and
 * c / x = R^2 / (a R) = a^-1 R: d is the Montgomery form of a^-1 up to the
 * sign of f. For x = 0, g is 0 from the start, f = m stays positive and
 * d = 0: the inverse of 0 comes out as 0 on both drivers.
 */
typedef struct inv_state {
    s62 f, g, d, e, m;
    int L;
} inv_state;

static void inv_start(inv_state *s, const uint64_t *a, const zp__mont *F, int n)
{
    memset(s, 0, sizeof *s); /* limbs past L stay defined */
    s->L = limbs62(n);
    to62(&s->m, F->m, n);
    s->f = s->m;
    to62(&s->g, a, n);
    to62(&s->e, F->r2, n);
}

/* out = d mod m, negated when f < 0 (branch-free). */
static void inv_finish(uint64_t *out, inv_state *s, int n)
{
    int L = s->L;
    uint64_t neg = (uint64_t)(s->f.v[L - 1] >> 63);
    reduce_wide(&s->d, &s->m, L);
    s62 nd = {{0}};
    for (int i = 0; i < L; i++)
        nd.v[i] = -s->d.v[i];
    add_masked(&nd, &s->m, ~0ULL, L); /* m - d, in (0, m] as d != 0 */
    for (int i = 0; i < L; i++)
        s->d.v[i] = (int64_t)(((uint64_t)nd.v[i] & neg) | ((uint64_t)s->d.v[i] & ~neg));
    from62(out, &s->d, n);
}

/*
 * Batches needed: Theorem 11.2 of the paper bounds the divsteps to reach
 * g = 0 by floor((49 b + 57) / 17) for inputs below 2^b, b >= 46; for
 * b = 381 (Fp) that is 1101 (18 batches of 62), for b = 255 (Fr) 738 (12).
 */
static int ct_batches(const zp__mont *F)
{
    int top = F->n - 1;
    int b = 64 * top + 64 - __builtin_clzll(F->m[top]);
    int steps = (49 * b + 57) / 17;
    return (steps + 61) / 62;
}

static void inv_ct(uint64_t *out, const uint64_t *a, const zp__mont *F, int n)
{
    inv_state s;
    inv_start(&s, a, F, n);
    int64_t delta = 1;
    for (int k = ct_batches(F); k > 0; k--) {
        divmat t;
        delta = divsteps62(delta, (uint64_t)s.f.v[0], (uint64_t)s.g.v[0], &t);
        update_fg(&s.f, &s.g, &t, s.L);
        update_de(&s.d, &s.e, &t, &s.m, F->inv, s.L);
    }
    inv_finish(out, &s, n);
}

static void inv_vartime(uint64_t *out, const uint64_t *a, const zp__mont *F, int n)
{
    inv_state s;
    inv_start(&s, a, F, n);
    int64_t delta = 1;
    while (!is_zero62(&s.g, s.L)) {
        divmat t;
        delta = divsteps62_vartime(delta, (uint64_t)s.f.v[0], (uint64_t)s.g.v[0], &t);
        update_fg(&s.f, &s.g, &t, s.L);
        update_de(&s.d, &s.e, &t, &s.m, F->inv, s.L);
    }
    inv_finish(out, &s, n);
}

void zp__mont_inv(uint64_t *out, const uint64_t *a, const zp__mont *F) { inv_ct(out, a, F, F->n); }

void zp__mont_inv_vartime(uint64_t *out, const uint64_t *a, const zp__mont *F)
{
    inv_vartime(out, a, F, F->n);
}

/* ---- Legendre symbol ---------------------------------------------------- */

/* x >>= k for 0 < k, over len limbs. */
static void shr_n(uint64_t *x, int k, int len)
{
    int w = k / 64, b = k % 64;
    for (int i = 0; i < len; i++) {
        uint64_t lo = i + w < len ? x[i + w] : 0;
        uint64_t hi = i + w + 1 < len ? x[i + w + 1] : 0;
        x[i] = b ? (lo >> b) | (hi << (64 - b)) : lo;
    }
}

static int ctz_n(const uint64_t *x, int len)
{
    for (int i = 0; i < len; i++)
        if (x[i])
            return 64 * i + __builtin_ctzll(x[i]);
    return 64 * len;
}

/*
 * Jacobi symbol (x | m) of the limbs a, m odd. The Legendre symbol of the
 * field element is the same whether a holds its plain or its Montgomery
 * form: (a R | m) = (a | m) (2 | m)^(64 n), an even power.
 * Loop invariant: the answer is t * (x | y) with y odd. Each round strips
 * the factors 2 of x ((2 | y) = -1 iff y = 3, 5 mod 8), orders x >= y by a
 * swap (reciprocity: a sign change iff x = y = 3 mod 4), and replaces x by
 * x - y = x mod y; x reaches 0 with y = gcd(a, m).
 */
int zp__mont_legendre_vartime(const uint64_t *a, const zp__mont *F)
{
    uint64_t x[ZP__MONT_MAX], y[ZP__MONT_MAX];
    int len = F->n, t = 1;
    memcpy(x, a, (size_t)len * 8);
    memcpy(y, F->m, (size_t)len * 8);
    if (zp__is_zero_n(x, len))
        return 0;
    for (;;) {
        int z = ctz_n(x, len);
        if (z) {
            shr_n(x, z, len);
            if ((z & 1) && ((y[0] & 7) == 3 || (y[0] & 7) == 5))
                t = -t;
        }
        if (!zp__geq_n(x, y, len)) {
            uint64_t s[ZP__MONT_MAX];
            memcpy(s, x, (size_t)len * 8);
            memcpy(x, y, (size_t)len * 8);
            memcpy(y, s, (size_t)len * 8);
            if ((x[0] & 3) == 3 && (y[0] & 3) == 3)
                t = -t;
        }
        zp__sub_n(x, x, y, len);
        if (zp__is_zero_n(x, len))
            return y[0] == 1 && zp__is_zero_n(y + 1, len - 1) ? t : 0;
        while (len > 1 && x[len - 1] == 0 && y[len - 1] == 0)
            len--;
    }
}
