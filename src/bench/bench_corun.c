/*
 * zkpipe bench corun: two kinds of prover work on one GPU, each alone and
 * then both at once on two streams, the way the engine's two slots share
 * it. Prints each lane's rate alone and together and the sum of the two
 * fractions kept: 1.0 means sharing gains nothing over taking turns, more
 * means the kernels fill each other's stalls.
 *
 * Why: a speed-up of one stage on a lone partition can vanish in the
 * two-slot engine, whose time per partition is already below a lone
 * partition's kernels. This measures that sharing directly, per pair of
 * stages; and whether a streaming slot's schedule (prove_gpu_sched.c),
 * which sums its chunks one after another, would gain from summing H's
 * chunks beside the witness MSMs' (hacc against wit).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_gpu.h"
#include "groth16/gpu_prover.h"
#include "tool/cmdline.h"
#include "tool/timing.h"

static const char corun_help[] =
    "usage: zkpipe bench corun [--a WORK] [--b WORK] [--seconds S] [--twist]\n"
    "  WORK is ntt:L (the h stage's inverse-then-coset transform, 2^L) or msm:L\n"
    "  (a G1 MSM of 2^L random scalars, scratch for two windows a pass as a\n"
    "  prover slot has) or g2:L (the same on G2, as the B2 MSM) or hacc:L (a\n"
    "  streamed H chunk of 2^L points summed into kept buckets at the window a\n"
    "  streaming slot takes for it, all its windows a pass) or wit:L (a streamed\n"
    "  witness MSM's chunk of 2^L points: a porep witness's scalars before its\n"
    "  dense tail, 56% zero, 43% one, 1% random, with the 0/1 split); defaults\n"
    "  --a ntt:27 --b msm:27, 10 seconds a phase.\n"
    "  --twist: the ntt lanes use full twist tables, as a resident key's h does.\n"
    "Runs a alone, b alone, then both on two streams; prints operations per\n"
    "second and the sum of the fractions of the lone rates kept together.\n";

enum { LANE_NTT, LANE_MSM, LANE_G2, LANE_HACC, LANE_WIT };

typedef struct lane {
    int kind;
    unsigned lg;
    zp__gpu_stream *s;
    zp__gpu_buf data, points, scratch, buckets;
    zp__gpu_msm_acc acc; /* hacc: the kept buckets */
    zp__gpu_twist twist;
    double seconds, rate; /* in: how long; out: operations per second */
    zp_err err;
} lane;

static bool parse_work(const char *v, lane *l)
{
    const char *colon = strchr(v, ':');
    if (!colon)
        return false;
    size_t len = (size_t)(colon - v);
    if (len == 3 && !strncmp(v, "ntt", 3))
        l->kind = LANE_NTT;
    else if (len == 3 && !strncmp(v, "msm", 3))
        l->kind = LANE_MSM;
    else if (len == 2 && !strncmp(v, "g2", 2))
        l->kind = LANE_G2;
    else if (len == 4 && !strncmp(v, "hacc", 4))
        l->kind = LANE_HACC;
    else if (len == 3 && !strncmp(v, "wit", 3))
        l->kind = LANE_WIT;
    else
        return false;
    int lg;
    int most = l->kind == LANE_NTT ? ZP_GPU_NTT_MAX_LOG2 : l->kind == LANE_G2 ? 26 : 28;
    if (zp__parse_int(colon + 1, 10, most, &lg))
        return false;
    l->lg = (unsigned)lg;
    return true;
}

/* One operation of the lane, waited for. */
static zp_err lane_op(lane *l)
{
    if (l->kind == LANE_HACC)
        return zp__gpu_msm_g1_acc_add(l->s, &l->acc, l->points.ptr, l->data.ptr,
                                      (uint64_t)1 << l->lg, l->scratch);
    if (l->kind == LANE_MSM || l->kind == LANE_WIT) {
        zp_g1_jac r;
        return zp__gpu_msm_g1(l->s, &r, l->points.ptr, l->data.ptr, (uint64_t)1 << l->lg,
                              l->scratch);
    }
    if (l->kind == LANE_G2) {
        zp_g2_jac r;
        return zp__gpu_msm_g2(l->s, &r, l->points.ptr, l->data.ptr, (uint64_t)1 << l->lg,
                              l->scratch);
    }
    zp_fr shift;
    zp_fr_from_u64(&shift, 7);
    zp_err e = zp__gpu_ntt_to_coset(l->s, l->data.ptr, l->lg, ZP_ROOTS_BELLPERSON, &shift);
    return e ? e : zp__gpu_stream_sync(l->s);
}

/* Operations for l->seconds (one first, untimed): l->rate. */
static void *lane_run(void *arg)
{
    lane *l = arg;
    l->err = lane_op(l);
    double t0 = zp__now(), t = t0;
    unsigned long ops = 0;
    while (!l->err && t - t0 < l->seconds) {
        l->err = lane_op(l);
        ops++;
        t = zp__now();
    }
    l->rate = t > t0 ? (double)ops / (t - t0) : 0;
    return NULL;
}

/* A witness chunk's scalars: the first n of a porep witness's layout
 * over 8n/7, i.e. its body before the dense tail. */
static zp_err wit_scalars(zp__gpu_stream *s, void *d, uint64_t n)
{
    const uint64_t whole = n / 7 * 8 + 8;
    zp_fr *h = malloc(whole * sizeof *h);
    if (!h)
        return ZP_E_NOMEM;
    zp__bench_host_scalars(h, whole, true, true, 11);
    zp_err e = zp__gpu_upload(s, d, h, n * sizeof *h);
    if (!e)
        e = zp__gpu_stream_sync(s); /* h is freed now */
    free(h);
    return e;
}

/* The MSM lanes' scratch and, for hacc, its kept buckets at the window a
 * streaming slot takes for chunks of n points (ring buffers of 2 x 96n). */
static zp_err msm_room(zp__gpu *g, lane *l, uint64_t n, bool g2)
{
    if (l->kind != LANE_HACC)
        return zp__gpu_alloc(g, &l->scratch, zp__gpu_msm_scratch_bytes_pass(n, g2, 2));
    const unsigned c = zp__g16_h_acc_window(2 * sizeof(zp_g1_affine) * n, n);
    zp_err e = zp__gpu_alloc(g, &l->scratch, zp__gpu_msm_acc_scratch_bytes(n, c));
    if (!e)
        e = zp__gpu_alloc(g, &l->buckets, zp__gpu_msm_acc_bytes(c));
    if (!e)
        e = zp__gpu_msm_g1_acc_begin(&l->acc, l->buckets, c);
    return e;
}

static zp_err lane_open(zp__gpu *g, lane *l, bool twist)
{
    const uint64_t n = (uint64_t)1 << l->lg;
    zp_err e = l->s ? ZP_OK : zp__gpu_stream_open(g, &l->s);
    if (!e)
        e = zp__gpu_alloc(g, &l->data, n * sizeof(zp_fr));
    if (!e)
        e = l->kind == LANE_WIT ? wit_scalars(l->s, l->data.ptr, n)
                                : zp__gpu_fill_random_fr(l->s, l->data.ptr, n, 5 + l->lg);
    if (!e && l->kind != LANE_NTT) {
        bool g2 = l->kind == LANE_G2;
        e = zp__gpu_alloc(g, &l->points, n * (g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine)));
        if (!e)
            e = msm_room(g, l, n, g2);
        if (!e)
            e = zp__bench_gpu_points(g, l->s, l->points.ptr, n, g2);
    }
    if (!e && l->kind == LANE_NTT && twist && zp__gpu_ntt_twist_bytes(l->lg)) {
        e = zp__gpu_ntt_twist_build(l->s, &l->twist, l->lg, ZP_ROOTS_BELLPERSON);
        zp__gpu_stream_set_twist(l->s, &l->twist);
    }
    if (!e)
        e = zp__gpu_stream_sync(l->s);
    return e;
}

static void lane_close(zp__gpu *g, lane *l)
{
    if (!l->s)
        return;
    zp__gpu_stream_sync(l->s);
    zp__gpu_ntt_twist_free(g, &l->twist);
    zp__gpu_free(g, &l->buckets);
    zp__gpu_free(g, &l->scratch);
    zp__gpu_free(g, &l->points);
    zp__gpu_free(g, &l->data);
    zp__gpu_stream_close(l->s);
}

static const char *work_name(const lane *l, char *buf, size_t len)
{
    static const char *const kind[] = {"ntt", "msm", "g2", "hacc", "wit"};
    snprintf(buf, len, "%s:%u", kind[l->kind], l->lg);
    return buf;
}

/* a alone, b alone, both at once: the three phases' rates. */
static zp_err corun(lane l[2], double seconds, double alone[2], double both[2])
{
    for (int i = 0; i < 2; i++) {
        l[i].seconds = seconds;
        lane_run(&l[i]);
        if (l[i].err)
            return l[i].err;
        alone[i] = l[i].rate;
    }
    pthread_t th;
    if (pthread_create(&th, NULL, lane_run, &l[1]))
        return ZP_E_NOMEM;
    lane_run(&l[0]);
    pthread_join(th, NULL);
    both[0] = l[0].rate;
    both[1] = l[1].rate;
    return l[0].err ? l[0].err : l[1].err;
}

int zp__bench_corun(int argc, char **argv)
{
    lane l[2];
    memset(l, 0, sizeof l);
    l[0].kind = LANE_NTT;
    l[0].lg = 27;
    l[1].kind = LANE_MSM;
    l[1].lg = 27;
    int seconds = 10;
    bool twist = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool bad = false;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(corun_help, stdout);
            return 0;
        } else if ((!strcmp(a, "--a") || !strcmp(a, "--b")) && v) {
            bad = !parse_work(v, &l[a[2] == 'b']);
            i++;
        } else if (!strcmp(a, "--seconds") && v) {
            bad = zp__parse_int(v, 1, 600, &seconds) != 0;
            i++;
        } else if (!strcmp(a, "--twist")) {
            twist = true;
        } else {
            bad = true;
        }
        if (bad) {
            fprintf(stderr, "zkpipe bench corun: bad option '%s%s%s'\n%s", a, v ? " " : "",
                    v ? v : "", corun_help);
            return 2;
        }
    }
    char na[32], nb[32];
    work_name(&l[0], na, sizeof na);
    work_name(&l[1], nb, sizeof nb);
    printf("corun %s%s + %s, %d s a phase\n", na, twist ? " (twist tables)" : "", nb, seconds);
    fflush(stdout);
    zp__gpu *g = zp__bench_open_gpu(&l[0].s); /* lane a takes its stream */
    if (!g)
        return 1;
    /* The MSMs choose their kernels as for two prover slots, alone too. */
    zp__gpu_slots_add(g, 2);
    zp_err e = ZP_OK;
    for (int i = 0; i < 2 && !e; i++)
        e = lane_open(g, &l[i], twist);
    double alone[2] = {0, 0}, both[2] = {0, 0};
    if (!e)
        e = corun(l, seconds, alone, both);
    if (e) {
        fprintf(stderr, "zkpipe bench corun: %s (%s)\n", zp_strerror(e), zp__gpu_last_error());
    } else {
        for (int i = 0; i < 2; i++)
            printf("  %s: alone %.3f ops/s (%.2f ms each), together %.3f ops/s (%.2f ms)\n",
                   i ? nb : na, alone[i], 1e3 / alone[i], both[i],
                   both[i] > 0 ? 1e3 / both[i] : 0.0);
        printf("RESULT,corun,%s,%s,%d,%.4f,%.4f,%.4f,%.4f,%.4f\n", na, nb, twist, alone[0],
               alone[1], both[0], both[1], both[0] / alone[0] + both[1] / alone[1]);
        printf("  fractions kept together: %.3f + %.3f = %.3f\n", both[0] / alone[0],
               both[1] / alone[1], both[0] / alone[0] + both[1] / alone[1]);
    }
    for (int i = 0; i < 2; i++)
        lane_close(g, &l[i]);
    zp__gpu_slots_add(g, -2);
    zp__gpu_close(g);
    return e ? 1 : 0;
}
