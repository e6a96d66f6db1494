/*
 * Multi-scalar multiplication written once for G1 and G2. msm.c defines
 *   ZP__G(op)        the group's public functions: zp_g1_##op
 *   ZP__S(name)      a static name of this instantiation: name##_g1
 *   ZP__AFF, ZP__JAC, ZP__XYZZ   the point types
 *   ZP__MSM, ZP__PIPPENGER, ZP__SUM, ZP__REF   the zp__ names to define
 * and includes this file once per group. The scalar helpers it uses
 * (msm_bits, msm_digit, msm_layout, is_zero/is_one) are shared, in msm.c.
 *
 * Pippenger with signed digits: window w of scalar s is
 *   d_w = bits[wc, wc + c) + bit[wc - 1] - 2^c * bit[wc + c - 1],
 * which lies in [-2^(c-1), 2^(c-1)] and satisfies sum_w d_w 2^(wc) = s as
 * long as bit nw*c - 1 of s is zero (telescoping sum). Each digit reads
 * only c + 1 bits, so digits are computed on the fly: no digit arrays.
 * A point with digit d goes to bucket |d| as +P or -P (XYZZ, mixed adds);
 * a window's sum is sum_j j B_j by running sums; windows combine by Horner.
 */

/* One (window, point range) job of a Pippenger run. */
typedef struct ZP__S(pip) {
    const ZP__AFF *points;
    const zp_fr *scalars;
    const uint32_t *idx;
    size_t n;
    msm_layout lay;
    ZP__JAC *partial; /* lay.nw * lay.nranges window sums, task order */
    atomic_int nomem;
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

static void ZP__S(pip_one)(ZP__S(pip) *p, size_t task, ZP__XYZZ *b)
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

static void ZP__S(pip_task)(void *ctx, size_t begin, size_t end)
{
    ZP__S(pip) *p = ctx;
    ZP__XYZZ *b = malloc(((size_t)1 << (p->lay.c - 1)) * sizeof *b);
    if (!b) {
        atomic_store(&p->nomem, 1);
        return;
    }
    for (size_t t = begin; t < end; t++)
        ZP__S(pip_one)(p, t, b);
    free(b);
}

zp_err ZP__PIPPENGER(ZP__JAC *out, const ZP__AFF *points, const zp_fr *scalars,
                     const uint32_t *idx, size_t n, unsigned window, int threads)
{
    ZP__G(jac_inf)(out);
    if (window > MSM_MAX_WINDOW)
        return ZP_E_INVALID_ARG;
    unsigned bits = msm_bits(scalars, idx, n, threads);
    if (bits == 0)
        return ZP_OK; /* no pairs, or every scalar is zero */
    ZP__S(pip) p = {.points = points, .scalars = scalars, .idx = idx, .n = n};
    msm_plan(&p.lay, n, bits, window, zp__cpu_threads(threads));
    size_t ntasks = (size_t)p.lay.nw * p.lay.nranges;
    p.partial = malloc(ntasks * sizeof *p.partial);
    if (!p.partial)
        return ZP_E_NOMEM;
    atomic_init(&p.nomem, 0);
    zp__parallel_for(ntasks, 1, ZP__S(pip_task), &p, threads);
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
    err = ZP__PIPPENGER(&dense, points, scalars, idx, ndense, 0, threads);
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
