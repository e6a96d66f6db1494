/*
 * The schedule of a streaming key's five MSMs (prove_gpu_sched.c), made on
 * the host for key shapes, plans and ring sizes, without a GPU: every
 * point of every MSM in exactly one chunk, streamed chunks no longer than
 * a buffer and resident ones no longer than a slot's chunk, H's first
 * chunk first and the witness MSMs done before H's last, and the pairs
 * summed as one MSM sound (the same MSM over the witness, its next points,
 * both streamed, in buffers side by side inside the ring, within a slot's
 * chunk).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "groth16/prove_gpu_slot_impl.h"
#include "groth16/sched_tune.h"
#include "gpu/wpack.h"

enum { S_H, S_L, S_A, S_B1, S_B2, S_N };

static const zp__g16_part part_of[S_N] = {ZP_G16_P_H, ZP_G16_P_L, ZP_G16_P_A, ZP_G16_P_B1,
                                          ZP_G16_P_B2};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A key's host part with only what a schedule reads: the counts and the
 * density maps (A over all but about a sixteenth of the variables, B over
 * about a quarter). */
static bool make_pk(zp__pk *pk, uint32_t n_vars, uint64_t domain)
{
    memset(pk, 0, sizeof *pk);
    pk->n_vars = n_vars;
    pk->n_public = 3;
    pk->domain_size = domain;
    pk->n_h = domain;
    pk->n_l = n_vars - pk->n_public - 1;
    if (zp__bitmap_alloc(&pk->a_density, n_vars) || zp__bitmap_alloc(&pk->b_density, n_vars))
        return false;
    for (uint32_t v = 0; v < n_vars; v++) {
        const uint64_t r = rnd64();
        if (r % 16) {
            pk->a_density.words[v / 64] |= 1ull << (v % 64);
            pk->n_a++;
        }
        if ((r >> 8) % 4 == 0) {
            pk->b_density.words[v / 64] |= 1ull << (v % 64);
            pk->n_b++;
        }
    }
    return true;
}

static uint64_t count_of(const zp__pk *pk, unsigned m)
{
    return zp__g16_part_count(pk, part_of[m]);
}

/* Whether s sends the witness packed for keys of pk's shape: a lean slot
 * whose c region has room past the witness for a pack's table. */
static bool packs_of(const zp__pk *pk, const zp__g16_slot *s)
{
    const uint64_t w = (uint64_t)pk->n_vars * 32, chunks = zp__wpack_chunks(pk->n_vars);
    const uint64_t room = s->lean && s->witness.bytes > w ? (s->witness.bytes - w) & ~255ull : 0;
    return room > zp__wpack_table_bytes(chunks);
}

/* The invariants of a schedule listed (v, n) for a key of pk with res
 * resident points: every point once, in each MSM's order; streamed chunks
 * a buffer at most past the resident prefix, resident ones a slot's chunk
 * at most inside it; H's first chunk first and the witness MSMs done
 * before H's last, and with span_tail before H's last quarter (a tenth
 * where the slot sends the next witness packed: it crosses while H's tail
 * runs); the pairs sound. *pairs gets the pairs. */
static bool sound(const zp__pk *pk, const uint64_t *res, const zp__g16_slot *s, uint64_t ring,
                  const zp__g16_sched_entry *v, size_t n, bool span_tail, unsigned *pairs_out)
{
    const uint64_t buf_bytes = (2 * zp__g16_arena_round(ring) / ZP_G16_RING_BUFS) & ~(uint64_t)255;
    bool ok = true;
    /* Every point once: each MSM's chunks, in schedule order, follow one
     * another from 0 to its count (a schedule keeps each MSM's points in
     * order). */
    uint64_t next[S_N] = {0};
    size_t last_w = 0, last_h = 0, n_h = 0;
    for (size_t j = 0; j < n; j++) {
        const zp__g16_sched_entry *x = &v[j];
        if (x->msm >= S_N) {
            ok = false;
            break;
        }
        const zp__g16_part i = part_of[x->msm];
        const uint64_t size = zp__g16_part_size(i);
        ok = ok && x->p == next[x->msm] && x->len > 0;
        next[x->msm] = x->p + x->len;
        /* Streamed past the resident prefix, a buffer at most; resident
         * inside it, a slot's chunk at most. */
        if (x->streamed)
            ok = ok && x->p >= res[i] && x->len * size <= buf_bytes;
        else
            ok = ok && x->p + x->len <= res[i] &&
                 x->len <= zp__g16_slot_chunk(s, i == ZP_G16_P_B2);
        if (x->msm == S_H) {
            last_h = j;
            n_h++;
        } else
            last_w = j;
    }
    for (unsigned m = 0; m < S_N; m++)
        ok = ok && next[m] == count_of(pk, m);
    ok = ok && v[0].msm == S_H;
    /* The witness MSMs end before H's last chunk where H has a few, and
     * before its tail. */
    ok = ok && (n_h < 4 || last_w < last_h);
    size_t tail = 0;
    for (size_t j = last_w + 1; j < n; j++)
        tail += v[j].msm == S_H;
    const double span = packs_of(pk, s) ? 0.9 : 0.75;
    ok = ok && (!span_tail || n_h < 4 || tail >= (size_t)((double)n_h * (1 - span)));
    /* The pairs. */
    bool pairs_ok = true;
    unsigned pairs = 0;
    for (size_t j = 0, q = 0; j < n; j++) {
        const zp__g16_sched_entry *x = &v[j];
        if (x->pair == 1) {
            const zp__g16_sched_entry *y = j + 1 < n ? &v[j + 1] : NULL;
            pairs_ok = pairs_ok && y && y->pair == 2 && x->streamed && y->streamed &&
                       x->msm != S_H && y->msm == x->msm && y->p == x->p + x->len &&
                       q % ZP_G16_RING_BUFS != ZP_G16_RING_BUFS - 1 &&
                       x->len + y->len <= zp__g16_slot_chunk(s, x->msm == S_B2);
            pairs++;
        } else if (x->pair == 2) {
            pairs_ok = pairs_ok && j > 0 && v[j - 1].pair == 1;
        } else {
            pairs_ok = pairs_ok && x->pair == 0;
        }
        q += x->streamed;
    }
    *pairs_out = pairs;
    return ok && pairs_ok;
}

/* The model's units for a listed schedule with made-up times (see
 * check_sched); ms[j] per entry as zp__g16_sched_retune takes them. */
static size_t units_of(const zp__g16_sched_entry *v, size_t n, double *ms, zp__sched_unit *u)
{
    size_t nu = 0;
    for (size_t j = 0; j < n; j++) {
        const zp__g16_sched_entry *x = &v[j];
        bool last = true; /* the MSM's last chunk */
        for (size_t i = j + 1; i < n; i++)
            if (v[i].msm == x->msm)
                last = false;
        const unsigned bufs = x->streamed ? (x->pair == 1 ? 2u : 1u) : 0u;
        ms[j] = x->pair == 2 ? 0 : x->msm == S_H || last ? 60 : 5.0 * (bufs ? bufs : 1);
        if (x->pair == 2)
            continue;
        u[nu].h = x->msm == S_H;
        u[nu].pair = x->pair == 1;
        u[nu].bufs = bufs;
        u[nu].ms = ms[j];
        nu++;
    }
    return nu;
}

static void retune_check(const char *what, const zp__pk *pk, const uint64_t *res,
                         zp__g16_slot *s, const zp__g16_dkey *k, uint64_t ring,
                         const zp__g16_sched_entry *v, size_t n)
{
    double *ms = calloc(n, sizeof *ms);
    zp__sched_unit *u = calloc(n, sizeof *u);
    CHECK(ms && u);
    if (!ms || !u) {
        free(ms);
        free(u);
        return;
    }
    const size_t nu = units_of(v, n, ms, u);
    const uint64_t gen = s->sched_gen;
    const bool changed = zp__g16_sched_retune(s, k, ms, 80);
    CHECK(changed == (s->sched_gen != gen));
    size_t n2 = 0;
    zp__g16_sched_entry *v2 = zp__g16_sched_list(s, k, &n2);
    unsigned pairs = 0;
    /* the next witness's copy in buffers, as the slot weighs it (0: H's
     * tail kept as made) */
    const uint64_t buf = (2 * zp__g16_arena_round(ring) / ZP_G16_RING_BUFS) & ~(uint64_t)255;
    const double tail = (double)s->next_bytes / (double)buf;
    CHECK(v2 && n2 == n && sound(pk, res, s, ring, v2, n2, tail == 0, &pairs));
    if (changed && v2 && n2 == n) {
        /* the same copy time the slot found, over the new order's units
         * (the same units: the pairs move with their chunks) */
        double *ms2 = calloc(n, sizeof *ms2);
        zp__sched_unit *u2 = calloc(n, sizeof *u2);
        CHECK(ms2 && u2);
        if (ms2 && u2) {
            const size_t nu2 = units_of(v2, n2, ms2, u2);
            const double copy = zp__sched_copy_ms(u, nu, ZP_G16_RING_BUFS, tail, 80);
            const double before =
                zp__sched_replay(u, NULL, nu, copy, ZP_G16_RING_BUFS, tail, NULL);
            const double after =
                zp__sched_replay(u2, NULL, nu2, copy, ZP_G16_RING_BUFS, tail, NULL);
            printf("  %-34s retuned (witness %.2f buffers): %.1f -> %.1f ms modelled\n", what,
                   tail, before, after);
            CHECK(copy > 0 && nu2 == nu && after < before);
        }
        free(ms2);
        free(u2);
    }
    free(v2);
    free(ms);
    free(u);
}

/* Checks one schedule; returns its pairs. */
static unsigned check_sched(const char *what, const zp__pk *pk, const uint64_t *res,
                            uint64_t ring, bool lean)
{
    zp__g16_dkey k;
    memset(&k, 0, sizeof k);
    k.pk = pk;
    k.ring_buffer = ring;
    for (int i = 0; i < ZP_G16_NP; i++)
        k.res[i] = res[i];
    zp__g16_slot *s = calloc(1, sizeof *s);
    if (!s) {
        CHECK(0);
        return 0;
    }
    s->ring_buffer = ring;
    s->lean = lean;
    /* a lean slot's witness region: c's third of the work region */
    s->witness.bytes = lean ? pk->domain_size * 32 : 0;
    size_t n = 0;
    zp__g16_sched_entry *v = zp__g16_sched_list(s, &k, &n);
    CHECK(v != NULL && n > 0);
    if (!v) {
        free(s);
        return 0;
    }
    /* The list again is the same (kept, not made anew). */
    size_t n2 = 0;
    zp__g16_sched_entry *v2 = zp__g16_sched_list(s, &k, &n2);
    bool same = v2 && n2 == n;
    for (size_t j = 0; same && j < n; j++)
        same = v2[j].msm == v[j].msm && v2[j].pair == v[j].pair &&
               v2[j].streamed == v[j].streamed && v2[j].p == v[j].p && v2[j].len == v[j].len;
    CHECK(same);
    free(v2);
    /* Another key at the same address (this one freed, its address given
     * again) with another id: a schedule of its own, here with every
     * point streamed, not this key's. */
    {
        const uint64_t none[ZP_G16_NP] = {0};
        zp__g16_dkey was = k;
        memcpy(k.res, none, sizeof none);
        k.id = 1000;
        size_t n4 = 0;
        unsigned p4 = 0;
        zp__g16_sched_entry *v4 = zp__g16_sched_list(s, &k, &n4);
        CHECK(v4 && sound(pk, none, s, ring, v4, n4, true, &p4));
        free(v4);
        k = was;
        v4 = zp__g16_sched_list(s, &k, &n4); /* this key's again */
        CHECK(v4 && n4 == n);
        free(v4);
    }

    unsigned pairs = 0;
    const bool ok = sound(pk, res, s, ring, v, n, true, &pairs);
    CHECK(ok);
    /* H's chunks placed again from a run's times (zp__g16_sched_retune):
     * H 60 ms, a witness chunk 5 ms a buffer, each witness MSM's last
     * chunk 60 ms (a porep witness's dense tail), a run that waited 80 ms;
     * the schedule stays sound, and a streaming one that changed
     * ends no later by the model than before. */
    retune_check(what, pk, res, s, &k, ring, v, n);
    /* And again from the schedule as made, with the next witness's copy
     * modelled: the bytes a packed send moves (about a ninth of porep's
     * witness) where the slot packs, else the plain witness. */
    free(s->sched);
    s->sched = NULL;
    s->next_bytes = (uint64_t)pk->n_vars * 32 / (packs_of(pk, s) ? 9 : 1);
    size_t n3 = 0;
    zp__g16_sched_entry *v3 = zp__g16_sched_list(s, &k, &n3);
    CHECK(v3 && n3 == n);
    if (v3 && n3 == n)
        retune_check(what, pk, res, s, &k, ring, v3, n3);
    free(v3);
    printf("  %-34s %6zu chunks, %4u pairs %s\n", what, n, pairs, ok ? "ok" : "WRONG");
    free(v);
    free(s->sched);
    free(s);
    return pairs;
}

static void test_shapes(void)
{
    static const struct {
        uint32_t n_vars;
        uint64_t domain;
    } shapes[] = {{1000, 1024}, {16000, 16384}, {70000, 65536}, {5000, 8192}};
    static const uint64_t rings[] = {4096, 8192, 65536, 1u << 20};
    unsigned all_streamed_pairs = 0;
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
        zp__pk pk;
        CHECK(make_pk(&pk, shapes[si].n_vars, shapes[si].domain));
        for (size_t ri = 0; ri < sizeof rings / sizeof *rings; ri++) {
            char what[64];
            /* Every point streamed. */
            uint64_t none[ZP_G16_NP] = {0};
            snprintf(what, sizeof what, "vars %u ring %llu: all streamed", shapes[si].n_vars,
                     (unsigned long long)rings[ri]);
            all_streamed_pairs += check_sched(what, &pk, none, rings[ri], false);
            /* Parts resident: all of H and L, a third of A (L first, or H
             * first where whole: gpu_plan.c). */
            uint64_t part[ZP_G16_NP] = {0};
            part[ZP_G16_P_L] = pk.n_l / 2;
            snprintf(what, sizeof what, "vars %u ring %llu: half of L", shapes[si].n_vars,
                     (unsigned long long)rings[ri]);
            check_sched(what, &pk, part, rings[ri], true);
            part[ZP_G16_P_L] = pk.n_l;
            part[ZP_G16_P_H] = pk.n_h;
            part[ZP_G16_P_A] = pk.n_a / 3;
            snprintf(what, sizeof what, "vars %u ring %llu: H, L, A/3", shapes[si].n_vars,
                     (unsigned long long)rings[ri]);
            check_sched(what, &pk, part, rings[ri], false);
        }
        zp__bitmap_free(&pk.a_density);
        zp__bitmap_free(&pk.b_density);
    }
    /* Buffers of a few points: pairs where chunks of one MSM follow one
     * another. */
    CHECK(all_streamed_pairs > 0);
}

/* The copy model by hand: a ring of one buffer, copies of 10 ms, two
 * chunks of 5 ms: the second's copy starts when the first has run (5),
 * is done at 15, and the second waits 10 and ends at 20. A resident chunk
 * waits for nothing. */
static void test_model_hand(void)
{
    zp__sched_unit u[3] = {{false, false, 1, 5}, {false, false, 1, 5}, {true, false, 0, 7}};
    double wait = -1;
    CHECK(zp__sched_replay(u, NULL, 2, 10, 1, 0, &wait) == 20 && wait == 10);
    CHECK(zp__sched_replay(u, NULL, 3, 10, 1, 0, &wait) == 27 && wait == 10);
    /* two buffers: the second was filled before the start */
    CHECK(zp__sched_replay(u, NULL, 2, 10, 2, 0, &wait) == 10 && wait == 0);
    /* the copy time that waits 10 ms is 10 ms */
    const double c = zp__sched_copy_ms(u, 2, 1, 0, 10);
    CHECK(c > 9.999 && c < 10.001);
    CHECK(zp__sched_copy_ms(u, 2, 1, 0, 0) == 0); /* nothing waited: no copy time to find */
    /* The next witness, 1.5 buffers (15 ms), after the last witness unit
     * (the second, done at 20, the bus free): it arrives at 35, after the
     * H unit's end (27), so the schedule ends then. */
    CHECK(zp__sched_replay(u, NULL, 3, 10, 1, 1.5, &wait) == 35 && wait == 10);
    /* The H unit first, then the two witness units over one buffer: unit
     * 1 runs 7..12, the buffer is refilled 12..22, unit 2 waits for it and
     * runs 22..27, and only then the witness crosses, 27..37. */
    zp__sched_unit h_first[3] = {{true, false, 0, 7}, {false, false, 1, 5}, {false, false, 1, 5}};
    CHECK(zp__sched_replay(h_first, NULL, 3, 10, 1, 1, &wait) == 37 && wait == 10);
    /* no witness unit: the witness crosses first, ahead of every refill */
    zp__sched_unit only_h[2] = {{true, false, 1, 7}, {true, false, 1, 7}};
    /* unit 0 (prefilled) 0..7; the witness 0..10 on the bus, then unit 1's
     * buffer (its copy after unit 0 ran, the bus free at 10) 10..20; unit 1
     * 20..27 */
    CHECK(zp__sched_replay(only_h, NULL, 2, 10, 1, 1, &wait) == 27 && wait == 13);
}

/* Every place of H's units among the others, within the constraints
 * (the first H first, H's units from tail_from on after every witness
 * unit, no pair from the ring's last buffer): the best end by the model
 * (the next witness's copy wb buffers), by enumeration. */
static double best_by_enumeration(const zp__sched_unit *u, size_t n, double copy, unsigned ring,
                                  double wb, const size_t *hs, size_t nh, const size_t *ws,
                                  size_t nw, size_t tail_from, size_t *pos, size_t h,
                                  size_t *order)
{
    if (h == nh) {
        size_t o = 0, w = 0;
        for (size_t i = 0; i < nh; i++) {
            for (; w < pos[i]; w++)
                order[o++] = ws[w];
            order[o++] = hs[i];
        }
        for (; w < nw; w++)
            order[o++] = ws[w];
        for (size_t i = 0, q = 0; i < n; q += u[order[i]].bufs, i++)
            if (u[order[i]].pair && q % ring == ring - 1)
                return 1e300;
        return zp__sched_replay(u, order, n, copy, ring, wb, NULL);
    }
    const size_t lo = h ? pos[h - 1] : 0;
    const size_t hi = h == 0 && u[0].h ? 0 : nw;
    double best = 1e300;
    for (size_t p = h >= tail_from ? nw : lo; p <= hi; p++) {
        pos[h] = p;
        const double e = best_by_enumeration(u, n, copy, ring, wb, hs, nh, ws, nw, tail_from,
                                             pos, h + 1, order);
        best = e < best ? e : best;
    }
    return best;
}

/* zp__sched_tune against the model: on random small schedules (an H
 * first, H 40-80 ms, witness chunks 2-10 ms or a dense 30-120 ms, some
 * pairs, some resident, a tail of one to three H units) its order is a
 * permutation that keeps both groups' orders and the constraints (the
 * tail's H units after every witness unit), ends as its replay says, no
 * later than the order given, and no sooner than the best of every
 * placement. */
static void test_tune_random(void)
{
    enum { N = 14 };
    unsigned better = 0;
    for (int round = 0; round < 300; round++) {
        zp__sched_unit u[N];
        size_t n = 6 + rnd64() % (N - 5), nh = 0, nw = 0, hs[N], ws[N], pos[N], order[N], out[N];
        const size_t tail = 1 + rnd64() % 3;
        for (size_t i = 0; i < n; i++) {
            const bool h = i == 0 || (i + tail >= n) || rnd64() % 3 == 0;
            u[i].h = h;
            u[i].pair = !h && rnd64() % 4 == 0;
            u[i].bufs = u[i].pair ? 2 : (!h && rnd64() % 6 == 0) ? 0 : 1;
            u[i].ms = h ? 40 + (double)(rnd64() % 41)
                        : rnd64() % 5 == 0 ? 30 + (double)(rnd64() % 91) : 2 + (double)(rnd64() % 9);
            if (h)
                hs[nh++] = i;
            else
                ws[nw++] = i;
        }
        const double copy = 10 + (double)(rnd64() % 30);
        /* the next witness's copy modelled in half the rounds */
        const double wb = round % 2 ? 0.5 * (double)(rnd64() % 8) : 0;
        const double given = zp__sched_replay(u, NULL, n, copy, 4, wb, NULL);
        const double end = zp__sched_tune(u, n, copy, 4, wb, out);
        bool ok = end <= given + 1e-9;
        bool seen[N] = {false};
        for (size_t i = 0; i < n; i++) {
            ok = ok && out[i] < n && !seen[out[i]];
            if (out[i] < n)
                seen[out[i]] = true;
        }
        /* The tail as given, the H units after the last witness unit,
         * stays where the witness's copy is not modelled; else the last H
         * unit only. */
        size_t tail_from = nh;
        while (tail_from > 0 && hs[tail_from - 1] > (nw ? ws[nw - 1] : 0))
            tail_from--;
        if (wb > 0 && tail_from < nh)
            tail_from = nh - 1;
        size_t lh = 0, lw = 0, last_h = 0, last_w = 0, q = 0;
        for (size_t i = 0; ok && i < n; i++) {
            const size_t x = out[i];
            if (u[x].h) {
                ok = ok && x == hs[lh++];
                last_h = i;
                if (lh - 1 >= tail_from)
                    ok = ok && lw == nw; /* a tail unit: after every witness unit */
            } else {
                ok = ok && x == ws[lw++];
                last_w = i;
            }
            if (u[x].pair && q % 4 == 3 && end < given)
                ok = false; /* a new order never starts a pair in the last buffer */
            q += u[x].bufs;
        }
        if (end < given)
            ok = ok && out[0] == 0 && (nh < 2 || nw == 0 || last_w < last_h);
        const double again = zp__sched_replay(u, out, n, copy, 4, wb, NULL);
        ok = ok && again > end - 1e-9 && again < end + 1e-9;
        const double best =
            best_by_enumeration(u, n, copy, 4, wb, hs, nh, ws, nw, tail_from, pos, 0, order);
        ok = ok && (end >= best - 1e-9 || end == given);
        better += end < given;
        CHECK(ok);
    }
    printf("  %u of 300 random schedules found a sooner order\n", better);
    CHECK(better > 0);
}

int main(void)
{
    RUN(test_model_hand);
    RUN(test_tune_random);
    RUN(test_shapes);
    return FINISH();
}
