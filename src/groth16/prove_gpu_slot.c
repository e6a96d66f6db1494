/*
 * Prover slots (gpu_prover.h): the working set of one partition on a
 * device, carved from the arena once and reused proof after proof.
 *
 * Layout, for a slot of shape (n_vars, n = domain_size, ...):
 *   w    n_vars scalars: the witness, Montgomery for eval, then converted
 *        to standard form in place (the L scalars and the gathers' source).
 *   big  a | b | c, n scalars each, during eval and h; after h the H
 *        scalars are in a, and from the start of b on the region is the
 *        MSM scratch (grown past 3n when the scratch needs more).
 *   sab  only when n_a or n_b exceeds n: the gathered A / B scalars;
 *        otherwise they go to a once the H MSM is done with it.
 * So a slot holds w, 3n scalars and one MSM scratch, no more.
 *
 * The MSM scratch is that of a full MSM of 2^25 points (~11 GB), or of
 * one window per pass for a chunk (chunk_points), or for G1 of the
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

/* MSMs longer than a chunk run chunk by chunk. G1: 2^ZP_G16_MSM_CHUNK_LOG2
 * points, or 2^ZKPIPE_MSM_CHUNK_LOG2 from the environment (20..31, read
 * once); the default, 2^31, never splits (point indices are 31-bit). A G1
 * MSM longer than 2^25 points sorts fewer windows per pass in the scratch
 * (zp__gpu_msm_scratch_bytes_pass), and its one-window minimum at 2^27
 * (~10 GB, most of it the split arrays and the buckets) stays below the G2
 * scratch the slot holds anyway. On the H200, synth:porep:27 took 1784 ms
 * per partition unsplit against 1830 ms in 2^25-point chunks (H 868 / 897,
 * A 131 / 140, L 127 / 136 ms; bench/RESULTS.md, session 4). G2 stays in
 * 2^25-point chunks: its buckets are twice as large (an unsplit 2^27 G2
 * MSM would need ~15 GB) and B2 took the same time either way. */
#ifndef ZP_G16_MSM_CHUNK_LOG2
#define ZP_G16_MSM_CHUNK_LOG2 31
#endif
#define ZP_G16_MSM_CHUNK_G2 ((uint64_t)1 << 25)
#define ZP_G16_MSM_BUDGET ((uint64_t)1 << 25) /* points whose full scratch is the budget */

static uint64_t chunk_points(bool g2)
{
    static _Atomic unsigned cached; /* the log2 once read (never 0) */
    if (g2)
        return ZP_G16_MSM_CHUNK_G2;
    unsigned v = cached;
    if (!v)
        cached = v = zp__env_knob("ZKPIPE_MSM_CHUNK_LOG2", 20, 31, ZP_G16_MSM_CHUNK_LOG2);
    return (uint64_t)1 << v;
}

/* ZKPIPE_SLOT_PHASES=1 (read once): every MSM of a slot timed by phase
 * (zp__gpu_stream_profile) and printed to stderr, for measurements. */
static bool phases_wanted(void)
{
    static _Atomic unsigned cached;
    return knob_cached(&cached, "ZKPIPE_SLOT_PHASES", 1, 0) == 1;
}

static void phases_print(const zp__g16_slot *s, const char *what, uint64_t n)
{
    if (!phases_wanted())
        return;
    zp__gpu_msm_phases ph;
    uint64_t z, o, d;
    zp__gpu_msm_last_phases(s->st, &ph);
    zp__gpu_msm_last_split(s->st, &z, &o, &d);
    fprintf(stderr,
            "msm %s n=%llu zeros=%llu ones=%llu dense=%llu: split %.2f sort %.2f accumulate "
            "%.2f reduce %.2f ones %.2f total %.2f ms (affine rounds %u, ones %s)\n",
            what, (unsigned long long)n, (unsigned long long)z, (unsigned long long)o,
            (unsigned long long)d, ph.split, ph.sort, ph.accumulate, ph.reduce, ph.ones,
            ph.total, zp__gpu_msm_last_affine_rounds(s->st),
            zp__gpu_msm_last_ones_affine(s->st) ? "affine" : "XYZZ");
}

double zp__g16_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------- sizing */

static uint64_t rnd(uint64_t bytes)
{
    bytes = bytes ? bytes : 32;
    return (bytes + 255) & ~(uint64_t)255;
}

typedef struct slot_plan {
    uint64_t w, big, sab, scratch_off;
} slot_plan;

/* Scratch for MSMs of up to `count` points taken chunk_points(g2) at a time:
 * all windows at once up to ZP_G16_MSM_BUDGET points, and at least one
 * window per pass for a whole chunk; for G1 also the batch-affine round
 * with ZP_G16_AFFINE_WINDOWS windows a pass over a whole chunk. On the
 * H200 (bench/RESULTS.md, session 8) a lone G1 MSM of 2^27 points took
 * 815 ms with XYZZ buckets one window a pass, 759 ms with the round one
 * window a pass (which fits the G2 scratch the slot holds anyway), 700 ms
 * two windows a pass (11.8 GiB), 646 ms all 13 (~75 GiB). */
#define ZP_G16_AFFINE_WINDOWS 2

/* ZKPIPE_SLOT_AFFINE_WINDOWS (0..16, read once; 0: no room for the round
 * beyond the rest) fixes the windows instead of ZP_G16_AFFINE_WINDOWS and
 * the growth into a share, for measurements; KNOB_UNSET when not set. */
#define KNOB_UNSET 17u

static unsigned knob_windows(void)
{
    static _Atomic unsigned cached;
    return knob_cached(&cached, "ZKPIPE_SLOT_AFFINE_WINDOWS", 16, KNOB_UNSET);
}

static unsigned affine_windows(void)
{
    unsigned k = knob_windows();
    return k == KNOB_UNSET ? ZP_G16_AFFINE_WINDOWS : k;
}

static bool h_nosplit(void);

/* aw: G1 windows a pass of the affine round to make room for; 0 none (the
 * lean size, what a slot opens with when the arena has no more). split:
 * with room for the 0/1 split's arrays. */
static uint64_t msm_bytes(uint64_t count, bool g2, unsigned aw, bool split)
{
    count = max_u64(count, 1);
    uint64_t chunk = min_u64(count, chunk_points(g2));
    uint64_t b = max_u64(zp__gpu_msm_scratch_bytes(min_u64(count, ZP_G16_MSM_BUDGET), g2),
                         zp__gpu_msm_scratch_bytes_pass(chunk, g2, 1));
    if (!g2 && aw)
        b = max_u64(b, split ? zp__gpu_msm_scratch_bytes_affine(chunk, false, aw)
                             : zp__gpu_msm_scratch_bytes_nosplit(chunk, false, aw));
    return b;
}

/* The G1 scratch. Without the split for H (the default), the windows a
 * pass that a slot grows (aw) are sized for H, whose scalars are all dense,
 * without the split's arrays (at 2^27 that makes room for 7 windows a pass
 * instead of 6 in an H200 slot beside a porep:27 key and its twist tables:
 * two passes instead of three); the split MSMs (A, B1, L) are sized for at
 * most the default windows and take more where the scratch holds them (in
 * porep-like circuits few of their scalars are dense). */
static uint64_t g1_bytes(const zp__pk *pk, unsigned aw)
{
    uint64_t split = max_u64(max_u64(pk->n_a, pk->n_b), pk->n_l);
    if (!h_nosplit())
        return msm_bytes(max_u64(split, pk->n_h), false, aw, true);
    unsigned sw = aw < ZP_G16_AFFINE_WINDOWS ? aw : ZP_G16_AFFINE_WINDOWS;
    return max_u64(msm_bytes(split, false, sw, true), msm_bytes(pk->n_h, false, aw, false));
}

/* The scratch of the H MSM over a table of zp__g16_h_pre_c(pk)'s windows;
 * 0 without one. */
static uint64_t h_pre_bytes(const zp__pk *pk)
{
    unsigned c = zp__g16_h_pre_c(pk);
    return c ? zp__gpu_msm_scratch_bytes_pre(max_u64(pk->n_h, 1), c) : 0;
}

/* pre: with room for the MSM over the key's H table. */
static void plan(slot_plan *p, const zp__pk *pk, unsigned aw, bool pre)
{
    uint64_t fr = sizeof(zp_fr), n = pk->domain_size;
    uint64_t sc = max_u64(g1_bytes(pk, aw), msm_bytes(pk->n_b, true, aw, true));
    if (pre)
        sc = max_u64(sc, h_pre_bytes(pk));
    uint64_t ab = max_u64(pk->n_a, pk->n_b);
    p->w = rnd((uint64_t)pk->n_vars * fr);
    p->scratch_off = rnd(n * fr);
    p->big = max_u64(rnd(3 * n * fr), p->scratch_off + rnd(sc));
    p->sab = ab > n ? rnd(ab * fr) : 0;
}

static uint64_t plan_bytes(const zp__pk *pk, unsigned aw, bool pre)
{
    slot_plan p;
    plan(&p, pk, aw, pre);
    return p.w + p.big + p.sab + zp__g16_pack_own_bytes(pk->n_vars, p.big);
}

/* The size functions without a device assume one that takes the H table
 * (zp__g16_h_pre_on); slots opened on a device that does not leave it out. */
static bool pre_of(const zp__pk *pk) { return zp__g16_h_pre_c(pk) != 0; }

uint64_t zp__g16_slot_bytes(const zp__pk *pk)
{
    return plan_bytes(pk, affine_windows(), pre_of(pk));
}

uint64_t zp__g16_slot_bytes_min(const zp__pk *pk) { return plan_bytes(pk, 0, false); }

uint64_t zp__g16_slot_bytes_pre(const zp__pk *pk) { return plan_bytes(pk, 0, pre_of(pk)); }

/* The most G1 windows a pass worth room (beyond the window count a layout
 * stops growing; 256 / 16 bits is the most windows any size has). */
#define ZP_G16_GROW_WINDOWS 16

/* The windows a pass a slot of pk's shape makes room for within `share`
 * bytes: the most whose size fits, and never fewer than the default
 * (zp__g16_slot_open falls back from there). The knob, when set, wins. */
static unsigned grow_windows(const zp__pk *pk, uint64_t share, bool pre)
{
    unsigned base = affine_windows();
    if (!base || knob_windows() != KNOB_UNSET)
        return base;
    uint64_t fixed = plan_bytes(pk, base, pre);
    if (share <= fixed)
        return base;
    unsigned best = base;
    uint64_t best_bytes = fixed;
    for (unsigned aw = base + 1; aw <= ZP_G16_GROW_WINDOWS; aw++) {
        uint64_t b = plan_bytes(pk, aw, pre);
        if (b > share)
            break;
        if (b > best_bytes) { /* more windows that cost nothing more: no gain */
            best = aw;
            best_bytes = b;
        }
    }
    return best;
}

uint64_t zp__g16_slot_bytes_within(const zp__pk *pk, uint64_t share)
{
    const bool pre = pre_of(pk);
    return plan_bytes(pk, grow_windows(pk, share, pre), pre);
}

unsigned zp__g16_slot_windows(const zp__g16_slot *s) { return s->windows; }

bool zp__g16_slot_took_sent(const zp__g16_slot *s) { return s->took_sent; }

bool zp__g16_slot_took_pre(const zp__g16_slot *s) { return s->took_pre; }

bool zp__g16_slot_fits(const zp__g16_slot *s, const zp__pk *pk)
{
    return pk->n_vars <= s->n_vars && pk->domain_size <= s->n && pk->n_a <= s->n_a &&
           pk->n_b <= s->n_b && pk->n_l <= s->n_l && pk->n_h <= s->n_h;
}

zp_fr *zp__g16_slot_witness_buf(zp__g16_slot *s)
{
    /* No copy may still read it; what was sent is forgotten (the caller
     * is about to put another witness there). */
    if (s->sent)
        zp__gpu_stream_sync(s->cp);
    s->sent = NULL;
    return s->hw;
}

bool zp__g16_slot_packs(const zp__g16_slot *s) { return s->pack != NULL; }

/* ------------------------------------------------------- open and close */

void zp__g16_slot_close(zp__g16_slot *s)
{
    if (!s)
        return;
    if (s->st)
        zp__gpu_stream_sync(s->st); /* nothing may still use the regions */
    if (s->cp)
        zp__gpu_stream_sync(s->cp);
    zp__gpu_free(s->dev, &s->w);
    zp__gpu_free(s->dev, &s->big);
    zp__gpu_free(s->dev, &s->sab);
    zp__gpu_host_free(s->hw);
    zp__g16_pack_close(s->pack);
    zp__gpu_stream_close(s->cp);
    zp__gpu_stream_close(s->st);
    if (s->counted)
        zp__gpu_slots_add(s->dev, -1);
    free(s);
}

zp_err zp__g16_slot_open(zp__g16_slot **out, zp__gpu *dev, const zp__pk *pk, zp__ioerr *why)
{
    return zp__g16_slot_open_within(out, dev, pk, 0, why);
}

zp_err zp__g16_slot_open_within(zp__g16_slot **out, zp__gpu *dev, const zp__pk *pk,
                                uint64_t share, zp__ioerr *why)
{
    *out = NULL;
    uint64_t n = pk->domain_size;
    if (n < 2 || (n & (n - 1)) || pk->n_public >= pk->n_vars)
        return zp__fail(why, ZP_E_INVALID_ARG, "slot: not a key shape");
    zp__g16_slot *s = calloc(1, sizeof *s);
    if (!s)
        return zp__fail(why, ZP_E_NOMEM, "no memory for a GPU slot");
    s->dev = dev;
    s->n_vars = pk->n_vars;
    s->n = n;
    s->n_a = pk->n_a;
    s->n_b = pk->n_b;
    s->n_l = pk->n_l;
    s->n_h = pk->n_h;
    const bool pre = zp__g16_h_pre_on(pk, dev);
    unsigned grown = grow_windows(pk, share, pre);
    slot_plan g, p, lpre, lean; /* the same but smaller bigs */
    plan(&g, pk, grown, pre);
    plan(&p, pk, affine_windows(), pre);
    plan(&lpre, pk, 0, pre);
    plan(&lean, pk, 0, false);
    s->scratch_off = p.scratch_off;
    /* Arena regions first: running out of arena is the expected failure
     * and must cost nothing else. */
    /* From the top of the arena: keys come from the bottom, and a slot
     * re-carved for another key shape then leaves no hole between them. */
    zp_err e = zp__gpu_alloc_high(dev, &s->w, p.w);
    /* The grown size; with less room than the share promised (a
     * fragmented arena) the default; with no room for the affine round's
     * scratch the lean size (the MSMs take whatever scratch the slot has,
     * in more passes or with XYZZ buckets), so that a smaller GPU keeps as
     * many slots as before: first with the room for the H table's MSM
     * (where the device takes tables), then without. */
    const uint64_t bigs[4] = {g.big, p.big, lpre.big, lean.big};
    const unsigned wins[4] = {grown, affine_windows(), 0, 0};
    if (!e) {
        uint64_t tried = UINT64_MAX;
        e = ZP_E_GPU_OOM;
        for (int i = 0; i < 4 && e == ZP_E_GPU_OOM; i++) {
            if (bigs[i] >= tried)
                continue; /* no smaller than what did not fit */
            tried = bigs[i];
            s->windows = wins[i];
            e = zp__gpu_alloc_high(dev, &s->big, bigs[i]);
            if (!e && p.sab)
                e = zp__gpu_alloc_high(dev, &s->sab, p.sab);
            if (e == ZP_E_GPU_OOM)
                zp__gpu_free(dev, &s->big); /* the next size, if any */
        }
    }
    if (!e)
        e = zp__gpu_stream_open(dev, &s->st);
    if (!e && phases_wanted())
        zp__gpu_stream_profile(s->st, true);
    if (!e)
        e = zp__gpu_stream_open_copy(dev, &s->cp);
    if (!e)
        e = zp__gpu_host_alloc(dev, (void **)&s->hw, (uint64_t)pk->n_vars * sizeof(zp_fr));
    if (e) {
        zp__fail(why, e, "opening a GPU slot of %llu bytes failed: %s (%s)",
                 (unsigned long long)(lean.w + lean.big + lean.sab), zp_errname(e),
                 zp__gpu_last_error());
        zp__g16_slot_close(s);
        return e;
    }
    /* Packing is an option: without its room the witness goes as it is. */
    if (zp__g16_pack_wanted() && zp__g16_pack_open(&s->pack, dev, pk->n_vars, s->big))
        s->pack = NULL;
    zp__gpu_slots_add(dev, 1);
    s->counted = true;
    *out = s;
    return ZP_OK;
}

/* ------------------------------------------------------------- stages */

zp_err zp__g16_slot_check(const zp__g16_slot *s, const zp__g16_dkey *k)
{
    if (!k->pk || k->dev != s->dev || !zp__g16_slot_fits(s, k->pk))
        return ZP_E_INVALID_ARG;
    return ZP_OK;
}

zp_err zp__g16_slot_put_w(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w)
{
    s->l_split = false;
    return zp__gpu_upload(s->st, s->w.ptr, w, (uint64_t)k->pk->n_vars * sizeof(zp_fr));
}

/* eval for w; sent: w is what the last zp__g16_slot_sums_next's hook gave,
 * so that its copy (when it went) stands for the upload. */
static zp_err eval_w(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w, bool sent,
                     bool parts)
{
    const zp__pk *pk = k->pk;
    zp_fr *a = s->big.ptr;
    zp_err e = ZP_OK;
    bool up = true;
    s->l_split = s->took_parts = false;
    if (s->sent) { /* after that copy, whether it counts or is overwritten */
        e = zp__gpu_stream_after(s->st, s->cp);
        up = !(sent && s->sent == w);
        s->sent = NULL;
    }
    s->took_sent = !up;
    unsigned np = parts && up && !s->pack ? zp__g16_parts_wanted(s, pk, w) : 1;
    if (!e && up)
        e = s->pack  ? zp__g16_pack_put(s->pack, s->st, s->w.ptr, w, pk->n_vars)
            : np > 1 ? zp__g16_parts_put(s, k, w, np)
                     : zp__g16_slot_put_w(s, k, w);
    if (!e)
        e = zp__gpu_eval_abc(s->st, a, a + s->n, a + 2 * s->n, pk->domain_size, &k->ma, &k->mb,
                             s->w.ptr);
    zp_err es = zp__gpu_stream_sync(s->st); /* also on failure: the copy reads w */
    return e ? e : es;
}

/* The stage on its own uploads in one copy: its msm uploads w again. */
zp_err zp__g16_slot_eval(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w)
{
    return eval_w(s, k, w, false, false);
}

/* The TAU h stage's a'b' folded into a's forward last pass
 * (zp__gpu_ntt_to_coset_mul) instead of a pointwise pass of its own: the h
 * stage of a porep:27 partition 240.9 -> 239.9 ms on the H200.
 * ZKPIPE_NTT_FOLD=0 (read once) runs the pass. */
static bool fold_ab(void)
{
    static _Atomic unsigned cached;
    return knob_cached(&cached, "ZKPIPE_NTT_FOLD", 1, 1) == 1;
}

/* The h stage enqueued on the slot's stream (zp__g16_slot_h waits). */
static zp_err h_enqueue(zp__g16_slot *s, const zp__g16_dkey *k)
{
    const zp__pk *pk = k->pk;
    uint64_t n = pk->domain_size;
    unsigned log2n = (unsigned)__builtin_ctzll(n);
    bool coset = pk->h_conv == ZP_H_COSET;
    zp_fr *a = s->big.ptr, *b = a + s->n, *c = b + s->n;
    zp_fr shift, scale;
    if (coset)
        zp_fr_root_of_unity(&shift, log2n + 1, pk->roots);
    else
        zp_fr_from_u64(&shift, 7);
    if (coset) {
        zp_fr_one(&scale);
    } else {
        /* Z(X) = Xⁿ − 1 is the constant gⁿ − 1 on the whole coset. */
        uint64_t nn = n;
        zp_fr one;
        zp_fr_pow(&scale, &shift, &nn, 1);
        zp_fr_one(&one);
        zp_fr_sub(&scale, &scale, &one);
        zp_fr_inv(&scale, &scale);
    }
    /* Raw limbs of the standard form: the product leaves standard form. */
    zp_fr raw;
    zp_fr_from_mont(&raw, &scale);
    /* a, b <- the evaluations of iNTT(a), iNTT(b) on the coset shift·⟨ω⟩ (as
     * prove.c), each inverse and coset forward NTT fused; the key's twist
     * tables, where it has them, while this stage runs. */
    zp__gpu_stream_set_twist(s->st, k->twist.mem.ptr ? &k->twist : NULL);
    zp_err e;
    if (coset) {
        e = zp__gpu_ntt_to_coset(s->st, a, log2n, pk->roots, &shift);
        if (!e)
            e = zp__gpu_ntt_to_coset(s->st, b, log2n, pk->roots, &shift);
        if (!e)
            e = zp__gpu_ntt_to_coset(s->st, c, log2n, pk->roots, &shift);
        if (!e)
            e = zp__gpu_fr_mul_sub_scale(s->st, a, a, b, c, &raw, n);
    } else {
        /* TAU as prove.c: (coset iNTT of a'b' − iNTT(c)) / (gⁿ − 1), the
         * first n − 1 coefficients the H scalars; c' is not made. a <- a'b':
         * with the fold, b first, then a's forward stores a'b' itself. */
        const bool fold = fold_ab();
        e = zp__gpu_ntt_to_coset(s->st, fold ? b : a, log2n, pk->roots, &shift);
        if (!e)
            e = fold ? zp__gpu_ntt_to_coset_mul(s->st, a, log2n, pk->roots, &shift, b)
                     : zp__gpu_ntt_to_coset(s->st, b, log2n, pk->roots, &shift);
        if (!e && !fold)
            e = zp__gpu_fr_mul_sub_scale(s->st, a, a, b, NULL, NULL, n);
        if (!e)
            e = zp__gpu_ntt_coset_diff(s->st, a, c, log2n, pk->roots, &shift, &raw);
    }
    zp__gpu_stream_set_twist(s->st, NULL);
    return e;
}

zp_err zp__g16_slot_h(zp__g16_slot *s, const zp__g16_dkey *k)
{
    zp_err e = h_enqueue(s, k);
    zp_err es = zp__gpu_stream_sync(s->st);
    return e ? e : es;
}

zp_err zp__g16_slot_read(zp__g16_slot *s, const zp__g16_dkey *k, zp_fr *out,
                         zp__g16_gpu_array which)
{
    uint64_t len = k->pk->domain_size;
    const zp_fr *d = s->big.ptr;
    switch (which) {
    case ZP_G16_GPU_A: break;
    case ZP_G16_GPU_B: d += s->n; break;
    case ZP_G16_GPU_C: d += 2 * s->n; break;
    case ZP_G16_GPU_H: len = k->pk->n_h; break;
    default: return ZP_E_INVALID_ARG;
    }
    zp_err e = zp__gpu_download(s->st, out, d, len * sizeof(zp_fr));
    zp_err es = zp__gpu_stream_sync(s->st);
    return e ? e : es;
}

/* ------------------------------------------------------------------ msm */

static zp__gpu_buf msm_scratch(const zp__g16_slot *s)
{
    zp__gpu_buf b = {(char *)s->big.ptr + s->scratch_off, s->big.bytes - s->scratch_off};
    return b;
}

/* The H MSM without the 0/1 split (zp__gpu_msm_g1_nosplit): its scalars
 * are random, so the split and its wait find nothing to skip (porep:27 on
 * the H200: 601.4 -> 598.7 ms). ZKPIPE_MSM_H_NOSPLIT=0 (read once) splits. */
static bool h_nosplit(void)
{
    static _Atomic unsigned cached;
    return knob_cached(&cached, "ZKPIPE_MSM_H_NOSPLIT", 1, 1) == 1;
}

/* Σ sc[i]·p[i] for i < n, chunk_points(false) points at a time; without
 * the 0/1 split unless `split`. */
zp_err zp__g16_slot_msm_g1(zp__g16_slot *s, zp_g1_jac *out, const zp__gpu_buf *p,
                           const zp_fr *sc, uint64_t n, bool split)
{
    const zp_g1_affine *pts = p->ptr;
    const uint64_t chunk = chunk_points(false);
    zp_g1_jac_inf(out);
    for (uint64_t off = 0; off < n; off += chunk) {
        zp_g1_jac part, sum;
        zp_err e = (split ? zp__gpu_msm_g1 : zp__gpu_msm_g1_nosplit)(
            s->st, &part, pts + off, sc + off, min_u64(n - off, chunk), msm_scratch(s));
        if (e)
            return e;
        phases_print(s, "G1", min_u64(n - off, chunk));
        zp_g1_jac_add(&sum, out, &part);
        *out = sum;
    }
    return ZP_OK;
}

bool zp__g16_msm_w(void)
{
    static _Atomic unsigned cached;
    return knob_cached(&cached, "ZKPIPE_MSM_W", 1, 1) == 1;
}

zp_err zp__g16_slot_msm_g1_w(zp__g16_slot *s, zp_g1_jac *out, const zp_g1_affine *p,
                             const zp_fr *w, uint64_t from, uint64_t to)
{
    const uint64_t chunk = chunk_points(false);
    zp_g1_jac_inf(out);
    for (uint64_t off = from; off < to; off += chunk) {
        const uint64_t len = min_u64(to - off, chunk);
        const zp__gpu_wsc sc = {w, NULL, NULL, off, len};
        zp_g1_jac part, sum;
        zp_err e = zp__gpu_msm_g1_w(s->st, &part, p + (off - from), &sc, len, msm_scratch(s));
        if (e)
            return e;
        phases_print(s, "G1 w", len);
        zp_g1_jac_add(&sum, out, &part);
        *out = sum;
    }
    return ZP_OK;
}

/* The H MSM (its scalars at the start of big): over the key's H table
 * where it has one and the slot's scratch holds that MSM's layout, else
 * over the points. */
static zp_err msm_h(zp__g16_slot *s, const zp__g16_dkey *k, zp_g1_jac *out)
{
    const zp__pk *pk = k->pk;
    const zp__gpu_buf sc = msm_scratch(s);
    const uint64_t need = k->h_pre.ptr ? zp__gpu_msm_scratch_bytes_pre(pk->n_h, k->h_pre_c) : 0;
    s->took_pre = need && need <= sc.bytes;
    if (s->took_pre)
        return zp__gpu_msm_g1_pre(s->st, out, k->h_pre.ptr, k->h_pre_c, s->big.ptr, pk->n_h, sc);
    return zp__g16_slot_msm_g1(s, out, &k->p_h, s->big.ptr, pk->n_h, !h_nosplit());
}

/* The L MSM: over all of w's L scalars, or what eval's zp__g16_parts_put
 * left plus the sum it made. */
static zp_err msm_l(zp__g16_slot *s, const zp__g16_dkey *k, zp_g1_jac *out)
{
    const zp__pk *pk = k->pk;
    if (s->l_split)
        return zp__g16_parts_msm_l(s, k, out);
    if (zp__g16_msm_w())
        return zp__g16_slot_msm_g1_w(s, out, k->p_l.ptr, s->w.ptr, pk->n_public + 1, pk->n_vars);
    return zp__g16_slot_msm_g1(s, out, &k->p_l, (zp_fr *)s->w.ptr + pk->n_public + 1, pk->n_l,
                               true);
}

/* The A MSM: over w through A's density where one MSM takes all of A;
 * else, or without zp__g16_msm_w, over A's scalars gathered into sc. */
static zp_err msm_a(zp__g16_slot *s, const zp__g16_dkey *k, zp_fr *sc, zp_g1_jac *out)
{
    const zp__pk *pk = k->pk;
    const bool mw = zp__g16_msm_w();
    if (mw && pk->n_a <= chunk_points(false)) {
        const zp__gpu_wsc ws = {s->w.ptr, k->a_words.ptr, k->a_rank.ptr, 0, pk->n_vars};
        zp_err e = zp__gpu_msm_g1_w(s->st, out, k->p_a.ptr, &ws, pk->n_a, msm_scratch(s));
        if (!e)
            phases_print(s, "G1 w density", pk->n_a);
        return e;
    }
    zp_err e = zp__gpu_fr_gather(s->st, sc, s->w.ptr, pk->n_vars, k->a_words.ptr, k->a_rank.ptr);
    if (e)
        return e;
    return mw ? zp__g16_slot_msm_g1_w(s, out, k->p_a.ptr, sc, 0, pk->n_a)
              : zp__g16_slot_msm_g1(s, out, &k->p_a, sc, pk->n_a, true);
}

/* The B2 MSM over sc[0, n) (Montgomery with zp__g16_msm_w, else standard). */
static zp_err msm_g2(zp__g16_slot *s, zp_g2_jac *out, const zp__gpu_buf *p, const zp_fr *sc,
                     uint64_t n)
{
    const zp_g2_affine *pts = p->ptr;
    const uint64_t chunk = chunk_points(true);
    const bool mw = zp__g16_msm_w();
    zp_g2_jac_inf(out);
    for (uint64_t off = 0; off < n; off += chunk) {
        zp_g2_jac part, sum;
        const uint64_t len = min_u64(n - off, chunk);
        const zp__gpu_wsc ws = {sc, NULL, NULL, off, len};
        zp_err e = mw ? zp__gpu_msm_g2_w(s->st, &part, pts + off, &ws, len, msm_scratch(s))
                      : zp__gpu_msm_g2(s->st, &part, pts + off, sc + off, len, msm_scratch(s));
        if (e)
            return e;
        phases_print(s, "G2", len);
        zp_g2_jac_add(&sum, out, &part);
        *out = sum;
    }
    return ZP_OK;
}

/* The witness the hook gave (s->want) up into w on the copy stream, after
 * what the slot's stream has enqueued so far (the last reads of w). */
static zp_err send_next(zp__g16_slot *s, const zp__g16_dkey *k)
{
    if (!s->want && s->next) /* none during h: perhaps now */
        s->want = s->next(s->next_ctx, ZP_G16_NEXT_SEND);
    const zp_fr *w = s->want;
    s->want = NULL;
    if (!w || s->pack)
        return ZP_OK; /* a packed witness goes up in eval, with its unpacking */
    zp_err e = zp__gpu_stream_after(s->cp, s->st);
    if (!e)
        e = zp__gpu_upload(s->cp, s->w.ptr, w, (uint64_t)k->pk->n_vars * sizeof(zp_fr));
    if (!e)
        s->sent = w;
    return e;
}

zp_err zp__g16_slot_msm(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_sums *out,
                        zp__prove_times *t)
{
    const zp__pk *pk = k->pk;
    zp__prove_times dummy;
    if (!t)
        t = &dummy;
    zp_fr *w = s->w.ptr, *sc = s->sab.ptr ? s->sab.ptr : s->big.ptr;
    double t0 = zp__g16_now(), t1, t2, t3, t4, t5;
    /* H first: its scalars occupy a, where the gathers go next. Then L, A
     * and B's gather, the last reads of the witness, so that the next one
     * can go up into w during B1 and B2 (send_next). With zp__g16_msm_w the
     * witness stays Montgomery: L and A read it where it lies, B1 and B2
     * read B's gathered copy in that form. On the H200 that took a lone
     * porep:27 partition from 1231.7 / 1233.1 to 1228.7 / 1227.1 ms (A 1.6
     * and L 2.1 ms shorter: no gather of A, no conversion pass;
     * bench/RESULTS.md, session 23). */
    const bool mw = zp__g16_msm_w();
    zp_err e = msm_h(s, k, &out->h);
    t1 = zp__g16_now();
    if (!e && !mw)
        e = zp__gpu_fr_from_mont(s->st, w, w, pk->n_vars);
    if (!e)
        e = msm_l(s, k, &out->l);
    t2 = zp__g16_now();
    if (!e)
        e = msm_a(s, k, sc, &out->a);
    t3 = zp__g16_now();
    /* The A MSM has waited for the stream: its scalars may be replaced. */
    if (!e)
        e = zp__gpu_fr_gather(s->st, sc, w, pk->n_vars, k->b_words.ptr, k->b_rank.ptr);
    if (!e)
        e = send_next(s, k);
    if (!e)
        e = mw ? zp__g16_slot_msm_g1_w(s, &out->b1, k->p_b1.ptr, sc, 0, pk->n_b)
               : zp__g16_slot_msm_g1(s, &out->b1, &k->p_b1, sc, pk->n_b, true);
    t4 = zp__g16_now();
    if (!e)
        e = msm_g2(s, &out->b2, &k->p_b2, sc, pk->n_b);
    t5 = zp__g16_now();
    t->msm_h = t1 - t0;
    t->msm_l = t2 - t1;
    t->msm_a = t3 - t2;
    t->msm_b1 = t4 - t3;
    t->msm_b2 = t5 - t4;
    s->want = NULL;
    if (e)
        zp__gpu_stream_sync(s->st); /* leave nothing running on failure */
    return e;
}

static zp_err stage_fail(zp__ioerr *why, zp_err e, const char *stage)
{
    return zp__fail(why, e, "GPU %s stage failed: %s (%s)", stage, zp_errname(e),
                    zp__gpu_last_error());
}

zp_err zp__g16_slot_sums(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w,
                         zp__g16_sums *out, zp__prove_times *t, zp__ioerr *why)
{
    return zp__g16_slot_sums_next(s, k, w, false, NULL, NULL, out, t, why);
}

zp_err zp__g16_slot_sums_next(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w,
                              bool w_sent, zp__g16_next_fn next, void *ctx,
                              zp__g16_sums *out, zp__prove_times *t, zp__ioerr *why)
{
    zp__prove_times dummy;
    if (!t)
        t = &dummy;
    s->want = NULL;
    if (zp__g16_slot_check(s, k))
        return zp__fail(why, ZP_E_INVALID_ARG,
                        "the key is on another device or larger than the slot");
    double t0 = zp__g16_now();
    zp_err e = eval_w(s, k, w, w_sent, true);
    double t1 = zp__g16_now();
    t->eval = t1 - t0;
    if (e)
        return stage_fail(why, e, "eval");
    e = h_enqueue(s, k);
    if (!e && next) /* host work while the device runs h */
        s->want = next(ctx, ZP_G16_NEXT_H);
    zp_err es = zp__gpu_stream_sync(s->st);
    e = e ? e : es;
    t->h = zp__g16_now() - t1;
    if (e)
        return stage_fail(why, e, "h");
    s->next = next; /* asked again where the witness could go (send_next) */
    s->next_ctx = ctx;
    e = zp__g16_slot_msm(s, k, out, t);
    s->next = NULL;
    s->next_ctx = NULL;
    return e ? stage_fail(why, e, "msm") : ZP_OK;
}
