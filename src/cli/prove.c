/*
 * zkpipe prove: one Groth16 proof on the CPU, snarkjs/rapidsnark style.
 * The key is a snarkjs .zkey (every point checked while reading) or a
 * zkpipe .zpk (mapped, checksummed), told apart by magic. The proof is
 * verified before anything is written, and every output is written
 * atomically, all of them or none, so a failed run leaves no proof behind.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/keyfile.h"
#include "gpu/gpu.h"
#include "groth16/gpu_prover.h"
#include "groth16/groth16.h"
#include "io/io.h"
#include "r1cs/synth.h"
#include "tool/progress.h"
#include "tool/timing.h"
#include "tool/tune.h"

static const char prove_help[] =
    "usage: zkpipe prove [options] KEY witness.wtns proof.json public.json\n"
    "       zkpipe prove [options] KEY witness.wtns --proof-bin proof.bin [--public public.json]\n"
    "       zkpipe prove [options] --circuit synth:NAME:LOG2 --key KEY [--seed S] OUTPUTS\n"
    "\n"
    "Makes a Groth16 proof (BLS12-381) on the GPU when one is present, else on\n"
    "the CPU (the two give the same proof for the same r, s), verifies it against the key's\n"
    "verifying key, and only then writes the outputs (each atomically; all or\n"
    "none). KEY is a snarkjs .zkey (every point is checked the first time; the\n"
    "checked key is then cached as a .zpk in ~/.cache/zkpipe, or $ZKPIPE_CACHE\n"
    "(\"off\" disables it), and mapped from there next time) or a zkpipe .zpk\n"
    "(mapped and checksummed: fast), recognised by content.\n"
    "A witness that does not satisfy the circuit gives a message, exit status 1\n"
    "and no output files.\n"
    "\n"
    "Outputs: proof.json and public.json in snarkjs' format, and/or with\n"
    "--proof-bin the 192-byte bellperson proof (A, B, C zcash-compressed).\n"
    "\n"
    "The --circuit form proves a synthetic circuit with a witness generated in\n"
    "process (from --seed, default 1); KEY must come from 'zkpipe setup' for\n"
    "the same synth:NAME:LOG2.\n"
    "\n"
    "options:\n"
    "  --proof-bin FILE  also (or only) write the 192-byte proof\n"
    "  --proof FILE      proof.json, as an option instead of by position\n"
    "  --public FILE     public.json, as an option instead of by position\n"
    "  --backend B       auto (default: the GPU when a CUDA device is visible and\n"
    "                    the key carries its matrices, else the CPU), gpu or cpu\n"
    "  --threads N       worker threads (default: one per CPU)\n"
    "  --r1cs FILE       check the witness against this circuit first, naming the\n"
    "                    first constraint it fails\n"
    "  --verbose, -v     print the time of every stage (a one-line summary is\n"
    "                    always printed to stderr)\n"
    "  --quiet           no progress on stderr\n"
    ZP__CLI_TUNE_HELP_HEAD ZP__CLI_TUNE_HELP_GPU ZP__CLI_TUNE_HELP_CPU
    "  --help, -h        this text\n"
    "\n"
    "exit status: 0 proof written, 1 the witness does not fit or does not satisfy\n"
    "the circuit, 2 bad usage, unreadable input or another failure.\n";

typedef struct prove_args {
    const char *key, *wtns, *proof, *pub, *proof_bin;
    const char *synth, *r1cs;
    const char *backend; /* "auto", "gpu" or "cpu" */
    uint64_t seed;
    int threads;
    bool verbose;
    zp__cli_tune tune;
    zp__progress progress; /* the key's checks and witness generation's */
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

/* One option at argv[*i] (and its value); returns 0 when taken, 1 when s
 * is not an option this command knows (or lacks its value), 2 after
 * printing a bad value. */
static int parse_opt(prove_args *a, int *i, int argc, char **argv)
{
    const char *s = argv[*i];
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    const char **slot = NULL;
    if (!strcmp(s, "--verbose") || !strcmp(s, "-v")) {
        a->verbose = true;
        return 0;
    }
    if (!v)
        return 1;
    if (!strcmp(s, "--threads")) {
        if (zp__parse_int(v, 1, 4096, &a->threads))
            return usage_error("--threads needs a number from 1 to 4096, not", v);
    } else if (!strcmp(s, "--tune")) {
        if (zp__cli_tune_parse(&a->tune, ZP__TUNE_GPU | ZP__TUNE_CPU, "prove", v))
            return 2;
    } else if (!strcmp(s, "--seed")) {
        if (parse_u64(v, &a->seed))
            return usage_error("--seed needs an unsigned integer, not", v);
    } else if (!strcmp(s, "--backend")) {
        if (strcmp(v, "auto") && strcmp(v, "gpu") && strcmp(v, "cpu"))
            return usage_error("--backend needs auto, gpu or cpu, not", v);
        slot = &a->backend;
    } else if (!strcmp(s, "--circuit")) {
        slot = &a->synth;
    } else if (!strcmp(s, "--key") || !strcmp(s, "--zkey")) {
        slot = &a->key;
    } else if (!strcmp(s, "--r1cs")) {
        slot = &a->r1cs;
    } else if (!strcmp(s, "--proof-bin")) {
        slot = &a->proof_bin;
    } else if (!strcmp(s, "--proof")) {
        slot = &a->proof;
    } else if (!strcmp(s, "--public")) {
        slot = &a->pub;
    } else {
        return 1;
    }
    if (slot)
        *slot = v;
    ++*i;
    return 0;
}

/* The positional outputs "proof.json public.json" (both or none) after
 * the inputs; outputs given as options as well are an error. */
static int take_outputs(prove_args *a, const char **pos, int n)
{
    if (n != 0 && n != 2)
        return usage_error("give both proof.json and public.json, or neither with --proof-bin",
                           NULL);
    if (n == 2) {
        if (a->proof || a->pub)
            return usage_error("proof.json and public.json given twice (by position and "
                               "--proof/--public)", NULL);
        a->proof = pos[0];
        a->pub = pos[1];
    }
    if (!a->proof && !a->proof_bin)
        return usage_error("no proof output: give proof.json public.json, or --proof-bin FILE",
                           NULL);
    return 0;
}

static int parse_args(prove_args *a, int argc, char **argv)
{
    const char *pos[4];
    int npos = 0;
    memset(a, 0, sizeof *a);
    a->seed = 1;
    zp__cli_tune_default(&a->tune);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (s[0] == '-' && s[1]) {
            int r = parse_opt(a, &i, argc, argv);
            if (r == 1)
                return usage_error("unknown option or missing value:", s);
            if (r)
                return r;
        } else if (npos < 4) {
            pos[npos++] = s;
        } else {
            return usage_error("too many arguments", NULL);
        }
    }
    if (a->synth) {
        if (!a->key)
            return usage_error("--circuit needs --key KEY (.zkey or .zpk)", NULL);
        if (a->r1cs)
            return usage_error("--r1cs does not go with --circuit", NULL);
        return take_outputs(a, pos, npos);
    }
    if (a->key || npos < 2)
        return usage_error("expected KEY witness.wtns and the outputs", NULL);
    a->key = pos[0];
    a->wtns = pos[1];
    return take_outputs(a, pos + 2, npos - 2);
}

/* The circuit, key and witness of a run; the file form leaves cs empty
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

static int load_synth(prove_in *in, const prove_args *a)
{
    zp__synth_spec sp;
    zp_err e;
    if (zp__synth_parse(&sp, a->synth))
        return usage_error("not a synthetic circuit (synth:porep|dense|chain:LOG2):", a->synth);
    sp.threads = a->threads;
    sp.progress = &a->progress;
    if (zp__cli_load_pk(&in->pk, a->key, a->threads, &a->progress, "prove", NULL))
        return 2;
    if ((e = zp__synth_circuit(&in->cs, &sp)))
        return zp__cli_fail("prove", "building the circuit", e, NULL);
    in->have_cs = true;
    if (in->cs.n_vars != in->pk.n_vars || in->cs.n_public != in->pk.n_public) {
        fprintf(stderr,
                "zkpipe prove: %s was not made for %s (key: %u variables, %u public; "
                "circuit: %u, %u)\n",
                a->key, a->synth, in->pk.n_vars, in->pk.n_public, in->cs.n_vars,
                in->cs.n_public);
        return 2;
    }
    in->n_w = in->cs.n_vars;
    in->w = malloc((size_t)in->n_w * sizeof *in->w);
    if (!in->w)
        return zp__cli_fail("prove", "witness", ZP_E_NOMEM, NULL);
    if ((e = zp__synth_witness(in->w, &in->cs, &sp, a->seed)))
        return zp__cli_fail("prove", "generating the witness", e, NULL);
    return 0;
}

static int load_files(prove_in *in, const prove_args *a)
{
    zp__ioerr why = {""};
    zp_err e;
    zp__cli_kind k = zp__cli_file_kind(a->wtns, NULL);
    if (k == ZP__KIND_MISSING) {
        fprintf(stderr, "zkpipe prove: %s: %s\n", a->wtns, strerror(errno));
        return 2;
    }
    if (k != ZP__KIND_WTNS) {
        fprintf(stderr, "zkpipe prove: %s is %s, not a .wtns witness\n", a->wtns,
                zp__cli_kind_name(k));
        return 2;
    }
    if (zp__cli_load_pk(&in->pk, a->key, a->threads, &a->progress, "prove", NULL))
        return 2;
    /* A count that differs from the key's is refused by zp__prove with a
     * message naming both numbers; w[0] is checked here already. */
    if ((e = zp__wtns_load(&in->w, &in->n_w, a->wtns, 0, &why))) {
        zp__cli_fail("prove", a->wtns, e, &why);
        return e == ZP_E_WITNESS ? 1 : 2;
    }
    if (a->r1cs) {
        if ((e = zp__r1cs_load(&in->cs, a->r1cs, &why)))
            return zp__cli_fail("prove", a->r1cs, e, &why);
        in->have_cs = true;
    }
    return 0;
}

static void print_times(const zp__prove_times *t, double load, bool verbose)
{
    double msm = t->msm_a + t->msm_b1 + t->msm_b2 + t->msm_l + t->msm_h + t->msm_wait;
    fprintf(stderr,
            "zkpipe prove: proof verified; %.3f s (eval %.3f, h %.3f, msm %.3f%s, finish %.3f, "
            "verify %.3f; loading %.3f)\n",
            zp__prove_times_total(t), t->eval, t->h, msm,
            t->msm_beside_h ? " of which L, A, B1, B2 beside h" : "", t->finish, t->verify,
            load);
    if (!verbose)
        return;
    const struct {
        const char *name;
        double v;
    } rows[] = {{"load", load},        {"eval", t->eval},     {"h", t->h},
                {"msm A", t->msm_a},   {"msm B1", t->msm_b1}, {"msm B2", t->msm_b2},
                {"msm L", t->msm_l},   {"msm H", t->msm_h},   {"msm wait", t->msm_wait},
                {"finish", t->finish},
                {"verify", t->verify}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        fprintf(stderr, "  %-8s %10.3f ms\n", rows[i].name, rows[i].v * 1e3);
}

/* All outputs or none: when one cannot be written, the ones already
 * written by this run are taken away again. */
static int write_outputs(const prove_args *a, const zp__proof *p, const prove_in *in)
{
    zp__ioerr why = {""};
    const char *done[3];
    int ndone = 0;
    const char *what = NULL;
    zp_err e = ZP_OK;
    if (a->proof_bin) {
        uint8_t bin[ZP__PROOF_BYTES];
        what = a->proof_bin;
        if (!(e = zp__proof_encode(bin, p)) &&
            !(e = zp__file_write_atomic(a->proof_bin, bin, sizeof bin, &why)))
            done[ndone++] = a->proof_bin;
    }
    if (!e && a->proof && !(e = zp__proof_json_save(what = a->proof, p, &why)))
        done[ndone++] = a->proof;
    if (!e && a->pub && !(e = zp__public_json_save(what = a->pub, in->w + 1, in->pk.n_public, &why)))
        done[ndone++] = a->pub;
    if (!e)
        return 0;
    while (ndone > 0)
        unlink(done[--ndone]);
    return zp__cli_fail("prove", what, e, &why);
}

/*
 * Backend selection. auto takes the GPU when a device is visible; if the
 * GPU cannot take this key (e.g. a key without matrices, or too large), it
 * says why and proves on the CPU. A proof that fails on the GPU is not
 * retried on the CPU: the failure (e.g. an unsatisfying witness) is the
 * witness's, and both backends compute the same thing.
 */
static zp_err prove_on(const prove_args *a, prove_in *in, const zp__prove_opts *o,
                       zp__proof *p, zp__prove_times *t, zp__ioerr *why, const char **used)
{
    bool want_gpu = a->backend && !strcmp(a->backend, "gpu");
    bool want_cpu = a->backend && !strcmp(a->backend, "cpu");
    if (!want_cpu && zp__gpu_count() > 0) {
        zp__g16_gpu *g = NULL;
        zp__g16_gpu_opts go;
        zp__g16_gpu_opts_default(&go);
        go.tuning = a->tune.gpu;
        zp_err e = zp__g16_gpu_open(&g, &in->pk, 0, a->threads, &go, why);
        if (!e) {
            *used = "gpu";
            e = zp__g16_gpu_prove(g, p, in->w, in->n_w, o, t, why);
            zp__g16_gpu_close(g);
            return e;
        }
        if (want_gpu)
            return e;
        fprintf(stderr, "zkpipe prove: the GPU cannot take this key (%s); proving on the CPU\n",
                why->msg[0] ? why->msg : zp_strerror(e));
        why->msg[0] = 0;
    } else if (want_gpu) {
        return zp__fail(why, ZP_E_NO_GPU, "--backend gpu: %s",
                        zp__gpu_compiled() ? "no CUDA device is visible"
                                           : "this build has no CUDA backend");
    }
    *used = "cpu";
    return zp__prove(p, &in->pk, in->w, in->n_w, o, t, why);
}

int zp__cmd_prove(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, prove_help))
        return 0;
    zp__bar bar;
    zp__bar_from_args(&bar, &argc, argv);
    prove_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc) {
        zp__bar_close(&bar);
        return rc;
    }
    a.progress = zp__bar_progress(&bar);
    zp__cli_tune_apply(&a.tune);
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
        const char *used = "cpu";
        zp_err e = prove_on(&a, &in, &o, &p, &t, &why, &used);
        if (a.verbose || !e)
            fprintf(stderr, "zkpipe prove: backend %s\n", used);
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
    zp__bar_close(&bar);
    return rc;
}
