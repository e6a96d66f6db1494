/*
 * The GPU Groth16 prover (groth16.h): the eval, h and msm stages on one
 * CUDA device through gpu/gpu.h, finish and verify on the host with the
 * CPU's own functions. Compiled in every build: without CUDA the gpu.h
 * stubs answer ZP_E_NO_GPU and so does zp__g16_gpu_open.
 *
 * Scalar forms. The device arrays a, b, c are Montgomery form, as on the
 * host. The MSMs take standard form, and the H scalars are produced in it
 * directly: the quotient step multiplies by a constant S given as raw
 * limbs, and a Montgomery product x·S·R⁻¹ with S the standard limbs of s is
 * the standard limbs of x·s. Every later step (the TAU convention's inverse
 * coset NTT) is linear with Montgomery-form constants, so it maps standard
 * limbs to standard limbs. No separate conversion pass is needed.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/cpu.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"

struct zp__g16_gpu {
    const zp__pk *pk;
    int threads;
    zp__gpu *dev;
    zp__gpu_stream *s;
    /* The key, resident. */
    zp__gpu_buf p_a, p_b1, p_b2, p_l, p_h;
    zp__gpu_csr ma, mb;
    /* Per proof. */
    zp__gpu_buf w;       /* n_vars, Montgomery (eval) */
    zp__gpu_buf ws;      /* n_vars, standard (L scalars) */
    zp__gpu_buf sa, sb;  /* gathered A and B scalars, standard */
    zp__gpu_buf abc;     /* 3 n; h ends in the first n */
    zp__gpu_buf scratch; /* MSM scratch, the largest of the five */
    /* Host staging of the witness scalars. */
    zp_fr *hw, *ha, *hb;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------- open and close */

static void buf_free(zp__g16_gpu *g, zp__gpu_buf *b)
{
    if (b->ptr)
        zp__gpu_free(g->dev, b);
    memset(b, 0, sizeof *b);
}

/* An arena region of at least `bytes` (never zero bytes). */
static zp_err buf_alloc(zp__g16_gpu *g, zp__gpu_buf *b, uint64_t bytes)
{
    return zp__gpu_alloc(g->dev, b, bytes ? bytes : 32);
}

static zp_err buf_put(zp__g16_gpu *g, zp__gpu_buf *b, const void *host, uint64_t bytes)
{
    zp_err e = buf_alloc(g, b, bytes);
    if (!e && bytes)
        e = zp__gpu_upload(g->s, b->ptr, host, bytes);
    return e;
}

void zp__g16_gpu_close(zp__g16_gpu *g)
{
    if (!g)
        return;
    if (g->dev) {
        if (g->s)
            zp__gpu_stream_sync(g->s);
        zp__gpu_buf *bufs[] = {&g->p_a, &g->p_b1, &g->p_b2, &g->p_l, &g->p_h, &g->w,
                               &g->ws,  &g->sa,   &g->sb,   &g->abc, &g->scratch};
        for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
            buf_free(g, bufs[i]);
        if (g->ma.mem.ptr)
            zp__gpu_csr_free(g->dev, &g->ma);
        if (g->mb.mem.ptr)
            zp__gpu_csr_free(g->dev, &g->mb);
        if (g->s)
            zp__gpu_stream_close(g->s);
        zp__gpu_close(g->dev);
    }
    free(g->hw);
    free(g->ha);
    free(g->hb);
    free(g);
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Everything the device keeps: the key, then the per-proof arrays. */
static zp_err upload_key(zp__g16_gpu *g)
{
    const zp__pk *pk = g->pk;
    uint64_t n = pk->domain_size, fr = sizeof(zp_fr);
    uint64_t g1 = sizeof(zp_g1_affine), g2 = sizeof(zp_g2_affine);
    zp_err e;
    if ((e = buf_put(g, &g->p_a, pk->a, pk->n_a * g1)) ||
        (e = buf_put(g, &g->p_b1, pk->b1, pk->n_b * g1)) ||
        (e = buf_put(g, &g->p_b2, pk->b2, pk->n_b * g2)) ||
        (e = buf_put(g, &g->p_l, pk->l, pk->n_l * g1)) ||
        (e = buf_put(g, &g->p_h, pk->h, pk->n_h * g1)) ||
        (e = zp__gpu_csr_upload(g->s, &g->ma, &pk->ma, pk->n_vars)) ||
        (e = zp__gpu_csr_upload(g->s, &g->mb, &pk->mb, pk->n_vars)))
        return e;
    uint64_t sc = zp__gpu_msm_scratch_bytes(max_u64(pk->n_a, pk->n_b), false);
    sc = max_u64(sc, zp__gpu_msm_scratch_bytes(pk->n_b, true));
    sc = max_u64(sc, zp__gpu_msm_scratch_bytes(pk->n_l, false));
    sc = max_u64(sc, zp__gpu_msm_scratch_bytes(pk->n_h, false));
    if ((e = buf_alloc(g, &g->w, pk->n_vars * fr)) ||
        (e = buf_alloc(g, &g->ws, pk->n_vars * fr)) ||
        (e = buf_alloc(g, &g->sa, pk->n_a * fr)) ||
        (e = buf_alloc(g, &g->sb, pk->n_b * fr)) ||
        (e = buf_alloc(g, &g->abc, 3 * n * fr)) ||
        (e = buf_alloc(g, &g->scratch, sc)))
        return e;
    return zp__gpu_stream_sync(g->s);
}

zp_err zp__g16_gpu_open(zp__g16_gpu **out, const zp__pk *pk, int device, int threads,
                        zp__ioerr *why)
{
    *out = NULL;
    if (!zp__gpu_compiled())
        return zp__fail(why, ZP_E_NO_GPU, "this zkpipe was built without CUDA");
    if (zp__gpu_count() <= device || device < 0)
        return zp__fail(why, ZP_E_NO_GPU, "no CUDA device %d (%d found)", device,
                        zp__gpu_count());
    if (!zp__pk_shape_ok(pk))
        return zp__fail(why, ZP_E_INVALID_ARG, "the proving key's counts disagree with each other");
    if (!pk->ma.row_ptr || !pk->mb.row_ptr)
        return zp__fail(why, ZP_E_UNSUPPORTED,
                        "the GPU prover needs the key's constraint matrices (this key has none)");
    unsigned log2n = (unsigned)__builtin_ctzll(pk->domain_size);
    bool coset = pk->h_conv == ZP_H_COSET;
    if (log2n < 1 || log2n > ZP_GPU_NTT_MAX_LOG2 ||
        log2n + (coset ? 1u : 0u) > ZP_NTT_MAX_LOG2)
        return zp__fail(why, ZP_E_UNSUPPORTED, "domain 2^%u is outside the GPU NTT", log2n);
    zp__g16_gpu *g = calloc(1, sizeof *g);
    if (!g)
        return zp__fail(why, ZP_E_NOMEM, "no memory for the GPU prover");
    g->pk = pk;
    g->threads = threads;
    g->hw = malloc(((size_t)pk->n_vars + 1) * sizeof(zp_fr));
    g->ha = malloc(((size_t)pk->n_a + 1) * sizeof(zp_fr));
    g->hb = malloc(((size_t)pk->n_b + 1) * sizeof(zp_fr));
    if (!g->hw || !g->ha || !g->hb) {
        zp__g16_gpu_close(g);
        return zp__fail(why, ZP_E_NOMEM, "no memory for the witness scalars");
    }
    zp__gpu_config cfg;
    zp__gpu_config_default(&cfg);
    cfg.device = device;
    zp_err e = zp__gpu_open(&g->dev, &cfg);
    if (!e)
        e = zp__gpu_stream_open(g->dev, &g->s);
    if (!e)
        e = upload_key(g);
    if (e) {
        zp__fail(why, e, "GPU prover setup failed: %s (%s)", zp_errname(e), zp__gpu_last_error());
        zp__g16_gpu_close(g);
        return e;
    }
    *out = g;
    return ZP_OK;
}

/* --------------------------------------------------------- eval and h */

zp_err zp__g16_gpu_eval(zp__g16_gpu *g, const zp_fr *w)
{
    const zp__pk *pk = g->pk;
    zp_fr *d = g->abc.ptr;
    uint64_t n = pk->domain_size;
    zp_err e = zp__gpu_upload(g->s, g->w.ptr, w, (uint64_t)pk->n_vars * sizeof(zp_fr));
    if (!e)
        e = zp__gpu_eval_abc(g->s, d, d + n, d + 2 * n, n, &g->ma, &g->mb, g->w.ptr);
    return e ? e : zp__gpu_stream_sync(g->s);
}

/* x <- the evaluations of iNTT(x) on the coset shift·⟨ω⟩ (as prove.c). */
static zp_err to_coset(zp__g16_gpu *g, zp_fr *x, unsigned log2n, const zp_fr *shift)
{
    zp_err e = zp__gpu_ntt(g->s, x, log2n, true, g->pk->roots, NULL);
    return e ? e : zp__gpu_ntt(g->s, x, log2n, false, g->pk->roots, shift);
}

zp_err zp__g16_gpu_h(zp__g16_gpu *g)
{
    const zp__pk *pk = g->pk;
    uint64_t n = pk->domain_size;
    unsigned log2n = (unsigned)__builtin_ctzll(n);
    bool coset = pk->h_conv == ZP_H_COSET;
    zp_fr *a = g->abc.ptr, *b = a + n, *c = b + n;
    zp_fr shift, scale;
    if (coset)
        zp_fr_root_of_unity(&shift, log2n + 1, pk->roots);
    else
        zp_fr_from_u64(&shift, 7);
    if (coset) {
        zp_fr_one(&scale);
    } else {
        /* Z(X) = Xⁿ − 1 is the constant gⁿ − 1 on the whole coset. */
        uint64_t nn = n;
        zp_fr one;
        zp_fr_pow(&scale, &shift, &nn, 1);
        zp_fr_one(&one);
        zp_fr_sub(&scale, &scale, &one);
        zp_fr_inv(&scale, &scale);
    }
    /* Raw limbs of the standard form: the product leaves standard form
     * (see the top of this file). */
    zp_fr raw;
    zp_fr_from_mont(&raw, &scale);
    zp_err e;
    if ((e = to_coset(g, a, log2n, &shift)) || (e = to_coset(g, b, log2n, &shift)) ||
        (e = to_coset(g, c, log2n, &shift)) ||
        (e = zp__gpu_fr_mul_sub_scale(g->s, a, a, b, c, &raw, n)))
        return e;
    /* TAU: back to coefficients; the first n − 1 are the H scalars. */
    if (!coset && (e = zp__gpu_ntt(g->s, a, log2n, true, pk->roots, &shift)))
        return e;
    return zp__gpu_stream_sync(g->s);
}

zp_err zp__g16_gpu_read(zp__g16_gpu *g, zp_fr *out, zp__g16_gpu_array which)
{
    uint64_t n = g->pk->domain_size, len = n;
    const zp_fr *d = g->abc.ptr;
    switch (which) {
    case ZP_G16_GPU_A: break;
    case ZP_G16_GPU_B: d += n; break;
    case ZP_G16_GPU_C: d += 2 * n; break;
    case ZP_G16_GPU_H: len = g->pk->n_h; break;
    default: return ZP_E_INVALID_ARG;
    }
    zp_err e = zp__gpu_download(g->s, out, d, len * sizeof(zp_fr));
    return e ? e : zp__gpu_stream_sync(g->s);
}

/* ------------------------------------------------------------------ msm */

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

/* The scalars of the variables in d, in variable order. */
static void gather(zp_fr *out, const zp__bitmap *d, const zp_fr *w)
{
    size_t k = 0;
    for (uint64_t i = 0; i < d->nbits; i++)
        if (zp__bitmap_get(d, i))
            out[k++] = w[i];
}

/* Host: standard-form w and its A/B gathers, then their upload. */
static zp_err put_scalars(zp__g16_gpu *g, const zp_fr *w)
{
    const zp__pk *pk = g->pk;
    conv_ctx x = {g->hw, w};
    zp__parallel_for((size_t)pk->n_vars, 1 << 14, conv_task, &x, g->threads);
    gather(g->ha, &pk->a_density, g->hw);
    gather(g->hb, &pk->b_density, g->hw);
    zp_err e;
    if ((e = zp__gpu_upload(g->s, g->ws.ptr, g->hw, (uint64_t)pk->n_vars * sizeof(zp_fr))) ||
        (pk->n_a && (e = zp__gpu_upload(g->s, g->sa.ptr, g->ha, pk->n_a * sizeof(zp_fr)))) ||
        (pk->n_b && (e = zp__gpu_upload(g->s, g->sb.ptr, g->hb, pk->n_b * sizeof(zp_fr)))))
        return e;
    return zp__gpu_stream_sync(g->s);
}

static zp_err msm1(zp__g16_gpu *g, zp_g1_jac *out, const zp__gpu_buf *p, const zp_fr *sc,
                   uint64_t n)
{
    if (n == 0) {
        zp_g1_jac_inf(out);
        return ZP_OK;
    }
    return zp__gpu_msm_g1(g->s, out, p->ptr, sc, n, g->scratch);
}

zp_err zp__g16_gpu_msm(zp__g16_sums *out, zp__g16_gpu *g, const zp_fr *w,
                       zp__prove_times *t)
{
    const zp__pk *pk = g->pk;
    zp__prove_times dummy;
    if (!t)
        t = &dummy;
    double t0 = now(), t1, t2, t3, t4, t5;
    const zp_fr *ws = g->ws.ptr;
    zp_err e = put_scalars(g, w);
    if (!e)
        e = msm1(g, &out->a, &g->p_a, g->sa.ptr, pk->n_a);
    t1 = now();
    if (!e)
        e = msm1(g, &out->b1, &g->p_b1, g->sb.ptr, pk->n_b);
    t2 = now();
    if (!e) {
        if (pk->n_b)
            e = zp__gpu_msm_g2(g->s, &out->b2, g->p_b2.ptr, g->sb.ptr, pk->n_b, g->scratch);
        else
            zp_g2_jac_inf(&out->b2);
    }
    t3 = now();
    if (!e)
        e = msm1(g, &out->l, &g->p_l, ws + pk->n_public + 1, pk->n_l);
    t4 = now();
    if (!e)
        e = msm1(g, &out->h, &g->p_h, g->abc.ptr, pk->n_h);
    t5 = now();
    t->msm_a = t1 - t0;
    t->msm_b1 = t2 - t1;
    t->msm_b2 = t3 - t2;
    t->msm_l = t4 - t3;
    t->msm_h = t5 - t4;
    return e;
}

/* --------------------------------------------------------------- driver */

static zp_err gpu_fail(zp__ioerr *why, zp_err e, const char *stage)
{
    return zp__fail(why, e, "GPU %s stage failed: %s (%s)", stage, zp_errname(e),
                    zp__gpu_last_error());
}

static zp_err run_stages(zp__g16_gpu *g, zp__proof *out, const zp_fr *w,
                         const zp__prove_opts *o, zp__prove_times *t, zp__ioerr *why)
{
    double t0 = now();
    zp_err e = zp__g16_gpu_eval(g, w);
    double t1 = now();
    t->eval = t1 - t0;
    if (e)
        return gpu_fail(why, e, "eval");
    e = zp__g16_gpu_h(g);
    t->h = now() - t1;
    if (e)
        return gpu_fail(why, e, "h");
    zp__g16_sums sums;
    if ((e = zp__g16_gpu_msm(&sums, g, w, t)))
        return gpu_fail(why, e, "msm");
    return zp__g16_finish_verify(out, g->pk, &sums, w, o, t, why);
}

zp_err zp__g16_gpu_prove(zp__g16_gpu *g, zp__proof *out, const zp_fr *w, uint64_t n_w,
                         const zp__prove_opts *opt, zp__prove_times *times, zp__ioerr *why)
{
    zp__prove_opts def;
    zp__prove_times t;
    memset(&t, 0, sizeof t);
    if (!opt) {
        zp__prove_opts_default(&def);
        opt = &def;
    }
    zp_err e = zp__g16_check_inputs(g->pk, w, n_w, opt, why);
    if (!e)
        e = run_stages(g, out, w, opt, &t, why);
    if (times)
        *times = t;
    return e;
}
