/*
 * zkpipe prove: one Groth16 proof on the CPU, snarkjs/rapidsnark style.
 * The proof is verified before anything is written, and both outputs are
 * written atomically, so a failed run leaves no proof.json behind.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/timing.h"
#include "groth16/groth16.h"
#include "io/io.h"
#include "r1cs/synth.h"

static const char prove_help[] =
    "usage: zkpipe prove [options] circuit.zkey witness.wtns proof.json public.json\n"
    "       zkpipe prove [options] --circuit synth:NAME:LOG2 --key KEY.zkey [--seed S]\n"
    "                    proof.json public.json\n"
    "\n"
    "Makes a Groth16 proof (BLS12-381) on the CPU, verifies it against the key's\n"
    "verifying key, and only then writes proof.json and public.json in snarkjs'\n"
    "format (each atomically). A witness that does not satisfy the circuit gives\n"
    "a message, exit status 1 and no output files.\n"
    "\n"
    "The second form proves a synthetic circuit with a witness generated in\n"
    "process (from --seed, default 1); KEY.zkey must come from\n"
    "'zkpipe setup synth:NAME:LOG2 KEY.zkey vk.json'.\n"
    "\n"
    "options:\n"
    "  --threads N     worker threads (default: one per CPU)\n"
    "  --r1cs FILE     check the witness against this circuit first, naming the\n"
    "                  first constraint it fails\n"
    "  --verbose, -v   print the time of every stage (a one-line summary is\n"
    "                  always printed to stderr)\n"
    "  --help, -h      this text\n"
    "\n"
    "exit status: 0 proof written, 1 the witness does not fit or does not satisfy\n"
    "the circuit, 2 bad usage, unreadable input or another failure.\n";

typedef struct prove_args {
    const char *zkey, *wtns, *proof, *pub;
    const char *synth, *r1cs;
    uint64_t seed;
    int threads;
    bool verbose;
} prove_args;

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "zkpipe prove: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    fprintf(stderr, "Run 'zkpipe prove --help' for usage.\n");
    return 2;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

static int parse_args(prove_args *a, int argc, char **argv)
{
    const char *pos[4];
    int npos = 0;
    memset(a, 0, sizeof *a);
    a->seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool has_val = i + 1 < argc;
        if (!strcmp(s, "--verbose") || !strcmp(s, "-v")) {
            a->verbose = true;
        } else if (!strcmp(s, "--threads") && has_val) {
            if (zp__parse_int(argv[++i], 1, 4096, &a->threads))
                return usage_error("--threads needs a number from 1 to 4096, not", argv[i]);
        } else if (!strcmp(s, "--seed") && has_val) {
            if (parse_u64(argv[++i], &a->seed))
                return usage_error("--seed needs an unsigned integer, not", argv[i]);
        } else if (!strcmp(s, "--circuit") && has_val) {
            a->synth = argv[++i];
        } else if ((!strcmp(s, "--key") || !strcmp(s, "--zkey")) && has_val) {
            a->zkey = argv[++i];
        } else if (!strcmp(s, "--r1cs") && has_val) {
            a->r1cs = argv[++i];
        } else if (s[0] == '-' && s[1]) {
            return usage_error("unknown option or missing value:", s);
        } else if (npos < 4) {
            pos[npos++] = s;
        } else {
            return usage_error("too many arguments", NULL);
        }
    }
    if (a->synth) {
        if (npos != 2 || !a->zkey)
            return usage_error("--circuit needs --key KEY.zkey and proof.json public.json", NULL);
        if (a->r1cs)
            return usage_error("--r1cs does not go with --circuit", NULL);
        a->proof = pos[0];
        a->pub = pos[1];
        return 0;
    }
    if (npos != 4 || a->zkey)
        return usage_error("expected circuit.zkey witness.wtns proof.json public.json", NULL);
    a->zkey = pos[0];
    a->wtns = pos[1];
    a->proof = pos[2];
    a->pub = pos[3];
    return 0;
}

/* The circuit, key and witness of a run; the zkey form leaves cs empty
 * unless --r1cs is given. */
typedef struct prove_in {
    zp__pk pk;
    zp__r1cs cs;
    bool have_cs;
    zp_fr *w;
    uint64_t n_w;
} prove_in;

static void prove_in_free(prove_in *in)
{
    zp__pk_free(&in->pk);
    zp__r1cs_free(&in->cs);
    free(in->w);
}

static int fail_io(const char *what, zp_err e, const zp__ioerr *why)
{
    fprintf(stderr, "zkpipe prove: %s: %s (%s)\n", what, why->msg[0] ? why->msg : zp_strerror(e),
            zp_errname(e));
    return 2;
}

static int load_synth(prove_in *in, const prove_args *a)
{
    zp__synth_spec sp;
    zp__ioerr why = {""};
    zp_err e;
    if (zp__synth_parse(&sp, a->synth))
        return usage_error("not a synthetic circuit (synth:porep|dense|chain:LOG2):", a->synth);
    sp.threads = a->threads;
    if ((e = zp__zkey_load(&in->pk, a->zkey, &why)))
        return fail_io(a->zkey, e, &why);
    if ((e = zp__synth_circuit(&in->cs, &sp)))
        return fail_io("building the circuit", e, &why);
    in->have_cs = true;
    if (in->cs.n_vars != in->pk.n_vars || in->cs.n_public != in->pk.n_public) {
        fprintf(stderr,
                "zkpipe prove: %s was not made for %s (key: %u variables, %u public; "
                "circuit: %u, %u)\n",
                a->zkey, a->synth, in->pk.n_vars, in->pk.n_public, in->cs.n_vars,
                in->cs.n_public);
        return 2;
    }
    in->n_w = in->cs.n_vars;
    in->w = malloc((size_t)in->n_w * sizeof *in->w);
    if (!in->w)
        return fail_io("witness", ZP_E_NOMEM, &why);
    if ((e = zp__synth_witness(in->w, &in->cs, &sp, a->seed)))
        return fail_io("generating the witness", e, &why);
    return 0;
}

static int load_files(prove_in *in, const prove_args *a)
{
    zp__ioerr why = {""};
    zp_err e;
    if ((e = zp__zkey_load(&in->pk, a->zkey, &why)))
        return fail_io(a->zkey, e, &why);
    /* A count that differs from the key's is refused by zp__prove with a
     * message naming both numbers; w[0] is checked here already. */
    if ((e = zp__wtns_load(&in->w, &in->n_w, a->wtns, 0, &why))) {
        fail_io(a->wtns, e, &why);
        return e == ZP_E_WITNESS ? 1 : 2;
    }
    if (a->r1cs) {
        if ((e = zp__r1cs_load(&in->cs, a->r1cs, &why)))
            return fail_io(a->r1cs, e, &why);
        in->have_cs = true;
    }
    return 0;
}

static void print_times(const zp__prove_times *t, double load, bool verbose)
{
    double msm = t->msm_a + t->msm_b1 + t->msm_b2 + t->msm_l + t->msm_h;
    double total = t->eval + t->h + msm + t->finish + t->verify;
    fprintf(stderr,
            "zkpipe prove: proof verified; %.3f s (eval %.3f, h %.3f, msm %.3f, finish %.3f, "
            "verify %.3f; loading %.3f)\n",
            total, t->eval, t->h, msm, t->finish, t->verify, load);
    if (!verbose)
        return;
    const struct {
        const char *name;
        double v;
    } rows[] = {{"load", load},        {"eval", t->eval},     {"h", t->h},
                {"msm A", t->msm_a},   {"msm B1", t->msm_b1}, {"msm B2", t->msm_b2},
                {"msm L", t->msm_l},   {"msm H", t->msm_h},   {"finish", t->finish},
                {"verify", t->verify}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        fprintf(stderr, "  %-8s %10.3f ms\n", rows[i].name, rows[i].v * 1e3);
}

/* Both files or neither: a public.json that cannot be written takes the
 * new proof.json away again. */
static int write_outputs(const prove_args *a, const zp__proof *p, const prove_in *in)
{
    zp__ioerr why = {""};
    zp_err e = zp__proof_json_save(a->proof, p, &why);
    if (!e && (e = zp__public_json_save(a->pub, in->w + 1, in->pk.n_public, &why)))
        unlink(a->proof);
    if (e) {
        fprintf(stderr, "zkpipe prove: writing the outputs: %s\n", why.msg[0] ? why.msg : zp_strerror(e));
        return 2;
    }
    return 0;
}

int zp__cmd_prove(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, prove_help))
        return 0;
    prove_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc)
        return rc;
    prove_in in;
    memset(&in, 0, sizeof in);
    double t0 = zp__now();
    rc = a.synth ? load_synth(&in, &a) : load_files(&in, &a);
    double load = zp__now() - t0;
    if (!rc) {
        zp__prove_opts o;
        zp__prove_opts_default(&o);
        o.threads = a.threads;
        o.cs = in.have_cs ? &in.cs : NULL;
        zp__proof p;
        zp__prove_times t;
        zp__ioerr why = {""};
        zp_err e = zp__prove(&p, &in.pk, in.w, in.n_w, &o, &t, &why);
        if (e) {
            fprintf(stderr, "zkpipe prove: %s (%s)\n", why.msg[0] ? why.msg : zp_strerror(e),
                    zp_errname(e));
            rc = (e == ZP_E_UNSATISFIED || e == ZP_E_WITNESS) ? 1 : 2;
        } else {
            print_times(&t, load, a.verbose);
            rc = write_outputs(&a, &p, &in);
        }
    }
    prove_in_free(&in);
    return rc;
}
