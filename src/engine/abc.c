/*
 * Partitions of evaluated a, b, c (engine/abc.h) on a proving worker: the
 * stages of worker.c with eval replaced by a copy of the caller's a, b, c
 * and the density maps and blinding r, s taken from the partition.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_impl.h"

bool zp__job_is_abc(const zp__job *j)
{
    return j->n_wit > 0 && j->wit[0].kind == ZP__WITNESS_ABC;
}

typedef struct abc_run {
    zp_engine *e;
    zp__worker *w;
    zp__job *j;
    uint32_t part;
    const zp__abc_part *ap;
    bool consumed;
    double t;
} abc_run;

static void stage_end(abc_run *r, zp__stage st)
{
    double now = zp__eng_now(r->e);
    zp__eng_stage(r->e, (uint32_t)r->w->index, st, r->j, r->part, r->t, now);
    r->t = now;
}

static void consume(abc_run *r)
{
    if (!r->consumed && r->ap->consumed)
        r->ap->consumed(r->ap->ctx, r->part);
    r->consumed = true;
}

/* h, msm, finish after a, b, c are in the scratch; the proof out. */
static zp_err stages(abc_run *r, const zp__pk *pk, zp__proof *out, uint8_t *bytes,
                     zp__ioerr *why)
{
    zp__worker *w = r->w;
    int th = r->e->threads_per_worker;
    uint64_t n = pk->domain_size;
    zp_fr *a = w->abc, *b = a + n, *c = b + n;
    zp__abc_load(a, b, c, &r->ap->in, n, th);
    consume(r);
    stage_end(r, ZP__ST_EVAL);
    if (zp__eng_job_dead(r->e, r->j))
        return ZP_E_CANCELLED;
    zp_err err = zp__g16_h(a, a, b, c, pk, th);
    if (err)
        return zp__fail(why, err, "stage h failed: %s", zp_strerror(err));
    stage_end(r, ZP__ST_H);
    if (zp__eng_job_dead(r->e, r->j))
        return ZP_E_CANCELLED;
    zp__bitmap da, db;
    if (zp__abc_density(&da, &db, &r->ap->in))
        return zp__fail(why, ZP_E_NOMEM, "no memory for the density maps");
    zp__pk view;
    zp__abc_view(&view, pk, &da, &db);
    zp__g16_sums sums;
    err = zp__g16_msm(&sums, &view, w->w, a, th, NULL);
    zp__bitmap_free(&da);
    zp__bitmap_free(&db);
    if (err)
        return zp__fail(why, err, "stage msm failed: %s", zp_strerror(err));
    stage_end(r, ZP__ST_MSM);
    zp__g16_finish(out, pk, &sums, &r->ap->r, &r->ap->s);
    if ((err = zp__proof_encode(bytes, out)))
        return zp__fail(why, err, "the proof cannot be encoded: %s", zp_strerror(err));
    stage_end(r, ZP__ST_FINISH);
    return ZP_OK;
}

void zp__eng_run_abc(zp_engine *e, zp__worker *w, zp__job *j, uint32_t part)
{
    abc_run r = {e, w, j, part, (const zp__abc_part *)j->wit[part].data, false,
                 zp__eng_now(e)};
    zp__ioerr why = {{0}};
    zp__proof proof;
    uint8_t bytes[ZP__PROOF_BYTES];
    memset(&proof, 0, sizeof proof);
    memset(bytes, 0, sizeof bytes);
    zp__key *key = j->key;
    zp_err err = zp__key_acquire(e, key, &why);
    bool held = !err;
    const zp__pk *pk = &key->pk;
    if (!err && !zp__abc_key_ok(pk))
        err = zp__fail(&why, ZP_E_INVALID_ARG,
                       "key %s cannot prove from a, b, c: its counts disagree or its points "
                       "are not on the host", key->name);
    if (!err)
        err = zp__abc_check(&r.ap->in, pk, &why);
    if (!err && (zp__worker_reserve(&w->w, &w->w_cap, pk->n_vars) ||
                 pk->domain_size > UINT64_MAX / 3 ||
                 zp__worker_reserve(&w->abc, &w->abc_cap, 3 * pk->domain_size)))
        err = zp__fail(&why, ZP_E_NOMEM, "no memory for the witness and a, b, c of key %s",
                       key->name);
    if (!err) {
        zp__abc_witness(w->w, &r.ap->in, e->threads_per_worker);
        stage_end(&r, ZP__ST_ACQUIRE);
        err = stages(&r, pk, &proof, bytes, &why);
    }
    consume(&r);
    const zp_fr *pub = held && !err ? w->w + 1 : NULL;
    uint32_t n_pub = held ? pk->n_public : 0;
    zp__eng_proved(e, w, j, part, err, why.msg, &proof, bytes, pub, n_pub, held);
}

static bool same_map(const zp__bitmap *x, const zp__bitmap *y)
{
    return x->nbits == y->nbits && x->words && y->words &&
           !memcmp(x->words, y->words, (size_t)(x->nbits / 64 + 1) * sizeof *x->words);
}

static bool copy_map(zp__bitmap *dst, const zp__bitmap *src)
{
    if (zp__bitmap_alloc(dst, src->nbits))
        return false;
    memcpy(dst->words, src->words, (size_t)(src->nbits / 64 + 1) * sizeof *src->words);
    return true;
}

bool zp__key_abc_maps(zp_engine *e, zp__key *k, const zp__abc_in *in)
{
    zp__bitmap a, b;
    if (zp__abc_density(&a, &b, in))
        return false;
    pthread_mutex_lock(&e->mu);
    zp__pk *pk = &k->pk;
    bool ok;
    if (k->kind != ZP__KEY_PARAMS) {
        ok = same_map(&a, &pk->a_density) && same_map(&b, &pk->b_density);
    } else {
        if (!k->abc_a.words) { /* the first: the key's maps from now on */
            k->abc_a = a;
            k->abc_b = b;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            ok = true;
        } else {
            ok = same_map(&a, &k->abc_a) && same_map(&b, &k->abc_b);
        }
        /* The load in use gets copies (zp__pk_free frees them) and empty
         * matrices: its a, b, c come with each partition. */
        if (ok && !pk->a_density.words) {
            zp__bitmap ca, cb;
            memset(&ca, 0, sizeof ca);
            memset(&cb, 0, sizeof cb);
            zp__csr ma, mb;
            memset(&ma, 0, sizeof ma);
            memset(&mb, 0, sizeof mb);
            ok = copy_map(&ca, &k->abc_a) && copy_map(&cb, &k->abc_b) &&
                 !zp__csr_alloc(&ma, 0, 0) && !zp__csr_alloc(&mb, 0, 0);
            if (ok) {
                pk->a_density = ca;
                pk->b_density = cb;
                zp__csr_free(&pk->ma);
                zp__csr_free(&pk->mb);
                pk->ma = ma;
                pk->mb = mb;
            } else {
                zp__bitmap_free(&ca);
                zp__bitmap_free(&cb);
                zp__csr_free(&ma);
                zp__csr_free(&mb);
            }
        }
    }
    pthread_mutex_unlock(&e->mu);
    zp__bitmap_free(&a);
    zp__bitmap_free(&b);
    return ok;
}
