/*
 * bellperson / Filecoin Groth16 parameter files (docs/formats.md, bellperson and Filecoin): `.params`
 * (a proving key) and `.vk` (its verifying key), both in bellperson's exact
 * layout: points uncompressed in the zcash encoding, counts u32 big-endian.
 *
 *   .params: alpha1 beta1 (G1) beta2 gamma2 (G2) delta1 (G1) delta2 (G2)
 *            ic[u32]  h[u32]  l[u32]  a[u32]  b_g1[u32]  b_g2[u32] (G2)
 *   .vk:     the same up to and including ic.
 *
 * Both are untrusted: every count is bounded by the bytes left before
 * anything is allocated, every point is decoded with all checks (flags,
 * coordinates < q, on curve, in subgroup), and the point at infinity is
 * refused anywhere (ZP_E_INFINITY), as bellperson's readers do. Trailing
 * bytes after the last field are ignored. Errors:
 *   ZP_E_TRUNCATED     the data ends inside a field, or a count asks for
 *                      more points than the bytes left hold
 *   ZP_E_FORMAT        counts that cannot describe a key (no ONE in ic,
 *                      h count + 1 not a power of two, more A or B points
 *                      than variables, more than 2^32 - 1 variables)
 *   ZP_E_BAD_FLAGS, ZP_E_NOT_CANONICAL, ZP_E_NOT_ON_CURVE,
 *   ZP_E_NOT_IN_SUBGROUP, ZP_E_INFINITY   a bad point (named in why)
 */
#ifndef ZP_IO_BELLPERSON_H
#define ZP_IO_BELLPERSON_H

#include <stddef.h>
#include <stdint.h>

#include "base/progress.h"
#include "io/key.h"
#include "io/io.h"
#include "r1cs/r1cs.h"

/*
 * A .params file into a proving key: h_conv = ZP_H_TAU, roots =
 * ZP_ROOTS_BELLPERSON, domain_size = h count + 1, n_public = ic count - 1,
 * n_vars = ic count + l count, and the compact a, b1, b2 arrays. The
 * density maps and matrices are not in the file: the key cannot prove
 * until zp__pk_attach_circuit gives them. Points are checked from up to
 * `threads` threads (<= 0: one per online CPU). out is zeroed on failure.
 */
zp_err zp__params_parse(zp__pk *out, const uint8_t *data, size_t len, int threads,
                        zp__ioerr *why);
zp_err zp__params_load(zp__pk *out, const char *path, int threads, zp__ioerr *why);

/*
 * The shape of a .params alone: its counts walked and checked as above
 * (the same errors for a truncated file or counts that cannot describe a
 * key), h_conv, roots, domain_size, n_public, n_vars and the point counts
 * set, no point decoded and no array or verifying key (a 47 GB file's
 * shape takes a few reads). For planning (zkpipe doctor), not proving.
 */
zp_err zp__params_shape_parse(zp__pk *out, const uint8_t *data, size_t len, zp__ioerr *why);
zp_err zp__params_shape_load(zp__pk *out, const char *path, zp__ioerr *why);

/*
 * The same with the key's circuit attached (as zp__pk_attach_circuit),
 * which happens before any point is decoded: a circuit that does not fit
 * fails at once rather than after the point checks of a large file. cs may
 * be NULL (then these equal the functions above). The load reports its
 * point checks ("checking G1 points", "checking G2 points", one step per
 * array) to progress (NULL: silent).
 */
zp_err zp__params_parse_circuit(zp__pk *out, const uint8_t *data, size_t len,
                                const zp__r1cs *cs, int threads, zp__ioerr *why);
zp_err zp__params_load_circuit(zp__pk *out, const char *path, const zp__r1cs *cs, int threads,
                               const zp__progress *progress, zp__ioerr *why);

/*
 * Gives a key read from .params the circuit it was made for: cs is the
 * circuit's R1CS as synthesized (A and B over its own rows, without the
 * input rows). Builds pk->ma = cs->a followed by the rows input_i · 0 = 0
 * (an A entry of coefficient 1 on variable i, for i = 0..n_public), pk->mb
 * = cs->b over the same rows, and the density maps as the columns with a
 * nonzero entry (so a_density holds every input). Checks that the circuit
 * fits the file: ZP_E_FORMAT, with both sides' numbers in why, when the
 * variable or public-input counts differ, when the rows do not fit the
 * domain, or when the popcounts differ from the A and B point counts.
 * ZP_E_INVALID_ARG when pk already has matrices or cs is malformed (row
 * counts, a column >= n_vars). pk is unchanged on failure. Uses only pk's
 * counts, not its points.
 */
zp_err zp__pk_attach_circuit(zp__pk *pk, const zp__r1cs *cs, zp__ioerr *why);

/* A .vk file (fields 1-7) into a verifying key. out is zeroed on failure. */
zp_err zp__params_vk_parse(zp__vk *out, const uint8_t *data, size_t len, zp__ioerr *why);
zp_err zp__params_vk_load(zp__vk *out, const char *path, zp__ioerr *why);

/*
 * Writers, atomic (nothing appears under path on failure). The key must be
 * in the bellperson convention (ZP_H_TAU with n_h = domain_size - 1; else
 * ZP_E_INVALID_ARG), every count must fit a u32 (ZP_E_TOO_LARGE), and no
 * point may be infinity (ZP_E_INFINITY, naming it), since bellperson could
 * not read such a file back. Points are encoded from up to `threads`
 * threads.
 */
zp_err zp__params_save(const char *path, const zp__pk *pk, int threads, zp__ioerr *why);
zp_err zp__params_vk_save(const char *path, const zp__vk *vk, zp__ioerr *why);

/* Size in bytes of the .params file of pk (for callers that pre-check
 * disk space); 0 when a count does not fit a u32. */
uint64_t zp__params_size(const zp__pk *pk);

#endif
