/* The scheduler's partition queue (queue.h). */
#include <stdlib.h>
#include <string.h>

#include "engine/queue.h"

void zp__queue_init(zp__queue *q)
{
    memset(q, 0, sizeof *q);
}

zp_err zp__qjob_init(zp__qjob *j, zp_priority prio, uint32_t partitions)
{
    memset(j, 0, sizeof *j);
    if ((unsigned)prio >= ZP_PRIO_COUNT || partitions == 0)
        return ZP_E_INVALID_ARG;
    j->prio = prio;
    j->partitions = partitions;
    j->next_part = partitions; /* nothing waits until push */
    j->retry_part = malloc(partitions * sizeof *j->retry_part);
    j->retry_avoid = malloc(partitions * sizeof *j->retry_avoid);
    if (!j->retry_part || !j->retry_avoid) {
        zp__qjob_free(j);
        return ZP_E_NOMEM;
    }
    return ZP_OK;
}

void zp__qjob_free(zp__qjob *j)
{
    free(j->retry_part);
    free(j->retry_avoid);
    j->retry_part = NULL;
    j->retry_avoid = NULL;
}

uint32_t zp__qjob_waiting(const zp__qjob *j)
{
    return j->n_retry + (j->partitions - j->next_part);
}

static void unlink_job(zp__queue *q, zp__qjob *j)
{
    unsigned p = (unsigned)j->prio;
    if (j->prev)
        j->prev->next = j->next;
    else
        q->head[p] = j->next;
    if (j->next)
        j->next->prev = j->prev;
    else
        q->tail[p] = j->prev;
    j->prev = j->next = NULL;
    j->linked = false;
    q->jobs[p]--;
}

/* Links j into its class at its place by seq: at the tail for a new job,
 * further up for a job that comes back with a retry. */
static void link_job(zp__queue *q, zp__qjob *j)
{
    unsigned p = (unsigned)j->prio;
    zp__qjob *after = q->tail[p];
    while (after && after->seq > j->seq)
        after = after->prev;
    j->prev = after;
    j->next = after ? after->next : q->head[p];
    if (j->next)
        j->next->prev = j;
    else
        q->tail[p] = j;
    if (after)
        after->next = j;
    else
        q->head[p] = j;
    j->linked = true;
    q->jobs[p]++;
}

void zp__queue_push(zp__queue *q, zp__qjob *j)
{
    j->seq = q->next_seq++;
    j->next_part = 0;
    j->n_retry = 0;
    link_job(q, j);
    q->parts[j->prio] += j->partitions;
}

/* Index of the first retry of j that worker may run, or -1. */
static int pick_retry(const zp__qjob *j, int worker, int n_workers)
{
    for (uint32_t i = 0; i < j->n_retry; i++)
        if (n_workers <= 1 || j->retry_avoid[i] != worker)
            return (int)i;
    return -1;
}

bool zp__queue_take(zp__queue *q, int worker, int n_workers, zp__qjob **job, uint32_t *part,
                    bool *retry)
{
    for (unsigned p = 0; p < ZP_PRIO_COUNT; p++) {
        for (zp__qjob *j = q->head[p]; j; j = j->next) {
            int r = pick_retry(j, worker, n_workers);
            if (r >= 0) {
                *part = j->retry_part[r];
                *retry = true;
                /* Keep the retries in the order they came back. */
                memmove(&j->retry_part[r], &j->retry_part[r + 1],
                        (j->n_retry - (uint32_t)r - 1) * sizeof *j->retry_part);
                memmove(&j->retry_avoid[r], &j->retry_avoid[r + 1],
                        (j->n_retry - (uint32_t)r - 1) * sizeof *j->retry_avoid);
                j->n_retry--;
            } else if (j->next_part < j->partitions) {
                *part = j->next_part++;
                *retry = false;
            } else {
                continue; /* only retries this worker must not run */
            }
            *job = j;
            q->parts[p]--;
            if (zp__qjob_waiting(j) == 0)
                unlink_job(q, j);
            return true;
        }
    }
    return false;
}

void zp__queue_retry(zp__queue *q, zp__qjob *j, uint32_t part, int avoid)
{
    /* At most `partitions` retries can be pending: each one is a
     * partition that is not waiting otherwise. */
    if (j->n_retry >= j->partitions)
        return;
    j->retry_part[j->n_retry] = part;
    j->retry_avoid[j->n_retry] = avoid;
    j->n_retry++;
    q->parts[j->prio]++;
    if (!j->linked)
        link_job(q, j);
}

uint32_t zp__queue_waiting_above(const zp__queue *q, zp_priority prio)
{
    uint32_t n = 0;
    for (unsigned p = 0; p < (unsigned)prio && p < ZP_PRIO_COUNT; p++)
        n += q->parts[p];
    return n;
}

uint32_t zp__queue_waiting(const zp__queue *q)
{
    return zp__queue_waiting_above(q, (zp_priority)ZP_PRIO_COUNT);
}

uint32_t zp__queue_remove(zp__queue *q, zp__qjob *j)
{
    uint32_t dropped = zp__qjob_waiting(j);
    if (j->linked)
        unlink_job(q, j);
    q->parts[j->prio] -= dropped;
    j->n_retry = 0;
    j->next_part = j->partitions;
    return dropped;
}
