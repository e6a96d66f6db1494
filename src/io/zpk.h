/*
 * The native proving-key file, .zpk (docs/formats.md), and its checksum.
 *
 * A .zpk is written once, after full validation, by `zkpipe import` or
 * `zkpipe setup`; loading it is a mapping and a checksum, not a parse. The
 * arrays of the loaded key point straight into the read-only mapping.
 *
 * Layout (all integers little-endian; the host must be little-endian too,
 * since arrays are used in place):
 *
 *   offset 0, one 4 KiB page: the header
 *     0   magic "ZKPIPEPK"
 *     8   u32 version (1)
 *     12  u32 table_end: where the header checksum sits (= 120 + 32 × sections)
 *     16  u32 h_conv (1 coset/snarkjs, 2 tau/bellperson), u32 roots (5 or 7)
 *     24  u32 n_vars, u32 n_public
 *     32  u64 domain_size, n_a, n_b, n_l, n_h
 *     72  u64 ma_rows, ma_nnz, mb_rows, mb_nnz
 *     104 u64 file_size
 *     112 u32 section count (14), u32 zero
 *     120 section table: per section u32 id, u32 zero, u64 offset, u64 length,
 *         u64 checksum (zp__hash64 of the section's length bytes)
 *     table_end: u64 zp__hash64 of bytes [0, table_end)
 *   then the sections, each at an offset that is a multiple of 4096, in id
 *   order, zero padding between them:
 *     1 VK     alpha1, beta1 (G1), beta2, gamma2 (G2), delta1 (G1),
 *              delta2 (G2), then n_public + 1 IC points (G1)
 *     2 A, 3 B1, 4 B2, 5 L, 6 H   point arrays of n_a, n_b, n_b, n_l, n_h
 *     7 A density, 8 B density    n_vars / 64 + 1 words of u64 each
 *     9..11  the A matrix in CSR: row_ptr (ma_rows + 1 × u64), col (u32),
 *            val (Fr, Montgomery)
 *     12..14 the B matrix likewise
 *   Points are the in-memory structs (zp_g1_affine 96 bytes, zp_g2_affine
 *   192 bytes: affine, Montgomery form, little-endian limbs, all-zero for
 *   infinity), so no conversion happens at load.
 */
#ifndef ZP_IO_ZPK_H
#define ZP_IO_ZPK_H

#include <stddef.h>
#include <stdint.h>

#include "io/key.h"
#include "io/io.h"

/* ------------------------------------------------------------- checksum */

/* Bytes per independently hashed chunk (part of the hash's definition). */
#define ZP__HASH_CHUNK ((size_t)1 << 20)

/*
 * The .zpk checksum of len bytes (hash.c describes it), computed from up to
 * `threads` threads (<= 0: one per online CPU); the value does not depend
 * on the thread count. _ref is the slow single-threaded twin for tests.
 */
uint64_t zp__hash64(const void *p, size_t len, int threads);
uint64_t zp__hash64_ref(const void *p, size_t len);

/* ------------------------------------------------------------------ .zpk */

#define ZP__ZPK_MAGIC "ZKPIPEPK"
#define ZP__ZPK_VERSION 1
#define ZP__ZPK_ALIGN 4096
#define ZP__ZPK_NSEC 14
#define ZP__ZPK_TABLE 120 /* offset of the section table */
#define ZP__ZPK_ENTRY 32  /* bytes per table entry */

enum {
    ZP__ZPK_VK = 1,
    ZP__ZPK_A,
    ZP__ZPK_B1,
    ZP__ZPK_B2,
    ZP__ZPK_L,
    ZP__ZPK_H,
    ZP__ZPK_ADENS,
    ZP__ZPK_BDENS,
    ZP__ZPK_MA_ROWS,
    ZP__ZPK_MA_COLS,
    ZP__ZPK_MA_VALS,
    ZP__ZPK_MB_ROWS,
    ZP__ZPK_MB_COLS,
    ZP__ZPK_MB_VALS,
};

/* A section's name for messages ("A", "MA.col", ...), "?" when unknown. */
const char *zp__zpk_section_name(uint32_t id);

typedef struct zp__zpk_section {
    uint64_t off, len, sum;
} zp__zpk_section;

/* The header of a .zpk, decoded and bounds-checked. */
typedef struct zp__zpk_header {
    uint32_t version;
    zp_h_conv h_conv;
    zp_roots roots;
    uint32_t n_vars, n_public;
    uint64_t domain_size, n_a, n_b, n_l, n_h;
    uint64_t ma_rows, ma_nnz, mb_rows, mb_nnz;
    uint64_t file_size;
    zp__zpk_section sec[ZP__ZPK_NSEC + 1]; /* indexed by id; [0] unused */
} zp__zpk_header;

/*
 * Decodes the first ZP__ZPK_ALIGN bytes of a .zpk (fewer only when the file
 * is shorter: ZP_E_TRUNCATED) and checks everything the header alone can
 * tell, before anything trusts it: magic, version, header checksum, the
 * conventions, counts that agree with each other (n_l, n_h, densities no
 * larger than n_vars, a power-of-two domain of at most 2^32, matrix rows
 * within the domain), every section present once, 4 KiB-aligned, in order,
 * not overlapping, of exactly the length its counts imply, and inside
 * file_len, which must equal the recorded file size (shorter:
 * ZP_E_TRUNCATED). Errors: ZP_E_FORMAT, ZP_E_UNSUPPORTED (version or a
 * big-endian host), ZP_E_CHECKSUM (the header's), ZP_E_TOO_LARGE.
 */
zp_err zp__zpk_header_parse(zp__zpk_header *out, const uint8_t *p, size_t len,
                            uint64_t file_len, zp__ioerr *why);

/*
 * True when pk is complete and self-consistent, as zp__zpk_save requires:
 * conventions known, counts that agree (as for the header above), the
 * verifying key's IC count, density maps over n_vars whose popcounts are
 * n_a and n_b with no bit past n_vars, every array present, and both
 * matrices well formed (row_ptr from 0, non-decreasing, ending at nnz;
 * every column < n_vars; rows <= domain_size). The points themselves are
 * not re-checked: a key reaches here from a checked reader or from setup.
 * ZP_E_INVALID_ARG with the reason otherwise.
 */
zp_err zp__zpk_check_pk(const zp__pk *pk, int threads, zp__ioerr *why);

/*
 * Writes pk as a .zpk at path atomically (temporary file, fsync, rename,
 * fsync of the folder): on any failure nothing appears under path and a
 * file already there is left as it was. pk must pass zp__zpk_check_pk.
 * Checksums are computed from up to `threads` threads.
 */
zp_err zp__zpk_save(const char *path, const zp__pk *pk, int threads, zp__ioerr *why);

/* Skip the section checksums and the CSR/density structure checks: for
 * callers that verified this very file once already (the header is
 * checked either way). */
#define ZP__ZPK_TRUSTED 1u

/*
 * Reads path into anonymous memory of its own (read-only once read; with
 * ZP__ZPK_TRUSTED maps the file instead: out->map_file) and fills out with
 * arrays that point into it (out->map_base; zp__pk_free unmaps). Checks the header (above), then,
 * unless flags has ZP__ZPK_TRUSTED, every section's checksum (in parallel;
 * a mismatch is ZP_E_CHECKSUM naming the section) and the structure that a
 * prover indexes with (density popcounts, row_ptr and column bounds), so a
 * corrupted file cannot make a later stage read out of range. The verifying
 * key is copied to the heap. out is zeroed on failure.
 *
 * A key read so is safe from later changes to its file (truncation, a
 * rewrite in place); a file that changes while it is being read fails with
 * ZP_E_TRUNCATED or a checksum mismatch. A TRUSTED mapping is not: a file
 * truncated under it raises SIGBUS on access, so .zpk files are replaced
 * by rename, never modified in place.
 */
zp_err zp__zpk_load(zp__pk *out, const char *path, unsigned flags, int threads,
                    zp__ioerr *why);

#endif
