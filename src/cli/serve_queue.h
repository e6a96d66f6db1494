/* The options of `zkpipe serve` for the fleet's shared queue
 * (serve_queue.c, docs/fleet.md). */
#ifndef ZP_CLI_SERVE_QUEUE_H
#define ZP_CLI_SERVE_QUEUE_H

#include <stdio.h>

#include "fleet/fleet.h"

#define ZP__SERVE_QUEUE_HELP                                                                     \
    "\n"                                                                                         \
    "A fleet of daemons sharing one durable queue in PostgreSQL (docs/fleet.md):\n"              \
    "  --queue URL          keep jobs in the database at URL (postgresql://... or a libpq\n"   \
    "                       connection string): every daemon given the same URL claims\n"       \
    "                       partitions of any job, and answers for any job. Without it\n"       \
    "                       the queue is in this process: a crash loses unfinished jobs\n"      \
    "  --queue-heartbeat S  how often this daemon heartbeats (default 1)\n"                     \
    "  --queue-timeout S    a daemon silent this long loses its claims (default 30)\n"          \
    "  --queue-poll S       the safety-net poll when no NOTIFY comes (default 2)\n"             \
    "  --queue-attempts N   attempts of a partition before its job fails (default 3)\n"         \
    "  --queue-backoff S    a failed partition waits S * 2^(attempt-1) (default 1)\n"           \
    "  --queue-ahead N      claim N partitions beyond the free workers, queued locally\n"      \
    "                       so that a worker never waits for a claim (default auto:\n"        \
    "                       two per proving worker; 0: only what the workers start)\n"        \
    "  --queue-inline BYTES uploaded witnesses up to this size go into the database\n"          \
    "                       (default 64M); larger ones go to --queue-spool\n"                   \
    "  --queue-spool DIR    a folder every daemon of the fleet reads at the same path\n"

/* 0: taken; 1: not a queue option; -1: a bad value (*msg says what the
 * option wants). */
int zp__serve_queue_opt(zp__fleet_config *q, const char *a, const char *v, const char **msg);
/* The queue settings as config-file lines (a URL's password redacted);
 * none without a queue URL. */
void zp__serve_queue_print(FILE *f, const zp__fleet_config *q);

#endif
