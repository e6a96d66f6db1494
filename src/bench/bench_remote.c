/*
 * `zkpipe bench batch --addr A --key NAME`: the batch benchmark against a
 * running daemon instead of an engine in this process. J client threads
 * each submit a job of P partitions with a synthetic witness (the key must
 * be a synth: key of the daemon), long-poll it until it finishes, and go
 * on with the next, N jobs in all. Prints throughput, the latency median,
 * the steady state on the daemon's clock (steady_per_job) and the daemon's
 * own counters and GPU figures from /metrics, which is what a proof
 * market's client sees end to end (HTTP, JSON, base64 proofs).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_remote.h"
#include "client/client_cmd.h"
#include "tool/timing.h"

typedef struct remote_run {
    const zp__copts *c;
    const zp__remote_args *a;
    pthread_mutex_t mu;
    int next, done, failed;
    double *lat, *fin; /* each done job's latency and finished_s */
} remote_run;

/* Submits job i and waits for it; its latency in *lat (wall clock, as the
 * client sees it) and its finished_s in *fin (the daemon's clock; -1 when
 * the job object has none). false when it failed (message printed). */
static bool one_job(remote_run *r, int i, double *lat, double *fin)
{
    char body[512], target[160];
    snprintf(body, sizeof body,
             "{\"key\": \"%s\", \"id\": \"%s-%d\", \"partitions\": %d, \"synth_seed\": %d}",
             r->a->key, r->a->prefix, i, r->a->partitions, i * r->a->partitions);
    zp__http_body b = {body, strlen(body), -1, "application/json", false};
    zp__http_resp resp;
    double t0 = zp__now();
    if (!zp__client_call(&resp, r->c, "bench batch", "POST", "/v1/jobs", &b, 0))
        return false;
    if (resp.status != 202 && resp.status != 200) {
        zp__client_print_error("bench batch", &resp);
        zp__http_resp_free(&resp);
        return false;
    }
    zp__http_resp_free(&resp);
    snprintf(target, sizeof target, "/v1/jobs/%s-%d?wait=60", r->a->prefix, i);
    for (;;) {
        if (!zp__client_call(&resp, r->c, "bench batch", "GET", target, NULL, 60))
            return false;
        zp__json doc;
        if (resp.status != 200 || !zp__client_json(&doc, "bench batch", &resp)) {
            if (resp.status != 200)
                zp__client_print_error("bench batch", &resp);
            zp__http_resp_free(&resp);
            return false;
        }
        const char *st = zp__jstr(doc.root, "state");
        bool finished = st && (!strcmp(st, "done") || !strcmp(st, "failed") ||
                               !strcmp(st, "cancelled"));
        bool ok = st && !strcmp(st, "done");
        const zp__jval *f = zp__json_get(doc.root, "finished_s");
        *fin = f && f->type == ZP__J_NUMBER ? strtod(f->str, NULL) : -1;
        if (finished && !ok)
            fprintf(stderr, "zkpipe bench batch: job %s-%d ended %s: %.300s\n", r->a->prefix, i,
                    st, resp.body);
        zp__json_free(&doc);
        zp__http_resp_free(&resp);
        if (finished) {
            *lat = zp__now() - t0;
            return ok;
        }
    }
}

static void *client_main(void *p)
{
    remote_run *r = p;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        int i = r->next < r->a->count ? r->next++ : -1;
        pthread_mutex_unlock(&r->mu);
        if (i < 0)
            return NULL;
        double lat = 0, fin = -1;
        bool ok = one_job(r, i, &lat, &fin);
        pthread_mutex_lock(&r->mu);
        if (ok) {
            r->fin[r->done] = fin;
            r->lat[r->done++] = lat;
        } else
            r->failed++;
        pthread_mutex_unlock(&r->mu);
    }
}

/* The steady state per job from the n finish times fin (sorted here): the
 * time from the first wave's last finish (the j-th, j the jobs in flight)
 * to the last one, over the jobs finished in it, so that the daemon's fill
 * (the first partitions, with nothing before them) is left out. -1 where
 * there are no more jobs than a wave, or a time is missing. */
double zp__bench_steady_per_job(double *fin, int n, int j)
{
    if (j < 1 || n <= j)
        return -1;
    zp__sort_doubles(fin, n);
    if (fin[0] < 0)
        return -1;
    return (fin[n - 1] - fin[j - 1]) / (n - j);
}

/* The daemon's bytes moved host to device, summed over its GPUs: all of
 * them and the streamed key's (points, and matrices where they stream). */
typedef struct moved {
    double h2d, streamed;
} moved;

/* Adds the value of a sample line of family `name` (its labels any) to
 * *sum. */
static void add_sample(const char *line, const char *name, double *sum)
{
    size_t n = strlen(name);
    if (strncmp(line, name, n) || (line[n] != '{' && line[n] != ' '))
        return;
    const char *v = strrchr(line, ' ');
    if (v)
        *sum += strtod(v + 1, NULL);
}

/* Prints (print) the lines of the daemon's /metrics that say how its GPUs
 * and verification did; *m gets its bytes moved (0 when it cannot say). */
static void read_metrics(const zp__copts *c, bool print, moved *m)
{
    zp__http_resp resp;
    memset(m, 0, sizeof *m);
    if (!zp__client_call(&resp, c, "bench batch", "GET", "/metrics", NULL, 0))
        return;
    static const char *const want[] = {"zkpipe_gpu_busy_ratio{", "zkpipe_gpu_memory_bytes{",
                                       "zkpipe_gpu_slots_admitted{", "zkpipe_gpu_ring_bytes{",
                                       "zkpipe_gpu_h2d_bytes_total{",
                                       "zkpipe_gpu_streamed_bytes_total{",
                                       "zkpipe_key_streamed_bytes{",
                                       "zkpipe_proofs_verified_total ",
                                       "zkpipe_proofs_rejected_total ", NULL};
    for (char *line = resp.body; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        for (int k = 0; print && want[k]; k++)
            if (!strncmp(line, want[k], strlen(want[k])))
                printf("daemon: %s\n", line);
        add_sample(line, "zkpipe_gpu_h2d_bytes_total", &m->h2d);
        add_sample(line, "zkpipe_gpu_streamed_bytes_total", &m->streamed);
        line = nl ? nl + 1 : NULL;
    }
    zp__http_resp_free(&resp);
}

int zp__bench_remote(const zp__copts *c, const zp__remote_args *a)
{
    remote_run r = {.c = c, .a = a};
    pthread_mutex_init(&r.mu, NULL);
    r.lat = calloc((size_t)a->count, sizeof *r.lat);
    r.fin = calloc((size_t)a->count, sizeof *r.fin);
    pthread_t *th = calloc((size_t)a->concurrency, sizeof *th);
    if (!r.lat || !r.fin || !th) {
        fputs("zkpipe bench batch: no memory\n", stderr);
        free(r.lat);
        free(r.fin);
        free(th);
        return 1;
    }
    printf("daemon %s, key %s: %d jobs x %d partitions, %d client threads\n", c->addr, a->key,
           a->count, a->partitions, a->concurrency);
    moved m0, m1;
    read_metrics(c, false, &m0);
    double t0 = zp__now();
    int started = 0;
    for (int i = 0; i < a->concurrency; i++)
        started += pthread_create(&th[i], NULL, client_main, &r) == 0;
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    double wall = zp__now() - t0;
    if (started < a->concurrency)
        fprintf(stderr, "zkpipe bench batch: only %d client threads started\n", started);
    if (r.done)
        printf("wall %.3f s: %.3f s per job of %d partitions (%.2f jobs/min), %.4f s per "
               "partition; job latency median %.3f s (client side)\n",
               wall, wall / r.done, a->partitions, r.done * 60 / wall,
               wall / ((double)r.done * a->partitions), zp__median(r.lat, r.done));
    const double steady = zp__bench_steady_per_job(r.fin, r.done, a->concurrency);
    if (steady > 0)
        printf("steady state: %.3f s per job of %d partitions, %.4f s per partition (the "
               "daemon's clock, from the first %d jobs' last finish to the last job's)\n",
               steady, a->partitions, steady / a->partitions, a->concurrency);
    printf("jobs done %d, failed %d\n", r.done, r.failed);
    read_metrics(c, true, &m1);
    /* Over the run: other clients' partitions would count too. */
    if (r.done && m1.h2d > m0.h2d) {
        double parts = (double)r.done * a->partitions, gib = (double)(1u << 30);
        printf("host to device: %.3f GiB per partition, of which the streamed key %.3f GiB "
               "(the daemon's counters over the run)\n",
               (m1.h2d - m0.h2d) / parts / gib, (m1.streamed - m0.streamed) / parts / gib);
    }
    pthread_mutex_destroy(&r.mu);
    free(r.lat);
    free(r.fin);
    free(th);
    return r.failed || !r.done ? 1 : 0;
}
