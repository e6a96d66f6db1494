/*
 * Jobs of a, b, c (engine/abc.h) on the GPU slots, with a key read from a
 * bellperson .params: every partition's proof equals zp__prove's on the
 * CPU for the same circuit, r and s, byte for byte, in both H conventions'
 * place (porep: TAU); the GPU's h2d byte count shows the slots ran them
 * (witness + a and b per partition), not the CPU fallback; the slots make
 * c as a∘b, so the same proofs come with the caller's c overwritten; a
 * partition whose density maps differ from the key's first ones still
 * proves (with the CPU stages), as does a second job after it. With an arena
 * that holds one working set beside the key, two slots: the second goes
 * dormant and every partition is still proved on the GPU. The staged upload a,
 * b, c go up by puts the same bytes as a plain upload, for lengths about
 * its buffers' and chunks in both buffers across puts. The prover options
 * (prover_opts.h) force the key tiers' paths (ctest: _stream, _lean).
 * Exit 77 without a GPU.
 */
#include <stdio.h>
#include <unistd.h>

#include "../test_abc_util.h"
#include "../test_engine_util.h"
#include "engine/abc.h"
#include "engine_pad.h"
#include "gpu/gpu.h"
#include "gpu_test.h"
#include "groth16/prove_gpu_slot_impl.h"
#include "io/bellperson.h"
#include "prover_opts.h"

#define PARTS 4

static bool job_proofs_ok(zp_engine *e, const g16_fix *f, const zp__abc_part *p, zp_fr **w,
                          uint32_t n)
{
    char id[ZP_JOB_ID_MAX + 1];
    zp_job_result res;
    zp_job_info info;
    if (zp__engine_submit_abc(e, "bp", p, n, id) ||
        zp_engine_await(e, id, -1, &info, &res) != ZP_OK) {
        fprintf(stderr, "job failed: %s\n", info.message);
        return false;
    }
    bool ok = true;
    for (uint32_t i = 0; i < n; i++) {
        zp__prove_opts o;
        zp__prove_opts_default(&o);
        o.r = &p[i].r;
        o.s = &p[i].s;
        zp__proof q;
        uint8_t want[ZP__PROOF_BYTES];
        ok &= zp__prove(&q, &f->pk, w[i], f->pk.n_vars, &o, NULL, NULL) == ZP_OK &&
              zp__proof_encode(want, &q) == ZP_OK &&
              !memcmp(res.proofs + (size_t)i * ZP__PROOF_BYTES, want, ZP__PROOF_BYTES);
    }
    zp_job_result_free(&res);
    return ok;
}

/* Puts of these lengths (bytes) at odd device offsets, one stager across
 * them, then every byte read back: equal to the host's. */
static bool staged_ok(zp__g16_stager *st, const uint64_t *lens, int n)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += lens[i] + 3;
    unsigned char *h = xmalloc(total), *back = xmalloc(total);
    for (uint64_t i = 0; i < total; i++)
        h[i] = (unsigned char)check_rand64();
    memset(back, 0, total);
    zp__gpu_buf d = gpu_test_alloc(total);
    GPU_OK(zp__gpu_memset0(T_s, d.ptr, total));
    GPU_OK(zp__gpu_stream_sync(T_s));
    bool ok = true;
    uint64_t off = 0;
    for (int i = 0; i < n; i++) {
        off += 3; /* 3 bytes left as they were before each */
        ok &= zp__g16_stage_put(st, (char *)d.ptr + off, h + off, lens[i]) == ZP_OK;
        off += lens[i];
    }
    ok &= zp__g16_stage_end(st) == ZP_OK;
    GPU_OK(zp__gpu_download(T_s, back, d.ptr, total));
    GPU_OK(zp__gpu_stream_sync(T_s));
    off = 0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            ok &= back[off + k] == 0;
        off += 3;
        ok &= !memcmp(back + off, h + off, lens[i]);
        off += lens[i];
    }
    zp__gpu_free(T_gpu, &d);
    free(h);
    free(back);
    return ok;
}

static int g_argc;
static char **g_argv;

static void test_stage_put(void)
{
    gpu_test_open(g_argc, g_argv, 1);
    enum { B = 1000 }; /* buffer bytes: not a whole number of values */
    zp__gpu_stream *q = NULL;
    GPU_OK(zp__gpu_stream_open_copy(T_gpu, &q));
    void *buf[2] = {NULL, NULL};
    GPU_OK(zp__gpu_host_alloc(T_gpu, &buf[0], B));
    GPU_OK(zp__gpu_host_alloc(T_gpu, &buf[1], B));
    const uint64_t lens[] = {0, 1, B - 1, B, B + 1, 2 * B, 2 * B + 1, 37 * B + 7, 1 << 20};
    const int n = (int)(sizeof lens / sizeof *lens);
    for (int threads = 1; threads <= 4; threads += 3) {
        zp__g16_stager st = {{q, T_s}, {buf[0], buf[1]}, B, threads, 0, {false, false}};
        CHECK(staged_ok(&st, lens, n));
        CHECK(staged_ok(&st, lens + 7, 1)); /* again, from the other buffer */
    }
    /* Without buffers: plain copies. */
    zp__g16_stager plain = {{q, T_s}, {NULL, NULL}, 0, 0, 0, {false, false}};
    CHECK(staged_ok(&plain, lens, n));
    zp__gpu_host_free(buf[0]);
    zp__gpu_host_free(buf[1]);
    zp__gpu_stream_close(q);
    gpu_test_close();
}

/* PARTS partitions of f's circuit: witnesses, a, b, c, r and s. */
static void parts_make(const g16_fix *f, zp_fr **w, abc_fix *x, zp__abc_part *p)
{
    memset(p, 0, PARTS * sizeof *p);
    for (int i = 0; i < PARTS; i++) {
        w[i] = malloc(f->cs.n_vars * sizeof(zp_fr));
        CHECK_EQ_INT(zp__synth_witness(w[i], &f->cs, &f->sp, 60 + (uint64_t)i), ZP_OK);
        abc_fix_make(&x[i], &f->cs, w[i]);
        p[i].in = x[i].in;
        fr_u64(&p[i].r, 11 + (uint64_t)i);
        fr_u64(&p[i].s, 111 + (uint64_t)i);
    }
}

static void parts_free(zp_fr **w, abc_fix *x)
{
    for (int k = 0; k < PARTS; k++) {
        abc_fix_free(&x[k]);
        free(w[k]);
    }
}

/* The case of the engine tests: circuit's key (porep:12's where none is
 * named) saved as a .params (its path with tag in it) and PARTS
 * partitions of its circuit. */
static void case_make(g16_fix *f, char path[64], const char *tag, zp_fr **w, abc_fix *x,
                      zp__abc_part *p, const char *circuit)
{
    CHECK(fix_make(f, circuit ? circuit : "porep:12", ZP_H_TAU, 1) == 0);
    snprintf(path, 64, "/tmp/zp-gpuabc-%s-%d.params", tag, (int)getpid());
    CHECK_EQ_INT(zp__params_save(path, &f->pk, 0, NULL), ZP_OK);
    parts_make(f, w, x, p);
}

static void case_free(g16_fix *f, const char *path, zp_fr **w, abc_fix *x)
{
    parts_free(w, x);
    unlink(path);
    fix_free(f);
}

/* Jobs of a, b, c on one GPU with the default slots, or with one (slots
 * 1): the GPU then admits that slot alone, and each partition after a
 * job's first goes up from a copy of its a and b made ahead, while the
 * partition before ran (gpu_worker.c, zp__abc_pre), its a into the slot
 * during that one's schedule where the key streams, and its b in that
 * schedule's tail where the slot is lean and its plan has H chunks after
 * the witness's last. Every proof equals the CPU's (job_proofs_ok), the
 * caller's c garbage or not. circuit: porep:12 or the one named. */
static void abc_jobs(int slots, const char *circuit)
{
    g16_fix f;
    char path[64];
    zp_fr *w[PARTS];
    abc_fix x[PARTS];
    zp__abc_part p[PARTS];
    case_make(&f, path, "jobs", w, x, p, circuit);
    zp_engine_config c;
    zp_engine_config_default(&c);
    c.gpus = 1;
    c.cpu_workers = 0;
    c.gpu_mem_bytes = T_opts.arena_bytes; /* --gpu-mem (the memcheck runs'), else 0: whole */
    if (slots)
        c.gpu_slots = slots;
    zp_engine *e = NULL;
    CHECK_EQ_INT(zp__engine_open_opts(&e, &c, &T_opts), ZP_OK);
    CHECK_EQ_INT(zp_engine_add_key(e, "bp", path), ZP_OK);
    CHECK(job_proofs_ok(e, &f, p, w, PARTS));
    zp_gpu_info gi;
    CHECK_EQ_INT(zp_engine_gpu_info(e, 0, &gi), ZP_OK);
    uint64_t per = ((uint64_t)f.pk.n_vars + 2 * x[0].in.abc_size) * sizeof(zp_fr);
    printf("h2d %llu bytes for %d partitions (%llu each at least)\n",
           (unsigned long long)gi.h2d_bytes, PARTS, (unsigned long long)per);
    CHECK(gi.h2d_bytes >= PARTS * per);
    /* With the key tiers forced (ctest's _stream and _lean), the points
     * streamed: a drop-in on a small GPU. */
    if (T_opts.resident_cap != UINT64_MAX)
        CHECK(gi.streamed_bytes > 0);
    else
        CHECK_EQ_INT(gi.streamed_bytes, 0);
    /* The caller's c is not read: garbage there, the same proofs. */
    {
        const size_t cb = x[0].in.abc_size * sizeof(zp_fr);
        zp_fr *keep = malloc(PARTS * cb);
        CHECK(keep != NULL);
        for (int i = 0; keep && i < PARTS; i++) {
            memcpy((char *)keep + i * cb, x[i].in.c, cb);
            memset((void *)x[i].in.c, 0xa5, cb);
            p[i].in = x[i].in;
        }
        CHECK(job_proofs_ok(e, &f, p, w, PARTS));
        for (int i = 0; keep && i < PARTS; i++)
            memcpy((void *)x[i].in.c, (char *)keep + i * cb, cb);
        free(keep);
    }
    /* Other density maps (one B aux bit moved, its popcount kept): the
     * slot cannot take it; the CPU stages prove what the maps say, so the
     * proof no longer verifies and the job fails, and the engine goes on. */
    /* The moved bit's two aux values differ, or the proof would still be
     * right: B's point then gets the same scalar. */
    uint64_t *bw = (uint64_t *)x[1].in.b_aux;
    const zp_fr *aux = x[1].in.aux;
    uint64_t i = 0;
    while (i + 1 < x[1].in.n_aux &&
           (!(bw[i / 64] >> (i % 64) & 1) || (bw[(i + 1) / 64] >> ((i + 1) % 64) & 1) ||
            i % 64 == 63 || !memcmp(&aux[i], &aux[i + 1], sizeof(zp_fr))))
        i++;
    CHECK(i + 1 < x[1].in.n_aux);
    bw[i / 64] ^= 3ULL << (i % 64); /* i and i+1 are in one word when i % 64 < 63 */
    {
        char id[ZP_JOB_ID_MAX + 1];
        zp_job_info info;
        CHECK_EQ_INT(zp__engine_submit_abc(e, "bp", &p[1], 1, id), ZP_OK);
        CHECK_EQ_INT(zp_engine_await(e, id, -1, &info, NULL), ZP_E_VERIFY_FAILED);
        bw[i / 64] ^= 3ULL << (i % 64);
    }
    CHECK(job_proofs_ok(e, &f, p, w, PARTS));
    /* Three jobs of PARTS partitions above and one of one: with one slot,
     * all but each job's first went up from their copies made ahead, and
     * where the key's points stream but its matrices do not and the MSMs
     * run as a schedule after h (_lean, _after_h: no eval rows take a's
     * freed bottom) their a during the partition before's schedule;
     * _stream's matrices stream, and the next eval's rows go there. */
    printf("slots %d: %llu partitions went up from a and b copied ahead, %llu with their a "
           "sent during the schedule before, %llu their b too; %llu sent their witness "
           "after h\n",
           slots, (unsigned long long)e->gpus[0].abc_ahead,
           (unsigned long long)e->gpus[0].abc_a_sent,
           (unsigned long long)e->gpus[0].abc_b_sent,
           (unsigned long long)e->gpus[0].abc_w_late);
    /* The witness after h (copied into pinned memory while h runs): every
     * partition the slots proved (the three jobs of PARTS; the one with
     * other maps ran on the CPU stages) on a lean slot (_lean), and on a
     * usual one whose ring streams the key and that runs no MSMs beside h
     * (_after_h); none where the witness MSMs run beside h or the key is
     * whole. */
    const bool w_late = T_opts.lean || (T_opts.resident_cap != UINT64_MAX && !T_opts.beside_h);
    CHECK_EQ_INT((int)e->gpus[0].abc_w_late, w_late ? 3 * PARTS : 0);
    if (slots == 1) {
        const int after_first = 3 * (PARTS - 1);
        CHECK_EQ_INT((int)e->gpus[0].abc_ahead, after_first);
        CHECK_EQ_INT((int)e->gpus[0].abc_a_sent, w_late ? after_first : 0);
        /* b in the schedule's tail: a lean slot's (_lean), where H's
         * chunks outlast the witness's (porep:15's plan, not porep:12's) */
        CHECK_EQ_INT((int)e->gpus[0].abc_b_sent, T_opts.lean && circuit ? after_first : 0);
    }
    zp_engine_close(e);
    case_free(&f, path, w, x);
}

static void test_gpu_abc(void)
{
    abc_jobs(0, NULL);
    abc_jobs(1, NULL);
    if (T_opts.lean)
        abc_jobs(1, "porep:15");
}

/* Admission with jobs of a, b, c, two slots: arenas from room for two
 * working sets beside the key down by a quarter of the least one at a time,
 * until one where only one slot is admitted (there is one: one working set
 * fits and two do not over a span wider than the step). There the second
 * slot found no room, went dormant and put its partition back: every
 * partition was proved on the GPU (the h2d count has each one's witness, a
 * and b), none with the CPU stages, and every proof equals the CPU's. A
 * partition proved with the CPU stages at any arena tried fails the test.
 * Where the key tiers are forced (_stream, _lean) slots carry rings: not
 * run there. */
static void test_gpu_abc_admission(void)
{
    if (T_opts.resident_cap != UINT64_MAX)
        return;
    g16_fix f;
    char path[64];
    zp_fr *w[PARTS];
    abc_fix x[PARTS];
    zp__abc_part p[PARTS];
    case_make(&f, path, "adm", w, x, p, NULL);
    uint64_t dev, stream;
    base_bytes(&dev, &stream);
    const uint64_t dkey = zp__g16_dkey_bytes(&f.pk), slot = zp__g16_slot_bytes(&f.pk, &T_opts);
    const uint64_t least = zp__g16_slot_bytes_min(&f.pk);
    const uint64_t per = ((uint64_t)f.pk.n_vars + 2 * x[0].in.abc_size) * sizeof(zp_fr);
    zp_engine_config c;
    zp_engine_config_default(&c);
    c.gpus = 1;
    c.gpu_slots = 2;
    c.cpu_workers = 0;
    c.gpu_mem_bytes = (uint64_t)512 << 20;
    bool found = false;
    uint64_t room = dkey + 2 * (slot + stream) + least;
    for (int tries = 0; tries < 24 && !found && room > dkey + least / 4;
         tries++, room -= least / 4) {
        zp_engine *e = NULL;
        CHECK_EQ_INT(zp__engine_open_opts(&e, &c, &T_opts), ZP_OK);
        if (!e)
            break;
        zp__gpu_buf pad;
        bool stop = true; /* no arena to try, or a partition on the CPU stages */
        if (pad_arena(e, room, &pad)) {
            CHECK_EQ_INT(zp_engine_add_key(e, "bp", path), ZP_OK);
            CHECK(job_proofs_ok(e, &f, p, w, PARTS));
            CHECK(job_proofs_ok(e, &f, p, w, PARTS));
            zp_gpu_info gi;
            CHECK_EQ_INT(zp_engine_gpu_info(e, 0, &gi), ZP_OK);
            printf("admission: %llu bytes free: %u of 2 slots admitted (%s); h2d %llu bytes "
                   "for %d partitions (%llu each at least)\n",
                   (unsigned long long)room, gi.slots_admitted, e->gpus[0].why,
                   (unsigned long long)gi.h2d_bytes, 2 * PARTS, (unsigned long long)per);
            stop = gi.h2d_bytes < 2 * PARTS * per;
            found = gi.slots_admitted == 1 && !stop;
        }
        close_with_pad(e, &pad);
        if (stop)
            break;
    }
    CHECK(found);
    case_free(&f, path, w, x);
}

int main(int argc, char **argv)
{
    if (zp__gpu_count() == 0) {
        printf("no GPU: skipped\n");
        return 77;
    }
    g_argc = argc;
    g_argv = argv;
    prover_opts_parse(argc, argv);
    RUN(test_stage_put);
    RUN(test_gpu_abc);
    RUN(test_gpu_abc_admission);
    return FINISH();
}
