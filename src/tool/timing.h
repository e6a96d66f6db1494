/* The clock, medians and number parsing that the benchmark drivers and the
 * CLI share. */
#ifndef ZP_TOOL_TIMING_H
#define ZP_TOOL_TIMING_H

#include <stddef.h>
#include <stdint.h>

/* Monotonic clock in seconds. */
double zp__now(void);

/* Runs op(ctx, n) with n grown until one batch takes >= 20 ms (that batch
 * is the warm-up), then times reps batches and returns the median ns per
 * operation. */
double zp__bench_median_ns(void (*op)(void *ctx, size_t n), void *ctx, int reps);

/* Sorts n doubles in place, increasing. */
void zp__sort_doubles(double *v, int n);
/* Median of n doubles (sorts v in place). */
double zp__median(double *v, int n);

/* Parses a decimal integer in [lo, hi]; returns 0 on success, -1 otherwise. */
int zp__parse_int(const char *s, long lo, long hi, int *out);

/* Parses a byte count: digits with an optional K, M, G or T suffix (either
 * case; powers of two), and before a suffix an optional fraction of it of at
 * most 6 digits ("14.5G"; rounded down to a byte). No sign, nothing after
 * the suffix, no overflow. Returns 0 on success, -1 otherwise. */
int zp__parse_size(const char *s, uint64_t *out);

#endif
