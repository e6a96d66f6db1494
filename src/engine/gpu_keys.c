/*
 * The device tier of keys (engine_impl.h, docs/gpu-memory.md): a key's
 * copy in a GPU's arena, made on first use there (an upload of the host
 * key, or a TEST-ONLY setup on the device), shared by the GPU's slots by
 * reference, and evicted least recently used first when another key needs
 * the room and no slot proves with it; preloaded keys stay until evicted
 * by name. The slot workers that use it are in gpu_worker.c.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "engine/engine_impl.h"
#include "engine/loader.h"
#include "engine/util.h"
#include "gpu/gpu.h"
#include "groth16/gpu_prover.h"

/* The arena bytes of the staging ring a plan gives its key (a shared
 * ring), counted with the GPU's slots' rings. */
static uint64_t key_ring_bytes(const zp__g16_plan *p)
{
    return p->shared ? 2 * zp__g16_arena_round(p->ring_buffer) : 0;
}

/* Drops k's reference to its shared image once no GPU has a copy of k or
 * is making one (e->mu held). */
static void drop_image(zp_engine *e, zp__key *k)
{
    for (int g = 0; g < e->n_gpus; g++)
        if (k->dk_state[g] != ZP__DK_NONE)
            return;
    zp__g16_himg_unref(k->himg);
    k->himg = NULL;
}

/* Frees k's copy on GPU g (e->mu held; no slot uses it). */
static void drop_one(zp_engine *e, zp__key *k, int g)
{
    if (k->dk_state[g] != ZP__DK_READY)
        return;
    e->gpus[g].ring_bytes -= key_ring_bytes(&k->dk_plan[g]);
    zp__g16_dkey_free(k->dk[g]);
    free(k->dk[g]);
    k->dk[g] = NULL;
    k->dk_state[g] = ZP__DK_NONE;
    k->dk_bytes[g] = 0;
    memset(&k->dk_plan[g], 0, sizeof k->dk_plan[g]);
    drop_image(e, k);
}

uint64_t zp__key_streamed_bytes(const zp__key *k, int n_gpus)
{
    uint64_t b = 0;
    for (int g = 0; g < n_gpus; g++) {
        if (k->dk_state[g] != ZP__DK_READY)
            continue;
        const zp__g16_plan *p = &k->dk_plan[g];
        const zp__g16_himg *m = k->dk[g]->img;
        /* Matrix images of the image's are counted with it. */
        if (!zp__g16_dkey_img_mats(k->dk[g]))
            b += p->mat_stream ? p->mat_bytes : 0;
        bool seen = false;
        for (int h = 0; h < g && m; h++)
            seen = seen || (k->dk_state[h] == ZP__DK_READY && k->dk[h]->img == m);
        if (m && !seen)
            b += zp__g16_himg_bytes(m, k->dk[g]->pk);
    }
    return b;
}

uint64_t zp__key_table_bytes(const zp__key *k, int g)
{
    return k->dk_state[g] == ZP__DK_READY ? k->dk[g]->h_pre.bytes : 0;
}

void zp__key_drop_device(zp_engine *e, zp__key *k)
{
    for (int g = 0; g < e->n_gpus; g++)
        if (!k->dk_refs[g])
            drop_one(e, k, g);
}

/* The least recently used resident key of GPU g that no slot uses, other
 * than keep (e->mu held), or NULL: with tables, among those with an H
 * table, preloaded ones included; else among those not preloaded. */
static zp__key *lru_idle(zp_engine *e, int g, const zp__key *keep, bool tables)
{
    zp__key *victim = NULL;
    for (uint32_t i = 0; i < e->n_keys; i++) {
        zp__key *k = e->keys[i];
        if (k == keep || k->dk_state[g] != ZP__DK_READY || k->dk_refs[g] ||
            (tables ? !k->dk[g]->h_pre.ptr : k->preloaded))
            continue;
        if (!victim || k->dk_lru[g] < victim->dk_lru[g])
            victim = k;
    }
    return victim;
}

/* Frees the H table of lru_idle's key, else evicts lru_idle's key (e->mu
 * held): tables go before any key, a preloaded key's too (the key stays;
 * its H MSM goes over the points again). True when something was freed. */
static bool evict_one(zp_engine *e, int g, const zp__key *keep)
{
    zp__key *victim = lru_idle(e, g, keep, true);
    if (victim) {
        victim->dk_bytes[g] -= victim->dk[g]->h_pre.bytes;
        zp__g16_dkey_drop_h_pre(victim->dk[g]);
        return true;
    }
    victim = lru_idle(e, g, keep, false);
    if (victim)
        drop_one(e, victim, g);
    return victim != NULL;
}

bool zp__dkey_evict_for(zp_engine *e, int g, const zp__key *keep)
{
    pthread_mutex_lock(&e->mu);
    bool freed = evict_one(e, g, keep);
    pthread_mutex_unlock(&e->mu);
    return freed;
}

/* The key tiers of a key of pk's shape on d (zp__g16_plan_make): within
 * the arena's free bytes, for the slots of d still without a working set. */
typedef struct plan_ctx {
    zp_engine *e;
    zp__gpudev *d;
    zp__key *k;
    zp__g16_plan *out;
} plan_ctx;

/* The image of k's streamed points that a plan on GPU g streaming from
 * pinned host memory takes (e->mu held): the key's own arrays where they
 * are page-locked whole (no copy at all), else the one a copy on another
 * GPU made. While another GPU makes a copy that streams, this one waits
 * for its image (same-sized GPUs plan alike, and one image then serves
 * all); with none that holds its points, this GPU makes the image. */
static bool image_covers(const zp__key *k, const zp__pk *pk, const zp__g16_plan *plan)
{
    return k->himg && zp__g16_himg_covers(k->himg, pk, plan->res);
}

static void plan_image(zp_engine *e, zp__key *k, int g, const zp__pk *pk, zp__g16_plan *plan)
{
    if (!k->himg && k->pin_bytes && !k->gpu_setup)
        k->himg = zp__g16_himg_borrow(&k->pk);
    while (!image_covers(k, pk, plan) && k->himg_maker && k->himg_maker != g + 1)
        pthread_cond_wait(&e->key_cv, &e->mu);
    if (image_covers(k, pk, plan))
        plan->img = k->himg;
    else if (!k->himg_maker)
        k->himg_maker = g + 1;
}

unsigned zp__gpudev_sets_wanted(const zp__gpudev *d)
{
    const int waiting = d->admitted - d->sets;
    return d->sets > 0 || waiting < 1 ? 0 : (unsigned)waiting;
}

zp_err zp__dkey_plan(zp_engine *e, const zp__gpudev *d, unsigned sets, const zp__pk *pk,
                     zp__g16_plan *plan, zp__ioerr *why)
{
    zp__gpu_info info;
    zp__gpu_get_info(d->dev, &info);
    return zp__g16_plan_make(plan, pk, info.arena_bytes - info.arena_used, sets, &e->gpu_opts,
                             why);
}

static zp_err plan_key(void *arg, const zp__pk *pk, zp__g16_plan *plan, zp__ioerr *why)
{
    plan_ctx *c = arg;
    pthread_mutex_lock(&c->e->mu);
    const unsigned want = zp__gpudev_sets_wanted(c->d);
    pthread_mutex_unlock(&c->e->mu);
    zp_err err = zp__dkey_plan(c->e, c->d, want, pk, plan, why);
    if (!err && zp__g16_plan_streams(plan)) {
        pthread_mutex_lock(&c->e->mu);
        plan_image(c->e, c->k, c->d->ordinal, pk, plan);
        pthread_mutex_unlock(&c->e->mu);
    }
    if (!err) {
        *c->out = *plan;
    }
    return err;
}

/* Makes k resident on d (e->mu NOT held; d->load_mu held), with its H
 * table where zp__g16_dkey_h_table makes one. pk_tmp receives the host
 * part of a GPU setup; *plan the plan it was made by. */
static zp_err make_dkey(zp_engine *e, zp__gpudev *d, zp__key *k, zp__g16_dkey *dk,
                        zp__pk *pk_tmp, zp__g16_plan *plan, zp__ioerr *why)
{
    for (;;) {
        zp_err err;
        memset(pk_tmp, 0, sizeof *pk_tmp);
        zp__g16_plan p;
        plan_ctx pc = {e, d, k, plan};
        /* The key's long work on the GPU reports as its load does. */
        zp__g16_gpu_opts o = e->gpu_opts;
        zp__key_progress kp = {&e->cfg, k->name};
        o.progress = zp__key_progress_of(&kp);
        if (k->gpu_setup)
            err = zp__g16_dkey_setup_plan(dk, pk_tmp, d->dev, d->s, &k->cs, k->conv,
                                          e->threads_per_worker, &k->toxic, plan_key, &pc, &o,
                                          why);
        else if (!(err = plan_key(&pc, &k->pk, &p, why)))
            err = zp__g16_dkey_upload_plan(dk, d->dev, d->s, &k->pk, &p, &o, why);
        if (!err && (err = zp__g16_dkey_h_table(dk, d->s, &e->gpu_opts)) != ZP_OK) {
            zp__fail(why, err, "the key's H table failed on the GPU: %s", zp__gpu_last_error());
            zp__g16_dkey_free(dk);
            if (k->gpu_setup)
                zp__pk_free(pk_tmp);
        }
        if (err != ZP_E_GPU_OOM || !zp__dkey_evict_for(e, d->ordinal, k))
            return err;
    }
}

/* Takes a reference to k's copy on d, making it first when needed; k's
 * host part is loaded and referenced by the caller. */
zp_err zp__dkey_acquire(zp_engine *e, zp__gpudev *d, zp__key *k, zp__g16_dkey **out,
                           zp__ioerr *why)
{
    int g = d->ordinal;
    pthread_mutex_lock(&e->mu);
    while (k->dk_state[g] == ZP__DK_LOADING)
        pthread_cond_wait(&e->key_cv, &e->mu);
    if (k->dk_state[g] == ZP__DK_READY) {
        k->dk_refs[g]++;
        k->dk_lru[g] = ++e->lru_tick;
        *out = k->dk[g];
        pthread_mutex_unlock(&e->mu);
        return ZP_OK;
    }
    k->dk_state[g] = ZP__DK_LOADING;
    pthread_mutex_unlock(&e->mu);

    zp__g16_dkey *dk = calloc(1, sizeof *dk);
    zp__pk tmp;
    zp__g16_plan plan;
    memset(&tmp, 0, sizeof tmp);
    memset(&plan, 0, sizeof plan);
    zp_err err = dk ? ZP_OK : zp__fail(why, ZP_E_NOMEM, "no memory for a device key");
    if (!err) {
        pthread_mutex_lock(&d->load_mu);
        err = make_dkey(e, d, k, dk, &tmp, &plan, why);
        pthread_mutex_unlock(&d->load_mu);
    }
    /* Arena bytes of the copy, as planned (the host part's matrices are
     * dropped below). */
    uint64_t dkb = err ? 0 : plan.key_bytes + dk->twist.mem.bytes + dk->h_pre.bytes;
    pthread_mutex_lock(&e->mu);
    if (!err) {
        if (k->gpu_setup) {
            /* Every GPU makes the same key from the same toxic waste; the
             * first one's host part becomes the key's. */
            if (!k->pk.n_vars) {
                /* Its host part (vk, densities, the A and B matrices) is
                 * the key's now: counted against the host budget. */
                e->key_used -= k->bytes;
                k->pk = tmp;
                /* The A and B matrices of its host part served the setup
                 * only: the device has them, and another GPU's setup makes
                 * its own from the circuit. ~16 GB at porep:27. */
                zp__csr_free(&k->pk.ma);
                zp__csr_free(&k->pk.mb);
                k->bytes = zp__key_loaded_bytes(k);
                e->key_used += k->bytes;
            } else {
                zp__pk_free(&tmp);
            }
            dk->pk = &k->pk;
        }
        k->dk[g] = dk;
        k->dk_state[g] = ZP__DK_READY;
        k->dk_refs[g] = 1;
        k->dk_lru[g] = ++e->lru_tick;
        k->dk_bytes[g] = dkb;
        k->dk_plan[g] = plan;
        k->dk_plan[g].img = NULL; /* the copy holds it (dk->img) */
        d->ring_bytes += key_ring_bytes(&plan);
        *out = dk;
    } else {
        k->dk_state[g] = ZP__DK_NONE;
        free(dk);
    }
    /* The image this GPU made goes to the copies planned after it. */
    if (k->himg_maker == g + 1) {
        k->himg_maker = 0;
        if (!err && dk->img && !k->himg) {
            zp__g16_himg_ref(dk->img);
            k->himg = dk->img;
        }
    }
    if (err)
        drop_image(e, k);
    pthread_cond_broadcast(&e->key_cv);
    pthread_mutex_unlock(&e->mu);
    /* A key that streams part of its points says so (info); one wholly
     * resident only at debug, so that library users see no more than that. */
    const zp__log_level lv = !err && zp__g16_plan_streams(&plan) ? ZP__LOG_INFO : ZP__LOG_DEBUG;
    if (!err && zp__log_on(lv)) {
        char line[256];
        zp__g16_plan_describe(&plan, &k->pk, line, sizeof line);
        zp__log(lv, "key.resident", "key=%s gpu=%d device_bytes=%llu streams=%s plan=%s",
                k->name, g, (unsigned long long)dkb, zp__g16_plan_streams(&plan) ? "yes" : "no",
                line);
    } else if (err) {
        zp__log(ZP__LOG_WARN, "key.gpu_failed", "key=%s gpu=%d error=%s reason=%s", k->name, g,
                zp_strerror(err), why->msg);
    }
    return err;
}

void zp__dkey_release(zp_engine *e, int g, zp__key *k)
{
    pthread_mutex_lock(&e->mu);
    if (k->dk_refs[g])
        k->dk_refs[g]--;
    pthread_mutex_unlock(&e->mu);
}

struct preload_arg {
    zp_engine *e;
    zp__key *k;
    int g;
    zp_err err;
    zp__ioerr why;
};

static void *preload_main(void *arg)
{
    struct preload_arg *a = arg;
    zp__g16_dkey *dk;
    zp__ioerr why = {{0}};
    a->err = zp__dkey_acquire(a->e, &a->e->gpus[a->g], a->k, &dk, &why);
    zp__gpudev_failed(a->e, &a->e->gpus[a->g], a->err);
    if (!a->err)
        zp__dkey_release(a->e, a->g, a->k);
    else /* which GPU: a key may fit one and not another (the prefix's room
          * taken from the end of a message that fills why.msg) */
        snprintf(a->why.msg, sizeof a->why.msg, "gpu%d: %.*s", a->g,
                 (int)sizeof a->why.msg - 16, why.msg);
    return NULL;
}

zp_err zp__key_preload_devices(zp_engine *e, zp__key *k, zp__ioerr *why)
{
    if (!e->n_gpus || !e->cfg.gpu_slots)
        return ZP_OK;
    struct preload_arg a[ZP__GPUS_MAX];
    pthread_t th[ZP__GPUS_MAX];
    bool started[ZP__GPUS_MAX] = {false};
    for (int g = 0; g < e->n_gpus; g++) {
        a[g] = (struct preload_arg){.e = e, .k = k, .g = g};
        if (zp__gpudev_out(e, &e->gpus[g]))
            continue; /* a failed GPU proves nothing: the key is not needed there */
        started[g] = pthread_create(&th[g], NULL, preload_main, &a[g]) == 0;
        if (!started[g])
            preload_main(&a[g]);
    }
    zp_err err = ZP_OK;
    for (int g = 0; g < e->n_gpus; g++) {
        if (started[g])
            pthread_join(th[g], NULL);
        if (a[g].err && !err) {
            err = a[g].err;
            *why = a[g].why;
        }
    }
    return err;
}
