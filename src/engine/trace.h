/*
 * Timelines of the engine: one event per stage per partition, and a GPU
 * worker's msm stage's five MSMs within it (monotonic clock, seconds since
 * the engine opened), kept in a ring of fixed size so
 * a long-running engine does not grow, and exported as Chrome trace JSON
 * (Perfetto, chrome://tracing) or as TIMELINE log lines.
 *
 * Lanes are what ran the stage: a proving worker ("cpu0", later "gpu0/1"
 * for slot 1 of GPU 0) or a thread of the CPU pool ("verify0"). Lanes are
 * registered once at engine start. Thread-safe (own mutex).
 */
#ifndef ZP_ENGINE_TRACE_H
#define ZP_ENGINE_TRACE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

typedef enum zp__stage {
    ZP__ST_ACQUIRE = 0, /* key reference and witness: read, decode, check */
    ZP__ST_EVAL,
    ZP__ST_H,
    ZP__ST_MSM,
    ZP__ST_FINISH,
    ZP__ST_VERIFY,
    ZP__ST_COUNT,
    /* The parts of a GPU worker's msm stage, traced within it (the metrics'
     * stage histograms keep the six stages above): each MSM, in the order
     * the slot runs them. */
    ZP__ST_MSM_H = ZP__ST_COUNT,
    ZP__ST_MSM_A,
    ZP__ST_MSM_B1,
    ZP__ST_MSM_B2,
    ZP__ST_MSM_L,
    ZP__ST_MSM_WAIT, /* a streaming key's wait for its chunks' points */
    ZP__ST_ALL,
} zp__stage;

/* "acquire", "eval", "h", "msm", "finish", "verify"; the msm parts
 * "msm_h", "msm_a", "msm_b1", "msm_b2", "msm_l", "msm_wait". */
const char *zp__stage_name(zp__stage s);

#define ZP__LANE_NAME 32

/* Bytes one partition moved from host to device memory: its witness and
 * the key points its slot streamed (key tiers); of those, streamed. */
typedef struct zp__trace_io {
    uint64_t h2d;
    uint64_t streamed;
} zp__trace_io;

typedef struct zp__trace_ev {
    double t0, t1;        /* seconds since the epoch of the trace */
    uint32_t part;
    uint16_t lane;
    uint8_t stage;
    bool has_io;          /* io holds the partition's bytes (one event of it) */
    zp__trace_io io;
    char job[ZP_JOB_ID_MAX + 1];
} zp__trace_ev;

typedef struct zp__trace {
    pthread_mutex_t mu;
    zp__trace_ev *ring;
    uint32_t cap, n, head; /* events ring[(head + i) % cap] for i < n */
    uint64_t dropped;      /* events pushed out of the ring */
    char (*lanes)[ZP__LANE_NAME];
    uint32_t n_lanes;
    void (*log)(void *ctx, const char *line);
    void *log_ctx;
} zp__trace;

/* cap 0 keeps nothing (log lines are still written when log is set).
 * ZP_E_NOMEM. */
zp_err zp__trace_init(zp__trace *t, uint32_t cap, uint32_t n_lanes,
                      void (*log)(void *ctx, const char *line), void *log_ctx);
void zp__trace_free(zp__trace *t);
void zp__trace_set_lane(zp__trace *t, uint32_t lane, const char *name);

/* Records one stage of one partition (t0 <= t1, seconds). */
void zp__trace_add(zp__trace *t, uint32_t lane, zp__stage stage, const char *job,
                   uint32_t part, double t0, double t1);
/* The same with the bytes the partition moved host to device, given with
 * one of its events only (a GPU slot's msm stage), so that a reader sums
 * them per partition without counting any twice. */
void zp__trace_add_io(zp__trace *t, uint32_t lane, zp__stage stage, const char *job,
                      uint32_t part, double t0, double t1, const zp__trace_io *io);
/* Writes a job-level TIMELINE line (submit, done, failed, cancelled) to the
 * log callback only; part -1 prints "-". */
void zp__trace_log(zp__trace *t, double at, const char *event, const char *job, int64_t part);

/* {"traceEvents": [...], "displayTimeUnit": "ms"}: thread_name metadata per
 * lane, then one "ph":"X" event per kept stage (ts/dur in microseconds,
 * args job and partition, and h2d_bytes and streamed_bytes where the event
 * carries the partition's bytes). Malloc'd, NUL-terminated. */
zp_err zp__trace_json(zp__trace *t, char **out, size_t *len);
/* Two lines per kept stage, "TIMELINE,<ms>,<stage>.begin,<job>,<part>" and
 * ".end", in time order. */
zp_err zp__trace_timeline(zp__trace *t, char **out, size_t *len);

#endif
