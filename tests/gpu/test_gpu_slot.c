/*
 * The device-resident key and partition slots (gpu_prover.h, gather.cu):
 *  - the scalar preparation kernels (Montgomery -> standard, density
 *    gather) against host twins on random and edge bitmaps and sizes;
 *  - one dkey shared by two slots driven from two threads at once, each
 *    proving several witnesses several times: every proof has the bytes
 *    of zp__prove's for the same fixed r, s (synthetic porep and chain
 *    circuits, both H conventions, keys made by zp__setup); one slot has
 *    the key's shape, the other is larger and gathers into its own region;
 *  - the MSMs over the witness beside h, and after it (beside_h false):
 *    the same proofs, with and without the next witness sent ahead;
 *  - zp__g16_dkey_read gives the host key's points back;
 *  - zp__g16_slot_fits, and the byte counts the arena actually gives;
 *  - a slot grown into a share of the arena, and one kept at its default
 *    size within a small share;
 *  - arena exhaustion: slot open and dkey upload fail with ZP_E_GPU_OOM
 *    and leave the arena as they found it;
 *  - zp__g16_dkey_h_table gives a key an H table of the tuning's c-bit
 *    windows, or of the automatic choice's (2^13 + 1 or more H points),
 *    and none with the tables off or below that size; a slot opened then
 *    proves over it with zp__prove's bytes; zp__g16_dkey_h_pre's errors.
 * Slots and keys take the prover's options from the command line
 * (prover_opts.h; ctest also runs the witness in three parts with each
 * part first), the tests that set a field of their own on top of them;
 * the devices take its MSM thresholds (ctest also runs every dense part
 * and the ones after it through the batch-affine rounds, and G1's ones
 * first through them), and a run fails where no MSM took the path they
 * force (prover_paths_check).
 */

#include "gpu_test.h"
#include "prover_opts.h"
#include "groth16/gpu_prover.h"
#include "groth16/prove_gpu_stages.h"
#include "groth16/groth16.h"
#include "r1cs/synth.h"
#include "slot_keycase.h"
#include "slot_shape.h"

/* Closes s (may be NULL), its MSM paths counted first (prover_paths_add). */
static void slot_close(zp__g16_slot *s)
{
    prover_paths_add(s);
    zp__g16_slot_close(s);
}

/* ------------------------------------------------------------- kernels */

/* Host twins. */
static void host_rank(uint32_t *rank, const uint64_t *words, uint64_t nw)
{
    uint32_t acc = 0;
    for (uint64_t j = 0; j < nw; j++) {
        rank[j] = acc;
        for (int b = 0; b < 64; b++)
            acc += (uint32_t)((words[j] >> b) & 1);
    }
}

static uint64_t host_gather(zp_fr *out, const zp_fr *in, uint64_t n, const uint64_t *words)
{
    uint64_t k = 0;
    for (uint64_t i = 0; i < n; i++)
        if ((words[i / 64] >> (i % 64)) & 1)
            out[k++] = in[i];
    return k;
}

enum { P_NONE, P_ALL, P_HALF, P_SPARSE, P_DENSE };

/* Bits past n are set too (except for P_NONE): the kernel must ignore them. */
static void make_bits(uint64_t *words, uint64_t nw, int pattern)
{
    for (uint64_t j = 0; j < nw; j++) {
        uint64_t r = check_rand64(), r2 = check_rand64();
        switch (pattern) {
        case P_NONE: words[j] = 0; break;
        case P_ALL: words[j] = ~(uint64_t)0; break;
        case P_HALF: words[j] = r; break;
        case P_SPARSE: words[j] = r & r2 & check_rand64(); break;
        default: words[j] = r | r2; break;
        }
    }
}

static void kernel_case(uint64_t n, int pattern)
{
    uint64_t nw = (n + 63) / 64, fr = sizeof(zp_fr);
    zp_fr *x = xmalloc(n * fr), *want = xmalloc(n * fr), *got = xmalloc((n + 1) * fr);
    uint64_t *words = xmalloc(nw * 8);
    uint32_t *rank = xmalloc(nw * 4);
    for (uint64_t i = 0; i < n; i++)
        rand_fr_mont(&x[i]);
    make_bits(words, nw, pattern);
    host_rank(rank, words, nw);
    zp__gpu_buf dx = gpu_test_alloc(n * fr), dy = gpu_test_alloc((n + 1) * fr);
    zp__gpu_buf dw = gpu_test_alloc(nw * 8), dr = gpu_test_alloc(nw * 4);
    GPU_OK(zp__gpu_upload(T_s, dx.ptr, x, n * fr));
    GPU_OK(zp__gpu_upload(T_s, dw.ptr, words, nw * 8));
    GPU_OK(zp__gpu_upload(T_s, dr.ptr, rank, nw * 4));

    /* Gather of the Montgomery values; the slot after the last gathered
     * one keeps its sentinel (all ones: not a valid element). */
    uint64_t k = host_gather(want, x, n, words);
    memset(got, 0xff, (n + 1) * fr);
    GPU_OK(zp__gpu_upload(T_s, dy.ptr, got, (n + 1) * fr));
    GPU_OK(zp__gpu_fr_gather(T_s, dy.ptr, dx.ptr, n, dw.ptr, dr.ptr));
    GPU_OK(zp__gpu_download(T_s, got, dy.ptr, (n + 1) * fr));
    GPU_OK(zp__gpu_stream_sync(T_s));
    CHECK(k == 0 || memcmp(got, want, k * fr) == 0);
    uint8_t ff[sizeof(zp_fr)];
    memset(ff, 0xff, sizeof ff);
    CHECK_MEM(&got[k], ff, sizeof ff);

    /* Conversion out of place, then in place. */
    for (uint64_t i = 0; i < n; i++)
        zp_fr_from_mont(&want[i], &x[i]);
    GPU_OK(zp__gpu_fr_from_mont(T_s, dy.ptr, dx.ptr, n));
    GPU_OK(zp__gpu_download(T_s, got, dy.ptr, n * fr));
    GPU_OK(zp__gpu_stream_sync(T_s));
    CHECK_MEM(got, want, n * fr);
    GPU_OK(zp__gpu_fr_from_mont(T_s, dx.ptr, dx.ptr, n));
    GPU_OK(zp__gpu_download(T_s, got, dx.ptr, n * fr));
    GPU_OK(zp__gpu_stream_sync(T_s));
    CHECK_MEM(got, want, n * fr);

    zp__gpu_free(T_gpu, &dx);
    zp__gpu_free(T_gpu, &dy);
    zp__gpu_free(T_gpu, &dw);
    zp__gpu_free(T_gpu, &dr);
    free(x);
    free(want);
    free(got);
    free(words);
    free(rank);
}

static void test_kernels(void)
{
    uint64_t sizes[] = {1, 2, 63, 64, 65, 127, 128, 1000, 4097, 100003};
    size_t ns = sizeof sizes / sizeof *sizes - (T_small ? 1 : 0);
    for (size_t i = 0; i < ns; i++)
        for (int p = P_NONE; p <= P_DENSE; p++)
            kernel_case(sizes[i], p);
    /* n = 0 does nothing. */
    GPU_OK(zp__gpu_fr_from_mont(T_s, NULL, NULL, 0));
}

/* ------------------------------------------------------ keys and slots */

static void read_back(const zp__g16_dkey *k, const zp__pk *pk)
{
    size_t g1 = sizeof(zp_g1_affine), g2 = sizeof(zp_g2_affine);
    zp_g1_affine *a = xmalloc(pk->n_a * g1), *l = xmalloc(pk->n_l * g1);
    zp_g1_affine *h = xmalloc(pk->n_h * g1), *b1 = xmalloc(pk->n_b * g1);
    zp_g2_affine *b2 = xmalloc(pk->n_b * g2);
    GPU_OK(zp__g16_dkey_read(k, T_s, a, b1, b2, l, h));
    CHECK(!pk->n_a || memcmp(a, pk->a, pk->n_a * g1) == 0);
    CHECK(!pk->n_b || memcmp(b1, pk->b1, pk->n_b * g1) == 0);
    CHECK(!pk->n_b || memcmp(b2, pk->b2, pk->n_b * g2) == 0);
    CHECK(!pk->n_l || memcmp(l, pk->l, pk->n_l * g1) == 0);
    CHECK(memcmp(h, pk->h, pk->n_h * g1) == 0);
    free(a);
    free(b1);
    free(b2);
    free(l);
    free(h);
}

static uint64_t arena_used(zp__gpu *g)
{
    zp__gpu_info info;
    zp__gpu_get_info(g, &info);
    return info.arena_used;
}

static void two_slots(const char *spec, zp_h_conv conv)
{
    printf("  %s %s\n", spec, conv == ZP_H_TAU ? "bellperson" : "snarkjs");
    keycase *c = xmalloc(sizeof *c);
    keycase_make(c, spec, conv);
    zp__ioerr why = {""};
    zp__g16_dkey k;
    uint64_t used0 = arena_used(T_gpu);
    GPU_OK(zp__g16_dkey_upload(&k, T_gpu, T_s, &c->pk, &T_opts, &why));
    /* The size function is the arena's own count. */
    CHECK(arena_used(T_gpu) - used0 == zp__g16_dkey_bytes(&c->pk));
    read_back(&k, &c->pk);

    /* Slot 0 has the key's shape. Slot 1 is larger (a key smaller than
     * its slot) with more A scalars than its domain, so its gathers take
     * their own region instead of a. */
    zp__pk shape[2] = {c->pk, c->pk};
    shape[1].domain_size *= 2;
    shape[1].n_h = shape[1].domain_size;
    shape[1].n_a = shape[1].domain_size + 1;
    zp__g16_slot *slot[2] = {NULL, NULL};
    const int slots0 = zp__gpu_slots(T_gpu);
    for (int i = 0; i < 2; i++) {
        uint64_t u = arena_used(T_gpu);
        GPU_OK(zp__g16_slot_open(&slot[i], T_gpu, &shape[i], &T_opts, &why));
        /* The slot's regions plus its streams' own scratch, which the
         * size counts for two streams (its own and the one beside h): one
         * less where it runs nothing beside h. */
        uint64_t d = arena_used(T_gpu) - u, want = zp__g16_slot_bytes(&shape[i], &T_opts);
        CHECK(d <= want && want - d <= ZP_GPU_STREAM_ARENA_BYTES);
    }
    CHECK(zp__g16_slot_bytes(&shape[1], &T_opts) > zp__g16_slot_bytes(&shape[0], &T_opts));
    /* Two slots share the GPU: the MSMs run the kernels built for that. */
    CHECK_EQ_INT(zp__gpu_slots(T_gpu), slots0 + 2);
    if (slot[0] && slot[1]) {
        CHECK(zp__g16_slot_fits(slot[0], &c->pk));
        CHECK(zp__g16_slot_fits(slot[1], &c->pk));
        CHECK(!zp__g16_slot_fits(slot[0], &shape[1]));
        two_workers(c, &k, slot, T_small ? 2 : 3);
    }
    slot_close(slot[0]);
    slot_close(slot[1]);
    CHECK_EQ_INT(zp__gpu_slots(T_gpu), slots0);
    zp__g16_dkey_free(&k);
    CHECK(arena_used(T_gpu) == used0);
    keycase_free(c);
    free(c);
}

static void test_two_slots(void)
{
    const char *specs[] = {"synth:porep:10", "synth:chain:8"};
    for (size_t i = 0; i < 2; i++) {
        two_slots(specs[i], ZP_H_COSET);
        two_slots(specs[i], ZP_H_TAU);
    }
}

/* ------------------------------------------------ witnesses sent ahead */

typedef struct ahead_case {
    const keycase *c;
    zp__g16_slot *slot;
    int give;      /* the witness the hook gives during h (-1: none) */
    int late;      /* the one it gives when asked again (-1: none) */
    bool via_buf;  /* through the slot's pinned buffer, as the engine does */
    int calls, again, w_sums;
    zp__g16_sums *sums; /* the call's, checked at ZP_G16_NEXT_W_SUMS */
} ahead_case;

static const zp_fr *give_next(void *arg, int phase)
{
    ahead_case *a = arg;
    int i = a->give;
    if (phase == ZP_G16_NEXT_W_SUMS) { /* the sums over w made, H's not yet */
        a->w_sums++;
        CHECK(a->sums && !zp_g1_jac_is_inf(&a->sums->a));
        return NULL;
    }
    if (phase == ZP_G16_NEXT_SEND) { /* asked again: only when it gave none */
        CHECK(a->give < 0);
        a->again++;
        i = a->late;
    } else {
        a->calls++;
    }
    if (i < 0)
        return NULL;
    const zp_fr *w = a->c->w[i];
    if (!a->via_buf)
        return w;
    zp_fr *buf = zp__g16_slot_witness_buf(a->slot);
    memcpy(buf, w, (size_t)a->c->pk.n_vars * sizeof(zp_fr));
    return buf;
}

/* Proves w with zp__g16_slot_sums_next (sent, the hook giving a->give)
 * and compares with witness i's proof from zp__prove. */
static void ahead_step(ahead_case *a, const zp__g16_dkey *k, const zp_fr *w, bool sent, int i,
                       bool took)
{
    const keycase *c = a->c;
    zp__prove_opts o;
    fixed_opts(&o, c, 1);
    zp__ioerr why = {""};
    zp__g16_sums sums;
    zp__proof pr;
    uint8_t got[ZP__PROOF_BYTES];
    int calls = a->calls, again = a->again, w_sums = a->w_sums;
    zp_g1_jac_inf(&sums.a);
    a->sums = &sums;
    GPU_OK(zp__g16_slot_sums_next(a->slot, k, w, sent, give_next, a, &sums, NULL, &why));
    a->sums = NULL;
    CHECK_EQ_INT(a->calls, calls + 1);
    CHECK_EQ_INT(a->again, again + (a->give < 0));
    /* Asked once more, with the sums over w made, where they ran beside h. */
    CHECK_EQ_INT(a->w_sums, w_sums + zp__g16_slot_beside(a->slot));
    CHECK_EQ_INT(zp__g16_slot_took_sent(a->slot), took);
    CHECK_EQ_INT(zp__g16_finish_verify(&pr, &c->pk, &sums, c->w[i], &o, NULL, &why), ZP_OK);
    CHECK_EQ_INT(zp__proof_encode(got, &pr), ZP_OK);
    CHECK(memcmp(got, c->want[i], ZP__PROOF_BYTES) == 0);
}

/* The next witness sent ahead on the slot's copy stream: used when the
 * next call says so (through the pinned buffer, as the engine, and from
 * any host memory), overwritten when the next call brings another witness
 * or says so about another pointer. A sent witness that were not copied
 * would leave the last one's (converted) witness in w: a wrong proof. */
static void test_ahead(void)
{
    keycase *c = xmalloc(sizeof *c);
    keycase_make(c, "synth:porep:10", ZP_H_TAU);
    zp__ioerr why = {""};
    zp__g16_dkey k;
    GPU_OK(zp__g16_dkey_upload(&k, T_gpu, T_s, &c->pk, &T_opts, &why));
    ahead_case a = {c, NULL, 1, -1, true, 0, 0, 0, NULL};
    GPU_OK(zp__g16_slot_open(&a.slot, T_gpu, &c->pk, &T_opts, &why));
    if (a.slot) {
        /* Taken now: asking for it after the send would forget the send. */
        const zp_fr *hw = zp__g16_slot_witness_buf(a.slot);
        ahead_step(&a, &k, c->w[0], false, 0, false); /* sends 1 through the buffer */
        a.give = 2;
        a.via_buf = false;
        ahead_step(&a, &k, hw, true, 1, true);        /* 1 was sent: no upload */
        a.give = 0;
        ahead_step(&a, &k, c->w[2], true, 2, true);   /* 2 was sent (host memory) */
        ahead_step(&a, &k, c->w[3], false, 3, false);  /* 0 was sent, 3 brought */
        a.give = -1;
        ahead_step(&a, &k, c->w[3], true, 3, false);   /* 0 was sent, said of 3 */
        a.late = 2;
        ahead_step(&a, &k, c->w[1], false, 1, false);  /* nothing was sent; 2 late */
        a.late = -1;
        ahead_step(&a, &k, c->w[2], true, 2, true);    /* 2 was sent */
        ahead_step(&a, &k, c->w[0], false, 0, false);  /* nothing was sent */
    }
    slot_close(a.slot);
    zp__g16_dkey_free(&k);
    keycase_free(c);
    free(c);
}

/* ------------------------------------------------------------ beside h */

/* The MSMs over the witness beside h (zp__g16_gpu_opts.beside_h): a slot
 * with the room runs them there unless its options say no, and either way
 * every proof has zp__prove's bytes, with the next witness sent ahead (its
 * copy waits for the last reads of w on the stream beside h) and
 * without. */
static void beside_case(zp_h_conv conv, bool beside)
{
    keycase *c = xmalloc(sizeof *c);
    keycase_make(c, "synth:porep:10", conv);
    zp__ioerr why = {""};
    zp__g16_dkey k;
    GPU_OK(zp__g16_dkey_upload(&k, T_gpu, T_s, &c->pk, &T_opts, &why));
    zp__g16_gpu_opts o = T_opts;
    o.beside_h = beside;
    ahead_case a = {c, NULL, 1, -1, false, 0, 0, 0, NULL};
    GPU_OK(zp__g16_slot_open_within(&a.slot, T_gpu, &c->pk, (uint64_t)1 << 30, &o, &why));
    printf("  %s, beside_h %d: %s\n", conv == ZP_H_TAU ? "bellperson" : "snarkjs", beside,
           a.slot && zp__g16_slot_beside(a.slot) ? "beside" : "after");
    if (a.slot) {
        CHECK_EQ_INT(zp__g16_slot_beside(a.slot), beside);
        zp__prove_times t;
        memset(&t, 0, sizeof t);
        zp__g16_sums sums;
        GPU_OK(zp__g16_slot_sums_next(a.slot, &k, c->w[3], false, NULL, NULL, &sums, &t, &why));
        CHECK_EQ_INT(t.msm_beside_h, beside);
        CHECK(t.h > 0 && t.msm_h > 0 && t.msm_l > 0 && t.msm_b2 > 0);
        ahead_step(&a, &k, c->w[0], false, 0, false); /* sends 1 */
        a.give = -1;
        a.late = 2;
        ahead_step(&a, &k, c->w[1], true, 1, true);   /* 1 was sent; 2 late */
        a.late = -1;
        ahead_step(&a, &k, c->w[2], true, 2, true);   /* 2 was sent */
        /* A whole proof through the slot, and the stage by stage path. */
        zp__prove_opts o;
        fixed_opts(&o, c, 1);
        zp__proof pr;
        uint8_t got[ZP__PROOF_BYTES];
        GPU_OK(zp__g16_slot_prove(a.slot, &k, &pr, c->w[3], c->cs.n_vars, &o, NULL, &why));
        CHECK_EQ_INT(zp__proof_encode(got, &pr), ZP_OK);
        CHECK(memcmp(got, c->want[3], ZP__PROOF_BYTES) == 0);
    }
    slot_close(a.slot);
    zp__g16_dkey_free(&k);
    keycase_free(c);
    free(c);
}

static void test_beside(void)
{
    beside_case(ZP_H_TAU, true);
    beside_case(ZP_H_TAU, false);
    beside_case(ZP_H_COSET, true);
    beside_case(ZP_H_COSET, false);
}

/* --------------------------------------------------- fits and running out */

static void test_fits(void)
{
    keycase *c = xmalloc(sizeof *c);
    keycase_make(c, "synth:porep:10", ZP_H_COSET);
    zp__ioerr why = {""};
    zp__g16_slot *s = NULL;
    GPU_OK(zp__g16_slot_open(&s, T_gpu, &c->pk, &T_opts, &why));
    if (s) {
        zp__pk sh = c->pk; /* a shape copy: fits looks at counts only */
        CHECK(zp__g16_slot_fits(s, &sh));
        sh.n_vars -= 1;
        sh.n_a -= 1;
        CHECK(zp__g16_slot_fits(s, &sh));
        sh = c->pk;
        sh.n_vars += 1;
        CHECK(!zp__g16_slot_fits(s, &sh));
        sh = c->pk;
        sh.domain_size *= 2;
        CHECK(!zp__g16_slot_fits(s, &sh));
        sh = c->pk;
        sh.n_b += 1;
        CHECK(!zp__g16_slot_fits(s, &sh));
        sh = c->pk;
        sh.n_h += 1;
        CHECK(!zp__g16_slot_fits(s, &sh));
        /* A key larger than the slot is refused by the proof call too. */
        zp__g16_dkey k;
        GPU_OK(zp__g16_dkey_upload(&k, T_gpu, T_s, &c->pk, &T_opts, &why));
        zp__pk big = c->pk;
        big.n_vars += 1;
        zp__g16_dkey kb = k;
        kb.pk = &big;
        zp__g16_sums sums;
        CHECK_EQ_INT(zp__g16_slot_sums(s, &kb, c->w[0], &sums, NULL, &why), ZP_E_INVALID_ARG);
        zp__g16_dkey_free(&k);
    }
    slot_close(s);
    keycase_free(c);
    free(c);
}

/* Takes all but `leave` bytes of the largest free extent of g's arena. */
static zp__gpu_buf fill_arena(zp__gpu *g, uint64_t leave)
{
    zp__gpu_info info;
    zp__gpu_get_info(g, &info);
    zp__gpu_buf b = {NULL, 0};
    if (info.arena_largest_free > leave + 256)
        GPU_OK(zp__gpu_alloc(g, &b, info.arena_largest_free - leave));
    return b;
}

/* A slot grows its G1 MSM scratch into a large share (2^24 points: the
 * batch-affine round's room), keeps the default size within a small one,
 * and asks the arena for exactly zp__g16_slot_bytes_within's count
 * (without an H table, whose MSM's room test_h_pre checks). */
static void test_grow(void)
{
    zp__g16_gpu_opts o = T_opts;
    o.tuning.h_table = ZP_GPU_H_TABLE_OFF;
    zp__pk sh = slot_shape(24, ((uint64_t)1 << 24) - 7);
    const uint64_t dflt = zp__g16_slot_bytes(&sh, &o), share = (uint64_t)48 << 30;
    const uint64_t grown = zp__g16_slot_bytes_within(&sh, share, &o);
    printf("  2^24 shape: %.2f GiB by default, %.2f GiB within 48 GiB\n",
           (double)dflt / (1u << 30), (double)grown / (1u << 30));
    CHECK(grown > dflt && grown <= share);
    CHECK(zp__g16_slot_bytes_within(&sh, dflt / 2, &o) == dflt);
    zp__gpu_info info;
    zp__gpu_get_info(T_gpu, &info);
    if (info.arena_largest_free < grown + ((uint64_t)1 << 30)) {
        printf("  (arena too small for the grown slot: open not tried)\n");
        return;
    }
    zp__ioerr why = {""};
    zp__g16_slot *s = NULL;
    unsigned wins[2] = {0, 0};
    const uint64_t shares[2] = {share, dflt / 2}, want[2] = {grown, dflt};
    for (int i = 0; i < 2; i++) {
        uint64_t u = arena_used(T_gpu);
        GPU_OK(zp__g16_slot_open_within(&s, T_gpu, &sh, shares[i], &o, &why));
        uint64_t d = arena_used(T_gpu) - u;
        CHECK(d >= want[i] && d - want[i] <= ((uint64_t)6 << 20)); /* + streams */
        if (s)
            wins[i] = zp__g16_slot_windows(s);
        slot_close(s);
        s = NULL;
    }
    CHECK(wins[0] > wins[1] && wins[1] > 0);
}

static void test_oom(void)
{
    keycase *c = xmalloc(sizeof *c);
    keycase_make(c, "synth:porep:10", ZP_H_COSET);
    zp__gpu *g = NULL;
    zp__gpu_stream *st = NULL;
    zp__gpu_config cfg;
    zp__gpu_config_default(&cfg);
    cfg.arena_bytes = (uint64_t)256 << 20;
    cfg.msm = T_opts.msm;
    GPU_OK(zp__gpu_open(&g, &cfg));
    if (g)
        GPU_OK(zp__gpu_stream_open(g, &st));
    if (!g || !st) {
        zp__gpu_close(g);
        keycase_free(c);
        free(c);
        return;
    }
    zp__ioerr why = {""};
    zp__g16_slot *s = (zp__g16_slot *)c; /* must come back NULL */

    /* A shape whose witness region fits and whose a, b, c do not: the
     * open fails after its first allocation. */
    zp__pk sh = c->pk;
    sh.n_vars = 1u << 19;
    sh.domain_size = (uint64_t)1 << 21;
    sh.n_a = sh.n_b = sh.n_l = sh.n_h = (uint64_t)1 << 19;
    uint64_t used = arena_used(g);
    CHECK(zp__g16_slot_bytes(&sh, &T_opts) > cfg.arena_bytes);
    CHECK_EQ_INT(zp__g16_slot_open(&s, g, &sh, &T_opts, &why), ZP_E_GPU_OOM);
    CHECK(s == NULL);
    CHECK(arena_used(g) == used);
    CHECK_EQ_INT(zp__gpu_slots(g), 0); /* a failed open is not counted */

    /* The real shape fits this arena, and closing gives it all back (and
     * the device's count of slots, which picks the MSM kernels). */
    GPU_OK(zp__g16_slot_open(&s, g, &c->pk, &T_opts, &why));
    CHECK_EQ_INT(zp__gpu_slots(g), 1);
    slot_close(s);
    CHECK(arena_used(g) == used);
    CHECK_EQ_INT(zp__gpu_slots(g), 0);

    /* Half of what the slot needs left free: OOM part way, nothing kept. */
    zp__gpu_buf fill = fill_arena(g, zp__g16_slot_bytes(&c->pk, &T_opts) / 2);
    used = arena_used(g);
    s = (zp__g16_slot *)c;
    CHECK_EQ_INT(zp__g16_slot_open(&s, g, &c->pk, &T_opts, &why), ZP_E_GPU_OOM);
    CHECK(s == NULL);
    CHECK(arena_used(g) == used);
    zp__gpu_free(g, &fill);

    /* The same for the key upload. */
    zp__g16_dkey k;
    fill = fill_arena(g, zp__g16_dkey_bytes(&c->pk) / 2);
    used = arena_used(g);
    CHECK_EQ_INT(zp__g16_dkey_upload(&k, g, st, &c->pk, &T_opts, &why), ZP_E_GPU_OOM);
    CHECK(arena_used(g) == used);
    CHECK(k.p_a.ptr == NULL && k.ma.mem.ptr == NULL);
    zp__gpu_free(g, &fill);
    /* With room it works. */
    used = arena_used(g);
    GPU_OK(zp__g16_dkey_upload(&k, g, st, &c->pk, &T_opts, &why));
    zp__g16_dkey_free(&k);
    CHECK(arena_used(g) == used);

    zp__gpu_stream_close(st);
    zp__gpu_close(g);
    keycase_free(c);
    free(c);
}

/* ------------------------------------------------------------ H table */

/* Proves every witness of c on slot over k twice (worker_run); true when
 * each proof had zp__prove's bytes. */
static bool prove_all(const keycase *c, const zp__g16_dkey *k, zp__g16_slot *slot)
{
    bool ok = true;
    for (int first = 0; first < 2; first++) {
        worker x = {.c = c, .k = k, .slot = slot, .first = first, .rounds = 2};
        worker_run(&x);
        if (x.err)
            fprintf(stderr, "  %s: %s\n", zp_errname(x.err), x.msg);
        CHECK_EQ_INT(x.bad, 0);
        CHECK_EQ_INT(x.good, 2 * ((N_WIT - first + 1) / 2));
        ok = ok && !x.bad && x.good == 2 * ((N_WIT - first + 1) / 2);
    }
    return ok;
}

/* A key uploaded with the H table setting h_table has no H table until
 * zp__g16_dkey_h_table makes one of want_c-bit windows; a slot opened
 * then holds the scratch of the H MSM over it, takes it, and keeps
 * zp__prove's bytes; freeing the key gives the arena back. */
static void h_pre_case(const char *spec, zp_h_conv conv, unsigned h_table, unsigned want_c)
{
    printf("  %s %s, H table c = %u%s\n", spec, conv == ZP_H_TAU ? "bellperson" : "snarkjs",
           want_c, h_table == ZP_GPU_H_TABLE_AUTO ? " (automatic)" : "");
    zp__g16_gpu_opts o = T_opts;
    o.tuning.h_table = h_table;
    keycase *c = xmalloc(sizeof *c);
    keycase_make(c, spec, conv);
    zp__ioerr why = {""};
    zp__g16_dkey k;
    zp__g16_slot *slot = NULL;
    uint64_t used0 = arena_used(T_gpu);
    CHECK_EQ_INT(zp__g16_h_pre_c(&c->pk, &o), want_c);
    CHECK(zp__g16_h_pre_on(&c->pk, T_gpu, &o));
    GPU_OK(zp__g16_dkey_upload(&k, T_gpu, T_s, &c->pk, &o, &why));
    CHECK(k.h_pre.ptr == NULL); /* an upload alone makes none */
    GPU_OK(zp__g16_dkey_h_table(&k, T_s, &o));
    CHECK(k.h_pre.ptr != NULL);
    CHECK_EQ_INT(k.h_pre_c, want_c);
    CHECK(k.h_pre.bytes >=
          (uint64_t)zp__gpu_msm_pre_copies(want_c) * c->pk.n_h * sizeof(zp_g1_affine));
    GPU_OK(zp__g16_slot_open(&slot, T_gpu, &c->pk, &o, &why));
    if (slot && k.h_pre.ptr) {
        prove_all(c, &k, slot);
        CHECK(zp__g16_slot_took_pre(slot));
    }
    slot_close(slot);
    zp__g16_dkey_free(&k);
    CHECK(arena_used(T_gpu) == used0);
    keycase_free(c);
    free(c);
}

static void test_h_pre(void)
{
    h_pre_case("synth:porep:10", ZP_H_TAU, 9, 9);
    h_pre_case("synth:chain:8", ZP_H_COSET, 13, 13);
    if (!T_small)
        h_pre_case("synth:porep:12", ZP_H_COSET, 16, 16);
    /* 2^14 H points (snarkjs: n_h = n) and 2^14 - 1 (bellperson: n - 1),
     * both 16-bit windows unasked. */
    h_pre_case("synth:chain:14", ZP_H_COSET, ZP_GPU_H_TABLE_AUTO, 16);
    if (!T_small)
        h_pre_case("synth:porep:15", ZP_H_TAU, ZP_GPU_H_TABLE_AUTO, 16);

    /* With the tables off no table, nor below 2^14 H points unasked;
     * zp__g16_dkey_h_pre refuses a bad c and a second table; a table made
     * after the slot opened is taken only where the slot's scratch holds
     * its MSM, and the proofs are right either way. */
    keycase *c = xmalloc(sizeof *c);
    keycase_make(c, "synth:porep:10", ZP_H_COSET);
    zp__ioerr why = {""};
    zp__g16_dkey k;
    zp__g16_slot *slot = NULL;
    zp__g16_gpu_opts o = T_opts;
    o.tuning.h_table = ZP_GPU_H_TABLE_AUTO;
    CHECK_EQ_INT(zp__g16_h_pre_c(&c->pk, &o), 0);
    o.tuning.h_table = ZP_GPU_H_TABLE_OFF;
    CHECK_EQ_INT(zp__g16_h_pre_c(&c->pk, &o), 0);
    GPU_OK(zp__g16_dkey_upload(&k, T_gpu, T_s, &c->pk, &o, &why));
    GPU_OK(zp__g16_dkey_h_table(&k, T_s, &o));
    CHECK(k.h_pre.ptr == NULL);
    GPU_OK(zp__g16_slot_open(&slot, T_gpu, &c->pk, &o, &why));
    if (slot) {
        prove_all(c, &k, slot);
        CHECK(!zp__g16_slot_took_pre(slot));
        CHECK_EQ_INT(zp__g16_dkey_h_pre(&k, T_s, 1), ZP_E_INVALID_ARG);
        CHECK_EQ_INT(zp__g16_dkey_h_pre(&k, T_s, 23), ZP_E_INVALID_ARG);
        CHECK(k.h_pre.ptr == NULL);
        GPU_OK(zp__g16_dkey_h_pre(&k, T_s, 11));
        CHECK_EQ_INT(zp__g16_dkey_h_pre(&k, T_s, 11), ZP_E_INVALID_ARG);
        prove_all(c, &k, slot);
        printf("  a table made after the slot: %s\n",
               zp__g16_slot_took_pre(slot) ? "taken" : "not taken (scratch too small)");
    }
    slot_close(slot);
    zp__g16_dkey_free(&k);
    keycase_free(c);
    free(c);
}

/* The MSM paths the options force were taken (after all the cases). */
static void test_msm_paths(void) { CHECK(prover_paths_check()); }

int main(int argc, char **argv)
{
    prover_opts_parse(argc, argv);
    prover_opts_parse_msm(argc, argv);
    zp__gpu_config cfg;
    zp__gpu_config_default(&cfg);
    cfg.msm = T_opts.msm;
    gpu_test_open_cfg(argc, argv, 4, &cfg);
    RUN(test_kernels);
    RUN(test_fits);
    RUN(test_two_slots);
    RUN(test_ahead);
    RUN(test_beside);
    RUN(test_grow);
    RUN(test_oom);
    RUN(test_h_pre);
    RUN(test_msm_paths);
    gpu_test_close();
    return FINISH();
}
