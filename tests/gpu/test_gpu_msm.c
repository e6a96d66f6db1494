/*
 * GPU MSM (G1 and G2, with the 0/1 split) against the CPU: the one-thread
 * reference (sum of scalar multiplications) for small n, the CPU Pippenger
 * for large n. Sizes 1, 2, 2^k - 1, 2^k, 2^k + 1; scalars 0, 1, r - 1,
 * random, mixed, all zero, all equal (one bucket per window: exercises the
 * chunk carries); points distinct, all equal, with infinities; and scratch
 * sized for 1 to 3 windows per pass. The MSM's size thresholds come from
 * the command line (gpu_msm_opts.h): with --affine-from 0 the dense parts
 * go through the batch-affine rounds wherever their layout fits.
 */
#include "cpu/cpu.h"
#include "gpu_msm_opts.h"
#include "gpu_test.h"

/* windows argument of the cases: the scratch of zp__gpu_msm_scratch_bytes_best */
#define BEST 0xffffffffu

/* The device's MSM options; whether they force the affine rounds. */
static zp__gpu_msm_opts T_opts;
static bool T_affine_forced;
/* Cases whose dense part took the affine rounds, two of them, whose ones
 * took them after it. */
static unsigned T_affine, T_rounds2, T_ones_affine;

enum scal { S_RANDOM, S_MIXED, S_ZERO, S_ONE, S_MINUS1, S_SAME, S_SPARSE, S_DIGITS };
enum pts { P_DISTINCT, P_SAME, P_WITH_INF };

static const char *scal_name[] = {"random", "mixed", "zero", "one",
                                  "r-1",    "same",  "sparse", "digits"};
/* Cases whose sort ran one bit short (msm_sort.cuh). */
static unsigned T_short;
/* Cases whose ones went first (ones_first_ok). */
static unsigned T_first;

/* Random bits at c - 1, 2c - 1, ... below 2^250: signed c-bit digits of
 * 2^(c-1) (the top digit, sorted with the zeros by a short sort) or 0. */
static void top_digits(zp_fr *s, unsigned c)
{
    for (unsigned b = c - 1; b < 250; b += c)
        if (check_rand64() & 1)
            s->l[b / 64] |= (uint64_t)1 << (b % 64);
}

/* s <- r - s (s in 1 .. r - 1, standard form). */
static void fr_negate_raw(zp_fr *s)
{
    zp_fr r = ZP_FR_MODULUS;
    unsigned borrow = 0;
    for (int k = 0; k < 4; k++) {
        uint64_t a = r.l[k], b = s->l[k];
        uint64_t d = a - b - borrow;
        borrow = a < b || (a == b && borrow);
        s->l[k] = d;
    }
}
static const char *pts_name[] = {"distinct", "same", "with-inf"};

static void make_scalars(zp_fr *s, size_t n, enum scal kind)
{
    zp_fr same, rm1 = ZP_FR_MODULUS;
    rm1.l[0] -= 1;
    rand_scalar(&same);
    for (size_t i = 0; i < n; i++) {
        memset(&s[i], 0, sizeof s[i]);
        unsigned r = (unsigned)(check_rand64() % 100);
        switch (kind) {
        case S_RANDOM: rand_scalar(&s[i]); break;
        case S_ZERO: break;
        case S_ONE: s[i].l[0] = 1; break;
        case S_MINUS1: s[i] = rm1; break;
        case S_SAME: s[i] = same; break;
        case S_MIXED: /* 30% zero, 30% one, 10% r-1, 10% small, 20% random */
            if (r < 30) break;
            if (r < 60) { s[i].l[0] = 1; break; }
            if (r < 70) { s[i] = rm1; break; }
            if (r < 80) { s[i].l[0] = 2 + r; break; }
            rand_scalar(&s[i]);
            break;
        case S_DIGITS: /* top and zero digits at c = 9 and 17, small, random */
            if (r < 30) { top_digits(&s[i], 9); break; }
            if (r < 60) { top_digits(&s[i], 17); break; }
            if (r < 80) { s[i].l[0] = 2 + (check_rand64() >> 44); break; }
            if (r < 90) {
                top_digits(&s[i], r < 85 ? 9 : 17);
                s[i].l[0] |= 1; /* not 0, so r - s < r */
                fr_negate_raw(&s[i]);
                break;
            }
            rand_scalar(&s[i]);
            break;
        case S_SPARSE: /* PoRep-like: about 90% zero or one */
            if (r < 60) break;
            if (r < 90) { s[i].l[0] = 1; break; }
            rand_scalar(&s[i]);
            break;
        }
    }
}

/*
 * The generator code is the same for G1 and G2 up to names; a macro writes
 * it once for each group (G = g1 or g2).
 */
#define DEFINE_GROUP(G, AFF, JAC, NAME)                                                     \
    /* count bases R + k*S, k < count (distinct, cheap: one addition each) */              \
    static void G##_bases(AFF *out, size_t count)                                          \
    {                                                                                      \
        AFF gen;                                                                           \
        JAC g, r, s, *j = xmalloc(count * sizeof *j);                                      \
        zp_##G##_generator(&gen);                                                          \
        zp_##G##_jac_from_affine(&g, &gen);                                                \
        zp_fr k1, k2;                                                                      \
        rand_scalar(&k1);                                                                  \
        rand_scalar(&k2);                                                                  \
        zp_##G##_jac_mul_vartime(&r, &g, k1.l, 4);                                         \
        zp_##G##_jac_mul_vartime(&s, &g, k2.l, 4);                                         \
        for (size_t i = 0; i < count; i++) {                                               \
            j[i] = r;                                                                      \
            zp_##G##_jac_add(&r, &r, &s);                                                  \
        }                                                                                  \
        zp_##G##_batch_to_affine(out, j, count);                                           \
        free(j);                                                                           \
    }                                                                                      \
                                                                                           \
    /* n points on the device and on the host */                                          \
    static void G##_points(AFF *host, zp__gpu_buf *dev, size_t n, enum pts kind)           \
    {                                                                                      \
        size_t na = 16, nb = (n + na - 1) / na;                                            \
        AFF *b = xmalloc((na + nb) * sizeof *b);                                           \
        G##_bases(b, na);      /* two independent progressions: sums distinct */           \
        G##_bases(b + na, nb);                                                             \
        *dev = gpu_test_alloc(n * sizeof(AFF));                                            \
        zp__gpu_buf db = gpu_test_alloc((na + nb) * sizeof(AFF));                          \
        GPU_OK(zp__gpu_upload(T_s, db.ptr, b, (na + nb) * sizeof(AFF)));                   \
        GPU_OK(zp__gpu_gen_points_##G(T_s, dev->ptr, n, db.ptr, na, (AFF *)db.ptr + na, nb)); \
        GPU_OK(zp__gpu_download(T_s, host, dev->ptr, n * sizeof(AFF)));                    \
        GPU_OK(zp__gpu_stream_sync(T_s));                                                  \
        zp__gpu_free(T_gpu, &db);                                                          \
        free(b);                                                                           \
        for (size_t i = 0; i < n; i++) {                                                   \
            if (kind == P_SAME)                                                            \
                host[i] = host[0];                                                         \
            if (kind == P_WITH_INF && check_rand64() % 10 == 0)                            \
                memset(&host[i], 0, sizeof host[i]);                                       \
        }                                                                                  \
        if (kind != P_DISTINCT)                                                            \
            GPU_OK(zp__gpu_upload(T_s, dev->ptr, host, n * sizeof(AFF)));                  \
        /* spot-check the generator: on the curve */                                      \
        for (size_t i = 0; i < n; i += 1 + n / 8)                                          \
            CHECK(zp_##G##_affine_on_curve(&host[i]));                                     \
    }                                                                                      \
                                                                                           \
    static void G##_case_pass(size_t n, enum scal sk, enum pts pk, unsigned windows)       \
    {                                                                                      \
        AFF *p = xmalloc(n * sizeof *p);                                                   \
        zp_fr *s = xmalloc(n * sizeof *s);                                                 \
        zp__gpu_buf dp, ds;                                                                \
        G##_points(p, &dp, n, pk);                                                         \
        make_scalars(s, n, sk);                                                            \
        ds = gpu_test_alloc(n * sizeof *s);                                                \
        GPU_OK(zp__gpu_upload(T_s, ds.ptr, s, n * sizeof *s));                             \
        bool g2_ = NAME[1] == '2';                                                         \
        uint64_t sb_ = windows == BEST                                                      \
                           ? zp__gpu_msm_scratch_bytes_opts(&T_opts, n, g2_, 0, true)      \
                           : zp__gpu_msm_scratch_bytes_opts(&T_opts, n, g2_, windows, false); \
        zp__gpu_buf scratch = gpu_test_alloc(sb_);                                         \
        JAC got, want;                                                                     \
        GPU_OK(zp__gpu_msm_##G(T_s, &got, dp.ptr, ds.ptr, n, scratch));                    \
        if (n <= 300)                                                                      \
            zp__msm_##G##_ref(&want, p, s, n);                                             \
        else                                                                               \
            CHECK_EQ_INT(zp__cpu_msm_##G(&want, p, s, n, 0), ZP_OK);                       \
        bool ok = zp_##G##_jac_eq(&got, &want);                                            \
        CHECK(ok);                                                                         \
        uint64_t z, o, d;                                                                  \
        zp__gpu_msm_last_split(T_s, &z, &o, &d);                                           \
        CHECK_EQ_INT(z + o + d, n);                                                        \
        unsigned nw_, per_;                                                                \
        zp__gpu_msm_last_passes(T_s, &nw_, &per_);                                         \
        /* Every scalar dense: the scratch's worst case, so it must split the \
         * windows (sparser splits may fit more of them in one pass). */               \
        if (windows && windows != BEST && (sk == S_RANDOM || sk == S_SAME))                \
            CHECK(per_ < nw_);                                                             \
        /* The affine rounds forced: the scratch sized for them holds them (a \
         * smaller one, from a few hundred dense scalars up, may not: their key \
         * arrays can outgrow it). */                                                     \
        bool aff_ = zp__gpu_msm_last_affine(T_s);                                          \
        if (T_affine_forced && windows == BEST && d >= 512)                                \
            CHECK(aff_);                                                                   \
        T_affine += aff_;                                                                  \
        T_rounds2 += zp__gpu_msm_last_affine_rounds(T_s) == 2;                             \
        /* The ones go through the affine rounds after an affine dense part \
         * whose pass holds them, from the options' count of them; or first, \
         * in G1, beside a dense part without the rounds (where their layout \
         * fits); never otherwise. */                                                     \
        const uint64_t omin_ = sizeof(AFF) == sizeof(zp_g1_affine)                         \
                                   ? T_opts.g1_ones_affine_from                            \
                                   : T_opts.g2_ones_affine_from;                           \
        bool oaff_ = zp__gpu_msm_last_ones_affine(T_s);                                    \
        bool after_ = aff_ && o >= 2 && o <= (uint64_t)per_ * d && o >= omin_;             \
        if (after_)                                                                        \
            CHECK(oaff_);                                                                  \
        bool first_ = sizeof(AFF) == sizeof(zp_g1_affine) && !aff_ && o >= 2 && o >= omin_; \
        if (!after_ && !first_)                                                            \
            CHECK(!oaff_);                                                                 \
        T_first += first_ && oaff_;                                                        \
        T_ones_affine += after_ && oaff_;                                                  \
        /* The sort one bit short wherever that saves a radix pass. */                  \
        unsigned c_, kb_ = zp__gpu_msm_last_sort_bits(T_s, &c_);                           \
        if (d)                                                                             \
            CHECK_EQ_INT((int)kb_, (int)((c_ - 1) % 8 ? c_ : c_ - 1));                     \
        T_short += kb_ && kb_ < c_;                                                        \
        printf("  %s n=%zu scalars=%s points=%s split=%llu/%llu/%llu windows %u, %u a "    \
               "pass, c %u sorted by %u%s%s %s\n",                                         \
               NAME, n, scal_name[sk], pts_name[pk], (unsigned long long)z,                \
               (unsigned long long)o, (unsigned long long)d, nw_, per_, c_, kb_,           \
               aff_ ? ", affine" : "", oaff_ ? ", ones affine" : "", ok ? "ok" : "WRONG"); \
        zp__gpu_free(T_gpu, &scratch);                                                     \
        zp__gpu_free(T_gpu, &ds);                                                          \
        zp__gpu_free(T_gpu, &dp);                                                          \
        free(p);                                                                           \
        free(s);                                                                           \
    }                                                                                      \
    static void G##_case(size_t n, enum scal sk, enum pts pk) { G##_case_pass(n, sk, pk, 0); }

DEFINE_GROUP(g1, zp_g1_affine, zp_g1_jac, "G1")
DEFINE_GROUP(g2, zp_g2_affine, zp_g2_jac, "G2")

/* n G1 points and scalars of the given kinds, on the host and the device;
 * g1_in_free frees all four. */
typedef struct g1_in {
    zp_g1_affine *p;
    zp_fr *s;
    zp__gpu_buf dp, ds;
} g1_in;

static g1_in g1_inputs(size_t n, enum scal sk, enum pts pk)
{
    g1_in in;
    in.p = xmalloc(n * sizeof *in.p);
    in.s = xmalloc(n * sizeof *in.s);
    g1_points(in.p, &in.dp, n, pk);
    make_scalars(in.s, n, sk);
    in.ds = gpu_test_alloc(n * sizeof *in.s);
    GPU_OK(zp__gpu_upload(T_s, in.ds.ptr, in.s, n * sizeof *in.s));
    return in;
}

static void g1_in_free(g1_in in)
{
    zp__gpu_free(T_gpu, &in.ds);
    zp__gpu_free(T_gpu, &in.dp);
    free(in.p);
    free(in.s);
}

static void test_g1_sizes(void)
{
    static const size_t sizes[] = {1, 2, 3, 255, 256, 257, 1023, 1024, 1025};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        g1_case(sizes[i], S_RANDOM, P_DISTINCT);
        g1_case(sizes[i], S_MIXED, P_DISTINCT);
    }
}

static void test_g1_edges(void)
{
    g1_case(1, S_ZERO, P_DISTINCT);
    g1_case(1, S_ONE, P_DISTINCT);
    g1_case(1, S_MINUS1, P_DISTINCT);
    g1_case(1000, S_ZERO, P_DISTINCT);
    g1_case(1000, S_ONE, P_DISTINCT);
    g1_case(1000, S_MINUS1, P_DISTINCT);
    g1_case(5000, S_SAME, P_DISTINCT);
    g1_case(1000, S_RANDOM, P_SAME);
    g1_case(1000, S_MIXED, P_SAME);
    g1_case(1000, S_MIXED, P_WITH_INF);
    g1_case(4097, S_SPARSE, P_WITH_INF);
    /* enough dense scalars for the affine rounds (with --affine-from 0),
     * then the ones through them too: points at infinity, one point */
    g1_case(3000, S_MIXED, P_WITH_INF);
    g1_case(3000, S_MIXED, P_SAME);
    /* c = 9: the sort one bit short, many top and zero digits */
    g1_case(10000, S_DIGITS, P_DISTINCT);
    g1_case(10000, S_RANDOM, P_WITH_INF);
    g1_case(2000, S_DIGITS, P_SAME);
}

static void test_g1_large(void)
{
    if (T_small)
        return;
    g1_case((1u << 16) + 1, S_MIXED, P_DISTINCT);
    g1_case(1u << 18, S_SPARSE, P_DISTINCT);
    g1_case(1u << 20, S_RANDOM, P_DISTINCT);
    g1_case(200000, S_SAME, P_DISTINCT);
    g1_case_pass(1u << 22, S_RANDOM, P_DISTINCT, BEST);
    g2_case_pass(1u << 21, S_RANDOM, P_DISTINCT, BEST); /* affine by default from 2^21 */
    CHECK(zp__gpu_msm_last_affine(T_s));
}

static void test_g2(void)
{
    static const size_t sizes[] = {1, 2, 257, 1023, 1025};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        g2_case(sizes[i], S_RANDOM, P_DISTINCT);
    g2_case(1000, S_MIXED, P_DISTINCT);
    g2_case(1000, S_ZERO, P_DISTINCT);
    g2_case(1000, S_ONE, P_DISTINCT);
    g2_case(1000, S_MINUS1, P_DISTINCT);
    g2_case(3000, S_SAME, P_DISTINCT);
    g2_case(1000, S_RANDOM, P_SAME);
    g2_case(1000, S_MIXED, P_WITH_INF);
    g2_case(3000, S_MIXED, P_WITH_INF);
    g2_case(10000, S_DIGITS, P_DISTINCT);
    if (!T_small)
        g2_case((1u << 16) - 1, S_SPARSE, P_DISTINCT);
}

/* The CPU's sum: the reference MSM for small n, the CPU backend's above. */
static void g1_want(zp_g1_jac *want, const zp_g1_affine *p, const zp_fr *s, size_t n)
{
    if (n <= 300)
        zp__msm_g1_ref(want, p, s, n);
    else
        CHECK_EQ_INT(zp__cpu_msm_g1(want, p, s, n, 0), ZP_OK);
}

/* One zp__gpu_msm_g1_nosplit case against the CPU; the split it reports
 * is every scalar dense. */
static void g1_nosplit_case(size_t n, enum scal sk, enum pts pk)
{
    const g1_in in = g1_inputs(n, sk, pk);
    zp_g1_affine *p = in.p;
    zp_fr *s = in.s;
    zp__gpu_buf dp = in.dp, ds = in.ds;
    zp__gpu_buf scratch =
        gpu_test_alloc(zp__gpu_msm_scratch_bytes_opts(&T_opts, n, false, 0, false));
    zp_g1_jac got, want;
    GPU_OK(zp__gpu_msm_g1_nosplit(T_s, &got, dp.ptr, ds.ptr, n, scratch));
    g1_want(&want, p, s, n);
    bool ok = zp_g1_jac_eq(&got, &want);
    CHECK(ok);
    uint64_t z, o, d;
    zp__gpu_msm_last_split(T_s, &z, &o, &d);
    CHECK(z == 0 && o == 0 && d == n);
    printf("  nosplit n=%zu scalars=%s points=%s %s\n", n, scal_name[sk], pts_name[pk],
           ok ? "ok" : "WRONG");
    zp__gpu_free(T_gpu, &scratch);
    g1_in_free(in);
}

/* The MSM without the 0/1 split (the H MSM's by default):
 * zeros, ones and r - 1 as digits, points at infinity, one point repeated,
 * sizes from 1 up (through the affine rounds with --affine-from 0, which
 * forces them). */
static void test_g1_nosplit(void)
{
    static const size_t sizes[] = {1, 2, 257, 1025, 3000, 10000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        g1_nosplit_case(sizes[i], S_RANDOM, P_DISTINCT);
        g1_nosplit_case(sizes[i], S_MIXED, P_WITH_INF);
    }
    g1_nosplit_case(1000, S_ZERO, P_DISTINCT);
    g1_nosplit_case(1000, S_ONE, P_SAME);
    g1_nosplit_case(1000, S_MINUS1, P_DISTINCT);
    g1_nosplit_case(5000, S_SAME, P_DISTINCT);
    g1_nosplit_case(4097, S_SPARSE, P_WITH_INF);
    g1_nosplit_case(10000, S_DIGITS, P_DISTINCT);
    if (!T_small)
        g1_nosplit_case(1u << 20, S_RANDOM, P_DISTINCT);
}

/* One zp__gpu_msm_g1_pre case against the CPU; for small n also every
 * entry of the table against 2^(c j) P_i made on the host. */
static void g1_pre_case(size_t n, unsigned c, enum scal sk, enum pts pk)
{
    const unsigned copies = zp__gpu_msm_pre_copies(c);
    CHECK(copies >= 2 && copies * c >= 255);
    const g1_in in = g1_inputs(n, sk, pk);
    zp_g1_affine *p = in.p;
    zp_fr *s = in.s;
    zp__gpu_buf dp = in.dp, ds = in.ds;
    zp__gpu_buf table = gpu_test_alloc(n * copies * sizeof(zp_g1_affine));
    GPU_OK(zp__gpu_msm_g1_precompute(T_s, table.ptr, dp.ptr, n, c));
    bool table_ok = true;
    if (n <= 300) {
        zp_g1_affine *t = xmalloc(n * copies * sizeof *t), *want = xmalloc(copies * sizeof *want);
        zp_g1_jac *j = xmalloc(copies * sizeof *j);
        GPU_OK(zp__gpu_download(T_s, t, table.ptr, n * copies * sizeof *t));
        GPU_OK(zp__gpu_stream_sync(T_s));
        for (size_t i = 0; i < n; i++) {
            zp_g1_jac pi;
            zp_g1_jac_from_affine(&pi, &p[i]);
            for (unsigned k = 0; k < copies; k++) {
                uint64_t e[4] = {0, 0, 0, 0};
                e[(k * c) / 64] = (uint64_t)1 << ((k * c) % 64);
                zp_g1_jac_mul_vartime(&j[k], &pi, e, 4);
            }
            zp_g1_batch_to_affine(want, j, copies);
            for (unsigned k = 0; k < copies; k++)
                table_ok &= memcmp(&t[k * n + i], &want[k], sizeof *want) == 0;
        }
        free(t);
        free(want);
        free(j);
        CHECK(table_ok);
    }
    zp__gpu_buf scratch = gpu_test_alloc(zp__gpu_msm_scratch_bytes_pre_opts(&T_opts, n, c));
    zp_g1_jac got, want;
    GPU_OK(zp__gpu_msm_g1_pre(T_s, &got, table.ptr, c, ds.ptr, n, scratch));
    g1_want(&want, p, s, n);
    bool ok = zp_g1_jac_eq(&got, &want);
    CHECK(ok);
    printf("  pre c=%u n=%zu scalars=%s points=%s %s\n", c, n, scal_name[sk], pts_name[pk],
           ok && table_ok ? "ok" : "WRONG");
    zp__gpu_free(T_gpu, &scratch);
    zp__gpu_free(T_gpu, &table);
    g1_in_free(in);
}

/* Precomputed bases (zp__gpu_msm_g1_pre): windows of 9 and 17 bits (the
 * sorts one bit short), 13 and 22 (the most), sizes from 1, scalars with
 * zeros, ones, r - 1 and top digits, points at infinity; through the
 * affine rounds at 2^18 (12 copies: 3 M entries) and with --affine-from 0;
 * the sizes it refuses. */
static void test_g1_pre(void)
{
    /* 20 and 21: one window of 2^19 / 2^20 buckets, reduced in two levels
     * with segments shorter than SEG (msm_impl.cuh seg_for) */
    static const unsigned cs[] = {9, 13, 17, 20, 22};
    for (size_t k = 0; k < sizeof cs / sizeof *cs; k++) {
        g1_pre_case(1, cs[k], S_RANDOM, P_DISTINCT);
        g1_pre_case(2, cs[k], S_MINUS1, P_DISTINCT);
        g1_pre_case(257, cs[k], S_MIXED, P_WITH_INF);
        g1_pre_case(4097, cs[k], S_DIGITS, P_DISTINCT);
    }
    g1_pre_case(3000, 22, S_SAME, P_SAME);
    g1_pre_case(1000, 16, S_ZERO, P_DISTINCT);
    g1_pre_case(20000, 21, S_RANDOM, P_WITH_INF);
    if (!T_small)
        g1_pre_case(1u << 18, 22, S_RANDOM, P_DISTINCT);
    CHECK_EQ_INT(zp__gpu_msm_pre_copies(1), 0);
    CHECK_EQ_INT(zp__gpu_msm_pre_copies(23), 0);
    CHECK_EQ_INT(zp__gpu_msm_scratch_bytes_pre(1, 23), 0);
    CHECK_EQ_INT(zp__gpu_msm_scratch_bytes_pre((uint64_t)1 << 28, 22), 0); /* 12 x 2^28 */
    zp_g1_jac out;
    zp__gpu_buf none = {NULL, 0};
    CHECK_EQ_INT(zp__gpu_msm_g1_pre(T_s, &out, NULL, 23, NULL, 1, none), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g1_pre(T_s, &out, NULL, 22, NULL, (uint64_t)1 << 28, none),
                 ZP_E_TOO_LARGE);
}

/* n cut at the lengths `cut` (0-terminated, the last chunk takes the
 * rest) into len[0 .. returned); at most `max` chunks. */
static size_t cut_lengths(size_t n, const size_t *cut, size_t *len, size_t max)
{
    size_t k = 0;
    for (size_t at = 0; at < n && k < max; k++) {
        len[k] = cut[k] && cut[k] < n - at && k + 1 < max ? cut[k] : n - at;
        at += len[k];
        if (!cut[k])
            return k + 1;
    }
    return k;
}

/* One sum over chunks (zp__gpu_msm_acc) against the CPU's over all the
 * points: n points and scalars cut at the given lengths (0-terminated, the
 * last chunk takes the rest), at window c; then, with the same buckets,
 * a second sum over the first half alone (the first chunk clears what the
 * last sum left). */
static void g1_acc_case(size_t n, const size_t *cut, unsigned c, enum scal sk, enum pts pk)
{
    const g1_in in = g1_inputs(n, sk, pk);
    zp_g1_affine *p = in.p;
    zp_fr *s = in.s;
    zp__gpu_buf dp = in.dp, ds = in.ds;
    size_t len[16];
    const size_t chunks = cut_lengths(n, cut, len, sizeof len / sizeof *len);
    size_t most = (n + 1) / 2; /* the second sum's one chunk */
    for (size_t k = 0; k < chunks; k++)
        most = len[k] > most ? len[k] : most;
    zp__gpu_buf bk = gpu_test_alloc(zp__gpu_msm_acc_bytes(c));
    zp__gpu_buf scratch = gpu_test_alloc(zp__gpu_msm_acc_scratch_bytes_opts(&T_opts, most, c, 0));
    zp__gpu_msm_acc acc;
    GPU_OK(zp__gpu_msm_g1_acc_begin(&acc, bk, c));
    const zp_g1_affine *pts = dp.ptr;
    const zp_fr *sc = ds.ptr;
    for (size_t k = 0, at = 0; k < chunks; at += len[k++]) {
        GPU_OK(zp__gpu_msm_g1_acc_add(T_s, &acc, pts + at, sc + at, len[k], scratch));
        unsigned cc = 0;
        zp__gpu_msm_last_sort_bits(T_s, &cc);
        CHECK_EQ_INT(cc, c);
        if (zp__gpu_msm_last_affine(T_s))
            T_affine++;
    }
    zp_g1_jac got, want;
    GPU_OK(zp__gpu_msm_g1_acc_end(T_s, &acc, &got, scratch));
    g1_want(&want, p, s, n);
    bool ok = zp_g1_jac_eq(&got, &want);
    CHECK(ok);
    /* The same buckets again, for the first half alone, in one chunk. */
    const size_t half = (n + 1) / 2;
    zp_g1_jac got2, want2;
    GPU_OK(zp__gpu_msm_g1_acc_add(T_s, &acc, pts, sc, half, scratch));
    GPU_OK(zp__gpu_msm_g1_acc_end(T_s, &acc, &got2, scratch));
    g1_want(&want2, p, s, half);
    bool ok2 = zp_g1_jac_eq(&got2, &want2);
    CHECK(ok2);
    printf("  acc n=%zu in %zu chunks c=%u scalars=%s points=%s %s\n", n, chunks, c,
           scal_name[sk], pts_name[pk], ok && ok2 ? "ok" : "WRONG");
    zp__gpu_free(T_gpu, &scratch);
    zp__gpu_free(T_gpu, &bk);
    g1_in_free(in);
}

/* The same with the 0/1 split (zp__gpu_msm_g1_acc_add_split): the chunks'
 * dense scalars into the buckets, their ones summed apart and added to
 * _end's sum, against the CPU's over all the points; each chunk's ones
 * against the CPU's too. */
static void g1_acc_split_case(size_t n, const size_t *cut, unsigned c, enum scal sk,
                              enum pts pk)
{
    const g1_in in = g1_inputs(n, sk, pk);
    zp_g1_affine *p = in.p;
    zp_fr *s = in.s;
    zp__gpu_buf dp = in.dp, ds = in.ds;
    size_t len[16];
    const size_t chunks = cut_lengths(n, cut, len, sizeof len / sizeof *len);
    size_t most = 1;
    for (size_t k = 0; k < chunks; k++)
        most = len[k] > most ? len[k] : most;
    zp__gpu_buf bk = gpu_test_alloc(zp__gpu_msm_acc_bytes(c));
    zp__gpu_buf scratch =
        gpu_test_alloc(zp__gpu_msm_acc_split_scratch_bytes_opts(&T_opts, most, c, 0));
    zp__gpu_msm_acc acc;
    GPU_OK(zp__gpu_msm_g1_acc_begin(&acc, bk, c));
    const zp_g1_affine *pts = dp.ptr;
    const zp_fr *sc = ds.ptr;
    zp_g1_jac ones, part, got, want;
    zp_g1_jac_inf(&ones);
    bool ones_ok = true;
    for (size_t k = 0, at = 0; k < chunks; at += len[k++]) {
        GPU_OK(zp__gpu_msm_g1_acc_add_split(T_s, &acc, pts + at, sc + at, len[k], scratch,
                                            &part));
        /* The chunk's ones: the CPU's sum of its points whose scalar is 1
         * (standard form, as the scalars are). */
        zp_g1_jac w1;
        zp_g1_jac_inf(&w1);
        const zp_fr one = {{1, 0, 0, 0}};
        for (size_t i = at; i < at + len[k]; i++)
            if (!memcmp(&s[i], &one, sizeof one))
                zp_g1_jac_add_affine(&w1, &w1, &p[i]);
        ones_ok = ones_ok && zp_g1_jac_eq(&part, &w1);
        zp_g1_jac_add(&ones, &ones, &part);
    }
    GPU_OK(zp__gpu_msm_g1_acc_end(T_s, &acc, &got, scratch));
    zp_g1_jac_add(&got, &got, &ones);
    g1_want(&want, p, s, n);
    bool ok = zp_g1_jac_eq(&got, &want);
    CHECK(ok);
    CHECK(ones_ok);
    printf("  acc split n=%zu in %zu chunks c=%u scalars=%s points=%s %s\n", n, chunks, c,
           scal_name[sk], pts_name[pk], ok && ones_ok ? "ok" : "WRONG");
    zp__gpu_free(T_gpu, &scratch);
    zp__gpu_free(T_gpu, &bk);
    g1_in_free(in);
}

/* One sum over chunks (zp__gpu_msm_acc): chunks of one, two and uneven
 * lengths, windows of 9 and 17 bits (sorts one bit short), 13, 16, 20
 * (the reduction in two levels) and 22; equal scalars (one long bucket a
 * window: carries across the accumulation's chunks, a second affine round
 * with --affine-from 0), zeros, ones, r - 1, top digits, points at
 * infinity; the arguments it refuses. */
static void test_g1_acc(void)
{
    static const size_t one[] = {0}, halves[] = {500, 0}, ones[] = {1, 1, 1, 0},
                        uneven[] = {1000, 1, 2, 3000, 0}, tens[] = {10, 10, 10, 10, 10, 10, 0},
                        quarters[] = {1u << 18, 1u << 18, 1u << 18, 0};
    g1_acc_case(1, one, 9, S_RANDOM, P_DISTINCT);
    g1_acc_case(3, ones, 9, S_MINUS1, P_DISTINCT);
    g1_acc_case(60, tens, 13, S_MIXED, P_WITH_INF);
    g1_acc_case(1000, halves, 13, S_RANDOM, P_DISTINCT);
    g1_acc_case(1000, halves, 16, S_SAME, P_DISTINCT);
    g1_acc_case(5000, uneven, 17, S_DIGITS, P_DISTINCT);
    g1_acc_case(5000, uneven, 9, S_SAME, P_SAME);
    g1_acc_case(4097, uneven, 16, S_SPARSE, P_WITH_INF);
    g1_acc_case(2000, halves, 20, S_RANDOM, P_DISTINCT);
    g1_acc_case(1000, halves, 13, S_ZERO, P_DISTINCT);
    if (!T_small) {
        g1_acc_case(1u << 20, quarters, 20, S_RANDOM, P_DISTINCT);
        g1_acc_case((1u << 20) + 5, quarters, 16, S_SAME, P_DISTINCT);
        g1_acc_case(20000, uneven, 22, S_MIXED, P_WITH_INF);
        /* ~128 entries a bucket and chunk: 16 groups a run in the first
         * round, runs of 14 to 18 sums (two groups) in the second, each
         * filled round robin. */
        g1_acc_case(1u << 20, quarters, 12, S_RANDOM, P_DISTINCT);
    }
    /* With the split: sparse and mixed scalars, all zeros, all ones (no
     * dense part: the first chunk clears the buckets), a chunk of zeros
     * first; the rounds where --affine-from lets them run. */
    g1_acc_split_case(1, one, 9, S_ONE, P_DISTINCT);
    g1_acc_split_case(60, tens, 13, S_MIXED, P_WITH_INF);
    g1_acc_split_case(4097, uneven, 16, S_SPARSE, P_WITH_INF);
    g1_acc_split_case(5000, uneven, 17, S_SPARSE, P_DISTINCT);
    g1_acc_split_case(1000, halves, 13, S_ZERO, P_DISTINCT);
    g1_acc_split_case(1000, halves, 13, S_ONE, P_SAME);
    g1_acc_split_case(5000, uneven, 9, S_SAME, P_DISTINCT);
    if (!T_small) {
        g1_acc_split_case(1u << 20, quarters, 17, S_SPARSE, P_DISTINCT);
        g1_acc_split_case((1u << 20) + 5, quarters, 20, S_MIXED, P_WITH_INF);
    }
    /* The window of a total and the buckets' bytes. */
    unsigned last = 0;
    for (unsigned k = 0; k <= 31; k++) {
        unsigned c = zp__gpu_msm_acc_window((uint64_t)1 << k);
        CHECK(c >= 2 && c <= 22 && c >= last);
        last = c;
    }
    CHECK_EQ_INT(zp__gpu_msm_acc_bytes(1), 0);
    CHECK_EQ_INT(zp__gpu_msm_acc_bytes(23), 0);
    CHECK(zp__gpu_msm_acc_bytes(20) == 13ull * (1u << 19) * 4 * 48);
    CHECK_EQ_INT(zp__gpu_msm_acc_scratch_bytes(1000, 23), 0);
    /* Refusals: windows out of range, buckets too small, no begin, too
     * many points, too small a scratch; an empty sum is infinity. */
    zp__gpu_msm_acc acc;
    zp__gpu_buf bk = gpu_test_alloc(zp__gpu_msm_acc_bytes(13));
    zp__gpu_buf none = {NULL, 0};
    CHECK_EQ_INT(zp__gpu_msm_g1_acc_begin(&acc, bk, 1), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g1_acc_begin(&acc, bk, 23), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g1_acc_begin(&acc, bk, 14), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g1_acc_begin(&acc, none, 13), ZP_E_INVALID_ARG);
    zp_g1_jac r;
    CHECK_EQ_INT(zp__gpu_msm_g1_acc_add(T_s, &acc, NULL, NULL, 1, none), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_msm_g1_acc_end(T_s, &acc, &r, none), ZP_E_INVALID_ARG);
    GPU_OK(zp__gpu_msm_g1_acc_begin(&acc, bk, 13));
    CHECK_EQ_INT(zp__gpu_msm_g1_acc_add(T_s, &acc, NULL, NULL, (uint64_t)1 << 31, none),
                 ZP_E_TOO_LARGE);
    zp__gpu_buf d = gpu_test_alloc(4096);
    CHECK_EQ_INT(zp__gpu_msm_g1_acc_add(T_s, &acc, d.ptr, d.ptr, 1000, d), ZP_E_GPU_OOM);
    CHECK(!acc.started);
    GPU_OK(zp__gpu_msm_g1_acc_end(T_s, &acc, &r, none));
    CHECK(zp_g1_jac_is_inf(&r));
    zp__gpu_free(T_gpu, &d);
    zp__gpu_free(T_gpu, &bk);
}

/* A scratch for fewer windows per pass: sorted and accumulated a few
 * windows at a time, the same sums. */
static void test_passes(void)
{
    CHECK(zp__gpu_msm_scratch_bytes_pass(1u << 20, false, 1) <
          zp__gpu_msm_scratch_bytes(1u << 20, false));
    CHECK_EQ_INT(zp__gpu_msm_scratch_bytes_pass(1u << 20, false, 64),
                 zp__gpu_msm_scratch_bytes(1u << 20, false));
    g1_case_pass(1000, S_RANDOM, P_DISTINCT, 1);
    g1_case_pass(5000, S_SAME, P_DISTINCT, 1);
    g1_case_pass(4097, S_SPARSE, P_WITH_INF, 2);
    g1_case_pass(3000, S_MIXED, P_DISTINCT, 3);
    g2_case_pass(1025, S_RANDOM, P_DISTINCT, 1);
    g2_case_pass(3000, S_SAME, P_DISTINCT, 2);
    if (!T_small) {
        g1_case_pass((1u << 18) + 3, S_RANDOM, P_DISTINCT, 2);
        g1_case_pass(1u << 18, S_SPARSE, P_DISTINCT, 1);
    }
}

/* Each phase within the total, and none left out of it where it ran. */
static void check_phases(const zp__gpu_msm_phases *ph, bool sorts, bool reduce)
{
    const float parts = ph->split + ph->sort + ph->accumulate + ph->reduce + ph->ones;
    CHECK(ph->split >= 0 && ph->sort >= 0 && ph->accumulate >= 0 && ph->reduce >= 0 &&
          ph->ones >= 0);
    CHECK(parts <= ph->total * 1.001f + 0.01f);
    CHECK(sorts ? ph->sort > 0 && ph->accumulate > 0 : ph->sort == 0);
    CHECK(reduce ? ph->reduce > 0 : ph->reduce == 0);
    /* The accumulation's pieces: within it, and some where it ran. */
    const float pieces = ph->round1 + ph->round2 + ph->xyzz;
    CHECK(ph->round1 >= 0 && ph->round2 >= 0 && ph->xyzz >= 0);
    CHECK(pieces <= ph->accumulate * 1.001f + 0.01f);
    CHECK(sorts ? ph->round1 + ph->xyzz > 0 : pieces == 0);
}

/* Profiled MSMs (bench msm's phases): the same sums as unprofiled ones,
 * over several passes (one window each) and through kept buckets, whose
 * adds have no reduction and whose end has only that. */
static void test_profile(void)
{
    const size_t n = 20000;
    const g1_in in = g1_inputs(n, S_RANDOM, P_DISTINCT);
    zp_g1_affine *p = in.p;
    zp_fr *s = in.s;
    zp__gpu_buf dp = in.dp, ds = in.ds;
    zp__gpu_buf scratch =
        gpu_test_alloc(zp__gpu_msm_scratch_bytes_opts(&T_opts, n, false, 1, false));
    zp_g1_jac plain, got, want;
    zp__gpu_msm_phases ph;
    GPU_OK(zp__gpu_msm_g1(T_s, &plain, dp.ptr, ds.ptr, n, scratch));
    zp__gpu_stream_profile(T_s, true);
    GPU_OK(zp__gpu_msm_g1(T_s, &got, dp.ptr, ds.ptr, n, scratch));
    CHECK(zp_g1_jac_eq(&got, &plain));
    unsigned nw, per;
    zp__gpu_msm_last_passes(T_s, &nw, &per);
    CHECK(per < nw);
    zp__gpu_msm_last_phases(T_s, &ph);
    check_phases(&ph, true, true);
    printf("  profiled n=%zu, %u windows, %u a pass: split %.3f sort %.3f accumulate %.3f "
           "(round 1 %.3f, round 2 %.3f, xyzz %.3f) reduce %.3f ones %.3f total %.3f ms\n",
           n, nw, per, ph.split, ph.sort, ph.accumulate, ph.round1, ph.round2, ph.xyzz,
           ph.reduce, ph.ones, ph.total);

    const unsigned c = 13;
    zp__gpu_buf bk = gpu_test_alloc(zp__gpu_msm_acc_bytes(c));
    zp__gpu_buf as = gpu_test_alloc(zp__gpu_msm_acc_scratch_bytes_opts(&T_opts, n, c, 1));
    zp__gpu_msm_acc acc;
    const zp_g1_affine *pts = dp.ptr;
    const zp_fr *sc = ds.ptr;
    GPU_OK(zp__gpu_msm_g1_acc_begin(&acc, bk, c));
    GPU_OK(zp__gpu_msm_g1_acc_add(T_s, &acc, pts, sc, n / 2, as));
    zp__gpu_msm_last_phases(T_s, &ph);
    check_phases(&ph, true, false);
    GPU_OK(zp__gpu_msm_g1_acc_add(T_s, &acc, pts + n / 2, sc + n / 2, n - n / 2, as));
    GPU_OK(zp__gpu_msm_g1_acc_end(T_s, &acc, &got, as));
    zp__gpu_msm_last_phases(T_s, &ph);
    check_phases(&ph, false, true);
    zp__gpu_stream_profile(T_s, false);
    g1_want(&want, p, s, n);
    CHECK(zp_g1_jac_eq(&plain, &want));
    CHECK(zp_g1_jac_eq(&got, &want));
    zp__gpu_free(T_gpu, &as);
    zp__gpu_free(T_gpu, &bk);
    zp__gpu_free(T_gpu, &scratch);
    g1_in_free(in);
}

/* After the cases: some sorted one bit short (the c = 9 ones at least, or
 * every one at a window forced to 9 or 17). */
static void test_short_sorts(void)
{
    printf("  sorts one bit short: %u cases\n", T_short);
    if (!T_opts.window || (T_opts.window - 1) % 8 == 0)
        CHECK(T_short > 0);
}

/* After the cases: with G1's ones threshold lowered to the tests' sizes
 * (--ones-from 10), some ones went first beside an XYZZ dense part, and
 * every such sum was right (above). */
static void test_ones_first(void)
{
    printf("  ones summed first: %u cases\n", T_first);
    if (!T_affine_forced && T_opts.g1_ones_affine_from <= 1024)
        CHECK(T_first > 0);
}

/* After the cases: with the affine rounds forced, some dense parts took
 * them, some a second round (the equal scalars' one long bucket a window
 * at least), and some ones took them after (from 2 of them, --ones-from 1). */
static void test_affine_paths(void)
{
    printf("  affine: %u cases, %u with two rounds, %u with the ones after\n", T_affine,
           T_rounds2, T_ones_affine);
    if (T_affine_forced) {
        CHECK(T_affine > 0);
        CHECK(T_rounds2 > 0);
        if (T_opts.g1_ones_affine_from <= 2)
            CHECK(T_ones_affine > 0);
    }
}

int main(int argc, char **argv)
{
    zp__gpu_config cfg;
    zp__gpu_config_default(&cfg);
    gpu_test_msm_opts(argc, argv, &cfg.msm);
    T_opts = cfg.msm;
    T_affine_forced = gpu_test_msm_affine_forced(&T_opts);
    gpu_test_open_cfg(argc, argv, 12, &cfg); /* GiB: the 2^22 cases with the affine rounds */
    RUN(test_g1_sizes);
    RUN(test_g1_edges);
    RUN(test_g1_large);
    RUN(test_g2);
    RUN(test_g1_nosplit);
    RUN(test_g1_pre);
    RUN(test_g1_acc);
    RUN(test_passes);
    RUN(test_profile);
    RUN(test_short_sorts);
    RUN(test_ones_first);
    RUN(test_affine_paths);
    gpu_test_close();
    return FINISH();
}
