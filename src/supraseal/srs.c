/*
 * The process-wide engine and the SRS calls (create_SRS, evict_SRS,
 * drop_SRS, clone_SRS: zkpipe_supraseal_types.h) of both supraseal-c2
 * drop-ins (ss.h, docs/supraseal-c2.md).
 *
 * The engine opens on first use, with every GPU (zp_engine_config.gpus =
 * -1) or, where there is none, CPU workers. An SRS is an engine key whose
 * source is the .params path; a handle points at a reference-counted
 * record naming that key. Cached handles of one path share one record
 * (the cache holds a reference of its own until evict_SRS); an uncached
 * create registers a key of its own. Engine keys are never removed, only
 * unloaded, so every record keeps its name valid.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/codec.h"
#include "engine/engine_impl.h"
#include "supraseal/ss.h"

zp_ss_result zp__ss_ok(void)
{
    zp_ss_result r = {0, NULL};
    return r;
}

zp_ss_result zp__ss_err(zp_err e, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    zp_ss_result r = {e ? (int)e : (int)ZP_E_INVALID_ARG, NULL};
    size_t n = strlen(msg) + sizeof "zkpipe: ";
    r.message = malloc(n);
    if (r.message)
        snprintf(r.message, n, "zkpipe: %s", msg);
    return r;
}

/* ------------------------------------------------------------ the engine */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static zp_engine *g_engine;
static uint64_t g_gpu_mem; /* zkpipe_supraseal_gpu_mem's arena, 0: the default */

typedef struct srs_rec {
    char key[ZP_NAME_MAX + 1];
    char path[256];
    uint32_t refs;               /* handles, and the cache's (g_mu) */
    bool cached;                 /* in the cache list (g_mu) */
    /* A .params loaded with the key cache on: where its .zpk goes, and
     * whether that was started (g_mu). */
    char zpk[320];
    bool zpk_started;
    struct srs_rec *next;        /* the cache list */
} srs_rec;

static srs_rec *g_cache;
static uint64_t g_keys;

/* The engine, opened on first use (g_mu held). */
static zp_err engine_locked(zp_engine **out)
{
    if (!g_engine) {
        zp_engine_config c;
        zp_engine_config_default(&c);
        c.gpus = -1;
        c.gpu_mem_bytes = g_gpu_mem;
        c.cpu_workers = 0;
        c.max_partitions = 4096;
        c.max_queued_partitions = 1u << 16;
        c.verify_threads = 2;
        zp_err e = zp_engine_open(&g_engine, &c);
        zp_gpu_info gi;
        /* No GPU: CPU workers; but an arena asked for and refused fails. */
        const bool capped = g_gpu_mem && zp__gpu_count() > 0;
        if ((e && !capped) || (!e && zp_engine_gpu_info(g_engine, 0, &gi) != ZP_OK)) {
            zp_engine_close(e ? NULL : g_engine);
            c.gpus = 0;
            c.cpu_workers = 2;
            e = zp_engine_open(&g_engine, &c);
        }
        if (e) {
            g_engine = NULL;
            return e;
        }
    }
    *out = g_engine;
    return ZP_OK;
}

int zkpipe_supraseal_gpu_mem(uint64_t bytes)
{
    pthread_mutex_lock(&g_mu);
    const int r = g_engine ? -1 : 0;
    if (!r)
        g_gpu_mem = bytes;
    pthread_mutex_unlock(&g_mu);
    return r;
}

zp_err zp__ss_engine(zp_engine **out)
{
    pthread_mutex_lock(&g_mu);
    zp_err e = engine_locked(out);
    pthread_mutex_unlock(&g_mu);
    return e;
}

/* -------------------------------------------------------------- the SRS */

/* Loads the key now (host memory, every point checked) so that a bad file
 * fails here; it stays loaded until evicted. */
static zp_err load_now(zp_engine *e, const char *key, char *msg, size_t cap)
{
    pthread_mutex_lock(&e->mu);
    zp__key *k = zp__key_find(e, key);
    pthread_mutex_unlock(&e->mu);
    if (!k)
        return ZP_E_NOT_FOUND;
    zp__ioerr why = {{0}};
    zp_err err = zp__key_acquire(e, k, &why);
    if (err) {
        snprintf(msg, cap, "%s", why.msg[0] ? why.msg : zp_strerror(err));
        return err;
    }
    zp__key_release(e, k);
    return ZP_OK;
}

zp_ss_result create_SRS(zp_ss_srs *ret, const char *path, bool cache)
{
    if (!ret)
        return zp__ss_err(ZP_E_INVALID_ARG, "create_SRS: the SRS pointer is NULL");
    ret->ptr = NULL;
    if (!path || !path[0])
        return zp__ss_err(ZP_E_INVALID_ARG, "create_SRS: no .params path");
    if (strlen(path) >= sizeof ((srs_rec *)0)->path)
        return zp__ss_err(ZP_E_INVALID_ARG, "create_SRS: the path is longer than %zu bytes",
                          sizeof ((srs_rec *)0)->path - 1);
    /* A .zpk (zkpipe's own key file: a key made by zkpipe setup or kept
     * from a .params with its circuit's maps) is taken too. */
    if (!zp__ends_with(path, ".params") && !zp__ends_with(path, ".zpk"))
        return zp__ss_err(ZP_E_INVALID_ARG,
                          "create_SRS: %s: the file name must end in .params (or .zpk)", path);
    /* Under g_mu throughout: a second create of a path that is loading
     * waits for it and shares it (creates happen at start-up; proving
     * does not take g_mu). */
    zp_engine *e;
    pthread_mutex_lock(&g_mu);
    zp_err err = engine_locked(&e);
    if (err) {
        pthread_mutex_unlock(&g_mu);
        return zp__ss_err(err, "the engine cannot open: %s", zp_strerror(err));
    }
    srs_rec *r = NULL;
    for (srs_rec *c = cache ? g_cache : NULL; c && !r; c = c->next)
        if (!strcmp(c->path, path))
            r = c;
    if (r) {
        r->refs++;
        pthread_mutex_unlock(&g_mu);
        ret->ptr = r;
        return zp__ss_ok();
    }
    if (!(r = calloc(1, sizeof *r))) {
        pthread_mutex_unlock(&g_mu);
        return zp__ss_err(ZP_E_NOMEM, "create_SRS: no memory");
    }
    snprintf(r->key, sizeof r->key, "srs-%llu", (unsigned long long)++g_keys);
    snprintf(r->path, sizeof r->path, "%s", path);
    char msg[300] = "";
    /* A .params kept in the key cache loads from there; one that is not
     * yet, or whose entry fails to load, from the file. */
    const char *source = path;
    if (!zp__ss_cache_entry(r->zpk, sizeof r->zpk, path))
        r->zpk[0] = 0;
    else if (zp__ss_cache_has(r->zpk)) {
        char k2[ZP_NAME_MAX + 1];
        snprintf(k2, sizeof k2, "srs-%llu", (unsigned long long)++g_keys);
        if (!zp_engine_add_key(e, k2, r->zpk) && !load_now(e, k2, msg, sizeof msg)) {
            snprintf(r->key, sizeof r->key, "%s", k2);
            source = NULL;
            r->zpk[0] = 0; /* kept already */
        }
        msg[0] = 0; /* a bad entry is written again after the next call */
    }
    if (source) {
        err = zp_engine_add_key(e, r->key, path);
        if (!err)
            err = load_now(e, r->key, msg, sizeof msg);
    }
    if (err) {
        pthread_mutex_unlock(&g_mu);
        free(r);
        return zp__ss_err(err, "create_SRS: %s: %s", path, msg[0] ? msg : zp_strerror(err));
    }
    r->refs = 1;
    if (cache) {
        r->cached = true;
        r->refs++; /* the cache's */
        r->next = g_cache;
        g_cache = r;
    }
    pthread_mutex_unlock(&g_mu);
    ret->ptr = r;
    return zp__ss_ok();
}

/* Drops one reference (g_mu held); the last unloads the key. */
static void unref_locked(srs_rec *r)
{
    if (--r->refs)
        return;
    zp_engine_evict_key(g_engine, r->key);
    free(r);
}

void evict_SRS(const zp_ss_srs *srs)
{
    if (!srs || !srs->ptr)
        return;
    srs_rec *r = (srs_rec *)srs->ptr;
    pthread_mutex_lock(&g_mu);
    if (r->cached) {
        for (srs_rec **p = &g_cache; *p; p = &(*p)->next)
            if (*p == r) {
                *p = r->next;
                break;
            }
        r->cached = false;
        if (r->refs == 1) { /* only the cache's: unloaded and freed */
            unref_locked(r);
            pthread_mutex_unlock(&g_mu);
            return;
        }
        r->refs--;
    }
    /* Unloaded now where no call uses it; loaded again on use. */
    zp_engine_evict_key(g_engine, r->key);
    pthread_mutex_unlock(&g_mu);
}

void drop_SRS(const zp_ss_srs *srs)
{
    if (!srs || !srs->ptr)
        return;
    pthread_mutex_lock(&g_mu);
    unref_locked((srs_rec *)srs->ptr);
    pthread_mutex_unlock(&g_mu);
}

zp_ss_srs clone_SRS(const zp_ss_srs *srs)
{
    zp_ss_srs out = {NULL};
    if (!srs || !srs->ptr)
        return out;
    pthread_mutex_lock(&g_mu);
    ((srs_rec *)srs->ptr)->refs++;
    pthread_mutex_unlock(&g_mu);
    out.ptr = srs->ptr;
    return out;
}

bool zp__ss_srs_cache_claim(const zp_ss_srs *srs, char *zpk, size_t cap)
{
    srs_rec *r = srs && srs->ptr ? (srs_rec *)srs->ptr : NULL;
    pthread_mutex_lock(&g_mu);
    bool claim = r && r->zpk[0] && !r->zpk_started && strlen(r->zpk) < cap;
    if (claim) {
        r->zpk_started = true;
        snprintf(zpk, cap, "%s", r->zpk);
    }
    pthread_mutex_unlock(&g_mu);
    return claim;
}

const char *zp__ss_srs_key(const zp_ss_srs *srs)
{
    return srs && srs->ptr ? ((const srs_rec *)srs->ptr)->key : NULL;
}
