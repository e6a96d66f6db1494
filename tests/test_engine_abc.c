/*
 * Jobs of evaluated a, b, c in the engine (engine/abc.h) with a key read
 * from a bellperson .params file: each partition's proof equals the one
 * zp__prove makes from its circuit's witness with the same r, s; a, b, c
 * are reported consumed once per partition; a partition whose inputs do
 * not satisfy the circuit, or whose bitmaps disagree with their sizes,
 * fails its job with a message; the public zp_engine_submit refuses the
 * kind; the engine keeps working after each failure.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "engine/abc.h"
#include "groth16/prove_gpu_stages.h"
#include "io/bellperson.h"
#include "test_abc_util.h"
#include "test_engine_util.h"

#define PARTS 3

typedef struct counts {
    pthread_mutex_t mu;
    int n[PARTS];
} counts;

static void on_consumed(void *ctx, uint32_t part)
{
    counts *c = ctx;
    pthread_mutex_lock(&c->mu);
    c->n[part]++;
    pthread_mutex_unlock(&c->mu);
}

typedef struct world {
    g16_fix f;
    char path[64];
    zp_fr *w[PARTS];
    abc_fix x[PARTS];
    zp__abc_part p[PARTS];
    counts cnt;
} world;

static void world_make(world *s)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->cnt.mu, NULL);
    CHECK(fix_make(&s->f, "porep:8", ZP_H_TAU, 1) == 0);
    snprintf(s->path, sizeof s->path, "/tmp/zp-engabc-%d.params", (int)getpid());
    CHECK_EQ_INT(zp__params_save(s->path, &s->f.pk, 1, NULL), ZP_OK);
    for (int i = 0; i < PARTS; i++) {
        s->w[i] = malloc(s->f.cs.n_vars * sizeof(zp_fr));
        CHECK_EQ_INT(zp__synth_witness(s->w[i], &s->f.cs, &s->f.sp, 40 + (uint64_t)i), ZP_OK);
        abc_fix_make(&s->x[i], &s->f.cs, s->w[i]);
        s->p[i].in = s->x[i].in;
        fr_u64(&s->p[i].r, 7 + (uint64_t)i);
        fr_u64(&s->p[i].s, 70 + (uint64_t)i);
        s->p[i].consumed = on_consumed;
        s->p[i].ctx = &s->cnt;
    }
}

static void world_free(world *s)
{
    for (int i = 0; i < PARTS; i++) {
        abc_fix_free(&s->x[i]);
        free(s->w[i]);
    }
    unlink(s->path);
    fix_free(&s->f);
    pthread_mutex_destroy(&s->cnt.mu);
}

static void test_same_proofs(void)
{
    world s;
    world_make(&s);
    zp_engine *e = t_open(2, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "bp", s.path), ZP_OK);
    for (int round = 0; round < 2; round++) { /* the second finds the key loaded */
        char id[ZP_JOB_ID_MAX + 1];
        memset(&s.cnt.n, 0, sizeof s.cnt.n);
        CHECK_EQ_INT(zp__engine_submit_abc(e, "bp", s.p, PARTS, id), ZP_OK);
        zp_job_result res;
        zp_job_info info;
        CHECK_EQ_INT(zp_engine_await(e, id, -1, &info, &res), ZP_OK);
        CHECK_EQ_INT(res.partitions, PARTS);
        for (int i = 0; i < PARTS; i++) {
            CHECK_EQ_INT(s.cnt.n[i], 1);
            zp__prove_opts o;
            zp__prove_opts_default(&o);
            o.r = &s.p[i].r;
            o.s = &s.p[i].s;
            zp__proof p;
            uint8_t want[ZP__PROOF_BYTES];
            CHECK_EQ_INT(zp__prove(&p, &s.f.pk, s.w[i], s.f.pk.n_vars, &o, NULL, NULL), ZP_OK);
            CHECK_EQ_INT(zp__proof_encode(want, &p), ZP_OK);
            CHECK(res.proofs && !memcmp(res.proofs + (size_t)i * 192, want, 192));
        }
        CHECK(t_result_verifies(e, "bp", &res));
        zp_job_result_free(&res);
    }
    /* The public submit does not take the kind. */
    zp_witness w = {.kind = (zp_witness_kind)ZP__WITNESS_ABC, .data = &s.p[0],
                    .len = sizeof s.p[0]};
    zp_job_request r = {.key = "bp", .priority = ZP_PRIO_NORMAL, .partitions = 1,
                        .witnesses = &w, .n_witnesses = 1};
    CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_E_INVALID_ARG);
    zp_engine_close(e);
    world_free(&s);
}

static zp_err run_one(zp_engine *e, world *s, zp_job_info *info)
{
    char id[ZP_JOB_ID_MAX + 1];
    zp_err err = zp__engine_submit_abc(e, "bp", s->p, PARTS, id);
    if (err)
        return err;
    return zp_engine_await(e, id, -1, info, NULL);
}

static void test_failures(void)
{
    world s;
    world_make(&s);
    zp_engine *e = t_open(1, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "bp", s.path), ZP_OK);
    zp_job_info info;
    /* A popcount that disagrees with the bitmap. */
    s.p[1].in.b_aux_pop++;
    CHECK_EQ_INT(run_one(e, &s, &info), ZP_E_BAD_LENGTH);
    CHECK(strstr(info.message, "B aux density") != NULL);
    s.p[1].in.b_aux_pop--;
    /* Aux values that do not satisfy the circuit: fails without retry. */
    zp_fr keep = s.w[2][s.f.cs.n_vars - 1];
    zp_fr_add(&s.w[2][s.f.cs.n_vars - 1], &keep, &s.w[2][0]);
    CHECK_EQ_INT(run_one(e, &s, &info), ZP_E_VERIFY_FAILED);
    CHECK(strstr(info.message, "do not satisfy") != NULL);
    s.w[2][s.f.cs.n_vars - 1] = keep;
    /* abc_size above the domain. */
    s.p[0].in.abc_size = s.f.pk.domain_size + 1;
    CHECK_EQ_INT(run_one(e, &s, &info), ZP_E_BAD_LENGTH);
    CHECK(strstr(info.message, "abc_size") != NULL);
    s.p[0].in.abc_size = s.x[0].in.abc_size;
    /* And the engine still proves. */
    CHECK_EQ_INT(run_one(e, &s, &info), ZP_OK);
    /* A key that is not a .params file the engine can read. */
    CHECK_EQ_INT(zp_engine_add_key(e, "gone", "/nonexistent/x.params"), ZP_OK);
    char id[ZP_JOB_ID_MAX + 1];
    CHECK_EQ_INT(zp__engine_submit_abc(e, "gone", s.p, PARTS, id), ZP_OK);
    CHECK(zp_engine_await(e, id, -1, &info, NULL) != ZP_OK);
    CHECK(info.message[0] != 0);
    CHECK_EQ_INT(zp__engine_submit_abc(e, "bp", s.p, 0, id), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__engine_submit_abc(e, "nokey", s.p, 1, id), ZP_E_NOT_FOUND);
    zp_engine_close(e);
    world_free(&s);
}

/* What a GPU slot does before making the key resident (gpu_worker.c):
 * a .params key takes the maps of its first partition and empty
 * matrices, after which the GPU prover's key checks pass; other maps are
 * refused (that partition runs with the CPU stages). */
static void test_key_maps(void)
{
    world s;
    world_make(&s);
    zp_engine *e = t_open(1, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "bp", s.path), ZP_OK);
    pthread_mutex_lock(&e->mu);
    zp__key *k = zp__key_find(e, "bp");
    pthread_mutex_unlock(&e->mu);
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__key_acquire(e, k, &why), ZP_OK);
    CHECK(!zp__pk_counts_ok(&k->pk)); /* no maps from the file */
    CHECK(zp__key_abc_maps(e, k, &s.x[0].in));
    CHECK(zp__pk_counts_ok(&k->pk));
    CHECK(zp__g16_gpu_key_ok(&k->pk, NULL) == ZP_OK);
    CHECK(k->pk.ma.nrows == 0 && k->pk.mb.nrows == 0);
    size_t words = (size_t)s.f.pk.n_vars / 64 + 1;
    CHECK_MEM(k->pk.a_density.words, s.f.pk.a_density.words, words * 8);
    CHECK_MEM(k->pk.b_density.words, s.f.pk.b_density.words, words * 8);
    CHECK(zp__key_abc_maps(e, k, &s.x[1].in)); /* the same circuit's */
    uint64_t *bw = s.x[1].maps;                /* A aux: one bit off */
    uint64_t i = 0;
    while (!(bw[i / 64] >> (i % 64) & 1))
        i++;
    bw[i / 64] ^= 1ULL << (i % 64);
    CHECK(!zp__key_abc_maps(e, k, &s.x[1].in));
    bw[i / 64] ^= 1ULL << (i % 64);
    zp__key_release(e, k);
    /* Unloaded and loaded again: the maps come back from the key. */
    CHECK_EQ_INT(zp_engine_evict_key(e, "bp"), ZP_OK);
    CHECK_EQ_INT(zp__key_acquire(e, k, &why), ZP_OK);
    CHECK(k->pk.a_density.words == NULL);
    CHECK(zp__key_abc_maps(e, k, &s.x[2].in));
    CHECK(zp__pk_counts_ok(&k->pk));
    zp__key_release(e, k);
    /* A key with maps of its own (synthetic) compares with them. */
    CHECK_EQ_INT(zp_engine_add_key(e, "syn", "synth:porep:8"), ZP_OK);
    pthread_mutex_lock(&e->mu);
    zp__key *ks = zp__key_find(e, "syn");
    pthread_mutex_unlock(&e->mu);
    CHECK_EQ_INT(zp__key_acquire(e, ks, &why), ZP_OK);
    CHECK(zp__key_abc_maps(e, ks, &s.x[0].in)); /* the same circuit, another key */
    bw[i / 64] ^= 1ULL << (i % 64);
    CHECK(!zp__key_abc_maps(e, ks, &s.x[1].in));
    bw[i / 64] ^= 1ULL << (i % 64);
    zp__key_release(e, ks);
    zp_engine_close(e);
    world_free(&s);
}

int main(void)
{
    RUN(test_same_proofs);
    RUN(test_failures);
    RUN(test_key_maps);
    return FINISH();
}
