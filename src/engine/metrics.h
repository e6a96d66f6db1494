/*
 * Prometheus text exposition (format 0.0.4) helpers and the fixed-bucket
 * histogram the engine keeps per stage.
 */
#ifndef ZP_ENGINE_METRICS_H
#define ZP_ENGINE_METRICS_H

#include <stdint.h>

#include "io/io.h"

/* Upper bounds in seconds (1 ms .. 10 min); +Inf is implicit. Stages of
 * small test circuits take milliseconds, those of a 2^27 partition
 * seconds to minutes, so the buckets span both. */
#define ZP__HIST_BUCKETS 18
extern const double zp__hist_bounds[ZP__HIST_BUCKETS];

typedef struct zp__hist {
    uint64_t bucket[ZP__HIST_BUCKETS + 1]; /* per bucket, not cumulative; last +Inf */
    uint64_t count;
    double sum;
} zp__hist;

void zp__hist_observe(zp__hist *h, double v);

/* "# HELP name help" and "# TYPE name type" lines. */
void zp__prom_head(zp__sb *sb, const char *name, const char *type, const char *help);
/* A label value with \\, \" and \n escaped, inside quotes. */
void zp__prom_label(zp__sb *sb, const char *v);
/* name_bucket{labels,le="..."} (cumulative), name_sum{labels},
 * name_count{labels}. labels is "" or preformatted `k="v",...`. */
void zp__prom_hist(zp__sb *sb, const char *name, const char *labels, const zp__hist *h);

#endif
