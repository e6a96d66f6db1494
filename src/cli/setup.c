/*
 * zkpipe setup: a TEST-ONLY Groth16 key for a circuit, from random toxic
 * waste that is discarded. Writes a snarkjs .zkey (which snarkjs can prove
 * with) and its verification_key.json.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/timing.h"
#include "groth16/groth16.h"
#include "io/io.h"
#include "r1cs/synth.h"

static const char test_only[] =
    "TEST-ONLY key: toxic waste was random and is discarded, so the key works,\n"
    "but nobody else can tell that it was discarded. Do not use it to protect\n"
    "anything of value; real keys come from a multi-party ceremony (snarkjs\n"
    "powersoftau + zkey contribute, or Filecoin's parameters).\n";

static const char setup_help[] =
    "usage: zkpipe setup [options] CIRCUIT OUT.zkey VK.json\n"
    "\n"
    "Makes a Groth16 proving key (BLS12-381, snarkjs convention) for CIRCUIT,\n"
    "a circom .r1cs file or synth:NAME:LOG2 (NAME porep, dense or chain), and\n"
    "writes it as a .zkey together with its verification_key.json.\n"
    "\n"
    "options:\n"
    "  --threads N   worker threads (default: one per CPU)\n"
    "  --help, -h    this text\n"
    "\n";

static int fail(const char *what, zp_err e, const zp__ioerr *why)
{
    fprintf(stderr, "zkpipe setup: %s: %s (%s)\n", what,
            why && why->msg[0] ? why->msg : zp_strerror(e), zp_errname(e));
    return 2;
}

static int load_circuit(zp__r1cs *cs, const char *spec, int threads)
{
    zp__ioerr why = {""};
    zp_err e;
    if (!strncmp(spec, "synth:", 6)) {
        zp__synth_spec sp;
        if (zp__synth_parse(&sp, spec)) {
            fprintf(stderr, "zkpipe setup: not a synthetic circuit (synth:porep|dense|chain:LOG2): %s\n",
                    spec);
            return 2;
        }
        sp.threads = threads;
        sp.keep_c = true;
        return (e = zp__synth_circuit(cs, &sp)) ? fail(spec, e, NULL) : 0;
    }
    return (e = zp__r1cs_load(cs, spec, &why)) ? fail(spec, e, &why) : 0;
}

static int run(const char *circuit, const char *zkey, const char *vkp, int threads)
{
    zp__r1cs cs;
    zp__pk pk;
    zp__ioerr why = {""};
    memset(&cs, 0, sizeof cs);
    memset(&pk, 0, sizeof pk);
    double t0 = zp__now();
    int rc = load_circuit(&cs, circuit, threads);
    if (rc)
        return rc;
    fputs(test_only, stderr);
    zp_err e = zp__setup(&pk, &cs, ZP_H_COSET, threads, NULL);
    if (e) {
        rc = fail("setup", e, NULL);
    } else if ((e = zp__zkey_save(zkey, &pk, &why))) {
        rc = fail(zkey, e, &why);
    } else if ((e = zp__vk_json_save(vkp, &pk.vk, &why))) {
        rc = fail(vkp, e, &why);
    } else {
        fprintf(stderr,
                "zkpipe setup: %llu constraints, %u public inputs, %u variables, domain %llu; "
                "wrote %s and %s in %.2f s (TEST-ONLY key)\n",
                (unsigned long long)cs.n_constraints, cs.n_public, cs.n_vars,
                (unsigned long long)pk.domain_size, zkey, vkp, zp__now() - t0);
    }
    zp__pk_free(&pk);
    zp__r1cs_free(&cs);
    return rc;
}

int zp__cmd_setup(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, setup_help)) {
        fputs(test_only, stdout);
        return 0;
    }
    const char *pos[3];
    int npos = 0, threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (zp__parse_int(argv[++i], 1, 4096, &threads)) {
                fprintf(stderr, "zkpipe setup: --threads needs a number from 1 to 4096\n");
                return 2;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "zkpipe setup: unknown option or missing value: %s\n", argv[i]);
            return 2;
        } else if (npos < 3) {
            pos[npos++] = argv[i];
        } else {
            npos = 4;
        }
    }
    if (npos != 3) {
        fprintf(stderr, "usage: zkpipe setup [--threads N] CIRCUIT OUT.zkey VK.json\n");
        return 2;
    }
    return run(pos[0], pos[1], pos[2], threads);
}
