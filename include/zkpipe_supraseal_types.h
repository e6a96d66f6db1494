/*
 * The caller-side types of supraseal-c2's C boundary, as bellperson (feature
 * cuda-supraseal) and Curio lay them out, shared by the two drop-in
 * libraries (zkpipe_supraseal_c2.h, zkpipe_supraseal_c2_curio.h;
 * docs/supraseal-c2.md).
 *
 * The SRS calls are declared here too: both variants export them alike.
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

/*
 * The SRS calls, the same in both variants. create_SRS loads the
 * bellperson .params file at params_path (its name ending in .params;
 * every point checked on the curve and in its subgroup) into *ret. cache:
 * share one loaded copy among every cached handle of the same path (until
 * evict_SRS); else a copy of its own, freed with its last handle.
 * evict_SRS takes the SRS out of the cache and unloads it where no call
 * uses it; handles keep working (a later call loads it again). drop_SRS
 * drops a handle (NULL or a null handle: nothing); clone_SRS makes a
 * second one.
 */
zp_ss_result create_SRS(zp_ss_srs *ret, const char *params_path, bool cache);
void evict_SRS(const zp_ss_srs *srs);
void drop_SRS(const zp_ss_srs *srs);
zp_ss_srs clone_SRS(const zp_ss_srs *srs);

/*
 * zkpipe's own, not supraseal-c2's: the folder of the key cache (NULL or
 * "": none, the default). With it, a .params is parsed with every point
 * checked once; after the first call that proves with it, the checked key
 * is kept there as a .zpk (with the circuit's density maps, which that
 * call brings), and later create_SRS calls of the same file (name and
 * size) load it instead (section checksums, no point checks). Returns 0, or -1 for a folder name of 256 bytes or more.
 */
int zkpipe_supraseal_key_cache(const char *dir);

/*
 * zkpipe's own: the bytes of each GPU's arena, as `zkpipe serve --gpu-mem`
 * sets them (0, the default: the device's free memory less a small
 * reserve), for a card shared with other GPU work or a larger card run as
 * a smaller one; keys that do not fit stream from pinned host memory
 * (docs/gpu-memory.md). Takes effect when the first call opens the engine,
 * and an arena the GPUs cannot give then fails that call (no fallback to
 * the CPU). Returns 0, or -1 once the engine is open.
 */
int zkpipe_supraseal_gpu_mem(uint64_t bytes);

#ifdef __cplusplus
}
#endif
#endif
