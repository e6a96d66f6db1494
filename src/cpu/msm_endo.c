/*
 * Endomorphism splits for the Pippenger MSM (GLV on G1, GLS on G2).
 *
 * Pippenger's additions cost about n * bits / c whatever the split, but each
 * window also pays a bucket fold of ~2^c additions, and there are bits / c
 * windows. Writing every scalar in base |x| (x = -0xd201000000010000, the
 * BLS parameter) turns n scalars of 255 bits into 4n (G2) or 2n (G1) of
 * 64 or 128 bits over points that cost a few field multiplications each:
 *
 *   G2: psi(P) = [x]P, so [|x|]P = -psi(P) and
 *       k P = sum_j d_j [|x|^j] P = sum_j d_j (-psi)^j(P),  k = sum_j d_j |x|^j;
 *   G1: phi(P) = [-x^2]P (subgroup.c's beta), so [x^2]P = -phi(P) and
 *       k P = k0 P + k1 (-phi(P)),  k = k0 + k1 x^2,  k0 < x^2.
 *
 * The identities hold for every integer k (the top digit simply keeps what
 * is left), so any 256-bit scalar is summed exactly, as cpu.h promises; they
 * need the points in the prime-order subgroups, which cpu.h requires.
 * The folds shrink to a quarter (G2) or half (G1) of the windows: the gain
 * is largest for small n, where folds weigh most. The split needs 2n or 4n
 * points of scratch and costs a few multiplications per pair, so large
 * inputs (where the fold share is small) keep the plain path.
 */
#include <stdlib.h>

#include "cpu/cpu.h"
#include "math/curve.h"

#define X_ABS 0xd201000000010000ULL

/* Above these many pairs the split is skipped: it gains up to 2^12 (G1)
 * and 2^13 (G2) pairs and only breaks even beyond, where its own cost (12
 * divisions by |x| and three psi per pair, 4n points of scratch) catches
 * up (zkpipe bench msm, random scalars, with and without the split). */
#define ENDO_MAX_G1 ((size_t)1 << 13)
#define ENDO_MAX_G2 ((size_t)1 << 13)

/* q = a / |x| over 4 limbs (q may alias a); returns a mod |x|. */
static uint64_t div_x(uint64_t q[4], const uint64_t a[4])
{
    unsigned __int128 r = 0;
    for (int i = 4; i-- > 0;) {
        unsigned __int128 cur = (r << 64) | a[i];
        q[i] = (uint64_t)(cur / X_ABS);
        r = cur % X_ABS;
    }
    return (uint64_t)r;
}

void zp__msm_split_x4(zp_fr d[4], const zp_fr *k)
{
    uint64_t q[4] = {k->l[0], k->l[1], k->l[2], k->l[3]};
    for (int j = 0; j < 3; j++) {
        d[j] = (zp_fr){{div_x(q, q), 0, 0, 0}};
    }
    d[3] = (zp_fr){{q[0], q[1], q[2], q[3]}};
}

void zp__msm_split_x2(zp_fr d[2], const zp_fr *k)
{
    uint64_t q[4] = {k->l[0], k->l[1], k->l[2], k->l[3]};
    uint64_t d0 = div_x(q, q), d1 = div_x(q, q);
    /* k0 = d0 + d1 |x| < |x|^2 < 2^128 */
    unsigned __int128 k0 = (unsigned __int128)d1 * X_ABS + d0;
    d[0] = (zp_fr){{(uint64_t)k0, (uint64_t)(k0 >> 64), 0, 0}};
    d[1] = (zp_fr){{q[0], q[1], q[2], q[3]}};
}

typedef struct endo_ctx {
    const void *points;
    const zp_fr *scalars;
    const uint32_t *idx;
    size_t n;
    void *pts; /* parts * n points: part j of pair i at j * n + i */
    zp_fr *sc;
} endo_ctx;

static void g1_task(void *ctx, size_t begin, size_t end)
{
    const endo_ctx *c = ctx;
    const zp_g1_affine *src = c->points;
    zp_g1_affine *pts = c->pts;
    for (size_t i = begin; i < end; i++) {
        size_t k = c->idx ? c->idx[i] : i;
        zp_fr d[2];
        zp__msm_split_x2(d, &c->scalars[k]);
        c->sc[i] = d[0];
        c->sc[c->n + i] = d[1];
        pts[i] = src[k];
        zp__g1_phi(&pts[c->n + i], &src[k]);
        zp_g1_affine_neg(&pts[c->n + i], &pts[c->n + i]);
    }
}

static void g2_task(void *ctx, size_t begin, size_t end)
{
    const endo_ctx *c = ctx;
    const zp_g2_affine *src = c->points;
    zp_g2_affine *pts = c->pts;
    for (size_t i = begin; i < end; i++) {
        size_t k = c->idx ? c->idx[i] : i;
        zp_fr d[4];
        zp__msm_split_x4(d, &c->scalars[k]);
        zp_g2_affine q = src[k];
        for (size_t j = 0; j < 4; j++) {
            /* part j is (-psi)^j(P) */
            c->sc[j * c->n + i] = d[j];
            pts[j * c->n + i] = q;
            zp__g2_psi(&q, &q);
            zp_g2_affine_neg(&q, &q);
        }
    }
}

/* The split sum over parts * n pairs, or ZP_E_NOMEM (out infinity). */
static zp_err endo_run(endo_ctx *c, size_t parts, size_t pt_size,
                       void (*task)(void *, size_t, size_t), int threads, bool g2,
                       void *out)
{
    c->pts = malloc(parts * c->n * pt_size);
    c->sc = malloc(parts * c->n * sizeof(zp_fr));
    zp_err e = ZP_E_NOMEM;
    if (c->pts && c->sc) {
        zp__parallel_for(c->n, 1024, task, c, threads);
        e = g2 ? zp__cpu_msm_g2_pippenger(out, c->pts, c->sc, NULL, parts * c->n, 0, threads)
               : zp__cpu_msm_g1_pippenger(out, c->pts, c->sc, NULL, parts * c->n, 0, threads);
    }
    free(c->pts);
    free(c->sc);
    return e;
}

zp_err zp__cpu_msm_g1_endo(zp_g1_jac *out, const zp_g1_affine *points, const zp_fr *scalars,
                           const uint32_t *idx, size_t n, int threads)
{
    if (n == 0 || n > ENDO_MAX_G1)
        return zp__cpu_msm_g1_pippenger(out, points, scalars, idx, n, 0, threads);
    endo_ctx c = {.points = points, .scalars = scalars, .idx = idx, .n = n};
    zp_err e = endo_run(&c, 2, sizeof(zp_g1_affine), g1_task, threads, false, out);
    if (e)
        zp_g1_jac_inf(out);
    return e;
}

zp_err zp__cpu_msm_g2_endo(zp_g2_jac *out, const zp_g2_affine *points, const zp_fr *scalars,
                           const uint32_t *idx, size_t n, int threads)
{
    if (n == 0 || n > ENDO_MAX_G2)
        return zp__cpu_msm_g2_pippenger(out, points, scalars, idx, n, 0, threads);
    endo_ctx c = {.points = points, .scalars = scalars, .idx = idx, .n = n};
    zp_err e = endo_run(&c, 4, sizeof(zp_g2_affine), g2_task, threads, true, out);
    if (e)
        zp_g2_jac_inf(out);
    return e;
}
