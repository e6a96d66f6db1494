/*
 * Synthetic circuits "synth:NAME:LOG2" (docs/architecture.md, Synthetic circuits): a satisfiable R1CS of
 * a given shape and fresh satisfying witnesses, for tests and benchmarks.
 *
 *  porep  the shape of one 32 GiB PoRep partition at LOG2 = 27: 130,278,869
 *         constraints, 328 public inputs, 130,169,893 aux variables, nnz
 *         A/B/C ~ 309 M / 130 M / 283 M, 99.7 % of aux in A, 25.4 % in B,
 *         ~90 % of aux values 0 or 1. Smaller LOG2 keeps the ratios.
 *         LOG2 in 8..28.
 *  dense  chains x' = (x + c)(y + d) of random field values: no 0/1 bias,
 *         almost every variable in A and in B. Fills the domain. LOG2 2..28.
 *  chain  circom's classic benchmark: x_{i+1} = x_i^2 + b, one long chain
 *         from the public input x_0. Fills the domain. LOG2 2..28.
 *
 * Every circuit satisfies constraints + public inputs + 1 <= 2^LOG2 (the
 * Groth16 domain, with bellperson's extra input rows). Variable 0 is ONE,
 * 1..n_public are the public inputs, and every public input is constrained.
 * Coefficients are Montgomery form. The circuit depends only on the spec
 * (its random constants come from a fixed seed), so a key made for a spec
 * fits the circuit regenerated later; witnesses depend on a seed.
 */
#ifndef ZP_SYNTH_H
#define ZP_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

#include "base/progress.h"
#include "r1cs/r1cs.h"
#include "zkpipe.h"

typedef enum zp__synth_kind {
    ZP__SYNTH_POREP = 1,
    ZP__SYNTH_DENSE = 2,
    ZP__SYNTH_CHAIN = 3,
} zp__synth_kind;

typedef struct zp__synth_spec {
    zp__synth_kind kind;
    unsigned log2;
    bool keep_c;  /* build C too (zp__r1cs_is_satisfied needs it); parse sets true */
    int threads;  /* <= 0: one per online CPU; parse sets 0 */
    /* Reports witness generation ("generating witness", in lanes); NULL
     * (parse sets it) is silent. */
    const zp__progress *progress;
} zp__synth_spec;

/* Counts of a circuit, known without building it (for sizing buffers). */
typedef struct zp__synth_shape {
    uint64_t n_constraints;
    uint32_t n_public;
    uint32_t n_vars; /* including ONE */
    uint64_t nnz_a, nnz_b, nnz_c;
} zp__synth_shape;

/*
 * Parses "synth:NAME:LOG2" (the "synth:" prefix may be left out): NAME one
 * of porep, dense, chain; LOG2 a decimal integer in the range of NAME.
 * ZP_E_INVALID_ARG for anything else (unknown name, missing or non-numeric
 * LOG2, out of range, trailing characters).
 */
zp_err zp__synth_parse(zp__synth_spec *out, const char *spec);

/* The counts of spec s; ZP_E_INVALID_ARG for a bad spec. */
zp_err zp__synth_shape_of(zp__synth_shape *out, const zp__synth_spec *s);

/*
 * Builds the circuit: A, B and (when s->keep_c) C in CSR, columns sorted
 * within each row. ZP_E_INVALID_ARG for a bad spec, ZP_E_NOMEM when the
 * arrays cannot be allocated (out is then zeroed). Free with zp__r1cs_free.
 */
zp_err zp__synth_circuit(zp__r1cs *out, const zp__synth_spec *s);

/*
 * Fills w[0 .. cs->n_vars) with a satisfying assignment (Montgomery form,
 * w[0] = 1) computed by evaluating the circuit's gadgets in order; operands
 * and constants are read from cs->a and cs->b (C is not needed). Different
 * seeds give different witnesses. Precondition: cs was built from s by
 * zp__synth_circuit; ZP_E_INVALID_ARG when its counts do not match s,
 * ZP_E_NOMEM when scratch cannot be allocated.
 */
zp_err zp__synth_witness(zp_fr *w, const zp__r1cs *cs, const zp__synth_spec *s, uint64_t seed);

#endif
