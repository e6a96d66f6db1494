/*
 * A witness loader: one thread that loads one partition's witness at a
 * time (zp__load_witness) while its owner does other work. A GPU slot
 * worker uses one to load its next partition's witness while the current
 * partition's MSMs run (gpu_worker.c), so that a
 * witness decoded from a file or a request body, or generated, costs the
 * slot no idle time when it takes longer than the h stage.
 */
#ifndef ZP_ENGINE_LOADER_H
#define ZP_ENGINE_LOADER_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine_impl.h"

typedef struct zp__loader zp__loader;

/* Starts the thread (idle). */
zp_err zp__loader_open(zp__loader **out);
/* Waits for a load in progress, then stops the thread. NULL is a no-op. */
void zp__loader_close(zp__loader *l);

/* Starts loading partition part of job j (pinned by the caller, its key
 * loaded and referenced) into dst (n_vars values). The loader is idle.
 * then (may be NULL) runs on the loader's thread after a load that went
 * well, with then_ctx and the witness, before the load counts as done. */
void zp__loader_start(zp__loader *l, zp_engine *e, const zp__job *j, uint32_t part,
                      zp__key *key, zp_fr *dst, uint32_t n_vars,
                      void (*then)(void *then_ctx, const zp_fr *wit), void *then_ctx);
/* Without waiting: true when the load has finished well, its witness then
 * in *wit (dst or a cached witness). */
bool zp__loader_ready(zp__loader *l, const zp_fr **wit);
/* Waits for the load started last: ZP_OK with *wit, or its error (why).
 * The loader is idle after. */
zp_err zp__loader_wait(zp__loader *l, const zp_fr **wit, zp__ioerr *why);

#endif
