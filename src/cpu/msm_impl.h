/*
 * Multi-scalar multiplication written once for G1 and G2. msm.c defines
 *   ZP__G(op)        the group's public functions: zp_g1_##op
 *   ZP__S(name)      a static name of this instantiation: name##_g1
 *   ZP__AFF, ZP__JAC, ZP__XYZZ   the point types
 *   ZP__FE, ZP__F(op), ZP__FINV  the coordinate field, its functions and
 *                                a variable-time inversion
 *   ZP__MSM, ZP__PIPPENGER(_MODE), ZP__SUM, ZP__REF   the zp__ names to define
 *   ZP__DENSE        the sum of the pairs left after the 0/1 split (msm_endo.c)
 *   ZP__FLUSH8       (optional) the eight-lane batch flush (msm_ifma.c), with
 *   ZP__TO_R52, ZP__FROM_R52, ZP__POINTS_R52   coordinates and points into
 *                    and out of the lanes' R' form (fp_ifma.h)
 *   ZP__FOLD8        the bucket folds of eight tasks on the lanes
 * and includes this file once per group. The scalar helpers it uses
 * (msm_bits, msm_digit, msm_layout, is_zero/is_one) are shared, in msm.c.
 *
 * Pippenger with signed digits: window w of scalar s is
 *   d_w = bits[wc, wc + c) + bit[wc - 1] - 2^c * bit[wc + c - 1],
 * which lies in [-2^(c-1), 2^(c-1)] and satisfies sum_w d_w 2^(wc) = s as
 * long as bit nw*c - 1 of s is zero (telescoping sum). Each digit reads
 * only c + 1 bits, so digits are computed on the fly: no digit arrays.
 * A point with digit d goes to bucket |d| as +P or -P (XYZZ buckets with
 * mixed adds, or affine buckets with batched adds: zp__msm_mode); a
 * window's sum is sum_j j B_j by running sums; windows combine by Horner.
 *
 * With the eight-lane flush, an affine run of at most zp__msm_raw_max pairs
 * first copies its points (and, with an index list, its scalars) into R'
 * form, once: then the buckets stay in that form too and the flush moves
 * them in and out of the lanes without a product per load and store (half
 * its vector products otherwise). The scalar paths (the small flush, side
 * buckets, the fold) convert what they read. Such runs also keep each
 * task's buckets and fold eight tasks at once on the lanes afterwards
 * (msm_fold_impl.h), except the top window's, which folds as it goes.
 */

/* Coordinates as words, for msm.c's inlined tests and negation. */
#define ZP__FW (sizeof(ZP__FE) / 8)
#define ZP__FE_EQ(a, b) msm_words_eq((const uint64_t *)(a), (const uint64_t *)(b), ZP__FW)
#define ZP__FE_ZERO(a) zp__is_zero_n((const uint64_t *)(a), (int)ZP__FW)

/* A task's buckets kept for the lane fold (b NULL: folded already). */
typedef struct ZP__S(kept) {
    ZP__AFF *b;
    uint8_t *st;
    ZP__XYZZ *x;
} ZP__S(kept);

/* One (window, point range) job of a Pippenger run. */
typedef struct ZP__S(pip) {
    const ZP__AFF *points;
    const zp_fr *scalars;
    const uint32_t *idx;
    size_t n;
    msm_layout lay;
    ZP__JAC *partial; /* lay.nw * lay.nranges window sums, task order */
    atomic_int nomem;
    bool raw;      /* points in R' form (the lanes' Montgomery form) */
    unsigned bits; /* of the largest scalar */
    ZP__S(kept) *kept; /* per task, or NULL: every task folds its own */
} ZP__S(pip);

/* sum_j j * b[j - 1] over j = 1..count, by running sums (2 adds a bucket). */
static void ZP__S(reduce)(ZP__JAC *out, const ZP__XYZZ *b, size_t count)
{
    ZP__XYZZ run, acc;
    ZP__G(xyzz_inf)(&run);
    ZP__G(xyzz_inf)(&acc);
    for (size_t j = count; j-- > 0;) {
        ZP__G(xyzz_add)(&run, &run, &b[j]);
        ZP__G(xyzz_add)(&acc, &acc, &run);
    }
    ZP__G(xyzz_to_jac)(out, &acc);
}

/* The XYZZ method: one mixed addition per pair. */
static void ZP__S(pip_xyzz)(ZP__S(pip) *p, size_t task, ZP__XYZZ *b)
{
    unsigned w = (unsigned)(task / p->lay.nranges);
    size_t rg = task % p->lay.nranges;
    size_t i0 = p->n * rg / p->lay.nranges, i1 = p->n * (rg + 1) / p->lay.nranges;
    size_t nb = (size_t)1 << (p->lay.c - 1);
    for (size_t j = 0; j < nb; j++)
        ZP__G(xyzz_inf)(&b[j]);
    for (size_t i = i0; i < i1; i++) {
        size_t k = p->idx ? p->idx[i] : i;
        int d = msm_digit(p->scalars[k].l, w, p->lay.c);
        if (d > 0) {
            ZP__G(xyzz_add_affine)(&b[d - 1], &b[d - 1], &p->points[k]);
        } else if (d < 0) {
            ZP__AFF neg;
            ZP__G(affine_neg)(&neg, &p->points[k]);
            ZP__G(xyzz_add_affine)(&b[-d - 1], &b[-d - 1], &neg);
        }
    }
    ZP__S(reduce)(&p->partial[task], b, nb);
}

/*
 * The affine method. Buckets are affine points; st[j] says whether bucket j
 * holds a point (BK_FULL), is the left side of an addition in the open
 * batch (BK_BUSY), or also has an XYZZ side bucket x[j] (BK_SPILL). The
 * batch holds `cap` additions bucket[eb[k]] += eq[k] whose buckets are
 * pairwise distinct, so all of them can be done at once with one inversion.
 * A pair meeting a busy bucket waits in the queue for the next batch; when
 * the queue is full it goes to the side bucket instead (10M, as the XYZZ
 * method), so long runs of one bucket degrade to that method's cost and
 * never to one inversion per pair.
 */
typedef struct ZP__S(bat) {
    ZP__AFF *b;
    ZP__XYZZ *x; /* side buckets, allocated at the first spill */
    uint8_t *st;
    size_t nb, cap, cnt, qcap, qn;
    uint32_t *eb; /* bucket of entry k; top bit: a doubling */
    ZP__AFF *eq;
    ZP__FE *den, *pre;
    uint32_t *qb; /* the queue: bucket and point */
    ZP__AFF *qp;
    bool raw; /* buckets and queued points in R' form */
#ifdef ZP__FLUSH8
    zp__flush8 f8; /* the eight-lane flush's scratch (NULL v: scalar flush) */
#endif
} ZP__S(bat);

/* q in the library's form whatever the batch's. */
static inline const ZP__AFF *ZP__S(lib_form)(const ZP__S(bat) *a, const ZP__AFF *q, ZP__AFF *tmp)
{
#ifdef ZP__FLUSH8
    if (a->raw) {
        ZP__FROM_R52(&tmp->x, &q->x);
        ZP__FROM_R52(&tmp->y, &q->y);
        return tmp;
    }
#else
    (void)a, (void)tmp;
#endif
    return q;
}

#define MSM_DBL_BIT 0x80000000u

static void ZP__S(bat_free)(ZP__S(bat) *a)
{
    free(a->b);
    free(a->x);
    free(a->st);
    free(a->eb);
    free(a->eq);
    free(a->den);
    free(a->pre);
    free(a->qb);
    free(a->qp);
#ifdef ZP__FLUSH8
    zp__flush8_free(&a->f8);
#endif
}

static bool ZP__S(bat_alloc)(ZP__S(bat) *a, size_t nb, size_t cap)
{
    memset(a, 0, sizeof *a);
    a->nb = nb;
    a->cap = cap;
    a->qcap = 2 * cap;
    a->b = malloc(nb * sizeof *a->b);
    a->st = malloc(nb);
    a->eb = malloc(cap * sizeof *a->eb);
    a->eq = malloc(cap * sizeof *a->eq);
    a->den = malloc(cap * sizeof *a->den);
    a->pre = malloc(cap * sizeof *a->pre);
    a->qb = malloc(a->qcap * sizeof *a->qb);
    a->qp = malloc(a->qcap * sizeof *a->qp);
#ifdef ZP__FLUSH8
    if (zp__msm_ifma && !zp__flush8_alloc(&a->f8, cap, sizeof(ZP__FE) / sizeof(zp_fp)))
        a->f8.v = NULL; /* the scalar flush then */
#endif
    if (a->b && a->st && a->eb && a->eq && a->den && a->pre && a->qb && a->qp)
        return true;
    ZP__S(bat_free)(a);
    return false;
}

/*
 * All additions of the batch. With d_k the slope's denominator (x2 - x1,
 * or 2 y1 for a doubling) and pre[k] = d_0 ... d_(k-1), one inversion of
 * the full product gives every 1/d_k walking back: 1/d_k = inv * pre[k],
 * then inv *= d_k.
 */
static void ZP__S(bat_flush)(ZP__S(bat) *a)
{
    if (a->cnt == 0)
        return;
#ifdef ZP__FLUSH8
    if (zp__msm_ifma && a->f8.v && a->cnt >= 16) { /* eight lanes (msm_ifma.c) */
        ZP__FLUSH8(&a->f8, a->b, a->eb, a->eq, a->cnt, MSM_DBL_BIT, a->raw);
        for (size_t k = 0; k < a->cnt; k++)
            a->st[a->eb[k] & ~MSM_DBL_BIT] &= (uint8_t)~BK_BUSY;
        a->cnt = 0;
        return;
    }
#endif
    ZP__FE acc, inv, ik, lam, num, t;
#ifdef ZP__FLUSH8
    if (a->raw) /* the scalar sums in the library's form, back after */
        for (size_t k = 0; k < a->cnt; k++) {
            ZP__AFF *p1 = &a->b[a->eb[k] & ~MSM_DBL_BIT], *p2 = &a->eq[k];
            ZP__FROM_R52(&p1->x, &p1->x);
            ZP__FROM_R52(&p1->y, &p1->y);
            ZP__FROM_R52(&p2->x, &p2->x);
            ZP__FROM_R52(&p2->y, &p2->y);
        }
#endif
    ZP__F(one)(&acc);
    for (size_t k = 0; k < a->cnt; k++) {
        const ZP__AFF *p1 = &a->b[a->eb[k] & ~MSM_DBL_BIT];
        if (a->eb[k] & MSM_DBL_BIT)
            ZP__F(dbl)(&a->den[k], &p1->y);
        else
            ZP__F(sub)(&a->den[k], &a->eq[k].x, &p1->x);
        a->pre[k] = acc;
        ZP__F(mul)(&acc, &acc, &a->den[k]);
    }
    ZP__FINV(&inv, &acc);
    for (size_t k = a->cnt; k-- > 0;) {
        uint32_t j = a->eb[k] & ~MSM_DBL_BIT;
        ZP__AFF *p1 = &a->b[j];
        const ZP__AFF *p2 = &a->eq[k];
        ZP__F(mul)(&ik, &inv, &a->pre[k]);
        ZP__F(mul)(&inv, &inv, &a->den[k]);
        if (a->eb[k] & MSM_DBL_BIT) { /* slope 3 x^2 / 2y */
            ZP__F(sqr)(&t, &p1->x);
            ZP__F(dbl)(&num, &t);
            ZP__F(add)(&num, &num, &t);
        } else {
            ZP__F(sub)(&num, &p2->y, &p1->y);
        }
        ZP__F(mul)(&lam, &num, &ik);
        ZP__F(sqr)(&t, &lam); /* x3 = lam^2 - x1 - x2 */
        ZP__F(sub)(&t, &t, &p1->x);
        ZP__F(sub)(&t, &t, &p2->x);
        ZP__F(sub)(&num, &p1->x, &t); /* y3 = lam (x1 - x3) - y1 */
        ZP__F(mul)(&num, &num, &lam);
        ZP__F(sub)(&p1->y, &num, &p1->y);
        p1->x = t;
#ifdef ZP__FLUSH8
        if (a->raw) {
            ZP__TO_R52(&p1->x, &p1->x);
            ZP__TO_R52(&p1->y, &p1->y);
        }
#endif
        a->st[j] &= (uint8_t)~BK_BUSY;
    }
    a->cnt = 0;
}

/* Bucket j += q now (empty bucket, cancellation) or in the batch; false
 * when bucket j is busy and nothing was done. */
static bool ZP__S(bat_place)(ZP__S(bat) *a, uint32_t j, const ZP__AFF *q)
{
    uint8_t f = a->st[j];
    if (f & BK_BUSY)
        return false;
    ZP__AFF *p1 = &a->b[j];
    if (!(f & BK_FULL)) {
        *p1 = *q;
        a->st[j] = f | BK_FULL;
        return true;
    }
    uint32_t e = j;
    if (ZP__FE_EQ(&p1->x, &q->x)) {
        /* Same x: q = p1 doubles, q = -p1 cancels (so does a doubling of
         * a point with y = 0, which the prime-order subgroup lacks). */
        if (!ZP__FE_EQ(&p1->y, &q->y) || ZP__FE_ZERO(&q->y)) {
            a->st[j] = f & (uint8_t)~BK_FULL;
            return true;
        }
        e |= MSM_DBL_BIT;
    }
    a->eb[a->cnt] = e;
    a->eq[a->cnt++] = *q;
    a->st[j] = f | BK_BUSY;
    return true;
}

/* Side bucket j += q; false only when the side buckets cannot be had. */
static bool ZP__S(bat_spill)(ZP__S(bat) *a, uint32_t j, const ZP__AFF *q)
{
    if (!a->x && !(a->x = malloc(a->nb * sizeof *a->x)))
        return false;
    if (!(a->st[j] & BK_SPILL)) {
        ZP__G(xyzz_inf)(&a->x[j]);
        a->st[j] |= BK_SPILL;
    }
    ZP__AFF tmp;
    ZP__G(xyzz_add_affine)(&a->x[j], &a->x[j], ZP__S(lib_form)(a, q, &tmp));
    return true;
}

/* Retries the queue after a flush, in order; what is still busy stays. */
static void ZP__S(bat_replay)(ZP__S(bat) *a)
{
    size_t keep = 0;
    for (size_t i = 0; i < a->qn; i++) {
        if (!ZP__S(bat_place)(a, a->qb[i], &a->qp[i])) {
            a->qb[keep] = a->qb[i];
            a->qp[keep++] = a->qp[i];
        } else if (a->cnt == a->cap) {
            ZP__S(bat_flush)(a);
        }
    }
    a->qn = keep;
}

static void ZP__S(bat_push)(ZP__S(bat) *a, uint32_t j, const ZP__AFF *q)
{
    if (!ZP__S(bat_place)(a, j, q)) {
        if (a->qn < a->qcap) {
            a->qb[a->qn] = j;
            a->qp[a->qn++] = *q;
        } else if (!ZP__S(bat_spill)(a, j, q)) {
            /* No memory for side buckets: make room the slow way. */
            ZP__S(bat_flush)(a);
            ZP__S(bat_replay)(a);
            ZP__S(bat_push)(a, j, q); /* j is not busy now */
            return;
        }
    }
    if (a->cnt == a->cap) {
        ZP__S(bat_flush)(a);
        ZP__S(bat_replay)(a);
    }
}

/* Empties batch and queue. A queue that only fills a small batch is mostly
 * one bucket: those pairs go to the side buckets. */
static void ZP__S(bat_drain)(ZP__S(bat) *a)
{
    for (;;) {
        ZP__S(bat_flush)(a);
        if (a->qn == 0)
            return;
        ZP__S(bat_replay)(a);
        if (a->qn && a->cnt * 8 < a->cap) {
            size_t keep = 0;
            for (size_t i = 0; i < a->qn; i++)
                if (!ZP__S(bat_spill)(a, a->qb[i], &a->qp[i])) {
                    a->qb[keep] = a->qb[i];
                    a->qp[keep++] = a->qp[i];
                }
            a->qn = keep;
        }
    }
}

/* sum_j j * bucket j by running sums, both kinds of bucket; bucket j is
 * the sum of slots (j - 1) K .. j K - 1 (see pip_affine). Empty slots
 * above the highest filled one add nothing. */
static void ZP__S(bat_reduce)(ZP__JAC *out, const ZP__S(bat) *a, size_t K)
{
    ZP__XYZZ run, acc;
    ZP__G(xyzz_inf)(&run);
    ZP__G(xyzz_inf)(&acc);
    size_t top = a->nb;
    while (top > 0 && !(a->st[top - 1] & (BK_FULL | BK_SPILL)))
        top--;
    for (size_t g = (top + K - 1) / K; g-- > 0;) {
        for (size_t j = g * K; j < (g + 1) * K && j < top; j++) {
            ZP__AFF tmp;
            if (a->st[j] & BK_FULL)
                ZP__G(xyzz_add_affine)(&run, &run, ZP__S(lib_form)(a, &a->b[j], &tmp));
            if (a->st[j] & BK_SPILL)
                ZP__G(xyzz_add)(&run, &run, &a->x[j]);
        }
        ZP__G(xyzz_add)(&acc, &acc, &run);
    }
    ZP__G(xyzz_to_jac)(out, &acc);
}

/*
 * The top window holds only the scalars' last r = bits - w c bits, so its
 * digits lie in [0, 2^r]: with r small, a few buckets would take every
 * pair, collide in every batch and go to the scalar side buckets. There,
 * digit d uses K = nb / 2^r slots, (d - 1) K + (i mod K), so the window
 * spreads over all nb slots like any other; the fold sums each digit's K.
 */
static void ZP__S(pip_affine)(ZP__S(pip) *p, size_t task, ZP__S(bat) *a)
{
    unsigned w = (unsigned)(task / p->lay.nranges);
    size_t rg = task % p->lay.nranges;
    size_t i0 = p->n * rg / p->lay.nranges, i1 = p->n * (rg + 1) / p->lay.nranges;
    unsigned r = p->bits > w * p->lay.c ? p->bits - w * p->lay.c : 0;
    size_t K = r + 1 < p->lay.c ? a->nb >> r : 1;
    memset(a->st, 0, a->nb);
    a->cnt = a->qn = 0;
    for (size_t i = i0; i < i1; i++) {
        size_t k = p->idx ? p->idx[i] : i;
        int d = msm_digit(p->scalars[k].l, w, p->lay.c);
        if (d == 0 || (ZP__FE_ZERO(&p->points[k].x) && ZP__FE_ZERO(&p->points[k].y)))
            continue; /* nothing to add, or infinity */
        uint32_t spread = (uint32_t)(i & (K - 1));
        if (d > 0) {
            ZP__S(bat_push)(a, (uint32_t)((size_t)(d - 1) * K) + spread, &p->points[k]);
        } else {
            ZP__AFF neg;
            neg.x = p->points[k].x;
            msm_fp_neg_words((uint64_t *)&neg.y, (const uint64_t *)&p->points[k].y, ZP__FW);
            ZP__S(bat_push)(a, (uint32_t)((size_t)(-d - 1) * K) + spread, &neg);
        }
    }
    ZP__S(bat_drain)(a);
    if (p->kept && K == 1) { /* hand the buckets over, take fresh ones */
        ZP__AFF *nb = malloc(a->nb * sizeof *nb);
        uint8_t *nst = malloc(a->nb);
        if (nb && nst) {
            p->kept[task] = (ZP__S(kept)){a->b, a->st, a->x};
            a->b = nb;
            a->st = nst;
            a->x = NULL;
            return;
        }
        free(nb);
        free(nst);
    }
    ZP__S(bat_reduce)(&p->partial[task], a, K);
}

#ifdef ZP__FOLD8
/* The kept tasks' folds, eight a call. */
static void ZP__S(fold_task)(void *ctx, size_t begin, size_t end)
{
    ZP__S(pip) *p = ctx;
    size_t ntasks = (size_t)p->lay.nw * p->lay.nranges, nb = (size_t)1 << (p->lay.c - 1);
    for (size_t g = begin; g < end; g++) {
        ZP__XYZZ sums[8], *out[8] = {0};
        const ZP__AFF *b[8] = {0};
        const ZP__XYZZ *x[8] = {0};
        const uint8_t *st[8] = {0}; /* lanes n.. are not read */
        size_t task[8];
        int n = 0;
        for (size_t t = 8 * g; t < 8 * g + 8 && t < ntasks; t++)
            if (p->kept[t].b) {
                task[n] = t;
                out[n] = &sums[n];
                b[n] = p->kept[t].b;
                x[n] = p->kept[t].x;
                st[n++] = p->kept[t].st;
            }
        if (!n)
            continue;
        ZP__FOLD8(out, b, x, st, n, nb, BK_FULL, BK_SPILL);
        for (int k = 0; k < n; k++)
            ZP__G(xyzz_to_jac)(&p->partial[task[k]], &sums[k]);
    }
}
#endif

static void ZP__S(pip_task)(void *ctx, size_t begin, size_t end)
{
    ZP__S(pip) *p = ctx;
    size_t nb = (size_t)1 << (p->lay.c - 1);
    if (p->lay.affine) {
        ZP__S(bat) a;
        if (!ZP__S(bat_alloc)(&a, nb, p->lay.cap)) {
            atomic_store(&p->nomem, 1);
            return;
        }
        a.raw = p->raw;
        for (size_t t = begin; t < end; t++)
            ZP__S(pip_affine)(p, t, &a);
        ZP__S(bat_free)(&a);
        return;
    }
    ZP__XYZZ *b = malloc(nb * sizeof *b);
    if (!b) {
        atomic_store(&p->nomem, 1);
        return;
    }
    for (size_t t = begin; t < end; t++)
        ZP__S(pip_xyzz)(p, t, b);
    free(b);
}

#ifdef ZP__FLUSH8
/* The R' copy of an affine run's pairs (see the top of this file). */
typedef struct ZP__S(r52) {
    const ZP__AFF *points;
    const zp_fr *scalars;
    const uint32_t *idx;
    size_t n, nchunks;
    ZP__AFF *out_points;
    zp_fr *out_scalars; /* with idx only */
} ZP__S(r52);

static void ZP__S(r52_task)(void *ctx, size_t begin, size_t end)
{
    ZP__S(r52) *r = ctx;
    const ZP__AFF *ptr[64];
    for (size_t t = begin; t < end; t++) {
        size_t i0 = r->n * t / r->nchunks, i1 = r->n * (t + 1) / r->nchunks;
        for (size_t i = i0; i < i1; i += 64) {
            size_t cnt = i1 - i < 64 ? i1 - i : 64;
            for (size_t j = 0; j < cnt; j++) {
                size_t k = r->idx ? r->idx[i + j] : i + j;
                ptr[j] = &r->points[k];
                if (r->idx)
                    r->out_scalars[i + j] = r->scalars[k];
            }
            ZP__POINTS_R52(r->out_points + i, ptr, cnt);
        }
    }
}

/* Points (and with idx, scalars) of p copied in R' form when the lanes
 * will flush and the copy is small enough; false leaves p as it was. */
static bool ZP__S(to_r52)(ZP__S(pip) *p, ZP__AFF **pts, zp_fr **sc, int threads)
{
    *pts = NULL;
    *sc = NULL;
    if (!p->lay.affine || !zp__msm_ifma || p->n > zp__msm_raw_max)
        return false;
    *pts = malloc(p->n * sizeof **pts);
    *sc = p->idx ? malloc(p->n * sizeof **sc) : NULL;
    if (!*pts || (p->idx && !*sc)) {
        free(*pts);
        free(*sc);
        *pts = NULL;
        *sc = NULL;
        return false;
    }
    ZP__S(r52) r = {p->points, p->scalars, p->idx, p->n, 0, *pts, *sc};
    r.nchunks = (size_t)zp__cpu_threads(threads) * 4;
    r.nchunks = r.nchunks < p->n ? r.nchunks : p->n;
    zp__parallel_for(r.nchunks, 1, ZP__S(r52_task), &r, threads);
    p->points = *pts;
    if (p->idx)
        p->scalars = *sc;
    p->idx = NULL;
    p->raw = true;
    return true;
}
#endif

zp_err ZP__PIPPENGER_MODE(ZP__JAC *out, const ZP__AFF *points, const zp_fr *scalars,
                          const uint32_t *idx, size_t n, unsigned window, zp__msm_mode mode,
                          size_t batch, int threads)
{
    ZP__G(jac_inf)(out);
    if (window > MSM_MAX_WINDOW)
        return ZP_E_INVALID_ARG;
    unsigned bits = msm_bits(scalars, idx, n, threads);
    if (bits == 0)
        return ZP_OK; /* no pairs, or every scalar is zero */
    ZP__S(pip) p = {.points = points, .scalars = scalars, .idx = idx, .n = n, .bits = bits};
    msm_plan(&p.lay, n, bits, window, mode, batch, zp__cpu_threads(threads));
    size_t ntasks = (size_t)p.lay.nw * p.lay.nranges;
    p.partial = malloc(ntasks * sizeof *p.partial);
    if (!p.partial)
        return ZP_E_NOMEM;
    ZP__AFF *r52_points = NULL;
    zp_fr *r52_scalars = NULL;
#ifdef ZP__FLUSH8
    ZP__S(to_r52)(&p, &r52_points, &r52_scalars, threads);
#endif
    if (p.raw)
        p.kept = calloc(ntasks, sizeof *p.kept); /* NULL: fold as we go */
    atomic_init(&p.nomem, 0);
    zp__parallel_for(ntasks, 1, ZP__S(pip_task), &p, threads);
    free(r52_points);
    free(r52_scalars);
#ifdef ZP__FOLD8
    if (p.kept && !atomic_load(&p.nomem))
        zp__parallel_for((ntasks + 7) / 8, 1, ZP__S(fold_task), &p, threads);
#endif
    if (p.kept) {
        for (size_t t = 0; t < ntasks; t++) {
            free(p.kept[t].b);
            free(p.kept[t].st);
            free(p.kept[t].x);
        }
        free(p.kept);
    }
    if (atomic_load(&p.nomem)) {
        free(p.partial);
        return ZP_E_NOMEM;
    }
    /* Horner over windows, top first: out = 2^c out + (window sum). */
    ZP__JAC acc;
    ZP__G(jac_inf)(&acc);
    for (size_t w = p.lay.nw; w-- > 0;) {
        for (unsigned i = 0; i < p.lay.c && !ZP__G(jac_is_inf)(&acc); i++)
            ZP__G(jac_dbl)(&acc, &acc);
        for (size_t r = 0; r < p.lay.nranges; r++)
            ZP__G(jac_add)(&acc, &acc, &p.partial[w * p.lay.nranges + r]);
    }
    free(p.partial);
    *out = acc;
    return ZP_OK;
}

zp_err ZP__PIPPENGER(ZP__JAC *out, const ZP__AFF *points, const zp_fr *scalars,
                     const uint32_t *idx, size_t n, unsigned window, int threads)
{
    return ZP__PIPPENGER_MODE(out, points, scalars, idx, n, window, ZP__MSM_AUTO, 0, threads);
}

/* ------------------------------------------------------- plain sums */

typedef struct ZP__S(sum) {
    const ZP__AFF *points;
    const zp_fr *scalars; /* NULL: every point */
    size_t n, nchunks;
    ZP__JAC *partial;
} ZP__S(sum);

static void ZP__S(sum_task)(void *ctx, size_t begin, size_t end)
{
    ZP__S(sum) *s = ctx;
    for (size_t t = begin; t < end; t++) {
        size_t i0 = s->n * t / s->nchunks, i1 = s->n * (t + 1) / s->nchunks;
        ZP__XYZZ acc;
        ZP__G(xyzz_inf)(&acc);
        for (size_t i = i0; i < i1; i++)
            if (!s->scalars || msm_is_one(&s->scalars[i]))
                ZP__G(xyzz_add_affine)(&acc, &acc, &s->points[i]);
        ZP__G(xyzz_to_jac)(&s->partial[t], &acc);
    }
}

zp_err ZP__SUM(ZP__JAC *out, const ZP__AFF *points, const zp_fr *scalars, size_t n,
               int threads)
{
    ZP__G(jac_inf)(out);
    if (n == 0)
        return ZP_OK;
    ZP__S(sum) s = {.points = points, .scalars = scalars, .n = n};
    /* A few chunks per thread balance the load; each costs one add to merge. */
    s.nchunks = (size_t)zp__cpu_threads(threads) * 4;
    if (s.nchunks > n)
        s.nchunks = n;
    s.partial = malloc(s.nchunks * sizeof *s.partial);
    if (!s.partial)
        return ZP_E_NOMEM;
    zp__parallel_for(s.nchunks, 1, ZP__S(sum_task), &s, threads);
    for (size_t t = 0; t < s.nchunks; t++)
        ZP__G(jac_add)(out, out, &s.partial[t]);
    free(s.partial);
    return ZP_OK;
}

/* -------------------------------------------------- the 0/1 split */

/* One slice of at most 2^31 pairs, so dense indices fit in uint32_t. */
static zp_err ZP__S(msm_slice)(ZP__JAC *out, const ZP__AFF *points, const zp_fr *scalars,
                               size_t n, int threads)
{
    ZP__JAC ones, dense;
    zp_err err = ZP__SUM(&ones, points, scalars, n, threads);
    if (err)
        return err;
    uint32_t *idx;
    size_t ndense;
    if ((err = msm_dense_indices(&idx, &ndense, scalars, n, threads)))
        return err;
    err = ZP__DENSE(&dense, points, scalars, idx, ndense, threads);
    free(idx);
    if (err)
        return err;
    ZP__G(jac_add)(out, &ones, &dense);
    return ZP_OK;
}

zp_err ZP__MSM(ZP__JAC *out, const ZP__AFF *points, const zp_fr *scalars, size_t n,
               int threads)
{
    ZP__JAC acc, part;
    ZP__G(jac_inf)(&acc);
    for (size_t off = 0; off < n; off += MSM_SLICE) {
        size_t len = n - off < MSM_SLICE ? n - off : MSM_SLICE;
        zp_err err = ZP__S(msm_slice)(&part, points + off, scalars + off, len, threads);
        if (err) {
            ZP__G(jac_inf)(out);
            return err;
        }
        ZP__G(jac_add)(&acc, &acc, &part);
    }
    *out = acc;
    return ZP_OK;
}

void ZP__REF(ZP__JAC *out, const ZP__AFF *points, const zp_fr *scalars, size_t n)
{
    ZP__JAC acc, p, t;
    ZP__G(jac_inf)(&acc);
    for (size_t i = 0; i < n; i++) {
        ZP__G(jac_from_affine)(&p, &points[i]);
        ZP__G(jac_mul_vartime)(&t, &p, scalars[i].l, ZP_FR_LIMBS);
        ZP__G(jac_add)(&acc, &acc, &t);
    }
    *out = acc;
}

#undef ZP__FW
#undef ZP__FE_EQ
#undef ZP__FE_ZERO
