/* `zkpipe bench batch --addr`: the batch benchmark against a daemon. */
#ifndef ZP_BENCH_REMOTE_H
#define ZP_BENCH_REMOTE_H

#include "client/client_cmd.h"

typedef struct zp__remote_args {
    const char *key;       /* a synth: key of the daemon */
    const char *prefix;    /* job ids are PREFIX-i */
    int count, concurrency, partitions;
} zp__remote_args;

/* The steady state per job from n jobs' finish times (sorted in place)
 * with j in flight: from the j-th finish to the last, over the n - j jobs
 * finished in it; -1 where n <= j or a time is missing (negative). */
double zp__bench_steady_per_job(double *fin, int n, int j);

/* Runs the jobs; 0 when all of them were done, 1 otherwise. */
int zp__bench_remote(const zp__copts *c, const zp__remote_args *a);

#endif
