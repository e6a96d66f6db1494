/*
 * One ring for a GPU's slots (key tiers, zp_gpu_tuning.ring_share;
 * prove_gpu_sched.c's shared ring over groth16/ring_scan.h):
 *  - a key planned shared with two working sets, every point streamed
 *    through staging buffers of a few points (each MSM in many chunks, H's
 *    and the witness MSMs' spread over the circle), and two slots without
 *    rings of their own driven from two threads at once, each proving
 *    several witnesses several times: every proof has zp__prove's bytes
 *    for the same fixed r, s (synthetic porep and chain circuits, both H
 *    conventions), every partition's MSMs ran as the circle passed, and
 *    the bytes the ring moved are at least one round and at most one round
 *    a partition, the slots' shares adding up to them;
 *  - one slot alone after that (it joins where the circle stopped) still
 *    proves, moving at most a round;
 *  - a slot of a shared ring does not take a key that streams through
 *    slots' own rings, and a lean or ringless slot of a shared ring is
 *    refused at open.
 * Exit 77 without a GPU.
 */
#include "gpu_test.h"
#include "prover_opts.h"
#include "slot_keycase.h"

static void share_case(const char *spec, zp_h_conv conv, uint64_t ring_buffer)
{
    printf("  %s %s, staging buffers of %llu bytes\n", spec,
           conv == ZP_H_TAU ? "bellperson" : "snarkjs", (unsigned long long)ring_buffer);
    keycase *c = xmalloc(sizeof *c);
    keycase_make(c, spec, conv);
    zp__g16_gpu_opts o = T_opts;
    o.resident_cap = 0;
    o.ring_buffer = ring_buffer;
    o.tuning.ring_share = true;
    zp__gpu_info info;
    zp__gpu_get_info(T_gpu, &info);
    zp__g16_plan plan;
    zp__ioerr why = {""};
    GPU_OK(zp__g16_plan_make(&plan, &c->pk, info.arena_bytes - info.arena_used, 2, &o, &why));
    CHECK(plan.shared && plan.slots == 2 && plan.ring_buffer == ring_buffer);
    zp__g16_dkey k;
    GPU_OK(zp__g16_dkey_upload_plan(&k, T_gpu, T_s, &c->pk, &plan, &o, &why));
    CHECK(k.share != NULL && zp__g16_dkey_streams(&k));
    const uint64_t per = zp__g16_dkey_stream_bytes(&k);
    CHECK_EQ_INT(zp__g16_share_bytes(&k), 0);

    zp__g16_slot *slot[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        GPU_OK(zp__g16_slot_open_plan(&slot[i], T_gpu, &c->pk, plan.ring_buffer, false, true, 0,
                                      (unsigned)i, &o, &why));
        if (slot[i]) {
            CHECK_EQ_INT(zp__g16_slot_ring_bytes(slot[i]), 0);
            CHECK(zp__g16_slot_fits_key(slot[i], &k));
            CHECK(!zp__g16_slot_beside(slot[i]));
        }
    }
    const int rounds = T_small ? 2 : 3;
    if (slot[0] && slot[1]) {
        two_workers(c, &k, slot, rounds);
        for (int i = 0; i < 2; i++)
            CHECK(zp__g16_slot_took_sched(slot[i]));
        const uint64_t parts = (uint64_t)rounds * N_WIT, moved = zp__g16_share_bytes(&k);
        const uint64_t shares = zp__g16_slot_streamed_bytes(slot[0]) +
                                zp__g16_slot_streamed_bytes(slot[1]);
        printf("    %llu partitions moved %llu bytes through the ring: %.2f rounds a partition "
               "(%llu a round)\n",
               (unsigned long long)parts, (unsigned long long)moved,
               (double)moved / (double)per / (double)parts, (unsigned long long)per);
        CHECK(moved >= per && moved <= parts * per);
        CHECK_EQ_INT(shares, moved);

        /* One slot alone: it takes what the ring holds, then the rest. */
        worker y = {.c = c, .k = &k, .slot = slot[0], .first = 0, .rounds = 1};
        worker_run(&y);
        CHECK_EQ_INT(y.bad, 0);
        CHECK_EQ_INT(y.good, N_WIT / 2);
        const uint64_t alone = zp__g16_share_bytes(&k) - moved;
        CHECK(alone <= (uint64_t)(N_WIT / 2) * per);
        CHECK_EQ_INT(zp__g16_slot_streamed_bytes(slot[0]) + zp__g16_slot_streamed_bytes(slot[1]),
                     zp__g16_share_bytes(&k));

        /* A key streamed through slots' own rings is not this slot's. */
        zp__g16_gpu_opts own = o;
        own.tuning.ring_share = false;
        zp__g16_plan p2;
        GPU_OK(zp__g16_plan_make(&p2, &c->pk, info.arena_bytes / 2, 2, &own, &why));
        CHECK(!p2.shared && zp__g16_plan_streams(&p2));
        zp__g16_dkey k2;
        GPU_OK(zp__g16_dkey_upload_plan(&k2, T_gpu, T_s, &c->pk, &p2, &own, &why));
        CHECK(k2.share == NULL);
        CHECK(!zp__g16_slot_fits_key(slot[0], &k2));
        zp__g16_sums sums;
        CHECK_EQ_INT(zp__g16_slot_sums(slot[0], &k2, c->w[0], &sums, NULL, &why),
                     ZP_E_INVALID_ARG);
        zp__g16_dkey_free(&k2);
    }
    for (int i = 0; i < 2; i++)
        zp__g16_slot_close(slot[i]);
    zp__g16_dkey_free(&k);
    keycase_free(c);
    free(c);
}

static void test_share(void)
{
    share_case("synth:porep:10", ZP_H_TAU, 4096);
    share_case("synth:porep:10", ZP_H_COSET, 65536);
    share_case("synth:chain:8", ZP_H_COSET, 4096);
    if (!T_small)
        share_case("synth:porep:12", ZP_H_TAU, 8192);
}

/* A slot of a shared ring is sized for its buffers and never lean. */
static void test_refused(void)
{
    zp__pk pk;
    memset(&pk, 0, sizeof pk);
    pk.domain_size = 1024;
    pk.n_public = 1;
    pk.n_vars = 1000;
    pk.n_a = pk.n_b = pk.n_l = 900;
    pk.n_h = 1023;
    zp__g16_slot *s = NULL;
    zp__ioerr why = {""};
    CHECK_EQ_INT(zp__g16_slot_open_plan(&s, T_gpu, &pk, 4096, true, true, 0, 0, &T_opts, &why),
                 ZP_E_INVALID_ARG);
    CHECK(s == NULL && strstr(why.msg, "never lean") != NULL);
    CHECK_EQ_INT(zp__g16_slot_open_plan(&s, T_gpu, &pk, 0, false, true, 0, 0, &T_opts, &why),
                 ZP_E_INVALID_ARG);
    CHECK(s == NULL);
}

int main(int argc, char **argv)
{
    prover_opts_parse(argc, argv);
    gpu_test_open(argc, argv, 4);
    RUN(test_share);
    RUN(test_refused);
    gpu_test_close();
    return FINISH();
}
