/*
 * zkpipe witness: a satisfying witness of a synthetic circuit as a circom
 * .wtns, so that other provers (snarkjs) can prove the same circuit with a
 * key from `zkpipe setup` and their proofs can be compared with zkpipe's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/keyfile.h"
#include "io/io.h"
#include "r1cs/synth.h"
#include "tool/progress.h"
#include "tool/timing.h"

static const char witness_help[] =
    "usage: zkpipe witness [options] synth:NAME:LOG2 OUT.wtns\n"
    "\n"
    "Writes a satisfying witness of the synthetic circuit synth:NAME:LOG2 (NAME\n"
    "porep, dense or chain) as a .wtns file (atomically). The same --seed gives\n"
    "the same witness; 'zkpipe prove --circuit ... --seed S' proves that one.\n"
    "\n"
    "options:\n"
    "  --seed S        witness seed (default 1)\n"
    "  --public FILE   also write its public inputs as snarkjs' public.json\n"
    "  --threads N     worker threads (default: one per CPU)\n"
    "  --quiet         no progress on stderr\n"
    "  --help, -h      this text\n"
    "\n"
    "exit status: 0 written, 2 bad usage or a failure.\n";

typedef struct witness_args {
    const char *spec, *out, *pub;
    uint64_t seed;
    int threads;
} witness_args;

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "zkpipe witness: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    fprintf(stderr, "Run 'zkpipe witness --help' for usage.\n");
    return 2;
}

static int parse_args(witness_args *a, int argc, char **argv)
{
    const char *pos[2];
    int npos = 0;
    memset(a, 0, sizeof *a);
    a->seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(s, "--seed") && v) {
            char *end;
            errno = 0;
            a->seed = strtoull(v, &end, 10);
            if (errno || end == v || *end || v[0] == '-')
                return usage_error("--seed needs an unsigned integer, not", v);
            i++;
        } else if (!strcmp(s, "--threads") && v) {
            if (zp__parse_int(v, 1, 4096, &a->threads))
                return usage_error("--threads needs a number from 1 to 4096, not", v);
            i++;
        } else if (!strcmp(s, "--public") && v) {
            a->pub = argv[++i];
        } else if (s[0] == '-' && s[1]) {
            return usage_error("unknown option or missing value:", s);
        } else if (npos < 2) {
            pos[npos++] = s;
        } else {
            return usage_error("too many arguments", NULL);
        }
    }
    if (npos != 2)
        return usage_error("expected synth:NAME:LOG2 OUT.wtns", NULL);
    a->spec = pos[0];
    a->out = pos[1];
    return 0;
}

static int write_files(const witness_args *a, const zp_fr *w, const zp__r1cs *cs)
{
    zp__ioerr why = {""};
    zp_err e = zp__wtns_save(a->out, w, cs->n_vars, &why);
    if (e)
        return zp__cli_fail("witness", a->out, e, &why);
    if (a->pub && (e = zp__public_json_save(a->pub, w + 1, cs->n_public, &why))) {
        remove(a->out);
        return zp__cli_fail("witness", a->pub, e, &why);
    }
    return 0;
}

static int make_witness(const witness_args *a, zp__bar *bar)
{
    zp__synth_spec sp;
    if (zp__synth_parse(&sp, a->spec))
        return usage_error("not a synthetic circuit (synth:porep|dense|chain:LOG2):", a->spec);
    zp__progress progress = zp__bar_progress(bar);
    sp.threads = a->threads;
    sp.keep_c = false; /* the witness reads A and B only */
    sp.progress = &progress;
    double t0 = zp__now();
    zp__r1cs cs;
    zp_err e = zp__synth_circuit(&cs, &sp);
    if (e)
        return zp__cli_fail("witness", a->spec, e, NULL);
    int rc = 0;
    zp_fr *w = malloc((size_t)cs.n_vars * sizeof *w);
    if (!w)
        rc = zp__cli_fail("witness", "witness", ZP_E_NOMEM, NULL);
    else if ((e = zp__synth_witness(w, &cs, &sp, a->seed)))
        rc = zp__cli_fail("witness", "generating the witness", e, NULL);
    else if (!(rc = write_files(a, w, &cs)))
        fprintf(stderr, "zkpipe witness: %s seed %llu: %u values (%u public) -> %s in %.2f s\n",
                a->spec, (unsigned long long)a->seed, cs.n_vars, cs.n_public, a->out,
                zp__now() - t0);
    free(w);
    zp__r1cs_free(&cs);
    return rc;
}

int zp__cmd_witness(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, witness_help))
        return 0;
    zp__bar bar;
    zp__bar_from_args(&bar, &argc, argv);
    witness_args a;
    int rc = parse_args(&a, argc, argv);
    if (!rc)
        rc = make_witness(&a, &bar);
    zp__bar_close(&bar);
    return rc;
}
