/*
 * zkpipe import: turns a proving key from another prover into zkpipe's
 * native .zpk, after full validation, so that later loads are a mapping
 * and a checksum. A snarkjs .zkey carries everything; a bellperson .params
 * lacks the density maps and matrices, which come from its circuit.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/bellperson.h"
#include "io/io.h"
#include "io/zpk.h"
#include "r1cs/synth.h"
#include "tool/progress.h"
#include "tool/timing.h"

static const char import_help[] =
    "usage: zkpipe import [options] IN OUT.zpk\n"
    "\n"
    "Reads a Groth16 proving key for BLS12-381, checks every point (on the\n"
    "curve, in the subgroup) and every count, and writes it as a .zpk, zkpipe's\n"
    "native key file (mmap-able, checksummed per section; written atomically).\n"
    "\n"
    "IN is either\n"
    "  a snarkjs .zkey (recognised by its magic), which holds everything, or\n"
    "  a bellperson/Filecoin .params file, which does not hold the constraint\n"
    "  matrices nor which variables occur in A and B: give its circuit with\n"
    "  --circuit or --r1cs. The circuit must be the one the parameters were\n"
    "  made for (its variable, input and A/B counts are checked).\n"
    "\n"
    "options:\n"
    "  --circuit synth:NAME:LOG2  the circuit of a .params (NAME porep, dense, chain)\n"
    "  --r1cs FILE                the circuit of a .params as a circom .r1cs\n"
    "  --threads N                worker threads (default: one per CPU)\n"
    "  --quiet                    no progress on stderr\n"
    "  --help, -h                 this text\n"
    "\n"
    "exit status: 0 written, 2 bad usage or a key or circuit that fails a check.\n";

typedef struct import_args {
    const char *in, *out, *synth, *r1cs;
    int threads;
    zp__progress progress; /* the point checks' (--quiet: off) */
} import_args;

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "zkpipe import: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    fprintf(stderr, "Run 'zkpipe import --help' for usage.\n");
    return 2;
}

static int fail(const char *what, zp_err e, const zp__ioerr *why)
{
    fprintf(stderr, "zkpipe import: %s: %s (%s)\n", what,
            why && why->msg[0] ? why->msg : zp_strerror(e), zp_errname(e));
    return 2;
}

static int parse_args(import_args *a, int argc, char **argv)
{
    const char *pos[2];
    int npos = 0;
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool has_val = i + 1 < argc;
        if (!strcmp(s, "--threads") && has_val) {
            if (zp__parse_int(argv[++i], 1, 4096, &a->threads))
                return usage_error("--threads needs a number from 1 to 4096, not", argv[i]);
        } else if (!strcmp(s, "--circuit") && has_val) {
            a->synth = argv[++i];
        } else if (!strcmp(s, "--r1cs") && has_val) {
            a->r1cs = argv[++i];
        } else if (s[0] == '-' && s[1]) {
            return usage_error("unknown option or missing value:", s);
        } else if (npos < 2) {
            pos[npos++] = s;
        } else {
            return usage_error("too many arguments", NULL);
        }
    }
    if (npos != 2)
        return usage_error("expected IN OUT.zpk", NULL);
    if (a->synth && a->r1cs)
        return usage_error("give the circuit once: --circuit or --r1cs", NULL);
    a->in = pos[0];
    a->out = pos[1];
    return 0;
}

enum { IN_PARAMS, IN_ZKEY, IN_ZPK };

/* By magic: a .zkey, a .zpk, or anything else (read as .params, which has
 * no magic); -1 when unreadable or not a regular file, said on stderr. */
static int input_kind(const char *path)
{
    int fd;
    struct stat st;
    zp__ioerr why = {""};
    if (zp__file_open(&fd, &st, path, UINT64_MAX, &why)) {
        fprintf(stderr, "zkpipe import: %s\n", why.msg);
        return -1;
    }
    char m[8] = {0};
    ssize_t got;
    do
        got = read(fd, m, 8);
    while (got < 0 && errno == EINTR);
    close(fd);
    size_t n = got > 0 ? (size_t)got : 0;
    if (n >= 4 && !memcmp(m, "zkey", 4))
        return IN_ZKEY;
    if (n == 8 && !memcmp(m, ZP__ZPK_MAGIC, 8))
        return IN_ZPK;
    return IN_PARAMS;
}

static int load_circuit(zp__r1cs *cs, const import_args *a)
{
    zp__ioerr why = {""};
    zp_err e;
    if (a->synth) {
        zp__synth_spec sp;
        if (zp__synth_parse(&sp, a->synth))
            return usage_error("not a synthetic circuit (synth:porep|dense|chain:LOG2):", a->synth);
        sp.threads = a->threads;
        sp.keep_c = false; /* a key needs A and B only */
        return (e = zp__synth_circuit(cs, &sp)) ? fail(a->synth, e, NULL) : 0;
    }
    return (e = zp__r1cs_load(cs, a->r1cs, &why)) ? fail(a->r1cs, e, &why) : 0;
}

/* Reads IN into pk, with its circuit for a .params. */
static int read_key(zp__pk *pk, const import_args *a, const char **kind)
{
    zp__ioerr why = {""};
    zp_err e;
    int z = input_kind(a->in);
    if (z < 0)
        return 2;
    if (z == IN_ZPK)
        return usage_error(a->in, "is a .zpk already: nothing to import");
    double t0 = zp__now();
    if (z == IN_ZKEY) {
        *kind = "snarkjs .zkey";
        if (a->synth || a->r1cs)
            return usage_error("a .zkey carries its own matrices: --circuit and --r1cs are "
                               "for bellperson .params files", NULL);
        if ((e = zp__zkey_load_progress(pk, a->in, &a->progress, &why)))
            return fail(a->in, e, &why);
        fprintf(stderr, "zkpipe import: read and checked %s in %.2f s\n", a->in, zp__now() - t0);
        return 0;
    }
    *kind = "bellperson .params";
    if (!a->synth && !a->r1cs)
        return usage_error("a bellperson .params file does not hold the constraint matrices "
                           "or density maps: give its circuit with --circuit synth:NAME:LOG2 "
                           "or --r1cs FILE (or pass a snarkjs .zkey)", NULL);
    /* The circuit first: it is checked against the file's counts before
     * the (long) point checks start. */
    zp__r1cs cs;
    memset(&cs, 0, sizeof cs);
    int rc = load_circuit(&cs, a);
    if (rc)
        return rc;
    fprintf(stderr, "zkpipe import: circuit %s ready in %.2f s\n", a->synth ? a->synth : a->r1cs,
            zp__now() - t0);
    t0 = zp__now();
    if ((e = zp__params_load_circuit(pk, a->in, &cs, a->threads, &a->progress, &why)))
        rc = fail(a->in, e, &why);
    else
        fprintf(stderr, "zkpipe import: read and checked %s in %.2f s\n", a->in,
                zp__now() - t0);
    zp__r1cs_free(&cs);
    return rc;
}

static void print_counts(const zp__pk *pk, const char *kind)
{
    printf("key:        %s, %s H, %s roots\n", kind,
           pk->h_conv == ZP_H_TAU ? "tau (bellperson)" : "coset (snarkjs)",
           pk->roots == ZP_ROOTS_BELLPERSON ? "7-based" : "5-based");
    printf("variables:  %u (%u public inputs + ONE, %llu aux)\n", pk->n_vars, pk->n_public,
           (unsigned long long)pk->n_l);
    printf("domain:     %llu\n", (unsigned long long)pk->domain_size);
    printf("points:     A %llu, B %llu (G1 + G2), L %llu, H %llu\n",
           (unsigned long long)pk->n_a, (unsigned long long)pk->n_b,
           (unsigned long long)pk->n_l, (unsigned long long)pk->n_h);
    printf("matrices:   A %llu rows, %llu entries; B %llu rows, %llu entries\n",
           (unsigned long long)pk->ma.nrows, (unsigned long long)pk->ma.nnz,
           (unsigned long long)pk->mb.nrows, (unsigned long long)pk->mb.nnz);
}

static int import(const import_args *a)
{
    int rc;
    double t0 = zp__now();
    zp__pk pk;
    memset(&pk, 0, sizeof pk);
    const char *kind = "";
    if ((rc = read_key(&pk, a, &kind))) {
        zp__pk_free(&pk);
        return rc;
    }
    double t1 = zp__now();
    zp__ioerr why = {""};
    zp_err e = zp__zpk_save(a->out, &pk, a->threads, &why);
    if (e) {
        zp__pk_free(&pk);
        return fail(a->out, e, &why);
    }
    print_counts(&pk, kind);
    struct stat st;
    double mib = stat(a->out, &st) == 0 ? (double)st.st_size / (1 << 20) : 0;
    printf("wrote:      %s, %.1f MiB in %.2f s (total %.2f s)\n", a->out, mib, zp__now() - t1,
           zp__now() - t0);
    zp__pk_free(&pk);
    return 0;
}

int zp__cmd_import(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, import_help))
        return 0;
    zp__bar bar;
    zp__bar_from_args(&bar, &argc, argv);
    import_args a;
    int rc = parse_args(&a, argc, argv);
    if (!rc) {
        a.progress = zp__bar_progress(&bar);
        rc = import(&a);
    }
    zp__bar_close(&bar);
    return rc;
}
