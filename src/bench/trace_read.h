/*
 * Reading an engine trace (Chrome trace JSON, as zp_engine_trace_json
 * writes it) back for analysis: busy fraction per lane, per-stage medians,
 * and a Gantt chart in SVG. Used by `zkpipe trace svg` and by
 * `zkpipe bench batch`; the input is untrusted (any JSON file).
 */
#ifndef ZP_BENCH_TRACE_READ_H
#define ZP_BENCH_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/io.h"

#define ZP__TR_MAX_STAGES 32
#define ZP__TR_NAME 32

typedef struct zp__tr_event {
    uint32_t lane;      /* index into lanes */
    uint32_t stage;     /* index into stages */
    double t0, t1;      /* seconds */
    uint32_t part;
    char job[65];
    /* args h2d_bytes and streamed_bytes, on the one event of a partition
     * that carries what it moved host to device (none in older traces) */
    bool has_io;
    uint64_t h2d, streamed;
} zp__tr_event;

typedef struct zp__tr_lane {
    int64_t tid;
    char name[ZP__TR_NAME];
} zp__tr_lane;

typedef struct zp__tr {
    zp__tr_event *ev;
    size_t n;
    zp__tr_lane *lanes;
    size_t n_lanes;
    char stages[ZP__TR_MAX_STAGES][ZP__TR_NAME];
    size_t n_stages;
    double t0, t1;      /* span of all events */
} zp__tr;

/* Parses the complete ("ph":"X") events and thread names of a trace.
 * ZP_E_FORMAT when it is not a trace (with why), ZP_E_NOMEM. */
zp_err zp__tr_load(zp__tr *out, const char *text, size_t len, zp__ioerr *why);
void zp__tr_free(zp__tr *t);
/* Keeps what happened from `from` on (seconds, the trace's clock): events
 * that ended before it are dropped, those that straddle it are cut, and
 * t->t0 becomes from, so busy fractions cover a measured window only (not
 * a warm-up before it). */
void zp__tr_clip(zp__tr *t, double from);
/* Fraction of [t->t0, t->t1] during which lane had at least one event. */
double zp__tr_busy(const zp__tr *t, size_t lane);
/* Fraction of [t->t0, t->t1] covered by the union of the events of every
 * lane whose name starts with prefix ("gpu0/": the slots of GPU 0) whose
 * stage is in the NULL-terminated list (NULL: any stage). With the device
 * stages ("eval", "h", "msm") it is the GPU's busy fraction. */
double zp__tr_busy_group(const zp__tr *t, const char *prefix, const char *const *stages);
/* Median duration in seconds of the events of a stage; -1 when none. */
double zp__tr_stage_median(const zp__tr *t, const char *stage);
/* Steady-state throughput: each partition (job and index) completes when
 * its last event ends. Over the sorted completions from..to (0-based; the
 * first and last `trim` fraction of them left out, so that the pipeline's
 * fill and drain do not count), per_part is the mean of the last w
 * completions minus the mean of the first, over their rank distance: the
 * seconds between completions, exact for slots that finish in a pattern
 * repeating every k completions, k dividing w. w is ZP__STEADY_AVG (k = 1,
 * 2, 3, 4, 6, 12) where from..to holds twice as many, else 6, 4 or 2 (one
 * job of 10 partitions: completions 2..9, w = 4). The partitions of job
 * `skip` (NULL: none; bench batch's "warm-up") are left out. per_part < 0
 * when from..to holds fewer than 4 completions. ZP_E_NOMEM, else ZP_OK. */
#define ZP__STEADY_TRIM 0.1 /* what bench batch and trace svg leave out at each end */
#define ZP__STEADY_AVG 12
typedef struct zp__tr_steady {
    size_t parts, from, to;
    double per_part;
} zp__tr_steady;
zp_err zp__tr_steady_rate(const zp__tr *t, double trim, const char *skip, zp__tr_steady *out);
/* Bytes moved host to device per partition (the events' h2d_bytes and
 * streamed_bytes, summed per partition): the means over the partitions
 * that carry them, among those left once the partitions of job `skip`
 * and the first and last `trim` fraction of the completions are left out
 * (as zp__tr_steady_rate). parts 0 when none carries them (CPU workers,
 * older traces). ZP_E_NOMEM, else ZP_OK. */
typedef struct zp__tr_io {
    size_t parts;
    double h2d, streamed;
} zp__tr_io;
zp_err zp__tr_io_steady(const zp__tr *t, double trim, const char *skip, zp__tr_io *out);
/* The Gantt chart: one row per lane, a bar per event coloured by stage,
 * a time axis, and each lane's busy fraction. */
zp_err zp__tr_svg(const zp__tr *t, char **out, size_t *len);

#endif
