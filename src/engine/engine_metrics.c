/* The engine's metrics in Prometheus text format (zp_engine_metrics). */
#include <stdio.h>
#include <string.h>

#include "engine/engine_impl.h"
#include "engine/util.h"
#include "gpu/gpu.h"

static const char *const outcome_names[ZP__OUT_COUNT] = {"done", "failed", "cancelled"};

static void jobs_metrics(zp__sb *sb, zp_engine *e)
{
    zp__prom_head(sb, "zkpipe_jobs_submitted_total", "counter",
                  "Jobs accepted, by key and priority.");
    for (uint32_t i = 0; i < e->n_keys; i++)
        for (unsigned p = 0; p < ZP_PRIO_COUNT; p++) {
            zp__sb_puts(sb, "zkpipe_jobs_submitted_total{key=");
            zp__prom_label(sb, e->keys[i]->name);
            zp__sb_printf(sb, ",priority=\"%s\"} %llu\n", zp_priority_name((zp_priority)p),
                          (unsigned long long)e->keys[i]->submitted[p]);
        }
    zp__prom_head(sb, "zkpipe_jobs_total", "counter",
                  "Jobs finished, by key, priority and outcome.");
    for (uint32_t i = 0; i < e->n_keys; i++)
        for (unsigned p = 0; p < ZP_PRIO_COUNT; p++)
            for (unsigned o = 0; o < ZP__OUT_COUNT; o++) {
                zp__sb_puts(sb, "zkpipe_jobs_total{key=");
                zp__prom_label(sb, e->keys[i]->name);
                zp__sb_printf(sb, ",priority=\"%s\",outcome=\"%s\"} %llu\n",
                              zp_priority_name((zp_priority)p), outcome_names[o],
                              (unsigned long long)e->keys[i]->jobs[p][o]);
            }
    zp__prom_head(sb, "zkpipe_queue_depth", "gauge",
                  "Partitions waiting to start, by priority.");
    for (unsigned p = 0; p < ZP_PRIO_COUNT; p++)
        zp__sb_printf(sb, "zkpipe_queue_depth{priority=\"%s\"} %u\n",
                      zp_priority_name((zp_priority)p), e->queue.parts[p]);
    zp__prom_head(sb, "zkpipe_queued_jobs", "gauge", "Jobs with partitions waiting, by priority.");
    for (unsigned p = 0; p < ZP_PRIO_COUNT; p++)
        zp__sb_printf(sb, "zkpipe_queued_jobs{priority=\"%s\"} %u\n",
                      zp_priority_name((zp_priority)p), e->queue.jobs[p]);
    zp__prom_head(sb, "zkpipe_partitions_in_flight", "gauge",
                  "Partitions being proved or verified.");
    zp__sb_printf(sb, "zkpipe_partitions_in_flight %u\n", e->parts_in_flight);
}

static void proof_metrics(zp__sb *sb, zp_engine *e)
{
    zp__prom_head(sb, "zkpipe_proofs_verified_total", "counter",
                  "Partition proofs that passed verification.");
    zp__sb_printf(sb, "zkpipe_proofs_verified_total %llu\n",
                  (unsigned long long)e->proofs_verified);
    zp__prom_head(sb, "zkpipe_proofs_rejected_total", "counter",
                  "Partition proofs that failed verification.");
    zp__sb_printf(sb, "zkpipe_proofs_rejected_total %llu\n",
                  (unsigned long long)e->proofs_rejected);
    zp__prom_head(sb, "zkpipe_partitions_retried_total", "counter",
                  "Partitions proved again after a rejected proof.");
    zp__sb_printf(sb, "zkpipe_partitions_retried_total %llu\n",
                  (unsigned long long)e->partitions_retried);
    zp__prom_head(sb, "zkpipe_stage_seconds", "histogram",
                  "Duration of each stage of a partition.");
    for (unsigned s = 0; s < ZP__ST_COUNT; s++) {
        char labels[48];
        snprintf(labels, sizeof labels, "stage=\"%s\"", zp__stage_name((zp__stage)s));
        zp__prom_hist(sb, "zkpipe_stage_seconds", labels, &e->stage_hist[s]);
    }
}

static void worker_metrics(zp__sb *sb, zp_engine *e)
{
    double now = zp__eng_now(e);
    int n = e->n_provers + e->n_verifiers;
    zp__prom_head(sb, "zkpipe_worker_busy_ratio", "gauge",
                  "Fraction of the engine's uptime each worker spent on partitions.");
    for (int i = 0; i < n; i++) {
        const zp__worker *w = &e->workers[i];
        double busy = w->busy_s + (w->busy ? now - w->busy_since : 0);
        zp__sb_printf(sb, "zkpipe_worker_busy_ratio{worker=\"%s\"} %.6f\n", w->name,
                      now > 0 ? busy / now : 0);
    }
    zp__prom_head(sb, "zkpipe_worker_partitions_total", "counter",
                  "Partitions each worker proved or verified.");
    for (int i = 0; i < n; i++)
        zp__sb_printf(sb, "zkpipe_worker_partitions_total{worker=\"%s\"} %llu\n",
                      e->workers[i].name, (unsigned long long)e->workers[i].done);
}

static void key_metrics(zp__sb *sb, zp_engine *e)
{
    zp__prom_head(sb, "zkpipe_key_bytes", "gauge", "Host bytes held by each loaded key.");
    for (uint32_t i = 0; i < e->n_keys; i++) {
        zp__sb_puts(sb, "zkpipe_key_bytes{key=");
        zp__prom_label(sb, e->keys[i]->name);
        zp__sb_printf(sb, ",tier=\"%s\"} %llu\n", zp_key_tier_name(e->keys[i]->tier),
                      (unsigned long long)e->keys[i]->bytes);
    }
    zp__prom_head(sb, "zkpipe_key_loads_total", "counter", "Loads of each key.");
    for (uint32_t i = 0; i < e->n_keys; i++) {
        zp__sb_puts(sb, "zkpipe_key_loads_total{key=");
        zp__prom_label(sb, e->keys[i]->name);
        zp__sb_printf(sb, "} %llu\n", (unsigned long long)e->keys[i]->loads);
    }
    zp__prom_head(sb, "zkpipe_key_evictions_total", "counter", "Unloads of each key.");
    for (uint32_t i = 0; i < e->n_keys; i++) {
        zp__sb_puts(sb, "zkpipe_key_evictions_total{key=");
        zp__prom_label(sb, e->keys[i]->name);
        zp__sb_printf(sb, "} %llu\n", (unsigned long long)e->keys[i]->evictions);
    }
    zp__prom_head(sb, "zkpipe_key_pinned_bytes", "gauge",
                  "Host bytes of loaded keys page-locked for uploads (the pinned tier).");
    zp__sb_printf(sb, "zkpipe_key_pinned_bytes %llu\n", (unsigned long long)e->pinned_used);
    zp__prom_head(sb, "zkpipe_key_cache_bytes", "gauge", "Bytes of all loaded keys.");
    zp__sb_printf(sb, "zkpipe_key_cache_bytes %llu\n", (unsigned long long)e->key_used);
    zp__prom_head(sb, "zkpipe_key_budget_bytes", "gauge", "Key cache budget; 0 is unlimited.");
    zp__sb_printf(sb, "zkpipe_key_budget_bytes %llu\n",
                  (unsigned long long)e->cfg.key_budget_bytes);
}

/* What key_bytes sums over a key's GPUs. */
enum { KB_DEVICE, KB_TABLES, KB_STREAMED };

/* A gauge of each key's bytes over all GPUs: the arena bytes of its
 * resident copies or of their H tables, or the pinned host bytes of what
 * it streams (zp__key_streamed_bytes). */
static void key_bytes(zp__sb *sb, zp_engine *e, const char *name, const char *help, int what)
{
    zp__prom_head(sb, name, "gauge", help);
    for (uint32_t i = 0; i < e->n_keys; i++) {
        const zp__key *k = e->keys[i];
        uint64_t b = 0;
        if (what == KB_STREAMED)
            b = zp__key_streamed_bytes(k, e->n_gpus);
        else
            for (int g = 0; g < e->n_gpus; g++)
                b += what == KB_TABLES ? zp__key_table_bytes(k, g) : k->dk_bytes[g];
        zp__sb_printf(sb, "%s{key=", name);
        zp__prom_label(sb, k->name);
        zp__sb_printf(sb, "} %llu\n", (unsigned long long)b);
    }
}

static void gpu_metrics(zp__sb *sb, zp_engine *e)
{
    if (!e->n_gpus)
        return;
    zp__prom_head(sb, "zkpipe_gpu_memory_bytes", "gauge",
                  "Each GPU's arena: its size and the bytes carved from it.");
    for (int g = 0; g < e->n_gpus; g++) {
        zp__gpu_info info;
        zp__gpu_get_info(e->gpus[g].dev, &info);
        zp__sb_printf(sb, "zkpipe_gpu_memory_bytes{gpu=\"%d\",kind=\"arena\"} %llu\n", g,
                      (unsigned long long)info.arena_bytes);
        zp__sb_printf(sb, "zkpipe_gpu_memory_bytes{gpu=\"%d\",kind=\"used\"} %llu\n", g,
                      (unsigned long long)info.arena_used);
    }
    zp__prom_head(sb, "zkpipe_pinned_host_bytes", "gauge",
                  "Host memory pinned by each GPU's slots (their witness buffers, and a "
                  "and b of jobs of a, b, c copied ahead).");
    for (int g = 0; g < e->n_gpus; g++)
        zp__sb_printf(sb, "zkpipe_pinned_host_bytes{gpu=\"%d\"} %llu\n", g,
                      (unsigned long long)e->gpus[g].pinned);
    zp__prom_head(sb, "zkpipe_gpu_ring_bytes", "gauge",
                  "Arena bytes of each GPU's staging rings (two buffers per slot whose key "
                  "streams points from pinned host memory).");
    for (int g = 0; g < e->n_gpus; g++)
        zp__sb_printf(sb, "zkpipe_gpu_ring_bytes{gpu=\"%d\"} %llu\n", g,
                      (unsigned long long)e->gpus[g].ring_bytes);
    zp__prom_head(sb, "zkpipe_gpu_h2d_bytes_total", "counter",
                  "Bytes each GPU's partitions moved host to device: witnesses and streamed "
                  "key points.");
    for (int g = 0; g < e->n_gpus; g++)
        zp__sb_printf(sb, "zkpipe_gpu_h2d_bytes_total{gpu=\"%d\"} %llu\n", g,
                      (unsigned long long)e->gpus[g].h2d_bytes);
    zp__prom_head(sb, "zkpipe_gpu_streamed_bytes_total", "counter",
                  "Of those, key points streamed from pinned host memory.");
    for (int g = 0; g < e->n_gpus; g++)
        zp__sb_printf(sb, "zkpipe_gpu_streamed_bytes_total{gpu=\"%d\"} %llu\n", g,
                      (unsigned long long)e->gpus[g].streamed_bytes);
    zp__prom_head(sb, "zkpipe_gpu_healthy", "gauge",
                  "1 while the GPU takes work, 0 after it failed (a sticky error).");
    for (int g = 0; g < e->n_gpus; g++)
        zp__sb_printf(sb, "zkpipe_gpu_healthy{gpu=\"%d\"} %d\n", g, !e->gpus[g].failed);
    zp__prom_head(sb, "zkpipe_gpu_slots_admitted", "gauge",
                  "Partition slots of each GPU allowed to take work.");
    for (int g = 0; g < e->n_gpus; g++)
        zp__sb_printf(sb, "zkpipe_gpu_slots_admitted{gpu=\"%d\"} %d\n", g, e->gpus[g].admitted);
    zp__prom_head(sb, "zkpipe_gpu_busy_ratio", "gauge",
                  "Fraction of the uptime at least one slot of each GPU held a partition.");
    double now = zp__eng_now(e);
    for (int g = 0; g < e->n_gpus; g++) {
        /* Union of the slots' busy time is not kept; the busiest slot is a
         * lower bound and the trace (bench batch) gives the exact figure. */
        double best = 0;
        for (int i = 0; i < e->n_provers; i++) {
            const zp__worker *w = &e->workers[i];
            if (w->gpu != g)
                continue;
            double b = w->busy_s + (w->busy ? now - w->busy_since : 0);
            if (b > best)
                best = b;
        }
        zp__sb_printf(sb, "zkpipe_gpu_busy_ratio{gpu=\"%d\"} %.6f\n", g,
                      now > 0 ? best / now : 0);
    }
    key_bytes(sb, e, "zkpipe_key_device_bytes", "GPU arena bytes of each key's resident copies.",
              KB_DEVICE);
    key_bytes(sb, e, "zkpipe_key_h_table_bytes",
              "Of those, the bytes of each key's H tables (precomputed H points).", KB_TABLES);
    key_bytes(sb, e, "zkpipe_key_streamed_bytes",
              "Pinned host bytes of what each key streams through the GPUs (key "
              "tiers): its points' image once, each GPU's matrix images.", KB_STREAMED);
}

zp_err zp__eng_metrics(zp_engine *e, char **out, size_t *len)
{
    zp__sb sb = {0};
    pthread_mutex_lock(&e->mu);
    zp__prom_head(&sb, "zkpipe_uptime_seconds", "gauge", "Seconds since the engine opened.");
    zp__sb_printf(&sb, "zkpipe_uptime_seconds %.3f\n", zp__eng_now(e));
    jobs_metrics(&sb, e);
    proof_metrics(&sb, e);
    worker_metrics(&sb, e);
    key_metrics(&sb, e);
    gpu_metrics(&sb, e);
    pthread_mutex_unlock(&e->mu);
    return zp__sb_finish(&sb, out, len);
}
