/*
 * The G1 batch-affine flush on eight lanes (msm_ifma.h). Additions k are
 * taken eight at a time (group g = additions 8g .. 8g+7, lane = k mod 8):
 *   forward:  load x1, y1 (the bucket) and x2, y2 (the point) in R' form,
 *             den = x2 - x1, num = y2 - y1 (doublings: 2 y1, 3 x1^2),
 *             pre[g] = acc, acc *= den (eight interleaved prefix chains);
 *   middle:   the eight lane totals inverted with one scalar inversion
 *             (Montgomery's trick across the lanes);
 *   backward: 1/den = inv * pre[g], inv *= den; lam = num / den,
 *             x3 = lam^2 - x1 - x2, y3 = lam (x1 - x3) - y1, stored back.
 * Lanes past cnt are padding: x1 = 0, x2 = 1 (so den = 1), results to a
 * sink. Twelve vector products a group against six scalar products an
 * addition for the scalar flush.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/msm_ifma.h"
#include "math/field.h"

bool zp__msm_ifma;

/* On where the CPU has IFMA, unless ZKPIPE_IFMA=off (for comparisons). */
__attribute__((constructor)) static void msm_ifma_detect(void)
{
    const char *env = getenv("ZKPIPE_IFMA");
    zp__msm_ifma = zp__ifma_available() && !(env && !strcmp(env, "off"));
}

enum { V_X1, V_Y1, V_X2, V_NUM, V_DEN, V_PRE, V_COUNT };

bool zp__flush8_alloc(zp__flush8 *s, size_t cap)
{
    s->groups = (cap + 7) / 8;
    s->v = aligned_alloc(64, s->groups * V_COUNT * sizeof *s->v);
    return s->v != NULL;
}

void zp__flush8_free(zp__flush8 *s)
{
    free(s->v);
    s->v = NULL;
}

/* out takes b's lanes where mask has a bit. */
static void blend(zp__fp52x8 *out, const zp__fp52x8 *b, unsigned mask)
{
    for (int j = 0; j < 8; j++)
        for (int k = 0; k < 8; k++)
            if (mask >> k & 1)
                out->l[j][k] = b->l[j][k];
}

void zp__g1_flush8(zp__flush8 *s, zp_g1_affine *b, const uint32_t *eb, const zp_g1_affine *eq,
                   size_t cnt, uint32_t dbl_bit)
{
    static const zp_fp zero;
    zp_fp one, sink;
    zp_fp_one(&one);
    size_t groups = (cnt + 7) / 8;
    zp__fp52x8 acc, t, u, y2;
    const zp_fp *ones[8];
    for (int k = 0; k < 8; k++)
        ones[k] = &one;
    zp__fp52x8_load(&acc, ones);
    for (size_t g = 0; g < groups; g++) {
        zp__fp52x8 *v = s->v + g * V_COUNT;
        const zp_fp *px1[8], *py1[8], *px2[8], *py2[8];
        unsigned dbl = 0;
        for (int k = 0; k < 8; k++) {
            size_t e = 8 * g + (size_t)k;
            if (e < cnt) {
                const zp_g1_affine *p1 = &b[eb[e] & ~dbl_bit];
                px1[k] = &p1->x;
                py1[k] = &p1->y;
                px2[k] = &eq[e].x;
                py2[k] = &eq[e].y;
                dbl |= (eb[e] & dbl_bit ? 1u : 0u) << k;
            } else {
                px1[k] = py1[k] = py2[k] = &zero;
                px2[k] = &one;
            }
        }
        zp__fp52x8_load(&v[V_X1], px1);
        zp__fp52x8_load(&v[V_Y1], py1);
        zp__fp52x8_load(&v[V_X2], px2);
        zp__fp52x8_load(&y2, py2);
        zp__fp52x8_sub(&v[V_NUM], &y2, &v[V_Y1]);
        zp__fp52x8_sub(&v[V_DEN], &v[V_X2], &v[V_X1]);
        if (dbl) { /* slope 3 x1^2 / 2 y1 in those lanes */
            zp__fp52x8_mul(&t, &v[V_X1], &v[V_X1]);
            zp__fp52x8_add(&u, &t, &t);
            zp__fp52x8_add(&u, &u, &t);
            blend(&v[V_NUM], &u, dbl);
            zp__fp52x8_add(&u, &v[V_Y1], &v[V_Y1]);
            blend(&v[V_DEN], &u, dbl);
        }
        v[V_PRE] = acc;
        zp__fp52x8_mul(&acc, &acc, &v[V_DEN]);
    }

    /* The eight lane totals: one inversion for all of them. */
    zp_fp tot[8], pre[8], inv, run;
    zp_fp *pt[8];
    const zp_fp *ct[8];
    for (int k = 0; k < 8; k++) {
        pt[k] = &tot[k];
        ct[k] = &tot[k];
    }
    zp__fp52x8_store(pt, &acc);
    run = one;
    for (int k = 0; k < 8; k++) {
        pre[k] = run;
        zp_fp_mul(&run, &run, &tot[k]);
    }
    zp__fp_inv_vartime(&inv, &run);
    for (int k = 8; k-- > 0;) {
        zp_fp ik;
        zp_fp_mul(&ik, &inv, &pre[k]);
        zp_fp_mul(&inv, &inv, &tot[k]);
        tot[k] = ik;
    }
    zp__fp52x8 vinv;
    zp__fp52x8_load(&vinv, ct);

    for (size_t g = groups; g-- > 0;) {
        zp__fp52x8 *v = s->v + g * V_COUNT;
        zp__fp52x8 ik, lam, x3, y3;
        zp__fp52x8_mul(&ik, &vinv, &v[V_PRE]);
        zp__fp52x8_mul(&vinv, &vinv, &v[V_DEN]);
        zp__fp52x8_mul(&lam, &v[V_NUM], &ik);
        zp__fp52x8_mul(&t, &lam, &lam);
        zp__fp52x8_sub(&t, &t, &v[V_X1]);
        zp__fp52x8_sub(&x3, &t, &v[V_X2]);
        zp__fp52x8_sub(&t, &v[V_X1], &x3);
        zp__fp52x8_mul(&t, &t, &lam);
        zp__fp52x8_sub(&y3, &t, &v[V_Y1]);
        zp_fp *ox[8], *oy[8];
        for (int k = 0; k < 8; k++) {
            size_t e = 8 * g + (size_t)k;
            zp_g1_affine *p1 = e < cnt ? &b[eb[e] & ~dbl_bit] : NULL;
            ox[k] = p1 ? &p1->x : &sink;
            oy[k] = p1 ? &p1->y : &sink;
        }
        zp__fp52x8_store(ox, &x3);
        zp__fp52x8_store(oy, &y3);
    }
}
