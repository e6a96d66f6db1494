/*
 * Bitmaps, CSR products, column densities and the satisfaction check,
 * against naive twins: a bool array for the bitmap, a dense matrix with a
 * Montgomery multiply for every entry (no shortcut for one), a scan of the
 * dense matrix for the densities.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "r1cs/r1cs.h"

static void rand_fr(zp_fr *out)
{
    /* Below 2^254 < r: a valid Montgomery representation. */
    for (int i = 0; i < 4; i++)
        out->l[i] = check_rand64();
    out->l[3] >>= 2;
}

/* A coefficient that is often one, sometimes zero or minus one. */
static void rand_coef(zp_fr *out)
{
    switch (check_rand64() % 5) {
    case 0:
        zp_fr_one(out);
        break;
    case 1:
        zp_fr_zero(out);
        break;
    case 2:
        zp_fr_one(out);
        zp_fr_neg(out, out);
        break;
    default:
        rand_fr(out);
    }
}

static void test_bitmap(void)
{
    static const uint64_t sizes[] = {0, 1, 63, 64, 65, 127, 128, 129, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint64_t n = sizes[s];
        zp__bitmap b;
        CHECK_EQ_INT(zp__bitmap_alloc(&b, n), ZP_OK);
        CHECK_EQ_INT(b.nbits, n);
        CHECK_EQ_INT(zp__bitmap_count(&b), 0);
        unsigned char *ref = calloc(n + 1, 1);
        for (uint64_t t = 0; t < n / 2 + 2 && n > 0; t++) {
            uint64_t i = check_rand64() % n;
            zp__bitmap_set(&b, i);
            ref[i] = 1;
        }
        if (n > 0) { /* both ends */
            zp__bitmap_set(&b, n - 1);
            ref[n - 1] = 1;
            zp__bitmap_set(&b, 0);
            ref[0] = 1;
        }
        uint64_t count = 0;
        int same = 1;
        for (uint64_t i = 0; i < n; i++) {
            count += ref[i];
            same &= zp__bitmap_get(&b, i) == ref[i];
        }
        CHECK(same);
        CHECK_EQ_INT(zp__bitmap_count(&b), count);
        free(ref);
        zp__bitmap_free(&b);
        CHECK(b.words == NULL && b.nbits == 0);
    }
}

/* A random sparse matrix with its dense twin (nrows x ncols, row major).
 * Columns within a row may repeat (the dense twin sums them). */
static void rand_csr(zp__csr *m, zp_fr *dense, uint64_t nrows, uint64_t ncols, uint64_t max_row)
{
    uint64_t nnz = 0;
    uint64_t *len = malloc(nrows * sizeof *len);
    for (uint64_t i = 0; i < nrows; i++) {
        len[i] = check_rand64() % (max_row + 1);
        nnz += len[i];
    }
    CHECK_EQ_INT(zp__csr_alloc(m, nrows, nnz), ZP_OK);
    memset(dense, 0, nrows * ncols * sizeof *dense);
    uint64_t k = 0;
    for (uint64_t i = 0; i < nrows; i++) {
        for (uint64_t t = 0; t < len[i]; t++, k++) {
            m->col[k] = (uint32_t)(check_rand64() % ncols);
            rand_coef(&m->val[k]);
            zp_fr *d = &dense[i * ncols + m->col[k]];
            zp_fr_add(d, d, &m->val[k]);
        }
        m->row_ptr[i + 1] = k;
    }
    free(len);
}

/* The index of set bit number p, bit by bit (zp__bitmap_seek's twin). */
static uint64_t seek_ref(const zp__bitmap *b, uint64_t p)
{
    uint64_t j = 0;
    for (uint64_t v = 0; v < b->nbits; v++)
        if (zp__bitmap_get(b, v) && j++ == p)
            return v;
    return b->nbits;
}

/* Walks over random maps (empty, sparse, half, dense, full; sizes about
 * word edges) in steps of random length, a step of 0 and steps past the
 * end included, against the bit-by-bit twin; bits set in the last word
 * past nbits are not counted. */
static void test_bitmap_seek(void)
{
    static const uint64_t sizes[] = {1, 2, 63, 64, 65, 127, 128, 129, 1000, 4097};
    static const unsigned pcts[] = {0, 3, 50, 97, 100};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t q = 0; q < sizeof pcts / sizeof pcts[0]; q++) {
            const uint64_t n = sizes[s];
            zp__bitmap b;
            CHECK_EQ_INT(zp__bitmap_alloc(&b, n), ZP_OK);
            for (uint64_t i = 0; i < n; i++)
                if (check_rand64() % 100 < pcts[q])
                    zp__bitmap_set(&b, i);
            const uint64_t total = zp__bitmap_count(&b);
            if (n % 64) /* a stray bit past the end */
                b.words[n / 64] |= (uint64_t)1 << 63;
            zp__bitmap_walk w = {&b, 0, 0};
            uint64_t p = 0;
            bool ok = true;
            while (ok) {
                const uint64_t got = zp__bitmap_seek(&w, p), want = seek_ref(&b, p);
                ok = got == want && (got == n ? p >= total : w.j == p);
                if (p > total)
                    break;
                p += check_rand64() % 4 == 0 ? 0 : 1 + check_rand64() % 70;
            }
            CHECK(ok);
            zp__bitmap_walk w2 = {&b, 0, 0}; /* past the last set bit at once */
            CHECK_EQ_INT(zp__bitmap_seek(&w2, total), n);
            zp__bitmap_free(&b);
        }
}

static void test_mul_vec(void)
{
    static const uint64_t shapes[][3] = {{1, 1, 1}, {1, 5, 0}, {7, 3, 4}, {40, 33, 9}, {65, 128, 3}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        uint64_t nr = shapes[s][0], nc = shapes[s][1];
        zp__csr m;
        zp_fr *dense = malloc(nr * nc * sizeof *dense);
        zp_fr *w = malloc(nc * sizeof *w), *out = malloc(nr * sizeof *out);
        rand_csr(&m, dense, nr, nc, shapes[s][2]);
        for (uint64_t j = 0; j < nc; j++)
            rand_fr(&w[j]);
        if (nc > 1) { /* edge values in w too */
            zp_fr_zero(&w[0]);
            zp_fr_one(&w[1]);
        }
        zp__csr_mul_vec(out, &m, w);
        int same = 1;
        for (uint64_t i = 0; i < nr; i++) {
            zp_fr acc, t;
            zp_fr_zero(&acc);
            for (uint64_t j = 0; j < nc; j++) {
                zp_fr_mul(&t, &dense[i * nc + j], &w[j]);
                zp_fr_add(&acc, &acc, &t);
            }
            same &= zp_fr_eq(&acc, &out[i]);
            zp_fr one_row;
            zp__csr_row_dot(&one_row, &m, i, w);
            same &= zp_fr_eq(&one_row, &out[i]);
        }
        CHECK(same);
        zp__csr_free(&m);
        CHECK(m.row_ptr == NULL && m.nnz == 0);
        free(dense);
        free(w);
        free(out);
    }
}

static void test_column_density(void)
{
    for (int rep = 0; rep < 5; rep++) {
        uint64_t nr = 1 + check_rand64() % 30, nc = 1 + check_rand64() % 200;
        zp__csr m;
        zp_fr *dense = malloc(nr * nc * sizeof *dense);
        rand_csr(&m, dense, nr, nc, 4);
        zp__bitmap d;
        CHECK_EQ_INT(zp__csr_column_density(&d, &m, nc, 1 + rep % 3), ZP_OK);
        /* The direct scan works on entries, not on the dense sums: two
         * entries that cancel still make the column dense. */
        int same = 1;
        for (uint64_t j = 0; j < nc; j++) {
            int dense_col = 0;
            for (uint64_t k = 0; k < m.nnz; k++)
                dense_col |= m.col[k] == j && !zp_fr_is_zero(&m.val[k]);
            same &= zp__bitmap_get(&d, j) == dense_col;
        }
        CHECK(same);
        zp__bitmap_free(&d);
        /* A column index beyond ncols is refused (when there is one). */
        if (m.nnz > 0) {
            uint32_t maxc = 0;
            for (uint64_t k = 0; k < m.nnz; k++)
                maxc = m.col[k] > maxc ? m.col[k] : maxc;
            CHECK_EQ_INT(zp__csr_column_density(&d, &m, maxc, 2), ZP_E_INVALID_ARG);
            CHECK(d.words == NULL);
        }
        zp__csr_free(&m);
        free(dense);
    }
}

/* One row per list: {col, small value} pairs ending at col -1. */
static void small_csr(zp__csr *m, uint64_t nrows, const int (*rows)[8])
{
    uint64_t nnz = 0;
    for (uint64_t i = 0; i < nrows; i++)
        for (int t = 0; rows[i][t] >= 0; t += 2)
            nnz++;
    CHECK_EQ_INT(zp__csr_alloc(m, nrows, nnz), ZP_OK);
    uint64_t k = 0;
    for (uint64_t i = 0; i < nrows; i++) {
        for (int t = 0; rows[i][t] >= 0; t += 2, k++) {
            m->col[k] = (uint32_t)rows[i][t];
            zp_fr_from_u64(&m->val[k], (uint64_t)rows[i][t + 1]);
        }
        m->row_ptr[i + 1] = k;
    }
}

/* x * y = z and (x + y) * 1 = s, variables ONE, x, y, z, s. */
static void test_is_satisfied(void)
{
    static const int ra[2][8] = {{1, 1, -1}, {1, 1, 2, 1, -1}};
    static const int rb[2][8] = {{2, 1, -1}, {0, 1, -1}};
    static const int rc[2][8] = {{3, 1, -1}, {4, 1, -1}};
    zp__r1cs cs = {.n_vars = 5, .n_public = 1, .n_constraints = 2};
    small_csr(&cs.a, 2, ra);
    small_csr(&cs.b, 2, rb);
    small_csr(&cs.c, 2, rc);
    zp_fr w[5];
    zp_fr_one(&w[0]);
    zp_fr_from_u64(&w[1], 6);
    zp_fr_from_u64(&w[2], 7);
    zp_fr_from_u64(&w[3], 42);
    zp_fr_from_u64(&w[4], 13);
    uint64_t bad = 0;
    CHECK(zp__r1cs_is_satisfied(&cs, w, &bad));
    CHECK(zp__r1cs_is_satisfied(&cs, w, NULL));
    zp_fr_from_u64(&w[4], 14);
    CHECK(!zp__r1cs_is_satisfied(&cs, w, &bad));
    CHECK_EQ_INT(bad, 1);
    zp_fr_from_u64(&w[3], 41);
    CHECK(!zp__r1cs_is_satisfied(&cs, w, &bad));
    CHECK_EQ_INT(bad, 0);
    zp_fr_from_u64(&w[3], 42);
    zp_fr_from_u64(&w[4], 13);
    CHECK(zp__r1cs_is_satisfied(&cs, w, &bad));
    /* A column past n_vars is refused rather than read. */
    cs.n_vars = 4;
    CHECK(!zp__r1cs_is_satisfied(&cs, w, &bad));
    CHECK(bad == UINT64_MAX);
    cs.n_vars = 5;
    /* Without C the check cannot be made. */
    zp__csr_free(&cs.c);
    CHECK(!zp__r1cs_is_satisfied(&cs, w, &bad));
    CHECK(bad == UINT64_MAX);
    zp__r1cs_free(&cs);
    CHECK(cs.a.row_ptr == NULL && cs.n_vars == 0);
}

/* A matrix long enough that the parallel density and copy split it (more
 * than one 2^20-entry task, more than one 2 MiB piece): entries with zero
 * coefficients, columns < nc. */
static void long_csr(zp__csr *m, uint64_t nrows, uint64_t nc)
{
    CHECK_EQ_INT(zp__csr_alloc(m, nrows, 3 * nrows), ZP_OK);
    for (uint64_t k = 0; k < m->nnz; k++) {
        /* Columns above nc / 2 only in the last 2^19 entries (the last
         * tasks'), so that a bit set by the wrong task or lost shows. */
        const uint64_t span = k >= m->nnz - (1u << 19) ? nc : nc / 2;
        m->col[k] = (uint32_t)(check_rand64() % span);
        if (check_rand64() % 5 == 0)
            zp_fr_zero(&m->val[k]);
        else
            rand_coef(&m->val[k]);
    }
    for (uint64_t i = 0; i <= nrows; i++)
        m->row_ptr[i] = 3 * i;
}

/* zp__csr_column_density from several threads against a serial scan. */
static void test_column_density_par(void)
{
    const uint64_t nc = 1u << 18;
    zp__csr m;
    long_csr(&m, (3u << 20) / 3 + 12345, nc);
    zp__bitmap ref;
    CHECK_EQ_INT(zp__bitmap_alloc(&ref, nc), ZP_OK);
    for (uint64_t k = 0; k < m.nnz; k++)
        if (!zp_fr_is_zero(&m.val[k]))
            zp__bitmap_set(&ref, m.col[k]);
    const int threads[] = {1, 3, 0};
    for (int t = 0; t < 3; t++) {
        zp__bitmap d;
        CHECK_EQ_INT(zp__csr_column_density(&d, &m, nc, threads[t]), ZP_OK);
        CHECK(d.nbits == nc && !memcmp(d.words, ref.words, (nc / 64 + 1) * sizeof *d.words));
        zp__bitmap_free(&d);
    }
    /* One column out of range, far into the entries: refused from any task. */
    m.col[m.nnz - 7] = (uint32_t)nc;
    for (int t = 0; t < 3; t++) {
        zp__bitmap d;
        CHECK_EQ_INT(zp__csr_column_density(&d, &m, nc, threads[t]), ZP_E_INVALID_ARG);
        CHECK(d.words == NULL);
    }
    zp__bitmap_free(&ref);
    zp__csr_free(&m);
}

/* zp__csr_extend against the rows built one by one: the same entries, then
 * the extra rows (variable i with coefficient one, or empty). */
static void check_extended(const zp__csr *out, const zp__csr *m, uint64_t extra, bool inputs)
{
    CHECK(out->nrows == m->nrows + extra && out->nnz == m->nnz + (inputs ? extra : 0));
    CHECK(!memcmp(out->row_ptr, m->row_ptr, (m->nrows + 1) * sizeof *m->row_ptr));
    CHECK(!memcmp(out->col, m->col, m->nnz * sizeof *m->col));
    CHECK(!memcmp(out->val, m->val, m->nnz * sizeof *m->val));
    int ok = 1;
    for (uint64_t i = 0; i < extra; i++) {
        const uint64_t r = m->nrows + i, at = out->row_ptr[r];
        ok &= out->row_ptr[r + 1] == at + (inputs ? 1 : 0);
        if (inputs)
            ok &= out->col[at] == i && zp_fr_is_one(&out->val[at]);
    }
    CHECK(ok);
}

static void test_extend(void)
{
    for (int rep = 0; rep < 6; rep++) {
        uint64_t nr = check_rand64() % 20, nc = 1 + check_rand64() % 30;
        zp__csr m, out;
        zp_fr *dense = malloc((nr ? nr : 1) * nc * sizeof *dense);
        rand_csr(&m, dense, nr, nc, 4);
        const uint64_t extra = check_rand64() % 5;
        const bool inputs = rep & 1;
        CHECK_EQ_INT(zp__csr_extend(&out, &m, extra, inputs, 1 + rep % 3), ZP_OK);
        check_extended(&out, &m, extra, inputs);
        zp__csr_free(&out);
        zp__csr_free(&m);
        free(dense);
    }
    zp__csr m, out;
    long_csr(&m, 1u << 17, 1u << 10); /* 12 MiB of values: 6 pieces */
    const int threads[] = {1, 3, 0};
    for (int t = 0; t < 3; t++) {
        CHECK_EQ_INT(zp__csr_extend(&out, &m, 9, t != 1, threads[t]), ZP_OK);
        check_extended(&out, &m, 9, t != 1);
        zp__csr_free(&out);
    }
    zp__csr_free(&m);
}

int main(void)
{
    RUN(test_bitmap);
    RUN(test_bitmap_seek);
    RUN(test_mul_vec);
    RUN(test_column_density);
    RUN(test_column_density_par);
    RUN(test_extend);
    RUN(test_is_satisfied);
    return FINISH();
}
