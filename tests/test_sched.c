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
    CHECK(ok);
    CHECK(v[0].msm == S_H);
    /* The witness MSMs end within the first three quarters: before H's
     * last chunk where H has a few. */
    CHECK(n_h < 4 || last_w < last_h);
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
    CHECK(pairs_ok);
    printf("  %-34s %6zu chunks, %4u pairs %s\n", what, n, pairs, ok && pairs_ok ? "ok" : "WRONG");
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

int main(void)
{
    RUN(test_shapes);
    return FINISH();
}
