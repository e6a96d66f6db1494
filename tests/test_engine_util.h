/*
 * Shared helpers of the engine tests: open an engine with small settings,
 * submit synthetic jobs, and check a job's proofs independently (decode
 * every 192-byte proof and verify it against the key's verifying key with
 * the returned public inputs).
 */
#ifndef ZP_TEST_ENGINE_UTIL_H
#define ZP_TEST_ENGINE_UTIL_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "engine/engine_impl.h"
#include "engine/util.h"
#include "groth16/groth16.h"
#include "zkpipe.h"

/* Small enough that a proof takes milliseconds on one core. */
#define T_CIRCUIT "synth:chain:5"
#define T_CIRCUIT2 "synth:dense:5"

static inline zp_engine *t_open(int workers, int verifiers, void (*tweak)(zp_engine_config *))
{
    zp_engine_config c;
    zp_engine_config_default(&c);
    c.cpu_workers = workers;
    c.verify_threads = verifiers;
    c.threads_per_worker = 1;
    if (tweak)
        tweak(&c);
    zp_engine *e = NULL;
    zp_err err = zp_engine_open(&e, &c);
    CHECK_EQ_INT(err, ZP_OK);
    return e;
}

static inline zp_err t_submit(zp_engine *e, const char *id, const char *key, zp_priority prio,
                       uint32_t parts, uint64_t seed, char *id_out)
{
    zp_witness w = {.kind = ZP_WITNESS_SYNTH, .seed = seed};
    zp_job_request r = {.id = id, .key = key, .priority = prio, .partitions = parts,
                        .witnesses = &w, .n_witnesses = 1};
    return zp_engine_submit(e, &r, id_out);
}

/* The key named `name` (NULL where none), looked up under the engine's lock. */
static inline const zp__key *t_key(zp_engine *e, const char *name)
{
    pthread_mutex_lock(&e->mu);
    const zp__key *k = zp__key_find(e, name);
    pthread_mutex_unlock(&e->mu);
    return k;
}

/* Every proof of res verifies with the key's vk and its public inputs. */
static inline bool t_result_verifies(zp_engine *e, const char *key, const zp_job_result *res)
{
    const zp__key *k = t_key(e, key);
    if (!k || k->tier < ZP_KEY_HOST || res->proofs_len != (size_t)res->partitions * 192 ||
        res->public_len != (size_t)res->partitions * res->n_public * 32)
        return false;
    bool ok = true;
    for (uint32_t p = 0; p < res->partitions && ok; p++) {
        zp__proof proof;
        ok = zp__proof_decode(&proof, res->proofs + 192 * p, 192) == ZP_OK;
        zp_fr pub[64];
        /* zp_fr_from_le reads the standard value into Montgomery form. */
        for (uint32_t i = 0; ok && i < res->n_public && i < 64; i++)
            ok = zp_fr_from_le(&pub[i], res->public_inputs + 32 * ((size_t)p * res->n_public + i)) ==
                 ZP_OK;
        ok = ok && res->n_public <= 64 &&
             zp__verify(&k->pk.vk, pub, res->n_public, &proof) == ZP_OK;
    }
    return ok;
}

/* Awaits id (forever), expects success and valid proofs. */
static inline void t_await_ok(zp_engine *e, const char *id, const char *key, uint32_t parts)
{
    zp_job_info info;
    zp_job_result res;
    zp_err err = zp_engine_await(e, id, -1, &info, &res);
    if (err)
        fprintf(stderr, "job %s: %s: %s\n", id, zp_errname(err), info.message);
    CHECK_EQ_INT(err, ZP_OK);
    CHECK_EQ_INT(info.state, ZP_JOB_DONE);
    CHECK_EQ_INT(res.partitions, parts);
    CHECK_EQ_INT(info.partitions_done, parts);
    CHECK(t_result_verifies(e, key, &res));
    zp_job_result_free(&res);
}

static inline void t_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Polls until the job reaches at least `state` (or 20 s pass). */
static inline bool t_wait_state(zp_engine *e, const char *id, zp_job_state state)
{
    for (int i = 0; i < 20000; i++) {
        zp_job_info info;
        if (zp_engine_job_status(e, id, &info) == ZP_OK && info.state >= state)
            return true;
        t_sleep_ms(1);
    }
    return false;
}

/* Polls until no partition is at a worker or in the pool. */
static inline bool t_wait_idle(zp_engine *e)
{
    for (int i = 0; i < 20000; i++) {
        zp_engine_info st;
        if (zp_engine_status(e, &st) == ZP_OK && st.running_partitions == 0 &&
            st.workers_busy == 0)
            return true;
        t_sleep_ms(1);
    }
    return false;
}

#endif
