/*
 * Test-key setup (groth16.h): a Groth16 key for any R1CS from random toxic
 * waste. The circuit gets the extra rows A[n_constraints + s][s] = 1 (s =
 * 0..n_public) that snarkjs and bellperson both append, which make the
 * input polynomials independent. With L_i the Lagrange basis of the domain
 * at τ, u_j, v_j, w_j = Σ_i A/B/C[i][j]·L_i(τ), and
 *   A_j = u_j·G1, B1_j = v_j·G1, B2_j = v_j·G2,
 *   IC_j = (β u_j + α v_j + w_j)/γ·G1 (j ≤ n_public), L_j = (…)/δ·G1 (aux).
 * The H query depends on the convention, see h_scalars().
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "groth16/groth16.h"
#include "groth16/setup_impl.h"

/* Largest domain: the coset convention needs a root of order 2n. */
#define MAX_LOG2 31

/* Ranges of the Lagrange values, each with its own batch inversion. */
typedef struct lag_ctx {
    zp_fr *out;
    zp_fr tau, start, step, step_inv, c; /* c = (tauᴺ − 1)/N */
} lag_ctx;

/* out[i] for i in [begin, end): prefix products of tau − x_i in out, one
 * inverse, then a backward pass that walks x_i down by step⁻¹ (no array of
 * the x_i: at 2^27 that would be 4 GiB). */
static void lag_task(void *p, size_t begin, size_t end)
{
    const lag_ctx *k = p;
    zp_fr x, acc, inv;
    uint64_t e = begin;
    zp_fr_pow(&x, &k->step, &e, 1);
    zp_fr_mul(&x, &x, &k->start);
    zp_fr_one(&acc);
    for (size_t i = begin; i < end; i++) {
        zp_fr d;
        k->out[i] = acc;
        zp_fr_sub(&d, &k->tau, &x);
        zp_fr_mul(&acc, &acc, &d);
        zp_fr_mul(&x, &x, &k->step);
    }
    zp_fr_inv(&inv, &acc);
    for (size_t i = end; i-- > begin;) {
        zp_fr d, di;
        zp_fr_mul(&x, &x, &k->step_inv);
        zp_fr_sub(&d, &k->tau, &x);
        zp_fr_mul(&di, &inv, &k->out[i]); /* 1/(tau − x_i) */
        zp_fr_mul(&inv, &inv, &d);
        zp_fr_mul(&di, &di, &x);
        zp_fr_mul(&k->out[i], &di, &k->c);
    }
}

zp_err zp__lagrange_at_par(zp_fr *out, const zp_fr *tau, const zp_fr *start, const zp_fr *step,
                           size_t count, uint64_t N, int threads)
{
    lag_ctx k = {.out = out, .tau = *tau, .start = *start, .step = *step};
    zp_fr tn, one, nn;
    zp_fr_one(&one);
    zp_fr_pow(&tn, tau, &N, 1);
    if (zp_fr_eq(&tn, &one))
        return ZP_E_INVALID_ARG; /* tau is in the subgroup: L_i(tau) ∈ {0, 1} */
    zp_fr_inv(&k.step_inv, step);
    zp_fr_sub(&k.c, &tn, &one);
    zp_fr_from_u64(&nn, N);
    zp_fr_inv(&nn, &nn);
    zp_fr_mul(&k.c, &k.c, &nn);
    zp__parallel_for(count, (size_t)1 << 16, lag_task, &k, threads);
    return ZP_OK;
}

zp_err zp__lagrange_at(zp_fr *out, const zp_fr *tau, const zp_fr *start, const zp_fr *step,
                       size_t count, uint64_t N)
{
    return zp__lagrange_at_par(out, tau, start, step, count, N, 1);
}

/* ---------------------------------------------------------- the matrices */

static zp_err check_cs(const zp__r1cs *cs)
{
    uint64_t m = cs->n_constraints;
    if (cs->n_public >= cs->n_vars || cs->a.nrows != m || cs->b.nrows != m ||
        cs->c.nrows != m)
        return ZP_E_INVALID_ARG;
    const zp__csr *mats[3] = {&cs->a, &cs->b, &cs->c};
    for (int k = 0; k < 3; k++)
        for (uint64_t i = 0; i < mats[k]->nnz; i++)
            if (mats[k]->col[i] >= cs->n_vars)
                return ZP_E_INVALID_ARG;
    return ZP_OK;
}

/*
 * out[j] = Σ_i m[i][j]·lag[i] for every column j < nvars. Parallel over
 * column ranges: each task scans every entry and takes those of its own
 * columns, so no two tasks write one value and the sums need neither
 * atomics nor a transposed copy (which would cost GiBs at 2^27).
 */
typedef struct col_ctx {
    zp_fr *out;
    const zp__csr *m;
    const zp_fr *lag;
    uint32_t nvars;
    size_t parts;
} col_ctx;

static void col_task(void *p, size_t begin, size_t end)
{
    const col_ctx *x = p;
    const zp__csr *m = x->m;
    for (size_t part = begin; part < end; part++) {
        uint32_t lo = (uint32_t)((uint64_t)x->nvars * part / x->parts);
        uint32_t hi = (uint32_t)((uint64_t)x->nvars * (part + 1) / x->parts);
        for (uint32_t j = lo; j < hi; j++)
            zp_fr_zero(&x->out[j]);
        for (uint64_t i = 0; i < m->nrows; i++) {
            for (uint64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) {
                uint32_t c = m->col[k];
                if (c - lo >= hi - lo) /* c outside [lo, hi) */
                    continue;
                zp_fr t;
                zp_fr_mul(&t, &m->val[k], &x->lag[i]);
                zp_fr_add(&x->out[c], &x->out[c], &t);
            }
        }
    }
}

static void column_eval(zp_fr *out, const zp__csr *m, const zp_fr *lag, uint32_t nvars,
                        int threads)
{
    col_ctx x = {out, m, lag, nvars, (size_t)zp__cpu_threads(threads)};
    if (x.parts > nvars)
        x.parts = nvars ? nvars : 1;
    zp__parallel_for(x.parts, 1, col_task, &x, threads);
}

/* ------------------------------------------------------------ the scalars */

zp_err zp__setup_uvw(zp_fr *u, zp_fr *v, zp_fr *w, const zp__pk *pk, const zp__r1cs *cs,
                     const zp_fr *tau, unsigned log2n, int threads)
{
    uint64_t n = pk->domain_size;
    zp_fr *lag = malloc((size_t)n * sizeof *lag);
    if (!lag)
        return ZP_E_NOMEM;
    zp_fr one, wn;
    zp_fr_one(&one);
    zp_fr_root_of_unity(&wn, log2n, pk->roots);
    zp_err e = zp__lagrange_at_par(lag, tau, &one, &wn, (size_t)n, n, threads);
    if (!e) {
        column_eval(u, &pk->ma, lag, pk->n_vars, threads);
        column_eval(v, &pk->mb, lag, pk->n_vars, threads);
        column_eval(w, &cs->c, lag, pk->n_vars, threads);
    }
    free(lag);
    return e;
}

typedef struct icl_ctx {
    zp_fr *w;
    const zp_fr *u, *v;
    const zp__toxic *t;
    zp_fr ginv, dinv;
    uint32_t n_public;
} icl_ctx;

static void icl_task(void *p, size_t begin, size_t end)
{
    const icl_ctx *c = p;
    for (size_t j = begin; j < end; j++) {
        zp_fr x, y;
        zp_fr_mul(&x, &c->t->beta, &c->u[j]);
        zp_fr_mul(&y, &c->t->alpha, &c->v[j]);
        zp_fr_add(&x, &x, &y);
        zp_fr_add(&x, &x, &c->w[j]);
        zp_fr_mul(&c->w[j], &x, j <= c->n_public ? &c->ginv : &c->dinv);
    }
}

void zp__setup_ic_l(zp_fr *w, const zp_fr *u, const zp_fr *v, const zp__pk *pk,
                    const zp__toxic *t, int threads)
{
    icl_ctx c = {.w = w, .u = u, .v = v, .t = t, .n_public = pk->n_public};
    zp_fr_inv(&c.ginv, &t->gamma);
    zp_fr_inv(&c.dinv, &t->delta);
    zp__parallel_for(pk->n_vars, (size_t)1 << 14, icl_task, &c, threads);
}

uint64_t zp__setup_compact(zp_fr *v, const zp__bitmap *d)
{
    uint64_t k = 0;
    for (uint64_t i = 0; i < d->nbits; i++)
        if (zp__bitmap_get(d, i))
            v[k++] = v[i]; /* k <= i: nothing is overwritten before it is read */
    return k;
}

/* TAU: h[i] = p·τ^i for i in a range, p = Z(τ)/δ. */
typedef struct pow_ctx {
    zp_fr *h;
    zp_fr p, tau;
} pow_ctx;

static void pow_task(void *ctx, size_t begin, size_t end)
{
    const pow_ctx *c = ctx;
    zp_fr x;
    uint64_t e = begin;
    zp_fr_pow(&x, &c->tau, &e, 1);
    zp_fr_mul(&x, &x, &c->p);
    for (size_t i = begin; i < end; i++) {
        c->h[i] = x;
        zp_fr_mul(&x, &x, &c->tau);
    }
}

static void scale_task(void *ctx, size_t begin, size_t end)
{
    const pow_ctx *c = ctx;
    for (size_t i = begin; i < end; i++)
        zp_fr_mul(&c->h[i], &c->h[i], &c->p);
}

/*
 * The H query.
 * COSET (snarkjs): the prover's h_j = p(ω_2n^(2j+1)) with p = a·b − c, the
 * values of p on the odd coset; p vanishes on ⟨ω_n⟩ (the even points of the
 * 2n domain) and has degree ≤ 2n − 2, so p(τ) = Σ_j h_j·L^(2n)_{2j+1}(τ):
 * H_j = L^(2n)_{2j+1}(τ)/δ. (The division by Z is inside: p = q·Z and Z is
 * the constant −2 on the odd coset.)
 * TAU (bellperson): the prover's h are the coefficients of q = p/Z:
 * H_i = τ^i·Z(τ)/δ for i < n − 1.
 */
zp_err zp__setup_h(zp_fr *h, const zp__pk *pk, const zp__toxic *t, unsigned log2n,
                   int threads)
{
    uint64_t n = pk->domain_size;
    pow_ctx c = {.h = h, .tau = t->tau};
    zp_fr dinv, one;
    zp_fr_inv(&dinv, &t->delta);
    zp_fr_one(&one);
    if (pk->h_conv == ZP_H_COSET) {
        zp_fr w2n, wn;
        zp_fr_root_of_unity(&w2n, log2n + 1, pk->roots);
        zp_fr_sqr(&wn, &w2n);
        zp_err e = zp__lagrange_at_par(h, &t->tau, &w2n, &wn, (size_t)n, 2 * n, threads);
        if (e)
            return e;
        c.p = dinv;
        zp__parallel_for((size_t)n, (size_t)1 << 14, scale_task, &c, threads);
        return ZP_OK;
    }
    zp_fr_pow(&c.p, &t->tau, &n, 1);
    zp_fr_sub(&c.p, &c.p, &one);
    zp_fr_mul(&c.p, &c.p, &dinv);
    zp__parallel_for((size_t)(n - 1), (size_t)1 << 16, pow_task, &c, threads);
    return ZP_OK;
}

zp_err zp__setup_matrices(zp__pk *pk, const zp__r1cs *cs, int threads)
{
    const uint64_t n = pk->domain_size, extra = (uint64_t)cs->n_public + 1;
    zp_err e;
    if (cs->a.nrows != cs->n_constraints || cs->b.nrows != cs->n_constraints)
        return ZP_E_INVALID_ARG;
    if ((e = zp__csr_extend(&pk->ma, &cs->a, extra, true, threads)) ||
        (e = zp__csr_extend(&pk->mb, &cs->b, extra, false, threads)) ||
        (e = zp__csr_column_density(&pk->a_density, &pk->ma, pk->n_vars, threads)) ||
        (e = zp__csr_column_density(&pk->b_density, &pk->mb, pk->n_vars, threads)))
        return e;
    pk->n_a = zp__bitmap_count(&pk->a_density);
    pk->n_b = zp__bitmap_count(&pk->b_density);
    pk->n_l = (uint64_t)pk->n_vars - pk->n_public - 1;
    pk->n_h = pk->h_conv == ZP_H_COSET ? n : n - 1;
    return ZP_OK;
}

/* ------------------------------------------------------------- the points */

#define ALLOC(p, n) ((p) = malloc(((size_t)(n) + 1) * sizeof *(p)))

void zp__setup_vk_points(zp__pk *pk, const zp__toxic *t, const zp__fb_g1 *f1,
                         const zp__fb_g2 *f2)
{
    zp_fr k1[3] = {t->alpha, t->beta, t->delta}, k2[3] = {t->beta, t->gamma, t->delta};
    zp_g1_affine p1[3];
    zp_g2_affine p2[3];
    zp__fb_g1_mul(p1, f1, k1, 3, 1);
    zp__fb_g2_mul(p2, f2, k2, 3, 1);
    pk->vk.alpha1 = p1[0];
    pk->vk.beta1 = p1[1];
    pk->vk.delta1 = p1[2];
    pk->vk.beta2 = p2[0];
    pk->vk.gamma2 = p2[1];
    pk->vk.delta2 = p2[2];
}

/* The per-variable scalars u, v, w, turned in place into the compact A
 * (u), B (v), IC and L (w) scalars; h the H scalars. */
typedef struct scal {
    zp_fr *u, *v, *w, *h;
} scal;

static void scal_free(scal *s)
{
    free(s->u);
    free(s->v);
    free(s->w);
    free(s->h);
}

static zp_err make_scalars(scal *s, const zp__pk *pk, const zp__r1cs *cs, const zp__toxic *t,
                           unsigned log2n, int threads)
{
    if (!ALLOC(s->u, pk->n_vars) || !ALLOC(s->v, pk->n_vars) || !ALLOC(s->w, pk->n_vars) ||
        !ALLOC(s->h, pk->domain_size))
        return ZP_E_NOMEM;
    zp_err e = zp__setup_uvw(s->u, s->v, s->w, pk, cs, &t->tau, log2n, threads);
    if (e)
        return e;
    zp__setup_ic_l(s->w, s->u, s->v, pk, t, threads);
    zp__setup_compact(s->u, &pk->a_density);
    zp__setup_compact(s->v, &pk->b_density);
    return zp__setup_h(s->h, pk, t, log2n, threads);
}

static zp_err alloc_points(zp__pk *pk)
{
    pk->vk.n_ic = pk->n_public + 1;
    if (!ALLOC(pk->a, pk->n_a) || !ALLOC(pk->b1, pk->n_b) || !ALLOC(pk->b2, pk->n_b) ||
        !ALLOC(pk->vk.ic, pk->vk.n_ic) || !ALLOC(pk->l, pk->n_l) || !ALLOC(pk->h, pk->n_h))
        return ZP_E_NOMEM;
    return ZP_OK;
}

/* The key's points are made in slices so that progress can be reported
 * between them; a slice is long enough that starting its threads costs
 * nothing measurable. */
#define POINT_SLICE ((size_t)1 << 16)

typedef struct points_progress {
    const zp__progress *p;
    uint64_t done, total;
} points_progress;

/* Points of one part: out[i] = k[i] * the base of fb, in G2 or G1. */
static void part_points(void *out, bool g2, const void *fb, const zp_fr *k, size_t n,
                        int threads, points_progress *pp)
{
    for (size_t at = 0; at < n; at += POINT_SLICE) {
        size_t m = n - at < POINT_SLICE ? n - at : POINT_SLICE;
        if (g2)
            zp__fb_g2_mul((zp_g2_affine *)out + at, fb, k + at, m, threads);
        else
            zp__fb_g1_mul((zp_g1_affine *)out + at, fb, k + at, m, threads);
        pp->done += m;
        zp__progress_note(pp->p, "making key points", pp->done, pp->total);
    }
}

static zp_err make_points(zp__pk *pk, const scal *s, const zp__toxic *t, int threads,
                          const zp__progress *progress)
{
    zp_err e = alloc_points(pk);
    if (e)
        return e;
    uint64_t n1 = pk->n_a + pk->n_b + pk->vk.n_ic + pk->n_l + pk->n_h + 3;
    zp_g1_affine g1;
    zp_g2_affine g2;
    zp_g1_generator(&g1);
    zp_g2_generator(&g2);
    zp__fb_g1 f1;
    zp__fb_g2 f2;
    if ((e = zp__fb_g1_init(&f1, &g1, zp__fb_window(n1))))
        return e;
    if ((e = zp__fb_g2_init(&f2, &g2, zp__fb_window(pk->n_b + 3)))) {
        zp__fb_g1_free(&f1);
        return e;
    }
    zp__setup_vk_points(pk, t, &f1, &f2);
    points_progress pp = {progress, 0, n1 - 3 + pk->n_b}; /* B in G1 and G2 */
    zp__progress_note(progress, "making key points", 0, pp.total);
    part_points(pk->a, false, &f1, s->u, (size_t)pk->n_a, threads, &pp);
    part_points(pk->b1, false, &f1, s->v, (size_t)pk->n_b, threads, &pp);
    part_points(pk->b2, true, &f2, s->v, (size_t)pk->n_b, threads, &pp);
    part_points(pk->vk.ic, false, &f1, s->w, pk->vk.n_ic, threads, &pp);
    part_points(pk->l, false, &f1, s->w + pk->vk.n_ic, (size_t)pk->n_l, threads, &pp);
    part_points(pk->h, false, &f1, s->h, (size_t)pk->n_h, threads, &pp);
    zp__fb_g1_free(&f1);
    zp__fb_g2_free(&f2);
    return ZP_OK;
}

/* ----------------------------------------------------------------- setup */

zp_err zp__setup_toxic(zp__toxic *out, const zp__toxic *t)
{
    if (t) {
        if (zp_fr_is_zero(&t->tau) || zp_fr_is_zero(&t->alpha) || zp_fr_is_zero(&t->beta) ||
            zp_fr_is_zero(&t->gamma) || zp_fr_is_zero(&t->delta))
            return ZP_E_INVALID_ARG;
        *out = *t;
        return ZP_OK;
    }
    zp_fr *v[5] = {&out->tau, &out->alpha, &out->beta, &out->gamma, &out->delta};
    for (int i = 0; i < 5; i++) {
        do {
            if (zp_fr_random(v[i]))
                return ZP_E_RANDOM;
        } while (zp_fr_is_zero(v[i]));
    }
    return ZP_OK;
}

zp_err zp__setup_shape(zp__pk *pk, unsigned *log2n, const zp__r1cs *cs, zp_h_conv conv)
{
    if (conv != ZP_H_COSET && conv != ZP_H_TAU)
        return ZP_E_INVALID_ARG;
    zp_err e = check_cs(cs);
    if (e)
        return e;
    uint64_t rows = cs->n_constraints + cs->n_public + 1;
    unsigned k = 0;
    while (k <= MAX_LOG2 && ((uint64_t)1 << k) < rows)
        k++;
    if (k > MAX_LOG2 || cs->n_constraints > ((uint64_t)1 << MAX_LOG2))
        return ZP_E_TOO_LARGE;
    *log2n = k;
    pk->h_conv = conv;
    pk->roots = conv == ZP_H_COSET ? ZP_ROOTS_SNARKJS : ZP_ROOTS_BELLPERSON;
    pk->n_vars = cs->n_vars;
    pk->n_public = cs->n_public;
    pk->domain_size = (uint64_t)1 << k;
    return ZP_OK;
}

zp_err zp__setup(zp__pk *out, const zp__r1cs *cs, zp_h_conv conv, int threads,
                 const zp__toxic *toxic)
{
    return zp__setup_progress(out, cs, conv, threads, toxic, NULL);
}

zp_err zp__setup_progress(zp__pk *out, const zp__r1cs *cs, zp_h_conv conv, int threads,
                          const zp__toxic *toxic, const zp__progress *progress)
{
    zp__pk pk;
    memset(&pk, 0, sizeof pk);
    memset(out, 0, sizeof *out);
    unsigned log2n;
    zp__toxic t;
    zp_err e = zp__setup_shape(&pk, &log2n, cs, conv);
    if (!e)
        e = zp__setup_toxic(&t, toxic);
    if (e)
        return e;
    scal s;
    memset(&s, 0, sizeof s);
    e = zp__setup_matrices(&pk, cs, threads);
    if (!e)
        e = make_scalars(&s, &pk, cs, &t, log2n, threads);
    if (!e)
        e = make_points(&pk, &s, &t, threads, progress);
    /* Whoever keeps the toxic waste can forge proofs: wipe this copy. (The
     * scalar arrays derived from it are freed, not wiped: a test key is
     * never trusted anyway.) */
    explicit_bzero(&t, sizeof t);
    scal_free(&s);
    if (e) {
        zp__pk_free(&pk);
        return e;
    }
    *out = pk;
    return ZP_OK;
}
