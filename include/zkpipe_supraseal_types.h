/*
 * The caller-side types of supraseal-c2's C boundary, as bellperson (feature
 * cuda-supraseal) and Curio lay them out, shared by the two drop-in
 * libraries (zkpipe_supraseal_c2.h, zkpipe_supraseal_c2_curio.h;
 * docs/supraseal-c2.md).
 *
 * Field elements of Fr are 32 bytes, four little-endian 64-bit limbs in
 * Montgomery form (blst's fr_t): a, b, c, the assignments, r and s.
 * Coordinates of Fp are 48 bytes, six little-endian 64-bit limbs in
 * Montgomery form; a point at infinity is all zeros.
 */
#ifndef ZKPIPE_SUPRASEAL_TYPES_H
#define ZKPIPE_SUPRASEAL_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zp_ss_fr {
    uint64_t l[4];
} zp_ss_fr;

/*
 * One circuit: 17 eight-byte fields, 136 bytes. Bitmaps are 64-bit words,
 * bit j of word i is variable 64·i + j of its assignment (A over aux, B over
 * the inputs, B over aux), with the bit length and popcount given. a, b, c
 * are the per-constraint evaluations A·w, B·w, C·w, abc_size of them (the
 * circuit's rows, then one row x_i · 0 = 0 per input), not padded; the
 * input assignment starts with ONE.
 */
typedef struct zp_ss_assignment {
    const uint64_t *a_aux_density;
    size_t a_aux_bit_len;
    size_t a_aux_popcount;
    const uint64_t *b_inp_density;
    size_t b_inp_bit_len;
    size_t b_inp_popcount;
    const uint64_t *b_aux_density;
    size_t b_aux_bit_len;
    size_t b_aux_popcount;
    const zp_ss_fr *a;
    const zp_ss_fr *b;
    const zp_ss_fr *c;
    size_t abc_size;
    const zp_ss_fr *inp_assignment_data;
    size_t inp_assignment_size;
    const zp_ss_fr *aux_assignment_data;
    size_t aux_assignment_size;
} zp_ss_assignment;

/* 384 bytes: affine A (G1: x, y), B (G2: x.c0, x.c1, y.c0, y.c1), C (G1). */
typedef struct zp_ss_proof {
    uint64_t a[12];
    uint64_t b[24];
    uint64_t c[12];
} zp_ss_proof;

/* sppark's RustError, returned by value: code 0 for success; otherwise a
 * zkpipe error code (zp_err, negative) and a message the caller frees
 * with free(). */
typedef struct zp_ss_result {
    int code;
    char *message;
} zp_ss_result;

/* A handle to a loaded .params (SRS), one pointer wide. */
typedef struct zp_ss_srs {
    const void *ptr;
} zp_ss_srs;

#ifdef __cplusplus
}
#endif
#endif
