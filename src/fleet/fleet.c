/* Opening and closing the fleet (fleet.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "fleet/fleet_impl.h"

/* The proving workers of the engine that can take work: its slots. */
static int count_slots(zp_engine *eng)
{
    int n = 0;
    zp_worker_info wi;
    for (size_t i = 0; zp_engine_worker_info(eng, i, &wi) == ZP_OK; i++)
        if (strncmp(wi.name, "verify", 6) && wi.healthy && !wi.dormant)
            n++;
    return n;
}

static void fleet_free(zp__fleet *f)
{
    for (int i = 0; i < f->n_pool; i++)
        PQfinish(f->pool[i]);
    if (f->wake[0] >= 0)
        close(f->wake[0]);
    if (f->wake[1] >= 0)
        close(f->wake[1]);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cv);
    pthread_cond_destroy(&f->done_cv);
    free(f->url);
    free(f->spool);
    free(f->address);
    free(f);
}

zp_err zp__fleet_open(zp__fleet **out, const zp__fleet_config *cfg, zp_engine *eng, char *why,
                      size_t why_len)
{
    *out = NULL;
    if (!cfg->url || !*cfg->url || cfg->heartbeat_s <= 0 || cfg->claim_timeout_s <= cfg->heartbeat_s ||
        cfg->poll_s <= 0 || cfg->max_attempts < 1 || cfg->backoff_s < 0) {
        snprintf(why, why_len, "bad queue settings: a URL, heartbeat > 0, claim timeout > heartbeat, "
                 "poll > 0, attempts >= 1 and back-off >= 0 are needed");
        return ZP_E_INVALID_ARG;
    }
    zp__fleet *f = calloc(1, sizeof *f);
    if (!f)
        return ZP_E_NOMEM;
    f->cfg = *cfg;
    f->wake[0] = f->wake[1] = -1;
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&f->done_cv, &ca);
    pthread_condattr_destroy(&ca);
    f->url = strdup(cfg->url);
    f->spool = cfg->spool ? strdup(cfg->spool) : NULL;
    f->address = strdup(cfg->address ? cfg->address : "");
    f->eng = eng;
    if (!f->url || !f->address || (cfg->spool && !f->spool) || pipe(f->wake) != 0) {
        fleet_free(f);
        return ZP_E_NOMEM;
    }
    f->cfg.url = f->url;
    f->cfg.spool = f->spool;
    f->cfg.address = f->address;
    if (gethostname(f->host, sizeof f->host - 1) != 0)
        snprintf(f->host, sizeof f->host, "unknown");
    /* The keys this machine serves: claims are only for them. */
    zp_key_info ki;
    size_t at = 0;
    f->keys_array[at++] = '{';
    for (size_t k = 0; zp_engine_key_info(eng, k, &ki) == ZP_OK && f->n_keys < ZP__FLEET_MAX_KEYS; k++) {
        snprintf(f->keys[f->n_keys++], sizeof f->keys[0], "%s", ki.name);
        at += (size_t)snprintf(f->keys_array + at, sizeof f->keys_array - at, "%s\"%s\"", at > 1 ? "," : "",
                               ki.name);
    }
    snprintf(f->keys_array + at, sizeof f->keys_array - at, "}");
    f->slots = count_slots(eng);
    if (f->cfg.ahead == ZP__FLEET_AHEAD_AUTO)
        f->cfg.ahead = 2 * (uint32_t)f->slots;
    zp_gpu_info gi;
    while (zp_engine_gpu_info(eng, (size_t)f->gpus, &gi) == ZP_OK)
        f->gpus++;
    if (f->slots < 1) {
        snprintf(why, why_len, "the engine has no proving worker to claim partitions for");
        fleet_free(f);
        return ZP_E_INVALID_ARG;
    }

    PGconn *c = zp__fdb_connect(f->url, why, why_len);
    if (!c) {
        fleet_free(f);
        return ZP_E_IO;
    }
    zp_err e = zp__fdb_migrate(c, why, why_len);
    PQfinish(c);
    if (e == ZP_OK)
        e = zp__fleet_agent_start(f, why, why_len);
    if (e != ZP_OK) {
        zp__fleet_agent_stop(f, 0);
        fleet_free(f);
        return e;
    }
    zp__log(ZP__LOG_INFO, "fleet.join", "machine=%lld host=%s slots=%d ahead=%u keys=%s schema=%d",
            f->machine, f->host, f->slots, f->cfg.ahead, f->keys_array, ZP__FLEET_SCHEMA);
    *out = f;
    return ZP_OK;
}

void zp__fleet_close(zp__fleet *f, double grace_s)
{
    if (!f)
        return;
    zp__fleet_agent_stop(f, grace_s);
    zp__log(ZP__LOG_INFO, "fleet.leave", "machine=%lld", f->machine);
    fleet_free(f);
}
