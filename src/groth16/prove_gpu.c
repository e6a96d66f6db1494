/*
 * The GPU Groth16 prover of groth16.h: one device, one resident key, one
 * slot (gpu_prover.h, prove_gpu_key.c, prove_gpu_slot.c). eval, h and msm
 * run on the device; finish and verify on the host with the CPU's own
 * functions, so a proof with fixed r, s is the CPU prover's byte for byte.
 * Compiled in every build: without CUDA the gpu.h stubs answer ZP_E_NO_GPU
 * and so does zp__g16_gpu_open.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "groth16/gpu_prover.h"
#include "groth16/groth16.h"
#include "groth16/prove_gpu_stages.h"

struct zp__g16_gpu {
    const zp__pk *pk;
    zp__gpu *dev;
    zp__gpu_stream *s; /* for the key upload */
    zp__g16_dkey key;
    zp__g16_slot *slot;
};

void zp__g16_gpu_close(zp__g16_gpu *g)
{
    if (!g)
        return;
    zp__g16_slot_close(g->slot);
    if (g->s)
        zp__gpu_stream_sync(g->s);
    zp__g16_dkey_free(&g->key);
    zp__gpu_stream_close(g->s);
    zp__gpu_close(g->dev);
    free(g);
}

zp_err zp__g16_gpu_open(zp__g16_gpu **out, const zp__pk *pk, int device, int threads,
                        const zp__g16_gpu_opts *o, zp__ioerr *why)
{
    (void)threads; /* nothing is left on the host to spread over threads */
    *out = NULL;
    if (!zp__gpu_compiled())
        return zp__fail(why, ZP_E_NO_GPU, "this zkpipe was built without CUDA");
    if (zp__gpu_count() <= device || device < 0)
        return zp__fail(why, ZP_E_NO_GPU, "no CUDA device %d (%d found)", device,
                        zp__gpu_count());
    zp_err e = zp__g16_gpu_key_ok(pk, why);
    if (e)
        return e;
    zp__g16_gpu *g = calloc(1, sizeof *g);
    if (!g)
        return zp__fail(why, ZP_E_NOMEM, "no memory for the GPU prover");
    g->pk = pk;
    zp__gpu_config cfg;
    zp__gpu_config_default(&cfg);
    cfg.device = device;
    cfg.msm = zp__g16_gpu_opts_of(o).msm;
    cfg.arena_bytes = zp__g16_gpu_opts_of(o).arena_bytes;
    e = zp__gpu_open(&g->dev, &cfg);
    if (!e)
        e = zp__gpu_stream_open(g->dev, &g->s);
    if (e) {
        zp__fail(why, e, "GPU prover setup failed: %s (%s)", zp_errname(e), zp__gpu_last_error());
        zp__g16_gpu_close(g);
        return e;
    }
    zp__gpu_info info;
    zp__gpu_get_info(g->dev, &info);
    zp__g16_plan plan;
    e = zp__g16_plan_make(&plan, pk, info.arena_bytes - info.arena_used, 1, o, why);
    if (!e)
        e = zp__g16_dkey_upload_plan(&g->key, g->dev, g->s, pk, &plan, o, why);
    /* A key uploaded for this prover's proofs: its H table only when the
     * tuning fixes its windows (made unasked, it costs more than it saves
     * over a few proofs). */
    if (!e && zp__g16_gpu_opts_of(o).tuning.h_table != ZP_GPU_H_TABLE_AUTO &&
        (e = zp__g16_dkey_h_table(&g->key, g->s, o)))
        zp__fail(why, e, "the key's H table failed on the GPU: %s", zp__gpu_last_error());
    if (!e) { /* the one slot takes what the key leaves */
        zp__gpu_get_info(g->dev, &info);
        e = zp__g16_slot_open_plan(&g->slot, g->dev, pk, g->key.ring_buffer, g->key.lean,
                                   g->key.share != NULL, info.arena_largest_free, 0, o, why);
    }
    if (e) {
        zp__g16_gpu_close(g);
        return e;
    }
    *out = g;
    return ZP_OK;
}

zp__g16_slot *zp__g16_gpu_slot(zp__g16_gpu *g) { return g->slot; }

/* ------------------------------------------------------------- stages */

zp_err zp__g16_gpu_eval(zp__g16_gpu *g, const zp_fr *w)
{
    return zp__g16_slot_eval(g->slot, &g->key, w);
}

zp_err zp__g16_gpu_h(zp__g16_gpu *g) { return zp__g16_slot_h(g->slot, &g->key); }

zp_err zp__g16_gpu_read(zp__g16_gpu *g, zp_fr *out, zp__g16_gpu_array which)
{
    return zp__g16_slot_read(g->slot, &g->key, out, which);
}

zp_err zp__g16_gpu_msm(zp__g16_sums *out, zp__g16_gpu *g, const zp_fr *w,
                       zp__prove_times *t)
{
    /* The parts upload leaves part of L summed; upload w again so that
     * this stage means the same whatever ran before it. */
    zp_err e = zp__g16_slot_put_w(g->slot, &g->key, w);
    return e ? e : zp__g16_slot_msm(g->slot, &g->key, out, t);
}

/* --------------------------------------------------------------- driver */

/* What the finish and verify need before the sums (zp__g16_ahead: r, s,
 * the blinding terms, vk_x), made on the host while the device runs h
 * (the slot's hook at ZP_G16_NEXT_H; it never gives a next witness), so
 * that after the MSMs the finish takes two scalar multiplications instead
 * of five and one in G2, and the verify skips the public inputs' sum (at
 * porep's 328 inputs close to half of a prepared verify). Where the MSMs
 * over the witness ran beside h, the hook is called
 * again (ZP_G16_NEXT_W_SUMS) before H's MSM, and a thread of its own makes
 * the tail's part that needs no ΣH (zp__g16_early_make: those two scalar
 * multiplications, π_A's and π_B's checks and two of the verify's three
 * Miller loops) while the device sums H; after it, only ΣH's addition, π_C's
 * check, one loop and the final exponentiation remain. */
typedef struct ahead_hook {
    const zp__pk *pk;
    const zp_fr *w;
    const zp__prove_opts *o;
    const zp__g16_sums *sums; /* a, b1, b2, l read by the thread; h written meanwhile */
    zp__g16_ahead a;
    zp__g16_early early;
    pthread_t th;
    bool made, started;
} ahead_hook;

static void *early_run(void *arg)
{
    ahead_hook *h = arg;
    zp__g16_early_make(&h->early, h->pk, h->sums, &h->a);
    return NULL;
}

static const zp_fr *make_ahead(void *arg, int phase)
{
    ahead_hook *h = arg;
    if (phase == ZP_G16_NEXT_H && !h->made)
        h->made = !zp__g16_ahead_make(&h->a, h->pk, h->w, h->o);
    else if (phase == ZP_G16_NEXT_W_SUMS && h->made && !h->started)
        h->started = !pthread_create(&h->th, NULL, early_run, h);
    return NULL;
}

zp_err zp__g16_slot_prove(zp__g16_slot *s, const zp__g16_dkey *k, zp__proof *out,
                          const zp_fr *w, uint64_t n_w, const zp__prove_opts *opt,
                          zp__prove_times *times, zp__ioerr *why)
{
    zp__prove_opts def;
    zp__prove_times t;
    memset(&t, 0, sizeof t);
    if (!opt) {
        zp__prove_opts_default(&def);
        opt = &def;
    }
    zp__g16_sums sums;
    ahead_hook h = {.pk = k->pk, .w = w, .o = opt, .sums = &sums};
    /* k's key counts were checked when it was made resident
     * (zp__g16_dkey_upload, zp__g16_dkey_setup). */
    zp_err e = zp__g16_check_witness(k->pk, w, n_w, opt, why);
    if (!e)
        e = zp__g16_slot_sums_next(s, k, w, false, make_ahead, &h, &sums, &t, why);
    if (h.started) /* also on failure: the thread reads sums */
        pthread_join(h.th, NULL);
    if (!e && h.started)
        e = zp__g16_finish_verify_early(out, k->pk, &sums.h, &h.early, &t, why);
    else if (!e) /* without it (no OS randomness then) the tail makes all */
        e = zp__g16_finish_verify_ahead(out, k->pk, &sums, w, h.made ? &h.a : NULL, opt, &t,
                                        why);
    if (times)
        *times = t;
    return e;
}

zp_err zp__g16_gpu_prove(zp__g16_gpu *g, zp__proof *out, const zp_fr *w, uint64_t n_w,
                         const zp__prove_opts *opt, zp__prove_times *times, zp__ioerr *why)
{
    return zp__g16_slot_prove(g->slot, &g->key, out, w, n_w, opt, times, why);
}
