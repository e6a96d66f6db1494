/*
 * Keys and witnesses with the CPU prover's proofs to compare against, and
 * a thread that proves them on a slot (test_gpu_slot.c, test_gpu_share.c):
 * a keycase is a synthetic circuit, its key made by zp__setup, N_WIT
 * witnesses and zp__prove's proof of each for one fixed r, s; worker_run
 * proves witnesses first, first + 2, ... on its slot round after round
 * and counts the proofs with zp__prove's bytes; two_workers runs one on
 * each of two slots at once and checks that every proof had them.
 * Include after gpu_test.h and prover_opts.h.
 */
#ifndef ZP_TEST_SLOT_KEYCASE_H
#define ZP_TEST_SLOT_KEYCASE_H

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "groth16/gpu_prover.h"
#include "groth16/groth16.h"
#include "groth16/prove_gpu_stages.h"
#include "r1cs/synth.h"

#define N_WIT 4

typedef struct keycase {
    zp__synth_spec sp;
    zp__r1cs cs;
    zp__pk pk;
    zp_fr *w[N_WIT];
    uint8_t want[N_WIT][ZP__PROOF_BYTES]; /* zp__prove's, fixed r, s */
    zp_fr r, s;
} keycase;

/* Prove options with the keycase's fixed r, s. */
static void fixed_opts(zp__prove_opts *o, const keycase *c, int threads)
{
    zp__prove_opts_default(o);
    o->threads = threads;
    o->r = &c->r;
    o->s = &c->s;
}

static void keycase_make(keycase *c, const char *spec, zp_h_conv conv)
{
    memset(c, 0, sizeof *c);
    CHECK_EQ_INT(zp__synth_parse(&c->sp, spec), ZP_OK);
    c->sp.threads = 2;
    c->sp.keep_c = true;
    CHECK_EQ_INT(zp__synth_circuit(&c->cs, &c->sp), ZP_OK);
    CHECK_EQ_INT(zp__setup(&c->pk, &c->cs, conv, 2, NULL), ZP_OK);
    zp_fr_from_u64(&c->r, 0x1234567ULL);
    zp_fr_from_u64(&c->s, 0x89abcdefULL);
    zp_fr_mul(&c->r, &c->r, &c->s);
    zp__prove_opts o;
    fixed_opts(&o, c, 2);
    for (int i = 0; i < N_WIT; i++) {
        c->w[i] = xmalloc((size_t)c->cs.n_vars * sizeof(zp_fr));
        CHECK_EQ_INT(zp__synth_witness(c->w[i], &c->cs, &c->sp, 11 + (uint64_t)i), ZP_OK);
        zp__proof p;
        zp__ioerr why = {""};
        CHECK_EQ_INT(zp__prove(&p, &c->pk, c->w[i], c->cs.n_vars, &o, NULL, &why), ZP_OK);
        CHECK_EQ_INT(zp__proof_encode(c->want[i], &p), ZP_OK);
    }
    /* Different witnesses, different proofs: the comparison can fail. */
    CHECK(memcmp(c->want[0], c->want[1], ZP__PROOF_BYTES) != 0);
}

static void keycase_free(keycase *c)
{
    for (int i = 0; i < N_WIT; i++)
        free(c->w[i]);
    zp__pk_free(&c->pk);
    zp__r1cs_free(&c->cs);
}

typedef struct worker {
    const keycase *c;
    const zp__g16_dkey *k;
    zp__g16_slot *slot;
    int first, rounds;
    int good, bad;
    zp_err err;
    char msg[256];
} worker;

/* Proves witnesses first, first + 2, ... round after round; the odd rounds
 * go through the slot's pinned witness buffer. */
static void *worker_run(void *p)
{
    worker *x = p;
    const keycase *c = x->c;
    zp__prove_opts o;
    fixed_opts(&o, c, 1);
    for (int round = 0; round < x->rounds; round++)
        for (int i = x->first; i < N_WIT; i += 2) {
            const zp_fr *w = c->w[i];
            if (round & 1) {
                zp_fr *buf = zp__g16_slot_witness_buf(x->slot);
                memcpy(buf, w, (size_t)c->pk.n_vars * sizeof(zp_fr));
                w = buf;
            }
            zp__ioerr why = {""};
            zp__g16_sums sums;
            zp__proof pr;
            uint8_t got[ZP__PROOF_BYTES];
            zp_err e = zp__g16_slot_sums(x->slot, x->k, w, &sums, NULL, &why);
            /* A forced head: every witness goes in parts (the first to learn). */
            if (!e && T_opts.upload_head < T_opts.upload_parts)
                CHECK(zp__g16_slot_took_parts(x->slot));
            if (!e)
                e = zp__g16_finish_verify(&pr, &c->pk, &sums, w, &o, NULL, &why);
            if (!e)
                e = zp__proof_encode(got, &pr);
            if (e) {
                x->err = e;
                snprintf(x->msg, sizeof x->msg, "%s", why.msg);
                x->bad++;
            } else if (memcmp(got, c->want[i], ZP__PROOF_BYTES) != 0) {
                x->bad++;
            } else {
                x->good++;
            }
        }
    return NULL;
}

static void two_workers(const keycase *c, const zp__g16_dkey *k, zp__g16_slot *const slot[2],
                        int rounds)
{
    worker x[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        x[i] = (worker){.c = c, .k = k, .slot = slot[i], .first = i, .rounds = rounds};
        CHECK(pthread_create(&th[i], NULL, worker_run, &x[i]) == 0);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        if (x[i].err)
            fprintf(stderr, "  thread %d: %s: %s\n", i, zp_errname(x[i].err), x[i].msg);
        CHECK_EQ_INT(x[i].bad, 0);
        CHECK_EQ_INT(x[i].good, rounds * (N_WIT / 2));
    }
}

#endif
