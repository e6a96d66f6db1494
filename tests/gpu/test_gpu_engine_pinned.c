/*
 * The engine's pinned tier with a GPU, on device 0:
 *  - a host key within the pinned budget is page-locked whole at load and
 *    unlocked at eviction; one over the budget is not pinned unless its
 *    plan streams (ctest also runs this with the key streamed);
 *  - a key that streams every point is pinned within the budget and beyond
 *    it, and streams from its own page-locked arrays (no pinned image of
 *    its own); it proves, and eviction drops the image.
 * The engines' GPU prover options come from the command line
 * (prover_opts.h). Exit 77 without a GPU.
 */
#include <stdio.h>
#include <string.h>

#include "../test_engine_util.h"
#include "gpu/gpu.h"
#include "groth16/gpu_prover.h"
#include "prover_opts.h"

/* An engine of one CPU worker and one GPU with a pinned budget, its host
 * key "d" (synth:dense:9) preloaded and *ki said of it; NULL where it does
 * not open. */
static zp_engine *open_pinned(uint64_t pinned, const zp__g16_gpu_opts *o, zp_key_info *ki)
{
    zp_engine_config c;
    zp_engine_config_default(&c);
    c.cpu_workers = 1;
    c.gpus = 1;
    c.pinned_key_bytes = pinned;
    zp_engine *e = NULL;
    CHECK_EQ_INT(zp__engine_open_opts(&e, &c, o), ZP_OK);
    if (!e)
        return NULL;
    CHECK_EQ_INT(zp_engine_add_key(e, "d", "synth:dense:9"), ZP_OK);
    CHECK_EQ_INT(zp_engine_preload_key(e, "d"), ZP_OK);
    CHECK_EQ_INT(zp_engine_key_info(e, 0, ki), ZP_OK);
    return e;
}

/* The pinned tier: a host key within the budget is page-locked whole at
 * load and unlocked at eviction; one over the budget is not pinned. */
static void test_pinned_tier(void)
{
    zp_key_info ki;
    zp_engine *e = open_pinned((uint64_t)1 << 30, &T_opts, &ki);
    if (!e)
        return;
    /* The preload also made it resident on the GPU: the tier says so. */
    CHECK_EQ_INT(ki.tier, ZP_KEY_DEVICE);
    CHECK(ki.device_bytes > 0);
    CHECK(ki.pinned_bytes > 0 && ki.pinned_bytes <= ki.bytes);
    CHECK_EQ_INT(e->pinned_used, ki.pinned_bytes);
    char id[ZP_JOB_ID_MAX + 1];
    CHECK_EQ_INT(t_submit(e, NULL, "d", ZP_PRIO_NORMAL, 4, 3, id), ZP_OK);
    t_await_ok(e, id, "d", 4);
    CHECK_EQ_INT(zp_engine_evict_key(e, "d"), ZP_OK);
    CHECK_EQ_INT(zp_engine_key_info(e, 0, &ki), ZP_OK);
    CHECK_EQ_INT(ki.pinned_bytes, 0);
    CHECK_EQ_INT(e->pinned_used, 0);
    zp_engine_close(e);
    e = open_pinned(4096, &T_opts, &ki);
    if (!e)
        return;
    /* Over the budget it is not pinned, unless it streams. */
    if (T_opts.resident_cap == UINT64_MAX)
        CHECK_EQ_INT(ki.pinned_bytes, 0);
    else
        CHECK(ki.pinned_bytes > 0);
    CHECK(ki.tier == ZP_KEY_DEVICE);
    zp_engine_close(e);
}

/* A key that streams every point (resident cap 0) is pinned within the
 * budget and beyond it, and its copy streams from its own arrays. */
static void test_pinned_stream(void)
{
    for (int pinned = 1; pinned >= 0; pinned--) {
        zp__g16_gpu_opts o = T_opts;
        o.resident_cap = 0;
        o.ring_buffer = 65536;
        o.lean = o.usual = o.stream_matrices = false;
        zp_key_info ki;
        zp_engine *e = open_pinned(pinned ? (uint64_t)1 << 30 : 4096, &o, &ki);
        if (!e)
            return;
        CHECK_EQ_INT(ki.tier, ZP_KEY_DEVICE);
        CHECK(ki.pinned_bytes > 0);
        pthread_mutex_lock(&e->mu);
        const zp__key *k = zp__key_find(e, "d");
        const zp__g16_himg *m = k->dk[0] ? k->dk[0]->img : NULL;
        CHECK(m != NULL && m == k->himg);
        CHECK(m && m->borrowed);
        pthread_mutex_unlock(&e->mu);
        CHECK_EQ_INT(ki.streamed_bytes, 0);
        char id[ZP_JOB_ID_MAX + 1];
        CHECK_EQ_INT(t_submit(e, NULL, "d", ZP_PRIO_NORMAL, 4, 21, id), ZP_OK);
        t_await_ok(e, id, "d", 4);
        CHECK_EQ_INT(zp_engine_evict_key(e, "d"), ZP_OK);
        CHECK(t_key(e, "d")->himg == NULL);
        zp_engine_close(e);
    }
}

int main(int argc, char **argv)
{
    prover_opts_parse(argc, argv);
    if (zp__gpu_count() == 0) {
        printf("no GPU: skipped\n");
        return 77;
    }
    RUN(test_pinned_tier);
    RUN(test_pinned_stream);
    return FINISH();
}
