/*
 * The MSMs over witness values (zp__gpu_msm_g1_w / _g2_w): Montgomery
 * scalars read where they lie, through a density bitmap or a range of the
 * witness, against the CPU MSM over the same scalars selected and converted
 * on the host. Values zero, one (R mod r), raw 1 (a Montgomery value that
 * is not one), -1, random; ranges at offsets; densities empty, sparse,
 * full; a scratch of one window a pass (the digits rerun per pass); the
 * split's counts; the argument checks. The MSM's size thresholds come from
 * the command line (gpu_msm_opts.h).
 */
#include "cpu/cpu.h"
#include "gpu_msm_opts.h"
#include "gpu_test.h"

/* The device's MSM options; the cases whose dense part took the affine
 * rounds. */
static zp__gpu_msm_opts T_opts;
static unsigned T_affine;

/* A witness of n Montgomery values: 35 % zero, 30 % one, 5 % raw limbs
 * 1 (dense: R^-1 as a value), 5 % -1, the rest random. */
static void make_witness(zp_fr *w, size_t n)
{
    zp_fr one, minus1, zero;
    zp_fr_one(&one);
    memset(&zero, 0, sizeof zero);
    zp_fr_sub(&minus1, &zero, &one);
    for (size_t i = 0; i < n; i++) {
        unsigned r = (unsigned)(check_rand64() % 100);
        memset(&w[i], 0, sizeof w[i]);
        if (r < 35)
            continue;
        if (r < 65)
            w[i] = one;
        else if (r < 70)
            w[i].l[0] = 1;
        else if (r < 75)
            w[i] = minus1;
        else
            rand_fr_mont(&w[i]);
    }
}

/* A density over n indices (bit probability pct %) and its per-word ranks;
 * returns the set bits. */
static uint64_t make_density(uint64_t *words, uint32_t *rank, size_t n, unsigned pct)
{
    size_t nw = (n + 63) / 64;
    uint64_t set = 0;
    for (size_t k = 0; k < nw; k++) {
        words[k] = 0;
        rank[k] = (uint32_t)set;
        for (unsigned b = 0; b < 64 && k * 64 + b < n; b++)
            if (check_rand64() % 100 < pct) {
                words[k] |= (uint64_t)1 << b;
                set++;
            }
    }
    return set;
}

/* Points R + k S, k < n (distinct sums), made affine: G1 and G2 alike. */
#define DEFINE_POINTS(G, AFF, JAC)                                                      \
    static AFF *G##_points(size_t n)                                                    \
    {                                                                                   \
        AFF gen, *out = xmalloc(n * sizeof *out);                                       \
        JAC g, r, s, *j = xmalloc(n * sizeof *j);                                       \
        zp_fr k1, k2;                                                                   \
        zp_##G##_generator(&gen);                                                       \
        zp_##G##_jac_from_affine(&g, &gen);                                             \
        rand_scalar(&k1);                                                               \
        rand_scalar(&k2);                                                               \
        zp_##G##_jac_mul_vartime(&r, &g, k1.l, 4);                                      \
        zp_##G##_jac_mul_vartime(&s, &g, k2.l, 4);                                      \
        for (size_t i = 0; i < n; i++) {                                                \
            j[i] = r;                                                                   \
            zp_##G##_jac_add(&r, &r, &s);                                               \
        }                                                                               \
        zp_##G##_batch_to_affine(out, j, n);                                            \
        free(j);                                                                        \
        return out;                                                                     \
    }
DEFINE_POINTS(g1, zp_g1_affine, zp_g1_jac)
DEFINE_POINTS(g2, zp_g2_affine, zp_g2_jac)

/* One case: nv witness values from off (range, pct < 0) or through a
 * density of pct % over [0, off + nv), its points from the first set bit
 * at or above off on (a chunk of a density's points: j0 the set bits below
 * off); G2 or G1; scratch for `windows` windows a pass (0: all). */
static void run_case(bool g2, size_t off, size_t nv, int pct, unsigned windows)
{
    const size_t nwit = off + nv, nwords = (nwit + 63) / 64;
    zp_fr *w = xmalloc(nwit * sizeof *w);
    make_witness(w, nwit);
    uint64_t *words = NULL;
    uint32_t *rank = NULL;
    uint64_t n = nv, j0 = 0;
    if (pct >= 0) {
        words = xmalloc(nwords * sizeof *words);
        rank = xmalloc(nwords * sizeof *rank);
        n = make_density(words, rank, nwit, (unsigned)pct);
        for (size_t v = 0; v < off; v++)
            j0 += (words[v / 64] >> (v % 64)) & 1;
        n -= j0;
    }
    /* The scalars the MSM must see, standard form, and the split. */
    zp_fr *sc = xmalloc(n * sizeof *sc), one;
    zp_fr_one(&one);
    uint64_t want_z = 0, want_o = 0, j = 0;
    for (size_t v = off; v < off + nv; v++) {
        if (words && !((words[v / 64] >> (v % 64)) & 1))
            continue;
        want_z += zp_fr_is_zero(&w[v]);
        want_o += zp_fr_eq(&w[v], &one);
        zp_fr_from_mont(&sc[j++], &w[v]);
    }
    CHECK_EQ_INT(j, n);
    zp__gpu_buf dw = gpu_test_alloc(nwit * sizeof *w), dwords = {0}, drank = {0};
    GPU_OK(zp__gpu_upload(T_s, dw.ptr, w, nwit * sizeof *w));
    if (words) {
        dwords = gpu_test_alloc(nwords * sizeof *words);
        drank = gpu_test_alloc(nwords * sizeof *rank);
        GPU_OK(zp__gpu_upload(T_s, dwords.ptr, words, nwords * sizeof *words));
        GPU_OK(zp__gpu_upload(T_s, drank.ptr, rank, nwords * sizeof *rank));
    }
    const zp__gpu_wsc ws = {dw.ptr, dwords.ptr, drank.ptr, off, nv, j0};
    uint64_t sb = zp__gpu_msm_scratch_bytes_opts(&T_opts, n ? n : 1, g2, windows, false);
    zp__gpu_buf scratch = gpu_test_alloc(sb);
    bool ok;
    if (g2) {
        zp_g2_affine *p = g2_points(n ? n : 1);
        zp__gpu_buf dp = gpu_test_alloc((n ? n : 1) * sizeof *p);
        GPU_OK(zp__gpu_upload(T_s, dp.ptr, p, (n ? n : 1) * sizeof *p));
        zp_g2_jac got, want;
        GPU_OK(zp__gpu_msm_g2_w(T_s, &got, dp.ptr, &ws, n, scratch));
        CHECK_EQ_INT(zp__cpu_msm_g2(&want, p, sc, n, 0), ZP_OK);
        ok = zp_g2_jac_eq(&got, &want);
        zp__gpu_free(T_gpu, &dp);
        free(p);
    } else {
        zp_g1_affine *p = g1_points(n ? n : 1);
        zp__gpu_buf dp = gpu_test_alloc((n ? n : 1) * sizeof *p);
        GPU_OK(zp__gpu_upload(T_s, dp.ptr, p, (n ? n : 1) * sizeof *p));
        zp_g1_jac got, want;
        GPU_OK(zp__gpu_msm_g1_w(T_s, &got, dp.ptr, &ws, n, scratch));
        CHECK_EQ_INT(zp__cpu_msm_g1(&want, p, sc, n, 0), ZP_OK);
        ok = zp_g1_jac_eq(&got, &want);
        zp__gpu_free(T_gpu, &dp);
        free(p);
    }
    CHECK(ok);
    uint64_t z, o, d;
    zp__gpu_msm_last_split(T_s, &z, &o, &d);
    if (n) {
        CHECK_EQ_INT(z, want_z);
        CHECK_EQ_INT(o, want_o);
        CHECK_EQ_INT(d, n - want_z - want_o);
    }
    unsigned nw_, per_;
    zp__gpu_msm_last_passes(T_s, &nw_, &per_);
    T_affine += zp__gpu_msm_last_affine(T_s);
    printf("  %s %s off=%zu nv=%zu n=%llu split=%llu/%llu/%llu, %u of %u windows a pass%s %s\n",
           g2 ? "G2" : "G1", words ? "density" : "range", off, nv, (unsigned long long)n,
           (unsigned long long)z, (unsigned long long)o, (unsigned long long)d, per_, nw_,
           zp__gpu_msm_last_affine(T_s) ? ", affine" : "", ok ? "ok" : "WRONG");
    zp__gpu_free(T_gpu, &scratch);
    if (words) {
        zp__gpu_free(T_gpu, &drank);
        zp__gpu_free(T_gpu, &dwords);
    }
    zp__gpu_free(T_gpu, &dw);
    free(sc);
    free(rank);
    free(words);
    free(w);
}

static void test_g1_range(void)
{
    static const size_t sizes[] = {1, 2, 255, 256, 257, 1025, 3000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        run_case(false, i % 3 ? 7 * i : 0, sizes[i], -1, 0);
    if (!T_small)
        run_case(false, 1000, 40000, -1, 0);
}

static void test_g1_density(void)
{
    static const size_t sizes[] = {1, 63, 64, 65, 1000, 5000};
    static const int pcts[] = {0, 3, 50, 100};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (size_t k = 0; k < sizeof pcts / sizeof *pcts; k++)
            run_case(false, 0, sizes[i], pcts[k], 0);
    /* Chunks of a density's points (off > 0, j0 set bits below it). */
    static const size_t offs[] = {1, 63, 64, 130, 777};
    for (size_t i = 0; i < sizeof offs / sizeof *offs; i++)
        run_case(false, offs[i], 900 + 37 * i, i % 2 ? 50 : 90, 0);
    if (!T_small)
        run_case(false, 0, 60000, 70, 0);
}

/* One window a pass: the digits run again for every pass. */
static void test_g1_passes(void)
{
    run_case(false, 0, 4000, 60, 1);
    run_case(false, 11, 3000, -1, 1);
}

static void test_g2(void)
{
    run_case(true, 3, 1025, -1, 0);
    run_case(true, 0, 3000, 50, 0);
    run_case(true, 191, 2000, 60, 0);
    run_case(true, 0, 300, 100, 1);
}

/* After the cases: with the affine rounds forced (--affine-from 0), some
 * dense parts took them. */
static void test_affine_forced(void)
{
    printf("  affine: %u cases\n", T_affine);
    if (gpu_test_msm_affine_forced(&T_opts))
        CHECK(T_affine > 0);
}

/* Selections that break gpu.h's rules, refused before any work. */
static void test_args(void)
{
    zp__gpu_buf d = gpu_test_alloc(1 << 20);
    zp_g1_jac r;
    zp_g2_jac r2;
    const zp__gpu_wsc none = {NULL, NULL, NULL, 0, 4, 0};
    const zp__gpu_wsc norank = {d.ptr, d.ptr, NULL, 0, 4, 0};
    const zp__gpu_wsc offw = {d.ptr, d.ptr, d.ptr, 1, 4, 2}; /* more bits below 1 than 1 */
    const zp__gpu_wsc rangej = {d.ptr, NULL, NULL, 0, 4, 1};  /* j0 without words */
    const zp__gpu_wsc big = {d.ptr, NULL, NULL, (uint64_t)1 << 32, 4, 0};
    const zp__gpu_wsc range = {d.ptr, NULL, NULL, 0, 4, 0};
    const zp__gpu_wsc dens = {d.ptr, d.ptr, d.ptr, 0, 4, 0};
    CHECK_EQ_INT(zp__gpu_msm_g1_w(T_s, &r, d.ptr, NULL, 4, d), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g1_w(T_s, &r, d.ptr, &none, 4, d), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g1_w(T_s, &r, d.ptr, &norank, 4, d), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g1_w(T_s, &r, d.ptr, &offw, 4, d), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g1_w(T_s, &r, d.ptr, &big, 4, d), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g1_w(T_s, &r, d.ptr, &rangej, 4, d), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g1_w(T_s, &r, d.ptr, &range, 3, d), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g1_w(T_s, &r, d.ptr, &dens, 5, d), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g2_w(T_s, &r2, d.ptr, &range, 5, d), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g1_w(T_s, &r, d.ptr, &range, (uint64_t)1 << 31, d),
                 ZP_E_TOO_LARGE);
    zp__gpu_free(T_gpu, &d);
}

int main(int argc, char **argv)
{
    zp__gpu_config cfg;
    zp__gpu_config_default(&cfg);
    gpu_test_msm_opts(argc, argv, &cfg.msm);
    T_opts = cfg.msm;
    gpu_test_open_cfg(argc, argv, 4, &cfg);
    RUN(test_g1_range);
    RUN(test_g1_density);
    RUN(test_g1_passes);
    RUN(test_g2);
    RUN(test_affine_forced);
    RUN(test_args);
    gpu_test_close();
    return FINISH();
}
