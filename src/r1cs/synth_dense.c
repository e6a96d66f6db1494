/*
 * synth:dense and synth:chain, the two circuits without a 0/1 bias.
 *
 * dense: independent lanes of about 1024 rows; lane j has variables
 * u_0, u_1, ... and rows u_{r+2} = (u_{r+1} + c_r) * (u_r + d_r) with random
 * constants c_r, d_r. Every value is a random field element and every
 * variable but the last two of a lane is in A and in B. u_0 of the first
 * lanes is a public input. Lanes make the witness parallel.
 *
 * chain: circom's multiplication benchmark, x_{i+1} = x_i^2 + b with the
 * public input x_0 and a private b. Strictly sequential, which is the point
 * of it: it is the worst case for a witness generator, not for a prover.
 */
#include <string.h>

#include "r1cs/synth_impl.h"

#define TAG_DENSE_CIRCUIT 0x64656e7365ULL
#define TAG_DENSE_WITNESS 0x64656e7377ULL
#define TAG_CHAIN_WITNESS 0x636861696eULL

/* ---------------------------------------------------------------- dense */

typedef struct dense_layout {
    uint64_t m, lanes;
    uint32_t n_pub;
} dense_layout;

static void dense_layout_of(dense_layout *d, unsigned log2)
{
    uint64_t n = (uint64_t)1 << log2;
    d->lanes = n >> 10 ? n >> 10 : 1;
    uint64_t pub = n >> 9 ? n >> 9 : 1;
    if (pub > 328)
        pub = 328;
    if (pub > d->lanes)
        pub = d->lanes;
    d->n_pub = (uint32_t)pub;
    d->m = n - pub - 1;
}

void zp__dense_shape(zp__synth_shape *out, unsigned log2)
{
    dense_layout d;
    dense_layout_of(&d, log2);
    out->n_constraints = d.m;
    out->n_public = d.n_pub;
    out->n_vars = (uint32_t)(1 + d.m + 2 * d.lanes);
    out->nnz_a = 2 * d.m;
    out->nnz_b = 2 * d.m;
    out->nnz_c = d.m;
}

/* First row of lane j (rows are spread evenly, every lane gets >= 1). */
static uint64_t dense_row0(const dense_layout *d, uint64_t j)
{
    return j * d->m / d->lanes;
}

/* The variable index of u_k in lane j. */
static uint32_t dense_var(const dense_layout *d, uint64_t j, uint64_t k)
{
    uint64_t pubs_before = j < d->n_pub ? j : d->n_pub;
    uint64_t aux0 = 1 + d->n_pub + dense_row0(d, j) + 2 * j - pubs_before;
    if (j < d->n_pub)
        return k == 0 ? (uint32_t)(1 + j) : (uint32_t)(aux0 + k - 1);
    return (uint32_t)(aux0 + k);
}

typedef struct dense_ctx {
    dense_layout d;
    zp__r1cs *cs;
    zp_fr *w;
    uint64_t seed;
    zp__synth_consts k;
} dense_ctx;

static void dense_fill_lanes(void *arg, size_t begin, size_t end)
{
    dense_ctx *x = arg;
    for (uint64_t j = begin; j < end; j++) {
        uint64_t r0 = dense_row0(&x->d, j), r1 = dense_row0(&x->d, j + 1);
        zp__rw a = {&x->cs->a, 2 * r0}, b = {&x->cs->b, 2 * r0};
        zp__rw c = {x->cs->c.nrows ? &x->cs->c : NULL, r0};
        uint64_t rng = zp__sm64_seed(ZP__SYNTH_CIRCUIT_SEED, TAG_DENSE_CIRCUIT, j);
        for (uint64_t r = 0; r < r1 - r0; r++) {
            zp_fr cr, dr;
            zp__synth_rand_fr(&cr, &rng);
            zp__synth_rand_fr(&dr, &rng);
            zp__rw_put(&a, 0, &cr);
            zp__rw_put(&a, dense_var(&x->d, j, r + 1), &x->k.one);
            zp__rw_put(&b, 0, &dr);
            zp__rw_put(&b, dense_var(&x->d, j, r), &x->k.one);
            zp__rw_put(&c, dense_var(&x->d, j, r + 2), &x->k.one);
            zp__rw_end(&a, r0 + r);
            zp__rw_end(&b, r0 + r);
            zp__rw_end(&c, r0 + r);
        }
    }
}

zp_err zp__dense_fill(zp__r1cs *cs, const zp__synth_spec *s)
{
    dense_ctx x = {.cs = cs};
    dense_layout_of(&x.d, s->log2);
    zp__synth_consts_init(&x.k);
    zp__r1cs_par_for(x.d.lanes, 16, s->threads, dense_fill_lanes, &x);
    return ZP_OK;
}

/* Each new variable is the product of its row's A and B evaluations, so
 * the row holds by construction whatever the constants are. */
static void dense_witness_lanes(void *arg, size_t begin, size_t end)
{
    dense_ctx *x = arg;
    for (uint64_t j = begin; j < end; j++) {
        uint64_t r0 = dense_row0(&x->d, j), r1 = dense_row0(&x->d, j + 1);
        uint64_t rng = zp__sm64_seed(x->seed, TAG_DENSE_WITNESS, j);
        zp__synth_rand_fr(&x->w[dense_var(&x->d, j, 0)], &rng);
        zp__synth_rand_fr(&x->w[dense_var(&x->d, j, 1)], &rng);
        for (uint64_t r = 0; r < r1 - r0; r++) {
            zp_fr av, bv;
            zp__csr_row_dot(&av, &x->cs->a, r0 + r, x->w);
            zp__csr_row_dot(&bv, &x->cs->b, r0 + r, x->w);
            zp_fr_mul(&x->w[dense_var(&x->d, j, r + 2)], &av, &bv);
        }
    }
}

zp_err zp__dense_witness(zp_fr *w, const zp__r1cs *cs, const zp__synth_spec *s, uint64_t seed)
{
    dense_ctx x = {.cs = (zp__r1cs *)cs, .w = w, .seed = seed};
    dense_layout_of(&x.d, s->log2);
    zp_fr_one(&w[0]);
    zp__parallel_for_progress(x.d.lanes, 16, dense_witness_lanes, &x, s->threads, s->progress,
                              "generating witness");
    return ZP_OK;
}

/* ---------------------------------------------------------------- chain */

/* Variables: 1 = x_0 (public), 2 = b, 2 + i = x_i for i >= 1. */
static uint32_t chain_x(uint64_t i)
{
    return i == 0 ? 1 : (uint32_t)(2 + i);
}

void zp__chain_shape(zp__synth_shape *out, unsigned log2)
{
    uint64_t m = ((uint64_t)1 << log2) - 2;
    out->n_constraints = m;
    out->n_public = 1;
    out->n_vars = (uint32_t)(m + 3);
    out->nnz_a = m;
    out->nnz_b = m;
    out->nnz_c = 2 * m;
}

typedef struct chain_ctx {
    zp__r1cs *cs;
    zp__synth_consts k;
} chain_ctx;

static void chain_fill_rows(void *arg, size_t begin, size_t end)
{
    chain_ctx *x = arg;
    zp__rw a = {&x->cs->a, begin}, b = {&x->cs->b, begin};
    zp__rw c = {x->cs->c.nrows ? &x->cs->c : NULL, 2 * begin};
    for (uint64_t i = begin; i < end; i++) {
        /* x_i * x_i = x_{i+1} - b */
        zp__rw_put(&a, chain_x(i), &x->k.one);
        zp__rw_put(&b, chain_x(i), &x->k.one);
        zp__rw_put(&c, 2, &x->k.minus_one);
        zp__rw_put(&c, chain_x(i + 1), &x->k.one);
        zp__rw_end(&a, i);
        zp__rw_end(&b, i);
        zp__rw_end(&c, i);
    }
}

zp_err zp__chain_fill(zp__r1cs *cs, const zp__synth_spec *s)
{
    chain_ctx x = {.cs = cs};
    zp__synth_consts_init(&x.k);
    zp__r1cs_par_for(cs->a.nrows, 1 << 16, s->threads, chain_fill_rows, &x);
    return ZP_OK;
}

zp_err zp__chain_witness(zp_fr *w, const zp__r1cs *cs, const zp__synth_spec *s, uint64_t seed)
{
    (void)s;
    uint64_t rng = zp__sm64_seed(seed, TAG_CHAIN_WITNESS, 0);
    zp_fr_one(&w[0]);
    zp__synth_rand_fr(&w[1], &rng);
    zp__synth_rand_fr(&w[2], &rng);
    for (uint64_t i = 0; i < cs->a.nrows; i++) {
        zp_fr t;
        zp_fr_sqr(&t, &w[chain_x(i)]);
        zp_fr_add(&w[chain_x(i + 1)], &t, &w[2]);
    }
    return ZP_OK;
}
