/*
 * Key tiers on the host (zp__g16_plan_fixed, gpu_plan.c): over porep-like
 * shapes of 2^24 to 2^27 and snarkjs-like ones, in arenas of 4, 8, 16, 24,
 * 32, 48, 80 and 139 GiB with one and two slots asked:
 *   - a plan never takes more than the arena: its resident key and its
 *     working sets fit;
 *   - it streams only what does not fit: a whole key that fits with one
 *     working set streams nothing, and a streaming plan leaves less free
 *     than the next point it streams, or has reached the resident cap;
 *   - resident points come in the order of zp__g16_part (an array is
 *     resident only once those before it are whole), the pinned bytes are
 *     the streamed points', and no more working sets than asked;
 *   - a failure is the arena below the fixed part plus one streaming
 *     working set, with the bytes in its message;
 *   - with the shared ring asked for (zp_gpu_tuning.ring_share): shared
 *     only where two working sets or more are asked and fit beside the
 *     fixed part and the ring, which the key's bytes then hold, with as
 *     many ringless working sets as asked and fit;
 * and the figures the arenas rest on: porep:27 stays whole on an
 * H200 with two working sets, streams at 24 to 80 GiB, and fails at 8.
 * A build without CUDA sizes no MSM scratch: skipped there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "groth16/gpu_prover.h"

#define GiB ((uint64_t)1 << 30)

static bool have_cuda(void) { return zp__gpu_msm_scratch_bytes((uint64_t)1 << 20, false) != 0; }

/* A porep-like shape (docs/architecture.md, Synthetic circuits) at 2^lg:
 * ~97 % of the domain in variables, A over nearly all, B over a quarter;
 * its fixed part: the compact matrices (5 bytes a nonzero, 4 a row
 * pointer) and density maps, scaled from porep:27's nonzeros. */
static zp__pk porep_shape(unsigned lg, uint64_t *fixed, uint64_t *mat)
{
    zp__pk pk;
    memset(&pk, 0, sizeof pk);
    const uint64_t n = (uint64_t)1 << lg;
    pk.domain_size = n;
    pk.n_public = 328;
    pk.n_vars = n / 100 * 97;
    pk.n_a = pk.n_vars - pk.n_vars / 200;
    pk.n_b = pk.n_vars / 4;
    pk.n_l = pk.n_vars - pk.n_public - 1;
    pk.n_h = n - 1;
    const uint64_t nnz_a = n / 100 * 230, nnz_b = n / 100 * 97, words = (pk.n_vars + 63) / 64;
    *mat = 5 * (nnz_a + nnz_b) + 2 * 4 * (n + 1);
    *fixed = *mat + 2 * 12 * words;
    return pk;
}

/* A snarkjs-like shape: as many variables as constraints, A and B dense
 * over all of them, H over the domain (the odd coset's convention). */
static zp__pk snarkjs_shape(unsigned lg, uint64_t *fixed, uint64_t *mat)
{
    zp__pk pk;
    memset(&pk, 0, sizeof pk);
    const uint64_t n = (uint64_t)1 << lg;
    pk.domain_size = n;
    pk.n_public = 4;
    pk.n_vars = n - 7;
    pk.n_a = pk.n_b = pk.n_vars;
    pk.n_l = pk.n_vars - pk.n_public - 1;
    pk.n_h = n;
    *mat = 5 * 3 * n + 2 * 4 * (n + 1);
    *fixed = *mat + 2 * 12 * ((pk.n_vars + 63) / 64);
    return pk;
}

static uint64_t rnd(uint64_t b)
{
    b = b ? b : 32;
    return (b + 255) & ~(uint64_t)255;
}

/* The rules of the file's comment for one plan; returns whether it streams. */
static bool check_plan(const char *what, const zp__pk *pk, uint64_t fixed, uint64_t mat,
                       uint64_t arena, unsigned asked, const zp__g16_gpu_opts *o)
{
    zp__g16_plan p;
    zp__ioerr why = {""};
    const zp_err e = zp__g16_plan_fixed(&p, pk, fixed, mat, arena, asked, o, &why);
    const uint64_t cap = o ? o->resident_cap : UINT64_MAX;
    const bool forced = o && (o->lean || o->stream_matrices) &&
                        zp__g16_slot_bytes_lean(pk, ZP_G16_RING_BUFFER_MIN, o) != UINT64_MAX;
    uint64_t points = 0;
    for (int i = 0; i < ZP_G16_NP; i++)
        points += rnd(zp__g16_part_count(pk, (zp__g16_part)i) * zp__g16_part_size((zp__g16_part)i));
    const uint64_t rmin = o && o->ring_buffer ? o->ring_buffer : ZP_G16_RING_BUFFER_MIN;
    const uint64_t ring_min = zp__g16_slot_bytes_ring(pk, rmin, o);
    const uint64_t lean_min = zp__g16_slot_bytes_lean(pk, rmin, o);
    if (e) {
        CHECK_EQ_INT(e, ZP_E_GPU_OOM);
        CHECK(fixed + ring_min > arena || forced);
        if (lean_min != UINT64_MAX)
            CHECK(fixed - mat + lean_min > arena);
        CHECK(strstr(why.msg, "GiB") != NULL || strstr(why.msg, "MiB") != NULL);
        printf("  %-12s %5.0f GiB x%u: %s\n", what, (double)arena / GiB, asked, why.msg);
        return false;
    }
    CHECK(p.slots >= 1 && p.slots <= asked);
    CHECK(p.key_bytes + (uint64_t)p.slots * p.slot_bytes <= arena);
    CHECK(p.fixed_bytes == (p.mat_stream ? fixed - mat : fixed));
    CHECK(!p.mat_stream || p.lean);
    uint64_t pinned = 0, resident = 0;
    bool whole_before = true;
    for (int i = 0; i < ZP_G16_NP; i++) {
        const zp__g16_part part = (zp__g16_part)i;
        const uint64_t n = zp__g16_part_count(pk, part), size = zp__g16_part_size(part);
        CHECK(p.res[i] <= n);
        if (p.res[i])
            CHECK(whole_before);
        whole_before = whole_before && p.res[i] == n;
        pinned += (n - p.res[i]) * size;
        resident += rnd(p.res[i] * size);
    }
    CHECK(p.pinned_bytes == pinned + (p.mat_stream ? mat : 0));
    CHECK(p.key_bytes == p.fixed_bytes + resident + (p.shared ? 2 * rnd(p.ring_buffer) : 0));
    CHECK(!p.shared || (o && o->tuning.ring_share && asked >= 2 && p.slots >= 2 && !p.lean));
    const bool streams = zp__g16_plan_streams(&p);
    if (streams && !(o && o->ring_buffer)) {
        /* The largest buffers that fit in any layout (down the ladder of
         * zp__g16_ring_down, none more than twice the largest array): the
         * step before theirs fits in none; then grown in their layout
         * while a sixteenth of that step more does not fit. */
        uint64_t most = 4096, rb0 = ZP_G16_RING_BUFFER;
        for (int i = 0; i < ZP_G16_NP; i++) {
            const uint64_t b = (zp__g16_part_count(pk, (zp__g16_part)i) *
                                    zp__g16_part_size((zp__g16_part)i) + 4095) & ~(uint64_t)4095;
            most = b > most ? b : most;
        }
        while (rb0 / 2 >= most)
            rb0 = zp__g16_ring_down(rb0);
        /* base: the step of the ladder the buffers come from; above: the
         * step before it, which fit in no layout */
        uint64_t base = rb0, above = 2 * rb0;
        while (base > p.ring_buffer) {
            above = base;
            base = zp__g16_ring_down(base);
        }
        CHECK(p.ring_buffer < above);
        CHECK(p.ring_buffer == base || (base < rb0 && !p.shared));
        if (above <= rb0) {
            /* A shared ring is tried at every size before the others. */
            const uint64_t lean2 = zp__g16_slot_bytes_lean(pk, above, o);
            /* The usual layout with buffers up to a quarter shorter goes
             * before a lean one with full buffers. */
            const bool usual_short = !p.lean && !p.shared &&
                                     p.ring_buffer >= above - 4 * (above / 16 & ~(uint64_t)4095);
            CHECK(p.shared || fixed + zp__g16_slot_bytes_ring(pk, above, o) > arena || forced);
            CHECK(p.shared || usual_short || lean2 == UINT64_MAX || fixed + lean2 > arena ||
                  (o && o->stream_matrices));
            CHECK(p.shared || usual_short || lean2 == UINT64_MAX || fixed - mat + lean2 > arena ||
                  above > ZP_G16_RING_BUFFER_MATS);
            CHECK(!(o && o->tuning.ring_share) || asked < 2 ||
                  fixed + 2 * rnd(above) + 2 * zp__g16_slot_bytes_shared(pk, above, o) > arena);
            /* grown as far as its layout holds, no further than
             * ZP_G16_RING_BUFFER_MATS: a sixteenth of the step more does
             * not fit, or, for the usual layout shortened from above, a
             * sixteenth of above (the steps it is shortened by) */
            const uint64_t more =
                p.ring_buffer + ((usual_short ? above : base) / 16 & ~(uint64_t)4095);
            if (more < above && !p.shared && more <= ZP_G16_RING_BUFFER_MATS) {
                const uint64_t w = p.lean ? zp__g16_slot_bytes_lean(pk, more, o)
                                          : zp__g16_slot_bytes_ring(pk, more, o);
                CHECK(w == UINT64_MAX || p.fixed_bytes + w > arena);
            }
        }
    }
    CHECK(p.ring_buffer <= ZP_G16_RING_BUFFER || (o && o->ring_buffer));
    if (p.lean) {
        /* Matrices streamed only where neither a lean working set nor
         * one of the usual layout with the same buffers fits beside them,
         * and then with buffers of at most ZP_G16_RING_BUFFER_MATS. */
        CHECK(p.slot_bytes == zp__g16_slot_bytes_lean(pk, p.ring_buffer, o));
        /* Lean only where the usual layout with the same buffers does not
         * fit, or for a key without matrices (or a test forces it). */
        CHECK(fixed + zp__g16_slot_bytes_ring(pk, p.ring_buffer, o) > arena || forced ||
              2 * mat < fixed);
        /* Not shared where asked only where two working sets do not fit. */
        CHECK(!(o && o->tuning.ring_share) || asked < 2 || forced ||
              fixed + 2 * rnd(p.ring_buffer) +
                      2 * zp__g16_slot_bytes_shared(pk, p.ring_buffer, o) > arena);
        if (p.mat_stream) {
            CHECK(fixed + p.slot_bytes > arena || (o && o->stream_matrices));
            CHECK(fixed + zp__g16_slot_bytes_ring(pk, p.ring_buffer, o) > arena || forced);
            CHECK(p.ring_buffer <= ZP_G16_RING_BUFFER_MATS || (o && o->ring_buffer));
        }
        CHECK_EQ_INT(p.slots, 1);
    } else if (!streams) {
        CHECK(p.ring_buffer == 0);
        CHECK(p.slot_bytes == zp__g16_slot_bytes_min(pk));
        CHECK(fixed + points + zp__g16_slot_bytes_min(pk) <= arena);
    } else if (p.shared) {
        /* Working sets without rings; as many as asked or fit; no room
         * left for another point. */
        CHECK(p.slot_bytes == zp__g16_slot_bytes_shared(pk, p.ring_buffer, o));
        CHECK(p.slot_bytes < zp__g16_slot_bytes_ring(pk, p.ring_buffer, o));
        const uint64_t left = arena - p.key_bytes - (uint64_t)p.slots * p.slot_bytes;
        CHECK(p.slots == asked || left < p.slot_bytes);
        const uint64_t most = cap < points ? cap : points;
        CHECK(left < 256 * ZP_G16_NP + 2 * 256 + sizeof(zp_g2_affine) ||
              resident + 256 * ZP_G16_NP + sizeof(zp_g2_affine) >= most);
    } else {
        CHECK(fixed + ring_min <= arena);
        /* Streams only where the whole key and one working set do not fit
         * (or the cap holds points back); leaves no room for another point. */
        CHECK(fixed + points + zp__g16_slot_bytes_min(pk) > arena || cap < points);
        CHECK(p.ring_buffer >= ZP_G16_RING_BUFFER_MIN || (o && o->ring_buffer));
        CHECK(p.slot_bytes == zp__g16_slot_bytes_ring(pk, p.ring_buffer, o));
        CHECK_EQ_INT(p.slots, 1); /* each slot streams its own copy */
        /* Not shared only where sharing is off, one slot is asked, or two
         * working sets do not fit beside the fixed part and its ring. */
        CHECK(!(o && o->tuning.ring_share) || asked < 2 ||
              fixed + 2 * rnd(p.ring_buffer) +
                      2 * zp__g16_slot_bytes_shared(pk, p.ring_buffer, o) > arena);
        const uint64_t left = arena - p.key_bytes - (uint64_t)p.slots * p.slot_bytes;
        const uint64_t most = cap < points ? cap : points;
        CHECK(left < 256 * ZP_G16_NP + 2 * 256 + sizeof(zp_g2_affine) ||
              resident + 256 * ZP_G16_NP + sizeof(zp_g2_affine) >= most);
    }
    char line[256];
    zp__g16_plan_describe(&p, pk, line, sizeof line);
    CHECK(strlen(line) > 10);
    CHECK((strstr(line, "lean") != NULL) == p.lean);
    CHECK((strstr(line, "matrices streamed") != NULL) == p.mat_stream);
    CHECK((strstr(line, "shared") != NULL) == p.shared);
    printf("  %-12s %5.0f GiB x%u: %s\n", what, (double)arena / GiB, asked, line);
    return streams;
}

static void test_shapes_with(const zp__g16_gpu_opts *o)
{
    const uint64_t arenas[] = {4 * GiB, 8 * GiB, 16 * GiB, 24 * GiB, 32 * GiB,
                               48 * GiB, 80 * GiB, 139 * GiB};
    for (unsigned lg = 24; lg <= 27; lg++) {
        uint64_t fixed, mat;
        const zp__pk pk = porep_shape(lg, &fixed, &mat);
        char what[32];
        snprintf(what, sizeof what, "porep:%u", lg);
        for (size_t a = 0; a < sizeof arenas / sizeof *arenas; a++)
            for (unsigned asked = 1; asked <= 2; asked++)
                check_plan(what, &pk, fixed, mat, arenas[a], asked, o);
    }
    for (unsigned lg = 16; lg <= 24; lg += 4) {
        uint64_t fixed, mat;
        const zp__pk pk = snarkjs_shape(lg, &fixed, &mat);
        char what[32];
        snprintf(what, sizeof what, "snarkjs:%u", lg);
        for (size_t a = 0; a < 4; a++)
            check_plan(what, &pk, fixed, mat, arenas[a] / 8, 2, o);
    }
}

static void test_shapes(void) { test_shapes_with(NULL); }

/* The same with the shared ring asked for (zp_gpu_tuning.ring_share). */
static void test_shapes_shared(void)
{
    zp__g16_gpu_opts o;
    zp__g16_gpu_opts_default(&o);
    o.tuning.ring_share = true;
    test_shapes_with(&o);
}

/* The shared ring at porep:27: two working sets and the ring at 48 and 64
 * GiB, each smaller than a working set with its own ring, and fewer
 * points resident than with one working set; one working set with its
 * own ring where one is asked or two do not fit (32 GiB); the whole key
 * on an H200 as before. */
static void test_shared(void)
{
    uint64_t fixed, mat;
    const zp__pk pk = porep_shape(27, &fixed, &mat);
    zp__g16_gpu_opts o;
    zp__g16_gpu_opts_default(&o);
    o.tuning.ring_share = true;
    zp__g16_plan p, one;
    zp__ioerr why = {""};
    for (uint64_t a = 48; a <= 64; a += 16) {
        CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, a * GiB, 2, &o, &why), ZP_OK);
        CHECK(p.shared && p.slots == 2 && p.ring_buffer >= 4 * GiB);
        CHECK_EQ_INT(zp__g16_plan_fixed(&one, &pk, fixed, mat, a * GiB, 2, NULL, &why), ZP_OK);
        CHECK(!one.shared && one.slots == 1);
        CHECK(p.slot_bytes < one.slot_bytes);
        CHECK(p.pinned_bytes > one.pinned_bytes);
        check_plan("porep:27 sh", &pk, fixed, mat, a * GiB, 2, &o);
        CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, a * GiB, 1, &o, &why), ZP_OK);
        CHECK(!p.shared && p.slots == 1);
    }
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, 32 * GiB, 2, &o, &why), ZP_OK);
    CHECK(!p.shared && p.slots == 1);
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, 138 * GiB, 2, &o, &why), ZP_OK);
    CHECK(!zp__g16_plan_streams(&p) && !p.shared && p.slots == 2);
    /* Three asked where three fit: three; every point streamed (tests). */
    o.resident_cap = 0;
    o.ring_buffer = 65536;
    const zp__pk small = porep_shape(16, &fixed, &mat);
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &small, fixed, mat, 139 * GiB, 3, &o, &why), ZP_OK);
    CHECK(p.shared && p.slots == 3 && p.ring_buffer == 65536);
    for (int i = 0; i < ZP_G16_NP; i++)
        CHECK_EQ_INT(p.res[i], 0);
    check_plan("porep:16 sh", &small, fixed, mat, 139 * GiB, 3, &o);
}

/* The figures: porep:27 whole with two working sets on an H200, streamed
 * at 24 to 80 GiB with one working set at 24, refused at 8. */
static void test_porep27(void)
{
    uint64_t fixed, mat;
    const zp__pk pk = porep_shape(27, &fixed, &mat);
    zp__g16_plan p;
    zp__ioerr why = {""};
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, 138 * GiB, 2, NULL, &why), ZP_OK);
    CHECK(!zp__g16_plan_streams(&p));
    CHECK_EQ_INT(p.slots, 2);
    for (uint64_t a = 24; a <= 80; a += 8) {
        CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, a * GiB, 2, NULL, &why), ZP_OK);
        CHECK(zp__g16_plan_streams(&p) || a == 72 || a == 80); /* 65 GiB whole with one */
        if (a == 24)
            CHECK_EQ_INT(p.slots, 1);
    }
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, 8 * GiB, 1, NULL, &why), ZP_E_GPU_OOM);
    /* The layouts behind bench/RESULTS.md's capped porep:27 figures (key
     * tiers): 16 GiB a lean working set with the matrices streamed and
     * buffers over 1 GiB; 24 GiB a lean one with 2 x 4 GiB buffers (H's
     * 2 GiB chunks at 17 bits leave it the room); 32 GiB the usual one
     * with the 6 GiB step cut to 2 x 4.9 GiB (H's 2.4 GiB chunks at 20
     * bits); 48 GiB the usual one with 2 x 8 GiB (H at 20 bits). */
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, 16 * GiB, 1, NULL, &why), ZP_OK);
    CHECK(p.lean && p.mat_stream && p.ring_buffer > GiB && p.ring_buffer < 2 * GiB);
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, 32 * GiB, 1, NULL, &why), ZP_OK);
    CHECK(!p.lean && p.ring_buffer > 4 * GiB && p.ring_buffer < 6 * GiB);
    CHECK_EQ_INT(zp__g16_h_acc_window(p.ring_buffer, pk.n_h), 20);
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, 24 * GiB, 1, NULL, &why), ZP_OK);
    CHECK(p.lean && !p.mat_stream && p.ring_buffer == 4 * GiB);
    CHECK_EQ_INT(zp__g16_h_acc_window(p.ring_buffer, pk.n_h), 17);
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, 48 * GiB, 1, NULL, &why), ZP_OK);
    CHECK(!p.lean && p.ring_buffer == 8 * GiB);
    CHECK_EQ_INT(zp__g16_h_acc_window(p.ring_buffer, pk.n_h), 20);
    /* More arena never keeps fewer points resident (one working set), but
     * where it buys larger staging buffers or the usual working set. */
    uint64_t last = 0, last_rb = 0;
    bool last_lean = false;
    for (uint64_t a = 20; a <= 80; a += 4) {
        if (zp__g16_plan_fixed(&p, &pk, fixed, mat, a * GiB, 1, NULL, &why))
            continue;
        CHECK(p.key_bytes >= last || p.ring_buffer > last_rb || (last_lean && !p.lean));
        last = p.key_bytes;
        last_rb = p.ring_buffer;
        last_lean = p.lean;
    }
}

/* The cap and the buffer override: a cap of 0 streams every point in a
 * huge arena; a fixed ring buffer is taken as it is. */
static void test_overrides(void)
{
    uint64_t fixed, mat;
    const zp__pk pk = porep_shape(24, &fixed, &mat);
    zp__g16_gpu_opts o;
    zp__g16_gpu_opts_default(&o);
    o.resident_cap = 0;
    o.ring_buffer = 4096;
    zp__g16_plan p;
    zp__ioerr why = {""};
    CHECK(check_plan("porep:24 cap0", &pk, fixed, mat, 139 * GiB, 2, &o));
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, 139 * GiB, 2, &o, &why), ZP_OK);
    CHECK_EQ_INT(p.ring_buffer, 4096);
    for (int i = 0; i < ZP_G16_NP; i++)
        CHECK_EQ_INT(p.res[i], 0);
    CHECK_EQ_INT(p.slots, 1);
    /* A cap that cuts L: L partly, nothing after it. */
    o.resident_cap = 1000 * sizeof(zp_g1_affine) + 256;
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, 139 * GiB, 1, &o, &why), ZP_OK);
    CHECK(p.res[ZP_G16_P_L] >= 990 && p.res[ZP_G16_P_L] <= 1000);
    CHECK_EQ_INT(p.res[ZP_G16_P_A], 0);
    check_plan("porep:24 capL", &pk, fixed, mat, 139 * GiB, 1, &o);
}

/* No working set asked: a key that fits alone stays whole (the GPU's
 * slots hold theirs); one that does not is planned as for one working set.
 * A small key's ring is no larger than its largest array. */
static void test_no_slots(void)
{
    uint64_t fixed, mat;
    const zp__pk pk = porep_shape(24, &fixed, &mat);
    uint64_t points = 0;
    for (int i = 0; i < ZP_G16_NP; i++)
        points += rnd(zp__g16_part_count(&pk, (zp__g16_part)i) *
                      zp__g16_part_size((zp__g16_part)i));
    zp__g16_plan p, one;
    zp__ioerr why = {""};
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, fixed + points, 0, NULL, &why), ZP_OK);
    CHECK(!zp__g16_plan_streams(&p));
    CHECK_EQ_INT(p.slots, 0);
    CHECK_EQ_INT(p.key_bytes, fixed + points);
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, fixed + points - 1, 0, NULL, &why), ZP_OK);
    CHECK(zp__g16_plan_streams(&p) && p.slots == 1);
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed, mat, 4 * GiB, 0, NULL, &why), ZP_OK);
    CHECK_EQ_INT(zp__g16_plan_fixed(&one, &pk, fixed, mat, 4 * GiB, 1, NULL, &why), ZP_OK);
    CHECK(zp__g16_plan_streams(&p) && p.slots == 1 && p.key_bytes == one.key_bytes);
    /* A tiny key (2^12) streamed: its ring fits its largest array. */
    const zp__pk tiny = porep_shape(12, &fixed, &mat);
    zp__g16_gpu_opts o;
    zp__g16_gpu_opts_default(&o);
    o.resident_cap = 0;
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &tiny, fixed, mat, GiB, 1, &o, &why), ZP_OK);
    const uint64_t largest = zp__g16_part_count(&tiny, ZP_G16_P_H) * sizeof(zp_g1_affine);
    CHECK(p.ring_buffer >= largest / 2 && p.ring_buffer <= 2 * largest + 8192);
    printf("  tiny key: ring 2 x %llu bytes for %llu bytes of H\n",
           (unsigned long long)p.ring_buffer, (unsigned long long)largest);
}

/* The lean steps: a porep:27 shape with ~7 GiB of matrices (4 GiB of
 * them escaped coefficients) fits a 16 GiB arena with a lean
 * working set, the matrices streamed and buffers grown from 1 GiB into
 * the room left; at 20 GiB a lean one beside the matrices would need
 * smaller buffers, so the matrices stream for a ring of 2 GiB buffers (the
 * most they stream through); at 24 GiB the lean one fits beside the
 * matrices with 2 GiB buffers grown into the room left; at 32 GiB it holds
 * 4 GiB buffers; 8 GiB is refused naming the least it needs.
 * Forced (the tests' options), a small key takes the lean steps in any
 * arena. */
static void test_lean(void)
{
    uint64_t fixed, mat;
    const zp__pk pk = porep_shape(27, &fixed, &mat);
    const uint64_t esc = 4 * GiB; /* escaped coefficients */
    zp__g16_plan p;
    zp__ioerr why = {""};
    CHECK(check_plan("porep:27 syn", &pk, fixed + esc, mat + esc, 16 * GiB, 1, NULL));
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed + esc, mat + esc, 16 * GiB, 1, NULL, &why),
                 ZP_OK);
    CHECK(p.lean && p.mat_stream && p.ring_buffer > ZP_G16_RING_BUFFER_MATS / 2 &&
          p.ring_buffer < ZP_G16_RING_BUFFER_MATS);
    check_plan("porep:27 syn", &pk, fixed + esc, mat + esc, 20 * GiB, 1, NULL);
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed + esc, mat + esc, 20 * GiB, 1, NULL, &why),
                 ZP_OK);
    CHECK(p.lean && p.mat_stream && p.ring_buffer == ZP_G16_RING_BUFFER_MATS);
    check_plan("porep:27 syn", &pk, fixed + esc, mat + esc, 24 * GiB, 1, NULL);
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed + esc, mat + esc, 24 * GiB, 1, NULL, &why),
                 ZP_OK);
    CHECK(p.lean && !p.mat_stream && p.ring_buffer == ZP_G16_RING_BUFFER_MATS);
    check_plan("porep:27 syn", &pk, fixed + esc, mat + esc, 32 * GiB, 1, NULL);
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed + esc, mat + esc, 32 * GiB, 1, NULL, &why),
                 ZP_OK);
    CHECK(!p.lean && !p.mat_stream && p.ring_buffer < 4 * GiB && p.ring_buffer >= 3 * GiB);
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, fixed + esc, mat + esc, 8 * GiB, 1, NULL, &why),
                 ZP_E_GPU_OOM);
    CHECK(strstr(why.msg, "lean") != NULL);
    printf("  porep:27 syn     8 GiB: %s\n", why.msg);
    const zp__pk small = porep_shape(16, &fixed, &mat);
    zp__g16_gpu_opts o;
    zp__g16_gpu_opts_default(&o);
    o.lean = true;
    o.ring_buffer = 65536;
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &small, fixed, mat, 139 * GiB, 2, &o, &why), ZP_OK);
    CHECK(p.lean && !p.mat_stream && p.ring_buffer == 65536);
    check_plan("porep:16 lean", &small, fixed, mat, 139 * GiB, 2, &o);
    o.stream_matrices = true;
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &small, fixed, mat, 139 * GiB, 2, &o, &why), ZP_OK);
    CHECK(p.lean && p.mat_stream && p.pinned_bytes == mat);
    check_plan("porep:16 mats", &small, fixed, mat, 139 * GiB, 2, &o);
    /* The usual working set where it fits beside the points streamed, and
     * so with --usual (tests); never --usual with the lean steps. */
    zp__g16_gpu_opts_default(&o);
    o.resident_cap = 0;
    o.ring_buffer = 65536;
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &small, fixed, mat, 139 * GiB, 2, &o, &why), ZP_OK);
    CHECK(!p.lean && p.slots == 1);
    o.usual = true;
    CHECK_EQ_INT(zp__g16_gpu_opts_check(&o), ZP_OK);
    CHECK_EQ_INT(zp__g16_plan_fixed(&p, &small, fixed, mat, 139 * GiB, 2, &o, &why), ZP_OK);
    CHECK(!p.lean && !p.mat_stream && p.slots == 1 && p.ring_buffer == 65536);
    check_plan("porep:16 usual", &small, fixed, mat, 139 * GiB, 2, &o);
    o.lean = true;
    CHECK_EQ_INT(zp__g16_gpu_opts_check(&o), ZP_E_INVALID_ARG);
}

/* A key without matrices (the supraseal-c2 drop-in's: density maps alone
 * in its fixed part) takes a lean working set before the usual one with
 * buffers of the same step: porep:27 at 16, 24 and 48 GiB; at 32 GiB the
 * usual one with 2 x 6 GiB (the ladder's 6 GiB step) goes before a lean
 * one with 4 GiB; whole at 139. */
static void test_no_matrices(void)
{
    uint64_t fixed, mat;
    const zp__pk pk = porep_shape(27, &fixed, &mat);
    const uint64_t maps = fixed - mat;
    const uint64_t arenas[] = {16 * GiB, 24 * GiB, 32 * GiB, 48 * GiB};
    zp__g16_plan p;
    zp__ioerr why = {""};
    for (size_t i = 0; i < sizeof arenas / sizeof *arenas; i++) {
        CHECK(check_plan("porep:27 abc", &pk, maps, 0, arenas[i], 1, NULL));
        CHECK_EQ_INT(zp__g16_plan_fixed(&p, &pk, maps, 0, arenas[i], 1, NULL, &why), ZP_OK);
        CHECK(!p.mat_stream && p.fixed_bytes == maps);
        CHECK(p.lean == (arenas[i] != 32 * GiB));
        CHECK(p.lean || p.ring_buffer >= 6 * GiB);
    }
    CHECK(!check_plan("porep:27 abc", &pk, maps, 0, 139 * GiB, 2, NULL));
}

int main(void)
{
    if (!have_cuda()) {
        printf("built without CUDA: no MSM scratch to plan with, skipped\n");
        return 77;
    }
    RUN(test_shapes);
    RUN(test_shapes_shared);
    RUN(test_shared);
    RUN(test_porep27);
    RUN(test_no_matrices);
    RUN(test_overrides);
    RUN(test_no_slots);
    RUN(test_lean);
    return FINISH();
}
