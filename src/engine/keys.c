/*
 * The engine's key cache: registered keys, loaded on first use, with a byte
 * budget over everything loaded (heap and mapped) and LRU eviction of keys
 * no partition uses and no one preloaded. Tiers: HOST (parsed into
 * memory), MAPPED (a .zpk mapping), PINNED, and the GPUs' device tier
 * (gpu_keys.c), which a preload fills on every GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/codec.h"
#include "base/log.h"
#include "engine/engine_impl.h"
#include "engine/util.h"
#include "gpu/gpu.h"
#include "io/bellperson.h"
#include "io/io.h"
#include "io/zpk.h"

static const char *const tier_names[] = {"unloaded", "loading", "host", "mapped", "device",
                                         "pinned"};

const char *zp_key_tier_name(zp_key_tier t)
{
    return (unsigned)t < sizeof tier_names / sizeof *tier_names ? tier_names[t] : "?";
}

zp__key *zp__key_find(zp_engine *e, const char *name)
{
    for (uint32_t i = 0; i < e->n_keys; i++)
        if (!strcmp(e->keys[i]->name, name))
            return e->keys[i];
    return NULL;
}

static zp_err parse_source(zp__key *k, const char *source)
{
    if (!strncmp(source, "synth:", 6)) {
        if (zp__synth_parse(&k->spec, source))
            return ZP_E_INVALID_ARG;
        k->kind = ZP__KEY_SYNTH;
    } else if (zp__ends_with(source, ".zpk")) {
        k->kind = ZP__KEY_ZPK;
    } else if (zp__ends_with(source, ".zkey")) {
        k->kind = ZP__KEY_ZKEY;
    } else if (zp__ends_with(source, ".params")) {
        k->kind = ZP__KEY_PARAMS;
    } else {
        return ZP_E_INVALID_ARG;
    }
    return ZP_OK;
}

zp_err zp_engine_add_key(zp_engine *e, const char *name, const char *source)
{
    if (!e || !zp__eng_name_ok(name, ZP_NAME_MAX, 0) || !source ||
        strlen(source) >= sizeof ((zp__key *)0)->source)
        return ZP_E_INVALID_ARG;
    zp__key *k = calloc(1, sizeof *k);
    if (!k)
        return ZP_E_NOMEM;
    zp_err err = parse_source(k, source);
    if (err) {
        free(k);
        return err;
    }
    snprintf(k->name, sizeof k->name, "%s", name);
    snprintf(k->source, sizeof k->source, "%s", source);
    k->last_used = -1;
    k->gpu_setup = k->kind == ZP__KEY_SYNTH && e->n_gpus > 0 && e->cfg.cpu_workers == 0;
    pthread_mutex_lock(&e->mu);
    zp__key *old = zp__key_find(e, name);
    if (old) {
        err = strcmp(old->source, source) ? ZP_E_EXISTS : ZP_OK;
    } else if (e->n_keys == e->cap_keys) {
        uint32_t cap = e->cap_keys ? 2 * e->cap_keys : 8;
        zp__key **p = realloc(e->keys, cap * sizeof *p);
        if (p) {
            e->keys = p;
            e->cap_keys = cap;
        } else {
            err = ZP_E_NOMEM;
        }
    }
    if (!old && !err) {
        e->keys[e->n_keys++] = k;
        k = NULL;
    }
    pthread_mutex_unlock(&e->mu);
    free(k);
    return err;
}

/* --------------------------------------------------------------- sizing */

static uint64_t csr_bytes(const zp__csr *m)
{
    if (!m->row_ptr)
        return 0;
    return (m->nrows + 1) * 8 + m->nnz * (sizeof(uint32_t) + sizeof(zp_fr));
}

typedef struct region {
    void *p;
    uint64_t bytes;
} region;

/* The heap arrays of a key that is not a mapping: points, densities and
 * matrices, leaving out the absent ones (points made on a device only). */
static uint32_t pk_arrays(const zp__pk *pk, region *out)
{
    uint64_t g1 = sizeof(zp_g1_affine), g2 = sizeof(zp_g2_affine), fr = sizeof(zp_fr);
    uint64_t dw = ((uint64_t)pk->n_vars + 63) / 64 * 8;
    region all[ZP__PIN_MAX] = {
        {pk->a, pk->n_a * g1}, {pk->b1, pk->n_b * g1}, {pk->b2, pk->n_b * g2},
        {pk->l, pk->n_l * g1}, {pk->h, pk->n_h * g1},
        {pk->a_density.words, dw}, {pk->b_density.words, dw},
        {pk->ma.row_ptr, (pk->ma.nrows + 1) * 8}, {pk->ma.col, pk->ma.nnz * 4},
        {pk->ma.val, pk->ma.nnz * fr},
        {pk->mb.row_ptr, (pk->mb.nrows + 1) * 8}, {pk->mb.col, pk->mb.nnz * 4},
        {pk->mb.val, pk->mb.nnz * fr},
    };
    uint32_t n = 0;
    for (size_t i = 0; i < ZP__PIN_MAX; i++)
        if (all[i].p && all[i].bytes)
            out[n++] = all[i];
    return n;
}

static uint64_t pk_heap_bytes(const zp__pk *pk)
{
    region r[ZP__PIN_MAX];
    uint32_t n = pk_arrays(pk, r);
    uint64_t b = 0;
    for (uint32_t i = 0; i < n; i++)
        b += r[i].bytes;
    return b;
}

/* Host bytes a loaded key holds. */
uint64_t zp__key_loaded_bytes(const zp__key *k)
{
    uint64_t b = (uint64_t)k->pk.vk.n_ic * sizeof(zp_g1_affine);
    b += k->pk.map_base ? k->pk.map_len : pk_heap_bytes(&k->pk);
    return b + csr_bytes(&k->cs.a) + csr_bytes(&k->cs.b) + csr_bytes(&k->cs.c);
}

/* What a load is expected to take, to make room before it starts: the
 * file size for files (a .zkey's points are stored uncompressed, so its
 * parsed form is about as large), the counts of the shape for synthetic
 * keys. Refined to the real size once loaded. */
static uint64_t estimate_bytes(const zp__key *k)
{
    if (k->kind != ZP__KEY_SYNTH) {
        struct stat st;
        return stat(k->source, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
    }
    zp__synth_shape sh;
    if (zp__synth_shape_of(&sh, &k->spec))
        return 0;
    uint64_t dom = (uint64_t)1 << k->spec.log2;
    uint64_t pts = k->gpu_setup ? 0 : (uint64_t)sh.n_vars * (3 * 96 + 192) + dom * 96;
    return pts + 2 * (sh.nnz_a + sh.nnz_b) * (4 + 32) + 4 * (sh.n_constraints + 1) * 8;
}

/* ------------------------------------------------------------- loading */

/* Toxic waste for a key set up on the GPUs: all nonzero. */
static zp_err draw_toxic(zp__toxic *t)
{
    zp_fr *v[] = {&t->tau, &t->alpha, &t->beta, &t->gamma, &t->delta};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        do {
            if (zp_fr_random(v[i]))
                return ZP_E_RANDOM;
        } while (zp_fr_is_zero(v[i]));
    return ZP_OK;
}

static zp_err load_synth(zp__key *k, zp__pk *pk, zp__r1cs *cs, int threads,
                         const zp__progress *progress, zp__ioerr *why)
{
    zp__synth_spec s = k->spec;
    s.threads = threads;
    s.keep_c = true; /* setup needs C; witnesses need only A and B */
    zp_err err = zp__synth_circuit(cs, &s);
    if (err)
        return zp__fail(why, err, "cannot build the synthetic circuit %s: %s", k->source,
                        zp_strerror(err));
    /* PoRep-shaped circuits get a bellperson-convention key, the others a
     * snarkjs one, so both H conventions run through the engine. */
    zp_h_conv conv = s.kind == ZP__SYNTH_POREP ? ZP_H_TAU : ZP_H_COSET;
    k->conv = conv;
    if (k->gpu_setup) {
        /* The points are made on each GPU when it first proves with the
         * key (gpu_worker.c), which fills pk's host part; keep C for it. */
        if ((err = draw_toxic(&k->toxic))) {
            zp__r1cs_free(cs);
            return zp__fail(why, err, "the OS random source failed (toxic waste)");
        }
        return ZP_OK;
    }
    err = zp__setup_progress(pk, cs, conv, threads, NULL, progress);
    if (err) {
        zp__r1cs_free(cs);
        return zp__fail(why, err, "test-key setup for %s failed: %s", k->source,
                        zp_strerror(err));
    }
    zp__csr_free(&cs->c);
    return ZP_OK;
}

static void key_progress_fn(void *ctx, const char *step, uint64_t done, uint64_t total)
{
    const zp__key_progress *kp = ctx;
    kp->cfg->key_progress(kp->cfg->key_progress_ctx, kp->name, step, done, total);
}

zp__progress zp__key_progress_of(const zp__key_progress *kp)
{
    return (zp__progress){kp->cfg->key_progress ? key_progress_fn : NULL, (void *)kp};
}

static zp_err load_key(const zp_engine *e, zp__key *k, zp__pk *pk, zp__r1cs *cs, int threads,
                       zp__ioerr *why)
{
    memset(pk, 0, sizeof *pk);
    memset(cs, 0, sizeof *cs);
    zp__key_progress kp = {&e->cfg, k->name};
    zp__progress p = zp__key_progress_of(&kp);
    switch (k->kind) {
    case ZP__KEY_ZPK:
        return zp__zpk_load_progress(pk, k->source, 0, threads, &p, why);
    case ZP__KEY_ZKEY:
        return zp__zkey_load(pk, k->source, why);
    case ZP__KEY_SYNTH:
        return load_synth(k, pk, cs, threads, &p, why);
    case ZP__KEY_PARAMS:
        /* Every point checked; no density maps or matrices: jobs of a,
         * b, c bring the maps (groth16/abc.h). */
        return zp__params_load(pk, k->source, threads, why);
    }
    return ZP_E_INVALID_ARG;
}

/* ---------------------------------------------------------- pinned tier */

/* The host regions of k's loaded key: its mapping, or its heap arrays. */
static uint32_t key_regions(const zp__key *k, region *out)
{
    const zp__pk *pk = &k->pk;
    if (pk->map_base) {
        out[0] = (region){pk->map_base, pk->map_len};
        return 1;
    }
    return pk_arrays(pk, out);
}

/* Whether k's points would stream from host memory on some GPU, planned
 * as its copy there would be now (e->mu held). */
static bool streams_somewhere(zp_engine *e, const zp__key *k)
{
    for (int g = 0; g < e->n_gpus; g++) {
        const zp__gpudev *d = &e->gpus[g];
        if (!d->dev)
            continue;
        zp__g16_plan p;
        zp__ioerr why = {{0}};
        if (zp__dkey_plan(e, d, zp__gpudev_sets_wanted(d), &k->pk, &p, &why) == ZP_OK &&
            zp__g16_plan_streams(&p))
            return true;
    }
    return false;
}

/* Page-locks a key just loaded when the pinned budget has room for all of
 * it, or, whatever the budget, when its points stream on some GPU: its
 * copies then stream from it in place rather than from a pinned image of
 * their own as large as what streams, so locking it takes no more memory
 * and saves the copy (e->mu held; released while the driver works, with a
 * reference held so the key stays). A refusal (locked-memory limit)
 * leaves it unpinned, and its copies make their image. */
static void pin_key(zp_engine *e, zp__key *k)
{
    region r[ZP__PIN_MAX];
    uint32_t n = key_regions(k, r);
    uint64_t want = 0;
    for (uint32_t i = 0; i < n; i++)
        want += r[i].bytes;
    const bool budget =
        e->cfg.pinned_key_bytes && e->pinned_used + want <= e->cfg.pinned_key_bytes;
    if (!e->n_gpus || !want || k->gpu_setup || !(budget || streams_somewhere(e, k)))
        return;
    e->pinned_used += want;
    k->refs++;
    pthread_mutex_unlock(&e->mu);
    uint32_t done = 0;
    while (done < n && zp__gpu_host_register(r[done].p, r[done].bytes,
                                             k->pk.map_base != NULL) == ZP_OK)
        done++;
    if (done < n) {
        zp__log(ZP__LOG_WARN, "key.unpinned", "key=%s reason=%s", k->name, zp__gpu_last_error());
        while (done)
            zp__gpu_host_unregister(r[--done].p);
    }
    pthread_mutex_lock(&e->mu);
    k->refs--;
    if (done == n) {
        for (uint32_t i = 0; i < n; i++)
            k->pin_ptr[i] = r[i].p;
        k->n_pin = n;
        k->pin_bytes = want;
    } else {
        e->pinned_used -= want;
    }
}

static void unpin_key(zp_engine *e, zp__key *k)
{
    for (uint32_t i = 0; i < k->n_pin; i++)
        zp__gpu_host_unregister(k->pin_ptr[i]);
    k->n_pin = 0;
    e->pinned_used -= k->pin_bytes;
    k->pin_bytes = 0;
}

static void unload(zp_engine *e, zp__key *k)
{
    /* The devices' copies first: they may stream from the pinned arrays. */
    zp__key_drop_device(e, k);
    unpin_key(e, k);
    zp__key_drop_witnesses(k);
    memset(&k->toxic, 0, sizeof k->toxic);
    zp__pk_free(&k->pk);
    zp__r1cs_free(&k->cs);
    e->key_used -= k->bytes;
    k->bytes = 0;
    k->tier = ZP_KEY_UNLOADED;
    k->evictions++;
}

static bool loaded(const zp__key *k)
{
    return k->tier == ZP_KEY_HOST || k->tier == ZP_KEY_MAPPED;
}

enum { ROOM_OK, ROOM_WAIT, ROOM_NEVER };

/* Evicts unreferenced, not preloaded keys, least recently used first,
 * until est more bytes fit the budget. ROOM_WAIT when only keys in use (or
 * loading) stand in the way: their release makes room. */
static int make_room(zp_engine *e, const zp__key *want, uint64_t est)
{
    uint64_t budget = e->cfg.key_budget_bytes;
    if (!budget)
        return ROOM_OK;
    if (est > budget)
        return ROOM_NEVER;
    while (e->key_used + est > budget) {
        zp__key *victim = NULL;
        bool busy = false;
        for (uint32_t i = 0; i < e->n_keys; i++) {
            zp__key *k = e->keys[i];
            if (k == want)
                continue;
            if (k->tier == ZP_KEY_LOADING || (loaded(k) && k->refs))
                busy = true;
            else if (loaded(k) && !k->preloaded && (!victim || k->lru < victim->lru))
                victim = k;
        }
        if (victim)
            unload(e, victim);
        else
            return busy ? ROOM_WAIT : ROOM_NEVER;
    }
    return ROOM_OK;
}

static void touch(zp_engine *e, zp__key *k)
{
    k->lru = ++e->lru_tick;
    k->last_used = zp__eng_now(e);
}

/* Runs the load of k with e->mu released; k is LOADING meanwhile. */
static zp_err load_unlocked(zp_engine *e, zp__key *k, uint64_t est, zp__ioerr *why)
{
    k->tier = ZP_KEY_LOADING;
    k->reserved = est;
    e->key_used += est;
    pthread_mutex_unlock(&e->mu);
    zp__pk pk;
    zp__r1cs cs;
    zp__ioerr w = {{0}};
    zp_err err = load_key(e, k, &pk, &cs, e->threads_per_worker, &w);
    pthread_mutex_lock(&e->mu);
    e->key_used -= est;
    k->reserved = 0;
    k->last_err = err;
    snprintf(k->last_msg, sizeof k->last_msg, "%s", err ? w.msg : "");
    if (err) {
        k->tier = ZP_KEY_UNLOADED;
        if (why)
            *why = w;
    } else {
        k->pk = pk;
        k->cs = cs;
        k->tier = pk.map_base && pk.map_file ? ZP_KEY_MAPPED : ZP_KEY_HOST;
        k->bytes = zp__key_loaded_bytes(k);
        e->key_used += k->bytes;
        k->loads++;
        if (k->gpu_setup) {
            uint64_t rows = cs.n_constraints + cs.n_public + 1, n = 1;
            while (n < rows)
                n <<= 1;
            k->n_public = cs.n_public;
            k->n_vars = cs.n_vars;
            k->domain_size = n;
        } else {
            k->n_public = pk.n_public;
            k->n_vars = pk.n_vars;
            k->domain_size = pk.domain_size;
        }
        pin_key(e, k);
    }
    pthread_cond_broadcast(&e->key_cv);
    return err;
}

zp_err zp__key_acquire(zp_engine *e, zp__key *k, zp__ioerr *why)
{
    zp_err err = ZP_OK;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        if (e->stop) {
            err = zp__fail(why, ZP_E_SHUTDOWN, "the engine is closing");
            break;
        }
        if (loaded(k)) {
            k->refs++;
            touch(e, k);
            break;
        }
        if (k->tier == ZP_KEY_LOADING) {
            pthread_cond_wait(&e->key_cv, &e->mu);
            continue;
        }
        uint64_t est = estimate_bytes(k);
        int room = make_room(e, k, est);
        if (room == ROOM_WAIT) {
            pthread_cond_wait(&e->key_cv, &e->mu);
            continue;
        }
        if (room == ROOM_NEVER) {
            zp__ioerr own, *w = why ? why : &own;
            err = zp__fail(w, ZP_E_TOO_LARGE,
                           "key %s needs about %llu bytes; the key budget is %llu bytes "
                           "(%llu held by preloaded keys)",
                           k->name, (unsigned long long)est,
                           (unsigned long long)e->cfg.key_budget_bytes,
                           (unsigned long long)e->key_used);
            k->last_err = err;
            snprintf(k->last_msg, sizeof k->last_msg, "%s", w->msg);
            break;
        }
        if ((err = load_unlocked(e, k, est, why)))
            break;
    }
    pthread_mutex_unlock(&e->mu);
    return err;
}

void zp__key_release(zp_engine *e, zp__key *k)
{
    pthread_mutex_lock(&e->mu);
    zp__key_release_locked(e, k);
    pthread_mutex_unlock(&e->mu);
}

void zp__key_release_locked(zp_engine *e, zp__key *k)
{
    if (k->refs && --k->refs == 0) {
        touch(e, k);
        /* A key loaded over its estimate may leave the cache above budget;
         * bring it back now that something may be evictable. */
        if (e->cfg.key_budget_bytes && e->key_used > e->cfg.key_budget_bytes)
            (void)make_room(e, NULL, 0);
        pthread_cond_broadcast(&e->key_cv);
    }
}

zp_err zp_engine_preload_key(zp_engine *e, const char *name)
{
    if (!e || !name)
        return ZP_E_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    zp__key *k = zp__key_find(e, name);
    bool closing = e->closing;
    pthread_mutex_unlock(&e->mu);
    if (!k)
        return ZP_E_NOT_FOUND;
    if (closing)
        return ZP_E_SHUTDOWN;
    const double t0 = zp__mono_now();
    zp_err err = zp__key_acquire(e, k, NULL);
    if (err)
        return err;
    pthread_mutex_lock(&e->mu);
    k->preloaded = true;
    pthread_mutex_unlock(&e->mu);
    /* And resident on every GPU now, not at the first partition each GPU
     * takes (setting a porep:27 key up on a device takes tens of seconds). */
    const double t1 = zp__mono_now();
    zp__ioerr why = {{0}};
    err = zp__key_preload_devices(e, k, &why);
    /* Both times: the host part's load and the GPUs' copies made at once
     * (for a key set up on the GPUs, nearly all of it the second). */
    if (!err && e->n_gpus && e->cfg.gpu_slots)
        zp__log(ZP__LOG_INFO, "key.preloaded", "key=%s gpus=%d host_s=%.3f devices_s=%.3f",
                k->name, e->n_gpus, t1 - t0, zp__mono_now() - t1);
    /* Said by zp_engine_key_info and the daemon's key list (the load
     * itself succeeded, or we would not be here). */
    pthread_mutex_lock(&e->mu);
    k->last_err = err;
    snprintf(k->last_msg, sizeof k->last_msg, "%s", err ? why.msg : "");
    if (err) /* a key that cannot be had everywhere is not held anywhere */
        k->preloaded = false;
    pthread_mutex_unlock(&e->mu);
    zp__key_release(e, k);
    return err;
}

zp_err zp_engine_evict_key(zp_engine *e, const char *name)
{
    if (!e || !name)
        return ZP_E_INVALID_ARG;
    zp_err err = ZP_OK;
    pthread_mutex_lock(&e->mu);
    zp__key *k = zp__key_find(e, name);
    if (!k) {
        err = ZP_E_NOT_FOUND;
    } else if (k->refs || k->tier == ZP_KEY_LOADING) {
        err = ZP_E_BUSY;
    } else {
        k->preloaded = false;
        if (loaded(k))
            unload(e, k);
        pthread_cond_broadcast(&e->key_cv);
    }
    pthread_mutex_unlock(&e->mu);
    return err;
}

zp_err zp_engine_key_info(zp_engine *e, size_t index, zp_key_info *out)
{
    if (!e || !out)
        return ZP_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
    zp_err err = ZP_OK;
    if (index >= e->n_keys) {
        err = ZP_E_NOT_FOUND;
    } else {
        const zp__key *k = e->keys[index];
        snprintf(out->name, sizeof out->name, "%s", k->name);
        snprintf(out->source, sizeof out->source, "%s", k->source);
        out->tier = k->pin_bytes ? ZP_KEY_PINNED : k->tier;
        out->pinned_bytes = k->pin_bytes;
        for (int g = 0; g < ZP__GPUS_MAX; g++) {
            out->device_bytes += k->dk_bytes[g];
            out->h_table_bytes += zp__key_table_bytes(k, g);
            if (k->dk_plan[g].ring_buffer > out->ring_buffer_bytes)
                out->ring_buffer_bytes = k->dk_plan[g].ring_buffer;
            if (k->dk_state[g] == ZP__DK_READY)
                out->tier = ZP_KEY_DEVICE;
        }
        out->streamed_bytes = zp__key_streamed_bytes(k, e->n_gpus);
        out->preloaded = k->preloaded;
        out->refs = k->refs;
        out->bytes = k->bytes;
        out->n_public = k->n_public;
        out->n_vars = k->n_vars;
        out->domain_size = k->domain_size;
        out->loads = k->loads;
        out->evictions = k->evictions;
        out->last_used_s = k->last_used;
        out->last_error = k->last_err;
        snprintf(out->last_message, sizeof out->last_message, "%s", k->last_msg);
    }
    pthread_mutex_unlock(&e->mu);
    return err;
}

void zp__keys_free(zp_engine *e)
{
    for (uint32_t i = 0; i < e->n_keys; i++) {
        zp__key *k = e->keys[i];
        zp__key_drop_device(e, k);
        unpin_key(e, k);
        zp__key_drop_witnesses(k);
        zp__pk_free(&k->pk);
        zp__r1cs_free(&k->cs);
        zp__bitmap_free(&k->abc_a);
        zp__bitmap_free(&k->abc_b);
        free(k);
    }
    free(e->keys);
    e->keys = NULL;
    e->n_keys = e->cap_keys = 0;
}
