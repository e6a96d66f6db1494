/*
 * The supraseal-c2 drop-ins (docs/supraseal-c2.md) from the caller's side:
 * the structs and prototypes are declared here as bellperson and Curio
 * declare them (static assertions on every size and offset), not taken
 * from zkpipe's headers. Built twice: test_supraseal_upstream against
 * libzkpipe_supraseal_c2, and with ZP_SS_CURIO test_supraseal_curio
 * against libzkpipe_supraseal_c2_curio.
 *
 * Synthetic circuits give the Assignments (a, b, c with the per-input rows,
 * bitmaps, Montgomery form; tests/test_abc_util.h); every proof must equal
 * zkpipe's native proof for the same r and s and verify against the .vk.
 * Then: several threads at once, (curio) the split call with a, b, c freed
 * after start and an abandoned one, the SRS handles, and every error case.
 *
 * --gpu: the same on the GPUs; exits 77 where there is none.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine_impl.h"
#include "io/bellperson.h"
#include "io/zpk.h"
#include "test_abc_util.h"

/* ------------------------------------------------ the caller's declarations */

typedef struct { uint64_t l[4]; } fr_t;

struct Assignment {
    const uint64_t *a_aux_density;
    size_t a_aux_bit_len;
    size_t a_aux_popcount;
    const uint64_t *b_inp_density;
    size_t b_inp_bit_len;
    size_t b_inp_popcount;
    const uint64_t *b_aux_density;
    size_t b_aux_bit_len;
    size_t b_aux_popcount;
    const fr_t *a;
    const fr_t *b;
    const fr_t *c;
    size_t abc_size;
    const fr_t *inp_assignment_data;
    size_t inp_assignment_size;
    const fr_t *aux_assignment_data;
    size_t aux_assignment_size;
};

struct groth16_proof {
    uint64_t a[2][6];       /* x, y */
    uint64_t b[2][2][6];    /* x (c0, c1), y (c0, c1) */
    uint64_t c[2][6];
};

struct RustError {
    int code;
    char *message;
};

struct SRS {
    const void *ptr;
};

#define AT(T, f, off) _Static_assert(offsetof(T, f) == (off), #T "." #f " at " #off)
_Static_assert(sizeof(fr_t) == 32, "fr_t");
_Static_assert(sizeof(struct Assignment) == 136, "Assignment");
AT(struct Assignment, a_aux_density, 0);
AT(struct Assignment, a_aux_bit_len, 8);
AT(struct Assignment, a_aux_popcount, 16);
AT(struct Assignment, b_inp_density, 24);
AT(struct Assignment, b_inp_bit_len, 32);
AT(struct Assignment, b_inp_popcount, 40);
AT(struct Assignment, b_aux_density, 48);
AT(struct Assignment, b_aux_bit_len, 56);
AT(struct Assignment, b_aux_popcount, 64);
AT(struct Assignment, a, 72);
AT(struct Assignment, b, 80);
AT(struct Assignment, c, 88);
AT(struct Assignment, abc_size, 96);
AT(struct Assignment, inp_assignment_data, 104);
AT(struct Assignment, inp_assignment_size, 112);
AT(struct Assignment, aux_assignment_data, 120);
AT(struct Assignment, aux_assignment_size, 128);
_Static_assert(sizeof(struct groth16_proof) == 384, "groth16_proof");
AT(struct groth16_proof, a, 0);
AT(struct groth16_proof, b, 96);
AT(struct groth16_proof, c, 288);
_Static_assert(sizeof(struct RustError) == 16, "RustError");
AT(struct RustError, code, 0);
AT(struct RustError, message, 8);
_Static_assert(sizeof(struct SRS) == 8, "SRS");

#ifdef ZP_SS_CURIO
struct RustError generate_groth16_proofs_c(const struct Assignment provers[], size_t num_circuits,
                                           const fr_t r_s[], const fr_t s_s[],
                                           struct groth16_proof proofs[], struct SRS *srs,
                                           void *gpu_mutex, int gpu_index);
struct RustError generate_groth16_proofs_start_c(const struct Assignment provers[],
                                                 size_t num_circuits, const fr_t r_s[],
                                                 const fr_t s_s[], struct SRS *srs,
                                                 void *gpu_mutex, int gpu_index,
                                                 void **pending);
struct RustError finalize_groth16_proof_c(void *pending, struct groth16_proof proofs[]);
void destroy_pending_proof(void *pending);
void *create_gpu_mutex(void);
void destroy_gpu_mutex(void *mutex);
static void *g_mutex;
#define GENERATE(p, n, r, s, out, srs) generate_groth16_proofs_c(p, n, r, s, out, srs, g_mutex, -1)
#else
struct RustError generate_groth16_proofs_c(const struct Assignment provers[], size_t num_circuits,
                                           const fr_t r_s[], const fr_t s_s[],
                                           struct groth16_proof proofs[], struct SRS *srs);
#define GENERATE(p, n, r, s, out, srs) generate_groth16_proofs_c(p, n, r, s, out, srs)
#endif
struct RustError create_SRS(struct SRS *ret, const char *params_path, bool cache);
void evict_SRS(const struct SRS *srs);
void drop_SRS(const struct SRS *srs);
struct SRS clone_SRS(const struct SRS *srs);
/* zkpipe's own additions. */
int zkpipe_supraseal_key_cache(const char *dir);
int zkpipe_supraseal_gpu_mem(uint64_t bytes);
zp_err zp__ss_engine(zp_engine **out);

/* ------------------------------------------------------------ the circuits */

#define CIRCUITS 4
#define SPEC "porep:8"

static g16_fix g_fix;
static char g_params[96], g_vk_path[96], g_dir[64];
static zp__vk g_vk;

/* One call's circuits: witnesses, bellperson's side, r, s. */
typedef struct batch {
    size_t n;
    zp_fr *w[CIRCUITS];
    abc_fix x[CIRCUITS];
    struct Assignment as[CIRCUITS];
    fr_t r[CIRCUITS], s[CIRCUITS];
} batch;

static void to_assignment(struct Assignment *a, const zp__abc_in *in)
{
    *a = (struct Assignment){
        in->a_aux, in->a_aux_bits, in->a_aux_pop, in->b_inp, in->b_inp_bits, in->b_inp_pop,
        in->b_aux, in->b_aux_bits, in->b_aux_pop, (const fr_t *)in->a, (const fr_t *)in->b,
        (const fr_t *)in->c, in->abc_size, (const fr_t *)in->inp, in->n_inp,
        (const fr_t *)in->aux, in->n_aux};
}

static void batch_make(batch *b, size_t n, uint64_t seed)
{
    memset(b, 0, sizeof *b);
    b->n = n;
    for (size_t i = 0; i < n; i++) {
        b->w[i] = malloc(g_fix.cs.n_vars * sizeof(zp_fr));
        if (!b->w[i] || zp__synth_witness(b->w[i], &g_fix.cs, &g_fix.sp, seed + i))
            abort();
        abc_fix_make(&b->x[i], &g_fix.cs, b->w[i]);
        to_assignment(&b->as[i], &b->x[i].in);
        zp_fr r, s;
        fr_u64(&r, 3 * seed + i + 1);
        fr_u64(&s, 5 * seed + i + 2);
        memcpy(&b->r[i], &r, 32);
        memcpy(&b->s[i], &s, 32);
    }
}

static void batch_free(batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        abc_fix_free(&b->x[i]);
        free(b->w[i]);
    }
}

/* proofs[i] is zkpipe's native proof of circuit i with its r, s, and
 * verifies against the .vk. */
static bool proofs_ok(const batch *b, const struct groth16_proof *proofs)
{
    bool ok = true;
    for (size_t i = 0; i < b->n; i++) {
        zp__prove_opts o;
        zp__prove_opts_default(&o);
        o.r = (const zp_fr *)&b->r[i];
        o.s = (const zp_fr *)&b->s[i];
        o.threads = 1;
        zp__proof want, got;
        if (zp__prove(&want, &g_fix.pk, b->w[i], g_fix.pk.n_vars, &o, NULL, NULL))
            return false;
        memcpy(&got.a, proofs[i].a, 96);
        memcpy(&got.b, proofs[i].b, 192);
        memcpy(&got.c, proofs[i].c, 96);
        ok &= !memcmp(&want, &got, sizeof want);
        ok &= zp__verify(&g_vk, b->w[i] + 1, g_fix.pk.n_public, &got) == ZP_OK;
    }
    return ok;
}

/* A failure: non-zero code and a message naming want. */
static bool fails_naming(struct RustError e, const char *want)
{
    bool ok = e.code != 0 && e.message && strstr(e.message, want);
    if (!ok)
        fprintf(stderr, "expected a failure naming \"%s\", got code %d, \"%s\"\n", want, e.code,
                e.message ? e.message : "(null)");
    free(e.message);
    return ok;
}

static struct SRS g_srs;

static void setup(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/zp-ss-%d", (int)getpid());
    mkdir(g_dir, 0700);
    snprintf(g_params, sizeof g_params, "%s/circuit.params", g_dir);
    snprintf(g_vk_path, sizeof g_vk_path, "%s/circuit.vk", g_dir);
    if (fix_make(&g_fix, SPEC, ZP_H_TAU, 1) || zp__params_save(g_params, &g_fix.pk, 1, NULL) ||
        zp__params_vk_save(g_vk_path, &g_fix.pk.vk, NULL) ||
        zp__params_vk_load(&g_vk, g_vk_path, NULL))
        abort();
}

/* ------------------------------------------------------------------ tests */

static void test_srs(void)
{
    struct RustError e = create_SRS(&g_srs, g_params, true);
    CHECK_EQ_INT(e.code, 0);
    CHECK(e.message == NULL && g_srs.ptr != NULL);
    struct SRS again, other, copy;
    CHECK_EQ_INT(create_SRS(&again, g_params, true).code, 0);
    CHECK(again.ptr == g_srs.ptr); /* cached: shared */
    CHECK_EQ_INT(create_SRS(&other, g_params, false).code, 0);
    CHECK(other.ptr != g_srs.ptr); /* uncached: its own */
    copy = clone_SRS(&other);
    CHECK(copy.ptr == other.ptr);
    drop_SRS(&other);
    batch b;
    batch_make(&b, 1, 900);
    struct groth16_proof p[1];
    CHECK_EQ_INT(GENERATE(b.as, 1, b.r, b.s, p, &copy).code, 0); /* the clone keeps it */
    CHECK(proofs_ok(&b, p));
    drop_SRS(&copy);
    evict_SRS(&again); /* out of the cache; the handles still prove */
    CHECK_EQ_INT(GENERATE(b.as, 1, b.r, b.s, p, &again).code, 0);
    CHECK(proofs_ok(&b, p));
    struct SRS fresh;
    CHECK_EQ_INT(create_SRS(&fresh, g_params, true).code, 0);
    CHECK(fresh.ptr != again.ptr); /* a new cache entry */
    drop_SRS(&again);
    drop_SRS(&g_srs);
    g_srs = fresh;
    drop_SRS(NULL);
    struct SRS none = {NULL};
    drop_SRS(&none);
    evict_SRS(&none);
    CHECK(clone_SRS(&none).ptr == NULL);
    batch_free(&b);
}

static void test_prove(void)
{
    batch b;
    batch_make(&b, CIRCUITS, 100);
    struct groth16_proof p[CIRCUITS];
    memset(p, 0, sizeof p);
    struct RustError e = GENERATE(b.as, CIRCUITS, b.r, b.s, p, &g_srs);
    CHECK_EQ_INT(e.code, 0);
    free(e.message);
    CHECK(proofs_ok(&b, p));
    CHECK_EQ_INT(GENERATE(b.as, 0, b.r, b.s, p, &g_srs).code, 0); /* nothing to do */
    batch_free(&b);
}

/* create_SRS takes a .zpk too: the fixture's key written as one without
 * its matrices, as bench_supraseal_c2 writes it. */
static void test_zpk(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/circuit.zpk", g_dir);
    zp__pk k = g_fix.pk; /* its arrays, matrices left out */
    memset(&k.vk.prep, 0, sizeof k.vk.prep);
    CHECK_EQ_INT(zp__csr_alloc(&k.ma, 0, 0), ZP_OK);
    CHECK_EQ_INT(zp__csr_alloc(&k.mb, 0, 0), ZP_OK);
    CHECK_EQ_INT(zp__zpk_save(path, &k, 1, NULL), ZP_OK);
    zp__csr_free(&k.ma);
    zp__csr_free(&k.mb);
    struct SRS z;
    CHECK_EQ_INT(create_SRS(&z, path, false).code, 0);
    batch b;
    batch_make(&b, 2, 600);
    struct groth16_proof p[2];
    CHECK_EQ_INT(GENERATE(b.as, 2, b.r, b.s, p, &z).code, 0);
    CHECK(proofs_ok(&b, p));
    drop_SRS(&z);
    unlink(path);
    batch_free(&b);
}

/* The key cache: after the first call with a .params, its checked key is
 * kept as a .zpk there, and a later create_SRS loads that instead (the
 * engine's key for it is the .zpk, loaded) and proves the same proofs. */
static void test_key_cache(void)
{
    char dir[128], entry[200];
    snprintf(dir, sizeof dir, "%s/cache", g_dir);
    mkdir(dir, 0700);
    struct stat st;
    CHECK(stat(g_params, &st) == 0);
    snprintf(entry, sizeof entry, "%s/circuit-%lld.zpk", dir, (long long)st.st_size);
    CHECK_EQ_INT(zkpipe_supraseal_key_cache(dir), 0);
    struct SRS a;
    CHECK_EQ_INT(create_SRS(&a, g_params, false).code, 0);
    batch b;
    batch_make(&b, 2, 700);
    struct groth16_proof p[2];
    CHECK_EQ_INT(GENERATE(b.as, 2, b.r, b.s, p, &a).code, 0);
    CHECK(proofs_ok(&b, p));
    for (int i = 0; i < 2000 && stat(entry, &st) != 0; i++)
        usleep(10000); /* written on a thread of its own */
    CHECK(stat(entry, &st) == 0);
    struct SRS k;
    CHECK_EQ_INT(create_SRS(&k, g_params, false).code, 0);
    zp_engine *e = NULL;
    CHECK_EQ_INT(zp__ss_engine(&e), ZP_OK);
    bool from_entry = false;
    zp_key_info ki;
    for (size_t i = 0; e && zp_engine_key_info(e, i, &ki) == ZP_OK; i++)
        from_entry |= !strcmp(ki.source, entry) && ki.tier >= ZP_KEY_HOST;
    CHECK(from_entry);
    memset(p, 0, sizeof p);
    CHECK_EQ_INT(GENERATE(b.as, 2, b.r, b.s, p, &k).code, 0);
    CHECK(proofs_ok(&b, p));
    drop_SRS(&k);
    drop_SRS(&a);
    CHECK_EQ_INT(zkpipe_supraseal_key_cache(NULL), 0);
    unlink(entry);
    rmdir(dir);
    batch_free(&b);
}

typedef struct thread_arg {
    uint64_t seed;
    bool ok;
} thread_arg;

static void *prove_thread(void *p)
{
    thread_arg *t = p;
    batch b;
    batch_make(&b, 2, t->seed);
    struct groth16_proof proofs[2];
    t->ok = true;
    for (int round = 0; round < 2; round++) {
        struct RustError e = GENERATE(b.as, 2, b.r, b.s, proofs, &g_srs);
        t->ok &= e.code == 0 && proofs_ok(&b, proofs);
        free(e.message);
    }
    batch_free(&b);
    return NULL;
}

static void test_threads(void)
{
    enum { T = 4 };
    pthread_t th[T];
    thread_arg a[T];
    for (int i = 0; i < T; i++) {
        a[i] = (thread_arg){.seed = 200 + 10 * (uint64_t)i};
        CHECK(pthread_create(&th[i], NULL, prove_thread, &a[i]) == 0);
    }
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        CHECK(a[i].ok);
    }
}

#ifdef ZP_SS_CURIO
/* start with a, b, c in buffers of their own, freed (and poisoned first)
 * right after start returns; then finalize. */
static void test_split(void)
{
    batch b;
    batch_make(&b, CIRCUITS, 300);
    struct Assignment as[CIRCUITS];
    zp_fr *own[CIRCUITS];
    for (size_t i = 0; i < CIRCUITS; i++) {
        size_t m = b.as[i].abc_size;
        own[i] = malloc(3 * m * sizeof(zp_fr));
        memcpy(own[i], b.as[i].a, m * sizeof(zp_fr));
        memcpy(own[i] + m, b.as[i].b, m * sizeof(zp_fr));
        memcpy(own[i] + 2 * m, b.as[i].c, m * sizeof(zp_fr));
        as[i] = b.as[i];
        as[i].a = (const fr_t *)own[i];
        as[i].b = (const fr_t *)(own[i] + m);
        as[i].c = (const fr_t *)(own[i] + 2 * m);
    }
    void *pending = NULL;
    struct RustError e =
        generate_groth16_proofs_start_c(as, CIRCUITS, b.r, b.s, &g_srs, g_mutex, -1, &pending);
    CHECK_EQ_INT(e.code, 0);
    CHECK(pending != NULL);
    for (size_t i = 0; i < CIRCUITS; i++) {
        memset(own[i], 0xa5, 3 * as[i].abc_size * sizeof(zp_fr));
        free(own[i]);
    }
    struct groth16_proof p[CIRCUITS];
    e = finalize_groth16_proof_c(pending, p);
    CHECK_EQ_INT(e.code, 0);
    CHECK(proofs_ok(&b, p));
    /* Abandoned: cancelled, freed once nothing reads the caller's memory. */
    CHECK_EQ_INT(generate_groth16_proofs_start_c(b.as, CIRCUITS, b.r, b.s, &g_srs, NULL, 0,
                                                 &pending).code, 0);
    destroy_pending_proof(pending);
    destroy_pending_proof(NULL);
    /* A failure at start: no pending handle. */
    struct Assignment bad = b.as[0];
    bad.abc_size = g_fix.pk.domain_size + 1;
    pending = (void *)1;
    CHECK(fails_naming(generate_groth16_proofs_start_c(&bad, 1, b.r, b.s, &g_srs, NULL, -1,
                                                       &pending), "abc_size"));
    CHECK(pending == NULL);
    CHECK(fails_naming(generate_groth16_proofs_start_c(b.as, 1, b.r, b.s, &g_srs, NULL, -1,
                                                       NULL), "pending"));
    CHECK(fails_naming(finalize_groth16_proof_c(NULL, p), "NULL"));
    batch_free(&b);
}
#endif

/* A copy of the .params file with its bytes from `at` changed (len < 0:
 * cut there instead). */
static void bad_params(const char *path, long at, int len)
{
    FILE *in = fopen(g_params, "rb"), *out = fopen(path, "wb");
    if (!in || !out)
        abort();
    int ch;
    long i = 0;
    while ((ch = fgetc(in)) != EOF) {
        if (len < 0 && i == at)
            break;
        if (len > 0 && i >= at && i < at + len)
            ch ^= 0x5a;
        fputc(ch, out);
        i++;
    }
    fclose(in);
    fclose(out);
}

/* zkpipe_supraseal_gpu_mem: set before the first call (main), it sizes
 * each GPU's arena (without GPUs the CPU proves as before: the calls
 * above did); once the engine is open it is refused. */
#define GPU_MEM ((uint64_t)8 << 30)

static void test_gpu_mem(void)
{
    CHECK_EQ_INT(zkpipe_supraseal_gpu_mem((uint64_t)1 << 30), -1);
    zp_engine *e = NULL;
    CHECK_EQ_INT(zp__ss_engine(&e), ZP_OK);
    zp_gpu_info gi;
    if (e && zp_engine_gpu_info(e, 0, &gi) == ZP_OK)
        CHECK(gi.arena_bytes > 0 && gi.arena_bytes <= GPU_MEM);
}

static void test_errors(void)
{
    batch b;
    batch_make(&b, 2, 500);
    struct groth16_proof p[2];
    struct Assignment as[2];

    /* The SRS. */
    struct SRS s;
    char path[128];
    snprintf(path, sizeof path, "%s/missing.params", g_dir);
    CHECK(fails_naming(create_SRS(&s, path, true), "missing.params"));
    CHECK(s.ptr == NULL);
    snprintf(path, sizeof path, "%s/cut.params", g_dir);
    bad_params(path, 5000, -1);
    CHECK(fails_naming(create_SRS(&s, path, true), "cut.params"));
    snprintf(path, sizeof path, "%s/point.params", g_dir);
    bad_params(path, 3 * 96 + 3 * 192 + 4 + 10, 8); /* inside the first IC point */
    CHECK(fails_naming(create_SRS(&s, path, false), "ic point"));
    snprintf(path, sizeof path, "%s/circuit.txt", g_dir);
    CHECK(fails_naming(create_SRS(&s, path, false), ".params"));
    CHECK(fails_naming(create_SRS(&s, NULL, false), "path"));
    CHECK(fails_naming(create_SRS(NULL, g_params, false), "NULL"));

    /* The arguments. */
    struct SRS none = {NULL};
    CHECK(fails_naming(GENERATE(b.as, 2, b.r, b.s, p, &none), "SRS"));
    CHECK(fails_naming(GENERATE(b.as, 2, b.r, b.s, p, NULL), "SRS"));
    CHECK(fails_naming(GENERATE(NULL, 2, b.r, b.s, p, &g_srs), "provers"));
    CHECK(fails_naming(GENERATE(b.as, 2, NULL, b.s, p, &g_srs), "r_s"));
    CHECK(fails_naming(GENERATE(b.as, 2, b.r, b.s, NULL, &g_srs), "proofs"));
    memcpy(as, b.as, sizeof as);
    as[1].c = NULL;
    CHECK(fails_naming(GENERATE(as, 2, b.r, b.s, p, &g_srs), "circuit 1"));

    /* The bitmaps and sizes. */
    memcpy(as, b.as, sizeof as);
    as[1].a_aux_popcount++;
    CHECK(fails_naming(GENERATE(as, 2, b.r, b.s, p, &g_srs), "A aux density"));
    memcpy(as, b.as, sizeof as);
    as[0].b_inp_bit_len++;
    CHECK(fails_naming(GENERATE(as, 2, b.r, b.s, p, &g_srs), "B input density"));
    memcpy(as, b.as, sizeof as);
    as[0].b_aux_popcount--;
    CHECK(fails_naming(GENERATE(as, 2, b.r, b.s, p, &g_srs), "B aux density"));
    memcpy(as, b.as, sizeof as);
    as[1].abc_size = g_fix.pk.domain_size + 1;
    CHECK(fails_naming(GENERATE(as, 2, b.r, b.s, p, &g_srs), "abc_size"));
    memcpy(as, b.as, sizeof as);
    as[0].aux_assignment_size--;
    CHECK(fails_naming(GENERATE(as, 2, b.r, b.s, p, &g_srs), "aux"));

    /* A witness that fails verification. */
    zp_fr *aux = b.w[1] + b.as[1].inp_assignment_size;
    zp_fr keep = aux[0];
    zp_fr_add(&aux[0], &aux[0], &b.w[1][0]);
    CHECK(fails_naming(GENERATE(b.as, 2, b.r, b.s, p, &g_srs), "does not verify"));
    aux[0] = keep;

    /* And the process keeps working. */
    CHECK_EQ_INT(GENERATE(b.as, 2, b.r, b.s, p, &g_srs).code, 0);
    CHECK(proofs_ok(&b, p));
    batch_free(&b);
}

static void cleanup(void)
{
    drop_SRS(&g_srs);
    const char *names[] = {"circuit.params", "circuit.vk", "cut.params", "point.params"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char p[160];
        snprintf(p, sizeof p, "%s/%s", g_dir, names[i]);
        unlink(p);
    }
    rmdir(g_dir);
    zp__vk_free(&g_vk);
    fix_free(&g_fix);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--gpu")) {
        zp_engine_config c;
        zp_engine_config_default(&c);
        c.gpus = -1;
        zp_engine *e = NULL;
        zp_gpu_info gi;
        bool gpu = zp_engine_open(&e, &c) == ZP_OK && zp_engine_gpu_info(e, 0, &gi) == ZP_OK;
        zp_engine_close(e);
        if (!gpu) {
            printf("no GPU: skipped\n");
            return 77;
        }
    }
#ifdef ZP_SS_CURIO
    g_mutex = create_gpu_mutex();
    CHECK(g_mutex != NULL);
#endif
    CHECK_EQ_INT(zkpipe_supraseal_gpu_mem(GPU_MEM), 0);
    setup();
    RUN(test_srs);
    RUN(test_prove);
    RUN(test_zpk);
    RUN(test_key_cache);
    RUN(test_threads);
#ifdef ZP_SS_CURIO
    RUN(test_split);
    destroy_gpu_mutex(g_mutex);
    destroy_gpu_mutex(NULL);
#endif
    RUN(test_gpu_mem);
    RUN(test_errors);
    cleanup();
    return FINISH();
}
