/*
 * Input recognition and key loading shared by prove, verify, setup, witness
 * and bench prove (keyfile.h). Formats are told apart by content: file
 * names are only what the user typed, and a mislabelled file should get a
 * message that says what it really is.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/keyfile.h"
#include "groth16/groth16.h"
#include "io/bellperson.h"
#include "io/io.h"
#include "io/zpk.h"

zp__cli_kind zp__cli_file_kind(const char *path, uint64_t *size)
{
    /* stat() first: it tells a special file without opening it, and
     * keeps errno for a missing one. */
    struct stat st;
    if (stat(path, &st) != 0)
        return ZP__KIND_MISSING;
    if (!S_ISREG(st.st_mode))
        return ZP__KIND_SPECIAL;
    /* Without a message to format, a failed open() leaves its errno. */
    int fd;
    if (zp__file_open(&fd, &st, path, UINT64_MAX, NULL))
        return ZP__KIND_MISSING;
    uint8_t m[16] = {0};
    ssize_t got;
    do
        got = read(fd, m, sizeof m);
    while (got < 0 && errno == EINTR);
    close(fd);
    size_t n = got > 0 ? (size_t)got : 0;
    uint64_t len = (uint64_t)st.st_size;
    if (size)
        *size = len;
    if (n == 0)
        return ZP__KIND_EMPTY;
    if (n >= 8 && !memcmp(m, ZP__ZPK_MAGIC, 8))
        return ZP__KIND_ZPK;
    if (n >= 4 && !memcmp(m, "zkey", 4))
        return ZP__KIND_ZKEY;
    if (n >= 4 && !memcmp(m, "wtns", 4))
        return ZP__KIND_WTNS;
    if (n >= 4 && !memcmp(m, "r1cs", 4))
        return ZP__KIND_R1CS;
    /* A compressed proof always has the compression bit in its first
     * byte, which no JSON text (ASCII) has. */
    if (len == ZP__PROOF_BYTES && (m[0] & 0x80))
        return ZP__KIND_PROOF192;
    for (size_t i = 0; i < n; i++) {
        if (m[i] == ' ' || m[i] == '\t' || m[i] == '\n' || m[i] == '\r')
            continue;
        if (m[i] == '{' || m[i] == '[')
            return ZP__KIND_JSON;
        break;
    }
    return ZP__KIND_UNKNOWN;
}

const char *zp__cli_kind_name(zp__cli_kind k)
{
    switch (k) {
    case ZP__KIND_MISSING: return "a file that cannot be opened";
    case ZP__KIND_SPECIAL: return "a special file (a FIFO, device, socket or directory)";
    case ZP__KIND_EMPTY: return "an empty file";
    case ZP__KIND_ZKEY: return "a snarkjs .zkey proving key";
    case ZP__KIND_WTNS: return "a .wtns witness";
    case ZP__KIND_R1CS: return "a circom .r1cs circuit";
    case ZP__KIND_ZPK: return "a zkpipe .zpk proving key";
    case ZP__KIND_JSON: return "a JSON file";
    case ZP__KIND_PROOF192: return "a 192-byte proof";
    case ZP__KIND_UNKNOWN: break;
    }
    return "a file of unknown format";
}

/* The message for a file that cannot be opened or is of the wrong kind. */
static int wrong_kind(const char *cmd, const char *path, zp__cli_kind k, const char *wanted)
{
    if (k == ZP__KIND_MISSING)
        fprintf(stderr, "zkpipe %s: %s: %s\n", cmd, path, strerror(errno));
    else
        fprintf(stderr, "zkpipe %s: %s is %s, not %s\n", cmd, path, zp__cli_kind_name(k),
                wanted);
    return 2;
}

int zp__cli_load_pk(zp__pk *pk, const char *path, int threads, const zp__progress *progress,
                    const char *cmd, zp__cli_kind *kind)
{
    static const char wanted[] =
        "a proving key (a snarkjs .zkey or a zkpipe .zpk; 'zkpipe import' turns a "
        "bellperson .params into a .zpk)";
    zp__ioerr why = {""};
    zp_err e;
    memset(pk, 0, sizeof *pk);
    zp__cli_kind k = zp__cli_file_kind(path, NULL);
    if (kind)
        *kind = k;
    bool hit;
    if (k == ZP__KIND_ZKEY)
        e = zp__cli_load_zkey_cached(pk, path, threads, &hit, &why);
    else if (k == ZP__KIND_ZPK)
        e = zp__zpk_load_progress(pk, path, 0, threads, progress, &why);
    else
        return wrong_kind(cmd, path, k, wanted);
    return e ? zp__cli_fail(cmd, path, e, &why) : 0;
}

/* Moves the verifying key out of a proving key and frees the rest. */
static void take_vk(zp__vk *vk, zp__pk *pk)
{
    *vk = pk->vk;
    memset(&pk->vk, 0, sizeof pk->vk);
    zp__pk_free(pk);
}

int zp__cli_load_vk(zp__vk *vk, const char *path, int threads, const char *cmd)
{
    zp__ioerr why = {""};
    zp_err e;
    memset(vk, 0, sizeof *vk);
    zp__cli_kind k = zp__cli_file_kind(path, NULL);
    switch (k) {
    case ZP__KIND_JSON:
        e = zp__vk_json_load(vk, path, &why);
        break;
    case ZP__KIND_ZKEY:
    case ZP__KIND_ZPK: {
        zp__pk pk;
        if (zp__cli_load_pk(&pk, path, threads, NULL, cmd, NULL))
            return 2;
        take_vk(vk, &pk);
        return 0;
    }
    case ZP__KIND_UNKNOWN:
        /* No magic: the only binary key format without one is bellperson's,
         * whose reader checks every field and explains a mismatch. */
        if ((e = zp__params_vk_load(vk, path, &why))) {
            zp__cli_fail(cmd, path, e, &why);
            fprintf(stderr, "  (%s has no known magic, so it was read as a bellperson .vk; "
                            "keys are verification_key.json, .vk, .zpk or .zkey)\n", path);
            return 2;
        }
        return 0;
    default:
        return wrong_kind(cmd, path, k,
                          "a verifying key (verification_key.json, a .zpk, a .zkey, or a "
                          "bellperson .vk)");
    }
    return e ? zp__cli_fail(cmd, path, e, &why) : 0;
}

/* The codes of a proof whose points are not valid group elements: the
 * file is well formed, but what it holds is no proof. */
static bool bad_point(zp_err e)
{
    return e == ZP_E_BAD_FLAGS || e == ZP_E_NOT_CANONICAL || e == ZP_E_NOT_ON_CURVE ||
           e == ZP_E_NOT_IN_SUBGROUP || e == ZP_E_INFINITY;
}

static int proof_error(const char *cmd, const char *path, zp_err e, const zp__ioerr *why)
{
    if (!bad_point(e))
        return zp__cli_fail(cmd, path, e, why);
    fprintf(stderr, "zkpipe %s: %s: not a valid proof: %s (%s)\n", cmd, path,
            why && why->msg[0] ? why->msg : zp_strerror(e), zp_errname(e));
    return 1;
}

int zp__cli_load_proof(zp__proof *p, const char *path, const char *cmd)
{
    zp__ioerr why = {""};
    uint64_t size = 0;
    zp__cli_kind k = zp__cli_file_kind(path, &size);
    if (k == ZP__KIND_JSON) {
        zp_err e = zp__proof_json_load(p, path, &why);
        return e ? proof_error(cmd, path, e, &why) : 0;
    }
    if (k != ZP__KIND_PROOF192 && k != ZP__KIND_UNKNOWN)
        return wrong_kind(cmd, path, k, "a proof (snarkjs proof.json or 192 bytes)");
    if (size != ZP__PROOF_BYTES) {
        fprintf(stderr,
                "zkpipe %s: %s is neither JSON nor a 192-byte proof (%llu bytes; a file of "
                "several partitions' proofs is not taken here)\n",
                cmd, path, (unsigned long long)size);
        return 2;
    }
    zp__buf b;
    zp_err e = zp__file_read(&b, path, ZP__PROOF_BYTES, &why);
    if (e)
        return zp__cli_fail(cmd, path, e, &why);
    e = b.len == ZP__PROOF_BYTES ? zp__proof_decode(p, b.data, b.len) : ZP_E_TRUNCATED;
    zp__buf_free(&b);
    return e ? proof_error(cmd, path, e, NULL) : 0;
}
