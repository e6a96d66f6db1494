/*
 * Jobs of evaluated a, b, c (groth16/abc.h) in the engine: what the
 * supraseal-c2 drop-in (src/supraseal/) submits for the circuits of one
 * call. Each partition carries its circuit's a, b, c, assignments, density
 * bitmaps and blinding r, s as pointers into the caller's memory; the
 * engine copies only this descriptor.
 *
 * Lifetimes: a, b and c are read while the partition's eval stage copies
 * them into the worker's scratch; then consumed(ctx, part) is called (also
 * when the partition fails before that; once per partition a worker took,
 * from an engine thread), and they are not read again. Partitions that no
 * worker takes (their job failed or was cancelled first) are never read
 * and get no call: a caller waiting for the calls watches the job too. The
 * assignments and bitmaps are read until the partition is proved, so they
 * must live until the job finishes. A proof that does not verify fails the
 * job (ZP_E_VERIFY_FAILED) without the retry other jobs get: with fixed
 * r, s the retry would make the same proof, and a, b, c may be gone.
 *
 * Keys: any loaded key with host points, typically a bellperson .params
 * (ZP__KEY_PARAMS). GPU slots prove these partitions on the GPU; one whose
 * density maps differ from the key's first ones, or that finds no room on
 * a GPU where no slot holds a working set, with the CPU stages on the
 * slot's thread (docs/supraseal-c2.md).
 */
#ifndef ZP_ENGINE_ABC_H
#define ZP_ENGINE_ABC_H

#include <stdint.h>

#include "groth16/abc.h"
#include "zkpipe.h"

typedef struct zp__abc_part {
    zp__abc_in in;
    zp_fr r, s; /* blinding, Montgomery form */
    void (*consumed)(void *ctx, uint32_t part);
    void *ctx;
} zp__abc_part;

/* Queues one job of n partitions, parts[i] for partition i (copied; the
 * arrays they point at are borrowed as above). id_out as zp_engine_submit;
 * its errors, ZP_E_INVALID_ARG for n of 0 or above max_partitions. */
zp_err zp__engine_submit_abc(zp_engine *e, const char *key, const zp__abc_part *parts,
                             uint32_t n, char id_out[ZP_JOB_ID_MAX + 1]);

#endif
