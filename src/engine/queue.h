/*
 * The partition queue of the engine's scheduler: four priority classes,
 * each a list of jobs in submission order. A job stays linked while it has
 * partitions to hand out. take() picks, in the most urgent class that has
 * work, the earliest job's next partition, so partitions of an earlier job
 * all start before those of a later job of the same class (FIFO by job, no
 * round-robin). A partition whose proof failed verification comes back as a
 * retry: it goes before the job's fresh partitions and avoids the worker
 * that produced the bad proof when another worker exists.
 *
 * Pure data structure: no locks, no threads, no allocation outside
 * qjob_init. The engine calls it under its mutex.
 */
#ifndef ZP_ENGINE_QUEUE_H
#define ZP_ENGINE_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "zkpipe.h"

typedef struct zp__qjob {
    struct zp__qjob *prev, *next; /* in its class while linked */
    bool linked;
    zp_priority prio;
    uint64_t seq;                 /* submission order, set by push */
    uint32_t partitions;
    uint32_t next_part;           /* next fresh partition to hand out */
    uint32_t n_retry;             /* pending retries in retry_part[0 .. n_retry) */
    uint32_t *retry_part;         /* room for `partitions` entries */
    int32_t *retry_avoid;         /* worker to avoid per retry; -1 none */
} zp__qjob;

typedef struct zp__queue {
    zp__qjob *head[ZP_PRIO_COUNT], *tail[ZP_PRIO_COUNT];
    uint32_t jobs[ZP_PRIO_COUNT];  /* linked jobs per class */
    uint32_t parts[ZP_PRIO_COUNT]; /* partitions waiting per class */
    uint64_t next_seq;
} zp__queue;

void zp__queue_init(zp__queue *q);

/* Prepares j for a job of `partitions` partitions (allocates the retry
 * arrays: ZP_E_NOMEM). */
zp_err zp__qjob_init(zp__qjob *j, zp_priority prio, uint32_t partitions);
void zp__qjob_free(zp__qjob *j);

/* Appends a new job with all its partitions waiting. */
void zp__queue_push(zp__queue *q, zp__qjob *j);

/*
 * Takes the next partition for worker `worker` (of n_workers proving
 * workers). Returns false when nothing is waiting that this worker may
 * take. *retry tells whether it is a retried partition.
 */
bool zp__queue_take(zp__queue *q, int worker, int n_workers, zp__qjob **job, uint32_t *part,
                    bool *retry);

/* Puts partition `part` of j back (its proof was rejected), to run before
 * the job's fresh partitions and, when n_workers > 1, not on `avoid`. j
 * keeps its place among the jobs of its class (by seq). */
void zp__queue_retry(zp__queue *q, zp__qjob *j, uint32_t part, int avoid);

/* Drops every waiting partition of j and unlinks it; returns how many were
 * dropped. */
uint32_t zp__queue_remove(zp__queue *q, zp__qjob *j);

/* Partitions of j still waiting. */
uint32_t zp__qjob_waiting(const zp__qjob *j);

/* Partitions waiting in all classes (retries included); in the classes
 * more urgent than prio. */
uint32_t zp__queue_waiting(const zp__queue *q);
uint32_t zp__queue_waiting_above(const zp__queue *q, zp_priority prio);

#endif
