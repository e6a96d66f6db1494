/*
 * zkpipe verify: checks a snarkjs-format Groth16 proof (BLS12-381) against
 * a verification key and public inputs, like `snarkjs groth16 verify`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "groth16/groth16.h"
#include "io/io.h"

static const char verify_help[] =
    "usage: zkpipe verify verification_key.json public.json proof.json\n"
    "\n"
    "Checks a Groth16 proof (BLS12-381, snarkjs JSON) with one multi-pairing.\n"
    "Every point is checked (canonical, on the curve, in the subgroup).\n"
    "\n"
    "exit status: 0 valid (prints OK), 1 invalid (prints INVALID), 2 error:\n"
    "unreadable or malformed input, or as many public inputs as the key does\n"
    "not expect.\n";

static int load_error(const char *path, zp_err e, const zp__ioerr *why)
{
    fprintf(stderr, "zkpipe verify: %s: %s (%s)\n", path, why->msg[0] ? why->msg : zp_strerror(e),
            zp_errname(e));
    return 2;
}

int zp__cmd_verify(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, verify_help))
        return 0;
    if (argc != 4 || (argv[1][0] == '-' && argv[1][1])) {
        fprintf(stderr, "usage: zkpipe verify verification_key.json public.json proof.json\n");
        return 2;
    }
    const char *vk_path = argv[1], *pub_path = argv[2], *proof_path = argv[3];
    zp__vk vk;
    zp__proof proof;
    zp_fr *pub = NULL;
    size_t n_pub = 0;
    zp__ioerr why = {""};
    zp_err e;
    if ((e = zp__vk_json_load(&vk, vk_path, &why)))
        return load_error(vk_path, e, &why);
    int rc = 2;
    if ((e = zp__public_json_load(&pub, &n_pub, pub_path, &why))) {
        load_error(pub_path, e, &why);
    } else if ((e = zp__proof_json_load(&proof, proof_path, &why))) {
        load_error(proof_path, e, &why);
    } else if (n_pub != (size_t)vk.n_ic - 1) {
        fprintf(stderr, "zkpipe verify: %s has %zu public inputs; the key expects %u\n",
                pub_path, n_pub, vk.n_ic - 1);
    } else {
        e = zp__verify(&vk, pub, n_pub, &proof);
        if (e == ZP_OK) {
            printf("OK\n");
            rc = 0;
        } else if (e == ZP_E_VERIFY_FAILED) {
            printf("INVALID\n");
            fprintf(stderr, "zkpipe verify: the proof does not verify\n");
            rc = 1;
        } else {
            fprintf(stderr, "zkpipe verify: %s (%s)\n", zp_strerror(e), zp_errname(e));
        }
    }
    free(pub);
    zp__vk_free(&vk);
    return rc;
}
