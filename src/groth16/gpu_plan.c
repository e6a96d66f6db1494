/*
 * Key tiers (gpu_prover.h, docs/gpu-memory.md): what of a key stays in a
 * GPU's arena and what streams from pinned host memory, and how many
 * working sets fit beside it. Host arithmetic only, so that it is tested
 * without a GPU over key shapes and arena sizes.
 *
 * A key that fits with one working set stays whole, as before key tiers:
 * its bytes cross the bus once. Otherwise the part that never streams (the
 * matrices and the density maps, read at random by eval and the gathers)
 * stays, each working set gets a staging ring, and the rest of the arena
 * holds points in zp__g16_part's order, the last array partly, beside one
 * working set. The ring's buffers are the largest that fit (down to
 * ZP_G16_RING_BUFFER_MIN) in the usual working set, or else a lean one
 * beside the matrices, or else a lean one with the matrices streamed.
 */
#include <stdio.h>
#include <string.h>

#include "groth16/gpu_prover.h"
#include "io/io.h"

static uint64_t rnd(uint64_t bytes) { return zp__g16_arena_round(bytes); }

static uint64_t part_bytes(const zp__pk *pk, zp__g16_part i)
{
    return zp__g16_part_count(pk, i) * zp__g16_part_size(i);
}

bool zp__g16_plan_streams(const zp__g16_plan *p) { return p->pinned_bytes != 0; }

/* Points of arrays in zp__g16_part's order into `room` arena bytes (at
 * most `cap` of them), the rest pinned. */
static void fill(zp__g16_plan *p, const zp__pk *pk, uint64_t room, uint64_t cap)
{
    uint64_t left = room < cap ? room : cap;
    p->key_bytes = p->fixed_bytes;
    p->pinned_bytes = 0;
    for (int i = 0; i < ZP_G16_NP; i++) {
        const zp__g16_part part = (zp__g16_part)i;
        const uint64_t n = zp__g16_part_count(pk, part), size = zp__g16_part_size(part);
        uint64_t r;
        if (rnd(n * size) <= left) {
            r = n;
        } else {
            /* As many points as the room holds beside the region's rounding. */
            r = left > 256 ? (left - 256) / size : 0;
            r = r < n ? r : n;
        }
        p->res[i] = r;
        /* After an array held in part, none: the resident points are a
         * prefix of zp__g16_part's order. */
        left = r < n ? 0 : left - (rnd(r * size) <= left ? rnd(r * size) : left);
        p->key_bytes += rnd(r * size);
        p->pinned_bytes += (n - r) * size;
    }
}

/* A size for people: GiB from 1 GiB up, MiB below (a test key's 0.0 GiB
 * says nothing). */
static void gib(char *buf, size_t len, uint64_t bytes)
{
    if (bytes >= (1ull << 30))
        snprintf(buf, len, "%.1f GiB", (double)bytes / (double)(1ull << 30));
    else
        snprintf(buf, len, "%.1f MiB", (double)bytes / (double)(1ull << 20));
}

static uint64_t points_bytes(const zp__pk *pk)
{
    uint64_t points = 0;
    for (int i = 0; i < ZP_G16_NP; i++)
        points += rnd(part_bytes(pk, (zp__g16_part)i));
    return points;
}

uint64_t zp__g16_matrix_bytes(const zp__pk *pk)
{
    const uint64_t ma = zp__gpu_csr_bytes(&pk->ma), mb = zp__gpu_csr_bytes(&pk->mb);
    return ma == UINT64_MAX || mb == UINT64_MAX ? UINT64_MAX : ma + mb;
}

zp_err zp__g16_plan_make(zp__g16_plan *p, const zp__pk *pk, uint64_t arena_free,
                         unsigned slots, const zp__g16_gpu_opts *o, zp__ioerr *why)
{
    const uint64_t full = zp__g16_dkey_bytes(pk), mat = zp__g16_matrix_bytes(pk);
    if (full == UINT64_MAX || mat == UINT64_MAX) {
        memset(p, 0, sizeof *p);
        return zp__fail(why, ZP_E_NOMEM, "no host memory to plan the key's matrices");
    }
    return zp__g16_plan_fixed(p, pk, full - points_bytes(pk), mat, arena_free, slots, o, why);
}

/* One working set of w bytes with its ring of buffers of rb bytes beside a
 * fixed part of fx bytes, the points in the rest; false where it does not
 * fit. */
static bool place(zp__g16_plan *p, const zp__pk *pk, uint64_t fx, uint64_t w, uint64_t arena_free,
                  uint64_t rb, const zp__g16_gpu_opts *op)
{
    if (fx > arena_free || w > arena_free - fx)
        return false;
    /* Less the rounding of the regions of arrays left empty. */
    const uint64_t room = arena_free - fx - w;
    p->fixed_bytes = fx;
    fill(p, pk, room > 256 * ZP_G16_NP ? room - 256 * ZP_G16_NP : 0, op->resident_cap);
    p->ring_buffer = rb;
    p->slot_bytes = w;
    p->slots = 1;
    return true;
}

/* The usual layout with staging buffers of rb bytes. */
static bool plan_usual(zp__g16_plan *p, const zp__pk *pk, uint64_t fixed, uint64_t arena_free,
                       uint64_t rb, const zp__g16_gpu_opts *op)
{
    if (!place(p, pk, fixed, zp__g16_slot_bytes_ring(pk, rb, op), arena_free, rb, op))
        return false;
    p->lean = p->mat_stream = false;
    return true;
}

/* A lean step (zp__g16_plan.lean) with staging buffers of rb bytes, the
 * matrices resident (ms = 0) or streamed (1); false where it does not
 * fit. *need: the least it takes, where less than *need. */
static bool plan_lean_ms(zp__g16_plan *p, const zp__pk *pk, uint64_t fixed, uint64_t matrices,
                         uint64_t arena_free, uint64_t rb, const zp__g16_gpu_opts *op, int ms,
                         uint64_t *need)
{
    const uint64_t w = zp__g16_slot_bytes_lean(pk, rb, op);
    if (w == UINT64_MAX)
        return false;
    const uint64_t fx = ms ? fixed - matrices : fixed;
    if (fx + w < *need)
        *need = fx + w;
    if (!place(p, pk, fx, w, arena_free, rb, op))
        return false;
    p->lean = true;
    p->mat_stream = ms;
    p->mat_bytes = matrices;
    p->pinned_bytes += ms ? matrices : 0;
    return true;
}

/* The buffers of a plan p made with rb, where buffers of `above` (the
 * ladder's step before rb, zp__g16_ring_down) fit in no layout: grown in
 * the same layout, a sixteenth of rb at a time, to the largest below
 * `above` and at most ZP_G16_RING_BUFFER_MATS that fits (past
 * it, the points a grown buffer takes cost more copy waits than its fewer
 * chunks save). Larger buffers take resident points, but
 * each chunk of a streamed MSM pays fixed costs (its sorts, its
 * reduction, a wait), and those cost the SMs more than the bytes they
 * move cost the bus (bench/RESULTS.md, key tiers). */
static void grow_ring(zp__g16_plan *p, const zp__pk *pk, uint64_t fixed, uint64_t matrices,
                      uint64_t arena_free, uint64_t rb, uint64_t above,
                      const zp__g16_gpu_opts *op)
{
    const uint64_t step = rb / 16 & ~(uint64_t)4095;
    if (!step || above <= rb)
        return;
    uint64_t need = UINT64_MAX;
    for (uint64_t g = above - step; g > rb; g -= step) {
        if (g > ZP_G16_RING_BUFFER_MATS && !op->ring_buffer)
            continue;
        zp__g16_plan q = *p;
        const bool ok = p->lean ? plan_lean_ms(&q, pk, fixed, matrices, arena_free, g, op,
                                               p->mat_stream, &need)
                                : plan_usual(&q, pk, fixed, arena_free, g, op);
        if (ok) {
            *p = q;
            return;
        }
    }
}

/* The usual layout with buffers of rb, or, where those do not fit, shorter
 * by a sixteenth of rb at a time down to three quarters of rb (its larger
 * MSM scratch and packed witness are worth more than the buffers' last
 * quarter: the chunks stay within a sixteenth of the lean layout's). */
static bool plan_usual_short(zp__g16_plan *p, const zp__pk *pk, uint64_t fixed,
                             uint64_t arena_free, uint64_t rb, const zp__g16_gpu_opts *op)
{
    if (plan_usual(p, pk, fixed, arena_free, rb, op))
        return true;
    const uint64_t step = rb / 16 & ~(uint64_t)4095;
    for (uint64_t g = rb - step; step && !op->ring_buffer && g >= rb - 4 * step; g -= step)
        if (plan_usual(p, pk, fixed, arena_free, g, op))
            return true;
    return false;
}

/* The shared step (zp__g16_plan.shared) with staging buffers of rb bytes,
 * p->fixed_bytes set; false where two working sets do not fit. */
static bool plan_shared(zp__g16_plan *p, const zp__pk *pk, uint64_t arena_free, unsigned slots,
                        uint64_t rb, const zp__g16_gpu_opts *op)
{
    const uint64_t ring = 2 * rnd(rb), w = zp__g16_slot_bytes_shared(pk, rb, op);
    const uint64_t base = p->fixed_bytes + ring;
    if (base > arena_free || (arena_free - base) / 2 < w)
        return false;
    const uint64_t n = (arena_free - base) / w < slots ? (arena_free - base) / w : slots;
    /* Less the rounding of the regions of arrays left empty. */
    const uint64_t room = arena_free - base - n * w;
    fill(p, pk, room > 256 * ZP_G16_NP ? room - 256 * ZP_G16_NP : 0, op->resident_cap);
    p->key_bytes += ring;
    p->ring_buffer = rb;
    p->slot_bytes = w;
    p->slots = (unsigned)n;
    p->shared = true;
    return true;
}

zp_err zp__g16_plan_fixed(zp__g16_plan *p, const zp__pk *pk, uint64_t fixed, uint64_t matrices,
                          uint64_t arena_free, unsigned slots, const zp__g16_gpu_opts *o,
                          zp__ioerr *why)
{
    memset(p, 0, sizeof *p);
    const zp__g16_gpu_opts op = zp__g16_gpu_opts_of(o);
    const uint64_t points = points_bytes(pk), full = fixed + points;
    p->fixed_bytes = fixed;
    matrices = matrices < fixed ? matrices : fixed;
    /* Forced (tests) only for shapes a lean working set can hold. */
    const bool forced = (op.lean || op.stream_matrices) &&
                        zp__g16_slot_bytes_lean(pk, ZP_G16_RING_BUFFER_MIN, o) != UINT64_MAX;

    /* No working set asked (the GPU's slots hold theirs): the whole key
     * where it fits; else as for one, which a slot carves again. */
    if (!forced && slots == 0 && points <= op.resident_cap && full <= arena_free) {
        fill(p, pk, UINT64_MAX, UINT64_MAX);
        p->slot_bytes = zp__g16_slot_bytes_min(pk);
        return ZP_OK;
    }
    if (slots < 1)
        slots = 1;

    /* The whole key, where it and one working set fit. */
    const uint64_t ws = zp__g16_slot_bytes_min(pk);
    if (!forced && points <= op.resident_cap && full <= arena_free && ws <= arena_free - full) {
        const uint64_t n = (arena_free - full) / ws;
        fill(p, pk, UINT64_MAX, UINT64_MAX);
        p->slot_bytes = ws;
        p->slots = n < slots ? (unsigned)n : slots;
        return ZP_OK;
    }

    /* Streaming. Without a shared ring, one working set with the largest
     * staging buffers that fit: a second working set would take the room
     * of points, and each slot would stream its own copy of what is not
     * resident, more than twice the bytes per partition for the overlap it
     * adds. */
    /* No buffer larger than the largest array (a small key's ring is small). */
    uint64_t most = 4096;
    for (int i = 0; i < ZP_G16_NP; i++) {
        const uint64_t b = (part_bytes(pk, (zp__g16_part)i) + 4095) & ~(uint64_t)4095;
        most = b > most ? b : most;
    }
    uint64_t rb0 = op.ring_buffer ? op.ring_buffer : ZP_G16_RING_BUFFER;
    uint64_t rb_min = op.ring_buffer ? op.ring_buffer : ZP_G16_RING_BUFFER_MIN;
    if (!op.ring_buffer) {
        while (rb0 / 2 >= most)
            rb0 = zp__g16_ring_down(rb0);
        rb_min = rb_min < rb0 ? rb_min : rb0;
    }
    /* First a shared ring (zp__g16_plan.shared), where asked: the key's
     * ring and as many working sets without one as asked and fit, at least
     * two, the points in the rest. */
    if (!forced && op.tuning.ring_share && slots >= 2)
        for (uint64_t rb = rb0; rb >= rb_min; rb = zp__g16_ring_down(rb))
            if (plan_shared(p, pk, arena_free, slots, rb, &op))
                return ZP_OK;
    /* The largest buffers first, in whichever layout holds them: the usual
     * working set (its own witness region, and the MSMs' scratch from b's
     * third on, larger than a lean one's), then a lean one beside the
     * matrices (~3.9 GiB more room for points at porep:27), then a lean
     * one with the matrices streamed too, with buffers of at most
     * ZP_G16_RING_BUFFER_MATS; then grown in that layout to the room left
     * (grow_ring). Small buffers cost more than either step down: a
     * streamed MSM pays a bucket reduction and a wait per buffer, where the
     * lean layout's second copy of the witness hides behind H's MSM and
     * streamed matrices add one pass over the bus to eval (bench/RESULTS.md,
     * key tiers). */
    uint64_t lean_need = UINT64_MAX;
    /* A key without matrices (the supraseal-c2 drop-in's: a, b and c come
     * with each proof) takes a lean working set first: only a and b go up
     * before h with the SMs idle (the witness crosses during H's chunks),
     * and its ~3.9 GiB less at porep:27 go to buffers or points. */
    const bool no_mats = !op.usual && 2 * matrices < fixed;
    for (uint64_t rb = rb0, above = rb0; rb >= rb_min; above = rb, rb = zp__g16_ring_down(rb)) {
        if ((no_mats && plan_lean_ms(p, pk, fixed, matrices, arena_free, rb, &op, 0, &lean_need)) ||
            (!forced && plan_usual_short(p, pk, fixed, arena_free, rb, &op)) ||
            (!no_mats && !op.stream_matrices && !op.usual &&
             plan_lean_ms(p, pk, fixed, matrices, arena_free, rb, &op, 0, &lean_need)) ||
            (!op.usual && (rb <= ZP_G16_RING_BUFFER_MATS || op.ring_buffer) &&
             plan_lean_ms(p, pk, fixed, matrices, arena_free, rb, &op, 1, &lean_need))) {
            if (rb < rb0 && !op.ring_buffer)
                grow_ring(p, pk, fixed, matrices, arena_free, rb, above, &op);
            return ZP_OK;
        }
    }
    const uint64_t w = zp__g16_slot_bytes_ring(pk, rb_min, o);
    char need[32], fx[32], one[32], have[32];
    gib(have, sizeof have, arena_free);
    if (lean_need != UINT64_MAX) {
        const uint64_t lw = zp__g16_slot_bytes_lean(pk, rb_min, &op);
        gib(need, sizeof need, lean_need);
        gib(fx, sizeof fx, fixed - matrices);
        gib(one, sizeof one, lw);
        memset(p, 0, sizeof *p);
        return zp__fail(why, ZP_E_GPU_OOM,
                        "keys of this shape need at least %s of GPU memory (%s of density "
                        "maps, %s for one lean working set with its staging ring, the "
                        "matrices and points streamed); %s free",
                        need, fx, one, have);
    }
    gib(need, sizeof need, fixed + w);
    gib(fx, sizeof fx, fixed);
    gib(one, sizeof one, w);
    memset(p, 0, sizeof *p);
    return zp__fail(why, ZP_E_GPU_OOM,
                    "keys of this shape need at least %s of GPU memory (%s of matrices and "
                    "density maps, %s for one working set with its staging ring); %s free",
                    need, fx, one, have);
}

void zp__g16_plan_describe(const zp__g16_plan *p, const zp__pk *pk, char *buf, size_t len)
{
    size_t at = 0;
    char b1[32], b2[32];
    const char *sep = "";
    at += (size_t)snprintf(buf + at, len - at, "resident");
    for (int i = 0; i < ZP_G16_NP && at < len; i++)
        if (p->res[i] == zp__g16_part_count(pk, (zp__g16_part)i)) {
            at += (size_t)snprintf(buf + at, len - at, " %s", zp__g16_part_name((zp__g16_part)i));
        }
    if (at < len && !zp__g16_plan_streams(p)) {
        gib(b1, sizeof b1, p->key_bytes);
        gib(b2, sizeof b2, p->slot_bytes);
        snprintf(buf + at, len - at, " (%s), %u %sslot(s) of %s", b1, p->slots,
                 p->lean ? "lean " : "", b2);
        return;
    }
    if (at < len)
        at += (size_t)snprintf(buf + at, len - at, "; streamed");
    for (int i = 0; i < ZP_G16_NP && at < len; i++) {
        const uint64_t n = zp__g16_part_count(pk, (zp__g16_part)i);
        if (p->res[i] == n)
            continue;
        if (p->res[i])
            at += (size_t)snprintf(buf + at, len - at, "%s %s (%.0f %%)", sep,
                                   zp__g16_part_name((zp__g16_part)i),
                                   100.0 * (double)(n - p->res[i]) / (double)n);
        else
            at += (size_t)snprintf(buf + at, len - at, "%s %s", sep,
                                   zp__g16_part_name((zp__g16_part)i));
        sep = ",";
    }
    if (at < len) {
        gib(b1, sizeof b1, p->pinned_bytes);
        at += (size_t)snprintf(buf + at, len - at, " (%s pinned)", b1);
    }
    if (at < len) {
        gib(b1, sizeof b1, p->ring_buffer);
        gib(b2, sizeof b2, p->slot_bytes);
        at += (size_t)snprintf(buf + at, len - at, "; ring 2 x %s%s; %u %sslot(s) of %s", b1,
                               p->shared ? " shared" : "", p->slots, p->lean ? "lean " : "",
                               b2);
    }
    if (at < len && p->mat_stream) {
        gib(b1, sizeof b1, p->mat_bytes);
        snprintf(buf + at, len - at, "; matrices streamed (%s)", b1);
    }
}
