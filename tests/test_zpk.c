/*
 * The .zpk file and its checksum: the parallel hash against its plain
 * twin; save -> load round trips (from the snarkjs fixture and from a
 * bellperson .params with its circuit attached) with every array equal;
 * a corrupted byte in each section; truncated and extended files; headers
 * with absurd counts or offsets (resealed with a valid header checksum so
 * the bounds checks themselves are reached); index arrays that would send
 * a prover out of range; atomic writes that leave nothing behind.
 */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"
#include "groth16/groth16.h"
#include "io/bellperson.h"
#include "io/zpk.h"
#include "r1cs/synth.h"
#include "test_bp_util.h"
#include "test_io_util.h"

static char dir[64];

#define HDR_SUM (ZP__ZPK_TABLE + ZP__ZPK_NSEC * ZP__ZPK_ENTRY)

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint8_t *entry(uint8_t *f, uint32_t id)
{
    return f + ZP__ZPK_TABLE + (id - 1) * ZP__ZPK_ENTRY;
}

/* Recomputes the header checksum after an edit of the header. */
static void reseal(uint8_t *f)
{
    put64(f + HDR_SUM, zp__hash64_ref(f, HDR_SUM));
}

/* Recomputes a section's checksum (then the header's). */
static void reseal_section(uint8_t *f, uint32_t id)
{
    uint8_t *e = entry(f, id);
    put64(e + 24, zp__hash64_ref(f + get64(e + 8), (size_t)get64(e + 16)));
    reseal(f);
}

static zp_err load_bytes(zp__pk *out, const uint8_t *f, size_t n, unsigned flags,
                         zp__ioerr *why)
{
    char path[128];
    snprintf(path, sizeof path, "%s/x.zpk", dir);
    spit(path, f, n);
    return zp__zpk_load(out, path, flags, 2, why);
}

/* ------------------------------------------------------------- hash */

static void test_hash(void)
{
    size_t max = 3 * ZP__HASH_CHUNK + 77;
    uint8_t *p = malloc(max);
    for (size_t i = 0; i < max; i++)
        p[i] = (uint8_t)check_rand64();
    size_t lens[] = {0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 4096,
                     ZP__HASH_CHUNK - 1, ZP__HASH_CHUNK, ZP__HASH_CHUNK + 1,
                     2 * ZP__HASH_CHUNK + 8, max};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        uint64_t r = zp__hash64_ref(p, lens[i]);
        CHECK(zp__hash64(p, lens[i], 1) == r);
        CHECK(zp__hash64(p, lens[i], 3) == r);
        /* Unaligned start. */
        if (lens[i] > 0)
            CHECK(zp__hash64(p + 1, lens[i] - 1, 2) == zp__hash64_ref(p + 1, lens[i] - 1));
    }
    /* Every single-bit change in one word is caught, and so are a shorter
     * input and two swapped chunks. */
    uint64_t h = zp__hash64(p, max, 2);
    size_t pos[] = {0, 5, 31, 32, 1000, ZP__HASH_CHUNK, max - 1};
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
        for (int bit = 0; bit < 8; bit += 7) {
            p[pos[i]] ^= (uint8_t)(1 << bit);
            CHECK(zp__hash64(p, max, 2) != h);
            p[pos[i]] ^= (uint8_t)(1 << bit);
        }
    CHECK(zp__hash64(p, max - 1, 2) != h);
    uint8_t *q = malloc(max);
    memcpy(q, p + ZP__HASH_CHUNK, ZP__HASH_CHUNK);
    memcpy(q + ZP__HASH_CHUNK, p, ZP__HASH_CHUNK);
    memcpy(q + 2 * ZP__HASH_CHUNK, p + 2 * ZP__HASH_CHUNK, max - 2 * ZP__HASH_CHUNK);
    CHECK(zp__hash64(q, max, 2) != h);
    /* Trailing zero bytes are not the same as a shorter input. */
    memset(q, 0, 16);
    CHECK(zp__hash64_ref(q, 8) != zp__hash64_ref(q, 16));
    free(q);
    free(p);
    /* Pinned values: the hash is part of the file format, so a change to
     * it must be a deliberate format change (new .zpk version). */
    CHECK(zp__hash64_ref("", 0) == 0x900d4ed071afe8f4ULL);
    CHECK(zp__hash64_ref("zkpipe", 6) == 0xd5e0ff7a19412e4eULL);
}

/* --------------------------------------------------------- round trips */

static void roundtrip(const zp__pk *pk, const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s.zpk", dir, name);
    zp__ioerr why = {{0}};
    zp_err e = zp__zpk_save(path, pk, 2, &why);
    CHECK_EQ_INT(e, ZP_OK);
    if (e) {
        fprintf(stderr, "%s: %s\n", name, why.msg);
        return;
    }
    unsigned flags[] = {0, ZP__ZPK_TRUSTED};
    for (int i = 0; i < 2; i++) {
        zp__pk back;
        e = zp__zpk_load(&back, path, flags[i], 3, &why);
        CHECK_EQ_INT(e, ZP_OK);
        if (e) {
            fprintf(stderr, "%s: %s\n", name, why.msg);
            continue;
        }
        CHECK(pk_eq(pk, &back));
        CHECK(back.map_base != NULL);
        /* Arrays live in the mapping, 4 KiB-aligned. */
        CHECK((uint8_t *)back.h >= (uint8_t *)back.map_base &&
              (uint8_t *)back.h < (uint8_t *)back.map_base + back.map_len);
        CHECK(((uintptr_t)back.a % 4096) == 0 && ((uintptr_t)back.ma.val % 4096) == 0);
        zp__pk_free(&back);
        CHECK(back.map_base == NULL && back.a == NULL);
    }
}

static void test_roundtrip_zkey(void)
{
    zp__pk pk;
    CHECK_EQ_INT(zp__zkey_load(&pk, "data/mul3.zkey", NULL), ZP_OK);
    roundtrip(&pk, "mul3");
    zp__pk_free(&pk);
}

/* A .params key for cs with random points (not a working key). */
static void params_pk(zp__pk *out, const zp__r1cs *cs)
{
    zp__bitmap da, db;
    zp__csr_column_density(&da, &cs->a, cs->n_vars, 1);
    zp__csr_column_density(&db, &cs->b, cs->n_vars, 1);
    for (uint32_t i = 0; i <= cs->n_public; i++)
        zp__bitmap_set(&da, i);
    uint64_t dom = 1;
    while (dom < cs->n_constraints + cs->n_public + 1)
        dom *= 2;
    zp__pk pk;
    rand_tau_pk(&pk, cs->n_public, cs->n_vars, dom, zp__bitmap_count(&da),
                zp__bitmap_count(&db));
    zp__bitmap_free(&da);
    zp__bitmap_free(&db);
    char path[128];
    snprintf(path, sizeof path, "%s/p.params", dir);
    CHECK_EQ_INT(zp__params_save(path, &pk, 2, NULL), ZP_OK);
    CHECK_EQ_INT(zp__params_load(out, path, 2, NULL), ZP_OK);
    zp__pk_free(&pk);
}

static void test_roundtrip_params(void)
{
    zp__synth_spec s;
    zp__r1cs cs;
    CHECK_EQ_INT(zp__synth_parse(&s, "synth:porep:9"), ZP_OK);
    s.keep_c = false;
    CHECK_EQ_INT(zp__synth_circuit(&cs, &s), ZP_OK);
    zp__pk pk;
    params_pk(&pk, &cs);
    char path[128];
    snprintf(path, sizeof path, "%s/noattach.zpk", dir);
    /* Without its circuit the key is incomplete: refused. */
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__zpk_save(path, &pk, 1, &why), ZP_E_INVALID_ARG);
    CHECK(strstr(why.msg, "attach") != NULL);
    CHECK(access(path, F_OK) != 0);
    CHECK_EQ_INT(zp__pk_attach_circuit(&pk, &cs, NULL), ZP_OK);
    roundtrip(&pk, "porep9");
    zp__pk_free(&pk);
    zp__r1cs_free(&cs);
}

/* A key used straight from the mapping proves exactly what the key it
 * was saved from proves (same r, s), and the proof verifies. */
static void test_prove_from_mapping(void)
{
    zp__pk pk, mapped;
    CHECK_EQ_INT(zp__zkey_load(&pk, "data/mul3.zkey", NULL), ZP_OK);
    char path[128];
    snprintf(path, sizeof path, "%s/prove.zpk", dir);
    CHECK_EQ_INT(zp__zpk_save(path, &pk, 1, NULL), ZP_OK);
    CHECK_EQ_INT(zp__zpk_load(&mapped, path, 0, 1, NULL), ZP_OK);
    zp_fr *w = NULL;
    uint64_t n = 0;
    CHECK_EQ_INT(zp__wtns_load(&w, &n, "data/mul3.wtns", pk.n_vars, NULL), ZP_OK);
    zp__prove_opts o;
    zp__prove_opts_default(&o);
    zp_fr r, s;
    zp_fr_from_u64(&r, 12345);
    zp_fr_from_u64(&s, 67890);
    o.r = &r;
    o.s = &s;
    zp__proof p1, p2;
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__prove(&p1, &pk, w, n, &o, NULL, &why), ZP_OK);
    CHECK_EQ_INT(zp__prove(&p2, &mapped, w, n, &o, NULL, &why), ZP_OK);
    CHECK_MEM(&p1, &p2, sizeof p1);
    CHECK_EQ_INT(zp__verify(&mapped.vk, w + 1, mapped.n_public, &p2), ZP_OK);
    free(w);
    zp__pk_free(&mapped);
    zp__pk_free(&pk);
}

/* ---------------------------------------------------------- corruption */

static uint8_t *saved_mul3(size_t *n)
{
    zp__pk pk;
    CHECK_EQ_INT(zp__zkey_load(&pk, "data/mul3.zkey", NULL), ZP_OK);
    char path[128];
    snprintf(path, sizeof path, "%s/c.zpk", dir);
    CHECK_EQ_INT(zp__zpk_save(path, &pk, 1, NULL), ZP_OK);
    zp__pk_free(&pk);
    return slurp(path, n);
}

static void test_corrupt_sections(void)
{
    size_t n;
    uint8_t *f = saved_mul3(&n);
    zp__pk pk;
    CHECK_EQ_INT(load_bytes(&pk, f, n, 0, NULL), ZP_OK);
    zp__pk_free(&pk);
    for (uint32_t id = 1; id <= ZP__ZPK_NSEC; id++) {
        uint64_t off = get64(entry(f, id) + 8), len = get64(entry(f, id) + 16);
        CHECK(len > 0);
        CHECK(off % 4096 == 0);
        if (len == 0)
            continue;
        size_t at = (size_t)(off + len / 2);
        f[at] ^= 0x10;
        zp__ioerr why = {{0}};
        CHECK_EQ_INT(load_bytes(&pk, f, n, 0, &why), ZP_E_CHECKSUM);
        char want[64];
        snprintf(want, sizeof want, "section %s", zp__zpk_section_name(id));
        CHECK(strstr(why.msg, want) != NULL);
        if (!strstr(why.msg, want))
            fprintf(stderr, "id %u: %s\n", id, why.msg);
        /* A point section corrupted is not noticed by a trusted load: the
         * flag really skips the sums. */
        if (id == ZP__ZPK_A) {
            CHECK_EQ_INT(load_bytes(&pk, f, n, ZP__ZPK_TRUSTED, NULL), ZP_OK);
            zp__pk_free(&pk);
        }
        f[at] ^= 0x10;
    }
    /* The header has a checksum too. */
    f[40] ^= 1;
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(load_bytes(&pk, f, n, ZP__ZPK_TRUSTED, &why), ZP_E_CHECKSUM);
    CHECK(strstr(why.msg, "header") != NULL);
    f[40] ^= 1;
    /* Padding between sections is not covered. */
    uint64_t pad = get64(entry(f, 1) + 8) + get64(entry(f, 1) + 16);
    f[pad] = 0xee;
    CHECK_EQ_INT(load_bytes(&pk, f, n, 0, NULL), ZP_OK);
    zp__pk_free(&pk);
    free(f);
}

static void test_truncated(void)
{
    size_t n;
    uint8_t *f = saved_mul3(&n);
    zp__pk pk;
    size_t cuts[] = {0, 1, 7, 8, 100, 4095, 4096, 4097, 8191, 8192, n / 2, n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        zp__ioerr why = {{0}};
        zp_err e = load_bytes(&pk, f, cuts[i], 0, &why);
        CHECK_EQ_INT(e, ZP_E_TRUNCATED);
        if (e != ZP_E_TRUNCATED)
            fprintf(stderr, "cut %zu: %s\n", cuts[i], why.msg);
        /* Also cut at every section start. */
    }
    for (uint32_t id = 1; id <= ZP__ZPK_NSEC; id++)
        CHECK_EQ_INT(load_bytes(&pk, f, (size_t)get64(entry(f, id) + 8), 0, NULL),
                     ZP_E_TRUNCATED);
    /* One byte more than recorded. */
    uint8_t *g = malloc(n + 1);
    memcpy(g, f, n);
    g[n] = 0;
    CHECK_EQ_INT(load_bytes(&pk, g, n + 1, 0, NULL), ZP_E_FORMAT);
    free(g);
    free(f);
    char path[128];
    snprintf(path, sizeof path, "%s/none.zpk", dir);
    CHECK_EQ_INT(zp__zpk_load(&pk, path, 0, 1, NULL), ZP_E_NOT_FOUND);
    CHECK_EQ_INT(zp__zpk_load(&pk, dir, 0, 1, NULL), ZP_E_IO);
}

/* Header fields by offset (zpk.h). */
enum { O_VERSION = 8, O_CONV = 16, O_ROOTS = 20, O_NVARS = 24, O_NPUB = 28, O_DOMAIN = 32,
       O_NA = 40, O_NB = 48, O_NL = 56, O_NH = 64, O_MAROWS = 72, O_MANNZ = 80,
       O_FILESIZE = 104 };

static void test_absurd_header(void)
{
    size_t n;
    uint8_t *f = saved_mul3(&n);
    uint8_t *g = malloc(n);
    zp__pk pk;
    struct { size_t off; int width; uint64_t v; zp_err want; } cases[] = {
        {O_CONV, 4, 3, ZP_E_FORMAT},
        {O_ROOTS, 4, 6, ZP_E_FORMAT},
        {O_NVARS, 4, 0xffffffffu, ZP_E_FORMAT},       /* n_l no longer agrees */
        {O_NPUB, 4, 7, ZP_E_FORMAT},                  /* n_public >= n_vars */
        {O_DOMAIN, 8, 12, ZP_E_FORMAT},               /* not a power of two */
        {O_DOMAIN, 8, (uint64_t)1 << 40, ZP_E_FORMAT}, /* beyond 2^32 */
        {O_DOMAIN, 8, 0, ZP_E_FORMAT},
        {O_NA, 8, (uint64_t)1 << 40, ZP_E_FORMAT},
        {O_NB, 8, 8, ZP_E_FORMAT},
        {O_NL, 8, 5, ZP_E_FORMAT},
        {O_NH, 8, 9, ZP_E_FORMAT},
        {O_MAROWS, 8, 9, ZP_E_FORMAT},                /* beyond the domain */
        {O_MANNZ, 8, (uint64_t)1 << 60, ZP_E_TOO_LARGE},
        {O_MANNZ, 8, 5000, ZP_E_FORMAT},              /* section length disagrees */
        {O_FILESIZE, 8, (uint64_t)1 << 62, ZP_E_TRUNCATED},
        {O_FILESIZE, 8, 4096, ZP_E_FORMAT},
        {O_VERSION, 4, 2, ZP_E_UNSUPPORTED},
        /* the section table: offsets and lengths */
        {ZP__ZPK_TABLE + 8, 8, 4096 + 96, ZP_E_FORMAT},              /* unaligned */
        {ZP__ZPK_TABLE + 8, 8, (uint64_t)1 << 62, ZP_E_FORMAT},       /* past the end */
        {ZP__ZPK_TABLE + 8, 8, UINT64_MAX - 4095, ZP_E_FORMAT},       /* wraps */
        {ZP__ZPK_TABLE + 32 + 8, 8, 4096, ZP_E_FORMAT},              /* overlaps VK */
        {ZP__ZPK_TABLE + 16, 8, UINT64_MAX, ZP_E_FORMAT},             /* length */
        {ZP__ZPK_TABLE, 4, 2, ZP_E_FORMAT},                           /* id */
        {ZP__ZPK_TABLE + 13 * 32, 4, 15, ZP_E_FORMAT},
        {112, 4, 15, ZP_E_FORMAT},                                    /* section count */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(g, f, n);
        if (cases[i].width == 4)
            tput32(g + cases[i].off, (uint32_t)cases[i].v);
        else
            put64(g + cases[i].off, cases[i].v);
        reseal(g);
        zp__ioerr why = {{0}};
        zp_err e = load_bytes(&pk, g, n, ZP__ZPK_TRUSTED, &why);
        CHECK_EQ_INT(e, cases[i].want);
        if (e != cases[i].want)
            fprintf(stderr, "case %zu: %s\n", i, why.msg);
        if (e == ZP_OK)
            zp__pk_free(&pk);
    }
    memcpy(g, f, n);
    memcpy(g, "ZKPIPEPX", 8);
    CHECK_EQ_INT(load_bytes(&pk, g, n, 0, NULL), ZP_E_FORMAT);
    free(g);
    free(f);
}

/* Index arrays that would make a prover read out of range, with valid
 * checksums: the structure checks catch them (unless trusted). */
static void test_bad_structure(void)
{
    size_t n;
    uint8_t *f = saved_mul3(&n);
    uint8_t *g = malloc(n);
    zp__pk pk;
    uint32_t n_vars = tget32(f + O_NVARS);
    uint64_t ma_nnz = get64(f + O_MANNZ);
    /* The cases below assume mul3's shape: B density {3, 4}, A with rows
     * 0, 1 and 2 non-empty. */
    const uint64_t *bd = (const uint64_t *)(f + get64(entry(f, ZP__ZPK_BDENS) + 8));
    const uint64_t *rp = (const uint64_t *)(f + get64(entry(f, ZP__ZPK_MA_ROWS) + 8));
    CHECK(bd[0] == 0x18 && rp[1] > 0 && rp[2] > rp[1] && rp[2] < ma_nnz);
    struct { uint32_t id; size_t at; uint64_t v; int width; const char *what; } cases[] = {
        {ZP__ZPK_MA_COLS, 0, n_vars, 4, "column"},
        {ZP__ZPK_MB_COLS, 4, 0xffffffffu, 4, "column"},
        {ZP__ZPK_MA_ROWS, 8, 1000, 8, "row"},        /* row 1 past nnz */
        {ZP__ZPK_MA_ROWS, 8, ma_nnz, 8, "decreasing"}, /* row 1 ends before it starts */
        {ZP__ZPK_MA_ROWS, 0, 1, 8, "row offsets"},   /* does not start at 0 */
        {ZP__ZPK_MB_ROWS, 8, UINT64_MAX, 8, "row"},
        {ZP__ZPK_ADENS, 0, 0, 8, "A density"},       /* popcount */
        {ZP__ZPK_BDENS, 0, 0x08, 8, "B density"},    /* popcount */
        /* a bit past n_vars, popcount unchanged */
        {ZP__ZPK_BDENS, 0, (uint64_t)1 << 63 | 0x08, 8, "past the variables"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(g, f, n);
        uint8_t *p = g + get64(entry(g, cases[i].id) + 8) + cases[i].at;
        if (cases[i].width == 4)
            tput32(p, (uint32_t)cases[i].v);
        else
            put64(p, cases[i].v);
        reseal_section(g, cases[i].id);
        zp__ioerr why = {{0}};
        CHECK_EQ_INT(load_bytes(&pk, g, n, 0, &why), ZP_E_FORMAT);
        CHECK(strstr(why.msg, cases[i].what) != NULL);
        if (!strstr(why.msg, cases[i].what))
            fprintf(stderr, "case %zu: %s\n", i, why.msg);
    }
    free(g);
    free(f);
}

/* ---------------------------------------------------------- atomicity */

static int count_tmp_files(const char *d)
{
    DIR *dd = opendir(d);
    int c = 0;
    struct dirent *e;
    while (dd && (e = readdir(dd)))
        c += strstr(e->d_name, ".tmp.") != NULL;
    if (dd)
        closedir(dd);
    return c;
}

static void test_atomic(void)
{
    zp__pk pk;
    CHECK_EQ_INT(zp__zkey_load(&pk, "data/mul3.zkey", NULL), ZP_OK);
    char path[160];
    zp__ioerr why = {{0}};
    /* A folder that does not exist. */
    snprintf(path, sizeof path, "%s/no/such/dir/k.zpk", dir);
    zp_err e = zp__zpk_save(path, &pk, 1, &why);
    CHECK(e == ZP_E_NOT_FOUND || e == ZP_E_IO);
    CHECK(access(path, F_OK) != 0);

    /* A good file stays as it was when a later save fails... */
    snprintf(path, sizeof path, "%s/keep.zpk", dir);
    CHECK_EQ_INT(zp__zpk_save(path, &pk, 1, NULL), ZP_OK);
    size_t n0;
    uint8_t *before = slurp(path, &n0);
    /* ...by validation: an inconsistent key is refused before writing, */
    pk.n_a++;
    CHECK_EQ_INT(zp__zpk_save(path, &pk, 1, &why), ZP_E_INVALID_ARG);
    pk.n_a--;
    /* ...or by the disk filling up mid-write (a file size limit here). */
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 8192;
    signal(SIGXFSZ, SIG_IGN);
    CHECK_EQ_INT(setrlimit(RLIMIT_FSIZE, &lim), 0);
    e = zp__zpk_save(path, &pk, 1, &why);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK_EQ_INT(e, ZP_E_IO);
    size_t n1;
    uint8_t *after = slurp(path, &n1);
    CHECK(n0 == n1 && memcmp(before, after, n0) == 0);
    CHECK_EQ_INT(count_tmp_files(dir), 0);
    free(before);
    free(after);
    /* The same for a fresh name: nothing appears. */
    snprintf(path, sizeof path, "%s/fresh.zpk", dir);
    CHECK_EQ_INT(setrlimit(RLIMIT_FSIZE, &lim), 0);
    e = zp__zpk_save(path, &pk, 1, NULL);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK_EQ_INT(e, ZP_E_IO);
    CHECK(access(path, F_OK) != 0);
    CHECK_EQ_INT(count_tmp_files(dir), 0);
    zp__pk_free(&pk);
}

int main(void)
{
    make_tmpdir(dir, "zpk");
    RUN(test_hash);
    RUN(test_roundtrip_zkey);
    RUN(test_roundtrip_params);
    RUN(test_prove_from_mapping);
    RUN(test_corrupt_sections);
    RUN(test_truncated);
    RUN(test_absurd_header);
    RUN(test_bad_structure);
    RUN(test_atomic);
    rm_tree(dir);
    return FINISH();
}
