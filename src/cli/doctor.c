/*
 * zkpipe doctor [KEY]: whether this machine can prove, and with a key, how.
 *
 * Each check prints one line, OK, WARN or FAIL with its reason: the build,
 * the CPU (the features the field kernels pick their paths by), host
 * memory, the locked-memory limit, the NVIDIA driver's CUDA version
 * against the build's runtime, and each GPU, opened as a prover opens
 * it (its arena taken and its NTT tables built, so that a device the
 * build's kernels cannot run on fails here rather than in a proof), with
 * a test pinned allocation. Given a key, the key-tier planner
 * (zp__g16_plan_fixed, docs/gpu-memory.md) says per GPU whether the key
 * stays whole, streams or does not fit, and the host memory the CPU
 * prover needs is set against what is available.
 *
 * Nothing is written. A synthetic key is planned from its shape: the
 * circuit is built at 2^SHAPE_LOG2 at most (exact up to there) and larger
 * sizes scale its counts, so that synth:porep:27 takes a second, not the
 * minutes and tens of GiB its circuit does.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "base/codec.h"
#include "cli/cli.h"
#include "cli/keyfile.h"
#include "cpu/cpu.h"
#include "gpu/gpu.h"
#include "groth16/gpu_prover.h"
#include "groth16/setup_impl.h"
#include "io/bellperson.h"
#include "io/zpk.h"
#include "math/fp_ifma.h"
#include "math/mont_x86.h"
#include "r1cs/synth.h"
#include "tool/timing.h"
#include "tool/tune.h"

static const char doctor_help[] =
    "usage: zkpipe doctor [options] [KEY]\n"
    "\n"
    "Checks whether this machine can prove, one line per check (OK, WARN or\n"
    "FAIL and why): the build and its backends, the CPU's features (ADX and\n"
    "BMI2 for the field kernels, AVX-512 IFMA), host memory, the locked-memory\n"
    "limit, the NVIDIA driver and the CUDA version it supports against the\n"
    "build's CUDA runtime (FAIL when the driver is too old to run it), and each\n"
    "GPU: name, compute capability, memory, whether the build's kernels run on\n"
    "it, and a 64 MiB pinned host allocation.\n"
    "\n"
    "Given KEY (a .zpk, a snarkjs .zkey, a bellperson .params as the\n"
    "supraseal-c2 drop-in loads it, or synth:NAME:LOG2), says for each GPU\n"
    "whether the key stays whole in its memory, streams part of its points from\n"
    "pinned host memory (which arrays, how many bytes, the staging ring), or\n"
    "does not fit (and the memory it needs), with the GPU and pinned host memory\n"
    "it takes; and the host memory the CPU prover needs against what is free.\n"
    "A .zpk is mapped without checking its checksums and a .zkey's cached .zpk\n"
    "is used when there is one (nothing is written). Of a .params only the\n"
    "counts are read (a few reads, whatever its size): its points are checked\n"
    "when the drop-in loads it. A synthetic key is planned from its circuit\n"
    "built at 2^18 at most: larger ones scale its counts.\n"
    "\n"
    "options:\n"
    "  --gpu-mem BYTES  plan with an arena of BYTES (e.g. 16G) on each GPU, as\n"
    "                   'zkpipe serve --gpu-mem' caps it; without a GPU, plan for\n"
    "                   a GPU with that arena (a CUDA build only)\n"
    "  --slots N        working sets asked per GPU (default 2, as serve)\n"
    "  --tune NAME=VALUE  plan with serve's GPU tuning (ntt_twist, h_table,\n"
    "                   ring_share; repeatable)\n"
    "  --shape-log2 N   a synth key's shape from its circuit built at 2^N at most\n"
    "                   (default 18): exact up to there, scaled above; a larger N\n"
    "                   is slower and takes more memory\n"
    "  --threads N      threads for reading a key (default: one per CPU)\n"
    "  --help, -h       this text\n"
    "\n"
    "exit status: 0 the machine can prove (KEY: on some GPU, or on the CPU when\n"
    "there is no GPU); 1 it cannot, or something is broken (the reason is the\n"
    "last line); 2 bad usage or an unreadable KEY.\n";

#define GIB ((double)((uint64_t)1 << 30))
#define PIN_TEST_BYTES ((uint64_t)64 << 20)
#define SHAPE_LOG2 18
#define MAX_GPUS 64

typedef struct doc_args {
    const char *key;
    uint64_t gpu_mem; /* 0: each GPU's free memory less its reserve */
    unsigned slots;
    int threads;
    int shape_log2; /* synth keys: the largest circuit built for the shape */
    zp__cli_tune tune; /* the GPU tuning the plan is made with */
} doc_args;

/* What the checks found: counts of FAIL lines and the last one's reason. */
typedef struct doc {
    int fails;
    char reason[512];
    uint64_t mem_avail, memlock; /* host bytes; memlock UINT64_MAX: no limit */
    int n_gpus;
    uint64_t arena_free[MAX_GPUS]; /* 0: that GPU could not be opened */
} doc;

typedef enum { OK, WARN, FAIL } level;

static void say(doc *d, level l, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(doc *d, level l, const char *fmt, ...)
{
    static const char *const tag[] = {"OK  ", "WARN", "FAIL"};
    char line[sizeof d->reason];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    printf("  %s  %s\n", tag[l], line);
    if (l == FAIL) {
        d->fails++;
        memcpy(d->reason, line, sizeof line);
    }
}

static double gib(uint64_t b) { return (double)b / GIB; }

/* b in GiB, MiB or KiB, whichever shows it with a leading digit. */
static const char *size_str(char *buf, size_t len, uint64_t b)
{
    if (b >= ((uint64_t)1 << 30))
        snprintf(buf, len, "%.2f GiB", gib(b));
    else if (b >= ((uint64_t)1 << 20))
        snprintf(buf, len, "%.2f MiB", (double)b / (1 << 20));
    else
        snprintf(buf, len, "%.2f KiB", (double)b / 1024);
    return buf;
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "zkpipe doctor: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    fprintf(stderr, "Run 'zkpipe doctor --help' for usage.\n");
    return 2;
}

static int parse_args(doc_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    zp__cli_tune_default(&a->tune);
    a->slots = 2;
    a->shape_log2 = SHAPE_LOG2;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int n;
        if (!strcmp(s, "--gpu-mem")) {
            if (!v || zp__parse_size(v, &a->gpu_mem) || a->gpu_mem == 0)
                return usage_error("--gpu-mem wants a size like 16G, got", v ? v : "nothing");
            i++;
        } else if (!strcmp(s, "--slots")) {
            if (!v || zp__parse_int(v, 1, 64, &n))
                return usage_error("--slots wants 1..64, got", v ? v : "nothing");
            a->slots = (unsigned)n;
            i++;
        } else if (!strcmp(s, "--shape-log2")) {
            if (!v || zp__parse_int(v, 2, 28, &a->shape_log2))
                return usage_error("--shape-log2 wants 2..28, got", v ? v : "nothing");
            i++;
        } else if (!strcmp(s, "--tune")) {
            if (!v)
                return usage_error("--tune wants NAME=VALUE, got", "nothing");
            if (zp__cli_tune_parse(&a->tune, ZP__TUNE_GPU, "doctor", v))
                return 2;
            i++;
        } else if (!strcmp(s, "--threads")) {
            if (!v || zp__parse_int(v, 1, 4096, &a->threads))
                return usage_error("--threads wants 1..4096, got", v ? v : "nothing");
            i++;
        } else if (s[0] == '-' && s[1]) {
            return usage_error("unknown option", s);
        } else if (a->key) {
            return usage_error("one KEY at most; also got", s);
        } else {
            a->key = s;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ the machine */

static void check_build(doc *d)
{
    say(d, OK, "build: zkpipe 0.1.0; backends: cpu%s", zp__gpu_compiled() ? ", cuda" : "");
}

static void check_cpu(doc *d)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef ZP__X86_ASM
    bool fast = zp__x86_cpu_has_fast();
#else
    bool fast = false;
#endif
    bool ifma = zp__ifma_available();
    say(d, fast ? OK : WARN, "cpu: %ld CPUs online; ADX+BMI2 %s; AVX-512 IFMA %s", cpus,
        fast ? "yes" : "no (portable field arithmetic: the CPU prover is slower)",
        ifma ? "yes" : "no");
}

/* MemAvailable from /proc/meminfo (the kernel's estimate of what can be
 * had without swapping), else sysinfo's free RAM. */
static void host_memory(uint64_t *avail, uint64_t *total)
{
    struct sysinfo si;
    *avail = *total = 0;
    if (sysinfo(&si) == 0) {
        *total = (uint64_t)si.totalram * si.mem_unit;
        *avail = (uint64_t)si.freeram * si.mem_unit;
    }
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return;
    char line[256];
    unsigned long long kib;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            *avail = (uint64_t)kib << 10;
    fclose(f);
}

static void check_memory(doc *d)
{
    uint64_t total;
    host_memory(&d->mem_avail, &total);
    say(d, d->mem_avail ? OK : WARN, "host memory: %.1f GiB available of %.1f GiB",
        gib(d->mem_avail), gib(total));
    struct rlimit r;
    d->memlock = UINT64_MAX;
    if (getrlimit(RLIMIT_MEMLOCK, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
        d->memlock = (uint64_t)r.rlim_cur;
    if (d->memlock == UINT64_MAX)
        say(d, OK, "locked memory (RLIMIT_MEMLOCK): unlimited");
    else
        say(d, OK,
            "locked memory (RLIMIT_MEMLOCK): %.1f MiB (where the driver counts pinned pages "
            "against it, 'serve --pinned-keys' above it is refused: LimitMEMLOCK=infinity)",
            (double)d->memlock / (1 << 20));
}

/* Opens GPU i as a prover does and records its arena's free bytes. */
static void check_gpu(doc *d, int i, uint64_t arena, bool pin_test)
{
    zp__gpu_config c;
    zp__gpu_config_default(&c);
    c.device = i;
    c.arena_bytes = arena;
    zp__gpu *g = NULL;
    zp_err e = zp__gpu_open(&g, &c);
    if (e) {
        say(d, FAIL, "gpu%d: cannot be opened: %s (%s)", i, zp__gpu_last_error(),
            zp_errname(e));
        return;
    }
    zp__gpu_info info;
    zp__gpu_get_info(g, &info);
    d->arena_free[i] = info.arena_bytes - info.arena_used;
    say(d, info.cc_major >= 8 ? OK : WARN,
        "gpu%d: %s, compute capability %d.%d, %d SMs, %.1f GiB; arena %.1f GiB%s", i, info.name,
        info.cc_major, info.cc_minor, info.sm_count, gib(info.total_mem),
        gib(info.arena_bytes), arena ? " (--gpu-mem)" : " (free memory less 1 GiB)");
    if (pin_test) {
        void *p = NULL;
        if ((e = zp__gpu_host_alloc(g, &p, PIN_TEST_BYTES)) == ZP_OK) {
            say(d, OK, "pinned host memory: a 64 MiB allocation works");
            zp__gpu_host_free(p);
        } else {
            say(d, FAIL, "pinned host memory: a 64 MiB allocation fails: %s",
                zp__gpu_last_error());
        }
    }
    zp__gpu_close(g);
}

/* Whether the token t[0 .. n) is a version: digits in dot-separated
 * groups, at least two groups ("570.86.15"). */
static bool is_version(const char *t, size_t n)
{
    bool dot = false;
    for (size_t i = 0; i < n; i++) {
        if (t[i] == '.') {
            if (i == 0 || i + 1 == n || t[i - 1] == '.')
                return false;
            dot = true;
        } else if (t[i] < '0' || t[i] > '9') {
            return false;
        }
    }
    return dot;
}

/* The NVIDIA kernel module's version from /proc/driver/nvidia/version, its
 * first line's first version-shaped word ("NVRM version: NVIDIA UNIX
 * x86_64 Kernel Module  570.86.15  ..." or "... Open Kernel Module for
 * x86_64  570.86.15  ..."), "" where there is none. */
static void nvidia_module_version(char *out, size_t len)
{
    out[0] = 0;
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        for (const char *t = line; *t;) {
            t += strspn(t, " \t\n");
            const size_t n = strcspn(t, " \t\n");
            if (n && is_version(t, n)) {
                snprintf(out, len, "%.*s", (int)n, t);
                break;
            }
            t += n;
        }
    }
    fclose(f);
}

/* The driver against the CUDA runtime of the build; false when the GPUs
 * cannot be used (no driver, or one too old for the runtime). */
static bool check_cuda(doc *d)
{
    int drv, rt;
    zp__gpu_cuda_versions(&drv, &rt);
    char mod[64], name[96], dv[16], rv[16];
    nvidia_module_version(mod, sizeof mod);
    snprintf(name, sizeof name, "NVIDIA driver%s%s", mod[0] ? " " : "", mod);
    zp__cuda_version_str(dv, sizeof dv, drv);
    zp__cuda_version_str(rv, sizeof rv, rt);
    switch (zp__cuda_fit_of(drv, rt)) {
    case ZP_CUDA_FIT_OK:
        say(d, OK, "cuda: %s (CUDA %s); runtime CUDA %s", name, dv, rv);
        return true;
    case ZP_CUDA_FIT_MINOR:
        say(d, WARN,
            "cuda: %s supports CUDA %s, older than this build's runtime (CUDA %s): it runs "
            "by CUDA's minor version compatibility, but cannot compile the build's PTX for "
            "a GPU without its own code; a driver for CUDA %s or newer lifts that",
            name, dv, rv, rv);
        return true;
    case ZP_CUDA_FIT_TOO_OLD:
        say(d, FAIL,
            "cuda: %s supports CUDA %s only; this build's runtime is CUDA %s and does not "
            "start on it: install an NVIDIA driver for CUDA %s or newer (or build with a "
            "CUDA %d toolkit)",
            name, dv, rv, rv, drv / 1000);
        return false;
    case ZP_CUDA_FIT_NO_DRIVER:
        break;
    }
    say(d, WARN, "cuda: no NVIDIA driver loads (libcuda.so.1); runtime CUDA %s: proofs run "
                 "on the CPU", rv);
    return false;
}

static void check_gpus(doc *d, const doc_args *a)
{
    if (!zp__gpu_compiled()) {
        char mod[64];
        nvidia_module_version(mod, sizeof mod);
        say(d, OK, "gpu: this build has no CUDA backend (proofs run on the CPU)%s%s%s",
            mod[0] ? "; NVIDIA driver " : "", mod, mod[0] ? " present" : "");
        return;
    }
    if (!check_cuda(d))
        return;
    int n = zp__gpu_count();
    d->n_gpus = n < MAX_GPUS ? n : MAX_GPUS;
    if (n == 0) {
        say(d, WARN, "gpu: no CUDA device visible (no GPU or driver, or CUDA_VISIBLE_DEVICES "
                     "hides them): proofs run on the CPU");
        return;
    }
    say(d, OK, "cuda: %d device(s) visible; the driver and runtime load", n);
    for (int i = 0; i < d->n_gpus; i++)
        check_gpu(d, i, a->gpu_mem, i == 0);
}

/* ------------------------------------------------------------- the key */

/* A key's counts, and the bytes of the part that never streams (the
 * matrices and density maps in the arena). */
typedef struct key_shape {
    zp__pk pk;             /* counts; the loaded key or the small circuit's */
    zp__r1cs cs;           /* the small synthetic circuit */
    zp__pk target;         /* the counts planned with */
    uint64_t fixed;        /* arena bytes of the matrices and densities */
    uint64_t matrices;     /* of them the matrices' */
    uint64_t host_bytes;   /* host bytes of the loaded key */
    char note[160];        /* how the shape was had */
} key_shape;

static uint64_t points_bytes(const zp__pk *pk)
{
    uint64_t b = 0;
    for (int i = 0; i < ZP_G16_NP; i++) {
        uint64_t n = zp__g16_part_count(pk, (zp__g16_part)i) * zp__g16_part_size((zp__g16_part)i);
        b += ((n ? n : 32) + 255) & ~(uint64_t)255;
    }
    return b;
}

/* Host bytes of a key's points, matrices and densities by its counts. */
static uint64_t key_host_bytes(const zp__pk *pk, uint64_t nnz)
{
    uint64_t pts = (pk->n_a + pk->n_b + pk->n_l + pk->n_h) * sizeof(zp_g1_affine) +
                   pk->n_b * sizeof(zp_g2_affine);
    return pts + nnz * (4 + sizeof(zp_fr)) + 2 * 8 * (pk->domain_size + 1) +
           2 * 8 * ((uint64_t)pk->n_vars / 64 + 1);
}

/* synth:NAME:LOG2 from its circuit at 2^min(LOG2, shape_log2): exact up
 * to there, counts and matrix bytes (less their tables) scaled by the
 * shape's above. */
static int synth_shape(key_shape *k, const char *key, int threads, unsigned shape_log2)
{
    zp__synth_spec s, small;
    if (zp__synth_parse(&s, key))
        return usage_error("not a synthetic circuit (synth:porep|dense|chain:LOG2):", key);
    small = s;
    small.log2 = s.log2 < shape_log2 ? s.log2 : shape_log2;
    small.threads = threads;
    zp__synth_shape big_sh, small_sh;
    zp_h_conv conv = s.kind == ZP__SYNTH_POREP ? ZP_H_TAU : ZP_H_COSET;
    unsigned lg;
    zp_err e = zp__synth_shape_of(&big_sh, &s);
    if (!e)
        e = zp__synth_shape_of(&small_sh, &small);
    if (!e)
        e = zp__synth_circuit(&k->cs, &small);
    if (!e)
        e = zp__setup_shape(&k->pk, &lg, &k->cs, conv);
    if (!e)
        e = zp__setup_matrices(&k->pk, &k->cs, threads);
    /* The key's device bytes and its matrices', with the matrices'
     * coefficient tables apart: their size does not grow with the rest. */
    uint64_t full = e ? UINT64_MAX : zp__g16_dkey_bytes(&k->pk), ta = 0, tb = 0;
    const uint64_t ma = e ? UINT64_MAX : zp__gpu_csr_bytes_tab(&k->pk.ma, &ta);
    const uint64_t mb = e ? UINT64_MAX : zp__gpu_csr_bytes_tab(&k->pk.mb, &tb);
    if (e || full == UINT64_MAX || ma == UINT64_MAX || mb == UINT64_MAX) {
        fprintf(stderr, "zkpipe doctor: %s: cannot build its shape: %s\n", key,
                zp_strerror(e ? e : ZP_E_NOMEM));
        return 2;
    }
    k->fixed = full - points_bytes(&k->pk);
    k->matrices = ma + mb;
    k->target = k->pk;
    zp__pk *t = &k->target;
    uint64_t nnz = big_sh.nnz_a + big_sh.nnz_b;
    if (small.log2 == s.log2) {
        snprintf(k->note, sizeof k->note, "from its circuit");
    } else {
        const double f = (double)big_sh.n_vars / (double)small_sh.n_vars;
        uint64_t rows = big_sh.n_constraints + big_sh.n_public + 1, dom = 1;
        while (dom < rows)
            dom <<= 1;
        t->n_vars = big_sh.n_vars;
        t->n_public = big_sh.n_public;
        t->domain_size = dom;
        /* The variables outside A (B) scale: most are in A. */
        const uint64_t out_a = (uint64_t)((double)(k->pk.n_vars - k->pk.n_a) * f);
        const uint64_t out_b = (uint64_t)((double)(k->pk.n_vars - k->pk.n_b) * f);
        t->n_a = out_a < t->n_vars ? t->n_vars - out_a : 0;
        t->n_b = out_b < t->n_vars ? t->n_vars - out_b : 0;
        t->n_l = (uint64_t)t->n_vars - t->n_public - 1;
        t->n_h = conv == ZP_H_COSET ? dom : dom - 1;
        const double scale = (double)nnz / (double)(small_sh.nnz_a + small_sh.nnz_b);
        const uint64_t tabs = ta + tb;
        k->fixed = (uint64_t)((double)(k->fixed - tabs) * scale) + tabs;
        k->matrices = (uint64_t)((double)(k->matrices - tabs) * scale) + tabs;
        snprintf(k->note, sizeof k->note, "estimated from synth at 2^%u, scaled", small.log2);
    }
    /* The CPU prover holds the key and the circuit's A and B (for its
     * witnesses). */
    k->host_bytes = key_host_bytes(t, nnz) + nnz * (4 + sizeof(zp_fr));
    return 0;
}

/* A .zpk mapped without its checksums, or a .zkey: its cached .zpk when
 * there is one, else read and checked (the cache is not written); a
 * .params's counts. */
static int file_shape(key_shape *k, const char *key, int threads)
{
    zp__ioerr why = {""};
    zp_err e;
    zp__cli_kind kind = zp__cli_file_kind(key, NULL);
    char cpath[4200];
    if (kind == ZP__KIND_ZPK) {
        e = zp__zpk_load(&k->pk, key, ZP__ZPK_TRUSTED, threads, &why);
        snprintf(k->note, sizeof k->note, "a .zpk (checksums not checked here)");
    } else if (kind == ZP__KIND_ZKEY) {
        if (zp__cli_cache_path(cpath, sizeof cpath, key, threads) &&
            zp__zpk_load(&k->pk, cpath, ZP__ZPK_TRUSTED, threads, &why) == ZP_OK) {
            e = ZP_OK;
            snprintf(k->note, sizeof k->note, "a .zkey, from its cached .zpk");
        } else {
            e = zp__zkey_load(&k->pk, key, &why);
            snprintf(k->note, sizeof k->note, "a .zkey");
        }
    } else if (kind == ZP__KIND_MISSING) {
        fprintf(stderr, "zkpipe doctor: %s: %s\n", key, strerror(errno));
        return 2;
    } else if (kind == ZP__KIND_UNKNOWN && zp__ends_with(key, ".params")) {
        /* Told by its name, as the engine does (the format has no magic);
         * held as the drop-in holds it: points and density maps, no
         * matrices (a, b, c come with each proof). */
        e = zp__params_shape_load(&k->pk, key, &why);
        if (!e && (zp__csr_alloc(&k->pk.ma, 0, 0) || zp__csr_alloc(&k->pk.mb, 0, 0)))
            e = zp__fail(&why, ZP_E_NOMEM, "no memory");
        snprintf(k->note, sizeof k->note,
                 "a bellperson .params: its counts only, as the supraseal-c2 drop-in holds it");
    } else {
        fprintf(stderr, "zkpipe doctor: %s is %s, not a proving key (a .zpk, a .zkey, a "
                        "bellperson .params or synth:NAME:LOG2)\n", key,
                zp__cli_kind_name(kind));
        return 2;
    }
    if (e)
        return zp__cli_fail("doctor", key, e, &why);
    uint64_t full = zp__g16_dkey_bytes(&k->pk);
    if (!k->pk.ma.row_ptr || full == UINT64_MAX) {
        fprintf(stderr, "zkpipe doctor: %s: the key has no constraint matrices (or no memory "
                        "to plan them)\n", key);
        return 2;
    }
    k->fixed = full - points_bytes(&k->pk);
    k->matrices = zp__g16_matrix_bytes(&k->pk);
    k->target = k->pk;
    k->host_bytes = k->pk.map_base ? k->pk.map_len
                                   : key_host_bytes(&k->pk, k->pk.ma.nnz + k->pk.mb.nnz);
    return 0;
}

static void shape_free(key_shape *k)
{
    zp__pk_free(&k->pk);
    zp__r1cs_free(&k->cs);
}

/* Whether the GPU prover takes keys of this domain at all. */
static bool gpu_domain_ok(const zp__pk *pk)
{
    unsigned lg = (unsigned)__builtin_ctzll(pk->domain_size);
    return lg >= 1 && lg <= ZP_GPU_NTT_MAX_LOG2 &&
           lg + (pk->h_conv == ZP_H_COSET ? 1u : 0u) <= ZP_NTT_MAX_LOG2;
}

/* One GPU's (or a hypothetical one's) plan; true when the key can be
 * proved there. */
static bool plan_gpu(doc *d, const key_shape *k, const char *who, uint64_t arena_free,
                     unsigned slots, const zp_gpu_tuning *tune, bool real)
{
    zp__g16_plan p;
    zp__ioerr why = {""};
    zp__g16_gpu_opts o;
    zp__g16_gpu_opts_default(&o);
    o.tuning = *tune;
    if (!gpu_domain_ok(&k->target)) {
        say(d, FAIL, "%s: the domain 2^%d is outside the GPU NTT", who,
            __builtin_ctzll(k->target.domain_size));
        return false;
    }
    if (zp__g16_plan_fixed(&p, &k->target, k->fixed, k->matrices, arena_free, slots, &o,
                           &why)) {
        say(d, FAIL, "%s: cannot hold the key: %s", who, why.msg);
        return false;
    }
    char line[256];
    zp__g16_plan_describe(&p, &k->target, line, sizeof line);
    const uint64_t gpu = p.key_bytes + (uint64_t)p.slots * p.slot_bytes;
    const bool streams = zp__g16_plan_streams(&p);
    /* A streaming key's host copy is pinned: it must fit host memory. */
    const bool host_ok = !streams || p.pinned_bytes <= d->mem_avail;
    level l = host_ok ? OK : real ? FAIL : WARN;
    /* What a partition moves to the GPU: its witness (twice for a lean
     * working set, which sends it again after h) and what streams, the
     * bound a card's bus sets (PCIe 4.0 x16 ~25 GB/s, 5.0 x16 ~50). A
     * streaming working set sends a witness that packs in fewer bytes (its
     * zeros and ones as bits), so that is the most it moves. A key without
     * matrices (the supraseal-c2 drop-in's .params, or the .zpk it caches)
     * proves each circuit from its a, b, c instead: its a and b cross too,
     * the domain's values each at most, and its witness once, plain. */
    const bool abc = !k->target.ma.nnz && !k->target.mb.nnz;
    const uint64_t fr = sizeof(zp_fr);
    /* the partition's own bytes: witness, and a and b where they come */
    const uint64_t own = (uint64_t)k->target.n_vars * fr * (p.lean && !abc ? 2 : 1) +
                         (abc ? 2 * k->target.domain_size * fr : 0);
    const uint64_t moved = own + (streams ? p.pinned_bytes : 0);
    const char *how = abc ? ", its a and b with it"
                          : streams ? ", its witness sent packed where it packs" : "";
    /* A shared ring's partitions that sum its chunks together share them. */
    char shared[96] = "";
    if (p.shared)
        snprintf(shared, sizeof shared, ", %.1f GiB when its %u slots sum each chunk together",
                 gib(own + p.pinned_bytes / p.slots), p.slots);
    say(d, l,
        "%s: %s: %s; GPU memory %.1f of %.1f GiB, pinned host %.1f GiB%s; a partition moves "
        "%.1f GiB to the GPU%s%s (%.2f s at 25 GB/s, %.2f s at 50 GB/s)%s",
        who, streams ? "streamed" : "whole", line, gib(gpu), gib(arena_free),
        gib(p.pinned_bytes), host_ok ? "" : " (more than the host memory available)",
        gib(moved), streams ? " at most" : "", how, (double)moved / 25e9, (double)moved / 50e9,
        shared);
    return host_ok || !real;
}

/* Rough host bytes of a CPU proof: the key, a, b, c over the domain, the
 * witness and the MSMs' scalars, and the MSMs' sort. */
static uint64_t cpu_need(const key_shape *k)
{
    const zp__pk *t = &k->target;
    const uint64_t fr = sizeof(zp_fr);
    return k->host_bytes + fr * (3 * t->domain_size + 2 * (uint64_t)t->n_vars + t->n_a +
                                 t->n_b + t->n_h) +
           16 * t->domain_size;
}

static int check_key(doc *d, const doc_args *a)
{
    key_shape k;
    memset(&k, 0, sizeof k);
    int rc = !strncmp(a->key, "synth:", 6) ? synth_shape(&k, a->key, a->threads, (unsigned)a->shape_log2)
                                           : file_shape(&k, a->key, a->threads);
    if (rc) {
        shape_free(&k);
        return rc;
    }
    const zp__pk *t = &k.target;
    char b1[32], b2[32];
    printf("key %s: domain 2^%d, %u variables, %u public; A %llu, B %llu, L %llu, H %llu "
           "points; matrices and densities %s on a GPU (%s)\n",
           a->key, __builtin_ctzll(t->domain_size), t->n_vars, t->n_public,
           (unsigned long long)t->n_a, (unsigned long long)t->n_b, (unsigned long long)t->n_l,
           (unsigned long long)t->n_h, size_str(b1, sizeof b1, k.fixed), k.note);
    bool gpu_ok = false, gpus = d->n_gpus > 0;
    char who[64], where[160] = "";
    size_t at = 0;
    for (int i = 0; i < d->n_gpus; i++) {
        snprintf(who, sizeof who, "gpu%d", i);
        if (d->arena_free[i] && plan_gpu(d, &k, who, d->arena_free[i], a->slots, &a->tune.gpu, true)) {
            gpu_ok = true;
            if (at < sizeof where)
                at += (size_t)snprintf(where + at, sizeof where - at, "%s%s", at ? ", " : "on ",
                                       who);
        }
    }
    if (!gpus && a->gpu_mem) {
        if (zp__gpu_compiled()) {
            snprintf(who, sizeof who, "a GPU with a %.1f GiB arena", gib(a->gpu_mem));
            gpu_ok = plan_gpu(d, &k, who, a->gpu_mem, a->slots, &a->tune.gpu, false);
            gpus = true;
        } else {
            say(d, WARN, "--gpu-mem: this build has no CUDA backend to size a GPU's working "
                         "sets with; no GPU plan");
        }
    }
    const uint64_t need = cpu_need(&k);
    const bool cpu_ok = need <= d->mem_avail;
    say(d, cpu_ok ? OK : gpus ? WARN : FAIL,
        "cpu prover: needs about %s of host memory (key %s), %.1f GiB available",
        size_str(b1, sizeof b1, need), size_str(b2, sizeof b2, k.host_bytes),
        gib(d->mem_avail));
    shape_free(&k);
    if (gpus && !gpu_ok) {
        printf("zkpipe doctor: %s cannot be proved on %s: %s%s\n", a->key,
               d->n_gpus ? "any GPU here" : "that GPU", d->reason,
               cpu_ok ? " (the CPU backend can: --backend cpu)" : "");
        return 1;
    }
    if (!gpus && !cpu_ok) {
        printf("zkpipe doctor: %s cannot be proved here: %s\n", a->key, d->reason);
        return 1;
    }
    printf("zkpipe doctor: %s can be proved %s\n", a->key,
           gpus ? (d->n_gpus ? where : "on such a GPU") : "on the CPU");
    return 0;
}

int zp__cmd_doctor(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, doctor_help))
        return 0;
    doc_args a;
    if (parse_args(&a, argc, argv))
        return 2;
    doc d;
    memset(&d, 0, sizeof d);
    printf("zkpipe doctor\n");
    check_build(&d);
    check_cpu(&d);
    check_memory(&d);
    check_gpus(&d, &a);
    if (a.key)
        return check_key(&d, &a);
    if (d.fails) {
        printf("zkpipe doctor: something is broken: %s\n", d.reason);
        return 1;
    }
    printf("zkpipe doctor: no problem found\n");
    return 0;
}
