/*
 * Internals of the supraseal-c2 drop-ins (docs/supraseal-c2.md): the
 * process-wide engine, SRS handles, and one call's circuits as an engine
 * job of a, b, c (engine/abc.h), shared by both variants' entry points
 * (upstream.c, curio.c).
 */
#ifndef ZP_SUPRASEAL_SS_H
#define ZP_SUPRASEAL_SS_H

#include <stdbool.h>
#include <stddef.h>

#include "groth16/abc.h"
#include "zkpipe.h"
#include "zkpipe_supraseal_types.h"

/* code 0, no message. */
zp_ss_result zp__ss_ok(void);
/* code e and a malloc'ed "zkpipe: <message>" (only the code when even
 * that allocation fails). */
zp_ss_result zp__ss_err(zp_err e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One call's circuits in flight. */
typedef struct zp__ss_call zp__ss_call;

/*
 * Checks the arguments, queues the circuits as one job and, when
 * wait_abc, waits until the engine has read every circuit's a, b, c (or
 * the job failed and no worker reads the caller's memory any more).
 * *out is NULL on failure.
 */
zp_ss_result zp__ss_start(zp__ss_call **out, const zp_ss_assignment *provers, size_t n,
                          const zp_ss_fr *r_s, const zp_ss_fr *s_s, const zp_ss_srs *srs,
                          bool wait_abc);
/* Waits for the job, writes the proofs (proofs may be NULL only with a
 * failure to report) and frees call. */
zp_ss_result zp__ss_finish(zp__ss_call *call, zp_ss_proof *proofs);
/* Cancels the job, waits until no worker reads the caller's memory, frees
 * call. NULL is fine. */
void zp__ss_abandon(zp__ss_call *call);

/* The process-wide engine, opened on first use: every GPU, or CPU
 * workers where there is none. */
zp_err zp__ss_engine(zp_engine **out);
/* The key cache (cache.c). entry: the .zpk path that keeps params_path
 * (its name less .params, and its size), false when the cache is off or
 * the file cannot be looked at. has: whether an entry exists. */
bool zp__ss_cache_entry(char *out, size_t cap, const char *params_path);
bool zp__ss_cache_has(const char *entry);
/* After a call of a handle whose .params is not kept yet: writes the
 * loaded key with the call's density maps (from in, read now) and no
 * matrices to entry, on a thread of its own. */
void zp__ss_cache_write(zp_engine *e, const char *key, const char *entry,
                        const zp__abc_in *in);
/* True once per record whose .params is to be kept: entry into zpk. */
bool zp__ss_srs_cache_claim(const zp_ss_srs *srs, char *zpk, size_t cap);

/* The engine key of a handle (NULL for a null handle). */
const char *zp__ss_srs_key(const zp_ss_srs *srs);

#endif
