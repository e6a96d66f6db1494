/*
 * File formats zkpipe reads and writes (docs/formats.md, circom and snarkjs): the iden3
 * binary container (.r1cs, .wtns, .zkey), snarkjs JSON (proof, public
 * signals, verifying key), a small strict JSON parser, and the file helpers
 * under them (bounded reads, mmap, atomic writes).
 *
 * Every input is untrusted. Readers bound each count against the bytes that
 * hold it before allocating, check every field element (< modulus) and every
 * point (on curve, in subgroup), and return a specific code:
 *   ZP_E_TRUNCATED    the input ends before a declared section or header
 *   ZP_E_FORMAT       bad magic, missing or duplicate section, a count or
 *                     index that disagrees with its section, bad structure
 *   ZP_E_UNSUPPORTED  unknown container version, non-Groth16 zkey, custom gates
 *   ZP_E_BAD_PRIME    the file is for another field or curve
 *   ZP_E_NOT_CANONICAL a field element >= its modulus
 *   ZP_E_NOT_ON_CURVE, ZP_E_NOT_IN_SUBGROUP, ZP_E_INFINITY  bad points
 *   ZP_E_WITNESS      witness of the wrong length or with w[0] != 1
 *   ZP_E_TOO_LARGE    a file or count beyond a configured limit
 * Every fallible function takes an optional zp__ioerr (may be NULL) that
 * receives a one-line English explanation (with the section, index or JSON
 * line:column) when it fails.
 *
 * Arrays returned through `T **out` are malloc'd and belong to the caller
 * (free()). Field elements are Montgomery form unless said otherwise.
 */
#ifndef ZP_IO_H
#define ZP_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "io/key.h"
#include "r1cs/r1cs.h"
#include "zkpipe.h"

/* ------------------------------------------------------------ error detail */

typedef struct zp__ioerr {
    char msg[256];
} zp__ioerr;

/* Formats a message into e (when not NULL) and returns code. */
zp_err zp__fail(zp__ioerr *e, zp_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------- files */

/* Bytes of a file, either mapped read-only or read into the heap. */
typedef struct zp__buf {
    const uint8_t *data;
    size_t len;
    void *base_;   /* mapping or heap block to release */
    size_t size_;  /* mapping length */
    int kind_;     /* 0 none, 1 heap, 2 mmap */
} zp__buf;

/* Default ceiling for whole-file reads of small text inputs (JSON). */
#define ZP__JSON_FILE_MAX ((uint64_t)64 << 20)

/* Opens path for reading without ever blocking: only a regular file of at
 * most max_len bytes passes; a FIFO, device, directory or socket is
 * ZP_E_IO naming what it is, a longer file ZP_E_TOO_LARGE, a missing one
 * ZP_E_NOT_FOUND. On success *fd (blocking, close-on-exec) and *st belong
 * to the caller; on failure *fd is -1. */
zp_err zp__file_open(int *fd, struct stat *st, const char *path, uint64_t max_len,
                     zp__ioerr *why);
/* Reads all of path (through zp__file_open) into the heap; files longer
 * than max_len fail with ZP_E_TOO_LARGE before anything is allocated. */
zp_err zp__file_read(zp__buf *out, const char *path, uint64_t max_len, zp__ioerr *why);
/* Maps path read-only (an empty file gives len 0). Same limit as above. */
zp_err zp__file_map(zp__buf *out, const char *path, uint64_t max_len, zp__ioerr *why);
void zp__buf_free(zp__buf *b);

/*
 * Atomic output: bytes go to a temporary file in the destination's folder;
 * commit fsyncs it, renames it over path and fsyncs the folder. Any failure
 * (including a failed write earlier, which is sticky) removes the temporary
 * file, so a partial output never appears under path.
 */
typedef struct zp__afile {
    int fd;
    char *path, *tmp;
    zp_err err;      /* first failure, ZP_OK while healthy */
    size_t fill;
    uint8_t *buf;    /* write buffer of ZP__AFILE_BUF bytes */
} zp__afile;

#define ZP__AFILE_BUF ((size_t)1 << 16)

zp_err zp__afile_open(zp__afile *f, const char *path, zp__ioerr *why);
/* Buffered; returns the sticky error once one happened. */
zp_err zp__afile_write(zp__afile *f, const void *p, size_t n);
zp_err zp__afile_u32(zp__afile *f, uint32_t v);
zp_err zp__afile_u64(zp__afile *f, uint64_t v);
/* Publishes the file, or removes the temporary one on any error. Always
 * releases f. */
zp_err zp__afile_commit(zp__afile *f, zp__ioerr *why);
/* Removes the temporary file and releases f. */
void zp__afile_abort(zp__afile *f);
/* Whole buffer in one call. */
zp_err zp__file_write_atomic(const char *path, const void *data, size_t len, zp__ioerr *why);

/* ------------------------------------------------- little-endian reading */

typedef struct zp__rd {
    const uint8_t *p;
    uint64_t len, pos;
} zp__rd;

static inline uint64_t zp__rd_left(const zp__rd *r) { return r->len - r->pos; }

static inline uint32_t zp__le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t zp__le64(const uint8_t *p)
{
    return (uint64_t)zp__le32(p) | (uint64_t)zp__le32(p + 4) << 32;
}

static inline void zp__put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void zp__put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Returns a pointer to the next n bytes, or NULL (cursor unchanged) when
 * fewer are left. */
static inline const uint8_t *zp__rd_take(zp__rd *r, uint64_t n)
{
    if (n > zp__rd_left(r))
        return NULL;
    const uint8_t *p = r->p + r->pos;
    r->pos += n;
    return p;
}

static inline bool zp__rd_u32(zp__rd *r, uint32_t *v)
{
    const uint8_t *p = zp__rd_take(r, 4);
    if (p)
        *v = zp__le32(p);
    return p != NULL;
}

/* --------------------------------------------------- iden3 bin container */

#define ZP__MAX_SECTIONS 64

typedef struct zp__section {
    uint32_t id;
    uint64_t off, size; /* body offset and length within the buffer */
} zp__section;

typedef struct zp__container {
    const uint8_t *data;
    uint64_t len;
    uint32_t version;
    uint32_t n;
    zp__section s[ZP__MAX_SECTIONS];
} zp__container;

/*
 * Indexes the sections of data (magic[4] ‖ u32 version ‖ u32 count ‖
 * sections). Checks the magic, that every section lies inside the buffer
 * and that no id repeats. The version is returned, not checked.
 */
zp_err zp__container_parse(zp__container *c, const uint8_t *data, size_t len,
                           const char magic[4], zp__ioerr *why);
/* NULL when absent. */
const zp__section *zp__container_find(const zp__container *c, uint32_t id);
/* A cursor over section id; ZP_E_FORMAT when it is missing. */
zp_err zp__container_section(zp__rd *out, const zp__container *c, uint32_t id,
                             const char *what, zp__ioerr *why);
/* Writes magic, version, section count. */
zp_err zp__afile_container(zp__afile *f, const char magic[4], uint32_t version, uint32_t nsec);
/* Writes one section header; the body of exactly size bytes follows. */
zp_err zp__afile_section(zp__afile *f, uint32_t id, uint64_t size);

/* ------------------------------------------------------- field elements */

/* The BLS12-381 moduli as little-endian bytes, as the files store them. */
extern const uint8_t ZP__R_LE[32];
extern const uint8_t ZP__Q_LE[48];

/* The container of an open file of len bytes from its headers alone
 * (pread), under zp__container_parse's rules; c->data stays NULL. For
 * files too large to read whole that must not be mapped (a file truncated
 * under a mapping raises SIGBUS). */
zp_err zp__container_scan(zp__container *c, int fd, uint64_t len, const char magic[4],
                          zp__ioerr *why);
/* len bytes at off, all of them (ZP_E_TRUNCATED where the file ends). */
zp_err zp__pread_all(int fd, void *buf, uint64_t len, uint64_t off, zp__ioerr *why);

/* ----------------------------------------------------------------- .wtns */

/* Parses a .wtns into a new array of Montgomery-form values. expect = 0
 * accepts any length; otherwise a different count is ZP_E_WITNESS. */
zp_err zp__wtns_parse(zp_fr **out, uint64_t *n, const uint8_t *data, size_t len,
                      uint64_t expect, zp__ioerr *why);
/* Parses into a caller buffer of exactly n values (e.g. pinned memory). */
zp_err zp__wtns_decode_into(zp_fr *out, uint64_t n, const uint8_t *data, size_t len,
                            zp__ioerr *why);
/* The declared count after the same header checks, without decoding. */
zp_err zp__wtns_count(uint64_t *n, const uint8_t *data, size_t len, zp__ioerr *why);
/* The most bytes a .wtns of n values may take: 32 per value and 64 KiB for
 * the container header, sections and a field description; UINT64_MAX when
 * n is 0 (unknown), for a regular file that is only mapped. */
static inline uint64_t zp__wtns_max_bytes(uint64_t n)
{
    return n ? n * 32 + ((uint64_t)1 << 16) : UINT64_MAX;
}
zp_err zp__wtns_load(zp_fr **out, uint64_t *n, const char *path, uint64_t expect,
                     zp__ioerr *why);
/* From a file, read (not mapped) a chunk at a time: into a caller buffer
 * of exactly n values (zp__wtns_read_into), or its count alone from the
 * headers (zp__wtns_file_count; max_len bounds the file). A file that
 * changes while it is read fails with ZP_E_TRUNCATED, never a signal. */
zp_err zp__wtns_read_into(zp_fr *out, uint64_t n, const char *path, zp__ioerr *why);
zp_err zp__wtns_file_count(uint64_t *n, const char *path, uint64_t max_len, zp__ioerr *why);
/* Writes a version-2 .wtns (standard form values). */
zp_err zp__wtns_save(const char *path, const zp_fr *w, uint64_t n, zp__ioerr *why);

/* ----------------------------------------------------------------- .r1cs */

/* A, B and C in CSR with Montgomery coefficients; n_public = nPubOut +
 * nPubIn. Constraint rows only (no extra input rows). */
zp_err zp__r1cs_parse(zp__r1cs *out, const uint8_t *data, size_t len, zp__ioerr *why);
zp_err zp__r1cs_load(zp__r1cs *out, const char *path, zp__ioerr *why);

/* ----------------------------------------------------------------- .zkey */

/*
 * A snarkjs Groth16 .zkey for BLS12-381 into a proving key: h_conv =
 * ZP_H_COSET, roots = ZP_ROOTS_SNARKJS, A/B1/B2 compact with density =
 * "point is not infinity", ma/mb from section 4 (Montgomery coefficients,
 * rows = 1 + the largest row used), every point checked.
 */
zp_err zp__zkey_parse(zp__pk *out, const uint8_t *data, size_t len, zp__ioerr *why);
zp_err zp__zkey_load(zp__pk *out, const char *path, zp__ioerr *why);
/* Writes pk (ZP_H_COSET, snarkjs roots) as a .zkey snarkjs can prove
 * with; section 10 holds a zero circuit hash and no contributions. */
zp_err zp__zkey_save(const char *path, const zp__pk *pk, zp__ioerr *why);

/* ------------------------------------------------------------------ JSON */

typedef enum zp__jtype {
    ZP__J_NULL,
    ZP__J_FALSE,
    ZP__J_TRUE,
    ZP__J_NUMBER, /* kept as text: str/len hold the literal */
    ZP__J_STRING, /* str/len hold the decoded UTF-8, NUL-terminated */
    ZP__J_ARRAY,  /* items[0..n) */
    ZP__J_OBJECT, /* keys[0..n) and items[0..n); no duplicate keys */
} zp__jtype;

typedef struct zp__jval {
    zp__jtype type;
    uint32_t line, col;   /* where the value starts, 1-based */
    size_t n;             /* items of an array or object */
    size_t len;           /* bytes of str */
    const char *str;
    struct zp__jval *items;
    const char **keys;
    const size_t *key_lens;
} zp__jval;

typedef struct zp__json_limits {
    size_t max_bytes;    /* input size */
    unsigned max_depth;  /* nesting of arrays and objects */
    size_t max_values;   /* total values in the document */
} zp__json_limits;

/* 64 MiB, depth 64, 16 M values. */
void zp__json_limits_default(zp__json_limits *l);

typedef struct zp__json {
    zp__jval *root;
    void *arena_;
} zp__json;

/*
 * Strict RFC 8259 parsing: one value with optional whitespace around it; no
 * comments, trailing commas, NaN, leading zeros, control characters or
 * \u0000 in strings, invalid UTF-8 (overlong, surrogates, truncated), lone
 * surrogate escapes, or duplicate object keys. Errors
 * are ZP_E_FORMAT (with line:column in why) or ZP_E_TOO_LARGE for limits.
 * lim may be NULL for the defaults. doc is zeroed on failure.
 */
zp_err zp__json_parse(zp__json *doc, const char *text, size_t len,
                      const zp__json_limits *lim, zp__ioerr *why);
void zp__json_free(zp__json *doc);
/* Member of an object by key, NULL when absent or obj is not an object. */
const zp__jval *zp__json_get(const zp__jval *obj, const char *key);

/* A growable string for writers; an allocation failure is sticky. */
typedef struct zp__sb {
    char *p;
    size_t len, cap;
    bool oom;
} zp__sb;

void zp__sb_putn(zp__sb *s, const char *p, size_t n);
void zp__sb_puts(zp__sb *s, const char *p);
void zp__sb_putc(zp__sb *s, char c);
/* Appends v as a JSON string literal with escapes. */
void zp__sb_json_str(zp__sb *s, const char *v, size_t n);

/* ----------------------------------------------- decimal field elements */

#define ZP__FP_DEC_MAX 118 /* 116 digits of q, NUL, slack */
#define ZP__FR_DEC_MAX 80

/* Canonical decimal ("0" or no leading zero, digits only): bad syntax is
 * ZP_E_FORMAT, a value >= the modulus ZP_E_NOT_CANONICAL. */
zp_err zp__fp_from_dec(zp_fp *out, const char *s, size_t n);
zp_err zp__fr_from_dec(zp_fr *out, const char *s, size_t n);
/* Decimal of the standard-form value of a Montgomery element. */
void zp__fp_to_dec(char out[ZP__FP_DEC_MAX], const zp_fp *a);
void zp__fr_to_dec(char out[ZP__FR_DEC_MAX], const zp_fr *a);

/* --------------------------------------------------------- snarkjs JSON */

#ifndef ZP__PROOF_DEFINED
#define ZP__PROOF_DEFINED
/* One Groth16 proof, affine Montgomery points. */
typedef struct zp__proof {
    zp_g1_affine a;
    zp_g2_affine b;
    zp_g1_affine c;
} zp__proof;
#endif

/* Writers return a malloc'd NUL-terminated text laid out exactly as snarkjs
 * writes it (JSON.stringify with indent 1, no final newline). */
zp_err zp__proof_to_json(char **out, size_t *len, const zp__proof *p);
zp_err zp__public_to_json(char **out, size_t *len, const zp_fr *pub, size_t n);
/* Includes vk_alphabeta_12 = e(alpha1, beta2). */
zp_err zp__vk_to_json(char **out, size_t *len, const zp__vk *vk);

/* Readers: points checked (canonical, on curve, in subgroup). The snarkjs
 * verification key has no beta1 and delta1: they come back as infinity.
 * vk_alphabeta_12 is not read. */
zp_err zp__proof_from_json(zp__proof *out, const char *text, size_t len, zp__ioerr *why);
zp_err zp__public_from_json(zp_fr **out, size_t *n, const char *text, size_t len,
                            zp__ioerr *why);
zp_err zp__vk_from_json(zp__vk *out, const char *text, size_t len, zp__ioerr *why);

/* File versions (reads capped at ZP__JSON_FILE_MAX, writes atomic). */
zp_err zp__proof_json_load(zp__proof *out, const char *path, zp__ioerr *why);
zp_err zp__public_json_load(zp_fr **out, size_t *n, const char *path, zp__ioerr *why);
zp_err zp__vk_json_load(zp__vk *out, const char *path, zp__ioerr *why);
zp_err zp__proof_json_save(const char *path, const zp__proof *p, zp__ioerr *why);
zp_err zp__public_json_save(const char *path, const zp_fr *pub, size_t n, zp__ioerr *why);
zp_err zp__vk_json_save(const char *path, const zp__vk *vk, zp__ioerr *why);

/* ------------------------------------------------------- point checking */

/* Checks a decoded point: on curve, then in subgroup (infinity passes). */
zp_err zp__g1_check(const zp_g1_affine *p);
zp_err zp__g2_check(const zp_g2_affine *p);

#endif
