/*
 * What the synthetic-circuit files share: a small random generator, the
 * constants the gadgets use, and a row writer that fills
 * CSR arrays at offsets known in advance. Internal to src/r1cs/.
 */
#ifndef ZP_SYNTH_IMPL_H
#define ZP_SYNTH_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "r1cs/synth.h"

/* splitmix64: one 64-bit state, good enough statistics for test data and
 * fast; seeded per block so that blocks can be filled in parallel. */
static inline uint64_t zp__sm64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A state for stream `index` of purpose `tag` under `seed`. */
static inline uint64_t zp__sm64_seed(uint64_t seed, uint64_t tag, uint64_t index)
{
    uint64_t s = seed ^ (tag * 0xd1b54a32d192ed03ULL);
    uint64_t a = zp__sm64(&s);
    s = a ^ (index * 0x8cb92ba72f3d8dd7ULL);
    zp__sm64(&s);
    return s;
}

/* Uniform in [0, n) for n >= 1 (the bias of a 64-bit multiply-shift is far
 * below anything a test could see). */
static inline uint64_t zp__sm64_below(uint64_t *state, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)zp__sm64(state) * n) >> 64);
}

/* A uniform field element (any value < r is a valid Montgomery form). */
void zp__synth_rand_fr(zp_fr *out, uint64_t *state);

/* Constants the gadgets write, in Montgomery form. */
typedef struct zp__synth_consts {
    zp_fr zero, one, minus_one, two;
    zp_fr pow2[32]; /* 2^i */
} zp__synth_consts;

void zp__synth_consts_init(zp__synth_consts *k);

#define zp__synth_par_for zp__r1cs_par_for

/* Writes rows of one matrix starting at a known row and entry offset. A
 * writer whose m is NULL drops everything (C when it is not kept). */
typedef struct zp__rw {
    zp__csr *m;
    uint64_t pos;
} zp__rw;

static inline void zp__rw_put(zp__rw *w, uint32_t col, const zp_fr *val)
{
    if (w->m) {
        w->m->col[w->pos] = col;
        w->m->val[w->pos] = *val;
    }
    w->pos++;
}

/* Ends row `row`: its entries are those put since the previous end. */
static inline void zp__rw_end(zp__rw *w, uint64_t row)
{
    if (w->m)
        w->m->row_ptr[row + 1] = w->pos;
}

/* The fixed seed of every circuit's constants (a key made for a spec must
 * fit the circuit regenerated later). */
#define ZP__SYNTH_CIRCUIT_SEED 0x7a6b70697065ULL /* "zkpipe" */

/* Per-circuit entry points; the spec is already validated. */
zp_err zp__porep_shape(zp__synth_shape *out, unsigned log2);
zp_err zp__porep_fill(zp__r1cs *cs, const zp__synth_spec *s);
zp_err zp__porep_witness(zp_fr *w, const zp__r1cs *cs, const zp__synth_spec *s, uint64_t seed);
void zp__dense_shape(zp__synth_shape *out, unsigned log2);
zp_err zp__dense_fill(zp__r1cs *cs, const zp__synth_spec *s);
zp_err zp__dense_witness(zp_fr *w, const zp__r1cs *cs, const zp__synth_spec *s, uint64_t seed);
void zp__chain_shape(zp__synth_shape *out, unsigned log2);
zp_err zp__chain_fill(zp__r1cs *cs, const zp__synth_spec *s);
zp_err zp__chain_witness(zp_fr *w, const zp__r1cs *cs, const zp__synth_spec *s, uint64_t seed);

#endif
