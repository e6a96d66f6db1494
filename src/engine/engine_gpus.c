/*
 * What the engine's GPUs hold and move (zp_engine_gpu_info) and the key
 * tiers of each resident key (zp_engine_key_plan): the plan is made when
 * a key becomes resident on a GPU (gpu_worker.c) and kept beside its copy.
 */
#include <stdio.h>
#include <string.h>

#include "engine/engine_impl.h"
#include "gpu/gpu.h"

/* The public order of the arrays is the plan's. */
_Static_assert(ZP_KEY_ARRAYS == ZP_G16_NP, "zp_key_gpu_plan's arrays are zp__g16_part's");

const char *zp_key_array_name(unsigned i)
{
    return i < ZP_KEY_ARRAYS ? zp__g16_part_name((zp__g16_part)i) : "?";
}

zp_err zp_engine_gpu_info(zp_engine *e, size_t index, zp_gpu_info *out)
{
    if (!e || !out)
        return ZP_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
    zp_err err = ZP_OK;
    if (index >= (size_t)e->n_gpus) {
        err = ZP_E_NOT_FOUND;
    } else {
        const zp__gpudev *d = &e->gpus[index];
        zp__gpu_info info;
        zp__gpu_get_info(d->dev, &info);
        out->ordinal = d->ordinal;
        out->healthy = !d->failed;
        out->arena_bytes = info.arena_bytes;
        out->arena_used = info.arena_used;
        out->slots = e->cfg.gpu_slots > 0 ? (uint32_t)e->cfg.gpu_slots : 0;
        out->slots_admitted = d->admitted > 0 ? (uint32_t)d->admitted : 0;
        out->working_sets = d->sets > 0 ? (uint32_t)d->sets : 0;
        out->ring_bytes = d->ring_bytes;
        out->pinned_bytes = d->pinned;
        out->h2d_bytes = d->h2d_bytes;
        out->streamed_bytes = d->streamed_bytes;
        snprintf(out->name, sizeof out->name, "%s", info.name);
        out->cc_major = info.cc_major;
        out->cc_minor = info.cc_minor;
        out->total_bytes = info.total_mem;
    }
    pthread_mutex_unlock(&e->mu);
    /* A driver call, outside the engine's lock (the GPU list and its
     * devices stay as opened until zp_engine_close), and only on a healthy
     * GPU: on a failed one it would fail too and record its own error over
     * the failure's. */
    if (!err && out->healthy &&
        zp__gpu_outside(e->gpus[index].dev, &out->outside_free_at_open,
                        &out->outside_free) != ZP_OK)
        out->outside_free_at_open = out->outside_free = 0;
    return err;
}

/* k's plan on GPU g into out (e->mu held; k resident there). */
static void plan_of(const zp__key *k, int g, zp_key_gpu_plan *out)
{
    const zp__g16_plan *p = &k->dk_plan[g];
    out->resident = true;
    for (int i = 0; i < ZP_G16_NP; i++) {
        out->points[i] = zp__g16_part_count(&k->pk, (zp__g16_part)i);
        out->resident_points[i] = p->res[i];
    }
    out->device_bytes = k->dk_bytes[g];
    out->pinned_bytes = p->pinned_bytes;
    out->ring_buffer_bytes = p->ring_buffer;
    out->slot_bytes = p->slot_bytes;
    out->slots = p->slots;
    zp__g16_plan_describe(p, &k->pk, out->summary, sizeof out->summary);
}

zp_err zp_engine_key_plan(zp_engine *e, size_t index, int gpu, zp_key_gpu_plan *out)
{
    if (!e || !out)
        return ZP_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
    zp_err err = ZP_OK;
    if (index >= e->n_keys || gpu < 0 || gpu >= e->n_gpus)
        err = ZP_E_NOT_FOUND;
    else if (e->keys[index]->dk_state[gpu] == ZP__DK_READY)
        plan_of(e->keys[index], gpu, out);
    pthread_mutex_unlock(&e->mu);
    return err;
}
