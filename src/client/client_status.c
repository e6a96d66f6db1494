/* zkpipe status: the daemon's state as a readable summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_cmd.h"

static long long jint(const zp__jval *o, const char *k)
{
    const zp__jval *v = zp__json_get(o, k);
    return v && v->type == ZP__J_NUMBER ? (long long)strtod(v->str, NULL) : -1;
}

static double jdbl(const zp__jval *o, const char *k)
{
    const zp__jval *v = zp__json_get(o, k);
    return v && v->type == ZP__J_NUMBER ? strtod(v->str, NULL) : 0;
}

static void print_status(const zp__jval *s)
{
    const zp__jval *qj = zp__json_get(s, "queued_jobs"), *qp = zp__json_get(s, "queued_partitions");
    printf("daemon    %s, up %.1f s\n", zp__jstr(zp__json_get(s, "server"), "address") ?
           zp__jstr(zp__json_get(s, "server"), "address") : "?", jdbl(s, "uptime_s"));
    printf("queued    jobs: critical %lld, high %lld, normal %lld, low %lld (partitions %lld/%lld/%lld/%lld)\n",
           jint(qj, "critical"), jint(qj, "high"), jint(qj, "normal"), jint(qj, "low"),
           jint(qp, "critical"), jint(qp, "high"), jint(qp, "normal"), jint(qp, "low"));
    printf("running   %lld job(s), %lld partition(s)\n", jint(s, "running_jobs"), jint(s, "running_partitions"));
    printf("jobs      submitted %lld, done %lld, failed %lld, cancelled %lld; proofs verified %lld, rejected %lld\n",
           jint(s, "jobs_submitted"), jint(s, "jobs_done"), jint(s, "jobs_failed"), jint(s, "jobs_cancelled"),
           jint(s, "proofs_verified"), jint(s, "proofs_rejected"));
    printf("workers   %lld (%lld busy)\n", jint(s, "workers"), jint(s, "workers_busy"));
    const zp__jval *wl = zp__json_get(s, "worker_list");
    for (size_t i = 0; wl && wl->type == ZP__J_ARRAY && i < wl->n; i++) {
        const zp__jval *w = &wl->items[i];
        const zp__jval *busy = zp__json_get(w, "busy"), *healthy = zp__json_get(w, "healthy");
        const zp__jval *dormant = zp__json_get(w, "dormant");
        bool b = busy && busy->type == ZP__J_TRUE, h = !healthy || healthy->type == ZP__J_TRUE;
        bool d = dormant && dormant->type == ZP__J_TRUE;
        printf("  %-10s %s%s%s, %lld partition(s) done, busy %.1f s",
               zp__jstr(w, "name") ? zp__jstr(w, "name") : "?", b ? "busy" : "idle",
               h ? "" : " UNHEALTHY", d ? " dormant (no room on its GPU)" : "",
               jint(w, "partitions_done"), jdbl(w, "busy_s"));
        if (b)
            printf(" (job %s partition %lld)", zp__jstr(w, "job") ? zp__jstr(w, "job") : "?", jint(w, "partition"));
        printf("\n");
    }
}

static double gib(const zp__jval *o, const char *k)
{
    return jdbl(o, k) / 1073741824.0;
}

/* Each GPU: its arena, slots, staging rings, what its partitions moved
 * host to device, and the memory free outside its arena. */
static void print_gpus(const zp__jval *s)
{
    const zp__jval *arr = zp__json_get(s, "gpus");
    if (!arr || arr->type != ZP__J_ARRAY || !arr->n)
        return;
    printf("gpus      %zu\n", arr->n);
    for (size_t i = 0; i < arr->n; i++) {
        const zp__jval *g = &arr->items[i];
        const zp__jval *healthy = zp__json_get(g, "healthy");
        printf("  gpu%-7lld arena %.1f GiB (%.1f used); %lld slot(s), %lld admitted, %lld with a "
               "working set; staging rings %.2f GiB; host to device %.1f GiB (%.1f streamed)%s\n",
               jint(g, "gpu"), gib(g, "arena_bytes"), gib(g, "arena_used"), jint(g, "slots"),
               jint(g, "slots_admitted"), jint(g, "working_sets"), gib(g, "ring_bytes"),
               gib(g, "h2d_bytes"), gib(g, "streamed_bytes"),
               healthy && healthy->type == ZP__J_FALSE ? " UNHEALTHY" : "");
        /* What the driver and other processes left free beside the arena
         * (0 or absent where the daemon cannot say). */
        if (jdbl(g, "outside_free_at_open") > 0)
            printf("            outside the arena %.0f MiB free (%.0f when it was taken)\n",
                   jdbl(g, "outside_free") / 1048576.0,
                   jdbl(g, "outside_free_at_open") / 1048576.0);
    }
}

/* The fleet of a daemon on a shared queue: queue depth by priority,
 * claims in flight, and each machine with its GPUs, slots and claims. */
static void print_fleet(const zp__jval *s)
{
    const zp__jval *f = zp__json_get(s, "fleet");
    if (!f)
        return;
    if (f->type != ZP__J_OBJECT) {
        printf("fleet     (the queue database cannot be read now)\n");
        return;
    }
    const zp__jval *qj = zp__json_get(f, "queued_jobs"), *qp = zp__json_get(f, "queued_partitions");
    const zp__jval *ms = zp__json_get(f, "machines");
    printf("fleet     schema %lld, this daemon is machine %lld; %zu machine(s), %lld claim(s) in flight\n",
           jint(f, "schema"), jint(f, "machine"), ms && ms->type == ZP__J_ARRAY ? ms->n : 0,
           jint(f, "claims_in_flight"));
    printf("  queue   jobs: critical %lld, high %lld, normal %lld, low %lld (partitions %lld/%lld/%lld/%lld)\n",
           jint(qj, "critical"), jint(qj, "high"), jint(qj, "normal"), jint(qj, "low"),
           jint(qp, "critical"), jint(qp, "high"), jint(qp, "normal"), jint(qp, "low"));
    for (size_t i = 0; ms && ms->type == ZP__J_ARRAY && i < ms->n; i++) {
        const zp__jval *m = &ms->items[i];
        const zp__jval *alive = zp__json_get(m, "alive");
        const char *host = zp__jstr(m, "host"), *addr = zp__jstr(m, "address"), *keys = zp__jstr(m, "keys");
        printf("  m%-6lld %s pid %lld %s: %lld GPU(s), %lld slot(s), %lld claim(s), heartbeat %.1f s ago%s; "
               "keys %s\n", jint(m, "id"), host ? host : "?", jint(m, "pid"), addr ? addr : "",
               jint(m, "gpus"), jint(m, "slots"), jint(m, "claims"), jdbl(m, "heartbeat_age_s"),
               alive && alive->type == ZP__J_TRUE ? "" : " SILENT", keys ? keys : "");
    }
}

static void print_keys(const zp__jval *k)
{
    const zp__jval *arr = zp__json_get(k, "keys");
    printf("keys      %zu\n", arr && arr->type == ZP__J_ARRAY ? arr->n : 0);
    for (size_t i = 0; arr && arr->type == ZP__J_ARRAY && i < arr->n; i++) {
        const zp__jval *x = &arr->items[i];
        const char *err = zp__jstr(x, "last_error");
        const zp__jval *pre = zp__json_get(x, "preloaded");
        printf("  %-16s %-8s%s %lld vars, %lld public, %.1f MiB  %s%s%s\n",
               zp__jstr(x, "name") ? zp__jstr(x, "name") : "?", zp__jstr(x, "tier") ? zp__jstr(x, "tier") : "?",
               pre && pre->type == ZP__J_TRUE ? " (pinned)" : "", jint(x, "n_vars"), jint(x, "n_public"),
               jdbl(x, "bytes") / 1048576.0, zp__jstr(x, "source") ? zp__jstr(x, "source") : "",
               err ? "  last error: " : "", err ? err : "");
        /* Its plan on each GPU it is resident on: what stays, what streams. */
        const zp__jval *gs = zp__json_get(x, "gpus");
        for (size_t j = 0; gs && gs->type == ZP__J_ARRAY && j < gs->n; j++) {
            const char *plan = zp__jstr(&gs->items[j], "plan");
            printf("    gpu%lld: %s\n", jint(&gs->items[j], "gpu"), plan ? plan : "?");
        }
    }
}

int zp__client_status(const zp__copts *o)
{
    zp__http_resp s, k;
    if (!zp__client_call(&s, o, "status", "GET", "/v1/status", NULL, 0))
        return 1;
    if (!zp__client_call(&k, o, "status", "GET", "/v1/keys", NULL, 0)) {
        zp__http_resp_free(&s);
        return 1;
    }
    int rc = 1;
    zp__json ds = {0}, dk = {0};
    if (s.status != 200 || k.status != 200) {
        zp__client_print_error("status", s.status != 200 ? &s : &k);
    } else if (o->json) {
        printf("{\"status\":%s,\"keys\":%s}\n", s.body, k.body);
        rc = 0;
    } else if (zp__client_json(&ds, "status", &s) && zp__client_json(&dk, "status", &k)) {
        print_status(ds.root);
        print_gpus(ds.root);
        print_fleet(ds.root);
        print_keys(dk.root);
        rc = 0;
    }
    zp__json_free(&ds);
    zp__json_free(&dk);
    zp__http_resp_free(&s);
    zp__http_resp_free(&k);
    return rc;
}
