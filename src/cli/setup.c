/*
 * zkpipe setup: a TEST-ONLY Groth16 key for a circuit, from random toxic
 * waste that is discarded. Writes any of: a snarkjs .zkey (which snarkjs
 * can prove with) and verification_key.json, a native .zpk, and in the
 * bellperson convention its .params and .vk files.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/keyfile.h"
#include "groth16/groth16.h"
#include "io/bellperson.h"
#include "io/io.h"
#include "io/zpk.h"
#include "r1cs/synth.h"
#include "tool/progress.h"
#include "tool/timing.h"

static const char test_only[] =
    "TEST-ONLY key: toxic waste was random and is discarded, so the key works,\n"
    "but nobody else can tell that it was discarded. Do not use it to protect\n"
    "anything of value; real keys come from a multi-party ceremony (snarkjs\n"
    "powersoftau + zkey contribute, or Filecoin's parameters).\n";

static const char setup_help[] =
    "usage: zkpipe setup [options] CIRCUIT OUT.zkey VK.json\n"
    "       zkpipe setup [options] CIRCUIT --zpk OUT.zpk [more outputs]\n"
    "\n"
    "Makes a Groth16 proving key (BLS12-381) for CIRCUIT, a circom .r1cs file or\n"
    "synth:NAME:LOG2 (NAME porep, dense or chain), and writes it in the formats\n"
    "asked for (each file atomically; all of them or none).\n"
    "\n"
    "options:\n"
    "  --convention C   snarkjs (default: H on the odd coset, 5-based roots) or\n"
    "                   bellperson (H = tau^i Z(tau)/delta, 7-based roots)\n"
    "  --zpk FILE       the native key file (either convention)\n"
    "  --zkey FILE      a snarkjs .zkey (snarkjs convention)\n"
    "  --vk-json FILE   verification_key.json (either convention)\n"
    "  --params FILE    a bellperson .params (bellperson convention)\n"
    "  --vk FILE        a bellperson .vk (bellperson convention)\n"
    "  --threads N      worker threads (default: one per CPU)\n"
    "  --quiet          no progress on stderr\n"
    "  --help, -h       this text\n"
    "\n"
    "The form with two names after CIRCUIT is --zkey OUT.zkey --vk-json VK.json.\n"
    "\n";

typedef struct setup_args {
    const char *circuit;
    const char *zkey, *vk_json, *zpk, *params, *vk;
    zp_h_conv conv;
    bool conv_given;
    int threads;
} setup_args;

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "zkpipe setup: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    fprintf(stderr, "Run 'zkpipe setup --help' for usage.\n");
    return 2;
}

static int load_circuit(zp__r1cs *cs, const char *spec, int threads)
{
    zp__ioerr why = {""};
    zp_err e;
    if (!strncmp(spec, "synth:", 6)) {
        zp__synth_spec sp;
        if (zp__synth_parse(&sp, spec))
            return usage_error("not a synthetic circuit (synth:porep|dense|chain:LOG2):", spec);
        sp.threads = threads;
        sp.keep_c = true;
        return (e = zp__synth_circuit(cs, &sp)) ? zp__cli_fail("setup", spec, e, NULL) : 0;
    }
    zp__cli_kind k = zp__cli_file_kind(spec, NULL);
    if (k != ZP__KIND_R1CS && k != ZP__KIND_MISSING) {
        fprintf(stderr, "zkpipe setup: %s is %s, not a circom .r1cs circuit\n", spec,
                zp__cli_kind_name(k));
        return 2;
    }
    return (e = zp__r1cs_load(cs, spec, &why)) ? zp__cli_fail("setup", spec, e, &why) : 0;
}

enum out_kind { OUT_ZPK, OUT_ZKEY, OUT_PARAMS, OUT_VK, OUT_VK_JSON, OUT_COUNT };

static zp_err write_one(enum out_kind k, const char *path, const zp__pk *pk, int threads,
                        zp__ioerr *why)
{
    switch (k) {
    case OUT_ZPK: return zp__zpk_save(path, pk, threads, why);
    case OUT_ZKEY: return zp__zkey_save(path, pk, why);
    case OUT_PARAMS: return zp__params_save(path, pk, threads, why);
    case OUT_VK: return zp__params_vk_save(path, &pk->vk, why);
    default: return zp__vk_json_save(path, &pk->vk, why);
    }
}

static void out_paths(const char *out[OUT_COUNT], const setup_args *a)
{
    out[OUT_ZPK] = a->zpk;
    out[OUT_ZKEY] = a->zkey;
    out[OUT_PARAMS] = a->params;
    out[OUT_VK] = a->vk;
    out[OUT_VK_JSON] = a->vk_json;
}

/* Writes every requested output; on a failure removes those already
 * written by this run, so it is all of them or none. */
static int write_outputs(const setup_args *a, const zp__pk *pk)
{
    const char *out[OUT_COUNT];
    out_paths(out, a);
    zp__ioerr why = {""};
    for (int k = 0; k < OUT_COUNT; k++) {
        if (!out[k])
            continue;
        zp_err e = write_one((enum out_kind)k, out[k], pk, a->threads, &why);
        if (!e)
            continue;
        for (int j = 0; j < k; j++)
            if (out[j])
                unlink(out[j]);
        return zp__cli_fail("setup", out[k], e, &why);
    }
    return 0;
}

static void print_done(const setup_args *a, const zp__r1cs *cs, const zp__pk *pk, double secs)
{
    fprintf(stderr,
            "zkpipe setup: %llu constraints, %u public inputs, %u variables, domain %llu, "
            "%s convention; %.2f s (TEST-ONLY key)\n",
            (unsigned long long)cs->n_constraints, cs->n_public, cs->n_vars,
            (unsigned long long)pk->domain_size,
            pk->h_conv == ZP_H_TAU ? "bellperson" : "snarkjs", secs);
    const char *out[OUT_COUNT];
    out_paths(out, a);
    for (int k = 0; k < OUT_COUNT; k++)
        if (out[k])
            fprintf(stderr, "  wrote %s\n", out[k]);
}

static int run(const setup_args *a, zp__bar *bar)
{
    zp__r1cs cs;
    zp__pk pk;
    memset(&cs, 0, sizeof cs);
    memset(&pk, 0, sizeof pk);
    double t0 = zp__now();
    int rc = load_circuit(&cs, a->circuit, a->threads);
    if (rc)
        return rc;
    fputs(test_only, stderr);
    zp__progress progress = zp__bar_progress(bar);
    zp_err e = zp__setup_progress(&pk, &cs, a->conv, a->threads, NULL, &progress);
    if (e)
        rc = zp__cli_fail("setup", "setup", e, NULL);
    else if (!(rc = write_outputs(a, &pk)))
        print_done(a, &cs, &pk, zp__now() - t0);
    zp__pk_free(&pk);
    zp__r1cs_free(&cs);
    return rc;
}

static int parse_opt(setup_args *a, int *i, int argc, char **argv)
{
    const char *s = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    const char **slot = NULL;
    if (!v)
        return usage_error("unknown option or missing value:", s);
    if (!strcmp(s, "--threads")) {
        if (zp__parse_int(v, 1, 4096, &a->threads))
            return usage_error("--threads needs a number from 1 to 4096, not", v);
    } else if (!strcmp(s, "--convention")) {
        if (!strcmp(v, "snarkjs"))
            a->conv = ZP_H_COSET;
        else if (!strcmp(v, "bellperson"))
            a->conv = ZP_H_TAU;
        else
            return usage_error("--convention is snarkjs or bellperson, not", v);
        a->conv_given = true;
    } else if (!strcmp(s, "--zpk")) {
        slot = &a->zpk;
    } else if (!strcmp(s, "--zkey")) {
        slot = &a->zkey;
    } else if (!strcmp(s, "--vk-json")) {
        slot = &a->vk_json;
    } else if (!strcmp(s, "--params")) {
        slot = &a->params;
    } else if (!strcmp(s, "--vk")) {
        slot = &a->vk;
    } else {
        return usage_error("unknown option:", s);
    }
    if (slot)
        *slot = v;
    ++*i;
    return 0;
}

/* The outputs must suit the convention: a .zkey is snarkjs-only, .params
 * and .vk are bellperson-only (their H query differs). */
static int check_outputs(setup_args *a)
{
    if (!a->conv_given)
        a->conv = (a->params || a->vk) ? ZP_H_TAU : ZP_H_COSET;
    if (a->zkey && a->conv != ZP_H_COSET)
        return usage_error("a .zkey is always in the snarkjs convention; drop --zkey or use "
                           "--convention snarkjs", NULL);
    if ((a->params || a->vk) && a->conv != ZP_H_TAU)
        return usage_error("--params and --vk write bellperson files: they need "
                           "--convention bellperson", NULL);
    if (!a->zpk && !a->zkey && !a->vk_json && !a->params && !a->vk)
        return usage_error("no output: give OUT.zkey VK.json, or --zpk, --params, --vk, ...",
                           NULL);
    return 0;
}

static int parse_args(setup_args *a, int argc, char **argv)
{
    const char *pos[3];
    int npos = 0;
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) {
            int r = parse_opt(a, &i, argc, argv);
            if (r)
                return r;
        } else if (npos < 3) {
            pos[npos++] = argv[i];
        } else {
            return usage_error("too many arguments", NULL);
        }
    }
    if (npos != 1 && npos != 3)
        return usage_error("expected CIRCUIT, or CIRCUIT OUT.zkey VK.json", NULL);
    a->circuit = pos[0];
    if (npos == 3) {
        if (a->zkey || a->vk_json)
            return usage_error("OUT.zkey VK.json given twice (by position and --zkey/--vk-json)",
                               NULL);
        a->zkey = pos[1];
        a->vk_json = pos[2];
    }
    return check_outputs(a);
}

int zp__cmd_setup(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, setup_help)) {
        fputs(test_only, stdout);
        return 0;
    }
    zp__bar bar;
    zp__bar_from_args(&bar, &argc, argv);
    setup_args a;
    int rc = parse_args(&a, argc, argv);
    if (!rc)
        rc = run(&a, &bar);
    zp__bar_close(&bar);
    return rc;
}
