/*
 * zkpipe bench verify: the Groth16 verifier's two ways on one proof of a
 * synthetic circuit, alternated round by round so that a noisy host drifts
 * into both alike: plain (four Miller loops, the reference and the way
 * before the key was prepared), prepared (zp__verify from its second call
 * on), the prepared way with vk_x made ahead (what a prover's verify costs
 * after its MSMs, having summed the public inputs during them) and the
 * one-time cost of preparing a key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "groth16/groth16.h"
#include "r1cs/synth.h"
#include "tool/cmdline.h"
#include "tool/timing.h"

struct verify_ctx {
    const zp__pk *pk;
    const zp_fr *pub;
    const zp__proof *proof;
    const zp__vk_prep *prep;
    zp_g1_affine vk_x;
    int bad; /* verdicts other than ZP_OK: must stay 0 */
};

static void plain_op(void *c, size_t n)
{
    struct verify_ctx *v = c;
    for (size_t i = 0; i < n; i++)
        v->bad += zp__verify_plain(&v->pk->vk, v->pub, v->pk->n_public, v->proof) != ZP_OK;
}

static void prepared_op(void *c, size_t n)
{
    struct verify_ctx *v = c;
    for (size_t i = 0; i < n; i++)
        v->bad += zp__verify_prepared(v->prep, &v->pk->vk, v->pub, v->pk->n_public,
                                      v->proof) != ZP_OK;
}

static void ahead_op(void *c, size_t n)
{
    struct verify_ctx *v = c;
    for (size_t i = 0; i < n; i++)
        v->bad += zp__verify_with_vk_x(&v->pk->vk, &v->vk_x, v->proof) != ZP_OK;
}

static void make_op(void *c, size_t n)
{
    struct verify_ctx *v = c;
    for (size_t i = 0; i < n; i++) {
        zp__vk_prep *p;
        v->bad += zp__vk_prep_make(&p, &v->pk->vk) != ZP_OK;
        zp__vk_prep_free(p);
    }
}

static int run(const char *spec, int reps, int rounds)
{
    zp__synth_spec sp;
    zp__r1cs cs;
    zp__pk pk;
    memset(&cs, 0, sizeof cs);
    memset(&pk, 0, sizeof pk);
    zp_fr *w = NULL;
    zp__vk_prep *prep = NULL;
    zp__proof proof;
    zp_err e = zp__synth_parse(&sp, spec);
    if (!e)
        e = zp__synth_circuit(&cs, &sp);
    if (!e && !(w = malloc(((size_t)cs.n_vars + 1) * sizeof *w)))
        e = ZP_E_NOMEM;
    if (!e)
        e = zp__synth_witness(w, &cs, &sp, 1);
    if (!e)
        e = zp__setup(&pk, &cs, ZP_H_TAU, 0, NULL);
    if (!e)
        e = zp__prove(&proof, &pk, w, pk.n_vars, NULL, NULL, NULL);
    if (!e)
        e = zp__vk_prep_make(&prep, &pk.vk);
    int rc = 0;
    if (e) {
        fprintf(stderr, "zkpipe bench verify: %s: %s\n", spec, zp_strerror(e));
        rc = 1;
    } else {
        struct verify_ctx v = {&pk, w + 1, &proof, prep, {{{0}}, {{0}}}, 0};
        /* The key's own prep, so that the vk_x way runs prepared too. */
        v.bad += zp__verify(&pk.vk, w + 1, pk.n_public, &proof) != ZP_OK;
        v.bad += zp__verify_vk_x(&v.vk_x, &pk.vk, w + 1, pk.n_public) != ZP_OK;
        printf("circuit %s: %u public inputs; median us of one verify over %d reps a "
               "round\n%-6s %10s %10s %10s %10s\n",
               spec, pk.n_public, reps, "round", "plain", "prepared", "vk_x_ahead",
               "prep_make");
        double pl[64], pr[64], ah[64], mk[64];
        for (int r = 0; r < rounds; r++) {
            pl[r] = zp__bench_median_ns(plain_op, &v, reps) * 1e-3;
            pr[r] = zp__bench_median_ns(prepared_op, &v, reps) * 1e-3;
            ah[r] = zp__bench_median_ns(ahead_op, &v, reps) * 1e-3;
            mk[r] = zp__bench_median_ns(make_op, &v, reps) * 1e-3;
            printf("%-6d %10.1f %10.1f %10.1f %10.1f\n", r + 1, pl[r], pr[r], ah[r], mk[r]);
        }
        printf("%-6s %10.1f %10.1f %10.1f %10.1f\n", "median", zp__median(pl, rounds),
               zp__median(pr, rounds), zp__median(ah, rounds), zp__median(mk, rounds));
        if (v.bad) {
            fprintf(stderr, "zkpipe bench verify: %d verifications failed\n", v.bad);
            rc = 1;
        }
    }
    zp__vk_prep_free(prep);
    zp__pk_free(&pk);
    zp__r1cs_free(&cs);
    free(w);
    return rc;
}

int zp__bench_verify(int argc, char **argv)
{
    static const char help[] =
        "usage: zkpipe bench verify [--circuit SPEC] [--reps N] [--rounds K]\n"
        "Makes a test key and one proof for the synthetic circuit SPEC (default\n"
        "porep:10), then times one verification, one thread, K rounds (default 5,\n"
        "at most 64) each of: the plain way (four Miller loops), the prepared way\n"
        "(what zp__verify does from the second proof of a key on), the prepared\n"
        "way with the public inputs' sum vk_x made ahead (a prover's verify after\n"
        "its MSMs) and preparing the key. Each figure is the median us over N\n"
        "batches (default 9).\n";
    if (zp__cli_wants_help(argc, argv, help))
        return 0;
    const char *spec = "porep:10";
    int reps = 9, rounds = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--circuit") && i + 1 < argc) {
            spec = argv[++i];
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            if (zp__parse_int(argv[++i], 1, 1000, &reps) != 0) {
                fprintf(stderr, "zkpipe bench verify: --reps wants 1..1000\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
            if (zp__parse_int(argv[++i], 1, 64, &rounds) != 0) {
                fprintf(stderr, "zkpipe bench verify: --rounds wants 1..64\n");
                return 2;
            }
        } else {
            fprintf(stderr, "zkpipe bench verify: unknown option '%s'\n%s", argv[i], help);
            return 2;
        }
    }
    return run(spec, reps, rounds);
}
