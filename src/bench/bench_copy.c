/*
 * zkpipe bench copy: host-to-device and device-to-host copy bandwidth, the
 * bound of a key that streams (docs/gpu-memory.md, Key tiers). A pinned
 * host buffer and an arena region of the same size; each copy on a copy
 * stream, timed from enqueue to the stream's end on the host. With --all,
 * every GPU copies at once (one thread each), as an engine streaming on
 * all of them does: the host's memory and PCIe switches are shared. With
 * --pageable, host to device from pageable memory too, as the
 * supraseal-c2 drop-in gets a caller's a and b: a plain copy, the slots'
 * staged copy (two pinned buffers, zp__g16_stage_put) with each number of
 * host threads given, and the memory page-locked in place for the copy
 * (registered, copied, unregistered; each step timed). With --host, host
 * memory alone: the parallel copy the staging uses, by each number of
 * threads (no GPU needed).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "bench/bench.h"
#include "gpu/gpu.h"
#include "groth16/prove_gpu_slot_impl.h"
#include "tool/timing.h"

static const char copy_help[] =
    "usage: zkpipe bench copy [--bytes SIZE] [--reps N] [--gpu N | --all]\n"
    "                         [--pageable T[,T...]]\n"
    "  Copies SIZE (default 1G) between pinned host memory and the GPU, N times\n"
    "  (default 5) each way, and prints the median GB/s of host to device\n"
    "  (h2d) and device to host (d2h). --all: every GPU at once.\n"
    "  --pageable: also host to device from pageable memory (one GPU): a plain\n"
    "  copy, the staged copy of the drop-in's a and b (two pinned buffers\n"
    "  of 256 MiB) with T host threads copying, for each T (0: every CPU), and\n"
    "  the memory page-locked in place for one copy (register, copy,\n"
    "  unregister: each step's median, and GB/s over the three).\n"
    "  --host T[,T...]: host memory only (no GPU needed): SIZE from one buffer\n"
    "  to another by T threads (0: every CPU), the parallel copy the staging\n"
    "  uses; the median GB/s.\n";

#define PAGEABLE_MAX 8
#define STAGE_BYTES ((uint64_t)256 << 20)

#define COPY_GPUS_MAX 16

typedef struct lane {
    int device, reps;
    uint64_t bytes;
    double h2d, d2h; /* median GB/s */
    /* --pageable: the thread counts, and the median GB/s of the plain
     * copy and of the staged one with each. */
    int n_pg, pg_threads[PAGEABLE_MAX];
    double pg_plain, pg_staged[PAGEABLE_MAX];
    /* The memory page-locked in place: the median ms of registering,
     * copying and unregistering, and GB/s over the three. */
    double reg_ms[3], reg_gbs;
    zp_err err;
} lane;

static zp_err timed(zp__gpu_stream *s, bool up, void *dev, void *host, uint64_t bytes,
                    double *gbs)
{
    double t0 = zp__now();
    zp_err e = up ? zp__gpu_upload(s, dev, host, bytes) : zp__gpu_download(s, host, dev, bytes);
    zp_err es = zp__gpu_stream_sync(s);
    double t = zp__now() - t0;
    *gbs = t > 0 ? (double)bytes / t / 1e9 : 0;
    return e ? e : es;
}

/* From pageable memory: the plain copy on s, the staged one through two
 * pinned buffers on s and q with each thread count of l, and the memory
 * registered in place; v: room for 4 * l->reps timings. */
static zp_err pageable(lane *l, zp__gpu *g, zp__gpu_stream *s, void *dev, double *v)
{
    zp__gpu_stream *q = NULL;
    void *buf[2] = {NULL, NULL};
    char *h = malloc(l->bytes);
    zp_err e = h ? zp__gpu_stream_open_copy(g, &q) : ZP_E_NOMEM;
    const uint64_t sb = l->bytes < STAGE_BYTES ? l->bytes : STAGE_BYTES;
    if (!e)
        e = zp__gpu_host_alloc(g, &buf[0], sb);
    if (!e)
        e = zp__gpu_host_alloc(g, &buf[1], sb);
    if (!e)
        memset(h, 0x3c, l->bytes); /* every page touched before timing */
    for (int r = 0; r < l->reps && !e; r++)
        e = timed(s, true, dev, h, l->bytes, &v[r]);
    if (!e)
        l->pg_plain = zp__median(v, l->reps);
    for (int t = 0; t < l->n_pg && !e; t++) {
        for (int r = 0; r < l->reps && !e; r++) {
            zp__g16_stager st = {{s, q}, {buf[0], buf[1]}, sb, l->pg_threads[t], 0, {false, false}};
            const double t0 = zp__now();
            e = zp__g16_stage_put(&st, dev, h, l->bytes);
            zp_err ee = zp__g16_stage_end(&st);
            e = e ? e : ee;
            const double dt = zp__now() - t0;
            v[r] = dt > 0 ? (double)l->bytes / dt / 1e9 : 0;
        }
        if (!e)
            l->pg_staged[t] = zp__median(v, l->reps);
    }
    /* Registered in place, copied, unregistered: v holds each step's reps
     * and then the reps' GB/s over the three. */
    for (int r = 0; r < l->reps && !e; r++) {
        const double t0 = zp__now();
        e = zp__gpu_host_register(h, l->bytes, false);
        const double t1 = zp__now();
        double gbs, t2 = t1;
        if (!e) {
            e = timed(s, true, dev, h, l->bytes, &gbs);
            t2 = zp__now();
            zp__gpu_host_unregister(h);
        }
        const double t3 = zp__now();
        v[r] = (t1 - t0) * 1e3;
        v[l->reps + r] = (t2 - t1) * 1e3;
        v[2 * l->reps + r] = (t3 - t2) * 1e3;
        v[3 * l->reps + r] = t3 > t0 ? (double)l->bytes / (t3 - t0) / 1e9 : 0;
    }
    if (!e) {
        for (int k = 0; k < 3; k++)
            l->reg_ms[k] = zp__median(v + (size_t)k * l->reps, l->reps);
        l->reg_gbs = zp__median(v + 3 * (size_t)l->reps, l->reps);
    }
    zp__gpu_host_free(buf[0]);
    zp__gpu_host_free(buf[1]);
    zp__gpu_stream_close(q);
    free(h);
    return e;
}

static void *lane_run(void *arg)
{
    lane *l = arg;
    zp__gpu_config cfg;
    zp__gpu_config_default(&cfg);
    cfg.device = l->device;
    /* The region, the NTT tables the open builds and the stream's scratch. */
    cfg.arena_bytes = l->bytes + ((uint64_t)1 << 30);
    zp__gpu *g = NULL;
    zp__gpu_stream *s = NULL;
    zp__gpu_buf d = {0};
    void *h = NULL;
    double *v = calloc((size_t)l->reps * 4, sizeof *v); /* as pageable() needs */
    zp_err e = v ? zp__gpu_open(&g, &cfg) : ZP_E_NOMEM;
    if (!e)
        e = zp__gpu_stream_open_copy(g, &s);
    if (!e)
        e = zp__gpu_alloc(g, &d, l->bytes);
    if (!e)
        e = zp__gpu_host_alloc(g, &h, l->bytes);
    if (!e) {
        memset(h, 0x5a, l->bytes); /* every page touched before timing */
        double warm;
        e = timed(s, true, d.ptr, h, l->bytes, &warm);
    }
    for (int r = 0; r < l->reps && !e; r++) {
        e = timed(s, true, d.ptr, h, l->bytes, &v[r]);
        if (!e)
            e = timed(s, false, d.ptr, h, l->bytes, &v[l->reps + r]);
    }
    if (!e) {
        l->h2d = zp__median(v, l->reps);
        l->d2h = zp__median(v + l->reps, l->reps);
    }
    if (!e && l->n_pg)
        e = pageable(l, g, s, d.ptr, v);
    l->err = e;
    zp__gpu_host_free(h);
    if (g) {
        zp__gpu_free(g, &d);
        zp__gpu_stream_close(s);
        zp__gpu_close(g);
    }
    free(v);
    return NULL;
}

double zp__bench_h2d_gbs(int device, uint64_t bytes, int reps)
{
    lane l = {.device = device, .reps = reps, .bytes = bytes};
    lane_run(&l);
    return l.err ? 0 : l.h2d;
}

/* "T[,T...]": up to PAGEABLE_MAX thread counts of 0 (every CPU) to 256. */
static int host_copy(uint64_t bytes, int reps, const int *threads, int n_t)
{
    char *src = malloc(bytes), *dst = malloc(bytes);
    double *v = malloc((size_t)reps * sizeof *v);
    if (!src || !dst || !v) {
        fprintf(stderr, "zkpipe bench copy: no memory for two buffers of %llu bytes\n",
                (unsigned long long)bytes);
        free(src);
        free(dst);
        free(v);
        return 1;
    }
    memset(src, 0x5a, bytes); /* both touched: no page faults in the timings */
    memset(dst, 0, bytes);
    int rc = 0;
    for (int i = 0; i < n_t && !rc; i++) {
        for (int r = -1; r < reps; r++) { /* one warm-up */
            const double t0 = zp__now();
            zp__parallel_memcpy(dst, src, bytes, threads[i]);
            const double t = zp__now() - t0;
            if (r >= 0)
                v[r] = t > 0 ? (double)bytes / t / 1e9 : 0;
        }
        if (memcmp(dst, src, bytes)) {
            fprintf(stderr, "zkpipe bench copy: the host copy differs from its source\n");
            rc = 1;
        }
        const double med = zp__median(v, reps);
        printf("copy host %.2f GiB, %d thread(s)%s: %.2f GB/s (median of %d)\n",
               (double)bytes / (double)(1ull << 30), zp__cpu_threads(threads[i]),
               threads[i] ? "" : " (every CPU)", med, reps);
        printf("RESULT,copy_host,%llu,%d,%.3f\n", (unsigned long long)bytes,
               zp__cpu_threads(threads[i]), med);
    }
    free(src);
    free(dst);
    free(v);
    return rc;
}

static int parse_threads(const char *v, int *out, int *n)
{
    *n = 0;
    char buf[128];
    if (strlen(v) >= sizeof buf)
        return -1;
    strcpy(buf, v);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (*n == PAGEABLE_MAX || zp__parse_int(t, 0, 256, &out[*n]) != 0)
            return -1;
        (*n)++;
    }
    return *n ? 0 : -1;
}

int zp__bench_copy(int argc, char **argv)
{
    uint64_t bytes = (uint64_t)1 << 30;
    int reps = 5, device = 0, n_pg = 0, pg_threads[PAGEABLE_MAX], n_host = 0,
        host_threads[PAGEABLE_MAX];
    bool all = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool bad = false;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(copy_help, stdout);
            return 0;
        } else if (!strcmp(a, "--bytes") && v) {
            bad = zp__parse_size(v, &bytes) != 0 || bytes < 4096 || bytes > ((uint64_t)1 << 40);
            i++;
        } else if (!strcmp(a, "--reps") && v) {
            bad = zp__parse_int(v, 1, 1000, &reps) != 0;
            i++;
        } else if (!strcmp(a, "--gpu") && v) {
            bad = zp__parse_int(v, 0, COPY_GPUS_MAX - 1, &device) != 0;
            i++;
        } else if (!strcmp(a, "--all")) {
            all = true;
        } else if (!strcmp(a, "--pageable") && v) {
            bad = parse_threads(v, pg_threads, &n_pg) != 0;
            i++;
        } else if (!strcmp(a, "--host") && v) {
            bad = parse_threads(v, host_threads, &n_host) != 0;
            i++;
        } else {
            bad = true;
        }
        if (bad) {
            fprintf(stderr, "zkpipe bench copy: bad option '%s%s%s'\n%s", a, v ? " " : "",
                    v ? v : "", copy_help);
            return 2;
        }
    }
    if (n_host) {
        if (all || n_pg) {
            fprintf(stderr, "zkpipe bench copy: --host measures host memory alone\n");
            return 2;
        }
        return host_copy(bytes, reps, host_threads, n_host);
    }
    const int n = zp__gpu_count();
    if (n < 1) {
        fprintf(stderr, "zkpipe bench copy: no GPU\n");
        return 1;
    }
    if (device >= n) {
        fprintf(stderr, "zkpipe bench copy: no GPU %d (%d found)\n", device, n);
        return 2;
    }
    if (all && n_pg) {
        fprintf(stderr, "zkpipe bench copy: --pageable measures one GPU, not --all\n");
        return 2;
    }
    const int lanes = all ? (n < COPY_GPUS_MAX ? n : COPY_GPUS_MAX) : 1;
    lane l[COPY_GPUS_MAX];
    pthread_t th[COPY_GPUS_MAX];
    bool started[COPY_GPUS_MAX];
    for (int i = 0; i < lanes; i++) {
        l[i] = (lane){.device = all ? i : device, .reps = reps, .bytes = bytes, .n_pg = n_pg};
        memcpy(l[i].pg_threads, pg_threads, sizeof pg_threads);
        started[i] = lanes > 1 && pthread_create(&th[i], NULL, lane_run, &l[i]) == 0;
        if (!started[i])
            lane_run(&l[i]);
    }
    int rc = 0;
    double sum_h2d = 0, sum_d2h = 0;
    for (int i = 0; i < lanes; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        if (l[i].err) {
            fprintf(stderr, "zkpipe bench copy: gpu%d: %s (%s)\n", l[i].device,
                    zp_strerror(l[i].err), zp__gpu_last_error());
            rc = 1;
            continue;
        }
        sum_h2d += l[i].h2d;
        sum_d2h += l[i].d2h;
        printf("copy gpu%d %.2f GiB: h2d %.2f GB/s, d2h %.2f GB/s (median of %d)%s\n",
               l[i].device, (double)bytes / (double)(1ull << 30), l[i].h2d, l[i].d2h, reps,
               lanes > 1 ? ", all GPUs at once" : "");
        printf("RESULT,copy,%d,%llu,%d,%.3f,%.3f\n", l[i].device, (unsigned long long)bytes,
               lanes, l[i].h2d, l[i].d2h);
        if (l[i].n_pg)
            printf("copy gpu%d pageable h2d: plain %.2f GB/s (median of %d)\n", l[i].device,
                   l[i].pg_plain, reps);
        for (int t = 0; t < l[i].n_pg; t++) {
            printf("copy gpu%d pageable h2d: staged, %d host thread(s)%s: %.2f GB/s\n",
                   l[i].device, zp__cpu_threads(l[i].pg_threads[t]),
                   l[i].pg_threads[t] ? "" : " (every CPU)", l[i].pg_staged[t]);
            printf("RESULT,copy_staged,%d,%llu,%d,%.3f,%.3f\n", l[i].device,
                   (unsigned long long)bytes, zp__cpu_threads(l[i].pg_threads[t]),
                   l[i].pg_plain, l[i].pg_staged[t]);
        }
        if (l[i].n_pg)
            printf("copy gpu%d pageable h2d: registered in place: register %.1f ms, copy %.1f "
                   "ms, unregister %.1f ms: %.2f GB/s over the three\n",
                   l[i].device, l[i].reg_ms[0], l[i].reg_ms[1], l[i].reg_ms[2], l[i].reg_gbs);
    }
    if (lanes > 1 && !rc)
        printf("copy all %d GPUs: h2d %.2f GB/s, d2h %.2f GB/s in total\n", lanes, sum_h2d,
               sum_d2h);
    return rc;
}

void zp__bench_print_outside(const char *prefix, uint64_t free_at_open, uint64_t free_now)
{
    const double mib = (double)(1u << 20);
    printf("%soutside the arena: %.0f MiB free when it was taken, %.0f MiB now (%.0f MiB taken "
           "since by the driver or other processes)\n",
           prefix, (double)free_at_open / mib, (double)free_now / mib,
           ((double)free_at_open - (double)free_now) / mib);
}
