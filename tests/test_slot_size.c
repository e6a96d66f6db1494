/*
 * GPU prover slot sizing on the host (no GPU needed: the sizes are the
 * MSM plans' arithmetic): a slot's lean size (without room for the G1
 * batch-affine round) is never above its full size, equals it for shapes
 * below the round's 2^21 points, and for a synth:porep:27-like shape is
 * smaller by the round's extra scratch (about 2 GiB at two windows a
 * pass); the size within a share of the arena grows with the share. A
 * build without CUDA sizes no MSM scratch: there the last check is
 * skipped.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "groth16/gpu_prover.h"
#include "slot_shape.h"

static void test_small_shapes(void)
{
    for (unsigned lg = 10; lg <= 20; lg += 2) {
        zp__pk pk = slot_shape(lg, ((uint64_t)1 << lg) - 5);
        uint64_t full = zp__g16_slot_bytes(&pk), lean = zp__g16_slot_bytes_min(&pk);
        CHECK(full == lean);
        /* w and a | b | c at least */
        CHECK(full >= (pk.n_vars + 3 * pk.domain_size) * sizeof(zp_fr));
    }
}

static void test_porep27(void)
{
    zp__pk pk = slot_shape(27, 130170222);
    uint64_t full = zp__g16_slot_bytes(&pk), lean = zp__g16_slot_bytes_min(&pk);
    double gib = (double)(1u << 30);
    printf("  porep:27-like slot: %.2f GiB, %.2f GiB lean\n", (double)full / gib,
           (double)lean / gib);
    CHECK(lean <= full);
    CHECK(lean >= (pk.n_vars + 3 * pk.domain_size) * sizeof(zp_fr));
    if (zp__gpu_msm_scratch_bytes((uint64_t)1 << 20, false) == 0) {
        printf("  (no CUDA in this build: no MSM scratch to compare)\n");
        return;
    }
    CHECK(full - lean >= ((uint64_t)1 << 30));
    CHECK(full - lean <= ((uint64_t)8 << 30));
}

/* The size a slot asks for within a share: the default size for no share
 * or a small one, never above a larger share, growing with it, and for a
 * porep:27-like shape more than the default when the share is large. */
static void test_within(void)
{
    zp__pk pk = slot_shape(27, 130170222);
    uint64_t full = zp__g16_slot_bytes(&pk);
    CHECK(zp__g16_slot_bytes_within(&pk, 0) == full);
    CHECK(zp__g16_slot_bytes_within(&pk, full / 2) == full);
    CHECK(zp__g16_slot_bytes_within(&pk, full) == full);
    uint64_t prev = full;
    for (uint64_t gib = 20; gib <= 200; gib += 10) {
        uint64_t share = gib << 30, b = zp__g16_slot_bytes_within(&pk, share);
        CHECK(b >= prev);
        CHECK(b == full || b <= share);
        prev = b;
    }
    printf("  porep:27-like slot within 200 GiB: %.2f GiB\n", (double)prev / (1u << 30));
    if (zp__gpu_msm_scratch_bytes((uint64_t)1 << 20, false) != 0)
        CHECK(prev > full + ((uint64_t)8 << 30)); /* all windows a pass */
    /* An H200 engine slot beside a porep:27 key with its twist tables gets
     * ~39.5 GiB: room for H, all dense and without the split's arrays, at
     * 7 windows a pass (two passes of its 13), not the 6 that sizing it
     * with the split's arrays gave (three passes). */
    if (zp__gpu_msm_scratch_bytes((uint64_t)1 << 20, false) != 0) {
        uint64_t b = zp__g16_slot_bytes_within(&pk, (uint64_t)79 << 29);
        uint64_t fixed = (pk.n_vars + pk.domain_size) * sizeof(zp_fr);
        CHECK(b >= fixed + zp__gpu_msm_scratch_bytes_nosplit(pk.n_h, false, 7));
        CHECK(b < fixed + zp__gpu_msm_scratch_bytes_affine(pk.n_h, false, 7));
    }
    zp__pk small = slot_shape(18, ((uint64_t)1 << 18) - 5);
    CHECK(zp__g16_slot_bytes_within(&small, (uint64_t)100 << 30) == zp__g16_slot_bytes(&small));
}

int main(void)
{
    RUN(test_within);
    RUN(test_small_shapes);
    RUN(test_porep27);
    return FINISH();
}
