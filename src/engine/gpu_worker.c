/*
 * GPU slot workers (docs/gpu-memory.md).
 *
 * Each GPU of the engine has one arena, taken when the engine opens
 * (zp__gpus_open); nothing is allocated on the device afterwards. Keys
 * become resident in it on first use by that GPU (an upload of the host
 * key, or a TEST-ONLY setup on the device for synthetic keys of a GPU-only
 * engine) and stay there, shared by the GPU's slots, until the host key is
 * unloaded or the room is needed for another key (least recently used key
 * with no slot proving with it goes first): the device tier, gpu_keys.c.
 *
 * zp_engine_preload_key makes a key resident on every GPU at once (one
 * thread per GPU) and keeps it there: preloaded keys are not evicted for
 * room, only by zp_engine_evict_key.
 *
 * A slot is a worker of its own: a thread that takes one partition at a
 * time (zp__eng_take), so a partition is only ever dispatched into a free
 * slot. The thread loads the witness into the slot's pinned buffer,
 * enqueues eval, h and the MSMs on the slot's stream and waits on that
 * stream only (zp__g16_slot_sums_next); it finishes the proof (a few scalar
 * multiplications) and hands it to the CPU pool, which verifies it. While
 * one slot waits or does host work, the others keep the device busy.
 * During h it takes its next partition if one is ready (ahead, below):
 * that witness is loaded then and goes up on the slot's copy stream while
 * the last MSMs run, so the next eval does not wait for the upload.
 * When its turn comes and more urgent partitions wait, it goes back to
 * the queue (put_back) and the urgent ones start first.
 *
 * Admission: a slot's working set is carved from the arena the first time
 * the slot proves with a key of that shape and kept. When the arena
 * cannot hold it even after evicting idle resident keys, and another slot
 * of the GPU holds a working set, the slot puts the partition back and
 * goes dormant (takes no more work); when no slot holds one, the key does
 * not fit the GPU and the partition fails with the sizes in the message.
 * No fallback allocation, no retry loop against the driver.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/pool.h"
#include "engine/engine_impl.h"
#include "engine/loader.h"
#include "engine/util.h"
#include "gpu/gpu.h"
#include "groth16/gpu_prover.h"

/* ------------------------------------------------------------- devices */

zp_err zp__gpus_open(zp_engine *e)
{
    int want = e->cfg.gpus < 0 ? zp__gpu_count() : e->cfg.gpus;
    if (want > ZP__GPUS_MAX)
        want = ZP__GPUS_MAX;
    for (int g = 0; g < want; g++) {
        zp__gpudev *d = &e->gpus[g];
        d->ordinal = g;
        pthread_mutex_init(&d->load_mu, NULL);
        pthread_mutex_init(&d->abc_mu, NULL);
        d->mu_init = true;
        e->n_gpus = g + 1;
        zp__gpu_config c;
        zp__gpu_config_default(&c);
        c.device = g;
        if (e->cfg.gpu_mem_bytes)
            c.arena_bytes = e->cfg.gpu_mem_bytes;
        zp_err err = zp__gpu_open(&d->dev, &c);
        if (!err)
            err = zp__gpu_stream_open(d->dev, &d->s);
        if (err)
            return err;
        d->admitted = e->cfg.gpu_slots;
    }
    return ZP_OK;
}

void zp__gpus_close(zp_engine *e)
{
    for (int g = 0; g < e->n_gpus; g++) {
        zp__gpudev *d = &e->gpus[g];
        if (d->s)
            zp__gpu_stream_close(d->s);
        if (d->dev)
            zp__gpu_close(d->dev);
        if (d->mu_init) {
            pthread_mutex_destroy(&d->load_mu);
            pthread_mutex_destroy(&d->abc_mu);
        }
        memset(d, 0, sizeof *d);
    }
    e->n_gpus = 0;
}

/* A device that failed for good (a sticky error: err ZP_E_GPU_FATAL, or
 * the device marked unhealthy by any call) takes no more work: its slots
 * wait out the engine's life, /healthz says degraded; when it was the
 * last prover, the jobs fail (zp__eng_gpu_lost). Called with the error of
 * whatever failed on the device, before the partition is reported, so
 * that its retry goes elsewhere. */
void zp__gpudev_failed(zp_engine *e, zp__gpudev *d, zp_err err)
{
    if (!err || (err != ZP_E_GPU_FATAL && zp__gpu_healthy(d->dev)))
        return;
    pthread_mutex_lock(&e->mu);
    bool first = !d->failed;
    d->failed = true;
    d->admitted = 0;
    if (first) {
        snprintf(d->why, sizeof d->why, "the device failed: %s", zp__gpu_last_error());
        zp__eng_gpu_lost(e);
    }
    pthread_mutex_unlock(&e->mu);
    if (first)
        zp__log(ZP__LOG_ERROR, "gpu.failed", "gpu=%d reason=%s", d->ordinal, d->why);
}

/* Whether d failed for good (zp__gpudev_failed). */
bool zp__gpudev_out(zp_engine *e, const zp__gpudev *d)
{
    pthread_mutex_lock(&e->mu);
    bool out = d->failed;
    pthread_mutex_unlock(&e->mu);
    return out;
}

/* --------------------------------------------------------------- slots */

/* Counts slots holding a working set on d, their pinned bytes and the
 * arena bytes of their staging rings (e->mu). */
static void sets_add(zp_engine *e, zp__gpudev *d, int delta, int64_t pinned, int64_t ring)
{
    pthread_mutex_lock(&e->mu);
    d->sets += delta;
    d->pinned += (uint64_t)pinned;
    d->ring_bytes += (uint64_t)ring;
    pthread_mutex_unlock(&e->mu);
}

static void slot_drop(zp_engine *e, zp__worker *w)
{
    if (!w->slot)
        return;
    zp__g16_slot_close(w->slot);
    w->slot = NULL;
    sets_add(e, &e->gpus[w->gpu], -1, -(int64_t)w->slot_pinned, -(int64_t)w->slot_ring);
    w->slot_pinned = 0;
    w->slot_ring = 0;
}

/* The slot's working set for keys of pk's shape: kept when it fits,
 * carved again otherwise, evicting idle resident keys for room. */
static zp_err slot_ready(zp_engine *e, zp__worker *w, zp__gpudev *d, const zp__g16_dkey *dk,
                         const zp__key *k, zp__ioerr *why)
{
    const zp__pk *pk = dk->pk;
    if (w->slot && zp__g16_slot_fits_key(w->slot, dk))
        return ZP_OK;
    slot_drop(e, w);
    for (;;) {
        /* An equal share of the free arena among the slots still without a
         * working set: four porep:27 slots on an H200 keep the default
         * size, fewer grow their G1 MSM scratch (more windows a pass). */
        zp__gpu_info info;
        zp__gpu_get_info(d->dev, &info);
        pthread_mutex_lock(&e->mu);
        int waiting = d->admitted - d->sets;
        pthread_mutex_unlock(&e->mu);
        uint64_t share = (info.arena_bytes - info.arena_used) / (uint64_t)(waiting > 1 ? waiting : 1);
        /* Counted as holding a working set while it opens, so that a slot
         * of the GPU that finds no room meanwhile goes dormant instead of
         * failing its partition (go_dormant). */
        sets_add(e, d, 1, 0, 0);
        zp_err err = zp__g16_slot_open_plan(&w->slot, d->dev, pk, dk->ring_buffer, dk->lean,
                                            dk->share != NULL, share, (unsigned)w->slot_index,
                                            &e->gpu_opts, why);
        if (!err) {
            /* A lean slot holds two host witness buffers; a streaming one its
             * packs too. */
            w->slot_pinned = (zp__g16_slot_lean(w->slot) ? 2 : 1) * (uint64_t)pk->n_vars *
                                 sizeof(zp_fr) +
                             zp__g16_slot_wpack_pinned(w->slot, pk);
            w->slot_ring = zp__g16_slot_ring_bytes(w->slot); /* none: the key's, shared */
            sets_add(e, d, 0, (int64_t)w->slot_pinned, (int64_t)w->slot_ring);
        } else {
            sets_add(e, d, -1, 0, 0);
        }
        if (err != ZP_E_GPU_OOM || !zp__dkey_evict_for(e, d->ordinal, k))
            return err;
    }
}

/* No room for slot w's working set. When another slot of the GPU holds
 * one, w goes dormant (true): the GPU runs as many partitions as its
 * memory holds. Otherwise nothing fits at all (false). */
static bool go_dormant(zp_engine *e, zp__worker *w, zp__gpudev *d, const zp__pk *pk)
{
    pthread_mutex_lock(&e->mu);
    bool others = d->sets > 0;
    if (others) {
        w->dormant = true;
        d->admitted--;
        zp__gpu_info info;
        zp__gpu_get_info(d->dev, &info);
        snprintf(d->why, sizeof d->why,
                 "slot %d: a working set of %llu bytes does not fit (%llu of %llu arena "
                 "bytes in use)",
                 w->slot_index, (unsigned long long)zp__g16_slot_bytes_min(pk),
                 (unsigned long long)info.arena_used, (unsigned long long)info.arena_bytes);
        zp__log(ZP__LOG_WARN, "gpu.admits", "gpu=%d slot=%d admitted=%d reason=%s", d->ordinal,
                w->slot_index, d->admitted, d->why);
    }
    pthread_mutex_unlock(&e->mu);
    return others;
}

/* go_dormant for a partition of job j that slot w took with key's host and
 * device references held: where w goes dormant, both are dropped and the
 * partition goes back to the queue, untouched (true). */
static bool dormant_put_back(zp_engine *e, zp__worker *w, zp__gpudev *d, zp__key *key,
                             const zp__pk *pk, zp__job *j, uint32_t part)
{
    if (!go_dormant(e, w, d, pk))
        return false;
    zp__dkey_release(e, d->ordinal, key);
    zp__key_release(e, key);
    zp__eng_requeue(e, w, j, part);
    return true;
}

/* ----------------------------------------------------------- partitions */

typedef struct gpu_run {
    zp_engine *e;
    zp__worker *w;
    zp__job *j;
    uint32_t part;
    double t;            /* start of the current stage */
} gpu_run;

/*
 * The partition a slot takes while it still runs one (docs/gpu-memory.md):
 * taken during that one's h stage, its witness loaded into the slot's
 * pinned buffer then, and sent into the slot by the copy stream while that
 * one's B1 and B2 MSMs run, so that its own eval stage finds it there.
 * Only for the same key; a partition of another key is just taken early
 * and runs the usual way. The witness loads on the worker's loader
 * thread, through the MSMs as well as h (a witness that takes longer to
 * decode or make than h runs costs the slot no idle time), and goes to
 * the slot if it is ready when the slot asks again before B1. Without a
 * loader (its thread could not start) the witness loads when its
 * partition runs.
 */
typedef struct ahead {
    bool taken;              /* j, part: a partition taken from the queue */
    zp__job *j;
    uint32_t part;
    bool held;               /* a key reference taken for it */
    bool loading;            /* its witness loads on the worker's loader */
    bool sent;               /* its witness went to the slot */
    bool staged;             /* a, b: copied into the worker's abc_pre */
    const zp__g16_slot *slot; /* the slot whose buffer it was loaded into */
} ahead;

typedef struct ahead_ctx {
    zp_engine *e;
    zp__worker *w;
    zp__key *key;            /* the running partition's */
    uint32_t n_vars;         /* its witness length (the device key's shape) */
    ahead *next;
} ahead_ctx;

/* The loader's last step (loader.h): a lean slot packs the witness for
 * its sends while the partition before still runs (prove_gpu_wpack.c). */
static void pack_loaded(void *arg, const zp_fr *wit)
{
    zp__worker *w = arg;
    zp__g16_slot_pack_ahead(w->slot, w->pack_pk, wit);
}

/* zp__g16_next_fn. During h: takes the next partition now if one is ready
 * and, when it is of the same key (a reference of its own), starts the
 * loader on its witness. When asked again: the loader's witness if it is
 * ready. */
static const zp_fr *take_ahead(void *arg, int phase)
{
    ahead_ctx *c = arg;
    ahead *a = c->next;
    const zp_fr *wit = NULL;
    if (phase == ZP_G16_NEXT_W_SUMS)
        return NULL; /* the engine's CPU workers finish and verify */
    if (phase == ZP_G16_NEXT_SEND) {
        if (!a->loading || !zp__loader_ready(c->w->loader, &wit))
            return NULL;
        a->sent = true;
        return wit;
    }
    if (!zp__eng_take_ahead(c->e, c->w, &a->j, &a->part))
        return NULL;
    a->taken = true;
    zp__ioerr why = {{0}};
    if (zp__job_is_abc(a->j) || a->j->key != c->key || zp__key_acquire(c->e, c->key, &why))
        return NULL;
    a->held = true;
    a->slot = c->w->slot;
    if (!c->w->loader && zp__loader_open(&c->w->loader))
        return NULL; /* loaded when it runs */
    c->w->pack_pk = &c->key->pk;
    zp__loader_start(c->w->loader, c->e, a->j, a->part, c->key,
                     zp__g16_slot_witness_buf(c->w->slot), c->n_vars, pack_loaded, c->w);
    a->loading = true;
    return NULL;
}

static void stage(gpu_run *r, zp__stage st, double t1)
{
    zp__eng_stage(r->e, (uint32_t)r->w->index, st, r->j, r->part, r->t, t1);
    r->t = t1;
}

/* Counts what a partition moved host to device on d (e->mu). */
static void count_io(zp_engine *e, zp__gpudev *d, const zp__trace_io *io)
{
    pthread_mutex_lock(&e->mu);
    d->h2d_bytes += io->h2d;
    d->streamed_bytes += io->streamed;
    pthread_mutex_unlock(&e->mu);
}

/* The device stages, recorded from the slot's own times: eval, then h,
 * then the msm stage, which ends now, its five MSMs traced within it back
 * to back (each MSM's time includes the scalar gathers before it): H
 * first; or, where the slot ran L, A, B1 and B2 beside h, those from h's
 * start (the msm stage starts there then) and H after h and them. The
 * msm stage carries the bytes the partition moved host to device, counted
 * for its GPU too. */
static zp_err device_stages(gpu_run *r, const zp__g16_dkey *dk, const zp_fr *wit, bool sent,
                            ahead_ctx *next, zp__g16_sums *sums, zp__ioerr *why)
{
    zp__prove_times pt;
    memset(&pt, 0, sizeof pt);
    const uint64_t streamed0 = zp__g16_slot_streamed_bytes(r->w->slot);
    const uint64_t saved0 = zp__g16_slot_wpack_saved(r->w->slot);
    zp_err err = zp__g16_slot_sums_next(r->w->slot, dk, wit, sent, next ? take_ahead : NULL,
                                        next, sums, &pt, why);
    double end = zp__eng_now(r->e);
    if (err)
        return err;
    /* The points the slot's ring streamed for it, and its witness: n_vars
     * values that cross once per partition, whether eval uploads them or
     * the copy stream sent them ahead while the previous partition's MSMs
     * ran (a witness sent ahead for a partition that then went back to the
     * queue crossed in vain, and is not counted). */
    zp__trace_io io;
    io.streamed = zp__g16_slot_streamed_bytes(r->w->slot) - streamed0;
    /* A lean slot sends the witness twice (before eval and after h), less
     * what its packed sends left off the bus. */
    io.h2d = io.streamed +
             (zp__g16_slot_lean(r->w->slot) ? 2 : 1) * (uint64_t)dk->pk->n_vars * sizeof(zp_fr) -
             (zp__g16_slot_wpack_saved(r->w->slot) - saved0);
    count_io(r->e, &r->e->gpus[r->w->gpu], &io);
    const double t_eval = r->t + pt.eval < end ? r->t + pt.eval : end;
    const double t_h = t_eval + pt.h < end ? t_eval + pt.h : end;
    stage(r, ZP__ST_EVAL, t_eval);
    zp__eng_stage(r->e, (uint32_t)r->w->index, ZP__ST_H, r->j, r->part, t_eval, t_h);
    r->t = pt.msm_beside_h ? t_eval : t_h;
    double at = r->t;
    zp__eng_stage_io(r->e, (uint32_t)r->w->index, ZP__ST_MSM, r->j, r->part, r->t, end, &io);
    r->t = end;
    const double part[5] = {pt.msm_l, pt.msm_a, pt.msm_b1, pt.msm_b2, pt.msm_h};
    const zp__stage st[5] = {ZP__ST_MSM_L, ZP__ST_MSM_A, ZP__ST_MSM_B1, ZP__ST_MSM_B2,
                             ZP__ST_MSM_H};
    for (int i = 0; i < 5; i++) {
        const int m = pt.msm_beside_h ? i : (i + 4) % 5; /* else H first */
        if (m == 4 && at < t_h) /* H waits for h too */
            at = t_h;
        double t1 = at + part[m] < end ? at + part[m] : end;
        zp__eng_stage(r->e, (uint32_t)r->w->index, st[m], r->j, r->part, at, t1);
        at = t1;
    }
    /* A streaming key's waits for its chunks, which the schedule spreads
     * among the MSMs above, drawn after them. */
    if (pt.msm_wait > 0)
        zp__eng_stage(r->e, (uint32_t)r->w->index, ZP__ST_MSM_WAIT, r->j, r->part, at,
                      at + pt.msm_wait < end ? at + pt.msm_wait : end);
    return ZP_OK;
}

/* Runs partition cur (taken, perhaps ahead with its witness sent); takes
 * the next one ahead into *next when one is ready while this one runs.
 * Returns how it ended (reported already; ZP_OK also when it went back
 * to the queue). */
static zp_err run_partition(zp_engine *e, zp__worker *w, const ahead *cur, ahead *next)
{
    zp__job *j = cur->j;
    uint32_t part = cur->part;
    zp__gpudev *d = &e->gpus[w->gpu];
    gpu_run r = {e, w, j, part, zp__eng_now(e)};
    zp__ioerr why = {{0}};
    zp__proof proof;
    uint8_t bytes[ZP__PROOF_BYTES];
    memset(&proof, 0, sizeof proof);
    zp__key *key = j->key;
    zp__g16_dkey *dk = NULL;
    const zp_fr *wit = NULL;
    zp_fr *pub = NULL; /* its own copy: the slot's buffer takes the next witness */
    /* Taken ahead: a key reference of its own (take_ahead), its witness
     * perhaps loaded. The loader is waited for first: it writes into the
     * slot's buffer, which slot_ready below could free. */
    const zp_fr *pre = NULL;
    if (cur->loading) {
        zp__ioerr lw = {{0}};
        if (zp__loader_wait(w->loader, &pre, &lw))
            pre = NULL; /* loaded again below, failing there */
    }
    zp_err err = cur->held ? ZP_OK : zp__key_acquire(e, key, &why);
    bool held = !err;
    if (!err && (err = zp__dkey_acquire(e, d, key, &dk, &why))) {
        char msg[sizeof why.msg];
        snprintf(msg, sizeof msg, "%s", why.msg[0] ? why.msg : zp_strerror(err));
        zp__fail(&why, err, "key %s cannot be made resident on gpu%d: %s", key->name,
                 d->ordinal, msg);
    }
    /* Its counts were checked when it was made resident (zp__g16_dkey_upload,
     * zp__g16_dkey_setup), not again for each partition. */
    const zp__pk *pk = dk ? dk->pk : NULL;
    if (!err && (err = slot_ready(e, w, d, dk, key, &why)) == ZP_E_GPU_OOM) {
        if (dormant_put_back(e, w, d, key, pk, j, part))
            return ZP_OK;
        char msg[sizeof why.msg];
        snprintf(msg, sizeof msg, "%s", why.msg);
        zp__fail(&why, err, "gpu%d cannot hold a working set of %llu bytes for key %s next "
                 "to its resident keys (%s)", d->ordinal,
                 (unsigned long long)zp__g16_slot_bytes_min(pk), key->name, msg);
    }
    /* Loaded ahead into this very slot, it is there (and perhaps sent);
     * else loaded now. */
    bool ready = !err && pre && cur->slot == w->slot;
    bool sent = ready && cur->sent;
    if (ready)
        wit = pre;
    else if (!err)
        err = zp__load_witness(e, zp__g16_slot_witness_buf(w->slot), &wit, j, part, key,
                               pk->n_vars, &why);
    uint32_t n_pub = held && pk ? pk->n_public : 0;
    if (!err && !(pub = malloc(((size_t)n_pub + 1) * sizeof *pub)))
        err = zp__fail(&why, ZP_E_NOMEM, "no memory for the public inputs");
    if (!err) {
        memcpy(pub, wit + 1, (size_t)n_pub * sizeof *pub);
        stage(&r, ZP__ST_ACQUIRE, zp__eng_now(e));
        if (zp__eng_job_dead(e, j))
            err = ZP_E_CANCELLED;
    }
    zp__g16_sums sums;
    ahead_ctx nx = {e, w, key, pk ? (uint32_t)pk->n_vars : 0, next};
    if (!err)
        err = zp__eng_fault(e, w, &why);
    if (!err)
        err = device_stages(&r, dk, wit, sent, &nx, &sums, &why);
    /* Whatever failed on the device (the key's copy, the working set, the
     * stages) may have been a sticky error. */
    zp__gpudev_failed(e, d, err);
    if (dk)
        zp__dkey_release(e, d->ordinal, key);
    if (!err && zp__eng_job_dead(e, j))
        err = ZP_E_CANCELLED;
    if (!err && !(err = zp__eng_finish(&proof, bytes, pk, &sums, &why)))
        stage(&r, ZP__ST_FINISH, zp__eng_now(e));
    zp__eng_proved(e, w, j, part, err, why.msg, &proof, bytes, held && !err ? pub : NULL,
                   n_pub, held);
    free(pub);
    return err;
}

/*
 * A, b of the next partition of a, b, c, copied ahead: where a GPU admits
 * one slot (a card that holds one working set beside its key), a and b
 * (8.6 GB at porep:27, in the caller's pageable memory) would otherwise go
 * up through the slot's staging buffers at the rate of the host's copy
 * into them, with the SMs idle. So while a partition's MSMs run, a thread
 * copies the next one's into pinned memory of the worker's (a first, then
 * b), from which they go up at the bus's rate; where the MSMs run as a
 * schedule, a goes up during it (zp__g16_slot_a_ahead) and only b after.
 * The caller's memory is read there first, still before the partition is
 * reported consumed. Several admitted slots take turns at the bus beside
 * each other's MSMs instead (run_abc), and would pin as much again each.
 */
struct zp__abc_pre {
    zp_fr *buf;             /* pinned: a's values, then b's */
    uint64_t cap;           /* values each of a and b may have */
    uint64_t bytes;         /* pinned, counted in the GPU's pinned bytes */
    bool failed;            /* the host refused cap's pinned memory */
    const zp__abc_in *in;   /* whose a and b it holds or is copying */
    atomic_int ready;       /* 1: a's values are in, 2: b's too (zp__g16_slot_a_ahead) */
    pthread_t th;
    bool running;
};

static void *pre_main(void *arg)
{
    struct zp__abc_pre *p = arg;
    const uint64_t m = p->in->abc_size;
    zp__parallel_memcpy(p->buf, p->in->a, (size_t)m * sizeof(zp_fr), 0);
    atomic_store(&p->ready, 1);
    zp__parallel_memcpy(p->buf + m, p->in->b, (size_t)m * sizeof(zp_fr), 0);
    atomic_store(&p->ready, 2);
    return NULL;
}

/* Waits for the copy started last, if any. */
static void pre_wait(zp__worker *w)
{
    struct zp__abc_pre *p = w->abc_pre;
    if (p && p->running) {
        pthread_join(p->th, NULL);
        p->running = false;
    }
}

/* Starts copying in's a and b into w's pinned buffer (taken once, for a
 * domain of n); false where it cannot (they then go up as usual). */
static bool pre_start(zp_engine *e, zp__worker *w, const zp__abc_in *in, uint64_t n)
{
    zp__gpudev *d = &e->gpus[w->gpu];
    if (in->abc_size > n)
        return false;
    if (!w->abc_pre && !(w->abc_pre = calloc(1, sizeof *w->abc_pre)))
        return false;
    struct zp__abc_pre *p = w->abc_pre;
    pre_wait(w);
    if (p->cap < n) {
        if (p->failed)
            return false;
        const uint64_t bytes = 2 * n * sizeof(zp_fr);
        void *buf = NULL;
        if (zp__gpu_host_alloc(d->dev, &buf, bytes)) {
            p->failed = true;
            zp__log(ZP__LOG_WARN, "gpu.abc_ahead", "gpu=%d slot=%d bytes=%llu reason=%s",
                    d->ordinal, w->slot_index, (unsigned long long)bytes,
                    "no pinned host memory: a and b go up through the staging buffers");
            return false;
        }
        zp__gpu_host_free(p->buf);
        sets_add(e, d, 0, (int64_t)bytes - (int64_t)p->bytes, 0);
        p->buf = buf;
        p->cap = n;
        p->bytes = bytes;
    }
    p->in = in;
    atomic_store(&p->ready, 0);
    p->running = pthread_create(&p->th, NULL, pre_main, p) == 0;
    if (!p->running)
        p->in = NULL;
    return p->running;
}

/* The copy of in's a and b made ahead (waited for), or NULL. */
static const zp_fr *pre_take(zp__worker *w, const zp__abc_in *in)
{
    pre_wait(w);
    struct zp__abc_pre *p = w->abc_pre;
    return p && p->in == in ? p->buf : NULL;
}

static void pre_free(zp_engine *e, zp__worker *w)
{
    struct zp__abc_pre *p = w->abc_pre;
    if (!p)
        return;
    pre_wait(w);
    zp__gpu_host_free(p->buf);
    sets_add(e, &e->gpus[w->gpu], 0, -(int64_t)p->bytes, 0);
    free(p);
    w->abc_pre = NULL;
}

/* zp__g16_next_fn for a partition of a, b, c, while the device runs h:
 * where its slot sends the witness after h (zp__g16_slot_abc_w_late), the
 * witness into the slot's pinned buffer, not before a and b go up with the
 * GPU idle; then, where the GPU admits this slot alone, the next partition
 * taken and, when it is of a, b, c for the same key, its a and b copied
 * ahead (zp__abc_pre). The assignments live until the job is over
 * (engine/abc.h). */
typedef struct abc_hook {
    zp_fr *wit;
    const zp__abc_in *in;
    bool late;
    zp_engine *e;
    zp__worker *w;
    const zp__key *key;
    uint64_t domain;
    ahead *next;
} abc_hook;

static const zp_fr *abc_next(void *arg, int phase)
{
    abc_hook *x = arg;
    if (phase != ZP_G16_NEXT_H)
        return NULL;
    if (x->late)
        zp__abc_witness(x->wit, x->in, 0);
    ahead *a = x->next;
    zp__gpudev *d = &x->e->gpus[x->w->gpu];
    pthread_mutex_lock(&x->e->mu);
    const bool alone = d->admitted == 1;
    pthread_mutex_unlock(&x->e->mu);
    if (!alone || !zp__eng_take_ahead(x->e, x->w, &a->j, &a->part))
        return NULL;
    a->taken = true;
    if (zp__job_is_abc(a->j) && a->j->key == x->key) {
        const zp__abc_part *ap = (const zp__abc_part *)a->j->wit[a->part].data;
        a->staged = pre_start(x->e, x->w, &ap->in, x->domain);
        /* and its a into the slot's a as this partition's schedule frees
         * it, once the thread has copied a (before b) */
        if (a->staged)
            zp__g16_slot_a_ahead(x->w->slot, x->w->abc_pre->buf, ap->in.abc_size,
                                 &x->w->abc_pre->ready);
    }
    return NULL;
}

/* A partition of a, b, c (engine/abc.h) on the slot: its witness into the
 * slot's buffer (a lean slot's while h runs), its a and b up and c made
 * there (then reported consumed), h and the MSMs there (groth16/abc.h),
 * finish with its r, s. A slot that finds no room for its working set
 * beside another slot's goes dormant and puts the partition back,
 * untouched, as run_partition's do. A partition whose density maps the
 * key's device copy cannot take, or that finds no room on a GPU where no
 * slot holds a working set, runs with the CPU stages on this thread
 * instead. Returns the device's error, if any (the partition is reported
 * already). */
static zp_err run_abc(zp_engine *e, zp__worker *w, const ahead *cur, ahead *next)
{
    zp__job *j = cur->j;
    const uint32_t part = cur->part;
    const zp__abc_part *ap = (const zp__abc_part *)j->wit[part].data;
    /* Its a and b copied ahead (zp__abc_pre): waited for first, whatever
     * happens to the partition. */
    const zp_fr *pre = cur->staged ? pre_take(w, &ap->in) : NULL;
    zp__gpudev *d = &e->gpus[w->gpu];
    gpu_run r = {e, w, j, part, zp__eng_now(e)};
    zp__ioerr why = {{0}};
    zp__proof proof;
    uint8_t bytes[ZP__PROOF_BYTES];
    memset(&proof, 0, sizeof proof);
    zp__key *key = j->key;
    zp__g16_dkey *dk = NULL;
    zp_err err = zp__key_acquire(e, key, &why);
    bool held = !err;
    zp_err gerr = ZP_OK; /* the device's part, which may be a sticky error */
    if (!err && (!zp__abc_key_ok(&key->pk) || zp__abc_check(&ap->in, &key->pk, &why) ||
                 !zp__key_abc_maps(e, key, &ap->in) ||
                 (gerr = zp__dkey_acquire(e, d, key, &dk, &why)) ||
                 (gerr = slot_ready(e, w, d, dk, key, &why)))) {
        if (gerr == ZP_E_GPU_OOM && dk && dormant_put_back(e, w, d, key, dk->pk, j, part))
            return ZP_OK;
        zp__gpudev_failed(e, d, gerr);
        if (dk)
            zp__dkey_release(e, d->ordinal, key);
        zp__key_release(e, key);
        zp__eng_run_abc(e, w, j, part); /* checks again and says what is wrong */
        return gerr;
    }
    const zp__pk *pk = dk ? dk->pk : NULL;
    uint32_t n_pub = held ? key->pk.n_public : 0;
    zp_fr *pub = NULL, *wit = held ? zp__g16_slot_witness_buf(w->slot) : NULL;
    if (!err && !(pub = malloc(((size_t)n_pub + 1) * sizeof *pub)))
        err = zp__fail(&why, ZP_E_NOMEM, "no memory for the public inputs");
    if (!err && zp__eng_job_dead(e, j)) /* cancelled since it was taken ahead */
        err = ZP_E_CANCELLED;
    zp__g16_sums sums;
    if (!err) {
        abc_hook hk = {wit, &ap->in, zp__g16_slot_abc_w_late(w->slot, dk), e, w, key,
                       dk->pk->domain_size, next};
        /* One slot's copies at a time: slots that copied at once would
         * then run their MSMs at once too, and copy again at once while
         * the GPU idles, where taking turns puts each copy beside the
         * other slot's MSMs (the copies share the bus and the host's
         * memory either way). */
        pthread_mutex_lock(&d->abc_mu);
        if (!hk.late)
            zp__abc_witness(wit, &ap->in, 0);
        stage(&r, ZP__ST_ACQUIRE, zp__eng_now(e));
        const uint64_t streamed0 = zp__g16_slot_streamed_bytes(w->slot);
        const bool a_sent = zp__g16_slot_a_sent(w->slot, pre);
        const bool b_sent = zp__g16_slot_b_sent(w->slot, pre);
        err = zp__g16_slot_put_abc(w->slot, dk, wit, &ap->in, pre);
        pthread_mutex_unlock(&d->abc_mu);
        if (ap->consumed)
            ap->consumed(ap->ctx, part);
        if (err)
            zp__fail(&why, err, "uploading a, b, c failed: %s", zp__gpu_last_error());
        stage(&r, ZP__ST_EVAL, zp__eng_now(e));
        if (!err)
            err = zp__g16_slot_sums_abc(w->slot, dk, abc_next, &hk, &sums, NULL, &why);
        if (!err) /* the witness is in its buffer by this point, late or not */
            memcpy(pub, wit + 1, (size_t)n_pub * sizeof *pub);
        if (err) {
            zp__gpudev_failed(e, d, err);
        } else {
            /* Bytes moved: the witness, a and b, and the points streamed. */
            zp__trace_io io;
            io.streamed = zp__g16_slot_streamed_bytes(w->slot) - streamed0;
            io.h2d = io.streamed +
                     ((uint64_t)pk->n_vars + 2 * ap->in.abc_size) * sizeof(zp_fr);
            count_io(e, d, &io);
            pthread_mutex_lock(&e->mu);
            d->abc_w_late += hk.late;
            if (pre) {
                d->abc_ahead++;
                d->abc_a_sent += a_sent;
                d->abc_b_sent += b_sent;
            }
            pthread_mutex_unlock(&e->mu);
            zp__eng_stage_io(e, (uint32_t)w->index, ZP__ST_MSM, j, part, r.t,
                             zp__eng_now(e), &io);
            r.t = zp__eng_now(e);
        }
    } else if (ap->consumed) {
        ap->consumed(ap->ctx, part);
    }
    if (dk)
        zp__dkey_release(e, d->ordinal, key);
    if (!err) {
        zp__g16_finish(&proof, pk, &sums, &ap->r, &ap->s);
        if ((err = zp__proof_encode(bytes, &proof)))
            zp__fail(&why, err, "the proof cannot be encoded: %s", zp_strerror(err));
        else
            stage(&r, ZP__ST_FINISH, zp__eng_now(e));
    }
    zp__eng_proved(e, w, j, part, err, why.msg, &proof, bytes, !err ? pub : NULL, n_pub, held);
    free(pub);
    return err;
}

/* A partition taken ahead goes back untouched: its loader waited for, its
 * key reference dropped (a witness it sent to the slot is overwritten by
 * the next upload). */
static void put_back(zp_engine *e, zp__worker *w, ahead *a)
{
    if (a->staged)
        pre_wait(w);
    if (a->loading) {
        const zp_fr *wit;
        zp__loader_wait(w->loader, &wit, NULL);
    }
    if (a->held)
        zp__key_release(e, a->j->key);
    zp__eng_untake(e, a->j, a->part);
    memset(a, 0, sizeof *a);
}

void *zp__gpu_worker_main(void *arg)
{
    zp__worker *w = arg;
    zp__gpudev *d = &w->e->gpus[w->gpu];
    ahead cur, next;
    memset(&next, 0, sizeof next);
    for (;;) {
        cur = next;
        memset(&next, 0, sizeof next);
        /* More urgent work came while it waited: that first. A GPU that
         * failed meanwhile (another slot's sticky error) runs nothing
         * more: the partition goes back as if never taken. */
        if (cur.taken && (zp__eng_more_urgent(w->e, cur.j) || zp__gpudev_out(w->e, d)))
            put_back(w->e, w, &cur);
        if (cur.taken)
            zp__eng_busy(w->e, w, cur.j, cur.part);
        else if (!zp__eng_take(w->e, w, &cur.j, &cur.part))
            break;
        zp_err err = zp__job_is_abc(cur.j) ? run_abc(w->e, w, &cur, &next)
                                           : run_partition(w->e, w, &cur, &next);
        if (err == ZP_E_GPU || err == ZP_E_GPU_FATAL) {
            /* The failed partition left work on the slot's streams and its
             * buffers in no known state: the next partition goes back to
             * the queue (after its loader, which writes into the slot's
             * buffer) and the working set is made again when needed. */
            if (next.taken)
                put_back(w->e, w, &next);
            slot_drop(w->e, w);
        }
    }
    zp__loader_close(w->loader); /* idle: each load is waited for by its run */
    w->loader = NULL;
    pre_free(w->e, w);
    slot_drop(w->e, w);
    return NULL;
}
