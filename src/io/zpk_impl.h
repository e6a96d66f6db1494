/* Pieces of the .zpk reader and writer shared between their files. */
#ifndef ZP_IO_ZPK_IMPL_H
#define ZP_IO_ZPK_IMPL_H

#include "io/zpk.h"

#define ZP__ZPK_VK_FIXED (3 * sizeof(zp_g1_affine) + 3 * sizeof(zp_g2_affine))
/* Checksum of the header page sits here; the table ends at it. */
#define ZP__ZPK_TABLE_END (ZP__ZPK_TABLE + ZP__ZPK_NSEC * ZP__ZPK_ENTRY)
/* Matrices beyond this many entries are refused, so every section length
 * below fits a u64 with room to spare. */
#define ZP__ZPK_MAX_NNZ ((uint64_t)1 << 56)

/*
 * The counts of h agree with each other (conventions known, n_public <
 * n_vars, a power-of-two domain of at most 2^32, n_l and n_h implied by
 * them, n_a and n_b at most n_vars, matrix rows within the domain, entry
 * counts below ZP__ZPK_MAX_NNZ). Fails with `code` and the reason.
 */
zp_err zp__zpk_check_counts(const zp__zpk_header *h, zp_err code, zp__ioerr *why);

/* The byte length of section id implied by h's counts (after the check). */
uint64_t zp__zpk_section_len(const zp__zpk_header *h, uint32_t id);

/* Words stored for a density map over n bits (one spare, as
 * zp__bitmap_alloc allocates). */
static inline uint64_t zp__zpk_bitmap_words(uint64_t nbits) { return nbits / 64 + 1; }

/* The density map has nbits = n_vars, popcount `count` and no bit set at
 * or past n_vars. Fails with `code`. */
zp_err zp__zpk_check_bitmap(const zp__bitmap *b, uint64_t n_vars, uint64_t count,
                            const char *name, zp_err code, zp__ioerr *why);

/* row_ptr starts at 0, never decreases, ends at nnz; every column is below
 * n_vars. Checked from up to `threads` threads. Fails with `code`. */
zp_err zp__zpk_check_csr(const zp__csr *m, uint64_t n_vars, const char *name, zp_err code,
                         int threads, zp__ioerr *why);

/* The counts of pk in header form (sections left zero). */
void zp__zpk_header_of(zp__zpk_header *h, const zp__pk *pk);

#endif
