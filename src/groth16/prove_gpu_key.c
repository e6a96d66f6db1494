/*
 * Proving keys resident in a device's arena (gpu_prover.h): upload, size,
 * read back, free. Besides the points and matrices the device keeps the
 * density bitmaps and, per 64-bit word, the count of set bits before it,
 * so the A and B scalars are gathered on the device in one pass.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "groth16/gpu_prover.h"
#include "groth16/prove_gpu_stages.h"

uint64_t zp__g16_arena_round(uint64_t bytes)
{
    bytes = bytes ? bytes : 32;
    return (bytes + 255) & ~(uint64_t)255;
}

static uint64_t rnd(uint64_t bytes) { return zp__g16_arena_round(bytes); }

static uint64_t n_words(const zp__pk *pk) { return ((uint64_t)pk->n_vars + 63) / 64; }

uint64_t zp__g16_part_count(const zp__pk *pk, zp__g16_part i)
{
    switch (i) {
    case ZP_G16_P_L: return pk->n_l;
    case ZP_G16_P_A: return pk->n_a;
    case ZP_G16_P_B1: return pk->n_b;
    case ZP_G16_P_B2: return pk->n_b;
    case ZP_G16_P_H: return pk->n_h;
    default: return 0;
    }
}

uint64_t zp__g16_part_size(zp__g16_part i)
{
    return i == ZP_G16_P_B2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
}

const char *zp__g16_part_name(zp__g16_part i)
{
    static const char *const names[ZP_G16_NP] = {"L", "A", "B1", "B2", "H"};
    return (unsigned)i < ZP_G16_NP ? names[i] : "?";
}

/* The host array of k's points of array i (NULL when the key has none). */
static const void *part_host(const zp__pk *pk, zp__g16_part i)
{
    const void *h[ZP_G16_NP] = {pk->l, pk->a, pk->b1, pk->b2, pk->h};
    return h[i];
}

zp__g16_himg *zp__g16_himg_borrow(const zp__pk *pk)
{
    zp__g16_himg *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    for (int i = 0; i < ZP_G16_NP; i++)
        m->p[i] = (void *)part_host(pk, (zp__g16_part)i);
    m->borrowed = true;
    atomic_init(&m->refs, 1);
    return m;
}

void zp__g16_himg_ref(zp__g16_himg *m) { atomic_fetch_add(&m->refs, 1); }

void zp__g16_himg_unref(zp__g16_himg *m)
{
    if (!m || atomic_fetch_sub(&m->refs, 1) != 1)
        return;
    for (int i = 0; i < ZP_G16_NP && !m->borrowed; i++)
        zp__gpu_host_free(m->p[i]);
    if (m->mats) { /* pinned images: no device is needed to free them */
        zp__gpu_csr_free(NULL, &m->ma);
        zp__gpu_csr_free(NULL, &m->mb);
    }
    free(m);
}

uint64_t zp__g16_himg_bytes(const zp__g16_himg *m, const zp__pk *pk)
{
    uint64_t b = m->mats ? m->ma.mem.bytes + m->mb.mem.bytes : 0;
    for (int i = 0; i < ZP_G16_NP && !m->borrowed; i++)
        if (m->p[i])
            b += (zp__g16_part_count(pk, (zp__g16_part)i) - m->first[i]) *
                 zp__g16_part_size((zp__g16_part)i);
    return b;
}

bool zp__g16_himg_covers(const zp__g16_himg *m, const zp__pk *pk,
                         const uint64_t res[ZP_G16_NP])
{
    for (int i = 0; i < ZP_G16_NP; i++)
        if (res[i] < zp__g16_part_count(pk, (zp__g16_part)i) && (!m->p[i] || m->first[i] > res[i]))
            return false;
    return true;
}

bool zp__g16_dkey_img_mats(const zp__g16_dkey *k)
{
    return k->img && k->img->mats && k->ma.mem.ptr == k->img->ma.mem.ptr;
}

zp_err zp__g16_dkey_host(zp__g16_dkey *k, const zp__pk *pk, bool *made)
{
    *made = k->img_given = k->img != NULL;
    uint64_t streamed[ZP_G16_NP], any = 0;
    for (int i = 0; i < ZP_G16_NP; i++)
        any += streamed[i] = zp__g16_part_count(pk, (zp__g16_part)i) - k->res[i];
    if (!any)
        return ZP_OK;
    if (!k->img) {
        if (!(k->img = calloc(1, sizeof *k->img)))
            return ZP_E_NOMEM;
        atomic_init(&k->img->refs, 1);
        for (int i = 0; i < ZP_G16_NP; i++) {
            zp_err e;
            k->img->first[i] = k->res[i];
            if (streamed[i] &&
                (e = zp__gpu_host_alloc(k->dev, &k->img->p[i],
                                        streamed[i] * zp__g16_part_size((zp__g16_part)i))))
                return e;
        }
    }
    for (int i = 0; i < ZP_G16_NP; i++)
        k->host[i] = streamed[i] ? (char *)k->img->p[i] + (k->res[i] - k->img->first[i]) *
                                                              zp__g16_part_size((zp__g16_part)i)
                                 : NULL;
    return ZP_OK;
}

zp__gpu_buf *zp__g16_dkey_part(zp__g16_dkey *k, zp__g16_part i)
{
    zp__gpu_buf *b[ZP_G16_NP] = {&k->p_l, &k->p_a, &k->p_b1, &k->p_b2, &k->p_h};
    return b[i];
}

bool zp__g16_dkey_streams(const zp__g16_dkey *k)
{
    for (int i = 0; i < ZP_G16_NP; i++)
        if (k->host[i])
            return true;
    return k->mat_stream;
}

uint64_t zp__g16_dkey_stream_bytes(const zp__g16_dkey *k)
{
    uint64_t b = k->ma.host ? k->ma.mem.bytes + k->mb.mem.bytes : 0;
    for (int i = 0; i < ZP_G16_NP; i++)
        if (k->host[i])
            b += (zp__g16_part_count(k->pk, (zp__g16_part)i) - k->res[i]) *
                 zp__g16_part_size((zp__g16_part)i);
    return b;
}

/* The full twist tables of the key's domain (gpu.h: one product an element
 * less in each transform's first pass, 8 GiB at 2^27), where the tuning
 * asks for them. */
static uint64_t twist_bytes(const zp__pk *pk, const zp_gpu_tuning *t)
{
    if (!t->ntt_twist)
        return 0;
    return zp__gpu_ntt_twist_bytes((unsigned)__builtin_ctzll(pk->domain_size));
}

zp_err zp__g16_dkey_twist(zp__g16_dkey *k, zp__gpu_stream *s, const zp__g16_gpu_opts *o)
{
    const zp__pk *pk = k->pk;
    const zp__g16_gpu_opts op = zp__g16_gpu_opts_of(o);
    const uint64_t tb = twist_bytes(pk, &op.tuning);
    if (!tb || zp__g16_dkey_streams(k))
        return ZP_OK; /* a key that streams puts every byte into points */
    /* Only where two working sets of the key's shape still fit beside
     * them (the engine's default slots): a GPU that holds fewer slots
     * loses more than the tables save (~1 % of a partition). */
    zp__gpu_info info;
    zp__gpu_get_info(k->dev, &info);
    if (info.arena_largest_free < tb + 2 * zp__g16_slot_bytes_min(pk))
        return ZP_OK;
    zp_err e = zp__gpu_ntt_twist_build(s, &k->twist, (unsigned)__builtin_ctzll(pk->domain_size),
                                       pk->roots);
    zp_err es = zp__gpu_stream_sync(s);
    if (!e && es)
        zp__gpu_ntt_twist_free(k->dev, &k->twist);
    /* Optional: no room after all (another thread's allocation between the
     * check and the build) or a build without them is no failure. */
    if (e == ZP_E_GPU_OOM || e == ZP_E_UNSUPPORTED)
        e = ZP_OK;
    return e ? e : es;
}

void zp__g16_dkey_drop_h_pre(zp__g16_dkey *k)
{
    zp__gpu_free(k->dev, &k->h_pre);
    k->h_pre_c = 0;
}

/* The automatic H table's windows for n_h points, where the precomputed
 * MSM gains most against the plain one (bench/RESULTS.md: it takes 0.6 to
 * 0.9 of the plain time, the less the fewer points), or 0: none for
 * 2^(ZP_H_PRE_AUTO_FROM - 1) points or fewer (too little to win) or above
 * 2^ZP_H_PRE_AUTO_TO, whose tables (over 20 GiB) would crowd out other
 * keys. */
static unsigned h_pre_auto(uint64_t n_h)
{
    if (n_h < 2)
        return 0;
    unsigned lg = 64 - (unsigned)__builtin_clzll(n_h - 1); /* 2^(lg-1) < n_h <= 2^lg */
    if (lg < ZP_H_PRE_AUTO_FROM || lg > ZP_H_PRE_AUTO_TO)
        return 0;
    return lg <= 16 ? 16 : lg <= 22 ? 17 : 20;
}

unsigned zp__g16_h_pre_c(const zp__pk *pk, const zp__g16_gpu_opts *o)
{
    unsigned c = zp__g16_gpu_opts_of(o).tuning.h_table;
    if (c == ZP_GPU_H_TABLE_AUTO)
        c = h_pre_auto(pk->n_h);
    return zp__gpu_msm_pre_copies(c) && zp__gpu_msm_scratch_bytes_pre(pk->n_h, c) ? c : 0;
}

/* Bytes of an H table of c-bit windows for pk's H points. */
static uint64_t table_bytes(const zp__pk *pk, unsigned c)
{
    return (uint64_t)zp__gpu_msm_pre_copies(c) * pk->n_h * sizeof(zp_g1_affine);
}

zp_err zp__g16_dkey_h_pre(zp__g16_dkey *k, zp__gpu_stream *s, unsigned c)
{
    const zp__pk *pk = k->pk;
    if (!zp__gpu_msm_pre_copies(c) || k->h_pre.ptr || !k->p_h.ptr || zp__g16_dkey_streams(k))
        return ZP_E_INVALID_ARG;
    if (!zp__gpu_msm_scratch_bytes_pre(pk->n_h, c))
        return ZP_E_TOO_LARGE;
    zp_err e = zp__gpu_alloc(k->dev, &k->h_pre, table_bytes(pk, c));
    if (!e)
        e = zp__gpu_msm_g1_precompute(s, k->h_pre.ptr, k->p_h.ptr, pk->n_h, c);
    if (e) {
        zp__gpu_free(k->dev, &k->h_pre);
        return e;
    }
    k->h_pre_c = c;
    return ZP_OK;
}

bool zp__g16_h_pre_on(const zp__pk *pk, zp__gpu *dev, const zp__g16_gpu_opts *o)
{
    const unsigned c = zp__g16_h_pre_c(pk, o);
    if (!c)
        return false;
    if (zp__g16_gpu_opts_of(o).tuning.h_table != ZP_GPU_H_TABLE_AUTO)
        return true;
    zp__gpu_info info;
    zp__gpu_get_info(dev, &info);
    return table_bytes(pk, c) <= info.arena_bytes / 4;
}

zp_err zp__g16_dkey_h_table(zp__g16_dkey *k, zp__gpu_stream *s, const zp__g16_gpu_opts *o)
{
    const zp__pk *pk = k->pk;
    const unsigned c = zp__g16_h_pre_c(pk, o);
    if (!c || k->h_pre.ptr || zp__g16_dkey_streams(k) || !zp__g16_h_pre_on(pk, k->dev, o))
        return ZP_OK;
    zp__gpu_info info;
    zp__gpu_get_info(k->dev, &info);
    if (info.arena_largest_free < rnd(table_bytes(pk, c)) + 2 * zp__g16_slot_bytes_pre(pk, o))
        return ZP_OK;
    zp_err e = zp__g16_dkey_h_pre(k, s, c);
    return e == ZP_E_GPU_OOM || e == ZP_E_TOO_LARGE ? ZP_OK : e;
}

uint64_t zp__g16_dkey_bytes(const zp__pk *pk)
{
    uint64_t g1 = sizeof(zp_g1_affine), g2 = sizeof(zp_g2_affine), nw = n_words(pk);
    /* the compact matrices' size depends on their coefficients (a pass) */
    uint64_t ma = zp__gpu_csr_bytes(&pk->ma), mb = zp__gpu_csr_bytes(&pk->mb);
    if (ma == UINT64_MAX || mb == UINT64_MAX)
        return UINT64_MAX; /* no host memory to plan them: fits nowhere */
    return rnd(pk->n_a * g1) + rnd(pk->n_b * g1) + rnd(pk->n_b * g2) + rnd(pk->n_l * g1) +
           rnd(pk->n_h * g1) + ma + mb + 2 * rnd(8 * nw) + 2 * rnd(4 * nw);
}

zp_err zp__g16_gpu_key_ok(const zp__pk *pk, zp__ioerr *why)
{
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
    return ZP_OK;
}

void zp__g16_dkey_free(zp__g16_dkey *k)
{
    if (!k->dev)
        return;
    zp__gpu_buf *bufs[] = {&k->p_a,     &k->p_b1,   &k->p_b2,    &k->p_l,   &k->p_h,
                           &k->a_words, &k->a_rank, &k->b_words, &k->b_rank, &k->h_pre};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        zp__gpu_free(k->dev, bufs[i]);
    /* A slot may still be sending the next eval's first block from the
     * matrix images (zp__gpu_eval_ring_first): nothing is freed under a
     * copy. */
    if (k->mat_stream)
        zp__gpu_device_sync(k->dev);
    const bool img_mats = zp__g16_dkey_img_mats(k);
    zp__g16_himg_unref(k->img);
    if (k->ma.mem.ptr && !img_mats)
        zp__gpu_csr_free(k->dev, &k->ma);
    if (k->mb.mem.ptr && !img_mats)
        zp__gpu_csr_free(k->dev, &k->mb);
    zp__g16_share_close(k);
    zp__gpu_ntt_twist_free(k->dev, &k->twist);
    memset(k, 0, sizeof *k);
}

/* An arena region of `bytes` (at least 32) filled from host when bytes > 0. */
static zp_err put(zp__g16_dkey *k, zp__gpu_stream *s, zp__gpu_buf *b, const void *host,
                  uint64_t bytes)
{
    zp_err e = zp__gpu_alloc(k->dev, b, bytes ? bytes : 32);
    if (!e && bytes)
        e = zp__gpu_upload(s, b->ptr, host, bytes);
    return e;
}

/* rank[j] = set bits of words[0 .. j). */
static uint32_t *density_rank(const zp__bitmap *d, uint64_t nw)
{
    uint32_t *rank = malloc((size_t)(nw ? nw : 1) * sizeof *rank);
    if (!rank)
        return NULL;
    uint64_t acc = 0;
    for (uint64_t j = 0; j < nw; j++) {
        rank[j] = (uint32_t)acc;
        acc += (uint64_t)__builtin_popcountll(d->words[j]);
    }
    return rank;
}

/* The points of array i: the first k->res[i] into their region, the rest
 * into k's image where it has them not already (made). */
static zp_err put_part(zp__g16_dkey *k, zp__gpu_stream *s, zp__g16_part i, bool made)
{
    const zp__pk *pk = k->pk;
    const uint64_t n = zp__g16_part_count(pk, i), size = zp__g16_part_size(i), r = k->res[i];
    const char *src = part_host(pk, i);
    zp_err e = put(k, s, zp__g16_dkey_part(k, i), src, r * size);
    if (!e && r < n && !made)
        memcpy(k->host[i], src + r * size, (n - r) * size);
    return e;
}

/* The points array by array, each reported to p as its bytes are copied
 * (to the device or the key's pinned host memory), then the rest. */
static zp_err upload_all(zp__g16_dkey *k, zp__gpu_stream *s, const uint32_t *ra,
                         const uint32_t *rb, const zp__progress *p)
{
    const zp__pk *pk = k->pk;
    uint64_t nw = n_words(pk), total = 0, done = 0;
    for (int i = 0; i < ZP_G16_NP; i++)
        total += zp__g16_part_count(pk, (zp__g16_part)i) * zp__g16_part_size((zp__g16_part)i);
    const char *step = "copying the key to the GPU";
    zp__progress_note(p, step, 0, total);
    bool made = false;
    zp_err e = zp__g16_dkey_host(k, pk, &made);
    for (int i = 0; i < ZP_G16_NP && !e; i++) {
        e = put_part(k, s, (zp__g16_part)i, made);
        if (!e && p && p->fn && !(e = zp__gpu_stream_sync(s))) {
            done += zp__g16_part_count(pk, (zp__g16_part)i) * zp__g16_part_size((zp__g16_part)i);
            zp__progress_note(p, step, done, total);
        }
    }
    if (e || (e = put(k, s, &k->a_words, pk->a_density.words, 8 * nw)) ||
        (e = put(k, s, &k->b_words, pk->b_density.words, 8 * nw)) ||
        (e = put(k, s, &k->a_rank, ra, 4 * nw)) || (e = put(k, s, &k->b_rank, rb, 4 * nw)))
        return e;
    return zp__g16_dkey_put_matrices(k, s, pk);
}

zp_err zp__g16_dkey_put_matrices(zp__g16_dkey *k, zp__gpu_stream *s, const zp__pk *pk)
{
    if (k->mat_stream && k->img && k->img->mats) { /* pinned by another GPU's copy */
        k->ma = k->img->ma;
        k->mb = k->img->mb;
        return ZP_OK;
    }
    if (k->mat_stream) {
        zp_err e = zp__gpu_csr_pin(k->dev, &k->ma, &pk->ma, pk->n_vars);
        if (!e)
            e = zp__gpu_csr_pin(k->dev, &k->mb, &pk->mb, pk->n_vars);
        /* Into k's own image, for the copies planned after it. */
        if (!e && k->img && !k->img_given && !k->img->borrowed) {
            k->img->ma = k->ma;
            k->img->mb = k->mb;
            k->img->mats = true;
        }
        return e;
    }
    zp_err e = zp__gpu_csr_upload(s, &k->ma, &pk->ma, pk->n_vars);
    return e ? e : zp__gpu_csr_upload(s, &k->mb, &pk->mb, pk->n_vars);
}

bool zp__g16_dkey_take_plan(zp__g16_dkey *k, const zp__pk *pk, const zp__g16_plan *plan)
{
    static _Atomic uint64_t ids;
    k->id = atomic_fetch_add(&ids, 1) + 1;
    for (int i = 0; i < ZP_G16_NP; i++) {
        const uint64_t n = zp__g16_part_count(pk, (zp__g16_part)i);
        k->res[i] = plan ? plan->res[i] : n;
        if (k->res[i] > n)
            return false;
    }
    k->ring_buffer = plan ? plan->ring_buffer : 0;
    k->lean = plan && plan->lean;
    k->mat_stream = plan && plan->mat_stream;
    k->shared = plan && plan->shared && plan->ring_buffer;
    if (plan && plan->img && zp__g16_himg_covers(plan->img, pk, k->res)) {
        zp__g16_himg_ref(plan->img);
        k->img = plan->img;
    }
    return true;
}

zp_err zp__g16_dkey_upload(zp__g16_dkey *out, zp__gpu *dev, zp__gpu_stream *s,
                           const zp__pk *pk, const zp__g16_gpu_opts *o, zp__ioerr *why)
{
    return zp__g16_dkey_upload_plan(out, dev, s, pk, NULL, o, why);
}

zp_err zp__g16_dkey_upload_plan(zp__g16_dkey *out, zp__gpu *dev, zp__gpu_stream *s,
                                const zp__pk *pk, const zp__g16_plan *plan,
                                const zp__g16_gpu_opts *o, zp__ioerr *why)
{
    memset(out, 0, sizeof *out);
    zp_err e = zp__g16_gpu_key_ok(pk, why);
    if (e)
        return e;
    if ((pk->n_a && !pk->a) || (pk->n_h && !pk->h))
        return zp__fail(why, ZP_E_UNSUPPORTED, "the proving key has no points to upload");
    if (!zp__g16_dkey_take_plan(out, pk, plan))
        return zp__fail(why, ZP_E_INVALID_ARG, "the key's plan is not of its shape");
    uint64_t nw = n_words(pk);
    uint32_t *ra = density_rank(&pk->a_density, nw), *rb = density_rank(&pk->b_density, nw);
    if (!ra || !rb) {
        free(ra);
        free(rb);
        zp__g16_himg_unref(out->img);
        out->img = NULL;
        return zp__fail(why, ZP_E_NOMEM, "no memory for the density ranks");
    }
    out->dev = dev;
    out->pk = pk;
    const zp__g16_gpu_opts op = zp__g16_gpu_opts_of(o);
    e = upload_all(out, s, ra, rb, &op.progress);
    if (!e)
        e = zp__g16_dkey_twist(out, s, o);
    if (!e && out->shared)
        e = zp__g16_share_open(out, out->ring_buffer);
    /* The copies read ra and rb until the stream is done with them. */
    zp_err es = zp__gpu_stream_sync(s);
    free(ra);
    free(rb);
    if (!e)
        e = es;
    if (e) {
        zp__fail(why, e, "uploading the key to the GPU failed: %s (%s)", zp_errname(e),
                 zp__gpu_last_error());
        zp__g16_dkey_free(out);
        return e;
    }
    return ZP_OK;
}

/* Array i of k into host (n points): resident ones from the device, the
 * rest from k's pinned copy. */
static zp_err get(const zp__g16_dkey *k, zp__gpu_stream *s, void *host, zp__g16_part i)
{
    const uint64_t n = zp__g16_part_count(k->pk, i), size = zp__g16_part_size(i), r = k->res[i];
    const zp__gpu_buf *b = zp__g16_dkey_part((zp__g16_dkey *)k, i);
    if (!host || !n)
        return ZP_OK;
    if (r && (!b->ptr || b->bytes < r * size))
        return ZP_E_INVALID_ARG;
    if (r < n && !k->host[i])
        return ZP_E_INVALID_ARG;
    if (r < n)
        memcpy((char *)host + r * size, k->host[i], (n - r) * size);
    return r ? zp__gpu_download(s, host, b->ptr, r * size) : ZP_OK;
}

zp_err zp__g16_dkey_read(const zp__g16_dkey *k, zp__gpu_stream *s, zp_g1_affine *a,
                         zp_g1_affine *b1, zp_g2_affine *b2, zp_g1_affine *l,
                         zp_g1_affine *h)
{
    zp_err e;
    if ((e = get(k, s, a, ZP_G16_P_A)) || (e = get(k, s, b1, ZP_G16_P_B1)) ||
        (e = get(k, s, b2, ZP_G16_P_B2)) || (e = get(k, s, l, ZP_G16_P_L)) ||
        (e = get(k, s, h, ZP_G16_P_H))) {
        zp__gpu_stream_sync(s); /* no copy may still write the outputs */
        return e;
    }
    return zp__gpu_stream_sync(s);
}
