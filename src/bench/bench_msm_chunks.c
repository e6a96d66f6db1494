/*
 * zkpipe bench msm --chunks: a streaming slot's MSMs, whose points come a
 * staging buffer at a time, against one MSM over all of them. Without
 * --sparse H's case (random scalars, no 0/1 split) three ways, K MSMs
 * summed on the host, one sum into kept buckets (zp__gpu_msm_acc) and one
 * MSM over all; with it the witness MSMs' case, K MSMs against one. Each
 * way's phases (bench_gpu.c's options and output lines).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "tool/timing.h"

/* The chunks' lengths: n in k chunks, the last one shorter where k does
 * not divide n. */
static uint64_t chunk_of(uint64_t n, uint64_t k)
{
    return (n + k - 1) / k;
}

/* The phases of one MSM added to *sum. */
static void phases_add(zp__gpu_msm_phases *sum, const zp__gpu_stream *s)
{
    zp__gpu_msm_phases ph;
    zp__gpu_msm_last_phases(s, &ph);
    sum->split += ph.split;
    sum->sort += ph.sort;
    sum->accumulate += ph.accumulate;
    sum->reduce += ph.reduce;
    sum->ones += ph.ones;
    sum->total += ph.total;
    sum->round1 += ph.round1;
    sum->round2 += ph.round2;
    sum->xyzz += ph.xyzz;
}

/* K chunk MSMs of len points over [0, nl), each its own MSM, summed on
 * the host: with the 0/1 split (their phases added to *ph) or without. */
static zp_err chunk_msms(zp__gpu_stream *s, zp_g1_jac *sum, const zp_g1_affine *pts,
                         const zp_fr *sc, uint64_t nl, uint64_t len, bool split,
                         zp__gpu_buf scratch, zp__gpu_msm_phases *ph)
{
    zp_err e = ZP_OK;
    zp_g1_jac_inf(sum);
    for (uint64_t at = 0; at < nl && !e; at += len) {
        zp_g1_jac part;
        const uint64_t m = nl - at < len ? nl - at : len;
        e = split ? zp__gpu_msm_g1(s, &part, pts + at, sc + at, m, scratch)
                  : zp__gpu_msm_g1_nosplit(s, &part, pts + at, sc + at, m, scratch);
        if (!e && ph)
            phases_add(ph, s);
        zp_g1_jac_add(sum, sum, &part);
    }
    return e;
}

/* The kept buckets' window of --chunks --sparse at 2^lg: --acc-c, else the
 * window of an MSM over an eighth of the points (a porep witness's dense
 * share). */
static unsigned sparse_acc_c(const zp__bench_chunks *o, int lg)
{
    return o->acc_c ? (unsigned)o->acc_c : zp__gpu_msm_acc_window(((uint64_t)1 << lg) / 8);
}

static void phases_print(const char *what, const zp__gpu_msm_phases *ph)
{
    printf("        %s (ms): split %.2f, digits+sort %.2f, accumulate %.2f (round 1 %.2f, "
           "round 2 %.2f, xyzz %.2f), reduce %.2f, ones %.2f; total %.2f\n",
           what, ph->split, ph->sort, ph->accumulate, ph->round1, ph->round2, ph->xyzz,
           ph->reduce, ph->ones, ph->total);
}

/* The K chunks of len points over [0, nl) with the 0/1 split into one set
 * of kept buckets at window c (zp__gpu_msm_g1_acc_add_split), their ones
 * summed on the host; the phases added to *ph. */
static zp_err chunk_acc_split(zp__gpu_stream *s, zp_g1_jac *sum, const zp_g1_affine *pts,
                              const zp_fr *sc, uint64_t nl, uint64_t len, unsigned c,
                              zp__gpu_buf bk, zp__gpu_buf scratch, zp__gpu_msm_phases *ph)
{
    zp__gpu_msm_acc acc;
    zp_g1_jac ones, part;
    zp_g1_jac_inf(&ones);
    zp_err e = zp__gpu_msm_g1_acc_begin(&acc, bk, c);
    for (uint64_t at = 0; at < nl && !e; at += len) {
        const uint64_t m = nl - at < len ? nl - at : len;
        e = zp__gpu_msm_g1_acc_add_split(s, &acc, pts + at, sc + at, m, scratch, &part);
        if (!e) {
            phases_add(ph, s);
            zp_g1_jac_add(&ones, &ones, &part);
        }
    }
    if (!e)
        e = zp__gpu_msm_g1_acc_end(s, &acc, sum, scratch);
    if (!e) {
        phases_add(ph, s);
        zp_g1_jac_add(sum, sum, &ones);
    }
    return e;
}

/* --chunks --sparse: the witness MSMs' case, with the 0/1 split: K MSMs of
 * their own summed (msm-g1s-k), the K chunks into kept buckets
 * (msm-g1s-acc, at --acc-c or the window of an eighth of the points
 * dense) and one MSM over all (msm-g1s-1), and the phases of the last run
 * of each, the K chunks' added up. */
int zp__bench_msm_chunks_sparse(const zp__bench_chunks *o)
{
    zp__gpu_stream *s = NULL;
    zp__gpu *g = zp__bench_open_gpu_msm(&s, &o->msm);
    if (!g)
        return 1;
    zp__gpu_stream_profile(s, true);
    const uint64_t n = (uint64_t)1 << o->to, K = (uint64_t)o->chunks;
    zp__gpu_buf dp = {NULL, 0}, ds = {NULL, 0}, scratch = {NULL, 0}, bk = {NULL, 0};
    /* The kept buckets at the largest window, and a scratch for the one
     * MSM and a chunk's kept sum. */
    uint64_t bb = 0, sb = zp__gpu_msm_scratch_bytes(n, false);
    for (int lg = o->from; lg <= o->to; lg++) {
        const unsigned c = sparse_acc_c(o, lg);
        const uint64_t len = chunk_of((uint64_t)1 << lg, K);
        const uint64_t x = zp__gpu_msm_acc_bytes(c),
                       y = zp__gpu_msm_acc_split_scratch_bytes(len, c, 0);
        bb = x > bb ? x : bb;
        sb = y > sb ? y : sb;
    }
    zp_fr *hs = malloc(n * sizeof *hs);
    zp_err e = hs ? zp__gpu_alloc(g, &dp, n * sizeof(zp_g1_affine)) : ZP_E_NOMEM;
    if (!e)
        e = zp__gpu_alloc(g, &ds, n * sizeof(zp_fr));
    if (!e)
        e = zp__gpu_alloc(g, &bk, bb);
    if (!e)
        e = zp__gpu_alloc(g, &scratch, sb);
    if (!e)
        e = zp__bench_gpu_points(g, s, dp.ptr, n, false);
    if (!e) {
        zp__bench_host_scalars(hs, n, true, o->tail, 3);
        e = zp__gpu_upload(s, ds.ptr, hs, n * sizeof *hs);
    }
    if (!e)
        e = zp__gpu_stream_sync(s);
    if (!e)
        printf("inputs: 2^%d G1 points, sparse scalars; scratch %.2f GiB; %llu chunks\n", o->to,
               (double)scratch.bytes / (1 << 30), (unsigned long long)K);
    const zp_g1_affine *pts = dp.ptr;
    const zp_fr *sc = ds.ptr;
    for (int lg = o->from; lg <= o->to && !e; lg++) {
        const uint64_t nl = (uint64_t)1 << lg, len = chunk_of(nl, K);
        const unsigned c = sparse_acc_c(o, lg);
        double ms[3][1000];
        zp_g1_jac sum[3];
        zp__gpu_msm_phases ph[3];
        for (int r = -o->warmup; r < o->reps && !e; r++) {
            memset(ph, 0, sizeof ph);
            double t[4];
            t[0] = zp__now();
            e = chunk_msms(s, &sum[0], pts, sc, nl, len, true, scratch, &ph[0]);
            t[1] = zp__now();
            if (!e)
                e = chunk_acc_split(s, &sum[1], pts, sc, nl, len, c, bk, scratch, &ph[1]);
            t[2] = zp__now();
            if (!e)
                e = zp__gpu_msm_g1(s, &sum[2], pts, sc, nl, scratch);
            if (!e)
                phases_add(&ph[2], s);
            t[3] = zp__now();
            for (int w = 0; w < 3 && r >= 0; w++)
                ms[w][r] = (t[w + 1] - t[w]) * 1e3;
        }
        if (!e && (!zp_g1_jac_eq(&sum[0], &sum[2]) || !zp_g1_jac_eq(&sum[1], &sum[2]))) {
            fprintf(stderr, "zkpipe bench msm: the sums over chunks differ from the one MSM's "
                            "at 2^%d\n", lg);
            e = ZP_E_GPU;
        }
        if (!e) {
            printf("2^%d in %llu chunks of %llu, sparse scalars; kept buckets at c = %u\n", lg,
                   (unsigned long long)K, (unsigned long long)len, c);
            const double floor_ms = zp__bench_msm_floor_ms(lg, false);
            static const char *const what[3] = {"msm-g1s-k", "msm-g1s-acc", "msm-g1s-1"};
            for (int w = 0; w < 3; w++) {
                zp__bench_report(what[w], "gpu", lg, ms[w], o->reps, floor_ms);
                phases_print(w < 2 ? "phases of the last run, the chunks' added"
                                   : "phases of the last run", &ph[w]);
            }
        }
    }
    free(hs);
    return zp__bench_msm_end(g, s, e, &bk, &scratch, &ds, &dp);
}

/* --chunks: H's MSM in K chunks three ways (msm_help), each size timed
 * alone; the sums compared. */
int zp__bench_msm_chunks(const zp__bench_chunks *o)
{
    zp__gpu_stream *s = NULL;
    zp__gpu *g = zp__bench_open_gpu_msm(&s, &o->msm);
    if (!g)
        return 1;
    zp__gpu_stream_profile(s, true);
    zp__gpu_msm_opts mo;
    zp__gpu_get_msm_opts(g, &mo);
    const uint64_t n = (uint64_t)1 << o->to, K = (uint64_t)o->chunks;
    /* The most any size asks for: scratch for the whole MSM, a chunk's and
     * the one sum's; the buckets at the largest window. */
    uint64_t sb = 0, bb = 0;
    for (int lg = o->from; lg <= o->to; lg++) {
        const uint64_t nl = (uint64_t)1 << lg;
        const unsigned c =
            o->acc_c ? (unsigned)o->acc_c : zp__gpu_msm_acc_window(chunk_of(nl, K));
        const uint64_t x[3] = {zp__gpu_msm_scratch_bytes_nosplit_opts(&mo, nl, false, 0),
                               zp__gpu_msm_acc_scratch_bytes(chunk_of(nl, K), c),
                               zp__gpu_msm_acc_bytes(c)};
        sb = x[0] > sb ? x[0] : sb;
        sb = x[1] > sb ? x[1] : sb;
        bb = x[2] > bb ? x[2] : bb;
    }
    zp__gpu_buf dp = {NULL, 0}, ds = {NULL, 0}, scratch = {NULL, 0}, bk = {NULL, 0};
    zp_err e = zp__gpu_alloc(g, &dp, n * sizeof(zp_g1_affine));
    if (!e)
        e = zp__gpu_alloc(g, &ds, n * sizeof(zp_fr));
    if (!e)
        e = zp__gpu_alloc(g, &bk, bb);
    /* The inputs first: making the points takes arena memory of its own
     * for a while. */
    if (!e)
        e = zp__bench_gpu_points(g, s, dp.ptr, n, false);
    if (!e)
        e = zp__gpu_fill_random_fr(s, ds.ptr, n, 3);
    if (!e)
        e = zp__gpu_stream_sync(s);
    /* Where every window a pass does not fit (a small window at 2^27 on an
     * 80 GB card), the scratch is what the arena has left: the whole MSM
     * and the K MSMs then sort fewer windows a pass (their phases say how
     * many), and an MSM that cannot run in it fails as out of memory. */
    bool capped = false;
    if (!e) {
        zp__gpu_info gi;
        zp__gpu_get_info(g, &gi);
        const uint64_t room = gi.arena_largest_free & ~(uint64_t)255;
        capped = sb > room;
        e = zp__gpu_alloc(g, &scratch, capped ? room : sb);
    }
    if (!e)
        printf("inputs: 2^%d G1 points and scalars; scratch %.2f GiB, buckets %.2f GiB; "
               "%llu chunks%s\n", o->to, (double)scratch.bytes / (1 << 30),
               (double)bb / (1 << 30), (unsigned long long)K,
               capped ? " (the arena's room: less than every window a pass asks)" : "");
    const zp_g1_affine *pts = dp.ptr;
    const zp_fr *sc = ds.ptr;
    for (int lg = o->from; lg <= o->to && !e; lg++) {
        const uint64_t nl = (uint64_t)1 << lg, len = chunk_of(nl, K);
        const unsigned c =
            o->acc_c ? (unsigned)o->acc_c : zp__gpu_msm_acc_window(chunk_of(nl, K));
        zp__gpu_buf acc_sc = scratch; /* the one sum's scratch */
        if (o->acc_mib && ((uint64_t)o->acc_mib << 20) < acc_sc.bytes)
            acc_sc.bytes = (uint64_t)o->acc_mib << 20;
        double ms[3][1000];
        zp_g1_jac sum[3];
        zp__gpu_msm_phases ph[3];
        unsigned windows[3] = {0}, per_pass[3] = {0};
        for (int r = -o->warmup; r < o->reps && !e; r++) {
            memset(ph, 0, sizeof ph);
            double t = zp__now();
            e = chunk_msms(s, &sum[0], pts, sc, nl, len, false, scratch, &ph[0]);
            if (!e)
                zp__gpu_msm_last_passes(s, &windows[0], &per_pass[0]);
            const double t1 = zp__now();
            zp__gpu_msm_acc acc;
            if (!e)
                e = zp__gpu_msm_g1_acc_begin(&acc, bk, c);
            for (uint64_t at = 0; at < nl && !e; at += len) {
                const uint64_t m = nl - at < len ? nl - at : len;
                e = zp__gpu_msm_g1_acc_add(s, &acc, pts + at, sc + at, m, acc_sc);
                if (!e && !at)
                    zp__gpu_msm_last_passes(s, &windows[1], &per_pass[1]);
                if (!e)
                    phases_add(&ph[1], s);
            }
            if (!e)
                e = zp__gpu_msm_g1_acc_end(s, &acc, &sum[1], acc_sc);
            if (!e)
                phases_add(&ph[1], s);
            const double t2 = zp__now();
            if (!e)
                e = zp__gpu_msm_g1_nosplit(s, &sum[2], pts, sc, nl, scratch);
            if (!e) {
                phases_add(&ph[2], s);
                zp__gpu_msm_last_passes(s, &windows[2], &per_pass[2]);
            }
            if (r >= 0) {
                ms[0][r] = (t1 - t) * 1e3;
                ms[1][r] = (t2 - t1) * 1e3;
                ms[2][r] = (zp__now() - t2) * 1e3;
            }
        }
        if (!e && (!zp_g1_jac_eq(&sum[0], &sum[2]) || !zp_g1_jac_eq(&sum[1], &sum[2]))) {
            fprintf(stderr, "zkpipe bench msm: the sums over chunks differ from the one MSM's "
                            "at 2^%d\n", lg);
            e = ZP_E_GPU;
        }
        if (!e) {
            printf("2^%d in %llu chunks of %llu; the one sum at c = %u in %.2f GiB of "
                   "scratch\n", lg, (unsigned long long)K, (unsigned long long)len, c,
                   (double)acc_sc.bytes / (1 << 30));
            static const char *const what[3] = {"msm-g1-k", "msm-g1-acc", "msm-g1-1"};
            for (int w = 0; w < 3; w++) {
                char line[96];
                zp__bench_report(what[w], "gpu", lg, ms[w], o->reps,
                                 zp__bench_msm_floor_ms(lg, false));
                snprintf(line, sizeof line, "phases of the last run (%u windows, %u a pass%s)",
                         windows[w], per_pass[w], w < 2 ? ", the chunks' added" : "");
                phases_print(line, &ph[w]);
            }
        }
    }
    return zp__bench_msm_end(g, s, e, &bk, &scratch, &ds, &dp);
}
