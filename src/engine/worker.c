/*
 * The CPU proving worker: takes one partition at a time and runs the
 * stages of docs/architecture.md with the CPU backend (groth16.h), recording each
 * stage. Between stages it looks whether the job was cancelled, so a
 * cancelled job frees its worker at the next stage boundary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_impl.h"
#include "engine/util.h"
#include "gpu/gpu.h"
#include "io/io.h"

zp_err zp__worker_reserve(zp_fr **p, uint64_t *cap, uint64_t n)
{
    if (n <= *cap)
        return ZP_OK;
    if (n > SIZE_MAX / sizeof(zp_fr))
        return ZP_E_TOO_LARGE;
    free(*p);
    *p = malloc((size_t)n * sizeof(zp_fr));
    *cap = *p ? n : 0;
    return *p ? ZP_OK : ZP_E_NOMEM;
}

void zp__worker_scratch_free(zp__worker *w)
{
    free(w->w);
    free(w->abc);
    w->w = w->abc = NULL;
    w->w_cap = w->abc_cap = 0;
}

/* Limit for a witness file read: 32 bytes per value plus a generous
 * header allowance, so a hostile path cannot make us map anything huge. */
void zp__key_drop_witnesses(zp__key *k)
{
    for (int i = 0; i < ZP__WCACHE_MAX; i++) {
        if (k->wc_pinned[i])
            zp__gpu_host_unregister(k->wcache[i]);
        k->wc_pinned[i] = false;
        free(k->wcache[i]);
        k->wcache[i] = NULL;
        k->wc_state[i] = 0;
    }
}

enum { WC_NONE, WC_MAKING, WC_READY };

/* Witness seed mod N of the key's cache, made once (e->mu NOT held). */
static zp_err cached_witness(zp_engine *e, const zp_fr **use, zp__key *key, uint64_t seed,
                             uint32_t n_vars, zp__ioerr *why)
{
    uint32_t n = e->cfg.synth_witness_cache < ZP__WCACHE_MAX ? e->cfg.synth_witness_cache
                                                             : ZP__WCACHE_MAX;
    unsigned i = (unsigned)(seed % n);
    pthread_mutex_lock(&e->mu);
    while (key->wc_state[i] == WC_MAKING)
        pthread_cond_wait(&e->key_cv, &e->mu);
    if (key->wc_state[i] == WC_READY) {
        *use = key->wcache[i];
        pthread_mutex_unlock(&e->mu);
        return ZP_OK;
    }
    key->wc_state[i] = WC_MAKING;
    pthread_mutex_unlock(&e->mu);
    zp_fr *w = malloc((size_t)n_vars * sizeof *w);
    zp_err err = w ? zp__synth_witness(w, &key->cs, &key->spec, i) : ZP_E_NOMEM;
    if (err)
        zp__fail(why, err, "cannot generate the synthetic witness: %s", zp_strerror(err));
    /* GPU slots upload straight from it: page-locked, that runs at full
     * PCIe speed (from pageable memory the upload of a porep:27 witness
     * takes many times as long as eval's kernel). Unpinned it still works,
     * only slower. */
    bool pinned = !err && e->n_gpus > 0 &&
                  zp__gpu_host_register(w, (uint64_t)n_vars * sizeof *w, false) == ZP_OK;
    pthread_mutex_lock(&e->mu);
    key->wc_pinned[i] = pinned;
    key->wc_state[i] = err ? WC_NONE : WC_READY;
    key->wcache[i] = err ? NULL : w;
    pthread_cond_broadcast(&e->key_cv);
    pthread_mutex_unlock(&e->mu);
    if (err)
        free(w);
    *use = err ? NULL : w;
    return err;
}

zp_err zp__load_witness(zp_engine *e, zp_fr *dst, const zp_fr **use, const zp__job *j,
                        uint32_t part, zp__key *key, uint32_t n_vars, zp__ioerr *why)
{
    zp_err err;
    const zp__wit *src = &j->wit[j->n_wit == 1 ? 0 : part];
    *use = dst;
    if (src->kind == ZP_WITNESS_SYNTH && e->cfg.synth_witness_cache) {
        uint64_t seed = src->seed + (j->n_wit == 1 ? part : 0);
        return cached_witness(e, use, key, seed, n_vars, why);
    }
    switch (src->kind) {
    case ZP_WITNESS_FILE: /* read, not mapped: the file may change under us */
        err = zp__wtns_read_into(dst, n_vars, src->path, why);
        break;
    case ZP_WITNESS_MEMORY:
        err = zp__wtns_decode_into(dst, n_vars, src->data, src->len, why);
        break;
    case ZP_WITNESS_SYNTH: {
        uint64_t seed = src->seed + (j->n_wit == 1 ? part : 0);
        err = zp__synth_witness(dst, &key->cs, &key->spec, seed);
        if (err)
            zp__fail(why, err, "cannot generate the synthetic witness: %s", zp_strerror(err));
        break;
    }
    default:
        err = zp__fail(why, ZP_E_INVALID_ARG, "unknown witness kind");
    }
    if (!err && !zp_fr_is_one(&dst[0]))
        err = zp__fail(why, ZP_E_WITNESS, "the witness does not start with 1 (w[0] = ONE)");
    return err;
}

/* Fills w->w with partition part's witness (key loaded and referenced). */
static zp_err load_witness(zp__worker *w, const zp__job *j, uint32_t part, zp__key *key,
                           zp__ioerr *why)
{
    const zp__pk *pk = &key->pk;
    zp_err err = zp__worker_reserve(&w->w, &w->w_cap, pk->n_vars);
    if (err)
        return zp__fail(why, err, "no memory for a witness of %u values", pk->n_vars);
    const zp_fr *use;
    err = zp__load_witness(w->e, w->w, &use, j, part, key, pk->n_vars, why);
    if (!err && use != w->w)
        memcpy(w->w, use, (size_t)pk->n_vars * sizeof *use);
    return err;
}

typedef struct part_run {
    zp_engine *e;
    zp__worker *w;
    zp__job *j;
    uint32_t part;
    double t;            /* start of the current stage */
} part_run;

/* Closes the current stage; true when the job died meanwhile. */
static bool stage_end(part_run *r, zp__stage st)
{
    double now = zp__eng_now(r->e);
    zp__eng_stage(r->e, (uint32_t)r->w->index, st, r->j, r->part, r->t, now);
    r->t = now;
    return zp__eng_job_dead(r->e, r->j);
}

zp_err zp__eng_finish(zp__proof *proof, uint8_t *bytes, const zp__pk *pk,
                      const zp__g16_sums *sums, zp__ioerr *why)
{
    zp_fr rr, ss;
    if (zp_fr_random(&rr) || zp_fr_random(&ss))
        return zp__fail(why, ZP_E_RANDOM, "the OS random source failed (blinding r, s)");
    zp__g16_finish(proof, pk, sums, &rr, &ss);
    zp_err err = zp__proof_encode(bytes, proof);
    if (err)
        zp__fail(why, err, "the proof cannot be encoded: %s", zp_strerror(err));
    return err;
}

/* eval → h → msm → finish on the loaded key; the proof and its bytes out. */
static zp_err run_stages(part_run *r, const zp__pk *pk, zp__proof *out, uint8_t *bytes,
                         zp__ioerr *why)
{
    zp__worker *w = r->w;
    int th = r->e->threads_per_worker;
    uint64_t n = pk->domain_size;
    if (n > UINT64_MAX / 3 || zp__worker_reserve(&w->abc, &w->abc_cap, 3 * n))
        return zp__fail(why, ZP_E_NOMEM, "no memory for the a, b, c arrays of %llu values",
                        (unsigned long long)n);
    zp_fr *a = w->abc, *b = a + n, *c = b + n;
    zp__g16_eval(a, b, c, pk, w->w, th);
    if (stage_end(r, ZP__ST_EVAL))
        return ZP_E_CANCELLED;
    zp_err err = zp__g16_h(a, a, b, c, pk, th);
    if (err)
        return zp__fail(why, err, "stage h failed: %s", zp_strerror(err));
    if (stage_end(r, ZP__ST_H))
        return ZP_E_CANCELLED;
    zp__g16_sums sums;
    if ((err = zp__g16_msm(&sums, pk, w->w, a, th, NULL)))
        return zp__fail(why, err, "stage msm failed: %s", zp_strerror(err));
    if (stage_end(r, ZP__ST_MSM))
        return ZP_E_CANCELLED;
    return zp__eng_finish(out, bytes, pk, &sums, why);
}

static void run_partition(zp_engine *e, zp__worker *w, zp__job *j, uint32_t part)
{
    part_run r = {e, w, j, part, zp__eng_now(e)};
    zp__ioerr why = {{0}};
    zp__proof proof;
    uint8_t bytes[ZP__PROOF_BYTES];
    memset(&proof, 0, sizeof proof);
    zp__key *key = j->key;
    zp_err err = zp__key_acquire(e, key, &why);
    bool held = !err;
    if (!err && !zp__pk_shape_ok(&key->pk))
        err = zp__fail(&why, ZP_E_INVALID_ARG, "the key's counts disagree with each other");
    if (!err)
        err = load_witness(w, j, part, key, &why);
    if (!err)
        err = zp__eng_fault(e, w, &why);
    if (!err && stage_end(&r, ZP__ST_ACQUIRE))
        err = ZP_E_CANCELLED;
    if (!err)
        err = run_stages(&r, &key->pk, &proof, bytes, &why);
    if (!err)
        stage_end(&r, ZP__ST_FINISH);
    const zp_fr *pub = held && !err ? w->w + 1 : NULL;
    uint32_t n_pub = held ? key->pk.n_public : 0;
    zp__eng_proved(e, w, j, part, err, why.msg, &proof, bytes, pub, n_pub, held);
}

void *zp__cpu_worker_main(void *arg)
{
    zp__worker *w = arg;
    zp__job *j;
    uint32_t part;
    while (zp__eng_take(w->e, w, &j, &part)) {
        if (zp__job_is_abc(j))
            zp__eng_run_abc(w->e, w, j, part);
        else
            run_partition(w->e, w, j, part);
    }
    return NULL;
}
