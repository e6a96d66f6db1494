/*
 * The bucket fold of eight Pippenger tasks at once, one task a lane
 * (msm_ifma.c includes it per group, with msm_ifma_impl.h's IF_ names and
 *   IF_FOLD        the function's name
 *   IF_XYZZ, IF_G(op)   the group's XYZZ type and functions
 *   IF_ZMASK(v)    the lanes where the coordinate v is zero).
 *
 * Lane k computes sum_j (j + 1) B_k[j] by running sums, as msm_impl.h's
 * bat_reduce with K = 1: run += B[j] (madd-2008-s from the affine bucket,
 * held in R' form), acc += run (add-2008-s), both in XYZZ on the lanes in
 * R' form. Lanes whose bucket j is empty keep their run. The cases the
 * formulas do not cover (run or acc at infinity, equal or opposite
 * points) are found by zero tests: infinity takes the other operand by a
 * blend, and the rare equal or opposite pair is redone in scalar code for
 * that lane alone; so are the side buckets (XYZZ, library form).
 */

typedef struct IF_S(lx) {
    IF_V x, y, zz, zzz;
} IF_S(lx);

/* Lane k of v out to the library's form, and back in. */
static IF_ATTR void IF_S(lane_get)(IF_XYZZ *out, const IF_S(lx) *v, int k)
{
    IF_FE t[8];
    IF_FE *pt[8];
    for (int i = 0; i < 8; i++)
        pt[i] = &t[i];
    const IF_V *c[4] = {&v->x, &v->y, &v->zz, &v->zzz};
    IF_FE *o[4] = {&out->x, &out->y, &out->zz, &out->zzz};
    for (int i = 0; i < 4; i++) {
        IF_STORE_RAW(pt, c[i]);
        IF_FROM_R52(o[i], &t[k]);
    }
}

static IF_ATTR void IF_S(lane_set)(IF_S(lx) *v, int k, const IF_XYZZ *in)
{
    IF_FE t[8];
    IF_FE *pt[8];
    const IF_FE *ct[8];
    for (int i = 0; i < 8; i++) {
        pt[i] = &t[i];
        ct[i] = &t[i];
    }
    IF_V *c[4] = {&v->x, &v->y, &v->zz, &v->zzz};
    const IF_FE *src[4] = {&in->x, &in->y, &in->zz, &in->zzz};
    for (int i = 0; i < 4; i++) {
        IF_STORE_RAW(pt, c[i]);
        IF_TO_R52(&t[k], src[i]);
        IF_LOAD_RAW(c[i], ct);
    }
}

static IF_ATTR void IF_S(lx_blend)(IF_S(lx) *out, const IF_S(lx) *b, unsigned mask)
{
    blend((zp__fp52x8 *)&out->x, (const zp__fp52x8 *)&b->x, mask, IF_W);
    blend((zp__fp52x8 *)&out->y, (const zp__fp52x8 *)&b->y, mask, IF_W);
    blend((zp__fp52x8 *)&out->zz, (const zp__fp52x8 *)&b->zz, mask, IF_W);
    blend((zp__fp52x8 *)&out->zzz, (const zp__fp52x8 *)&b->zzz, mask, IF_W);
}

/* What madd-2008-s and add-2008-s share once P = U2 - U1 and R = S2 - S1
 * are known: PP, PPP, X3 = R^2 - PPP - 2 U1 PP, Y3 = R (U1 PP - X3) - S1 PPP. */
static IF_ATTR void IF_S(lx_tail)(IF_V *pp, IF_V *ppp, IF_V *x3, IF_V *y3, const IF_V *P,
                                  const IF_V *R, const IF_V *u1, const IF_V *s1)
{
    IF_V Q, t;
    IF_SQR(pp, P);
    IF_MUL(ppp, P, pp);
    IF_MUL(&Q, u1, pp);
    IF_SQR(x3, R);
    IF_SUB(x3, x3, ppp);
    IF_SUB(x3, x3, &Q);
    IF_SUB(x3, x3, &Q);
    IF_SUB(&t, &Q, x3);
    IF_MUL(y3, R, &t);
    IF_MUL(&t, s1, ppp);
    IF_SUB(y3, y3, &t);
}

/* p += (qx, qy) in the lanes of `on`; bk[k] is lane k's affine point (R'
 * form), for the scalar redo. */
static IF_ATTR void IF_S(lx_madd)(IF_S(lx) *p, const IF_V *qx, const IF_V *qy,
                                  const IF_V *one, unsigned on, const IF_AFF *const bk[8])
{
    IF_V u2, s2, P, R, pp, ppp, x3, y3;
    IF_MUL(&u2, qx, &p->zz);
    IF_MUL(&s2, qy, &p->zzz);
    IF_SUB(&P, &u2, &p->x);
    IF_SUB(&R, &s2, &p->y);
    IF_S(lx_tail)(&pp, &ppp, &x3, &y3, &P, &R, &p->x, &p->y);
    unsigned inf = IF_ZMASK(&p->zz) & on, odd = IF_ZMASK(&P) & on & ~inf;
    IF_S(lx) r;
    r.x = x3;
    r.y = y3;
    IF_MUL(&r.zz, &p->zz, &pp);
    IF_MUL(&r.zzz, &p->zzz, &ppp);
    IF_S(lx) q = {*qx, *qy, *one, *one};
    IF_S(lx_blend)(p, &r, on & ~inf & ~odd);
    IF_S(lx_blend)(p, &q, inf);
    for (int k = 0; k < 8; k++)
        if (odd >> k & 1) {
            IF_XYZZ a;
            IF_AFF q1;
            IF_FROM_R52(&q1.x, &bk[k]->x);
            IF_FROM_R52(&q1.y, &bk[k]->y);
            IF_S(lane_get)(&a, p, k);
            IF_G(xyzz_add_affine)(&a, &a, &q1);
            IF_S(lane_set)(p, k, &a);
        }
}

/* p += q in the lanes of `on`. */
static IF_ATTR void IF_S(lx_add)(IF_S(lx) *p, const IF_S(lx) *q, unsigned on)
{
    unsigned qinf = IF_ZMASK(&q->zz), pinf = IF_ZMASK(&p->zz);
    on &= ~qinf;
    IF_S(lx_blend)(p, q, on & pinf);
    on &= ~pinf;
    if (!on)
        return;
    IF_V u1, u2, s1, s2, P, R, pp, ppp, t, x3, y3;
    IF_MUL(&u1, &p->x, &q->zz);
    IF_MUL(&u2, &q->x, &p->zz);
    IF_MUL(&s1, &p->y, &q->zzz);
    IF_MUL(&s2, &q->y, &p->zzz);
    IF_SUB(&P, &u2, &u1);
    IF_SUB(&R, &s2, &s1);
    IF_S(lx_tail)(&pp, &ppp, &x3, &y3, &P, &R, &u1, &s1);
    IF_S(lx) r;
    r.x = x3;
    r.y = y3;
    IF_MUL(&t, &p->zz, &q->zz);
    IF_MUL(&r.zz, &t, &pp);
    IF_MUL(&t, &p->zzz, &q->zzz);
    IF_MUL(&r.zzz, &t, &ppp);
    unsigned odd = IF_ZMASK(&P) & on;
    IF_S(lx_blend)(p, &r, on & ~odd);
    for (int k = 0; k < 8; k++)
        if (odd >> k & 1) {
            IF_XYZZ a, b;
            IF_S(lane_get)(&a, p, k);
            IF_S(lane_get)(&b, q, k);
            IF_G(xyzz_add)(&a, &a, &b);
            IF_S(lane_set)(p, k, &a);
        }
}

/*
 * out[k] = sum_j (j + 1) (b[k][j] + x[k][j]) for the n <= 8 lanes k and
 * buckets j < nb, where st[k][j] says which are there: full_bit, b[k][j]
 * (affine, R' form); spill_bit, x[k][j] (XYZZ, library form).
 */
static IF_ATTR void IF_FOLD(IF_XYZZ *const out[8], const IF_AFF *const b[8],
                            const IF_XYZZ *const x[8], const uint8_t *const st[8], int n,
                            size_t nb, uint8_t full_bit, uint8_t spill_bit)
{
    static const IF_AFF zero_pt;
    IF_FE one_r;
    IF_F(one)(&one_r);
    IF_TO_R52(&one_r, &one_r);
    const IF_FE *po[8];
    for (int k = 0; k < 8; k++)
        po[k] = &one_r;
    IF_V one;
    IF_LOAD_RAW(&one, po);
    IF_S(lx) run, acc;
    memset(&run, 0, sizeof run);
    memset(&acc, 0, sizeof acc);
    unsigned lanes = (1u << n) - 1;
    for (size_t j = nb; j-- > 0;) {
        unsigned full = 0, spill = 0;
        const IF_FE *px[8], *py[8];
        const IF_AFF *bk[8];
        for (int k = 0; k < 8; k++) {
            const IF_AFF *p = &zero_pt;
            if (k < n) {
                uint8_t f = st[k][j];
                full |= (unsigned)!!(f & full_bit) << k;
                spill |= (unsigned)!!(f & spill_bit) << k;
                if (f & full_bit)
                    p = &b[k][j];
            }
            px[k] = &p->x;
            py[k] = &p->y;
            bk[k] = p;
        }
        if (full) {
            IF_V qx, qy;
            IF_LOAD_RAW(&qx, px);
            IF_LOAD_RAW(&qy, py);
            IF_S(lx_madd)(&run, &qx, &qy, &one, full, bk);
        }
        for (int k = 0; k < n; k++)
            if (spill >> k & 1) {
                IF_XYZZ a;
                IF_S(lane_get)(&a, &run, k);
                IF_G(xyzz_add)(&a, &a, &x[k][j]);
                IF_S(lane_set)(&run, k, &a);
            }
        IF_S(lx_add)(&acc, &run, lanes);
    }
    for (int k = 0; k < n; k++)
        IF_S(lane_get)(out[k], &acc, k);
}
