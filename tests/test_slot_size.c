/*
 * GPU prover slot sizing on the host (no GPU needed: the sizes are the
 * MSM plans' arithmetic): a slot's lean size (without room for the G1
 * batch-affine round) is never above its full size, equals it for shapes
 * below the round's 2^21 points, and for a synth:porep:27-like shape is
 * smaller by the round's extra scratch (about 2 GiB at two windows a
 * pass); the size within a share of the arena grows with the share; the
 * H table's automatic windows by size, and the room a slot makes for its
 * MSM; the sizes follow the options' MSM thresholds. A build without CUDA sizes no MSM scratch: there the checks that
 * need one are skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "groth16/gpu_prover.h"
#include "slot_shape.h"

static bool have_cuda(void) { return zp__gpu_msm_scratch_bytes((uint64_t)1 << 20, false) != 0; }

/* The default options with the H table's setting h. */
static zp__g16_gpu_opts with_h_table(unsigned h)
{
    zp__g16_gpu_opts o;
    zp__g16_gpu_opts_default(&o);
    o.tuning.h_table = h;
    return o;
}

static void test_small_shapes(void)
{
    const zp__g16_gpu_opts off = with_h_table(ZP_GPU_H_TABLE_OFF); /* its room: below */
    for (unsigned lg = 10; lg <= 20; lg += 2) {
        zp__pk pk = slot_shape(lg, ((uint64_t)1 << lg) - 5);
        uint64_t full = zp__g16_slot_bytes(&pk, &off), lean = zp__g16_slot_bytes_min(&pk);
        CHECK(full == lean);
        /* w and a | b | c at least */
        CHECK(full >= (pk.n_vars + 3 * pk.domain_size) * sizeof(zp_fr));
        CHECK(zp__g16_slot_bytes_pre(&pk, &off) == lean);
    }
}

/* The automatic H table (the default): 16-bit windows up to 2^16 H points,
 * 17 up to 2^22, 20 up to 2^24, none at 2^13 or fewer or above 2^24; off
 * none; c those windows where one MSM holds the copies. With a table the
 * slot's default and least-with-table sizes hold its MSM's scratch; the
 * least size never does. Out-of-range settings are refused. */
static void test_h_pre_auto(void)
{
    static const struct { uint64_t n_h; unsigned c; } want[] = {
        {1, 0}, {1u << 13, 0}, {(1u << 13) + 1, 16}, {(1u << 14) - 1, 16}, {1u << 14, 16}, {(1u << 16), 16}, {(1u << 16) + 1, 17},
        {(1u << 20) - 1, 17}, {1u << 22, 17}, {(1u << 22) + 1, 20}, {1u << 24, 20},
        {(1u << 24) + 1, 0}, {1u << 27, 0}};
    const bool cuda = have_cuda();
    zp__g16_gpu_opts dflt;
    zp__g16_gpu_opts_default(&dflt);
    CHECK_EQ_INT(dflt.tuning.h_table, ZP_GPU_H_TABLE_AUTO);
    CHECK(dflt.tuning.ntt_twist);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        zp__pk pk = slot_shape(10, 1000);
        pk.n_h = want[i].n_h;
        CHECK_EQ_INT(zp__g16_h_pre_c(&pk, NULL), cuda ? want[i].c : 0);
        CHECK_EQ_INT(zp__g16_h_pre_c(&pk, &dflt), cuda ? want[i].c : 0);
    }
    zp__pk pk = slot_shape(27, 130170222);
    const zp__g16_gpu_opts off = with_h_table(ZP_GPU_H_TABLE_OFF), c13 = with_h_table(13);
    CHECK_EQ_INT(zp__g16_h_pre_c(&pk, NULL), 0);
    pk.n_h = 1u << 20;
    CHECK_EQ_INT(zp__g16_h_pre_c(&pk, &off), 0);
    CHECK_EQ_INT(zp__g16_h_pre_c(&pk, &c13), cuda ? 13 : 0);
    pk.n_h = 1u << 27; /* 20 copies of 2^27 exceed one MSM */
    CHECK_EQ_INT(zp__g16_h_pre_c(&pk, &c13), 0);
    zp__g16_gpu_opts bad = with_h_table(ZP_GPU_H_TABLE_MAX + 1);
    CHECK_EQ_INT(zp_gpu_tuning_check(&bad.tuning), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__g16_gpu_opts_check(&bad), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp_gpu_tuning_check(&c13.tuning), ZP_OK);
    CHECK_EQ_INT(zp__g16_gpu_opts_check(&c13), ZP_OK);
    bad = dflt;
    bad.upload_parts = ZP_G16_PARTS_MAX + 1;
    CHECK_EQ_INT(zp__g16_gpu_opts_check(&bad), ZP_E_INVALID_ARG);

    zp__pk p24 = slot_shape(24, ((uint64_t)1 << 24) - 5);
    uint64_t pre = zp__g16_slot_bytes_pre(&p24, NULL), lean = zp__g16_slot_bytes_min(&p24);
    printf("  porep:24-like slot: %.2f GiB least, %.2f GiB with the H table's room\n",
           (double)lean / (1u << 30), (double)pre / (1u << 30));
    if (!cuda)
        return;
    const uint64_t need = zp__gpu_msm_scratch_bytes_pre(p24.n_h, 20);
    CHECK(need > 0);
    CHECK(pre > lean);
    CHECK(pre >= need + p24.domain_size * sizeof(zp_fr));
    CHECK(zp__g16_slot_bytes(&p24, NULL) >= pre);
    CHECK(lean < need + p24.domain_size * sizeof(zp_fr));
}

static void test_porep27(void)
{
    zp__pk pk = slot_shape(27, 130170222);
    uint64_t full = zp__g16_slot_bytes(&pk, NULL), lean = zp__g16_slot_bytes_min(&pk);
    double gib = (double)(1u << 30);
    printf("  porep:27-like slot: %.2f GiB, %.2f GiB lean\n", (double)full / gib,
           (double)lean / gib);
    CHECK(lean <= full);
    CHECK(lean >= (pk.n_vars + 3 * pk.domain_size) * sizeof(zp_fr));
    if (!have_cuda()) {
        printf("  (no CUDA in this build: no MSM scratch to compare)\n");
        return;
    }
    CHECK(full - lean >= ((uint64_t)1 << 30));
    CHECK(full - lean <= ((uint64_t)8 << 30));
}

/* H's kept buckets: a slot with a ring keeps them at the window an MSM
 * over one of the schedule's buffers (a quarter of the ring) takes, 17 for
 * buffers of 0.5 GiB (or over all of a smaller key's H points), and
 * counts them in its size beside its regions, lean or not; a slot without
 * a ring has none. */
static void test_h_acc(void)
{
    if (!have_cuda()) {
        printf("  (no CUDA in this build: no buckets to size)\n");
        return;
    }
    const uint64_t gib = (uint64_t)1 << 30;
    CHECK_EQ_INT(zp__g16_h_acc_window(0, 1u << 27), 0);
    CHECK_EQ_INT(zp__g16_h_acc_window(gib, 1u << 27), 17);
    CHECK_EQ_INT(zp__g16_h_acc_window(gib, 1u << 27), (int)zp__gpu_msm_acc_window(gib / 2 / 96));
    CHECK(zp__g16_h_acc_window(4096, 1u << 27) >= 2 && zp__g16_h_acc_window(4096, 1u << 27) < 17);
    CHECK_EQ_INT(zp__g16_h_acc_window(2 * gib, 1u << 27), 17); /* 1 GiB chunks: still 17 */
    /* Chunks of more than 2 GiB: 20, where the key has as many points;
     * exactly 2 GiB (a 24 GiB arena's lean slot): 17. */
    CHECK_EQ_INT(zp__g16_h_acc_window(7 * gib / 2, 1u << 27), 17); /* a 32 GiB arena's */
    CHECK_EQ_INT(zp__g16_h_acc_window(4 * gib - 4096, 1u << 27), 17);
    CHECK_EQ_INT(zp__g16_h_acc_window(4 * gib, 1u << 27), 17);
    CHECK_EQ_INT(zp__g16_h_acc_window(4 * gib + 4096, 1u << 27), 20);
    CHECK_EQ_INT(zp__g16_h_acc_window(8 * gib, 1u << 27), 20);
    CHECK_EQ_INT(zp__g16_h_acc_window(8 * gib, 1u << 23), 17); /* fewer points than that */
    /* A key with fewer H points than a buffer holds: their window. */
    CHECK_EQ_INT(zp__g16_h_acc_window(gib, 1u << 16), (int)zp__gpu_msm_acc_window(1u << 16));
    CHECK(zp__g16_h_acc_window(gib, 1u << 16) < 17);
    CHECK(zp__gpu_msm_acc_bytes(17) == 15ull * (1u << 16) * 192);
    static const unsigned lgs[] = {16, 20, 24, 27};
    static const uint64_t rbs[] = {(uint64_t)1 << 20, (uint64_t)256 << 20, (uint64_t)1 << 30};
    for (size_t i = 0; i < sizeof lgs / sizeof *lgs; i++)
        for (size_t j = 0; j < sizeof rbs / sizeof *rbs; j++) {
            const unsigned lg = lgs[i];
            zp__pk pk = slot_shape(lg, ((uint64_t)1 << lg) - 7);
            const uint64_t rb = rbs[j], n = pk.domain_size * sizeof(zp_fr);
            const uint64_t bk = zp__gpu_msm_acc_bytes(zp__g16_h_acc_window(rb, pk.n_h));
            const uint64_t r = zp__g16_slot_bytes_ring(&pk, rb, NULL),
                           l = zp__g16_slot_bytes_lean(&pk, rb, NULL);
            printf("  2^%u, ring 2 x %.0f MiB: buckets %.0f MiB, ring slot %.2f GiB, "
                   "lean %.2f GiB\n",
                   lg, (double)rb / (1 << 20), (double)bk / (1 << 20), (double)r / gib,
                   (double)l / gib);
            CHECK(bk > 0);
            CHECK(r >= pk.n_vars * sizeof(zp_fr) + 3 * n + 2 * rb + bk);
            CHECK(l >= 3 * n + 2 * rb + bk);
        }
    /* A usual slot whose H chunks hold 4 GiB of points or more has scratch
     * past a for the batch-affine layout of such a chunk in two passes;
     * just below that it has less, and the step is the scratch's. */
    zp__gpu_msm_opts mo;
    zp__gpu_msm_opts_default(&mo);
    zp__pk pk = slot_shape(27, 130170222);
    /* A ring slot's witness region and a's third: the domain's size each. */
    const uint64_t third = pk.domain_size * sizeof(zp_fr);
    const uint64_t rings[] = {8 * gib - 4096, 8 * gib, 16 * gib};
    for (size_t i = 0; i < sizeof rings / sizeof *rings; i++) {
        const uint64_t rb = rings[i], chunk = 2 * rb / 4 / sizeof(zp_g1_affine);
        const unsigned hc = zp__g16_h_acc_window(rb, pk.n_h);
        const uint64_t two = zp__gpu_msm_acc_affine_scratch_bytes_opts(&mo, chunk, hc, 2);
        const uint64_t r = zp__g16_slot_bytes_ring(&pk, rb, NULL);
        const uint64_t fixed = 2 * third + 2 * rb + zp__gpu_msm_acc_bytes(hc);
        printf("  2^27, ring 2 x %.2f GiB: H at c = %u, two passes' scratch %.2f GiB, "
               "ring slot %.2f GiB\n",
               (double)rb / gib, hc, (double)two / gib, (double)r / gib);
        CHECK(two > 0);
        CHECK(zp__gpu_msm_acc_affine_scratch_bytes_opts(&mo, chunk, hc, 1) > two);
        CHECK_EQ_INT(hc, 20);
        if (chunk >= 2 * ((uint64_t)1 << 31) / sizeof(zp_g1_affine))
            CHECK(r >= fixed + two);
        else
            CHECK(r < fixed + two);
    }
    CHECK(zp__g16_slot_bytes_ring(&pk, 8 * gib, NULL) >
          zp__g16_slot_bytes_ring(&pk, 8 * gib - 4096, NULL) + ((uint64_t)128 << 20));
    CHECK_EQ_INT((int)zp__gpu_msm_acc_affine_scratch_bytes_opts(&mo, 1000, 1, 2), 0);
    CHECK_EQ_INT((int)zp__gpu_msm_acc_affine_scratch_bytes_opts(&mo, 0, 17, 2), 0);
    CHECK_EQ_INT((int)zp__gpu_msm_acc_affine_scratch_bytes_opts(&mo, 1000, 17, 0), 0);
}

/* The size a slot asks for within a share: the default size for no share
 * or a small one, never above a larger share, growing with it, and for a
 * porep:27-like shape more than the default when the share is large. */
static void test_within(void)
{
    zp__pk pk = slot_shape(27, 130170222);
    uint64_t full = zp__g16_slot_bytes(&pk, NULL);
    CHECK(zp__g16_slot_bytes_within(&pk, 0, NULL) == full);
    CHECK(zp__g16_slot_bytes_within(&pk, full / 2, NULL) == full);
    CHECK(zp__g16_slot_bytes_within(&pk, full, NULL) == full);
    uint64_t prev = full;
    for (uint64_t gib = 20; gib <= 200; gib += 10) {
        uint64_t share = gib << 30, b = zp__g16_slot_bytes_within(&pk, share, NULL);
        CHECK(b >= prev);
        CHECK(b == full || b <= share);
        prev = b;
    }
    printf("  porep:27-like slot within 200 GiB: %.2f GiB\n", (double)prev / (1u << 30));
    if (have_cuda())
        CHECK(prev > full + ((uint64_t)8 << 30)); /* all windows a pass */
    /* An H200 engine slot beside a porep:27 key with its twist tables gets
     * ~39.5 GiB: room for H, all dense and without the split's arrays, at
     * 7 windows a pass (two passes of its 13), not the 6 that sizing it
     * with the split's arrays gave (three passes). */
    if (have_cuda()) {
        uint64_t b = zp__g16_slot_bytes_within(&pk, (uint64_t)79 << 29, NULL);
        uint64_t fixed = (pk.n_vars + pk.domain_size) * sizeof(zp_fr);
        CHECK(b >= fixed + zp__gpu_msm_scratch_bytes_nosplit(pk.n_h, false, 7));
        CHECK(b < fixed + zp__gpu_msm_scratch_bytes_affine(pk.n_h, false, 7));
    }
    /* A small shape gains no windows from a large share; it may grow for
     * the room of the MSMs beside h (a, b, c, B's gathers and their
     * scratch above the default size at most), not without them. */
    zp__pk small = slot_shape(18, ((uint64_t)1 << 18) - 5);
    const uint64_t dflt = zp__g16_slot_bytes(&small, NULL), big = (uint64_t)100 << 30;
    const uint64_t ab = small.n_a > small.n_b ? small.n_a : small.n_b;
    const uint64_t room = (3 * small.domain_size + ab) * sizeof(zp_fr) + dflt;
    uint64_t b = zp__g16_slot_bytes_within(&small, big, NULL);
    CHECK(b >= dflt && b <= dflt + room);
    zp__g16_gpu_opts after;
    zp__g16_gpu_opts_default(&after);
    after.beside_h = false;
    CHECK(zp__g16_slot_bytes_within(&small, big, &after) == dflt);
}

/* The sizes assume a device with o's MSM options: the defaults spelled out
 * size as NULL does; the affine rounds forced at every size add their
 * layout where it is the largest; the ones' thresholds, which need no room
 * of their own, change nothing; the least size stays the default one. */
static void test_msm_opts(void)
{
    zp__g16_gpu_opts d = with_h_table(ZP_GPU_H_TABLE_AUTO), aff = d, ones = d;
    aff.msm.g1_affine_from = aff.msm.g1_affine_from_shared = aff.msm.g2_affine_from = 1;
    aff.msm.affine_min_entries = 1;
    ones.msm.g1_ones_affine_from = ones.msm.g2_ones_affine_from = 2;
    for (unsigned lg = 10; lg <= 20; lg += 5) {
        zp__pk pk = slot_shape(lg, ((uint64_t)1 << lg) - 5);
        const uint64_t b = zp__g16_slot_bytes(&pk, &d);
        CHECK(b == zp__g16_slot_bytes(&pk, NULL));
        CHECK(zp__g16_slot_bytes(&pk, &aff) >= b);
        CHECK(zp__g16_slot_bytes(&pk, &ones) == b);
        CHECK(zp__g16_slot_bytes_within(&pk, (uint64_t)1 << 40, &d) ==
              zp__g16_slot_bytes_within(&pk, (uint64_t)1 << 40, NULL));
    }
}

int main(void)
{
    RUN(test_within);
    RUN(test_small_shapes);
    RUN(test_porep27);
    RUN(test_h_pre_auto);
    RUN(test_msm_opts);
    RUN(test_h_acc);
    return FINISH();
}
