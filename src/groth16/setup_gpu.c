/*
 * TEST-ONLY key setup on the device (gpu_prover.h): the key zp__setup
 * makes, with the scalars computed on the host by the same code
 * (setup_impl.h) and every point made by fixed-base multiplication on the
 * device, straight into the dkey's arena regions. A synth:porep:27 key is
 * ~44 GiB of points that never exist on the host.
 *
 * Host memory stays near the per-variable scalars (u, v, w: 3 × 32 bytes
 * per variable) and the Lagrange values: each scalar array is uploaded to
 * one device scratch region and freed once its points are made (the H
 * scalars before u, v, w exist). The device works while the host computes
 * the next array: H during u, v, w; A while v is compacted; B while the IC
 * points are made on the host.
 */
#include <stdlib.h>
#include <string.h>

#include "groth16/gpu_prover.h"
#include "groth16/setup_impl.h"

/* An arena region of at least 32 bytes (zero-length arrays included). */
static zp_err region(zp__gpu *dev, zp__gpu_buf *b, uint64_t bytes)
{
    return zp__gpu_alloc(dev, b, bytes ? bytes : 32);
}

/* rank[j] = set bits of words[0 .. j) (the gathers' prefix counts). */
static zp_err upload_density(zp__gpu_stream *s, zp__gpu *dev, zp__gpu_buf *words,
                             zp__gpu_buf *rank, const zp__bitmap *d)
{
    uint64_t nw = (d->nbits + 63) / 64;
    uint32_t *r = malloc((size_t)(nw ? nw : 1) * sizeof *r);
    if (!r)
        return ZP_E_NOMEM;
    uint64_t acc = 0;
    for (uint64_t j = 0; j < nw; j++) {
        r[j] = (uint32_t)acc;
        acc += (uint64_t)__builtin_popcountll(d->words[j]);
    }
    zp_err e = region(dev, words, 8 * nw);
    if (!e)
        e = region(dev, rank, 4 * nw);
    if (!e && nw)
        e = zp__gpu_upload(s, words->ptr, d->words, 8 * nw);
    if (!e && nw)
        e = zp__gpu_upload(s, rank->ptr, r, 4 * nw);
    if (!e)
        e = zp__gpu_stream_sync(s); /* r is pageable and freed now */
    free(r);
    return e;
}

/* The device side of the key: regions of the resident points (k->res),
 * pinned host memory for the streamed ones (*made: the plan's image holds
 * them already), matrices, densities. */
static zp_err device_regions(zp__g16_dkey *k, zp__gpu_stream *s, const zp__pk *pk, bool *made)
{
    zp_err e;
    for (int i = 0; i < ZP_G16_NP; i++) {
        const zp__g16_part part = (zp__g16_part)i;
        if ((e = region(k->dev, zp__g16_dkey_part(k, part),
                        k->res[i] * zp__g16_part_size(part))))
            return e;
    }
    if ((e = zp__g16_dkey_host(k, pk, made)))
        return e;
    if ((e = zp__g16_dkey_put_matrices(k, s, pk)) ||
        (e = upload_density(s, k->dev, &k->a_words, &k->a_rank, &pk->a_density)) ||
        (e = upload_density(s, k->dev, &k->b_words, &k->b_rank, &pk->b_density)))
        return e;
    return ZP_OK;
}

/* The working state of one setup. */
typedef struct gs {
    zp__gpu *dev;
    zp__gpu_stream *s;
    int threads;
    zp__fb_g1 f1;
    zp__fb_g2 f2;
    zp__gpu_buf t1, t2, k; /* the tables, the scalar scratch */
    zp__gpu_buf stage;     /* streamed points are made here, then copied out */
    zp__progress_span pts; /* points made of all the key's */
    bool img_made;         /* the streamed points are in the key's image already */
} gs;

/* n more points made (each multiplication waits for the stream before the
 * next, so a point counted is one the device made). */
static void made(gs *x, uint64_t n)
{
    x->pts.done += n;
    zp__progress_note(x->pts.p, x->pts.step, x->pts.done, x->pts.total);
}

static void gs_free(gs *x)
{
    zp__fb_g1_free(&x->f1);
    zp__fb_g2_free(&x->f2);
    zp__gpu_free(x->dev, &x->t1);
    zp__gpu_free(x->dev, &x->t2);
    zp__gpu_free(x->dev, &x->k);
    zp__gpu_free(x->dev, &x->stage);
}

/* Host tables of both generators (the vk and IC points are made with them
 * on the host), their device copies, and scratch for `max_k` scalars. */
static zp_err gs_init(gs *x, const zp__pk *pk, uint64_t max_k)
{
    zp_g1_affine g1;
    zp_g2_affine g2;
    zp_g1_generator(&g1);
    zp_g2_generator(&g2);
    uint64_t n1 = pk->n_a + pk->n_b + pk->n_public + 1 + pk->n_l + pk->n_h + 3;
    zp_err e;
    if ((e = zp__fb_g1_init(&x->f1, &g1, zp__fb_window(n1))) ||
        (e = zp__fb_g2_init(&x->f2, &g2, zp__fb_window(pk->n_b + 3))))
        return e;
    uint64_t b1 = ((uint64_t)x->f1.nwin << x->f1.w) * sizeof(zp_g1_affine);
    uint64_t b2 = ((uint64_t)x->f2.nwin << x->f2.w) * sizeof(zp_g2_affine);
    if ((e = region(x->dev, &x->t1, b1)) || (e = region(x->dev, &x->t2, b2)) ||
        (e = region(x->dev, &x->k, max_k * sizeof(zp_fr))) ||
        (e = zp__gpu_upload(x->s, x->t1.ptr, x->f1.t, b1)) ||
        (e = zp__gpu_upload(x->s, x->t2.ptr, x->f2.t, b2)))
        return e;
    return zp__gpu_stream_sync(x->s);
}

/* Uploads n scalars to the scratch (the previous multiplications done). */
static zp_err put_scalars(gs *x, const zp_fr *k, uint64_t n)
{
    zp_err e = zp__gpu_stream_sync(x->s);
    if (!e && n)
        e = zp__gpu_upload(x->s, x->k.ptr, k, n * sizeof *k);
    return e;
}

/* Points are made a slice at a time, so that progress moves. */
#define SLICE ((uint64_t)1 << 22)

static zp_err mul(gs *x, zp__g16_part part, void *out, uint64_t off, uint64_t n)
{
    const uint64_t size = zp__g16_part_size(part);
    zp_err e = ZP_OK;
    for (uint64_t i = 0; !e && i < n; i += SLICE) {
        const uint64_t m = n - i < SLICE ? n - i : SLICE;
        const zp_fr *k = (const zp_fr *)x->k.ptr + off + i;
        void *o = (char *)out + i * size;
        e = part == ZP_G16_P_B2
                ? zp__gpu_fb_g2_mul(x->s, o, x->t2.ptr, x->f2.w, x->f2.nwin, k, m)
                : zp__gpu_fb_g1_mul(x->s, o, x->t1.ptr, x->f1.w, x->f1.nwin, k, m);
        if (!e && x->pts.p && x->pts.p->fn && !(e = zp__gpu_stream_sync(x->s)))
            made(x, m);
    }
    return e;
}

/* The points of array `part` from the scalars in x->k: the resident ones
 * into their region, the streamed ones a staging region at a time into the
 * key's pinned host memory, unless its image holds them already (made
 * by the key's copy on another GPU). */
static zp_err points(gs *x, zp__g16_dkey *k, zp__g16_part part, uint64_t n)
{
    const uint64_t r = k->res[part], size = zp__g16_part_size(part);
    zp_err e = r ? mul(x, part, zp__g16_dkey_part(k, part)->ptr, 0, r) : ZP_OK;
    if (!e && r < n && x->img_made && x->pts.p && x->pts.p->fn)
        made(x, n - r);
    if (e || r == n || x->img_made)
        return e;
    const uint64_t chunk = x->stage.bytes / size;
    for (uint64_t off = r; !e && off < n; off += chunk) {
        const uint64_t len = n - off < chunk ? n - off : chunk;
        e = mul(x, part, x->stage.ptr, off, len);
        if (!e)
            e = zp__gpu_download(x->s, (char *)k->host[part] + (off - r) * size, x->stage.ptr,
                                 len * size);
        if (!e)
            e = zp__gpu_stream_sync(x->s); /* the staging region is made again next */
    }
    return e;
}

static zp_err g1_points(gs *x, zp__g16_dkey *k, zp__g16_part part, uint64_t n)
{
    return points(x, k, part, n);
}

/* A, B1, B2, IC (host), L from u, v, w (consumed and freed). */
static zp_err uvw_points(gs *x, zp__g16_dkey *k, zp__pk *pk, zp_fr **u, zp_fr **v, zp_fr **w)
{
    zp_err e;
    zp__setup_compact(*u, &pk->a_density);
    if ((e = put_scalars(x, *u, pk->n_a)) || (e = g1_points(x, k, ZP_G16_P_A, pk->n_a)))
        return e;
    zp__setup_compact(*v, &pk->b_density);
    if ((e = zp__gpu_stream_sync(x->s)))
        return e;
    free(*u);
    *u = NULL;
    if ((e = put_scalars(x, *v, pk->n_b)) || (e = g1_points(x, k, ZP_G16_P_B1, pk->n_b)) ||
        (e = points(x, k, ZP_G16_P_B2, pk->n_b)))
        return e;
    pk->vk.n_ic = pk->n_public + 1;
    pk->vk.ic = malloc((size_t)pk->vk.n_ic * sizeof *pk->vk.ic);
    if (!pk->vk.ic)
        return ZP_E_NOMEM;
    zp__fb_g1_mul(pk->vk.ic, &x->f1, *w, pk->vk.n_ic, x->threads);
    if ((e = zp__gpu_stream_sync(x->s)))
        return e;
    free(*v);
    *v = NULL;
    if ((e = put_scalars(x, *w + pk->vk.n_ic, pk->n_l)))
        return e;
    return g1_points(x, k, ZP_G16_P_L, pk->n_l);
}

/* The H points first: their scalars need only τ and δ, and the device
 * makes them while the host computes u, v, w. */
static zp_err h_points(gs *x, zp__g16_dkey *k, const zp__pk *pk, const zp__toxic *t,
                       unsigned log2n)
{
    zp_fr *h = malloc((size_t)(pk->domain_size ? pk->domain_size : 1) * sizeof *h);
    if (!h)
        return ZP_E_NOMEM;
    zp_err e = zp__setup_h(h, pk, t, log2n, x->threads);
    if (!e)
        e = put_scalars(x, h, pk->n_h);
    if (!e)
        e = zp__gpu_stream_sync(x->s); /* the upload only: h is freed now */
    if (!e)
        e = g1_points(x, k, ZP_G16_P_H, pk->n_h);
    free(h);
    return e;
}

static zp_err make_points(gs *x, zp__g16_dkey *k, zp__pk *pk, const zp__r1cs *cs,
                          const zp__toxic *t, unsigned log2n)
{
    zp_err e = h_points(x, k, pk, t, log2n);
    if (e)
        return e;
    zp_fr *u = malloc(((size_t)pk->n_vars + 1) * sizeof *u);
    zp_fr *v = malloc(((size_t)pk->n_vars + 1) * sizeof *v);
    zp_fr *w = malloc(((size_t)pk->n_vars + 1) * sizeof *w);
    e = u && v && w ? ZP_OK : ZP_E_NOMEM;
    if (!e)
        e = zp__setup_uvw(u, v, w, pk, cs, &t->tau, log2n, x->threads);
    if (!e) {
        zp__setup_ic_l(w, u, v, pk, t, x->threads);
        e = uvw_points(x, k, pk, &u, &v, &w);
    }
    /* The device reads w (the L scalars) until the stream is done. */
    zp_err e2 = zp__gpu_stream_sync(x->s);
    free(u);
    free(v);
    free(w);
    return e ? e : e2;
}

/* The plan's layout into k (all resident without a plan_fn). */
static zp_err take_plan(zp__g16_dkey *k, const zp__pk *pk, zp__g16_plan_fn plan_fn, void *ctx,
                        zp__ioerr *why)
{
    zp__g16_plan plan;
    zp_err e = plan_fn ? plan_fn(ctx, pk, &plan, why) : ZP_OK;
    if (!e && !zp__g16_dkey_take_plan(k, pk, plan_fn ? &plan : NULL))
        e = zp__fail(why, ZP_E_INVALID_ARG, "the key's plan is not of its shape");
    return e;
}

/* A staging region for streamed points: the plan's buffer size, at most
 * the largest streamed array. */
static zp_err stage_region(gs *x, const zp__g16_dkey *k, const zp__pk *pk)
{
    uint64_t most = 0;
    for (int i = 0; i < ZP_G16_NP; i++) {
        const uint64_t n = zp__g16_part_count(pk, (zp__g16_part)i) - k->res[i];
        const uint64_t b = n * zp__g16_part_size((zp__g16_part)i);
        most = b > most ? b : most;
    }
    if (!most)
        return ZP_OK;
    uint64_t bytes = k->ring_buffer ? k->ring_buffer : ZP_G16_RING_BUFFER;
    bytes = bytes < most ? bytes : most;
    return region(x->dev, &x->stage, bytes > sizeof(zp_g2_affine) ? bytes : sizeof(zp_g2_affine));
}

static zp_err setup(zp__g16_dkey *k, zp__pk *pk, gs *x, const zp__r1cs *cs, zp_h_conv conv,
                    const zp__toxic *toxic, zp__g16_plan_fn plan_fn, void *plan_ctx,
                    zp__ioerr *why)
{
    unsigned log2n;
    zp__toxic t;
    zp_err e = zp__setup_shape(pk, &log2n, cs, conv);
    if (!e)
        e = zp__setup_toxic(&t, toxic);
    if (e)
        return e;
    uint64_t max_k = pk->n_vars > pk->domain_size ? pk->n_vars : pk->domain_size;
    /* The counts of points are known once the matrices are. */
    if (!(e = zp__setup_matrices(pk, cs, x->threads))) {
        x->pts.total = pk->n_h + pk->n_a + 2 * pk->n_b + pk->n_l;
        zp__progress_note(x->pts.p, x->pts.step, 0, x->pts.total);
    }
    if (!e && !(e = take_plan(k, pk, plan_fn, plan_ctx, why)) &&
        !(e = device_regions(k, x->s, pk, &x->img_made)) && !(e = gs_init(x, pk, max_k)) &&
        !(e = stage_region(x, k, pk))) {
        zp__setup_vk_points(pk, &t, &x->f1, &x->f2);
        e = make_points(x, k, pk, cs, &t, log2n);
    }
    explicit_bzero(&t, sizeof t);
    return e;
}

zp_err zp__g16_dkey_setup(zp__g16_dkey *out, zp__pk *pk_out, zp__gpu *dev,
                          zp__gpu_stream *s, const zp__r1cs *cs, zp_h_conv conv,
                          int threads, const zp__toxic *toxic, const zp__g16_gpu_opts *o,
                          zp__ioerr *why)
{
    return zp__g16_dkey_setup_plan(out, pk_out, dev, s, cs, conv, threads, toxic, NULL, NULL, o,
                                   why);
}

zp_err zp__g16_dkey_setup_plan(zp__g16_dkey *out, zp__pk *pk_out, zp__gpu *dev,
                               zp__gpu_stream *s, const zp__r1cs *cs, zp_h_conv conv,
                               int threads, const zp__toxic *toxic, zp__g16_plan_fn plan_fn,
                               void *plan_ctx, const zp__g16_gpu_opts *o, zp__ioerr *why)
{
    memset(out, 0, sizeof *out);
    memset(pk_out, 0, sizeof *pk_out);
    zp__g16_dkey k;
    zp__pk pk;
    gs x;
    memset(&k, 0, sizeof k);
    memset(&pk, 0, sizeof pk);
    memset(&x, 0, sizeof x);
    k.dev = x.dev = dev;
    x.s = s;
    x.threads = threads;
    zp__ioerr plan_why = {{0}};
    const zp__g16_gpu_opts op = zp__g16_gpu_opts_of(o);
    x.pts = (zp__progress_span){&op.progress, "making key points on the GPU", 0, 0};
    zp_err e = setup(&k, &pk, &x, cs, conv, toxic, plan_fn, plan_ctx, &plan_why);
    if (e && plan_why.msg[0]) { /* the plan's own message names the memory */
        *why = plan_why;
        zp__gpu_stream_sync(s);
        gs_free(&x);
        zp__g16_dkey_free(&k);
        zp__pk_free(&pk);
        return e;
    }
    /* Checked once here, as an upload checks its key, so that proofs on
     * it need not count the density bitmaps again (zp__g16_check_witness). */
    if (!e && !zp__pk_counts_ok(&pk))
        e = ZP_E_INVALID_ARG;
    if (!e) {
        k.pk = &pk;
        e = zp__g16_dkey_twist(&k, s, o);
    }
    if (e)
        zp__gpu_stream_sync(s); /* nothing may still use what is freed */
    gs_free(&x);
    /* The shared ring after the setup's staging is given back. */
    if (!e && k.shared)
        e = zp__g16_share_open(&k, k.ring_buffer);
    if (e) {
        zp__g16_dkey_free(&k);
        zp__pk_free(&pk);
        bool gpu = e == ZP_E_GPU || e == ZP_E_GPU_OOM || e == ZP_E_GPU_FATAL;
        return zp__fail(why, e, "GPU key setup failed (%s)%s%s", zp_strerror(e),
                        gpu ? ": " : "", gpu ? zp__gpu_last_error() : "");
    }
    *pk_out = pk;
    k.pk = pk_out;
    *out = k;
    return ZP_OK;
}
