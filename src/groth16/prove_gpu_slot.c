/*
 * Prover slots (gpu_prover.h): the working set of one partition on a
 * device, carved from the arena once and reused proof after proof.
 *
 * Layout, for a slot of shape (n_vars, n = domain_size, ...):
 *   witness     n_vars scalars, Montgomery, read where they lie by eval
 *               and by the MSMs over the witness, and the gathers' source.
 *   work        a | b | c, n scalars each, during eval and h; after h the
 *               H scalars are in a, and from the start of b on the region
 *               is the MSM scratch (grown past 3n when the scratch needs
 *               more).
 *   ab_scalars  only when n_a or n_b exceeds n: the gathered A / B
 *               scalars; otherwise they go to a once the H MSM is done
 *               with it.
 * So a slot holds the witness, 3n scalars and one MSM scratch, no more.
 * A lean slot (key tiers' last steps) holds no witness region: the witness
 * lies in c's third of work during eval, c = a∘b is made over it after,
 * and it goes up there again after h while H's MSM runs; the MSM scratch
 * is then b's third where it fits, else above c, never c's.
 * Where work also holds, above a, b and c, the gathers and the scratch of
 * the MSMs over the witness, those run there beside h (prove_gpu_msm.c).
 *
 * The MSM scratch is that of a full MSM of 2^25 points (~11 GB), or of
 * one window per pass for a chunk (zp__g16_chunk_points), or for G1 of the
 * batch-affine round two windows a pass (msm_bytes), whichever is most;
 * more windows when the slot's share of the arena holds them. An MSM
 * longer than 2^25 points sorts as many windows per pass as fit: sorting
 * space grows with the points times the windows sorted at once, so all
 * windows at once for synth:porep:27 (2^27 points) would be ~33 GB. Sums
 * of chunks are added on the host.
 *
 * Scalar forms: a, b, c are Montgomery, as on the host. The H scalars come
 * out of h in standard form directly: the quotient step multiplies by a
 * constant S given as raw limbs, and a Montgomery product x·S·R⁻¹ with S
 * the standard limbs of s is the standard limbs of x·s; the later steps
 * (the TAU convention's inverse coset NTT) are linear with Montgomery
 * constants, so they keep standard limbs standard.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "groth16/prove_gpu_slot_impl.h"

/* MSMs longer than a chunk run chunk by chunk. G1: 2^31 points, which
 * never splits (point indices are 31-bit): a G1 MSM longer than 2^25
 * points sorts fewer windows per pass in the scratch
 * (zp__gpu_msm_scratch_bytes_pass), and its one-window minimum at 2^27
 * (~10 GB, most of it the split arrays and the buckets) stays below the G2
 * scratch the slot holds anyway; unsplit is the faster (bench/RESULTS.md).
 * G2 stays in 2^25-point chunks: its buckets are twice as large (an
 * unsplit 2^27 G2 MSM would need ~15 GB) and B2 takes the same time
 * either way. */
#define ZP_G16_MSM_CHUNK_G1 ((uint64_t)1 << 31)
#define ZP_G16_MSM_CHUNK_G2 ((uint64_t)1 << 25)
#define ZP_G16_MSM_BUDGET ((uint64_t)1 << 25) /* points whose full scratch is the budget */

uint64_t zp__g16_chunk_points(bool g2) { return g2 ? ZP_G16_MSM_CHUNK_G2 : ZP_G16_MSM_CHUNK_G1; }

/* The chunk of a slot with staging buffers of `ring` bytes (0: none): a
 * buffer's worth of points, so that a streamed chunk fills one buffer and
 * the scratch is that of such a chunk. */
static uint64_t chunk_of(bool g2, uint64_t ring)
{
    const uint64_t c = zp__g16_chunk_points(g2);
    if (!ring)
        return c;
    const uint64_t r = ring / (g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine));
    return r < c ? (r ? r : 1) : c;
}

uint64_t zp__g16_slot_chunk(const zp__g16_slot *s, bool g2) { return chunk_of(g2, s->ring_buffer); }

double zp__g16_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------- sizing */

static uint64_t rnd(uint64_t bytes) { return zp__g16_arena_round(bytes); }

/* The bytes of a slot's regions (the layout above) and where its MSM
 * scratch starts in work. */
typedef struct slot_plan {
    uint64_t witness, work, ab_scalars, scratch_off, ring;
    uint64_t h_acc; /* the H MSM's kept buckets (zp__g16_h_acc_window), or 0 */
    uint64_t w_acc; /* the witness G1 MSMs' kept buckets (zp__g16_w_acc_window), or 0 */
} slot_plan;

/* A schedule buffer is a quarter of the ring's two buffers (buf_bytes in
 * prove_gpu_sched.c). A window larger than its chunk's makes the runs of
 * points a bucket short and the sum slower; over chunks of 1 GiB too the
 * window of 0.5 GiB of points summed fastest, so none larger there. Over
 * chunks of more than H_ACC_WIDE_POINTS (2 GiB) c = 20 sums fastest: its
 * 2^19 buckets a window reduce in two levels; over chunks of 1.5-1.75 GiB
 * 17 sums faster than 20. Chunks of exactly 2 GiB keep 17, which
 * sums them about as fast as 20 and whose buckets are 1.2 GiB smaller:
 * that room lets a 24 GiB arena plan a lean slot with 4 GiB buffers
 * instead of a usual one with 2 GiB (bench/RESULTS.md). From chunks of
 * H_ACC_TWO_PASS_POINTS (4 GiB) on, the slot's scratch holds half of H's
 * windows, so that H sums in two passes, not three. */
#define H_ACC_MOST_POINTS (((uint64_t)1 << 29) / sizeof(zp_g1_affine))
#define H_ACC_WIDE_POINTS (((uint64_t)1 << 31) / sizeof(zp_g1_affine))
#define H_ACC_WIDE_C 20
#define H_ACC_TWO_PASS_POINTS (2 * H_ACC_WIDE_POINTS)

/* The G1 points of one schedule buffer of a ring of two `ring`-byte buffers. */
static uint64_t sched_buf_points(uint64_t ring)
{
    return 2 * ring / ZP_G16_RING_BUFS / sizeof(zp_g1_affine);
}

unsigned zp__g16_h_acc_window(uint64_t ring, uint64_t n_h)
{
    if (!ring)
        return 0;
    const uint64_t chunk = min_u64(sched_buf_points(ring), n_h);
    if (chunk > H_ACC_WIDE_POINTS)
        return H_ACC_WIDE_C;
    const uint64_t n = min_u64(chunk, H_ACC_MOST_POINTS);
    return zp__gpu_msm_acc_window(n ? n : 1);
}

/* The witness MSMs spend most of their time in their dense tails (the
 * circuit's hash section: whole buffers of points with full scalars),
 * which sum faster in 15 windows of 17 bits than in 16 of 16, although
 * the sparse chunks' runs a bucket halve (bench/RESULTS.md). 18 bits make
 * no fewer windows than 17, and more were not measured. */
#define W_ACC_MOST_C 17

unsigned zp__g16_w_acc_window(uint64_t ring)
{
    if (!ring)
        return 0;
    const unsigned c = zp__gpu_msm_acc_window(max_u64(sched_buf_points(ring) / 2, 1));
    return c < W_ACC_MOST_C ? c : W_ACC_MOST_C;
}

/* Scratch for MSMs of up to `count` points taken zp__g16_chunk_points(g2)
 * at a time: all windows at once up to ZP_G16_MSM_BUDGET points, and at
 * least one window per pass for a whole chunk; for G1 also the batch-affine
 * round with ZP_G16_AFFINE_WINDOWS windows a pass over a whole chunk (more
 * where a slot's share of the arena holds them, grow_windows). A lone G1
 * MSM of 2^27 points is faster with the round than with XYZZ buckets, and
 * faster the more windows a pass: two windows a pass take 11.8 GiB, all
 * 13 about 75 GiB (bench/RESULTS.md). */
#define ZP_G16_AFFINE_WINDOWS 2

/* aw: G1 windows a pass of the affine round to make room for; 0 none (the
 * lean size, what a slot opens with when the arena has no more). split:
 * with room for the 0/1 split's arrays. mo: the MSM options of the device
 * (zp__gpu_config.msm), whose thresholds say where the affine round runs
 * and with which layout: a slot on a device whose tests lower them sizes
 * for the round at their sizes as a default one does at full size. */
static uint64_t msm_bytes(const zp__gpu_msm_opts *mo, uint64_t count, bool g2, unsigned aw,
                          bool split, uint64_t ring)
{
    count = max_u64(count, 1);
    uint64_t chunk = min_u64(count, chunk_of(g2, ring));
    uint64_t b = max_u64(zp__gpu_msm_scratch_bytes_opts(mo, min_u64(chunk, ZP_G16_MSM_BUDGET), g2,
                                                        0, false),
                         zp__gpu_msm_scratch_bytes_opts(mo, chunk, g2, 1, false));
    if (!g2 && aw)
        b = max_u64(b, split ? zp__gpu_msm_scratch_bytes_affine_opts(mo, chunk, false, aw)
                             : zp__gpu_msm_scratch_bytes_nosplit_opts(mo, chunk, false, aw));
    return b;
}

/* The most points of a G1 MSM with the 0/1 split (A, B1, L). */
static uint64_t split_points(const zp__pk *pk)
{
    return max_u64(max_u64(pk->n_a, pk->n_b), pk->n_l);
}

/* The G1 scratch. H runs without the split, so the windows a pass that a
 * slot grows (aw) are sized for H, whose scalars are all dense, without
 * the split's arrays (at 2^27 that makes room for 7 windows a pass
 * instead of 6 in an H200 slot beside a porep:27 key and its twist tables:
 * two passes instead of three); the split MSMs (A, B1, L) are sized for at
 * most the default windows and take more where the scratch holds them (in
 * porep-like circuits few of their scalars are dense). */
static uint64_t g1_bytes(const zp__gpu_msm_opts *mo, const zp__pk *pk, unsigned aw,
                         uint64_t ring)
{
    unsigned sw = aw < ZP_G16_AFFINE_WINDOWS ? aw : ZP_G16_AFFINE_WINDOWS;
    return max_u64(msm_bytes(mo, split_points(pk), false, sw, true, ring),
                   msm_bytes(mo, pk->n_h, false, aw, false, ring));
}

/* The least scratch an H chunk of a ring's size takes into kept buckets
 * of hc bits (0: none): one window a pass, as the slot's other MSMs are
 * sized at least; the chunks take more windows a pass where it holds
 * them. */
static uint64_t h_acc_scratch(const zp__gpu_msm_opts *mo, const zp__pk *pk, uint64_t ring,
                              unsigned hc)
{
    if (!hc)
        return 0;
    const uint64_t n = min_u64(max_u64(pk->n_h, 1), chunk_of(false, ring));
    return zp__gpu_msm_acc_scratch_bytes_opts(mo, n, hc, 1);
}

/* The least scratch of a ring's chunks into kept buckets: H's at hc bits
 * (h_acc_scratch), and a witness G1 chunk's into the witness MSMs' buckets
 * (one window a pass, the split's arrays besides); 0 without a ring. */
static uint64_t acc_scratch(const zp__gpu_msm_opts *mo, const zp__pk *pk, uint64_t ring,
                            unsigned hc)
{
    const unsigned wc = zp__g16_w_acc_window(ring);
    if (!wc)
        return h_acc_scratch(mo, pk, ring, hc);
    const uint64_t n = min_u64(max_u64(split_points(pk), 1), chunk_of(false, ring));
    return max_u64(h_acc_scratch(mo, pk, ring, hc),
                   zp__gpu_msm_acc_split_scratch_bytes_opts(mo, n, wc, 1));
}

/* pre_c: with room for the MSM over the key's H table of pre_c-bit
 * windows (0: none). hc: with H's kept buckets of hc bits (0: none). */
static void plan(slot_plan *p, const zp__gpu_msm_opts *mo, const zp__pk *pk, unsigned aw,
                 unsigned pre_c, uint64_t ring, unsigned hc)
{
    uint64_t fr = sizeof(zp_fr), n = pk->domain_size;
    uint64_t sc = max_u64(g1_bytes(mo, pk, aw, ring), msm_bytes(mo, pk->n_b, true, aw, true, ring));
    sc = max_u64(sc, acc_scratch(mo, pk, ring, hc));
    const uint64_t sb = sched_buf_points(ring);
    if (ring && hc && sb >= H_ACC_TWO_PASS_POINTS)
        sc = max_u64(sc, zp__gpu_msm_acc_affine_scratch_bytes_opts(
                             mo, min_u64(max_u64(pk->n_h, 1), sb), hc, 2));
    if (pre_c)
        sc = max_u64(sc, zp__gpu_msm_scratch_bytes_pre_opts(mo, max_u64(pk->n_h, 1), pre_c));
    uint64_t ab = max_u64(pk->n_a, pk->n_b);
    /* A slot with a ring (a streaming key) sends the next witness packed
     * where it packs (prove_gpu_wpack.c): its region has the room past the
     * witness up to the domain's size for the packs, as a lean slot's c. */
    p->witness = rnd((ring ? max_u64(pk->n_vars, n) : pk->n_vars) * fr);
    p->scratch_off = rnd(n * fr);
    p->work = max_u64(rnd(3 * n * fr), p->scratch_off + rnd(sc));
    p->ab_scalars = ab > n ? rnd(ab * fr) : 0;
    p->ring = ring ? 2 * rnd(ring) : 0;
    p->h_acc = hc ? rnd(zp__gpu_msm_acc_bytes(hc)) : 0;
    p->w_acc = ring ? rnd(zp__gpu_msm_acc_bytes(zp__g16_w_acc_window(ring))) : 0;
}

/* The least scratch of a lean slot's MSMs over chunks of a ring's size:
 * one window a pass (split G1, B2's G2, H into kept buckets of hc bits).
 * A lean slot gives its MSMs all of b's third where that holds the least,
 * and they take as many windows a pass as it holds: a chunk of a 1 GiB
 * schedule buffer (11.2 M G1 points) takes all its windows in 3.0 GiB. */
static uint64_t lean_least(const zp__gpu_msm_opts *mo, const zp__pk *pk, uint64_t ring,
                           unsigned hc)
{
    const uint64_t g1 = zp__gpu_msm_scratch_bytes_opts(
        mo, min_u64(max_u64(split_points(pk), 1), chunk_of(false, ring)), false, 1, false);
    const uint64_t g2 = zp__gpu_msm_scratch_bytes_opts(
        mo, min_u64(max_u64(pk->n_b, 1), chunk_of(true, ring)), true, 1, false);
    return max_u64(max_u64(g1, g2), acc_scratch(mo, pk, ring, hc));
}

/* The lean layout (the file's comment): no witness region; the scratch
 * b's third where the least (lean_least) fits there, else above c, sized
 * as a usual slot's. */
static void plan_lean(slot_plan *p, const zp__gpu_msm_opts *mo, const zp__pk *pk, uint64_t ring,
                      unsigned hc)
{
    plan(p, mo, pk, 0, 0, ring, hc);
    const uint64_t third = rnd(pk->domain_size * sizeof(zp_fr));
    p->witness = 0;
    if (rnd(lean_least(mo, pk, ring, hc)) <= third) {
        p->scratch_off = third;
        p->work = 3 * third;
        return;
    }
    const uint64_t sc = rnd(max_u64(max_u64(g1_bytes(mo, pk, 0, ring),
                                            msm_bytes(mo, pk->n_b, true, 0, true, ring)),
                                    acc_scratch(mo, pk, ring, hc)));
    p->scratch_off = 3 * third;
    p->work = 3 * third + sc;
}

/* With the scratch of its two streams that run kernels (its own and the
 * one beside h). */
static uint64_t plan_total(const slot_plan *p)
{
    return p->witness + p->work + p->ab_scalars + p->ring + p->h_acc + p->w_acc +
           2 * ZP_GPU_STREAM_ARENA_BYTES;
}

static uint64_t plan_bytes(const zp__gpu_msm_opts *mo, const zp__pk *pk, unsigned aw,
                           unsigned pre_c, uint64_t ring, unsigned hc)
{
    slot_plan p;
    plan(&p, mo, pk, aw, pre_c, ring, hc);
    return plan_total(&p);
}

/* The least scratch the MSMs over the witness take beside h: what a slot
 * of `aw` grown windows sizes them for after h (g1_bytes' split MSMs at
 * most the default windows, and B2). */
static uint64_t beside_scratch_bytes(const zp__gpu_msm_opts *mo, const zp__pk *pk, unsigned aw,
                                     uint64_t ring)
{
    unsigned sw = aw < ZP_G16_AFFINE_WINDOWS ? aw : ZP_G16_AFFINE_WINDOWS;
    return max_u64(msm_bytes(mo, split_points(pk), false, sw, true, ring),
                   msm_bytes(mo, pk->n_b, true, sw, true, ring));
}

/* B's (or a chunked A's) scalars gathered beside h, at the start of the
 * room above a, b and c: none where ab_scalars holds them (the plan's
 * ab_scalars bytes, not 0). */
static uint64_t beside_gather_bytes(uint64_t n_a, uint64_t n_b, uint64_t ab_scalars)
{
    return ab_scalars ? 0 : rnd(max_u64(n_a, n_b) * sizeof(zp_fr));
}

/* The work region a slot of pk's shape needs for the MSMs beside h (with
 * plan p and `aw` windows): a, b and c, then the gathers and the scratch. */
static uint64_t beside_work(const zp__gpu_msm_opts *mo, const zp__pk *pk, const slot_plan *p,
                            unsigned aw, uint64_t ring)
{
    return rnd(3 * pk->domain_size * sizeof(zp_fr)) +
           beside_gather_bytes(pk->n_a, pk->n_b, p->ab_scalars) +
           beside_scratch_bytes(mo, pk, aw, ring);
}

/*
 * Beside h (zp__g16_gpu_opts.beside_h, the default): the MSMs over the
 * witness (L, A, B1, B2) run on a stream of their own while h runs, in work
 * above a, b and c, where work holds them there with the scratch they take
 * after h (a slot grows work for that room where its share allows; a grown
 * porep:27 slot's H scratch holds it anyway: ~25 of ~34 GiB); H runs after
 * both. The NTTs of h share the SMs with an MSM well, where two MSMs do
 * not (bench corun). That stream has the device's greatest priority: at
 * the same priority h's kernels, queued first, take the SMs and the MSMs
 * wait for all of h.
 */

uint64_t zp__g16_slot_bytes(const zp__pk *pk, const zp__g16_gpu_opts *o)
{
    const zp__g16_gpu_opts op = zp__g16_gpu_opts_of(o);
    return plan_bytes(&op.msm, pk, ZP_G16_AFFINE_WINDOWS, zp__g16_h_pre_c(pk, o), 0, 0);
}

uint64_t zp__g16_slot_bytes_min(const zp__pk *pk)
{
    zp__gpu_msm_opts mo;
    zp__gpu_msm_opts_default(&mo);
    return plan_bytes(&mo, pk, 0, 0, 0, 0);
}

uint64_t zp__g16_slot_bytes_ring(const zp__pk *pk, uint64_t ring_buffer,
                                 const zp__g16_gpu_opts *o)
{
    const zp__g16_gpu_opts op = zp__g16_gpu_opts_of(o);
    return plan_bytes(&op.msm, pk, 0, 0, ring_buffer,
                      zp__g16_h_acc_window(ring_buffer, pk->n_h));
}

uint64_t zp__g16_slot_bytes_shared(const zp__pk *pk, uint64_t ring_buffer,
                                   const zp__g16_gpu_opts *o)
{
    const zp__g16_gpu_opts op = zp__g16_gpu_opts_of(o);
    slot_plan p;
    plan(&p, &op.msm, pk, 0, 0, ring_buffer, zp__g16_h_acc_window(ring_buffer, pk->n_h));
    p.ring = 0;
    return plan_total(&p);
}

uint64_t zp__g16_slot_bytes_lean(const zp__pk *pk, uint64_t ring_buffer,
                                 const zp__g16_gpu_opts *o)
{
    if (pk->n_vars > pk->domain_size)
        return UINT64_MAX;
    const zp__g16_gpu_opts op = zp__g16_gpu_opts_of(o);
    slot_plan p;
    plan_lean(&p, &op.msm, pk, ring_buffer, zp__g16_h_acc_window(ring_buffer, pk->n_h));
    return plan_total(&p);
}

bool zp__g16_slot_lean(const zp__g16_slot *s) { return s->lean; }

bool zp__g16_slot_abc_w_late(const zp__g16_slot *s, const zp__g16_dkey *k)
{
    return s->lean ||
           (zp__g16_dkey_streams(k) && !k->share && s->ring_q[1] && !s->side_stream);
}

uint64_t zp__g16_slot_bytes_pre(const zp__pk *pk, const zp__g16_gpu_opts *o)
{
    const zp__g16_gpu_opts op = zp__g16_gpu_opts_of(o);
    return plan_bytes(&op.msm, pk, 0, zp__g16_h_pre_c(pk, o), 0, 0);
}

/* The most G1 windows a pass worth room (beyond the window count a layout
 * stops growing; 256 / 16 bits is the most windows any size has). */
#define ZP_G16_GROW_WINDOWS 16

/* The windows a pass a slot of pk's shape makes room for within `share`
 * bytes: the most whose size fits, and never fewer than the default
 * (zp__g16_slot_open falls back from there). */
static unsigned grow_windows(const zp__gpu_msm_opts *mo, const zp__pk *pk, uint64_t share,
                             unsigned pre_c, uint64_t ring, unsigned hc)
{
    const unsigned base = ZP_G16_AFFINE_WINDOWS;
    uint64_t fixed = plan_bytes(mo, pk, base, pre_c, ring, hc);
    if (share <= fixed)
        return base;
    unsigned best = base;
    uint64_t best_bytes = fixed;
    for (unsigned aw = base + 1; aw <= ZP_G16_GROW_WINDOWS; aw++) {
        uint64_t b = plan_bytes(mo, pk, aw, pre_c, ring, hc);
        if (b > share)
            break;
        if (b > best_bytes) { /* more windows that cost nothing more: no gain */
            best = aw;
            best_bytes = b;
        }
    }
    return best;
}

/* The plan of a slot grown into `share` (*aw windows, grow_windows), its
 * work region grown for the room beside h where `beside` and the share
 * hold that too. */
static void plan_within(slot_plan *g, unsigned *aw, const zp__gpu_msm_opts *mo,
                        const zp__pk *pk, uint64_t share, unsigned pre_c, bool beside,
                        uint64_t ring, unsigned hc)
{
    *aw = grow_windows(mo, pk, share, pre_c, ring, hc);
    plan(g, mo, pk, *aw, pre_c, ring, hc);
    const uint64_t bb = beside_work(mo, pk, g, *aw, ring);
    if (beside && share && bb > g->work && plan_total(g) - g->work + bb <= share)
        g->work = bb;
}

uint64_t zp__g16_slot_bytes_within(const zp__pk *pk, uint64_t share, const zp__g16_gpu_opts *o)
{
    const zp__g16_gpu_opts op = zp__g16_gpu_opts_of(o);
    slot_plan g;
    unsigned aw;
    plan_within(&g, &aw, &op.msm, pk, share, zp__g16_h_pre_c(pk, o), op.beside_h, 0, 0);
    return plan_total(&g);
}

unsigned zp__g16_slot_windows(const zp__g16_slot *s) { return s->windows; }

bool zp__g16_slot_took_sent(const zp__g16_slot *s) { return s->took_sent; }

bool zp__g16_slot_took_pre(const zp__g16_slot *s) { return s->took_pre; }

bool zp__g16_slot_took_sched(const zp__g16_slot *s) { return s->took_sched; }

bool zp__g16_slot_took_h_acc(const zp__g16_slot *s) { return s->took_h_acc; }

unsigned zp__g16_slot_took_pairs(const zp__g16_slot *s) { return s->took_pairs; }

unsigned zp__g16_slot_took_wpack(const zp__g16_slot *s) { return s->took_wpack; }
unsigned zp__g16_slot_took_eval_ahead(const zp__g16_slot *s) { return s->took_eval_ahead; }
unsigned zp__g16_slot_took_eval_low(const zp__g16_slot *s) { return s->took_eval_low; }

uint64_t zp__g16_slot_wpack_saved(const zp__g16_slot *s) { return s->wpack_saved; }

bool zp__g16_slot_beside(const zp__g16_slot *s) { return s->side_stream != NULL; }

bool zp__g16_slot_fits(const zp__g16_slot *s, const zp__pk *pk)
{
    return pk->n_vars <= s->n_vars && pk->domain_size <= s->domain_size && pk->n_a <= s->n_a &&
           pk->n_b <= s->n_b && pk->n_l <= s->n_l && pk->n_h <= s->n_h;
}

bool zp__g16_slot_fits_key(const zp__g16_slot *s, const zp__g16_dkey *k)
{
    if (!k->pk || !zp__g16_slot_fits(s, k->pk) || !zp__g16_dkey_streams(k))
        return k->pk && zp__g16_slot_fits(s, k->pk);
    if (k->share)
        return s->ring_buffer == k->ring_buffer && !s->lean;
    return s->ring.ptr != NULL;
}

uint64_t zp__g16_slot_ring_buffer(const zp__g16_slot *s) { return s->ring_buffer; }

uint64_t zp__g16_slot_ring_bytes(const zp__g16_slot *s) { return s->ring.bytes; }

uint64_t zp__g16_slot_streamed_bytes(const zp__g16_slot *s) { return s->streamed; }

zp_fr *zp__g16_slot_witness_buf(zp__g16_slot *s)
{
    /* No copy may still read it; what was sent is forgotten (the caller
     * is about to put another witness there). */
    if (s->sent_witness)
        zp__gpu_stream_sync(s->copy_stream);
    s->sent_witness = NULL;
    /* A lean slot reads its partition's witness again after h, while the
     * next one may be loaded: that goes to the other buffer. */
    if (s->lean && s->lean_w == s->host_witness)
        return s->host_witness2;
    return s->host_witness;
}

/* ------------------------------------------------------- open and close */

void zp__g16_slot_close(zp__g16_slot *s)
{
    if (!s)
        return;
    if (s->stream)
        zp__gpu_stream_sync(s->stream); /* nothing may still use the regions */
    if (s->copy_stream)
        zp__gpu_stream_sync(s->copy_stream);
    if (s->side_stream)
        zp__gpu_stream_sync(s->side_stream);
    zp__g16_slot_ring_close(s);
    zp__gpu_free(s->dev, &s->ring);
    zp__gpu_free(s->dev, &s->h_acc);
    zp__gpu_free(s->dev, &s->w_acc);
    if (!s->lean) /* else a part of work */
        zp__gpu_free(s->dev, &s->witness);
    zp__gpu_free(s->dev, &s->work);
    zp__gpu_free(s->dev, &s->ab_scalars);
    zp__gpu_host_free(s->host_witness);
    zp__gpu_host_free(s->host_witness2);
    zp__g16_wpack_free(s);
    zp__gpu_host_free(s->abc_stage[0]);
    zp__gpu_host_free(s->abc_stage[1]);
    zp__gpu_stream_close(s->copy_stream);
    zp__gpu_stream_close(s->ring_stream);
    zp__gpu_stream_close(s->side_stream);
    zp__gpu_stream_close(s->stream);
    if (s->counted)
        zp__gpu_slots_add(s->dev, -1);
    free(s);
}

zp_err zp__g16_slot_open(zp__g16_slot **out, zp__gpu *dev, const zp__pk *pk,
                         const zp__g16_gpu_opts *o, zp__ioerr *why)
{
    return zp__g16_slot_open_within(out, dev, pk, 0, o, why);
}

zp_err zp__g16_slot_open_within(zp__g16_slot **out, zp__gpu *dev, const zp__pk *pk,
                                uint64_t share, const zp__g16_gpu_opts *o, zp__ioerr *why)
{
    return zp__g16_slot_open_ring(out, dev, pk, 0, share, o, why);
}

zp_err zp__g16_slot_open_ring(zp__g16_slot **out, zp__gpu *dev, const zp__pk *pk,
                              uint64_t ring, uint64_t share, const zp__g16_gpu_opts *o,
                              zp__ioerr *why)
{
    return zp__g16_slot_open_plan(out, dev, pk, ring, false, false, share, 0, o, why);
}

/* The regions and streams of a lean slot (s's shape fields set). */
static zp_err open_lean(zp__g16_slot *s, const zp__pk *pk, uint64_t ring, zp__ioerr *why)
{
    slot_plan p;
    plan_lean(&p, &s->msm, pk, ring, zp__g16_h_acc_window(ring, pk->n_h));
    const uint64_t third = rnd(s->domain_size * sizeof(zp_fr));
    s->lean = true;
    s->windows = 0;
    s->scratch_off = p.scratch_off;
    zp_err e = ring ? zp__gpu_alloc_high(s->dev, &s->ring, p.ring) : ZP_OK;
    if (!e && p.h_acc)
        e = zp__gpu_alloc_high(s->dev, &s->h_acc, p.h_acc);
    if (!e && p.w_acc)
        e = zp__gpu_alloc_high(s->dev, &s->w_acc, p.w_acc);
    if (!e)
        e = zp__gpu_alloc_high(s->dev, &s->work, p.work);
    if (!e && p.ab_scalars)
        e = zp__gpu_alloc_high(s->dev, &s->ab_scalars, p.ab_scalars);
    if (!e) {
        s->scratch_end = s->scratch_off == third ? 2 * third : s->work.bytes;
        s->witness = (zp__gpu_buf){(char *)s->work.ptr + 2 * third, third};
        e = zp__gpu_stream_open_ranked(s->dev, &s->stream, 2 * s->rank + 1);
    }
    if (!e)
        e = zp__gpu_stream_open_copy(s->dev, &s->copy_stream);
    if (!e && ring)
        e = zp__gpu_stream_open_copy(s->dev, &s->ring_stream);
    if (!e && ring)
        e = zp__g16_slot_ring_open(s);
    if (!e)
        e = zp__gpu_host_alloc(s->dev, (void **)&s->host_witness,
                               (uint64_t)pk->n_vars * sizeof(zp_fr));
    if (!e)
        e = zp__gpu_host_alloc(s->dev, (void **)&s->host_witness2,
                               (uint64_t)pk->n_vars * sizeof(zp_fr));
    if (e)
        return zp__fail(why, e, "opening a lean GPU slot of %llu bytes failed: %s (%s)",
                        (unsigned long long)plan_total(&p), zp_errname(e),
                        zp__gpu_last_error());
    return ZP_OK;
}

zp_err zp__g16_slot_open_plan(zp__g16_slot **out, zp__gpu *dev, const zp__pk *pk,
                              uint64_t ring, bool lean_slot, bool shared, uint64_t share,
                              unsigned rank, const zp__g16_gpu_opts *o, zp__ioerr *why)
{
    *out = NULL;
    uint64_t n = pk->domain_size;
    if (n < 2 || (n & (n - 1)) || pk->n_public >= pk->n_vars)
        return zp__fail(why, ZP_E_INVALID_ARG, "slot: not a key shape");
    if (shared && (lean_slot || !ring))
        return zp__fail(why, ZP_E_INVALID_ARG,
                        "slot: a shared ring's slot is sized for its buffers and never lean");
    if (lean_slot && pk->n_vars > n)
        return zp__fail(why, ZP_E_INVALID_ARG,
                        "slot: a lean slot needs no more variables than the domain");
    zp__g16_slot *s = calloc(1, sizeof *s);
    if (!s)
        return zp__fail(why, ZP_E_NOMEM, "no memory for a GPU slot");
    s->dev = dev;
    s->opts = zp__g16_gpu_opts_of(o);
    s->n_vars = pk->n_vars;
    s->domain_size = n;
    s->n_a = pk->n_a;
    s->n_b = pk->n_b;
    s->n_l = pk->n_l;
    s->n_h = pk->n_h;
    s->ring_buffer = ring;
    s->rank = rank;
    zp__gpu_get_msm_opts(dev, &s->msm);
    if (lean_slot) {
        zp_err e = open_lean(s, pk, ring, why);
        if (e) {
            zp__g16_slot_close(s);
            return e;
        }
        zp__g16_slot_msm_on(s, false);
        zp__gpu_slots_add(dev, 1);
        s->counted = true;
        *out = s;
        return ZP_OK;
    }
    const zp__gpu_msm_opts *mo = &s->msm;
    /* A streaming slot makes no room for an H table's MSM: a key that
     * streams has none. */
    const unsigned pre_c = !ring && zp__g16_h_pre_on(pk, dev, o) ? zp__g16_h_pre_c(pk, o) : 0;
    /* A shared ring's slot runs its MSMs as the circle passes, after h. */
    const bool beside = s->opts.beside_h && !shared;
    const uint64_t own_ring = shared ? 0 : ring;
    unsigned grown;
    slot_plan g, p, lpre, lean; /* the same but smaller work regions */
    const unsigned hc = zp__g16_h_acc_window(ring, pk->n_h);
    plan_within(&g, &grown, mo, pk, share, pre_c, beside, ring, hc);
    plan(&p, mo, pk, ZP_G16_AFFINE_WINDOWS, pre_c, ring, hc);
    plan(&lpre, mo, pk, 0, pre_c, ring, hc);
    plan(&lean, mo, pk, 0, 0, ring, hc);
    s->scratch_off = p.scratch_off;
    s->scratch_end = UINT64_MAX; /* the end of work */
    /* Arena regions first: running out of arena is the expected failure
     * and must cost nothing else. */
    /* From the top of the arena: keys come from the bottom, and a slot
     * re-carved for another key shape then leaves no hole between them. */
    zp_err e = zp__gpu_alloc_high(dev, &s->witness, p.witness);
    if (!e && own_ring)
        e = zp__gpu_alloc_high(dev, &s->ring, p.ring);
    if (!e && p.h_acc)
        e = zp__gpu_alloc_high(dev, &s->h_acc, p.h_acc);
    if (!e && p.w_acc)
        e = zp__gpu_alloc_high(dev, &s->w_acc, p.w_acc);
    /* The grown size; with less room than the share promised (a
     * fragmented arena) the default; with no room for the affine round's
     * scratch the lean size (the MSMs take whatever scratch the slot has,
     * in more passes or with XYZZ buckets), so that a smaller GPU keeps as
     * many slots as before: first with the room for the H table's MSM
     * (where the device takes tables), then without. */
    const uint64_t works[4] = {g.work, p.work, lpre.work, lean.work};
    const unsigned wins[4] = {grown, ZP_G16_AFFINE_WINDOWS, 0, 0};
    if (!e) {
        uint64_t tried = UINT64_MAX;
        e = ZP_E_GPU_OOM;
        for (int i = 0; i < 4 && e == ZP_E_GPU_OOM; i++) {
            if (works[i] >= tried)
                continue; /* no smaller than what did not fit */
            tried = works[i];
            s->windows = wins[i];
            e = zp__gpu_alloc_high(dev, &s->work, works[i]);
            if (!e && p.ab_scalars)
                e = zp__gpu_alloc_high(dev, &s->ab_scalars, p.ab_scalars);
            if (e == ZP_E_GPU_OOM)
                zp__gpu_free(dev, &s->work); /* the next size, if any */
        }
    }
    if (!e)
        e = zp__gpu_stream_open_ranked(dev, &s->stream, 2 * rank + 1);
    if (!e)
        e = zp__gpu_stream_open_copy(dev, &s->copy_stream);
    if (!e && own_ring)
        e = zp__gpu_stream_open_copy(dev, &s->ring_stream);
    if (!e && own_ring)
        e = zp__g16_slot_ring_open(s);
    if (!e)
        e = zp__gpu_host_alloc(dev, (void **)&s->host_witness,
                               (uint64_t)pk->n_vars * sizeof(zp_fr));
    if (e) {
        zp__fail(why, e, "opening a GPU slot of %llu bytes failed: %s (%s)",
                 (unsigned long long)(plan_total(&lean) - (own_ring ? 0 : lean.ring)),
                 zp_errname(e),
                 zp__gpu_last_error());
        zp__g16_slot_close(s);
        return e;
    }
    /* The stream beside h is an option too: without it (no room above a,
     * b and c, or none left for its stream) every MSM runs after h. */
    if (beside && s->work.bytes >= beside_work(mo, pk, &p, s->windows, ring)) {
        if (zp__gpu_stream_open_ranked(dev, &s->side_stream, 2 * rank))
            s->side_stream = NULL;
        /* The room above a, b and c: the gathers (unless ab_scalars holds them),
         * then the scratch. */
        const uint64_t off = rnd(3 * n * sizeof(zp_fr));
        const uint64_t g = beside_gather_bytes(pk->n_a, pk->n_b, p.ab_scalars);
        char *room = (char *)s->work.ptr + off;
        s->side_gather = s->ab_scalars.ptr ? s->ab_scalars.ptr : (zp_fr *)room;
        s->side_scratch = (zp__gpu_buf){room + g, s->work.bytes - off - g};
    }
    zp__g16_slot_msm_on(s, false);
    zp__gpu_slots_add(dev, 1);
    s->counted = true;
    *out = s;
    return ZP_OK;
}
