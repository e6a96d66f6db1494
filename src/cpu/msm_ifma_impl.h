/*
 * The eight-lane batch flush, written once for G1 and G2 (msm_ifma.c
 * includes it per group). The includer defines
 *   IF_FLUSH        the function's name
 *   IF_AFF, IF_FE   the affine point type and its coordinate field
 *   IF_V            the coordinate on eight lanes (an Fp or Fp2 vector)
 *   IF_W            zp__fp52x8 per IF_V (1 or 2)
 *   IF_LOAD(v, p), IF_STORE(p, v)   eight coordinates in and out by pointer
 *   IF_LOAD_RAW, IF_STORE_RAW       the same for coordinates in R' form
 *   IF_TO_R52, IF_FROM_R52          one coordinate into and out of R' form
 *   IF_ADD, IF_SUB, IF_MUL          lane arithmetic (out, a, b)
 *   IF_SQR                          lane square (out, a)
 *   IF_MUL_LZ, IF_SQR_LZ, IF_RED    lazy product and square (no final
 *                                   subtraction: operands below 2p give
 *                                   results below 2p) and the reduction
 *                                   that makes such a value canonical
 *   IF_F(op)        the scalar field's functions; IF_FINV its inversion
 *   IF_ATTR         the flush's attributes (the vector target when the
 *                   lane operations are inlined, fp_ifma_vec.h)
 * Algorithm: msm_ifma.c.
 */

/* raw: b and eq hold R' form (fp_ifma.h), so loads and stores need no
 * product; only the eight lane totals leave that form, for the inversion. */
static IF_ATTR void IF_FLUSH(zp__flush8 *s, IF_AFF *b, const uint32_t *eb, const IF_AFF *eq, size_t cnt,
                     uint32_t dbl_bit, bool raw)
{
#define IF_IN(v, p) (raw ? IF_LOAD_RAW(v, p) : IF_LOAD(v, p))
#define IF_OUT(p, v) (raw ? IF_STORE_RAW(p, v) : IF_STORE(p, v))
    static const IF_FE zero;
    IF_FE one, sink;
    IF_F(one)(&one);
    if (raw)
        IF_TO_R52(&one, &one);
    size_t groups = (cnt + 7) / 8;
    IF_V *vs = (IF_V *)s->v;
    IF_V acc, t, u, y2;
    const IF_FE *ones[8];
    for (int k = 0; k < 8; k++)
        ones[k] = &one;
    IF_IN(&acc, ones);
    for (size_t g = 0; g < groups; g++) {
        IF_V *v = vs + g * V_COUNT;
        const IF_FE *px1[8], *py1[8], *px2[8], *py2[8];
        unsigned dbl = 0;
        for (int k = 0; k < 8; k++) {
            size_t e = 8 * g + (size_t)k;
            if (e < cnt) {
                const IF_AFF *p1 = &b[eb[e] & ~dbl_bit];
                px1[k] = &p1->x;
                py1[k] = &p1->y;
                px2[k] = &eq[e].x;
                py2[k] = &eq[e].y;
                dbl |= (eb[e] & dbl_bit ? 1u : 0u) << k;
            } else { /* padding: den = 1 - 0, num = 0 */
                px1[k] = py1[k] = py2[k] = &zero;
                px2[k] = &one;
            }
        }
        IF_IN(&v[V_X1], px1);
        IF_IN(&v[V_Y1], py1);
        IF_IN(&v[V_X2], px2);
        IF_IN(&y2, py2);
        IF_SUB(&v[V_NUM], &y2, &v[V_Y1]);
        IF_SUB(&v[V_DEN], &v[V_X2], &v[V_X1]);
        if (dbl) { /* slope 3 x1^2 / 2 y1 in those lanes */
            IF_SQR_LZ(&t, &v[V_X1]);
            IF_ADD(&u, &t, &t);
            IF_ADD(&u, &u, &t);
            blend((zp__fp52x8 *)&v[V_NUM], (const zp__fp52x8 *)&u, dbl, IF_W);
            IF_ADD(&u, &v[V_Y1], &v[V_Y1]);
            blend((zp__fp52x8 *)&v[V_DEN], (const zp__fp52x8 *)&u, dbl, IF_W);
        }
        v[V_PRE] = acc;
        IF_MUL_LZ(&acc, &acc, &v[V_DEN]);
    }
    IF_RED(&acc, &acc); /* the totals leave the lanes canonical */

    /* 1 / acc lane by lane with one scalar inversion: with the inclusive
     * prefix products P_k = acc_0 .. acc_k and the exclusive suffix
     * products S_k = acc_k+1 .. acc_7 (three shifted products each), 1 /
     * acc_k = (1 / P_7) P_k-1 S_k. Lane shifts fill with one. */
    IF_V vone, pfx, sfx, sh, vinv;
    IF_IN(&vone, ones);
    pfx = acc;
    lane_shift((zp__fp52x8 *)&sfx, (const zp__fp52x8 *)&acc, -1, (const zp__fp52x8 *)&vone,
               IF_W);
    for (int d = 1; d < 8; d *= 2) {
        lane_shift((zp__fp52x8 *)&sh, (const zp__fp52x8 *)&pfx, d, (const zp__fp52x8 *)&vone,
                   IF_W);
        IF_MUL(&pfx, &pfx, &sh);
        lane_shift((zp__fp52x8 *)&sh, (const zp__fp52x8 *)&sfx, -d, (const zp__fp52x8 *)&vone,
                   IF_W);
        IF_MUL(&sfx, &sfx, &sh);
    }
    IF_FE tot[8], inv;
    IF_FE *pt[8];
    const IF_FE *ct[8];
    for (int k = 0; k < 8; k++) {
        pt[k] = &tot[k];
        ct[k] = &inv;
    }
    IF_OUT(pt, &pfx); /* tot[7] = P_7 */
    inv = tot[7];
    if (raw)
        IF_FROM_R52(&inv, &inv);
    IF_FINV(&inv, &inv);
    if (raw)
        IF_TO_R52(&inv, &inv);
    IF_V vtot;
    IF_IN(&vtot, ct);
    lane_shift((zp__fp52x8 *)&sh, (const zp__fp52x8 *)&pfx, 1, (const zp__fp52x8 *)&vone, IF_W);
    IF_MUL(&vinv, &vtot, &sh);
    IF_MUL(&vinv, &vinv, &sfx);

    for (size_t g = groups; g-- > 0;) {
        IF_V *v = vs + g * V_COUNT;
        IF_V ik, lam, x3, y3;
        /* Lazy products (operands below 2p give results below 2p); a
         * difference with a lazy left side and a canonical right one is
         * below 2p as well, and one reduction makes it canonical: x3
         * before it is subtracted and stored, y3 before it is stored. */
        IF_MUL_LZ(&ik, &vinv, &v[V_PRE]);
        IF_MUL_LZ(&vinv, &vinv, &v[V_DEN]);
        IF_MUL_LZ(&lam, &v[V_NUM], &ik);
        IF_SQR_LZ(&t, &lam);
        IF_SUB(&t, &t, &v[V_X1]);
        IF_SUB(&x3, &t, &v[V_X2]);
        IF_RED(&x3, &x3);
        IF_SUB(&t, &v[V_X1], &x3);
        IF_MUL_LZ(&t, &t, &lam);
        IF_SUB(&y3, &t, &v[V_Y1]);
        IF_RED(&y3, &y3);
        IF_FE *ox[8], *oy[8];
        for (int k = 0; k < 8; k++) {
            size_t e = 8 * g + (size_t)k;
            IF_AFF *p1 = e < cnt ? &b[eb[e] & ~dbl_bit] : NULL;
            ox[k] = p1 ? &p1->x : &sink;
            oy[k] = p1 ? &p1->y : &sink;
        }
        IF_OUT(ox, &x3);
        IF_OUT(oy, &y3);
    }
#undef IF_IN
#undef IF_OUT
}
