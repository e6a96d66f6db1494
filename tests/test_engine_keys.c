/*
 * The engine's key cache: LRU eviction under a byte budget, keys in use
 * never evicted (a load waits for them), preloaded keys kept until evicted
 * explicitly, a key larger than the budget refused, and keys from files:
 * a snarkjs .zkey (parsed into memory) and a native .zpk (mapped).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io.h"
#include "io/zpk.h"
#include "test_engine_util.h"

static zp_key_tier tier_of(zp_engine *e, const char *name)
{
    for (size_t i = 0;; i++) {
        zp_key_info ki;
        if (zp_engine_key_info(e, i, &ki))
            return (zp_key_tier)-1;
        if (!strcmp(ki.name, name))
            return ki.tier;
    }
}

static zp_key_info info_of(zp_engine *e, const char *name)
{
    zp_key_info ki;
    memset(&ki, 0, sizeof ki);
    for (size_t i = 0; zp_engine_key_info(e, i, &ki) == ZP_OK; i++)
        if (!strcmp(ki.name, name))
            break;
    return ki;
}

static void run_job(zp_engine *e, const char *id, const char *key)
{
    CHECK_EQ_INT(t_submit(e, id, key, ZP_PRIO_NORMAL, 1, 1, NULL), ZP_OK);
    t_await_ok(e, id, key, 1);
}

static uint64_t key_size;    /* bytes of one loaded T_CIRCUIT key */

static void budget_2_5(zp_engine_config *c)
{
    c->key_budget_bytes = key_size * 5 / 2;
}

static void budget_1_5(zp_engine_config *c)
{
    c->key_budget_bytes = key_size * 3 / 2;
}

static void budget_tiny(zp_engine_config *c)
{
    c->key_budget_bytes = key_size / 2;
}

static void test_measure(void)
{
    zp_engine *e = t_open(1, 1, NULL);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    CHECK_EQ_INT(tier_of(e, "k"), ZP_KEY_UNLOADED);
    CHECK_EQ_INT(zp_engine_preload_key(e, "k"), ZP_OK);
    zp_key_info ki = info_of(e, "k");
    CHECK_EQ_INT(ki.tier, ZP_KEY_HOST);
    CHECK(ki.preloaded);
    CHECK_EQ_INT(ki.loads, 1);
    CHECK(ki.n_vars > 1 && ki.domain_size == 32);
    key_size = ki.bytes;
    CHECK(key_size > 0);
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.key_bytes, key_size);
    CHECK_EQ_INT(zp_engine_evict_key(e, "k"), ZP_OK);
    CHECK_EQ_INT(tier_of(e, "k"), ZP_KEY_UNLOADED);
    CHECK_EQ_INT(zp_engine_evict_key(e, "k"), ZP_OK);
    CHECK_EQ_INT(zp_engine_evict_key(e, "none"), ZP_E_NOT_FOUND);
    CHECK_EQ_INT(zp_engine_preload_key(e, "none"), ZP_E_NOT_FOUND);
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.key_bytes, 0);
    zp_engine_close(e);
}

static void test_lru_eviction(void)
{
    zp_engine *e = t_open(1, 1, budget_2_5);
    const char *k[3] = {"k1", "k2", "k3"};
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(zp_engine_add_key(e, k[i], T_CIRCUIT), ZP_OK);
    run_job(e, "a", "k1");
    run_job(e, "b", "k2");
    CHECK_EQ_INT(tier_of(e, "k1"), ZP_KEY_HOST);
    CHECK_EQ_INT(tier_of(e, "k2"), ZP_KEY_HOST);
    run_job(e, "c", "k3"); /* k1 is the least recently used */
    CHECK_EQ_INT(tier_of(e, "k1"), ZP_KEY_UNLOADED);
    CHECK_EQ_INT(tier_of(e, "k2"), ZP_KEY_HOST);
    CHECK_EQ_INT(tier_of(e, "k3"), ZP_KEY_HOST);
    run_job(e, "d", "k2");
    run_job(e, "e", "k1"); /* now k3 is */
    CHECK_EQ_INT(tier_of(e, "k3"), ZP_KEY_UNLOADED);
    CHECK_EQ_INT(tier_of(e, "k2"), ZP_KEY_HOST);
    CHECK_EQ_INT(tier_of(e, "k1"), ZP_KEY_HOST);
    CHECK_EQ_INT(info_of(e, "k1").loads, 2);
    CHECK_EQ_INT(info_of(e, "k1").evictions, 1);
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK(st.key_bytes <= st.key_budget_bytes);
    CHECK_EQ_INT(st.keys_loaded, 2);
    zp_engine_close(e);
}

typedef struct preloader {
    zp_engine *e;
    const char *name;
    zp_err err;
    atomic_int done;
} preloader;

static void *preload_main(void *arg)
{
    preloader *p = arg;
    p->err = zp_engine_preload_key(p->e, p->name);
    p->done = 1;
    return NULL;
}

static void test_referenced_not_evicted(void)
{
    zp_engine *e = t_open(1, 1, budget_1_5);
    CHECK_EQ_INT(zp_engine_add_key(e, "k1", T_CIRCUIT), ZP_OK);
    CHECK_EQ_INT(zp_engine_add_key(e, "k2", T_CIRCUIT), ZP_OK);
    pthread_mutex_lock(&e->mu);
    zp__key *k1 = zp__key_find(e, "k1");
    pthread_mutex_unlock(&e->mu);
    /* Hold k1 as a running partition would. */
    CHECK_EQ_INT(zp__key_acquire(e, k1, NULL), ZP_OK);
    CHECK_EQ_INT(zp_engine_evict_key(e, "k1"), ZP_E_BUSY);
    preloader p = {e, "k2", ZP_OK, 0};
    pthread_t th;
    pthread_create(&th, NULL, preload_main, &p);
    t_sleep_ms(100);
    CHECK(!p.done); /* waits: the only key it could evict is in use */
    CHECK_EQ_INT(tier_of(e, "k1"), ZP_KEY_HOST);
    CHECK_EQ_INT(tier_of(e, "k2"), ZP_KEY_UNLOADED);
    zp__key_release(e, k1);
    pthread_join(th, NULL);
    CHECK_EQ_INT(p.err, ZP_OK);
    CHECK_EQ_INT(tier_of(e, "k1"), ZP_KEY_UNLOADED);
    CHECK_EQ_INT(tier_of(e, "k2"), ZP_KEY_HOST);
    /* k2 is preloaded and the budget holds one key: k1 can never load. */
    CHECK_EQ_INT(zp_engine_preload_key(e, "k1"), ZP_E_TOO_LARGE);
    CHECK_EQ_INT(t_submit(e, "j", "k1", ZP_PRIO_NORMAL, 1, 1, NULL), ZP_OK);
    zp_job_info info;
    CHECK_EQ_INT(zp_engine_await(e, "j", -1, &info, NULL), ZP_E_TOO_LARGE);
    CHECK(strstr(info.message, "budget") != NULL);
    CHECK_EQ_INT(zp_engine_evict_key(e, "k2"), ZP_OK);
    run_job(e, "j2", "k1");
    zp_engine_close(e);
}

static void test_preloaded_kept(void)
{
    zp_engine *e = t_open(1, 1, budget_2_5);
    const char *k[3] = {"k1", "k2", "k3"};
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(zp_engine_add_key(e, k[i], T_CIRCUIT), ZP_OK);
    CHECK_EQ_INT(zp_engine_preload_key(e, "k1"), ZP_OK);
    run_job(e, "a", "k2");
    run_job(e, "b", "k3"); /* k1 is older but preloaded: k2 goes */
    CHECK_EQ_INT(tier_of(e, "k1"), ZP_KEY_HOST);
    CHECK_EQ_INT(tier_of(e, "k2"), ZP_KEY_UNLOADED);
    CHECK_EQ_INT(tier_of(e, "k3"), ZP_KEY_HOST);
    run_job(e, "c", "k1");
    zp_engine_close(e);
    /* A key larger than the whole budget. */
    e = t_open(1, 1, budget_tiny);
    CHECK_EQ_INT(zp_engine_add_key(e, "k", T_CIRCUIT), ZP_OK);
    CHECK_EQ_INT(zp_engine_preload_key(e, "k"), ZP_E_TOO_LARGE);
    CHECK_EQ_INT(info_of(e, "k").last_error, ZP_E_TOO_LARGE);
    CHECK(strstr(info_of(e, "k").last_message, "budget") != NULL);
    zp_engine_close(e);
}

static void test_file_keys(void)
{
    zp_engine *e = t_open(2, 1, NULL);
    /* snarkjs fixture: .zkey and its .wtns (tests/data). */
    CHECK_EQ_INT(zp_engine_add_key(e, "mul3", "data/mul3.zkey"), ZP_OK);
    zp_witness w = {.kind = ZP_WITNESS_FILE, .path = "data/mul3.wtns"};
    zp_job_request r = {.id = "z", .key = "mul3", .partitions = 2, .witnesses = &w,
                        .n_witnesses = 1};
    CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_OK);
    t_await_ok(e, "z", "mul3", 2);
    CHECK_EQ_INT(tier_of(e, "mul3"), ZP_KEY_HOST);
    /* The public inputs come out as snarkjs wrote them (public.json). */
    zp_job_result res;
    CHECK_EQ_INT(zp_engine_await(e, "z", 0, NULL, &res), ZP_OK);
    zp_fr *want = NULL;
    size_t n_want = 0;
    CHECK_EQ_INT(zp__public_json_load(&want, &n_want, "data/public.json", NULL), ZP_OK);
    CHECK_EQ_INT(res.n_public, n_want);
    for (uint32_t p = 0; p < res.partitions && res.n_public == n_want; p++)
        for (size_t i = 0; i < n_want; i++) {
            zp_fr got;
            CHECK_EQ_INT(zp_fr_from_le(&got, res.public_inputs + 32 * (p * n_want + i)), ZP_OK);
            CHECK(zp_fr_eq(&got, &want[i]));
        }
    free(want);
    zp_job_result_free(&res);
    /* A synthetic key written as .zpk, then served from its mapping. */
    CHECK_EQ_INT(zp_engine_add_key(e, "s", T_CIRCUIT2), ZP_OK);
    CHECK_EQ_INT(zp_engine_preload_key(e, "s"), ZP_OK);
    pthread_mutex_lock(&e->mu);
    zp__key *s = zp__key_find(e, "s");
    pthread_mutex_unlock(&e->mu);
    char zpk[64], wtns[64];
    snprintf(zpk, sizeof zpk, "/tmp/zp_test_engine_keys_%d.zpk", (int)getpid());
    snprintf(wtns, sizeof wtns, "/tmp/zp_test_engine_keys_%d.wtns", (int)getpid());
    CHECK_EQ_INT(zp__zpk_save(zpk, &s->pk, 1, NULL), ZP_OK);
    zp_fr *wv = malloc(s->pk.n_vars * sizeof *wv);
    CHECK_EQ_INT(zp__synth_witness(wv, &s->cs, &s->spec, 42), ZP_OK);
    CHECK_EQ_INT(zp__wtns_save(wtns, wv, s->pk.n_vars, NULL), ZP_OK);
    free(wv);
    CHECK_EQ_INT(zp_engine_add_key(e, "m", zpk), ZP_OK);
    w.path = wtns;
    r = (zp_job_request){.id = "m1", .key = "m", .partitions = 3, .witnesses = &w,
                         .n_witnesses = 1};
    CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_OK);
    t_await_ok(e, "m1", "m", 3);
    zp_key_info ki = info_of(e, "m");
    CHECK_EQ_INT(ki.tier, ZP_KEY_HOST); /* read into memory of its own */
    CHECK(ki.bytes >= 4096);
    /* The file truncated, then rewritten in place with garbage, under the
     * loaded key: the key owns its bytes, so its jobs still prove. */
    {
        struct stat st;
        CHECK(stat(zpk, &st) == 0);
        CHECK(truncate(zpk, 8192) == 0);
        r.id = "m1t";
        CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_OK);
        t_await_ok(e, "m1t", "m", 3);
        FILE *f = fopen(zpk, "r+b");
        CHECK(f != NULL);
        if (f) {
            for (off_t i = 0; i < st.st_size; i++)
                fputc(0xA5, f);
            fclose(f);
        }
        r.id = "m1r";
        CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_OK);
        t_await_ok(e, "m1r", "m", 3);
        /* Evicted, the key is read again: the garbage fails the job with a
         * clear code; the file put back, the next job proves. */
        zp_err ev = ZP_E_BUSY; /* a worker may hold it a moment after the job */
        for (int i = 0; i < 200 && ev == ZP_E_BUSY; i++)
            if ((ev = zp_engine_evict_key(e, "m")) == ZP_E_BUSY)
                usleep(10000);
        CHECK_EQ_INT(ev, ZP_OK);
        r.id = "m1g";
        CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_OK);
        zp_job_info gi;
        const zp_err ge = zp_engine_await(e, "m1g", -1, &gi, NULL);
        CHECK(ge == ZP_E_FORMAT || ge == ZP_E_CHECKSUM || ge == ZP_E_TRUNCATED);
        printf("key file overwritten: %s: %s\n", zp_errname(ge), gi.message);
        CHECK_EQ_INT(zp__zpk_save(zpk, &s->pk, 1, NULL), ZP_OK);
        r.id = "m1b";
        CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_OK);
        t_await_ok(e, "m1b", "m", 3);
    }
    /* The witness of one circuit does not fit the other key. */
    r.id = "m2";
    r.key = "mul3";
    CHECK_EQ_INT(zp_engine_submit(e, &r, NULL), ZP_OK);
    zp_job_info info;
    CHECK_EQ_INT(zp_engine_await(e, "m2", -1, &info, NULL), ZP_E_WITNESS);
    unlink(zpk);
    unlink(wtns);
    zp_engine_close(e);
}

int main(void)
{
    RUN(test_measure);
    RUN(test_lru_eviction);
    RUN(test_referenced_not_evicted);
    RUN(test_preloaded_kept);
    RUN(test_file_keys);
    return FINISH();
}
