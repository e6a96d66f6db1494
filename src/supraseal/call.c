/*
 * One call's circuits as an engine job of a, b, c (ss.h, engine/abc.h):
 * the arguments checked, the job queued, its a, b, c waited for (the split
 * variant), its proofs waited for and written in supraseal's layout.
 *
 * The caller's memory is borrowed, never copied: a, b, c until each
 * partition reports them consumed, the assignments and bitmaps until no
 * worker runs a partition of the job. So every way out of a call that has
 * a job (success, failure, abandon) first waits until the job is over and
 * no partition of it runs (settle), and only then returns.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine_impl.h"
#include "groth16/groth16.h"
#include "supraseal/ss.h"

struct zp__ss_call {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint32_t n, consumed;
    zp_engine *e;
    char id[ZP_JOB_ID_MAX + 1];
    zp__abc_part *parts;
    zp_ss_srs srs; /* a reference held for the call's life */
};

_Static_assert(sizeof(zp_ss_assignment) == 136, "Assignment is 17 eight-byte fields");
_Static_assert(sizeof(zp_ss_fr) == sizeof(zp_fr), "Fr is 32 bytes");
_Static_assert(sizeof(zp_ss_proof) == 384, "a proof is 384 bytes");
_Static_assert(sizeof(zp_ss_result) == 16, "RustError is 16 bytes");
_Static_assert(sizeof(zp_g1_affine) == 96 && sizeof(zp_g2_affine) == 192,
               "affine points are x, y of Montgomery limbs");

static void on_consumed(void *ctx, uint32_t part)
{
    (void)part;
    zp__ss_call *c = ctx;
    pthread_mutex_lock(&c->mu);
    c->consumed++;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static bool final(zp_job_state s)
{
    return s == ZP_JOB_DONE || s == ZP_JOB_FAILED || s == ZP_JOB_CANCELLED;
}

static void nap_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits until the job is over and none of its partitions runs; info gets
 * its last state. */
static void settle(zp__ss_call *c, zp_job_info *info)
{
    for (;;) {
        if (zp_engine_job_status(c->e, c->id, info) != ZP_OK)
            return; /* forgotten: long over */
        if (final(info->state) && info->partitions_running == 0)
            return;
        nap_ms(1);
    }
}

static void call_free(zp__ss_call *c)
{
    if (!c)
        return;
    drop_SRS(&c->srs);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    free(c->parts);
    free(c);
}

static zp_ss_result job_error(zp__ss_call *c, zp_err err, const char *what)
{
    zp_job_info info;
    memset(&info, 0, sizeof info);
    settle(c, &info);
    zp_ss_result r = zp__ss_err(err, "%s: %s", what,
                                info.message[0] ? info.message : zp_strerror(err));
    call_free(c);
    return r;
}

static zp_ss_result check_args(const zp_ss_assignment *provers, size_t n, const zp_ss_fr *r_s,
                               const zp_ss_fr *s_s, const zp_ss_srs *srs)
{
    if (!srs || !srs->ptr)
        return zp__ss_err(ZP_E_INVALID_ARG, "the SRS is NULL or was not created");
    if (!provers || !r_s || !s_s)
        return zp__ss_err(ZP_E_INVALID_ARG, "%s is a NULL pointer",
                          !provers ? "provers" : !r_s ? "r_s" : "s_s");
    if (n > 4096)
        return zp__ss_err(ZP_E_TOO_LARGE, "%zu circuits in one call; at most 4096", n);
    for (size_t i = 0; i < n; i++) {
        const zp_ss_assignment *p = &provers[i];
        if (!p->a || !p->b || !p->c || !p->inp_assignment_data ||
            (p->aux_assignment_size && !p->aux_assignment_data) ||
            (p->a_aux_bit_len && !p->a_aux_density) ||
            (p->b_inp_bit_len && !p->b_inp_density) || (p->b_aux_bit_len && !p->b_aux_density))
            return zp__ss_err(ZP_E_INVALID_ARG,
                              "circuit %zu: a, b, c, an assignment or a density bitmap is a "
                              "NULL pointer", i);
    }
    return zp__ss_ok();
}

/* Every circuit against the key's counts before anything is queued, so a
 * bad one fails the call at once, naming it (the workers check again). */
static zp_ss_result check_circuits(zp__ss_call *c)
{
    const char *name = zp__ss_srs_key(&c->srs);
    pthread_mutex_lock(&c->e->mu);
    zp__key *k = zp__key_find(c->e, name);
    pthread_mutex_unlock(&c->e->mu);
    zp__ioerr why = {{0}};
    zp_err err = k ? zp__key_acquire(c->e, k, &why) : ZP_E_NOT_FOUND;
    if (err)
        return zp__ss_err(err, "the SRS cannot be loaded: %s",
                          why.msg[0] ? why.msg : zp_strerror(err));
    uint32_t i = 0;
    while (i < c->n && !(err = zp__abc_check(&c->parts[i].in, &k->pk, &why)))
        i++;
    zp__key_release(c->e, k);
    return err ? zp__ss_err(err, "circuit %u: %s", i, why.msg) : zp__ss_ok();
}

zp_ss_result zp__ss_start(zp__ss_call **out, const zp_ss_assignment *provers, size_t n,
                          const zp_ss_fr *r_s, const zp_ss_fr *s_s, const zp_ss_srs *srs,
                          bool wait_abc)
{
    *out = NULL;
    zp_ss_result res = check_args(provers, n, r_s, s_s, srs);
    if (res.code)
        return res;
    zp_engine *e;
    zp_err err = zp__ss_engine(&e);
    if (err)
        return zp__ss_err(err, "the engine cannot open: %s", zp_strerror(err));
    zp__ss_call *c = calloc(1, sizeof *c);
    if (!c || !(c->parts = calloc(n ? n : 1, sizeof *c->parts))) {
        free(c);
        return zp__ss_err(ZP_E_NOMEM, "no memory for %zu circuits", n);
    }
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    c->e = e;
    c->n = (uint32_t)n;
    c->srs = clone_SRS(srs);
    for (size_t i = 0; i < n; i++) {
        const zp_ss_assignment *p = &provers[i];
        zp__abc_part *q = &c->parts[i];
        q->in = (zp__abc_in){
            .a_aux = p->a_aux_density, .a_aux_bits = p->a_aux_bit_len,
            .a_aux_pop = p->a_aux_popcount,
            .b_inp = p->b_inp_density, .b_inp_bits = p->b_inp_bit_len,
            .b_inp_pop = p->b_inp_popcount,
            .b_aux = p->b_aux_density, .b_aux_bits = p->b_aux_bit_len,
            .b_aux_pop = p->b_aux_popcount,
            .a = (const zp_fr *)p->a, .b = (const zp_fr *)p->b, .c = (const zp_fr *)p->c,
            .abc_size = p->abc_size,
            .inp = (const zp_fr *)p->inp_assignment_data, .n_inp = p->inp_assignment_size,
            .aux = (const zp_fr *)p->aux_assignment_data, .n_aux = p->aux_assignment_size,
        };
        memcpy(&q->r, &r_s[i], sizeof q->r);
        memcpy(&q->s, &s_s[i], sizeof q->s);
        q->consumed = on_consumed;
        q->ctx = c;
    }
    if (n == 0) { /* nothing to prove */
        *out = c;
        return zp__ss_ok();
    }
    if ((res = check_circuits(c)).code) {
        call_free(c);
        return res;
    }
    err = zp__engine_submit_abc(e, zp__ss_srs_key(&c->srs), c->parts, c->n, c->id);
    if (err) {
        call_free(c);
        return zp__ss_err(err, "the engine refused the job: %s", zp_strerror(err));
    }
    if (wait_abc) {
        pthread_mutex_lock(&c->mu);
        while (c->consumed < c->n) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 10 * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&c->cv, &c->mu, &ts);
            zp_job_info info;
            memset(&info, 0, sizeof info);
            info.error = ZP_E_NOT_FOUND;
            pthread_mutex_unlock(&c->mu);
            bool over = zp_engine_job_status(e, c->id, &info) != ZP_OK ||
                        (final(info.state) && info.partitions_running == 0);
            pthread_mutex_lock(&c->mu);
            if (over && info.state != ZP_JOB_DONE) {
                pthread_mutex_unlock(&c->mu);
                return job_error(c, info.error, "proving failed");
            }
            if (over)
                break;
        }
        pthread_mutex_unlock(&c->mu);
    }
    *out = c;
    return zp__ss_ok();
}

zp_ss_result zp__ss_finish(zp__ss_call *c, zp_ss_proof *proofs)
{
    if (!c)
        return zp__ss_err(ZP_E_INVALID_ARG, "the pending proof is NULL");
    if (c->n == 0) {
        call_free(c);
        return zp__ss_ok();
    }
    zp_job_info info;
    zp_job_result res;
    memset(&res, 0, sizeof res);
    zp_err err = zp_engine_await(c->e, c->id, -1, &info, &res);
    if (err)
        return job_error(c, err, "proving failed");
    if (!proofs) {
        zp_job_result_free(&res);
        call_free(c);
        return zp__ss_err(ZP_E_INVALID_ARG, "proofs is a NULL pointer");
    }
    for (uint32_t i = 0; !err && i < c->n; i++) {
        zp__proof p;
        err = zp__proof_decode(&p, res.proofs + (size_t)i * ZP__PROOF_BYTES, ZP__PROOF_BYTES);
        if (!err) {
            memcpy(proofs[i].a, &p.a, sizeof proofs[i].a);
            memcpy(proofs[i].b, &p.b, sizeof proofs[i].b);
            memcpy(proofs[i].c, &p.c, sizeof proofs[i].c);
        }
    }
    zp_job_result_free(&res);
    /* The first call that proved with a .params to keep: its maps are the
     * circuit's (the proofs verified). */
    char zpk[320];
    if (!err && zp__ss_srs_cache_claim(&c->srs, zpk, sizeof zpk))
        zp__ss_cache_write(c->e, zp__ss_srs_key(&c->srs), zpk, &c->parts[0].in);
    call_free(c);
    if (err)
        return zp__ss_err(err, "a proof the engine made cannot be decoded: %s",
                          zp_strerror(err));
    return zp__ss_ok();
}

void zp__ss_abandon(zp__ss_call *c)
{
    if (!c)
        return;
    if (c->n) {
        zp_job_info info;
        zp_engine_cancel(c->e, c->id);
        settle(c, &info);
    }
    call_free(c);
}
