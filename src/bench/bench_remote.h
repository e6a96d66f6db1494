/* `zkpipe bench batch --addr`: the batch benchmark against a daemon. */
#ifndef ZP_BENCH_REMOTE_H
#define ZP_BENCH_REMOTE_H

#include "client/client_cmd.h"

typedef struct zp__remote_args {
    const char *key;       /* a synth: key of the daemon */
    const char *prefix;    /* job ids are PREFIX-i */
    int count, concurrency, partitions;
} zp__remote_args;

/* Runs the jobs; 0 when all of them were done, 1 otherwise. */
int zp__bench_remote(const zp__copts *c, const zp__remote_args *a);

#endif
