/*
 * zkpipe bench field: the GPU's field products per second, and the floors
 * they imply for the MSM accumulation and the NTT's butterflies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_gpu.h"
#include "gpu/bench/field_rate.h"
#include "tool/timing.h"

static const char field_help[] =
    "usage: zkpipe bench field [--reps N]\n"
    "Independent products per second over the whole GPU (Fp, Fp squares, Fr, Fp2),\n"
    "the medians of N launches (default 5), and the floors they imply for the\n"
    "kernels: a G1 MSM's accumulation (XYZZ: 8 products and 2 squares a point and\n"
    "window), a G2 MSM's (8 Fp2 products and 2 Fp2 squares of 2 Fp products), and\n"
    "the Fr NTT's butterflies (one product each). GPU only.\n";

static double msm_adds(int lg, unsigned windows) { return (double)windows * (double)(1ull << lg); }

int zp__bench_field(int argc, char **argv)
{
    int reps = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(field_help, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc && atoi(argv[i + 1]) >= 1 &&
            atoi(argv[i + 1]) <= 1000) {
            reps = atoi(argv[++i]);
        } else {
            fprintf(stderr, "zkpipe bench field: bad option '%s'\n%s", argv[i], field_help);
            return 2;
        }
    }
    zp__gpu_stream *s = NULL;
    zp__gpu *g = zp__bench_open_gpu(&s);
    if (!g)
        return 1;
    static const char *names[ZP_GPU_RATE_COUNT] = {"fp_mul", "fp_sqr", "fr_mul", "fp2_mul"};
    double rate[ZP_GPU_RATE_COUNT] = {0};
    zp__gpu_buf d = {NULL, 0};
    zp_err e = zp__gpu_alloc(g, &d, zp__gpu_field_rate_bytes());
    for (int op = 0; op < ZP_GPU_RATE_COUNT && !e; op++) {
        double r[1000];
        for (int k = 0; k < reps && !e; k++)
            e = zp__gpu_field_rate(s, d, op, &r[k]);
        if (e)
            break;
        rate[op] = zp__median(r, reps);
        printf("%-8s %.3e products/s (median of %d)\n", names[op], rate[op], reps);
        printf("RESULT,field,gpu,%s,%.4e\n", names[op], rate[op]);
    }
    zp__gpu_free(g, &d);
    zp__gpu_stream_close(s);
    zp__gpu_close(g);
    if (e) {
        fprintf(stderr, "zkpipe bench field: %s (%s)\n", zp_strerror(e), zp__gpu_last_error());
        return 1;
    }
    /* The window counts the GPU MSM picks at these sizes (bench msm prints them). */
    double g1 = msm_adds(24, 14) * (8 / rate[ZP_GPU_RATE_FP_MUL] + 2 / rate[ZP_GPU_RATE_FP_SQR]);
    double g1b = msm_adds(26, 13) * (8 / rate[ZP_GPU_RATE_FP_MUL] + 2 / rate[ZP_GPU_RATE_FP_SQR]);
    double g2 = msm_adds(22, 16) * (8 / rate[ZP_GPU_RATE_FP2_MUL] + 4 / rate[ZP_GPU_RATE_FP_MUL]);
    double ntt = 27.0 * (double)(1ull << 26) / rate[ZP_GPU_RATE_FR_MUL];
    printf("floors from these rates: G1 MSM accumulation 2^24 (14 windows) %.1f ms, 2^26 (13) "
           "%.1f ms; G2 2^22 (16) %.1f ms; Fr NTT 2^27 butterflies %.1f ms\n",
           g1 * 1e3, g1b * 1e3, g2 * 1e3, ntt * 1e3);
    return 0;
}
