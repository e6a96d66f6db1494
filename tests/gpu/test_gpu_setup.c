/*
 * Test-key setup on the device (fixed_base.cu, setup_gpu.c) against the
 * host's:
 *  - zp__gpu_fb_g1_mul / _g2_mul give the bytes of zp__fb_g1_mul / _g2_mul
 *    for several windows, on edge scalars (0, 1, 2, r − 1, r − 2, single
 *    table entries d·2^(w·i), repeats, runs of zeros) and random ones, for
 *    sizes around the kernels' run lengths (1, 15, 16, 17, 31, 32, 33, …);
 *    bad window arguments are refused.
 *  - zp__g16_dkey_setup makes zp__setup's key from the same toxic waste:
 *    every point read back byte for byte, the vk, counts, densities and
 *    matrices equal, on synthetic porep, chain and dense circuits in both H
 *    conventions; the key proves through a slot and the proof verifies;
 *    a bad toxic is refused with nothing left in the arena.
 *  - a planned setup that streams makes the image of its streamed points;
 *    a second setup given that image (zp__g16_plan.img, as the engine gives
 *    a key's copy on another GPU) makes only its resident points and reads
 *    the same bytes from the image, also once the first copy is freed; an
 *    upload given an image borrowed from the host key's own arrays points
 *    into them and holds no pinned memory of its own; where the matrices
 *    stream, the second copy streams them from the first's pinned images. Every point read back
 *    byte for byte, and both prove through a slot with a ring.
 */
#include "gpu_test.h"
#include "groth16/gpu_prover.h"
#include "groth16/setup_impl.h"
#include "r1cs/synth.h"

/* r − k in Montgomery form. */
static void minus(zp_fr *out, uint64_t k)
{
    zp_fr x;
    zp_fr_from_u64(&x, k);
    zp_fr_zero(out);
    zp_fr_sub(out, out, &x);
}

/* Whether the standard-form p is below r. */
static bool below_r(const zp_fr *p)
{
    for (int i = 3; i >= 0; i--)
        if (p->l[i] != ZP_FR_MODULUS.l[i])
            return p->l[i] < ZP_FR_MODULUS.l[i];
    return false;
}

/* Scalars for a case of n: edge values first, then random ones; runs of
 * zeros and repeats in between. */
static void scalars(zp_fr *k, size_t n, unsigned w)
{
    for (size_t i = 0; i < n; i++) {
        size_t c = i % 24;
        if (c == 0 || (i / 64) % 5 == 3) {
            zp_fr_zero(&k[i]); /* and whole runs of zeros */
        } else if (c == 1) {
            zp_fr_one(&k[i]);
        } else if (c == 2) {
            zp_fr_from_u64(&k[i], 2);
        } else if (c == 3) {
            minus(&k[i], 1);
        } else if (c == 4) {
            minus(&k[i], 2);
        } else if (c == 5 || c == 6) { /* one table entry: d·2^(w·j) */
            zp_fr p;
            memset(&p, 0, sizeof p);
            unsigned j = (unsigned)(check_rand64() % ((255 + w - 1) / w));
            uint64_t d = 1 + check_rand64() % ((1u << w) - 1);
            unsigned bit = j * w;
            p.l[bit / 64] = d << (bit % 64);
            if (bit % 64 + w > 64 && bit / 64 + 1 < 4)
                p.l[bit / 64 + 1] = d >> (64 - bit % 64);
            if (below_r(&p))
                zp_fr_to_mont(&k[i], &p);
            else
                zp_fr_one(&k[i]);
        } else if (c == 7 && i > 8) {
            k[i] = k[i - 8]; /* repeats */
        } else {
            rand_fr_mont(&k[i]);
        }
    }
}

static void g1_case(unsigned w, size_t n)
{
    zp__fb_g1 fb;
    zp_g1_affine g;
    zp_g1_generator(&g);
    CHECK_EQ_INT(zp__fb_g1_init(&fb, &g, w), ZP_OK);
    uint64_t tb = ((uint64_t)fb.nwin << w) * sizeof *fb.t;
    zp_fr *k = xmalloc(n * sizeof *k);
    zp_g1_affine *want = xmalloc(n * sizeof *want), *got = xmalloc(n * sizeof *got);
    scalars(k, n, w);
    zp__fb_g1_mul(want, &fb, k, n, 2);
    zp__gpu_buf dt = gpu_test_alloc(tb), dk = gpu_test_alloc(n * sizeof *k),
                do_ = gpu_test_alloc(n * sizeof *got);
    GPU_OK(zp__gpu_upload(T_s, dt.ptr, fb.t, tb));
    GPU_OK(zp__gpu_upload(T_s, dk.ptr, k, n * sizeof *k));
    GPU_OK(zp__gpu_fb_g1_mul(T_s, do_.ptr, dt.ptr, w, fb.nwin, dk.ptr, n));
    GPU_OK(zp__gpu_download(T_s, got, do_.ptr, n * sizeof *got));
    GPU_OK(zp__gpu_stream_sync(T_s));
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof *got)) {
            fprintf(stderr, "  G1 w=%u n=%zu: first difference at %zu\n", w, n, i);
            CHECK(0);
            break;
        }
    CHECK_EQ_INT(zp__gpu_fb_g1_mul(T_s, do_.ptr, dt.ptr, w, fb.nwin + 1, dk.ptr, n),
                 ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_fb_g1_mul(T_s, do_.ptr, dt.ptr, 17, 15, dk.ptr, n), ZP_E_INVALID_ARG);
    zp__gpu_free(T_gpu, &dt);
    zp__gpu_free(T_gpu, &dk);
    zp__gpu_free(T_gpu, &do_);
    zp__fb_g1_free(&fb);
    free(k);
    free(want);
    free(got);
}

static void g2_case(unsigned w, size_t n)
{
    zp__fb_g2 fb;
    zp_g2_affine g;
    zp_g2_generator(&g);
    CHECK_EQ_INT(zp__fb_g2_init(&fb, &g, w), ZP_OK);
    uint64_t tb = ((uint64_t)fb.nwin << w) * sizeof *fb.t;
    zp_fr *k = xmalloc(n * sizeof *k);
    zp_g2_affine *want = xmalloc(n * sizeof *want), *got = xmalloc(n * sizeof *got);
    scalars(k, n, w);
    zp__fb_g2_mul(want, &fb, k, n, 2);
    zp__gpu_buf dt = gpu_test_alloc(tb), dk = gpu_test_alloc(n * sizeof *k),
                do_ = gpu_test_alloc(n * sizeof *got);
    GPU_OK(zp__gpu_upload(T_s, dt.ptr, fb.t, tb));
    GPU_OK(zp__gpu_upload(T_s, dk.ptr, k, n * sizeof *k));
    GPU_OK(zp__gpu_fb_g2_mul(T_s, do_.ptr, dt.ptr, w, fb.nwin, dk.ptr, n));
    GPU_OK(zp__gpu_download(T_s, got, do_.ptr, n * sizeof *got));
    GPU_OK(zp__gpu_stream_sync(T_s));
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof *got)) {
            fprintf(stderr, "  G2 w=%u n=%zu: first difference at %zu\n", w, n, i);
            CHECK(0);
            break;
        }
    CHECK_EQ_INT(zp__gpu_fb_g2_mul(T_s, do_.ptr, dt.ptr, 0, 255, dk.ptr, n), ZP_E_INVALID_ARG);
    zp__gpu_free(T_gpu, &dt);
    zp__gpu_free(T_gpu, &dk);
    zp__gpu_free(T_gpu, &do_);
    zp__fb_g2_free(&fb);
    free(k);
    free(want);
    free(got);
}

static const size_t sizes[] = {1, 2, 15, 16, 17, 31, 32, 33, 65, 100, 1001};

static void test_fb_g1(void)
{
    unsigned ws[] = {4, 7, 13};
    for (size_t a = 0; a < (T_small ? 2u : 3u); a++)
        for (size_t b = 0; b < sizeof sizes / sizeof *sizes; b++)
            g1_case(ws[a], sizes[b]);
    if (!T_small)
        g1_case(14, (size_t)1 << 17);
}

static void test_fb_g2(void)
{
    unsigned ws[] = {5, 9};
    for (size_t a = 0; a < (T_small ? 1u : 2u); a++)
        for (size_t b = 0; b < sizeof sizes / sizeof *sizes; b++)
            g2_case(ws[a], sizes[b]);
    if (!T_small)
        g2_case(12, (size_t)1 << 15);
}

/* ---------------------------------------------------------- key setup */

static void toxic_of(zp__toxic *t, uint64_t seed)
{
    zp_fr_from_u64(&t->tau, 0x1111 + seed);
    zp_fr_from_u64(&t->alpha, 0x2222 + seed);
    zp_fr_from_u64(&t->beta, 0x3333 + seed);
    zp_fr_from_u64(&t->gamma, 0x4444 + seed);
    zp_fr_from_u64(&t->delta, 0x5555 + seed);
    zp_fr_mul(&t->tau, &t->tau, &t->delta); /* full-width values */
    zp_fr_mul(&t->delta, &t->delta, &t->alpha);
}

static bool csr_eq(const zp__csr *x, const zp__csr *y)
{
    return x->nrows == y->nrows && x->nnz == y->nnz &&
           !memcmp(x->row_ptr, y->row_ptr, (x->nrows + 1) * sizeof *x->row_ptr) &&
           !memcmp(x->col, y->col, x->nnz * sizeof *x->col) &&
           !memcmp(x->val, y->val, x->nnz * sizeof *x->val);
}

static void compare_host(const zp__pk *g, const zp__pk *c)
{
    CHECK(g->h_conv == c->h_conv && g->roots == c->roots && g->n_vars == c->n_vars &&
          g->n_public == c->n_public && g->domain_size == c->domain_size);
    CHECK(g->n_a == c->n_a && g->n_b == c->n_b && g->n_l == c->n_l && g->n_h == c->n_h);
    CHECK(!g->a && !g->b1 && !g->b2 && !g->l && !g->h);
    const zp__vk *x = &g->vk, *y = &c->vk;
    CHECK_MEM(&x->alpha1, &y->alpha1, sizeof x->alpha1);
    CHECK_MEM(&x->beta1, &y->beta1, sizeof x->beta1);
    CHECK_MEM(&x->delta1, &y->delta1, sizeof x->delta1);
    CHECK_MEM(&x->beta2, &y->beta2, sizeof x->beta2);
    CHECK_MEM(&x->gamma2, &y->gamma2, sizeof x->gamma2);
    CHECK_MEM(&x->delta2, &y->delta2, sizeof x->delta2);
    CHECK_EQ_INT(x->n_ic, y->n_ic);
    if (x->n_ic == y->n_ic)
        CHECK_MEM(x->ic, y->ic, x->n_ic * sizeof *x->ic);
    uint64_t nw = (c->n_vars + 63) / 64;
    CHECK(g->a_density.nbits == c->a_density.nbits && g->b_density.nbits == c->b_density.nbits);
    CHECK_MEM(g->a_density.words, c->a_density.words, nw * 8);
    CHECK_MEM(g->b_density.words, c->b_density.words, nw * 8);
    CHECK(csr_eq(&g->ma, &c->ma));
    CHECK(csr_eq(&g->mb, &c->mb));
}

static void compare_points(const zp__g16_dkey *k, const zp__pk *c)
{
    zp_g1_affine *a = xmalloc(c->n_a * sizeof *a), *b1 = xmalloc(c->n_b * sizeof *b1);
    zp_g2_affine *b2 = xmalloc(c->n_b * sizeof *b2);
    zp_g1_affine *l = xmalloc(c->n_l * sizeof *l), *h = xmalloc(c->n_h * sizeof *h);
    GPU_OK(zp__g16_dkey_read(k, T_s, a, b1, b2, l, h));
    CHECK_MEM(a, c->a, c->n_a * sizeof *a);
    CHECK_MEM(b1, c->b1, c->n_b * sizeof *b1);
    CHECK_MEM(b2, c->b2, c->n_b * sizeof *b2);
    CHECK_MEM(l, c->l, c->n_l * sizeof *l);
    CHECK_MEM(h, c->h, c->n_h * sizeof *h);
    free(a);
    free(b1);
    free(b2);
    free(l);
    free(h);
}

/* A proof through a slot with the device key verifies (a slot with the
 * ring its plan asks for where it streams, with o's options). */
static void prove_with(const zp__g16_dkey *k, const zp__r1cs *cs, const zp__synth_spec *sp,
                       const zp__g16_gpu_opts *o)
{
    zp_fr *w = xmalloc(cs->n_vars * sizeof *w);
    CHECK_EQ_INT(zp__synth_witness(w, cs, sp, 5), ZP_OK);
    zp__g16_slot *slot = NULL;
    zp__ioerr why = {{0}};
    GPU_OK(k->ring_buffer ? zp__g16_slot_open_plan(&slot, T_gpu, k->pk, k->ring_buffer, k->lean,
                                                   false, 0, 0, o, &why)
                          : zp__g16_slot_open(&slot, T_gpu, k->pk, NULL, &why));
    if (slot) {
        zp__g16_sums sums;
        zp__proof proof;
        zp__prove_opts po;
        zp__prove_opts_default(&po);
        GPU_OK(zp__g16_slot_sums(slot, k, w, &sums, NULL, &why));
        CHECK_EQ_INT(zp__g16_finish_verify(&proof, k->pk, &sums, w, &po, NULL, &why), ZP_OK);
        zp__g16_slot_close(slot);
    }
    free(w);
}

/* What the setup reported of its points: every note carries the key's
 * whole count of points, done never passes it and ends there. */
typedef struct notes {
    uint64_t n, total, last, bad;
} notes;

static void note_fn(void *ctx, const char *step, uint64_t done, uint64_t total)
{
    notes *x = ctx; /* the setup reports from its calling thread */
    (void)step;
    if (x->n++ && (total != x->total || done < x->last))
        x->bad++;
    x->total = total;
    x->last = done;
    if (done > total)
        x->bad++;
}

static void setup_case(const char *spec, zp_h_conv conv, bool prove)
{
    zp__synth_spec sp;
    zp__r1cs cs;
    zp__pk cpu, host;
    zp__g16_dkey k;
    zp__toxic t;
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__synth_parse(&sp, spec), ZP_OK);
    CHECK_EQ_INT(zp__synth_circuit(&cs, &sp), ZP_OK);
    toxic_of(&t, (uint64_t)conv);
    CHECK_EQ_INT(zp__setup(&cpu, &cs, conv, 2, &t), ZP_OK);
    zp__g16_gpu_opts o;
    zp__g16_gpu_opts_default(&o);
    notes seen = {0};
    o.progress = (zp__progress){note_fn, &seen};
    GPU_OK(zp__g16_dkey_setup(&k, &host, T_gpu, T_s, &cs, conv, 2, &t, &o, &why));
    if (why.msg[0])
        fprintf(stderr, "  %s\n", why.msg);
    CHECK(k.pk == &host && k.dev == T_gpu);
    CHECK(seen.n >= 2 && !seen.bad);
    CHECK(seen.total == host.n_h + host.n_a + 2 * host.n_b + host.n_l && seen.total > 0);
    CHECK(seen.last == seen.total);
    compare_host(&host, &cpu);
    compare_points(&k, &cpu);
    if (prove)
        prove_with(&k, &cs, &sp, NULL);
    zp__g16_dkey_free(&k);
    zp__pk_free(&host);
    zp__pk_free(&cpu);
    zp__r1cs_free(&cs);
}

static void test_dkey_setup(void)
{
    setup_case("synth:porep:10", ZP_H_COSET, true);
    setup_case("synth:porep:10", ZP_H_TAU, true);
    setup_case("synth:chain:8", ZP_H_COSET, false);
    setup_case("synth:chain:8", ZP_H_TAU, true);
    if (!T_small) {
        setup_case("synth:dense:9", ZP_H_COSET, false);
        setup_case("synth:porep:14", ZP_H_TAU, false);
    }
}

/* A plan of half the points resident that streams from ctx's image where
 * it has one. */
typedef struct img_plan {
    zp__g16_gpu_opts o;
    zp__g16_himg *img;
} img_plan;

static zp_err plan_with_img(void *ctx, const zp__pk *pk, zp__g16_plan *plan, zp__ioerr *why)
{
    img_plan *a = ctx;
    zp__gpu_info info;
    zp__gpu_get_info(T_gpu, &info);
    zp_err e = zp__g16_plan_make(plan, pk, info.arena_bytes - info.arena_used, 1, &a->o, why);
    if (!e)
        plan->img = a->img;
    return e;
}

static void shared_case(const char *spec, zp_h_conv conv, bool mats)
{
    printf("  %s %s%s\n", spec, conv == ZP_H_TAU ? "bellperson" : "snarkjs",
           mats ? ", matrices streamed" : "");
    zp__synth_spec sp;
    zp__r1cs cs;
    zp__pk cpu, h1, h2;
    zp__g16_dkey k1, k2, k3;
    zp__toxic t;
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__synth_parse(&sp, spec), ZP_OK);
    CHECK_EQ_INT(zp__synth_circuit(&cs, &sp), ZP_OK);
    toxic_of(&t, 7 + (uint64_t)conv);
    CHECK_EQ_INT(zp__setup(&cpu, &cs, conv, 2, &t), ZP_OK);
    uint64_t pts = 0;
    for (int i = 0; i < ZP_G16_NP; i++)
        pts += zp__g16_part_count(&cpu, (zp__g16_part)i) * zp__g16_part_size((zp__g16_part)i);
    img_plan a;
    zp__g16_gpu_opts_default(&a.o);
    a.o.resident_cap = pts / 2;
    a.o.ring_buffer = 8192;
    a.o.lean = a.o.stream_matrices = mats;
    a.img = NULL;
    GPU_OK(zp__g16_dkey_setup_plan(&k1, &h1, T_gpu, T_s, &cs, conv, 2, &t, plan_with_img, &a,
                                   &a.o, &why));
    CHECK(k1.img != NULL && zp__g16_dkey_streams(&k1));
    if (k1.img) {
        CHECK(!k1.img->borrowed && zp__g16_himg_bytes(k1.img, &h1) > 0);
        /* Where the matrices stream, their pinned images are the image's. */
        CHECK(k1.mat_stream == mats && k1.img->mats == mats);
        a.img = k1.img;
        GPU_OK(zp__g16_dkey_setup_plan(&k2, &h2, T_gpu, T_s, &cs, conv, 2, &t, plan_with_img,
                                       &a, &a.o, &why));
        CHECK(k2.img == k1.img);
        CHECK(!mats || (k2.ma.mem.ptr == k1.img->ma.mem.ptr &&
                        k2.mb.mem.ptr == k1.img->mb.mem.ptr && k2.ma.host));
        CHECK_EQ_INT(atomic_load(&k1.img->refs), 2);
        zp__g16_dkey_free(&k1);
        zp__pk_free(&h1);
        compare_points(&k2, &cpu);
        prove_with(&k2, &cs, &sp, &a.o);
        CHECK(k2.img && atomic_load(&k2.img->refs) == 1);
        zp__g16_dkey_free(&k2);
        zp__pk_free(&h2);
    } else {
        zp__g16_dkey_free(&k1);
        zp__pk_free(&h1);
    }

    /* An upload that streams from the host key's own arrays. */
    zp__g16_himg *b = zp__g16_himg_borrow(&cpu);
    CHECK(b != NULL && b->borrowed && zp__g16_himg_bytes(b, &cpu) == 0);
    zp__gpu_info info;
    zp__gpu_get_info(T_gpu, &info);
    zp__g16_plan p;
    GPU_OK(zp__g16_plan_make(&p, &cpu, info.arena_bytes - info.arena_used, 1, &a.o, &why));
    p.img = b;
    GPU_OK(zp__g16_dkey_upload_plan(&k3, T_gpu, T_s, &cpu, &p, &a.o, &why));
    zp__g16_himg_unref(b); /* k3 holds its own reference */
    CHECK(k3.img == b);
    const void *arr[ZP_G16_NP] = {cpu.l, cpu.a, cpu.b1, cpu.b2, cpu.h};
    int streamed = 0;
    for (int i = 0; i < ZP_G16_NP; i++) {
        const zp__g16_part part = (zp__g16_part)i;
        if (k3.res[i] < zp__g16_part_count(&cpu, part)) {
            streamed++;
            CHECK(k3.host[i] == (const char *)arr[i] + k3.res[i] * zp__g16_part_size(part));
        }
    }
    CHECK(streamed > 0);
    compare_points(&k3, &cpu);
    prove_with(&k3, &cs, &sp, &a.o);
    zp__g16_dkey_free(&k3);
    zp__pk_free(&cpu);
    zp__r1cs_free(&cs);
}

static void test_dkey_shared_image(void)
{
    shared_case("synth:porep:10", ZP_H_TAU, false);
    shared_case("synth:chain:8", ZP_H_COSET, false);
    shared_case("synth:porep:10", ZP_H_COSET, true);
}

/* A bad toxic is refused with nothing left in the arena or in pk: a zero
 * value (found before anything is allocated) and τ = 1, in the domain
 * (found by the Lagrange step, after the device regions are taken). */
static void refused_case(const zp__r1cs *cs, const zp__toxic *t)
{
    zp__pk host;
    zp__g16_dkey k;
    zp__gpu_info before, after;
    zp__gpu_get_info(T_gpu, &before);
    CHECK_EQ_INT(zp__g16_dkey_setup(&k, &host, T_gpu, T_s, cs, ZP_H_COSET, 2, t, NULL, NULL),
                 ZP_E_INVALID_ARG);
    zp__gpu_get_info(T_gpu, &after);
    CHECK(before.arena_used == after.arena_used);
    CHECK(!host.ma.row_ptr && !host.vk.ic && !host.a_density.words && !k.p_a.ptr &&
          !k.ma.mem.ptr);
}

static void test_dkey_setup_refused(void)
{
    zp__synth_spec sp;
    zp__r1cs cs;
    zp__toxic t;
    CHECK_EQ_INT(zp__synth_parse(&sp, "synth:chain:6"), ZP_OK);
    CHECK_EQ_INT(zp__synth_circuit(&cs, &sp), ZP_OK);
    toxic_of(&t, 9);
    zp_fr_zero(&t.gamma);
    refused_case(&cs, &t);
    toxic_of(&t, 9);
    zp_fr_one(&t.tau);
    refused_case(&cs, &t);
    zp__r1cs_free(&cs);
}

int main(int argc, char **argv)
{
    gpu_test_open(argc, argv, 8);
    RUN(test_fb_g1);
    RUN(test_fb_g2);
    RUN(test_dkey_setup);
    RUN(test_dkey_setup_refused);
    RUN(test_dkey_shared_image);
    gpu_test_close();
    return FINISH();
}
