/*
 * The daemon's view of a key's long load (zp_engine_config.key_progress):
 * key.progress log events, one every PROGRESS_EVERY_S seconds at most over
 * all keys, so that a 44 GiB key's checksums or a large test key's setup
 * say how far they are without flooding the log. The load's start and end
 * are the key.ready and key.failed events' (serve.c).
 */
#include <pthread.h>

#include "base/log.h"
#include "cli/cli.h"
#include "tool/timing.h"

#define PROGRESS_EVERY_S 5.0

void zp__serve_key_progress(void *ctx, const char *key, const char *step, uint64_t done,
                            uint64_t total)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static double last; /* the last event, or the start of a step after it */
    (void)ctx;
    double t = zp__now();
    pthread_mutex_lock(&mu);
    bool due = done > 0 && done < total && t - last >= PROGRESS_EVERY_S;
    if (done == 0 && t > last + PROGRESS_EVERY_S)
        last = t; /* a step starts: its first event comes after a while */
    if (due)
        last = t;
    pthread_mutex_unlock(&mu);
    zp__log_ev ev;
    if (!due || !zp__log_begin(&ev, ZP__LOG_INFO, "key.progress"))
        return;
    zp__log_str(&ev, "key", key);
    zp__log_str(&ev, "step", step);
    zp__log_uint(&ev, "done", (unsigned long long)done);
    zp__log_uint(&ev, "total", (unsigned long long)total);
    zp__log_int(&ev, "pct", (long long)(100.0 * (double)done / (double)total));
    zp__log_end(&ev);
}
