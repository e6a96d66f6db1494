/*
 * The engine with GPU slot workers (gpu_worker.c), on device 0:
 *  - a GPU-only engine sets synthetic keys up on the GPU and proves jobs of
 *    several partitions on two slots; every proof verifies independently,
 *    the trace has every stage of every partition on a GPU lane, the key
 *    reports the device tier and its arena bytes;
 *  - a mixed engine (one CPU worker, one GPU) uploads a host key and both
 *    kinds of worker prove partitions of the same jobs;
 *  - admission: with an arena that holds the key and one working set, a
 *    3-slot GPU admits one slot, and every job still completes;
 *  - an arena too small for the key fails the job with a message naming
 *    the GPU (and a preload with ZP_E_GPU_OOM and its reason), and the
 *    engine keeps serving other keys;
 *  - a preloaded key with an H table and an arena with nothing else free:
 *    a second key's load frees that table (not the key, which stays
 *    preloaded and resident) and proves; key info and metrics say the
 *    table's bytes before and 0 after;
 *  - a key's plan on the GPU (what is resident, what streams) matches its
 *    device copy, and the bytes a job's partitions moved host to device
 *    (witnesses, streamed points) are counted per GPU, in /metrics and in
 *    the trace;
 *  - a job cancelled while running ends cancelled; the GPU goes on;
 *  - a partition a slot took ahead goes back to the queue when a more
 *    urgent job arrives before its turn: the urgent job's partitions run
 *    first, and every partition still runs once;
 *  - with two or more GPUs, all of them set the key up and prove
 *    partitions of the same jobs; where it streams, one pinned image of
 *    its points serves every GPU and is counted once.
 * The engines' GPU prover options come from the command line
 * (prover_opts.h; ctest also runs every MSM after h, and the witness in
 * three parts with the middle one first). Exit 77 without a GPU.
 */
#include <stdio.h>
#include <string.h>

#include "../test_engine_util.h"
#include "engine_pad.h"
#include "gpu/gpu.h"
#include "gpu/wpack.h"
#include "groth16/gpu_prover.h"
#include "prover_opts.h"

static int small;

static zp_engine *open_gpu_engine_opts(int cpu, int slots, uint64_t mem,
                                       const zp__g16_gpu_opts *o)
{
    zp_engine_config c;
    zp_engine_config_default(&c);
    c.cpu_workers = cpu;
    c.gpus = 1;
    c.gpu_slots = slots;
    c.gpu_mem_bytes = mem;
    c.verify_threads = 2;
    zp_engine *e = NULL;
    zp_err err = zp__engine_open_opts(&e, &c, o);
    CHECK_EQ_INT(err, ZP_OK);
    return e;
}

static zp_engine *open_gpu_engine(int cpu, int slots, uint64_t mem)
{
    return open_gpu_engine_opts(cpu, slots, mem, &T_opts);
}

/* The pinned images of a streaming slot's two witness packs for keys like
 * k: the room past the witness up to the domain, 256-aligned, where it
 * holds the packs' table (prove_gpu_wpack.c); 0 where it does not. */
static uint64_t pack_images(const zp__key *k)
{
    const uint64_t room =
        k->domain_size > k->n_vars ? ((k->domain_size - k->n_vars) * 32) & ~(uint64_t)255 : 0;
    const uint64_t nch = zp__wpack_chunks(k->n_vars);
    return nch && nch <= ZP_WPACK_CHUNKS_MAX && room > zp__wpack_table_bytes(nch) ? 2 * room : 0;
}

/* Every stage of every partition of job ran once, the proving ones on a
 * GPU lane (or a CPU one when cpu_ok); gpu_parts[g] (if given) counts the
 * partitions whose MSMs ran on GPU g; each msm stage on a GPU lane has its
 * five MSMs traced (msm_h ... msm_l) on that lane. */
static void check_lanes(zp_engine *e, const char *job, uint32_t parts, bool cpu_ok,
                        int gpu_parts[ZP__GPUS_MAX])
{
    char *text;
    size_t len;
    CHECK_EQ_INT(zp_engine_trace_json(e, &text, &len), ZP_OK);
    zp__json doc;
    zp__ioerr why;
    CHECK_EQ_INT(zp__json_parse(&doc, text, len, NULL, &why), ZP_OK);
    zp_free(text);
    int seen[ZP__ST_COUNT][16] = {{0}}, msm_gpu = 0, msm_parts = 0;
    const zp__jval *ev = zp__json_get(doc.root, "traceEvents");
    for (size_t i = 0; ev && i < ev->n; i++) {
        const zp__jval *x = &ev->items[i];
        const zp__jval *ph = zp__json_get(x, "ph"), *args = zp__json_get(x, "args");
        if (!ph || strcmp(ph->str, "X"))
            continue;
        const zp__jval *name = zp__json_get(x, "name"), *j = zp__json_get(args, "job");
        const zp__jval *p = zp__json_get(args, "partition"), *tid = zp__json_get(x, "tid");
        if (!name || !j || !p || !tid || strcmp(j->str, job))
            continue;
        int part = atoi(p->str), lane = atoi(tid->str);
        /* The five MSMs' own stages; msm_wait (a streaming key's) is not one. */
        for (int s = ZP__ST_MSM_H; s <= ZP__ST_MSM_L; s++)
            if (!strcmp(name->str, zp__stage_name((zp__stage)s))) {
                CHECK(lane >= 0 && lane < e->n_provers && e->workers[lane].gpu >= 0);
                msm_parts++;
            }
        for (int s = 0; s < ZP__ST_COUNT; s++) {
            if (strcmp(name->str, zp__stage_name((zp__stage)s)) || part < 0 || part >= 16)
                continue;
            seen[s][part]++;
            if (s == ZP__ST_VERIFY || lane < 0 || lane >= e->n_provers)
                continue;
            int g = e->workers[lane].gpu;
            CHECK(g >= 0 || cpu_ok);
            if (s == ZP__ST_MSM && g >= 0 && g < ZP__GPUS_MAX && gpu_parts)
                gpu_parts[g]++;
            msm_gpu += s == ZP__ST_MSM && g >= 0;
        }
    }
    for (int s = 0; s < ZP__ST_COUNT; s++)
        for (uint32_t p = 0; p < 16; p++)
            CHECK_EQ_INT(seen[s][p], p < parts ? 1 : 0);
    CHECK_EQ_INT(msm_parts, 5 * msm_gpu);
    zp__json_free(&doc);
}

static void test_gpu_only(void)
{
    zp_engine *e = open_gpu_engine(0, 2, 0);
    if (!e)
        return;
    const char *circ = small ? "synth:porep:9" : "synth:porep:12";
    CHECK_EQ_INT(zp_engine_add_key(e, "p", circ), ZP_OK);
    CHECK_EQ_INT(zp_engine_add_key(e, "c", "synth:chain:8"), ZP_OK);
    CHECK(t_key(e, "p")->gpu_setup);
    char ids[4][ZP_JOB_ID_MAX + 1];
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(t_submit(e, NULL, i == 3 ? "c" : "p", ZP_PRIO_NORMAL, 3,
                              100 + 10 * (uint64_t)i, ids[i]),
                     ZP_OK);
    for (int i = 0; i < 4; i++)
        t_await_ok(e, ids[i], i == 3 ? "c" : "p", 3);
    check_lanes(e, ids[0], 3, false, NULL);
    zp_key_info ki;
    CHECK_EQ_INT(zp_engine_key_info(e, 0, &ki), ZP_OK);
    CHECK_EQ_INT(ki.tier, ZP_KEY_DEVICE);
    CHECK(ki.device_bytes > 0);
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.proofs_verified, 12);
    CHECK_EQ_INT(st.proofs_rejected, 0);
    char *m;
    size_t len;
    CHECK_EQ_INT(zp_engine_metrics(e, &m, &len), ZP_OK);
    CHECK(strstr(m, "zkpipe_gpu_slots_admitted{gpu=\"0\"} 2") != NULL);
    CHECK(strstr(m, "zkpipe_gpu_memory_bytes{gpu=\"0\",kind=\"used\"}") != NULL);
    /* Both slots proved, so both pinned a witness buffer of the key's size
     * (lean slots two each: --lean, porep being a lean shape). A shared-ring
     * key's slots hold no ring of their own, so a slot that took one of
     * chain's partitions (an own-ring key) was opened again at chain's size. */
    /* A slot of a streaming key (a resident cap) also pins two images of
     * its witness packs: the room in its witness region past the witness,
     * 256-aligned (prove_gpu_wpack.c). */
    const bool streams = T_opts.resident_cap != UINT64_MAX;
    const zp__key *kp = t_key(e, "p");
    const unsigned long long wp =
        (T_opts.lean ? 2ull : 1ull) * kp->n_vars * 32 + (streams ? pack_images(kp) : 0);
    const zp__key *kc = t_key(e, "c");
    const unsigned long long wc = kc->n_vars * 32ull + (streams ? pack_images(kc) : 0);
    char want[3][96];
    const unsigned long long sums[3] = {2 * wp, wp + wc, 2 * wc};
    for (int i = 0; i < 3; i++)
        snprintf(want[i], sizeof want[i], "zkpipe_pinned_host_bytes{gpu=\"0\"} %llu\n", sums[i]);
    bool pinned_ok = strstr(m, want[0]) ||
                     (T_opts.tuning.ring_share && (strstr(m, want[1]) || strstr(m, want[2])));
    if (!pinned_ok) {
        const char *l = strstr(m, "zkpipe_pinned_host_bytes{");
        fprintf(stderr, "pinned: %.60s (want %llu, %llu or %llu)\n", l ? l : "none", sums[0],
                sums[1], sums[2]);
    }
    CHECK(pinned_ok);
    zp_free(m);
    /* Evicting the key frees its device copy; the next job makes it again. */
    CHECK_EQ_INT(zp_engine_evict_key(e, "p"), ZP_OK);
    CHECK_EQ_INT(zp_engine_key_info(e, 0, &ki), ZP_OK);
    CHECK_EQ_INT(ki.device_bytes, 0);
    CHECK_EQ_INT(t_submit(e, NULL, "p", ZP_PRIO_HIGH, 2, 7, ids[0]), ZP_OK);
    t_await_ok(e, ids[0], "p", 2);
    zp_engine_close(e);
}

static void test_mixed(void)
{
    zp_engine *e = open_gpu_engine(1, 2, 0);
    if (!e)
        return;
    CHECK_EQ_INT(zp_engine_add_key(e, "d", "synth:dense:9"), ZP_OK);
    CHECK(!t_key(e, "d")->gpu_setup);
    char ids[3][ZP_JOB_ID_MAX + 1];
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(t_submit(e, NULL, "d", ZP_PRIO_NORMAL, 6, 50 + 10 * (uint64_t)i, ids[i]),
                     ZP_OK);
    int gpu_parts[ZP__GPUS_MAX] = {0};
    for (int i = 0; i < 3; i++) {
        t_await_ok(e, ids[i], "d", 6);
        check_lanes(e, ids[i], 6, true, gpu_parts);
    }
    CHECK(gpu_parts[0] > 0);
    zp_engine_close(e);
}

/* The shape sizes of a key, from a CPU setup of the same circuit. */
static void shape_bytes(const char *spec, uint64_t *dkey, uint64_t *slot)
{
    zp__synth_spec s;
    zp__r1cs cs;
    zp__pk pk;
    *dkey = *slot = 0;
    if (zp__synth_parse(&s, spec))
        return;
    s.keep_c = true;
    s.threads = 2;
    if (zp__synth_circuit(&cs, &s))
        return;
    if (zp__setup(&pk, &cs, ZP_H_TAU, 2, NULL) == ZP_OK) {
        *dkey = zp__g16_dkey_bytes(&pk);
        *slot = zp__g16_slot_bytes(&pk, &T_opts);
        zp__pk_free(&pk);
    }
    zp__r1cs_free(&cs);
}

/* A GPU-only engine whose arena has exactly `free_bytes` left once it is
 * open (engine_pad.h). */
static zp_engine *open_with_free(int slots, uint64_t free_bytes, zp__gpu_buf *pad)
{
    memset(pad, 0, sizeof *pad);
    zp_engine *e = open_gpu_engine(0, slots, (uint64_t)512 << 20);
    if (e)
        pad_arena(e, free_bytes, pad);
    return e;
}

static void test_admission(void)
{
    const char *circ = "synth:porep:11";
    uint64_t dkey, slot, dev, stream;
    shape_bytes(circ, &dkey, &slot);
    base_bytes(&dev, &stream);
    CHECK(dkey > 0 && slot > 0 && dev > 0);
    /* Room for the tables, the load stream, the key and one slot and a
     * half (each slot has a stream too), and a little rounding. */
    uint64_t margin = (uint64_t)1 << 20;
    printf("admission: device %llu, stream %llu, dkey %llu, slot %llu bytes\n",
           (unsigned long long)dev, (unsigned long long)stream, (unsigned long long)dkey,
           (unsigned long long)slot);
    uint64_t one = slot + stream;
    zp__gpu_buf pad;
    zp_engine *e = open_with_free(3, dkey + one + one / 2 + margin, &pad);
    if (!e)
        return;
    CHECK_EQ_INT(zp_engine_add_key(e, "p", circ), ZP_OK);
    char ids[4][ZP_JOB_ID_MAX + 1];
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(t_submit(e, NULL, "p", ZP_PRIO_NORMAL, 3, 10 * (uint64_t)i, ids[i]),
                     ZP_OK);
    for (int i = 0; i < 4; i++)
        t_await_ok(e, ids[i], "p", 3);
    int admitted = e->gpus[0].admitted;
    printf("admission: %d of 3 slots admitted (%s)\n", admitted, e->gpus[0].why);
    if (T_opts.resident_cap == UINT64_MAX)
        CHECK(admitted >= 1 && admitted < 3);
    else
        /* Key tiers cap the resident points: the key takes a fraction of
         * `dkey`, and what it leaves holds more working sets. */
        CHECK(admitted >= 1);
    close_with_pad(e, &pad);

    /* An arena that holds a small key and its working set, not the big
     * key: the small key proves, then the big job fails naming the GPU,
     * then the small key proves again. (Small first: the arena is first
     * fit, and a big key freed between the small key and the free tail
     * would leave two holes, neither large enough.) */
    uint64_t sdkey, sslot, bdkey, bslot;
    const char *big = "synth:porep:15";
    shape_bytes("synth:chain:6", &sdkey, &sslot);
    shape_bytes(big, &bdkey, &bslot);
    printf("admission: small key %llu + %llu, big key %llu + %llu bytes\n",
           (unsigned long long)sdkey, (unsigned long long)sslot, (unsigned long long)bdkey,
           (unsigned long long)bslot);
    CHECK(sdkey + sslot + 4 * margin < bdkey + bslot);
    e = open_with_free(2, sdkey + sslot + stream + 2 * margin, &pad);
    if (!e)
        return;
    CHECK_EQ_INT(zp_engine_add_key(e, "big", big), ZP_OK);
    CHECK_EQ_INT(zp_engine_add_key(e, "small", "synth:chain:6"), ZP_OK);
    char id[ZP_JOB_ID_MAX + 1];
    zp_job_info info;
    CHECK_EQ_INT(t_submit(e, NULL, "small", ZP_PRIO_NORMAL, 2, 2, id), ZP_OK);
    t_await_ok(e, id, "small", 2);
    CHECK_EQ_INT(t_submit(e, NULL, "big", ZP_PRIO_NORMAL, 1, 1, id), ZP_OK);
    CHECK_EQ_INT(zp_engine_await(e, id, -1, &info, NULL), ZP_E_GPU_OOM);
    CHECK_EQ_INT(info.state, ZP_JOB_FAILED);
    printf("too large: %s\n", info.message);
    CHECK(strstr(info.message, "gpu") != NULL);
    /* A preload of it fails the same way and keeps the reason. */
    CHECK_EQ_INT(zp_engine_preload_key(e, "big"), ZP_E_GPU_OOM);
    zp_key_info ki;
    CHECK_EQ_INT(zp_engine_key_info(e, 0, &ki), ZP_OK);
    CHECK_EQ_INT(ki.last_error, ZP_E_GPU_OOM);
    CHECK(!ki.preloaded);
    printf("preload too large: %s\n", ki.last_message);
    CHECK(strstr(ki.last_message, "gpu0: ") == ki.last_message);
    CHECK_EQ_INT(t_submit(e, NULL, "small", ZP_PRIO_NORMAL, 2, 1, id), ZP_OK);
    t_await_ok(e, id, "small", 2);
    close_with_pad(e, &pad);
}

/* Whether the engine's metrics text has `line`. */
static bool metrics_has(zp_engine *e, const char *line)
{
    char *m = NULL;
    size_t len = 0;
    bool has = zp__eng_metrics(e, &m, &len) == ZP_OK && m && strstr(m, line);
    free(m);
    return has;
}

/* The H table of a preloaded key goes when another key needs its room:
 * A (2^15 - 1 H points: a table unasked) is preloaded, the rest of the arena
 * is carved away, and B's load, with nowhere else to go, frees A's table;
 * A stays preloaded on the device, its bytes less the table's, and B's
 * jobs prove. */
static void test_table_first(void)
{
    zp__g16_gpu_opts o = T_opts;
    o.tuning.h_table = ZP_GPU_H_TABLE_AUTO;
    zp_engine *e = open_gpu_engine_opts(0, 1, (uint64_t)1 << 30, &o);
    if (!e)
        return;
    CHECK_EQ_INT(zp_engine_add_key(e, "a", "synth:porep:15"), ZP_OK);
    CHECK_EQ_INT(zp_engine_add_key(e, "b", "synth:chain:6"), ZP_OK);
    CHECK_EQ_INT(zp_engine_preload_key(e, "a"), ZP_OK);
    const zp__key *a = t_key(e, "a");
    const zp__g16_dkey *dk = a->dk[0];
    if (T_opts.resident_cap != UINT64_MAX) {
        /* Key tiers below its points: it streams, and a key that streams
         * makes no table. */
        CHECK(dk && zp__g16_dkey_streams(dk) && !dk->h_pre.ptr);
        zp_engine_close(e);
        return;
    }
    CHECK(dk && dk->h_pre.ptr);
    if (!dk || !dk->h_pre.ptr) {
        zp_engine_close(e);
        return;
    }
    const uint64_t table = dk->h_pre.bytes;
    zp_key_info ki;
    CHECK_EQ_INT(zp_engine_key_info(e, 0, &ki), ZP_OK);
    const uint64_t with_table = ki.device_bytes;
    CHECK_EQ_INT(ki.h_table_bytes, table);
    char want[96];
    snprintf(want, sizeof want, "\nzkpipe_key_h_table_bytes{key=\"a\"} %llu\n",
             (unsigned long long)table);
    CHECK(metrics_has(e, want));
    /* Every free hole carved away, the largest first. */
    zp__gpu_buf pad[32];
    int npad = 0;
    zp__gpu_info info;
    for (zp__gpu_get_info(e->gpus[0].dev, &info); info.arena_largest_free && npad < 32;
         zp__gpu_get_info(e->gpus[0].dev, &info)) {
        CHECK_EQ_INT(zp__gpu_alloc(e->gpus[0].dev, &pad[npad], info.arena_largest_free), ZP_OK);
        if (!pad[npad++].ptr)
            break;
    }
    CHECK_EQ_INT(info.arena_largest_free, 0);
    printf("table first: A's table %llu bytes; the arena's free room carved away (%d holes)\n",
           (unsigned long long)table, npad);
    CHECK_EQ_INT(zp_engine_preload_key(e, "b"), ZP_OK);
    CHECK(a->dk[0] == dk && dk->h_pre.ptr == NULL);
    CHECK_EQ_INT(zp_engine_key_info(e, 0, &ki), ZP_OK);
    CHECK(ki.preloaded);
    CHECK(ki.device_bytes + table == with_table);
    CHECK_EQ_INT(ki.h_table_bytes, 0);
    CHECK(metrics_has(e, "\nzkpipe_key_h_table_bytes{key=\"a\"} 0\n"));
    char id[ZP_JOB_ID_MAX + 1];
    CHECK_EQ_INT(t_submit(e, NULL, "b", ZP_PRIO_NORMAL, 2, 1, id), ZP_OK);
    t_await_ok(e, id, "b", 2);
    for (int i = 0; i < npad; i++)
        zp__gpu_free(e->gpus[0].dev, &pad[i]);
    CHECK_EQ_INT(t_submit(e, NULL, "a", ZP_PRIO_NORMAL, 2, 2, id), ZP_OK);
    t_await_ok(e, id, "a", 2);
    zp_engine_close(e);
}

/* A lean slot's witnesses go packed (prove_gpu_wpack.c) where the options
 * force lean slots: a job of porep:15 (31780 variables, 31.6 KB of room
 * past them in c's region) whose partitions' witnesses are sent ahead
 * proves, and some sends went packed; where the matrices stream, some
 * evals found their first block sent during the schedule before, and
 * their last rows sent into a (zp__gpu_eval_low). */
static void test_wpack(void)
{
    if (!T_opts.lean && !T_opts.stream_matrices)
        return;
    zp_engine *e = open_gpu_engine_opts(0, 1, (uint64_t)1 << 30, &T_opts);
    if (!e)
        return;
    CHECK_EQ_INT(zp_engine_add_key(e, "p", "synth:porep:15"), ZP_OK);
    char id[ZP_JOB_ID_MAX + 1];
    CHECK_EQ_INT(t_submit(e, NULL, "p", ZP_PRIO_NORMAL, 6, 3, id), ZP_OK);
    t_await_ok(e, id, "p", 6);
    unsigned packed = 0, lean = 0, ahead = 0, low = 0;
    for (int i = 0; i < e->n_provers; i++) {
        const struct zp__g16_slot *sl = e->workers[i].slot;
        if (sl && zp__g16_slot_lean(sl)) {
            lean++;
            packed += zp__g16_slot_took_wpack(sl);
            ahead += zp__g16_slot_took_eval_ahead(sl);
            low += zp__g16_slot_took_eval_low(sl);
        }
    }
    printf("wpack: %u lean slots, %u witness sends packed, %u evals found their first block "
           "sent ahead, %u their last rows in a\n",
           lean, packed, ahead, low);
    CHECK(lean > 0 && packed > 0);
    /* Streamed matrices: the schedule sends the next eval's first block
     * (prove_gpu_sched.c), and the proofs above verified with it. */
    CHECK(!T_opts.stream_matrices || (ahead > 0 && low > 0));
    zp_engine_close(e);
}

/* The sum of args h2d_bytes of job's msm events in the engine's trace and
 * how many carry it; every other event carries none. */
static uint64_t trace_h2d(zp_engine *e, const char *job, int *events)
{
    char *text;
    size_t len;
    *events = 0;
    CHECK_EQ_INT(zp_engine_trace_json(e, &text, &len), ZP_OK);
    zp__json doc;
    zp__ioerr why;
    CHECK_EQ_INT(zp__json_parse(&doc, text, len, NULL, &why), ZP_OK);
    zp_free(text);
    uint64_t sum = 0;
    const zp__jval *ev = zp__json_get(doc.root, "traceEvents");
    for (size_t i = 0; ev && i < ev->n; i++) {
        const zp__jval *x = &ev->items[i], *args = zp__json_get(x, "args");
        const zp__jval *name = zp__json_get(x, "name"), *j = zp__json_get(args, "job");
        const zp__jval *h2d = zp__json_get(args, "h2d_bytes");
        if (!h2d)
            continue;
        CHECK(name && !strcmp(name->str, "msm") && zp__json_get(args, "streamed_bytes"));
        if (j && !strcmp(j->str, job)) {
            sum += strtoull(h2d->str, NULL, 10);
            (*events)++;
        }
    }
    zp__json_free(&doc);
    return sum;
}

/* What a key's plan and the GPU's counters say (zp_engine_key_plan,
 * zp_engine_gpu_info, /metrics, the trace): the plan matches the device
 * copy (its streamed points' bytes are the pinned bytes, summed over the
 * arrays); a fresh engine has moved nothing; a job of 3 partitions moves
 * at least each partition's witness and streamed points, counted per GPU,
 * in /metrics and on each partition's msm event (their sum the counter).
 * With --resident-cap (ctest test_gpu_engine_stream) the key streams: its
 * info and plan say so and the slots hold staging rings; without, nothing
 * streams and the witnesses are all that moved. With --ring-share too
 * (test_gpu_engine_share) the two slots share the key's ring: the plan
 * says so, the slots hold none, and the partitions together move each
 * streamed point at least once and at most once each. An evicted key has
 * no plan. */
static void test_io_counts(void)
{
    zp_engine *e = open_gpu_engine(0, 2, 0);
    if (!e)
        return;
    const bool streams = T_opts.resident_cap != UINT64_MAX;
    CHECK_EQ_INT(zp_engine_add_key(e, "s", small ? "synth:porep:9" : "synth:porep:12"), ZP_OK);
    CHECK_EQ_INT(zp_engine_preload_key(e, "s"), ZP_OK);
    const zp__key *k = t_key(e, "s");
    const zp__g16_dkey *dk = k->dk[0];
    CHECK(dk != NULL);
    if (!dk) {
        zp_engine_close(e);
        return;
    }
    CHECK(zp__g16_dkey_streams(dk) == streams);
    const uint64_t per = zp__g16_dkey_stream_bytes(dk), wit = (uint64_t)k->n_vars * 32;
    zp_key_gpu_plan p;
    CHECK_EQ_INT(zp_engine_key_plan(e, 0, 0, &p), ZP_OK);
    CHECK(p.resident);
    zp_key_gpu_plan none;
    CHECK_EQ_INT(zp_engine_key_plan(e, 0, 1, &none), ZP_E_NOT_FOUND); /* a one-GPU engine */
    CHECK_EQ_INT(zp_engine_key_plan(e, 1, 0, &none), ZP_E_NOT_FOUND);
    /* Streamed matrices are pinned too (--stream-matrices). */
    uint64_t pinned = dk->mat_stream ? dk->ma.mem.bytes + dk->mb.mem.bytes : 0;
    CHECK(dk->mat_stream == T_opts.stream_matrices); /* porep: a lean shape */
    for (unsigned i = 0; i < ZP_KEY_ARRAYS; i++) {
        CHECK(p.resident_points[i] <= p.points[i]);
        pinned += (p.points[i] - p.resident_points[i]) * zp__g16_part_size((zp__g16_part)i);
    }
    CHECK_EQ_INT(p.pinned_bytes, per);
    CHECK_EQ_INT(pinned, per);
    CHECK((per > 0) == streams);
    CHECK((p.ring_buffer_bytes > 0) == streams);
    CHECK((strstr(p.summary, "streamed") != NULL) == streams);
    printf("plan on gpu0: %s\n", p.summary);
    zp_key_info ki;
    CHECK_EQ_INT(zp_engine_key_info(e, 0, &ki), ZP_OK);
    CHECK_EQ_INT(ki.tier, ZP_KEY_DEVICE);
    CHECK_EQ_INT(ki.streamed_bytes, per);
    CHECK_EQ_INT(ki.ring_buffer_bytes, p.ring_buffer_bytes);
    zp_gpu_info g;
    CHECK_EQ_INT(zp_engine_gpu_info(e, 0, &g), ZP_OK);
    CHECK_EQ_INT(g.h2d_bytes, 0);
    CHECK_EQ_INT(zp_engine_gpu_info(e, 1, &g), ZP_E_NOT_FOUND);

    char id[ZP_JOB_ID_MAX + 1];
    CHECK_EQ_INT(t_submit(e, NULL, "s", ZP_PRIO_NORMAL, 3, 5, id), ZP_OK);
    t_await_ok(e, id, "s", 3);
    CHECK_EQ_INT(zp_engine_gpu_info(e, 0, &g), ZP_OK);
    /* The memory outside the arena: some was left free when it was taken
     * (the reserve, or what a capped arena left), and never more is free
     * there than the card holds beside the arena. */
    CHECK(g.outside_free_at_open > 0 && g.outside_free > 0);
    CHECK(g.outside_free_at_open <= g.total_bytes - g.arena_bytes);
    CHECK(g.outside_free <= g.total_bytes - g.arena_bytes);
    printf("3 partitions moved %llu bytes host to device (%llu streamed); per partition the "
           "key streams %llu, the witness is %llu\n",
           (unsigned long long)g.h2d_bytes, (unsigned long long)g.streamed_bytes,
           (unsigned long long)per, (unsigned long long)wit);
    const bool shared = dk->share != NULL;
    CHECK(shared == (streams && T_opts.tuning.ring_share));
    CHECK((strstr(p.summary, "shared") != NULL) == shared);
    if (shared)
        CHECK(g.streamed_bytes >= per && g.streamed_bytes <= 3 * per &&
              g.streamed_bytes == zp__g16_share_bytes(dk));
    else
        CHECK(g.streamed_bytes >= 3 * per);
    CHECK(g.h2d_bytes >= g.streamed_bytes + (T_opts.lean ? 6 : 3) * wit);
    if (!streams) {
        zp_engine_info st;
        CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
        CHECK_EQ_INT(g.streamed_bytes, 0);
        if (!st.proofs_rejected) /* a proof made again moves its bytes again */
            CHECK_EQ_INT(g.h2d_bytes, 3 * wit);
    }
    CHECK(g.working_sets >= 1);
    /* The slots' rings, or the key's one shared ring. */
    const uint64_t ring2 = 2 * zp__g16_arena_round(p.ring_buffer_bytes);
    CHECK_EQ_INT(g.ring_bytes, !streams ? 0 : shared ? ring2 : g.working_sets * ring2);
    char want[128];
    snprintf(want, sizeof want, "\nzkpipe_gpu_h2d_bytes_total{gpu=\"0\"} %llu\n",
             (unsigned long long)g.h2d_bytes);
    CHECK(metrics_has(e, want));
    snprintf(want, sizeof want, "\nzkpipe_gpu_streamed_bytes_total{gpu=\"0\"} %llu\n",
             (unsigned long long)g.streamed_bytes);
    CHECK(metrics_has(e, want));
    snprintf(want, sizeof want, "\nzkpipe_key_streamed_bytes{key=\"s\"} %llu\n",
             (unsigned long long)per);
    CHECK(metrics_has(e, want));
    int events;
    CHECK_EQ_INT(trace_h2d(e, id, &events), g.h2d_bytes);
    CHECK(events >= 3);

    CHECK_EQ_INT(zp_engine_evict_key(e, "s"), ZP_OK);
    CHECK_EQ_INT(zp_engine_key_plan(e, 0, 0, &p), ZP_OK);
    CHECK(!p.resident && !p.pinned_bytes && !p.summary[0]);
    CHECK_EQ_INT(zp_engine_key_info(e, 0, &ki), ZP_OK);
    CHECK_EQ_INT(ki.streamed_bytes, 0);
    zp_engine_close(e);
}

static void test_cancel(void)
{
    zp_engine *e = open_gpu_engine(0, 1, 0);
    if (!e)
        return;
    CHECK_EQ_INT(zp_engine_add_key(e, "p", small ? "synth:porep:10" : "synth:porep:14"), ZP_OK);
    char id[ZP_JOB_ID_MAX + 1], id2[ZP_JOB_ID_MAX + 1];
    CHECK_EQ_INT(t_submit(e, NULL, "p", ZP_PRIO_NORMAL, 8, 1, id), ZP_OK);
    CHECK(t_wait_state(e, id, ZP_JOB_RUNNING));
    CHECK_EQ_INT(zp_engine_cancel(e, id), ZP_OK);
    zp_job_info info;
    zp_engine_await(e, id, -1, &info, NULL);
    CHECK_EQ_INT(info.state, ZP_JOB_CANCELLED);
    CHECK(t_wait_idle(e));
    CHECK_EQ_INT(t_submit(e, NULL, "p", ZP_PRIO_NORMAL, 2, 3, id2), ZP_OK);
    t_await_ok(e, id2, "p", 2);
    zp_engine_close(e);
}

/* The start (trace ts, microseconds) of stage st of partition part of
 * job; -1 when it is not in the trace. */
static double stage_start(zp_engine *e, const char *job, uint32_t part, zp__stage st)
{
    char *text;
    size_t len;
    double at = -1;
    CHECK_EQ_INT(zp_engine_trace_json(e, &text, &len), ZP_OK);
    zp__json doc;
    zp__ioerr why;
    CHECK_EQ_INT(zp__json_parse(&doc, text, len, NULL, &why), ZP_OK);
    zp_free(text);
    const zp__jval *ev = zp__json_get(doc.root, "traceEvents");
    for (size_t i = 0; ev && i < ev->n; i++) {
        const zp__jval *x = &ev->items[i], *args = zp__json_get(x, "args");
        const zp__jval *name = zp__json_get(x, "name"), *j = zp__json_get(args, "job");
        const zp__jval *p = zp__json_get(args, "partition"), *ts = zp__json_get(x, "ts");
        if (name && j && p && ts && !strcmp(name->str, zp__stage_name(st)) &&
            !strcmp(j->str, job) && (uint32_t)atoi(p->str) == part)
            at = atof(ts->str);
    }
    zp__json_free(&doc);
    return at;
}

/* The first partition taken ahead: its job and number; an urgent job of
 * two partitions submitted then, from the worker's thread. */
typedef struct ahead_probe {
    zp_engine *e;
    int calls;
    char job[ZP_JOB_ID_MAX + 1];
    uint32_t part;
    zp_err submitted;
    char urgent[ZP_JOB_ID_MAX + 1];
} ahead_probe;

static void on_ahead(void *ctx, const char *job, uint32_t part)
{
    ahead_probe *p = ctx;
    if (p->calls++)
        return;
    snprintf(p->job, sizeof p->job, "%s", job);
    p->part = part;
    p->submitted = t_submit(p->e, NULL, "p", ZP_PRIO_CRITICAL, 2, 77, p->urgent);
}

/* One slot: during partition 0's h stage it takes partition 1 ahead (and
 * starts loading its witness); a critical job arrives right then, so at
 * partition 1's turn more urgent work waits and partition 1 goes back:
 * the critical job's two partitions start before it, and every partition
 * of both jobs runs once and verifies. */
static void test_put_back(void)
{
    zp_engine *e = open_gpu_engine(0, 1, 0);
    if (!e)
        return;
    CHECK_EQ_INT(zp_engine_add_key(e, "p", small ? "synth:porep:9" : "synth:porep:12"), ZP_OK);
    ahead_probe probe = {.e = e, .submitted = ZP_E_NOT_FOUND}; /* until the hook runs */
    zp__engine_set_ahead_hook(e, on_ahead, &probe);
    char id[ZP_JOB_ID_MAX + 1];
    CHECK_EQ_INT(t_submit(e, NULL, "p", ZP_PRIO_NORMAL, 4, 5, id), ZP_OK);
    t_await_ok(e, id, "p", 4);
    CHECK(probe.calls >= 1);
    CHECK_EQ_INT(probe.submitted, ZP_OK);
    if (probe.calls < 1 || probe.submitted != ZP_OK) {
        zp_engine_close(e);
        return;
    }
    t_await_ok(e, probe.urgent, "p", 2);
    CHECK(!strcmp(probe.job, id));
    CHECK_EQ_INT(probe.part, 1);
    double back = stage_start(e, id, probe.part, ZP__ST_ACQUIRE);
    double u0 = stage_start(e, probe.urgent, 0, ZP__ST_ACQUIRE);
    double u1 = stage_start(e, probe.urgent, 1, ZP__ST_ACQUIRE);
    printf("put back: %s/%u acquired at %.0f us, the urgent job's at %.0f and %.0f\n", id,
           probe.part, back, u0, u1);
    CHECK(u0 >= 0 && u1 >= 0 && back >= 0);
    CHECK(u0 < back && u1 < back);
    check_lanes(e, id, 4, false, NULL);
    check_lanes(e, probe.urgent, 2, false, NULL);
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.proofs_verified, 6);
    CHECK_EQ_INT(st.proofs_rejected, 0);
    zp_engine_close(e);
}

/* Every GPU of the machine (run only with two or more): a preload sets the
 * key up on each from the same toxic waste, and all prove partitions of the
 * same jobs. */
static void test_multi_gpu(void)
{
    zp_engine_config c;
    zp_engine_config_default(&c);
    c.cpu_workers = 0;
    c.gpus = -1; /* all */
    c.gpu_slots = 2;
    c.verify_threads = 2;
    zp_engine *e = NULL;
    CHECK_EQ_INT(zp__engine_open_opts(&e, &c, &T_opts), ZP_OK);
    if (!e)
        return;
    int n = zp__gpu_count() < ZP__GPUS_MAX ? zp__gpu_count() : ZP__GPUS_MAX;
    CHECK_EQ_INT(e->n_gpus, n);
    CHECK_EQ_INT(zp_engine_add_key(e, "p", small ? "synth:porep:9" : "synth:porep:12"), ZP_OK);
    /* A preload sets the key up on every GPU before any job. */
    CHECK_EQ_INT(zp_engine_preload_key(e, "p"), ZP_OK);
    for (int g = 0; g < n; g++)
        CHECK(t_key(e, "p")->dk_bytes[g] > 0);
    /* Where it streams, the GPUs share one image of its points. */
    bool one_image = true;
    uint64_t per_gpu_pinned = 0;
    pthread_mutex_lock(&e->mu);
    const zp__key *k = zp__key_find(e, "p");
    const bool streams = k->dk[0] && k->dk[0]->img;
    for (int g = 0; g < n && streams; g++) {
        one_image = one_image && k->dk[g] && k->dk[g]->img == k->himg;
        per_gpu_pinned += k->dk_plan[g].pinned_bytes;
    }
    pthread_mutex_unlock(&e->mu);
    CHECK(streams == (T_opts.resident_cap != UINT64_MAX));
    if (streams) {
        zp_key_info ki;
        CHECK_EQ_INT(zp_engine_key_info(e, 0, &ki), ZP_OK);
        printf("multi-GPU: one image %d, streamed %llu bytes pinned (%llu as planned per GPU)\n",
               one_image, (unsigned long long)ki.streamed_bytes,
               (unsigned long long)per_gpu_pinned);
        CHECK(one_image);
        CHECK(ki.streamed_bytes > 0 && ki.streamed_bytes < per_gpu_pinned);
    }
    enum { JOBS = 6, PARTS = 4 };
    char ids[JOBS][ZP_JOB_ID_MAX + 1];
    for (int i = 0; i < JOBS; i++)
        CHECK_EQ_INT(t_submit(e, NULL, "p", ZP_PRIO_NORMAL, PARTS, 500 + (uint64_t)i, ids[i]),
                     ZP_OK);
    int per_gpu[ZP__GPUS_MAX] = {0};
    for (int i = 0; i < JOBS; i++) {
        t_await_ok(e, ids[i], "p", PARTS);
        check_lanes(e, ids[i], PARTS, false, per_gpu);
    }
    int total = 0;
    for (int g = 0; g < n; g++) {
        printf("multi-GPU: gpu%d proved %d of %d partitions, key %llu bytes there\n", g,
               per_gpu[g], JOBS * PARTS, (unsigned long long)t_key(e, "p")->dk_bytes[g]);
        CHECK(per_gpu[g] > 0);
        CHECK(t_key(e, "p")->dk_bytes[g] > 0);
        total += per_gpu[g];
    }
    CHECK_EQ_INT(total, JOBS * PARTS);
    zp_engine_info st;
    CHECK_EQ_INT(zp_engine_status(e, &st), ZP_OK);
    CHECK_EQ_INT(st.proofs_verified, JOBS * PARTS);
    CHECK_EQ_INT(st.proofs_rejected, 0);
    char *m;
    size_t len;
    CHECK_EQ_INT(zp_engine_metrics(e, &m, &len), ZP_OK);
    CHECK(strstr(m, "zkpipe_gpu_slots_admitted{gpu=\"1\"} 2") != NULL);
    zp_free(m);
    zp_engine_close(e);
}

int main(int argc, char **argv)
{
    prover_opts_parse(argc, argv);
    for (int i = 1; i < argc; i++)
        small |= !strcmp(argv[i], "--small");
    if (zp__gpu_count() == 0) {
        printf("no GPU: skipped\n");
        return 77;
    }
    RUN(test_gpu_only);
    RUN(test_mixed);
    RUN(test_admission);
    RUN(test_table_first);
    RUN(test_io_counts);
    RUN(test_wpack);
    RUN(test_cancel);
    RUN(test_put_back);
    if (zp__gpu_count() >= 2)
        RUN(test_multi_gpu);
    else
        printf("skip test_multi_gpu (needs two GPUs; not counted)\n");
    return FINISH();
}
