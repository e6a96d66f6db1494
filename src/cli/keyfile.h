/*
 * Helpers the proving-side commands share (prove, verify, setup, witness,
 * bench prove): recognising an input file by its content rather than its
 * name, loading a proving or verifying key in any format zkpipe reads, and
 * printing failures in one style ("zkpipe CMD: WHAT: REASON (ZP_E_...)").
 */
#ifndef ZP_CLI_KEYFILE_H
#define ZP_CLI_KEYFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/progress.h"
#include "io/io.h"
#include "io/key.h"
#include "tool/cmdline.h" /* zp__cli_fail */

/* What a file holds, judged from its first bytes and its size. */
typedef enum zp__cli_kind {
    ZP__KIND_SPECIAL = -2, /* a FIFO, device, socket or directory: never read */
    ZP__KIND_MISSING = -1, /* cannot be opened (errno says why) */
    ZP__KIND_UNKNOWN = 0,  /* none of the below: maybe a bellperson .params/.vk */
    ZP__KIND_EMPTY,
    ZP__KIND_ZKEY,         /* iden3 container "zkey" */
    ZP__KIND_WTNS,         /* iden3 container "wtns" */
    ZP__KIND_R1CS,         /* iden3 container "r1cs" */
    ZP__KIND_ZPK,          /* "ZKPIPEPK" */
    ZP__KIND_JSON,         /* first non-blank byte '{' or '[' */
    ZP__KIND_PROOF192,     /* 192 bytes whose first has the compression flag */
} zp__cli_kind;

/* The kind of path; *size (may be NULL) receives its length. */
zp__cli_kind zp__cli_file_kind(const char *path, uint64_t *size);
/* "a snarkjs .zkey proving key", "a .wtns witness", ... for messages. */
const char *zp__cli_kind_name(zp__cli_kind k);

/*
 * Loads a proving key from a snarkjs .zkey (every point checked, or its
 * cached .zpk: see below) or a zkpipe .zpk (mapped; header and section
 * checksums checked), chosen by the file's magic. On failure prints why (naming the file, and what it holds
 * when it is not a proving key) and returns 2 with pk zeroed; 0 otherwise.
 * *kind (may be NULL) receives ZP__KIND_ZKEY or ZP__KIND_ZPK. A .zpk's
 * checksums are reported to progress (NULL: silent).
 */
int zp__cli_load_pk(zp__pk *pk, const char *path, int threads, const zp__progress *progress,
                    const char *cmd, zp__cli_kind *kind);

/*
 * The .zkey cache (keycache.c): a .zkey checked once is kept as a .zpk in
 * $ZKPIPE_CACHE (default $XDG_CACHE_HOME/zkpipe or ~/.cache/zkpipe; "off"
 * disables it), named by the hash and size of the .zkey's bytes.
 * cache_path names the entry (false: cache off or file unreadable);
 * load_zkey_cached maps the entry when it is there and intact (*hit), else
 * loads and checks the .zkey and writes the entry (a failure to write is
 * a note on stderr, never an error).
 */
bool zp__cli_cache_path(char *out, size_t cap, const char *zkey_path, int threads);
zp_err zp__cli_load_zkey_cached(zp__pk *pk, const char *path, int threads, bool *hit,
                                zp__ioerr *why);

/*
 * Loads a verifying key from verification_key.json, a .zpk, a .zkey, or a
 * bellperson .vk (or .params: the .vk is its prefix), by content. Returns
 * 0, or 2 after printing why.
 */
int zp__cli_load_vk(zp__vk *vk, const char *path, int threads, const char *cmd);

/* Reads a proof as snarkjs proof.json or as bellperson's 192 bytes, by
 * content; every point is checked. Returns 0; 1 after printing why when
 * the file is well formed but a point is not a valid group element (bad
 * flags, coordinate >= q, off the curve or the subgroup, infinity): an
 * invalid proof; 2 after printing why for anything else. */
int zp__cli_load_proof(zp__proof *p, const char *path, const char *cmd);

#endif
