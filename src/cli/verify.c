/*
 * zkpipe verify: checks a Groth16 proof (BLS12-381) against a verifying key
 * and public inputs, like `snarkjs groth16 verify`. The key and the proof
 * may come in snarkjs' or bellperson's format, or the key from a .zpk; each
 * file is recognised by its content.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/keyfile.h"
#include "groth16/groth16.h"
#include "io/io.h"
#include "tool/timing.h"

static const char verify_help[] =
    "usage: zkpipe verify [--threads N] KEY public.json PROOF\n"
    "\n"
    "Checks a Groth16 proof (BLS12-381) with one multi-pairing. Every point is\n"
    "checked (canonical, on the curve, in the subgroup).\n"
    "\n"
    "KEY   verification_key.json (snarkjs), a bellperson .vk (or .params), or\n"
    "      the verifying key inside a .zpk or .zkey proving key\n"
    "PROOF proof.json (snarkjs) or a 192-byte bellperson proof\n"
    "public.json holds the public inputs as snarkjs writes them (decimal).\n"
    "Formats are recognised by content, not by file name.\n"
    "\n"
    "exit status: 0 valid (prints OK); 1 invalid (prints INVALID): the check\n"
    "fails, or a proof point is not a valid group element; 2 error: unreadable\n"
    "or malformed input, or as many public inputs as the key does not expect.\n";

/* The public inputs first: a count that does not fit the key is a usage
 * error (2) whatever the proof holds. */
static int load_public(zp_fr **pub, size_t *n_pub, const zp__vk *vk, const char *path)
{
    zp__ioerr why = {""};
    zp_err e = zp__public_json_load(pub, n_pub, path, &why);
    if (e)
        return zp__cli_fail("verify", path, e, &why);
    if (*n_pub != (size_t)vk->n_ic - 1) {
        fprintf(stderr, "zkpipe verify: %s has %zu public inputs; the key expects %u\n", path,
                *n_pub, vk->n_ic - 1);
        return 2;
    }
    return 0;
}

static int check(const zp__vk *vk, const char *pub_path, const char *proof_path)
{
    zp__proof proof;
    zp_fr *pub = NULL;
    size_t n_pub = 0;
    int rc = load_public(&pub, &n_pub, vk, pub_path);
    if (!rc)
        rc = zp__cli_load_proof(&proof, proof_path, "verify");
    if (!rc) {
        zp_err e = zp__verify(vk, pub, n_pub, &proof);
        if (e == ZP_OK) {
            printf("OK\n");
        } else if (e == ZP_E_VERIFY_FAILED) {
            fprintf(stderr, "zkpipe verify: the proof does not verify\n");
            rc = 1;
        } else {
            fprintf(stderr, "zkpipe verify: %s (%s)\n", zp_strerror(e), zp_errname(e));
            rc = 2;
        }
    }
    if (rc == 1)
        printf("INVALID\n");
    free(pub);
    return rc;
}

int zp__cmd_verify(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, verify_help))
        return 0;
    const char *pos[3];
    int npos = 0, threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (zp__parse_int(argv[++i], 1, 4096, &threads)) {
                fprintf(stderr, "zkpipe verify: --threads needs a number from 1 to 4096\n");
                return 2;
            }
        } else if ((argv[i][0] == '-' && argv[i][1]) || npos == 3) {
            npos = 4;
            break;
        } else {
            pos[npos++] = argv[i];
        }
    }
    if (npos != 3) {
        fprintf(stderr, "usage: zkpipe verify [--threads N] KEY public.json PROOF\n"
                        "Run 'zkpipe verify --help' for the formats.\n");
        return 2;
    }
    zp__vk vk;
    if (zp__cli_load_vk(&vk, pos[0], threads, "verify"))
        return 2;
    int rc = check(&vk, pos[1], pos[2]);
    zp__vk_free(&vk);
    return rc;
}
