/*
 * The GPU Groth16 prover against the CPU one (prove_gpu.c vs prove.c):
 * synthetic porep, dense and chain circuits with keys made in memory in
 * both H conventions, and the snarkjs mul3 .zkey. For each: stage eval's
 * a, b, c and stage h's scalars equal the CPU's value for value, the five
 * MSM sums are equal points, the proof for fixed r, s has the CPU proof's
 * 192 bytes and verifies; another r gives other bytes (so the byte
 * comparison can fail), and a broken witness is refused.
 *
 * The prover opens its own device context, so gpu_test_open (a second
 * context taking the free memory) is not used here. The prover's options
 * come from the command line (prover_opts.h): ctest runs it with the
 * defaults, with an H table of 13-bit windows (made for the one-shot
 * prover only when fixed), with every MSM after h, with the witness
 * in three parts, the middle one first, and with the MSM thresholds that
 * its device takes lowered: every dense part and the ones after it through
 * the batch-affine rounds, or G1's ones first through them; such a run
 * fails where no MSM took the path it forces (prover_paths_check).
 */
#include "gpu_test.h"
#include "groth16/groth16.h"
#include "prover_opts.h"
#include "io/io.h"
#include "r1cs/synth.h"

/* Pairs of streamed chunks the schedules summed as one, over all cases. */
static unsigned long took_pairs;

static void fixed_rs(zp_fr *r, zp_fr *s, uint64_t k)
{
    zp_fr_from_u64(r, 0x1234567ULL + k);
    zp_fr_from_u64(s, 0x89abcdefULL + 3 * k);
    zp_fr_mul(r, r, s); /* not small: exercise the full scalar */
}

static bool fr_arrays_eq(const zp_fr *x, const zp_fr *y, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (!zp_fr_eq(&x[i], &y[i])) {
            fprintf(stderr, "  first difference at %llu of %llu\n", (unsigned long long)i,
                    (unsigned long long)n);
            return false;
        }
    return true;
}

/* Stage by stage: eval, h, msm on both backends. */
static void compare_stages(zp__g16_gpu *g, const zp__pk *pk, const zp_fr *w)
{
    uint64_t n = pk->domain_size;
    zp_fr *cpu = xmalloc(3 * n * sizeof *cpu), *dev = xmalloc(n * sizeof *dev);
    zp_fr *a = cpu, *b = cpu + n, *c = cpu + 2 * n;
    zp__g16_eval(a, b, c, pk, w, 2);
    GPU_OK(zp__g16_gpu_eval(g, w));
    GPU_OK(zp__g16_gpu_read(g, dev, ZP_G16_GPU_A));
    CHECK(fr_arrays_eq(dev, a, n));
    GPU_OK(zp__g16_gpu_read(g, dev, ZP_G16_GPU_B));
    CHECK(fr_arrays_eq(dev, b, n));
    GPU_OK(zp__g16_gpu_read(g, dev, ZP_G16_GPU_C));
    CHECK(fr_arrays_eq(dev, c, n));

    CHECK_EQ_INT(zp__g16_h(a, a, b, c, pk, 2), ZP_OK);
    GPU_OK(zp__g16_gpu_h(g));
    GPU_OK(zp__g16_gpu_read(g, dev, ZP_G16_GPU_H));
    /* The device leaves standard form (the MSM's input). */
    for (uint64_t i = 0; i < pk->n_h; i++)
        zp_fr_from_mont(&a[i], &a[i]);
    CHECK(fr_arrays_eq(dev, a, pk->n_h));

    zp__g16_sums sc, sg;
    zp_fr_to_mont(&a[0], &a[0]); /* back to Montgomery for the CPU MSM stage */
    for (uint64_t i = 1; i < pk->n_h; i++)
        zp_fr_to_mont(&a[i], &a[i]);
    CHECK_EQ_INT(zp__g16_msm(&sc, pk, w, a, 2, NULL), ZP_OK);
    GPU_OK(zp__g16_gpu_msm(&sg, g, w, NULL));
    CHECK(zp_g1_jac_eq(&sc.a, &sg.a));
    CHECK(zp_g1_jac_eq(&sc.b1, &sg.b1));
    CHECK(zp_g2_jac_eq(&sc.b2, &sg.b2));
    CHECK(zp_g1_jac_eq(&sc.l, &sg.l));
    CHECK(zp_g1_jac_eq(&sc.h, &sg.h));
    free(cpu);
    free(dev);
}

/* Whole proofs: same bytes as the CPU for fixed r, s; verified. */
static void compare_proofs(zp__g16_gpu *g, const zp__pk *pk, zp_fr *w, uint64_t nw)
{
    zp__ioerr why = {""};
    zp_fr r, s, r2, s2;
    fixed_rs(&r, &s, nw);
    fixed_rs(&r2, &s2, nw + 1);
    zp__prove_opts o;
    zp__prove_opts_default(&o);
    o.threads = 2;
    o.r = &r;
    o.s = &s;
    zp__proof pc, pg, pg2;
    uint8_t bc[ZP__PROOF_BYTES], bg[ZP__PROOF_BYTES], bg2[ZP__PROOF_BYTES];
    CHECK_EQ_INT(zp__prove(&pc, pk, w, nw, &o, NULL, &why), ZP_OK);
    zp__prove_times t;
    zp_err e = zp__g16_gpu_prove(g, &pg, w, nw, &o, &t, &why);
    CHECK_EQ_INT(e, ZP_OK);
    if (e) {
        fprintf(stderr, "  %s\n", why.msg);
        return;
    }
    CHECK_EQ_INT(zp__proof_encode(bc, &pc), ZP_OK);
    CHECK_EQ_INT(zp__proof_encode(bg, &pg), ZP_OK);
    CHECK_MEM(bc, bg, ZP__PROOF_BYTES);
    CHECK_EQ_INT(zp__verify(&pk->vk, w + 1, pk->n_public, &pg), ZP_OK);
    printf("  gpu ms: eval %.2f h %.2f msm %.2f/%.2f/%.2f/%.2f/%.2f finish %.2f verify %.2f\n",
           t.eval * 1e3, t.h * 1e3, t.msm_a * 1e3, t.msm_b1 * 1e3, t.msm_b2 * 1e3,
           t.msm_l * 1e3, t.msm_h * 1e3, t.finish * 1e3, t.verify * 1e3);

    /* Another blinding: other bytes, still a valid proof. */
    o.r = &r2;
    o.s = &s2;
    CHECK_EQ_INT(zp__g16_gpu_prove(g, &pg2, w, nw, &o, NULL, &why), ZP_OK);
    CHECK_EQ_INT(zp__proof_encode(bg2, &pg2), ZP_OK);
    CHECK(memcmp(bg, bg2, ZP__PROOF_BYTES) != 0);
    CHECK_EQ_INT(zp__verify(&pk->vk, w + 1, pk->n_public, &pg2), ZP_OK);

    /* A witness that does not satisfy the key's circuit: no proof. */
    zp_fr one;
    zp_fr_one(&one);
    zp_fr keep = w[nw - 1];
    zp_fr_add(&w[nw - 1], &w[nw - 1], &one);
    zp__proof untouched = pg2;
    CHECK_EQ_INT(zp__g16_gpu_prove(g, &pg2, w, nw, &o, NULL, &why), ZP_E_UNSATISFIED);
    CHECK_MEM(&untouched, &pg2, sizeof pg2);
    w[nw - 1] = keep;
    /* And the input checks. */
    zp_fr_add(&w[0], &w[0], &one);
    CHECK_EQ_INT(zp__g16_gpu_prove(g, &pg2, w, nw, &o, NULL, &why), ZP_E_WITNESS);
    zp_fr_one(&w[0]);
    CHECK_EQ_INT(zp__g16_gpu_prove(g, &pg2, w, nw - 1, &o, NULL, &why), ZP_E_WITNESS);
}

static void run_key(const zp__pk *pk, zp_fr *w, uint64_t nw)
{
    zp__ioerr why = {""};
    zp__g16_gpu *g = NULL;
    zp_err e = zp__g16_gpu_open(&g, pk, 0, 2, &T_opts, &why);
    CHECK_EQ_INT(e, ZP_OK);
    if (e) {
        fprintf(stderr, "  open: %s\n", why.msg);
        return;
    }
    compare_stages(g, pk, w);
    compare_proofs(g, pk, w, nw);
    /* Stages again after whole proofs: the context is reusable. */
    compare_stages(g, pk, w);
    /* Key tiers: with a resident cap below the points, some crossed the
     * slot's ring (every one at a cap of 0); the cap holds at least the
     * arrays' rounding, so a cap above the points streams none. */
    uint64_t points = 0;
    for (int i = 0; i < ZP_G16_NP; i++)
        points += zp__g16_part_count(pk, (zp__g16_part)i) * zp__g16_part_size((zp__g16_part)i);
    if (T_opts.resident_cap < points) {
        const zp__g16_slot *sl = zp__g16_gpu_slot(g);
        printf("  streamed %llu bytes through a ring of 2 x %llu\n",
               (unsigned long long)zp__g16_slot_streamed_bytes(sl),
               (unsigned long long)zp__g16_slot_ring_buffer(sl));
        CHECK(zp__g16_slot_streamed_bytes(sl) > 0);
        CHECK(zp__g16_slot_ring_buffer(sl) == T_opts.ring_buffer || !T_opts.ring_buffer);
        /* The stages just compared ran the five MSMs as one schedule,
         * H's chunks into the slot's kept buckets. */
        CHECK(zp__g16_slot_took_sched(sl));
        CHECK(zp__g16_slot_took_h_acc(sl));
        printf("  pairs of streamed chunks summed as one: %u\n", zp__g16_slot_took_pairs(sl));
        took_pairs += zp__g16_slot_took_pairs(sl);
    }
    /* The lean steps forced: the slot keeps the witness in c's region, and
     * with the matrices streamed they crossed the ring too. */
    const zp__g16_slot *sl = zp__g16_gpu_slot(g);
    const bool lean_shape = pk->n_vars <= pk->domain_size; /* else never lean */
    CHECK_EQ_INT(zp__g16_slot_lean(sl), T_opts.lean && lean_shape);
    if (T_opts.stream_matrices && lean_shape) {
        printf("  matrices streamed: %llu bytes through the ring in all\n",
               (unsigned long long)zp__g16_slot_streamed_bytes(sl));
        CHECK(zp__g16_slot_streamed_bytes(sl) > 0);
    }
    prover_paths_add(zp__g16_gpu_slot(g));
    zp__g16_gpu_close(g);
}

static void synth_case(const char *spec, zp_h_conv conv)
{
    printf("  %s %s\n", spec, conv == ZP_H_TAU ? "bellperson" : "snarkjs");
    zp__synth_spec sp;
    zp__r1cs cs;
    zp__pk pk;
    CHECK_EQ_INT(zp__synth_parse(&sp, spec), ZP_OK);
    sp.threads = 2;
    sp.keep_c = true;
    CHECK_EQ_INT(zp__synth_circuit(&cs, &sp), ZP_OK);
    zp_fr *w = xmalloc((size_t)cs.n_vars * sizeof *w);
    CHECK_EQ_INT(zp__synth_witness(w, &cs, &sp, 7), ZP_OK);
    CHECK_EQ_INT(zp__setup(&pk, &cs, conv, 2, NULL), ZP_OK);
    run_key(&pk, w, cs.n_vars);
    zp__pk_free(&pk);
    zp__r1cs_free(&cs);
    free(w);
}

static void test_synth(void)
{
    /* porep:12: a domain of two NTT passes, where the TAU h stage's a'b'
     * folds into the last pass. */
    const char *specs[] = {"synth:porep:10", "synth:dense:8", "synth:chain:8", "synth:porep:12"};
    for (size_t i = 0; i < 4; i++) {
        synth_case(specs[i], ZP_H_COSET);
        synth_case(specs[i], ZP_H_TAU);
    }
}

static void test_mul3_zkey(void)
{
    zp__ioerr why = {""};
    zp__pk pk;
    zp_fr *w = NULL;
    uint64_t nw = 0;
    CHECK_EQ_INT(zp__zkey_load(&pk, "data/mul3.zkey", &why), ZP_OK);
    CHECK_EQ_INT(zp__wtns_load(&w, &nw, "data/mul3.wtns", 0, &why), ZP_OK);
    if (!w || nw != pk.n_vars) {
        CHECK(0);
        return;
    }
    run_key(&pk, w, nw);
    zp__pk_free(&pk);
    free(w);
}

/* The MSM paths the options force were taken (after all the cases); with
 * every point streamed through buffers of a few points, the witness MSMs'
 * chunks follow one another in the schedules, and some were summed two at
 * a time (the porep and dense cases have thousands of points). */
static void test_msm_paths(void)
{
    CHECK(prover_paths_check());
    if (T_opts.resident_cap == 0 && T_opts.ring_buffer && T_opts.ring_buffer <= 8192)
        CHECK(took_pairs > 0);
}

int main(int argc, char **argv)
{
    prover_opts_parse(argc, argv);
    prover_opts_parse_msm(argc, argv);
    if (zp__gpu_count() == 0) {
        /* The CPU-only contract still holds: opening reports no GPU. */
        zp__pk pk;
        zp__ioerr why = {""};
        zp__g16_gpu *g = (zp__g16_gpu *)&pk;
        if (zp__zkey_load(&pk, "data/mul3.zkey", &why) == ZP_OK) {
            zp_err e = zp__g16_gpu_open(&g, &pk, 0, 1, &T_opts, &why);
            zp__pk_free(&pk);
            if (e != ZP_E_NO_GPU || g != NULL) {
                fprintf(stderr, "without a GPU, open gave %s\n", zp_errname(e));
                return 1;
            }
        }
        printf("no GPU: skipped\n");
        return 77;
    }
    RUN(test_synth);
    RUN(test_mul3_zkey);
    RUN(test_msm_paths);
    return FINISH();
}
