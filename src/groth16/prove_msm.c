/*
 * The msm and finish stages of the CPU prover (groth16.h): scalars are
 * taken out of Montgomery form, paired with the key's compact A/B arrays
 * through the density maps, summed by the CPU MSM, then blinded.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/cpu.h"
#include "groth16/groth16.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct conv_ctx {
    zp_fr *out;
    const zp_fr *in;
} conv_ctx;

static void conv_task(void *p, size_t begin, size_t end)
{
    const conv_ctx *x = p;
    for (size_t i = begin; i < end; i++)
        zp_fr_from_mont(&x->out[i], &x->in[i]);
}

static void to_standard(zp_fr *out, const zp_fr *in, size_t n, int threads)
{
    conv_ctx x = {out, in};
    zp__parallel_for(n, 1 << 14, conv_task, &x, threads);
}

/* The scalars of the variables in d, in variable order. */
static void gather(zp_fr *out, const zp__bitmap *d, const zp_fr *w)
{
    size_t k = 0;
    for (uint64_t i = 0; i < d->nbits; i++)
        if (zp__bitmap_get(d, i))
            out[k++] = w[i];
}

typedef struct scalars {
    zp_fr *w, *a, *b, *h;
} scalars;

static void scalars_free(scalars *s)
{
    free(s->w);
    free(s->a);
    free(s->b);
    free(s->h);
}

static zp_err scalars_make(scalars *s, const zp__pk *pk, const zp_fr *w, const zp_fr *h,
                           int threads)
{
    /* +1: never a zero-size malloc. Counts fit size_t: the key holds
     * arrays of these lengths already. */
    s->w = malloc(((size_t)pk->n_vars + 1) * sizeof(zp_fr));
    s->a = malloc(((size_t)pk->n_a + 1) * sizeof(zp_fr));
    s->b = malloc(((size_t)pk->n_b + 1) * sizeof(zp_fr));
    s->h = malloc(((size_t)pk->n_h + 1) * sizeof(zp_fr));
    if (!s->w || !s->a || !s->b || !s->h)
        return ZP_E_NOMEM;
    to_standard(s->w, w, pk->n_vars, threads);
    to_standard(s->h, h, (size_t)pk->n_h, threads);
    gather(s->a, &pk->a_density, s->w);
    gather(s->b, &pk->b_density, s->w);
    return ZP_OK;
}

zp_err zp__g16_msm(zp__g16_sums *out, const zp__pk *pk, const zp_fr *w, const zp_fr *h,
                   int threads, zp__prove_times *t)
{
    zp__prove_times dummy;
    if (!t)
        t = &dummy;
    scalars s = {0};
    zp_err e = scalars_make(&s, pk, w, h, threads);
    double t0 = now(), t1, t2, t3, t4, t5;
    if (!e)
        e = zp__cpu_msm_g1(&out->a, pk->a, s.a, (size_t)pk->n_a, threads);
    t1 = now();
    if (!e)
        e = zp__cpu_msm_g1(&out->b1, pk->b1, s.b, (size_t)pk->n_b, threads);
    t2 = now();
    if (!e)
        e = zp__cpu_msm_g2(&out->b2, pk->b2, s.b, (size_t)pk->n_b, threads);
    t3 = now();
    if (!e)
        e = zp__cpu_msm_g1(&out->l, pk->l, s.w + pk->n_public + 1, (size_t)pk->n_l, threads);
    t4 = now();
    if (!e)
        e = zp__cpu_msm_g1(&out->h, pk->h, s.h, (size_t)pk->n_h, threads);
    t5 = now();
    scalars_free(&s);
    t->msm_a = t1 - t0;
    t->msm_b1 = t2 - t1;
    t->msm_b2 = t3 - t2;
    t->msm_l = t4 - t3;
    t->msm_h = t5 - t4;
    return e;
}

/* ---------------------------------------------------------------- finish */

static void g1_mul(zp_g1_jac *out, const zp_g1_affine *p, const zp_fr *k)
{
    zp_fr plain;
    zp_g1_jac j;
    zp_fr_from_mont(&plain, k);
    zp_g1_jac_from_affine(&j, p);
    zp_g1_jac_mul_vartime(out, &j, plain.l, ZP_FR_LIMBS);
}

static void g2_mul(zp_g2_jac *out, const zp_g2_affine *p, const zp_fr *k)
{
    zp_fr plain;
    zp_g2_jac j;
    zp_fr_from_mont(&plain, k);
    zp_g2_jac_from_affine(&j, p);
    zp_g2_jac_mul_vartime(out, &j, plain.l, ZP_FR_LIMBS);
}

void zp__g16_finish(zp__proof *out, const zp__pk *pk, const zp__g16_sums *sums,
                    const zp_fr *r, const zp_fr *s)
{
    const zp__vk *vk = &pk->vk;
    zp_g1_jac pa, bp, pc, t;
    zp_g2_jac pb, t2;

    g1_mul(&t, &vk->delta1, r);                 /* π_A = α₁ + ΣA + rδ₁ */
    zp_g1_jac_add(&pa, &sums->a, &t);
    zp_g1_jac_add_affine(&pa, &pa, &vk->alpha1);

    g2_mul(&t2, &vk->delta2, s);                /* π_B = β₂ + ΣB2 + sδ₂ */
    zp_g2_jac_add(&pb, &sums->b2, &t2);
    zp_g2_jac_add_affine(&pb, &pb, &vk->beta2);

    g1_mul(&t, &vk->delta1, s);                 /* B′ = β₁ + ΣB1 + sδ₁ */
    zp_g1_jac_add(&bp, &sums->b1, &t);
    zp_g1_jac_add_affine(&bp, &bp, &vk->beta1);

    /* π_C = ΣL + ΣH + s·π_A + r·B′ − rs·δ₁ */
    zp_fr rs, splain, rplain;
    zp_fr_mul(&rs, r, s);
    zp_fr_from_mont(&splain, s);
    zp_fr_from_mont(&rplain, r);
    zp_g1_jac_add(&pc, &sums->l, &sums->h);
    zp_g1_jac_mul_vartime(&t, &pa, splain.l, ZP_FR_LIMBS);
    zp_g1_jac_add(&pc, &pc, &t);
    zp_g1_jac_mul_vartime(&t, &bp, rplain.l, ZP_FR_LIMBS);
    zp_g1_jac_add(&pc, &pc, &t);
    g1_mul(&t, &vk->delta1, &rs);
    zp_g1_jac_neg(&t, &t);
    zp_g1_jac_add(&pc, &pc, &t);

    zp_g1_jac_to_affine(&out->a, &pa);
    zp_g2_jac_to_affine(&out->b, &pb);
    zp_g1_jac_to_affine(&out->c, &pc);
}

zp_err zp__g16_ahead_make(zp__g16_ahead *a, const zp__pk *pk, const zp_fr *w,
                          const zp__prove_opts *o)
{
    const zp__vk *vk = &pk->vk;
    if (o && o->r) {
        a->r = *o->r;
        a->s = *o->s;
    } else if (zp_fr_random(&a->r) || zp_fr_random(&a->s)) {
        return ZP_E_RANDOM;
    }
    zp_g1_jac t;
    g1_mul(&a->pa, &vk->delta1, &a->r); /* α₁ + rδ₁ */
    zp_g1_jac_add_affine(&a->pa, &a->pa, &vk->alpha1);
    g2_mul(&a->pb, &vk->delta2, &a->s); /* β₂ + sδ₂ */
    zp_g2_jac_add_affine(&a->pb, &a->pb, &vk->beta2);
    zp_fr rs;                           /* sα₁ + rβ₁ + rsδ₁ */
    zp_fr_mul(&rs, &a->r, &a->s);
    g1_mul(&a->pc, &vk->delta1, &rs);
    g1_mul(&t, &vk->alpha1, &a->s);
    zp_g1_jac_add(&a->pc, &a->pc, &t);
    g1_mul(&t, &vk->beta1, &a->r);
    zp_g1_jac_add(&a->pc, &a->pc, &t);
    return zp__verify_vk_x(&a->vk_x, vk, w + 1, pk->n_public);
}

/* π_A, π_B and π_C less ΣH from the sums over the witness and a's terms. */
static void points_less_h(zp_g1_jac *pa, zp_g2_jac *pb, zp_g1_jac *pc, const zp__g16_sums *sums,
                          const zp__g16_ahead *a)
{
    zp_g1_jac t;
    zp_g1_jac_add(pa, &sums->a, &a->pa);
    zp_g2_jac_add(pb, &sums->b2, &a->pb);
    zp_fr splain, rplain;
    zp_fr_from_mont(&splain, &a->s);
    zp_fr_from_mont(&rplain, &a->r);
    zp_g1_jac_mul_vartime(&t, &sums->a, splain.l, ZP_FR_LIMBS);
    zp_g1_jac_add(pc, &sums->l, &t);
    zp_g1_jac_mul_vartime(&t, &sums->b1, rplain.l, ZP_FR_LIMBS);
    zp_g1_jac_add(pc, pc, &t);
    zp_g1_jac_add(pc, pc, &a->pc);
}

void zp__g16_finish_ahead(zp__proof *out, const zp__g16_sums *sums, const zp__g16_ahead *a)
{
    zp_g1_jac pa, pc;
    zp_g2_jac pb;
    points_less_h(&pa, &pb, &pc, sums, a);
    zp_g1_jac_add(&pc, &pc, &sums->h);
    zp_g1_jac_to_affine(&out->a, &pa);
    zp_g2_jac_to_affine(&out->b, &pb);
    zp_g1_jac_to_affine(&out->c, &pc);
}

void zp__g16_early_make(zp__g16_early *out, const zp__pk *pk, const zp__g16_sums *sums,
                        const zp__g16_ahead *a)
{
    zp_g1_jac pa;
    zp_g2_jac pb;
    zp_g1_affine pa_aff;
    zp_g2_affine pb_aff;
    points_less_h(&pa, &pb, &out->c_less_h, sums, a);
    zp_g1_jac_to_affine(&pa_aff, &pa);
    zp_g2_jac_to_affine(&pb_aff, &pb);
    out->e = zp__verify_early(&out->v, &pk->vk, &a->vk_x, &pa_aff, &pb_aff);
}
