/*
 * GPU R1CS evaluation (a = A w, b = B w, c = a∘b) against the host's
 * zp__csr_mul_vec, on random CSR matrices (empty rows, rows at the
 * thread/warp boundary, one huge row, rows of only "other" coefficients,
 * coefficients 1, -1, 0, small, repeated beyond the table, fresh random,
 * the limbs p - 1; columns up to ncols - 1; nrows = 0, nnz = 0, n_out above
 * and below nrows) and on synth porep / dense / chain circuits. Checks that
 * zp__gpu_csr_bytes is the arena bytes an upload takes, and the upload's
 * validation.
 *
 * Before the GPU part (so also in the CPU-only build), a host twin of the
 * compact encoding (eval_plan.h) and of both kernels' index arithmetic
 * (escape rank of a thread's row, ballot prefix of a warp's) decodes every
 * matrix and must give the same sums.
 *
 * Streamed matrices (zp__gpu_eval_ab_ring, pinned host images through two
 * small buffers) against the resident eval: with the first block sent
 * ahead or not, and the last rows sent into the bottom of a first
 * (zp__gpu_eval_low) or not; a and b poisoned first, the same bytes.
 *
 * `--porep N` runs only synth:porep:N on the whole device: checked against
 * the host, then its matrices' device bytes and the eval time printed.
 *
 * The packed witness's rebuild (zp__gpu_wunpack) against the original
 * values: chunks packed on the host (groth16/witness_pack.h) with zeros,
 * ones and other values mixed, raw chunks (too dense, or past a staging
 * cap that holds only some), a last chunk that ends inside a word; the
 * device output poisoned first.
 */
#include "gpu_test.h"
#include "gpu/eval_plan.h"
#include "groth16/witness_pack.h"
#include "r1cs/synth.h"

#define POOL 600 /* repeated values: more than the table holds */
static zp_fr pool[POOL];

enum { MIX, OTHERS };

static void pick(zp_fr *v, int kind)
{
    unsigned r = (unsigned)(check_rand64() % 100);
    if (kind == OTHERS || r >= 98)
        rand_fr_mont(v);
    else if (r < 40)
        zp_fr_one(v);
    else if (r < 60) {
        zp_fr one;
        zp_fr_one(&one);
        zp_fr_neg(v, &one);
    } else if (r < 65)
        zp_fr_zero(v);
    else if (r < 75)
        zp_fr_from_u64(v, 2 + r % 8);
    else if (r < 93)
        *v = pool[check_rand64() % POOL];
    else { /* the limbs p - 1 (not -1 in Montgomery form: an ordinary value) */
        *v = ZP_FR_MODULUS;
        v->l[0] -= 1;
    }
}

static unsigned row_len(uint64_t i, uint64_t huge_at, unsigned huge)
{
    if (i == huge_at)
        return huge;
    unsigned r = (unsigned)(check_rand64() % 100);
    if (r < 10)
        return 0;
    if (r < 80)
        return 1 + (unsigned)(check_rand64() % 5);
    if (r < 90)
        return ZP__GPU_EVAL_SHORT + (unsigned)(check_rand64() % 2); /* the boundary */
    return 17 + (unsigned)(check_rand64() % 44);
}

/* nrows rows (row_ptr NULL when 0); empty: no entries at all. */
static void make_csr(zp__csr *m, uint64_t nrows, uint64_t ncols, uint64_t huge_at, unsigned huge,
                     int empty)
{
    uint64_t cap = 64, nnz = 0;
    m->nrows = nrows;
    m->row_ptr = nrows ? xmalloc((nrows + 1) * sizeof *m->row_ptr) : NULL;
    m->col = xmalloc(cap * sizeof *m->col);
    m->val = xmalloc(cap * sizeof *m->val);
    for (uint64_t i = 0; i < nrows; i++) {
        m->row_ptr[i] = nnz;
        int kind = i % 53 == 7 ? OTHERS : MIX;
        unsigned len = empty ? 0 : row_len(i, huge_at, huge);
        for (unsigned k = 0; k < len; k++, nnz++) {
            if (nnz == cap) {
                cap *= 2;
                m->col = realloc(m->col, cap * sizeof *m->col);
                m->val = realloc(m->val, cap * sizeof *m->val);
                if (!m->col || !m->val)
                    exit(1);
            }
            m->col[nnz] = (uint32_t)(check_rand64() % ncols);
            if (k == 0 && i % 11 == 1)
                m->col[nnz] = (uint32_t)(ncols - 1);
            pick(&m->val[nnz], kind);
        }
    }
    if (nrows)
        m->row_ptr[nrows] = nnz;
    m->nnz = nnz;
}

static void free_csr(zp__csr *m)
{
    free(m->row_ptr);
    free(m->col);
    free(m->val);
}

/* ---------------------------------------------------------- host twin */

typedef struct twin {
    zp__ev_plan p;
    uint8_t *code;
    uint64_t *bits, *rank;
    zp_fr *esc;
} twin;

/* Encodes m as zp__gpu_csr_upload does; the parallel encoding must match
 * the codes one by one, and the totals the encoding. */
static void twin_encode(twin *t, const zp__csr *m)
{
    CHECK_EQ_INT(zp__ev_plan_make(&t->p, m, 3), ZP_OK);
    uint64_t nw = (m->nnz + 63) / 64, ne = 0;
    t->code = xmalloc(m->nnz);
    t->bits = xmalloc(8 * nw + 8);
    t->rank = xmalloc(8 * nw + 8);
    t->esc = xmalloc(sizeof(zp_fr) * (t->p.n_esc + 1));
    zp__ev_encode(&t->p, t->code, t->bits, m->val, m->nnz, 3);
    int bad = 0;
    for (uint64_t k = 0; k < m->nnz; k++) {
        uint8_t c = zp__ev_code(&t->p, &m->val[k]);
        bad += c != t->code[k] || (c == ZP__EV_ESC) != (t->bits[k / 64] >> (k % 64) & 1);
        bad += c != ZP__EV_ESC && c >= 2 + t->p.n_tab;
        if (c == ZP__EV_ESC) {
            if (ne < t->p.n_esc)
                t->esc[ne] = m->val[k];
            ne++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(ne == t->p.n_esc);
    for (uint64_t i = 0, r = 0; i < nw; i++) {
        t->rank[i] = r;
        r += (uint64_t)__builtin_popcountll(t->bits[i]);
    }
    uint64_t n_long = 0;
    for (uint64_t i = 0; i < m->nrows; i++)
        n_long += m->row_ptr[i + 1] - m->row_ptr[i] > ZP__GPU_EVAL_SHORT;
    CHECK(n_long == t->p.n_long);
    CHECK(t->p.bytes == zp__gpu_csr_bytes(m));
    CHECK(t->p.bytes % 256 == 0 && t->p.end <= t->p.bytes && t->p.o_col >= 4 * (m->nrows + 1));
}

static void twin_free(twin *t)
{
    free(t->code);
    free(t->bits);
    free(t->rank);
    free(t->esc);
}

static uint64_t twin_esc_before(const twin *t, uint64_t k)
{
    uint64_t low = t->bits[k / 64] & ((1ull << (k % 64)) - 1);
    return t->rank[k / 64] + (uint64_t)__builtin_popcountll(low);
}

static void twin_term(zp_fr *acc, const twin *t, unsigned c, const zp_fr *x, uint64_t ei)
{
    zp_fr pr;
    if (c == ZP__EV_PLUS)
        zp_fr_add(acc, acc, x);
    else if (c == ZP__EV_MINUS)
        zp_fr_sub(acc, acc, x);
    else {
        CHECK(c == ZP__EV_ESC ? ei < t->p.n_esc : c - 2 < t->p.n_tab);
        zp_fr_mul(&pr, c == ZP__EV_ESC ? &t->esc[ei] : &t->p.tab[c - 2], x);
        zp_fr_add(acc, acc, &pr);
    }
}

/* Row i as the thread kernel (warp = 0) or the warp kernel (1) reads it. */
static void twin_row(zp_fr *acc, const twin *t, const zp__csr *m, uint64_t i, const zp_fr *w,
                     int warp)
{
    uint64_t s = m->row_ptr[i], e = m->row_ptr[i + 1], ei = 0;
    zp_fr_zero(acc);
    if (!warp) {
        int have = 0;
        for (uint64_t k = s; k < e; k++) {
            if (t->code[k] == ZP__EV_ESC && !have) {
                ei = twin_esc_before(t, k);
                have = 1;
            }
            twin_term(acc, t, t->code[k], &w[m->col[k]], ei);
            ei += t->code[k] == ZP__EV_ESC;
        }
        return;
    }
    uint64_t base = s < e && t->p.n_esc ? twin_esc_before(t, s) : 0;
    for (uint64_t k0 = s; k0 < e; k0 += 32) {
        uint32_t ball = 0;
        for (unsigned l = 0; l < 32; l++)
            ball |= (uint32_t)(k0 + l < e && t->code[k0 + l] == ZP__EV_ESC) << l;
        for (unsigned l = 0; l < 32 && k0 + l < e; l++)
            twin_term(acc, t, t->code[k0 + l], &w[m->col[k0 + l]],
                      base + (uint64_t)__builtin_popcount(ball & ((1u << l) - 1)));
        base += (uint64_t)__builtin_popcount(ball);
    }
}

/* The twin's rows (both readings) against zp__csr_mul_vec. */
static void twin_check(const zp__csr *m, const zp_fr *w)
{
    twin t;
    twin_encode(&t, m);
    zp_fr *ref = xmalloc((m->nrows + 1) * sizeof *ref);
    zp__csr_mul_vec(ref, m, w);
    int bad = 0;
    for (uint64_t i = 0; i < m->nrows; i++) {
        zp_fr x, y;
        twin_row(&x, &t, m, i, w, 0);
        twin_row(&y, &t, m, i, w, 1);
        bad += !zp_fr_eq(&x, &ref[i]) + !zp_fr_eq(&y, &ref[i]);
    }
    CHECK_EQ_INT(bad, 0);
    free(ref);
    twin_free(&t);
}

static zp_fr *rand_w(uint64_t ncols)
{
    zp_fr *w = xmalloc(ncols * sizeof *w);
    for (uint64_t j = 0; j < ncols; j++)
        rand_fr_mont(&w[j]);
    zp_fr_one(&w[0]);
    return w;
}

/* ------------------------------------------------------ matrix shapes */

typedef struct shape {
    uint64_t rows_a, rows_b, n_out, ncols, huge_at;
    unsigned huge;
    int empty;
} shape;

static const shape shapes[] = {
    {0, 0, 64, 5, 0, 0, 0},              /* nrows = 0 (no row pointers): all zero */
    {40, 30, 64, 7, 0, 0, 1},            /* rows but nnz = 0 */
    {1, 1, 1, 2, 9, 0, 0},
    {100, 37, 128, 50, 50, 150, 0},      /* n_out > nrows */
    {1000, 1000, 512, 3000, 700, 900, 0}, /* n_out < nrows, a long row past it */
    {3000, 2500, 4096, 5000, 100, 4000, 0},
};
static const shape big = {300000, 250000, 1u << 19, 200000, 150000, 100000, 0};

static void make_pair(zp__csr *A, zp__csr *B, const shape *sh)
{
    make_csr(A, sh->rows_a, sh->ncols, sh->huge_at, sh->huge, sh->empty);
    make_csr(B, sh->rows_b, sh->ncols, sh->rows_b / 3, sh->huge / 2 + 1, sh->empty);
}

static void test_twin_random(void)
{
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        zp__csr A, B;
        make_pair(&A, &B, &shapes[i]);
        zp_fr *w = rand_w(shapes[i].ncols);
        twin_check(&A, w);
        twin_check(&B, w);
        free(w);
        free_csr(&A);
        free_csr(&B);
    }
}

/* A matrix of one row per value of vals (n entries each, column 0). */
static void rows_of(zp__csr *m, const zp_fr *vals, unsigned nv, unsigned n)
{
    m->nrows = nv;
    m->nnz = (uint64_t)nv * n;
    m->row_ptr = xmalloc((nv + 1) * sizeof *m->row_ptr);
    m->col = xmalloc(m->nnz * sizeof *m->col + 1);
    m->val = xmalloc(m->nnz * sizeof *m->val + 1);
    for (uint64_t i = 0; i <= nv; i++)
        m->row_ptr[i] = i * n;
    for (uint64_t k = 0; k < m->nnz; k++) {
        m->col[k] = 0;
        m->val[k] = vals[k / n];
    }
}

static void plan_of(zp__ev_plan *p, const zp__csr *m)
{
    CHECK_EQ_INT(zp__ev_plan_make(p, m, 2), ZP_OK);
}

/* The table's rules and the exact layout of a small case. */
static void test_twin_table(void)
{
    static zp_fr vals[6000];
    static zp__ev_plan p;
    zp__csr m;
    for (unsigned i = 0; i < 6000; i++)
        rand_fr_mont(&vals[i]);
    /* 300 values 5 times each: the first 253 in the table, the rest escaped */
    rows_of(&m, vals, 300, 5);
    plan_of(&p, &m);
    CHECK_EQ_INT(p.n_tab, 253);
    CHECK_EQ_INT(p.n_esc, 47 * 5);
    CHECK_EQ_INT(p.n_long, 0);
    CHECK(zp__ev_code(&p, &vals[252]) == 254 && zp__ev_code(&p, &vals[253]) == ZP__EV_ESC);
    free_csr(&m);
    /* 6000 values once each: none repeats, all escaped */
    rows_of(&m, vals, 6000, 1);
    plan_of(&p, &m);
    CHECK_EQ_INT(p.n_tab, 0);
    CHECK_EQ_INT(p.n_esc, 6000);
    zp_fr *w = rand_w(1);
    twin_check(&m, w);
    free_csr(&m);
    /* counts 2, 7, 3: the most frequent first */
    zp_fr v3[3] = {vals[0], vals[1], vals[2]};
    rows_of(&m, v3, 3, 7);
    m.row_ptr[1] = 2;
    m.row_ptr[2] = 9;
    m.row_ptr[3] = m.nnz = 12;
    for (uint64_t k = 0; k < 12; k++)
        m.val[k] = v3[k < 2 ? 0 : k < 9 ? 1 : 2];
    plan_of(&p, &m);
    CHECK_EQ_INT(p.n_tab, 3);
    CHECK(zp_fr_eq(&p.tab[0], &vals[1]) && zp_fr_eq(&p.tab[1], &vals[2]) &&
          zp_fr_eq(&p.tab[2], &vals[0]));
    CHECK_EQ_INT(p.n_esc, 0);
    free_csr(&m);
    /* 10 rows of one +1 and one row of 17 -1: 4*12 -> 256 row pointers,
     * 4*27 -> 256 columns, 27 codes -> 256, no escapes or table, one long
     * row (8) */
    zp_fr one, m1;
    zp_fr_one(&one);
    zp_fr_neg(&m1, &one);
    zp_fr v11[11];
    for (int i = 0; i < 10; i++)
        v11[i] = one;
    v11[10] = m1;
    rows_of(&m, v11, 11, 17);
    for (uint64_t i = 0; i <= 10; i++)
        m.row_ptr[i] = i;
    m.row_ptr[11] = 27;
    m.nnz = 27;
    for (uint64_t k = 10; k < 27; k++)
        m.val[k] = m1;
    plan_of(&p, &m);
    CHECK_EQ_INT(p.n_esc + p.n_tab, 0);
    CHECK_EQ_INT(p.n_long, 1);
    CHECK(!p.rp64);
    CHECK_EQ_INT(p.o_col, 256);
    CHECK_EQ_INT(p.o_code, 512);
    CHECK_EQ_INT(p.o_long, 768);
    CHECK_EQ_INT(p.bytes, 1024);
    CHECK_EQ_INT(zp__gpu_csr_bytes(&m), 1024);
    twin_check(&m, w);
    free_csr(&m);
    free(w);
    if (T_small)
        return;
    /* beyond the sample's span: windows; pool values repeat in them */
    make_csr(&m, 400000, 1000, 5, 3000, 0);
    CHECK(m.nnz > (uint64_t)ZP__EV_WINDOWS * ZP__EV_WIN);
    plan_of(&p, &m);
    CHECK_EQ_INT(p.n_tab, 253);
    w = rand_w(1000);
    twin_check(&m, w);
    free(w);
    free_csr(&m);
}

static const char *const synths[] = {"synth:porep:10", "synth:dense:9", "synth:chain:9"};
static const char *const synths_big[] = {"synth:porep:16", "synth:dense:15", "synth:chain:15"};

static zp_err synth_make(zp__r1cs *cs, zp_fr **w, const char *spec)
{
    zp__synth_spec s;
    zp_err e = zp__synth_parse(&s, spec);
    if (e)
        return e;
    s.keep_c = false;
    if ((e = zp__synth_circuit(cs, &s)))
        return e;
    *w = xmalloc((uint64_t)cs->n_vars * sizeof **w);
    return zp__synth_witness(*w, cs, &s, 7);
}

static void test_twin_synth(void)
{
    for (size_t i = 0; i < 3; i++) {
        zp__r1cs cs;
        zp_fr *w = NULL;
        CHECK_EQ_INT(synth_make(&cs, &w, synths[i]), ZP_OK);
        twin_check(&cs.a, w);
        twin_check(&cs.b, w);
        free(w);
        zp__r1cs_free(&cs);
    }
}

/* ---------------------------------------------------------- GPU part */

static uint64_t arena_used(void)
{
    zp__gpu_info info;
    zp__gpu_get_info(T_gpu, &info);
    return info.arena_used;
}

static void upload_counted(zp__gpu_csr *d, const zp__csr *m, uint64_t ncols)
{
    uint64_t used0 = arena_used();
    GPU_OK(zp__gpu_csr_upload(T_s, d, m, ncols));
    CHECK(arena_used() - used0 == zp__gpu_csr_bytes(m));
}

/* GPU a, b, c of rows 0 .. n_out against the host's. */
static void gpu_check(const zp__csr *A, const zp__csr *B, uint64_t n_out, uint64_t ncols,
                      const zp_fr *w, const char *what)
{
    zp__gpu_csr dA, dB;
    upload_counted(&dA, A, ncols);
    upload_counted(&dB, B, ncols);
    zp__gpu_buf dw = gpu_test_alloc(ncols * sizeof *w);
    zp__gpu_buf dabc = gpu_test_alloc(3 * n_out * sizeof *w);
    zp_fr *da = dabc.ptr;
    GPU_OK(zp__gpu_upload(T_s, dw.ptr, w, ncols * sizeof *w));
    /* poison the outputs: every element must be written */
    zp_fr *h = xmalloc(3 * n_out * sizeof *h);
    memset(h, 0xa5, 3 * n_out * sizeof *h);
    GPU_OK(zp__gpu_upload(T_s, da, h, 3 * n_out * sizeof *h));
    GPU_OK(zp__gpu_eval_abc(T_s, da, da + n_out, da + 2 * n_out, n_out, &dA, &dB, dw.ptr));
    GPU_OK(zp__gpu_download(T_s, h, da, 3 * n_out * sizeof *h));
    GPU_OK(zp__gpu_stream_sync(T_s));

    uint64_t ra_n = A->nrows > n_out ? A->nrows : n_out, rb_n = B->nrows > n_out ? B->nrows : n_out;
    zp_fr *ra = xmalloc(ra_n * sizeof *ra), *rb = xmalloc(rb_n * sizeof *rb);
    memset(ra, 0, ra_n * sizeof *ra);
    memset(rb, 0, rb_n * sizeof *rb);
    zp__csr_mul_vec(ra, A, w);
    zp__csr_mul_vec(rb, B, w);
    int bad = 0;
    for (uint64_t i = 0; i < n_out; i++) {
        zp_fr c;
        zp_fr_mul(&c, &ra[i], &rb[i]);
        bad += !zp_fr_eq(&h[i], &ra[i]) + !zp_fr_eq(&h[n_out + i], &rb[i]) +
               !zp_fr_eq(&h[2 * n_out + i], &c);
    }
    CHECK_EQ_INT(bad, 0);
    printf("  %s rows %llu/%llu out %llu vars %llu nnz %llu/%llu long %llu/%llu: %s\n", what,
           (unsigned long long)A->nrows, (unsigned long long)B->nrows,
           (unsigned long long)n_out, (unsigned long long)ncols, (unsigned long long)A->nnz,
           (unsigned long long)B->nnz, (unsigned long long)dA.n_long,
           (unsigned long long)dB.n_long, bad ? "WRONG" : "ok");

    zp__gpu_csr_free(T_gpu, &dA);
    zp__gpu_csr_free(T_gpu, &dB);
    zp__gpu_free(T_gpu, &dw);
    zp__gpu_free(T_gpu, &dabc);
    free(h);
    free(ra);
    free(rb);
}

/* a and b of rows 0 .. n_out through the ring (four ways) against the
 * resident eval's (matrices with rows: a key's always have). */
static void ring_check(const zp__csr *A, const zp__csr *B, uint64_t n_out, uint64_t ncols,
                       const zp_fr *w, const char *what)
{
    if (!A->nrows || !B->nrows)
        return;
    zp__gpu_csr dA, dB, hA, hB;
    GPU_OK(zp__gpu_csr_upload(T_s, &dA, A, ncols));
    GPU_OK(zp__gpu_csr_upload(T_s, &dB, B, ncols));
    GPU_OK(zp__gpu_csr_pin(T_gpu, &hA, A, ncols));
    GPU_OK(zp__gpu_csr_pin(T_gpu, &hB, B, ncols));
    const uint64_t bytes = 2 * n_out * sizeof *w;
    /* About four blocks a buffer's worth, and room for the longest row. */
    const uint64_t buffer = (hA.mem.bytes + hB.mem.bytes) / 8 + ((uint64_t)1 << 16);
    zp__gpu_buf dw = gpu_test_alloc(ncols * sizeof *w), dab = gpu_test_alloc(bytes);
    zp__gpu_buf ring = gpu_test_alloc(2 * buffer);
    zp__gpu_stream *rs;
    GPU_OK(zp__gpu_stream_open_copy(T_gpu, &rs));
    zp_fr *da = dab.ptr, *ref = xmalloc(bytes), *h = xmalloc(bytes);
    GPU_OK(zp__gpu_upload(T_s, dw.ptr, w, ncols * sizeof *w));
    GPU_OK(zp__gpu_eval_ab(T_s, da, da + n_out, n_out, &dA, &dB, dw.ptr));
    GPU_OK(zp__gpu_download(T_s, ref, da, bytes));
    GPU_OK(zp__gpu_stream_sync(T_s));
    int bad = 0;
    uint64_t r_lo = n_out;
    for (int way = 0; way < 4; way++) {
        const bool pre = way & 1, low = way & 2;
        memset(h, 0xa5, bytes);
        GPU_OK(zp__gpu_upload(T_s, da, h, bytes));
        GPU_OK(zp__gpu_stream_after(rs, T_s)); /* the copies land on the poison */
        uint64_t sent = 0;
        zp__gpu_eval_low lo = {da, buffer / 2, n_out, n_out, 0};
        if (low) {
            lo.r_lo = lo.r = r_lo =
                zp__gpu_eval_low_rows(n_out * sizeof *w, lo.piece, n_out, &hA, &hB);
            /* in two goes, as a schedule frees a's bottom */
            GPU_OK(zp__gpu_eval_low_put(rs, &lo, n_out * sizeof *w / 4, n_out, &hA, &hB, &sent));
            GPU_OK(zp__gpu_eval_low_put(rs, &lo, UINT64_MAX, n_out, &hA, &hB, &sent));
            CHECK_EQ_INT(lo.r, n_out);
        }
        if (pre)
            GPU_OK(zp__gpu_eval_ring_first(rs, ring.ptr, buffer, 1, low ? lo.r_lo : n_out, &hA,
                                           &hB, &sent));
        GPU_OK(zp__gpu_eval_ab_ring(T_s, rs, ring.ptr, buffer, pre ? 1 : -1, low ? &lo : NULL,
                                    da, da + n_out, n_out, &hA, &hB, dw.ptr, &sent));
        GPU_OK(zp__gpu_download(T_s, h, da, bytes));
        GPU_OK(zp__gpu_stream_sync(T_s));
        GPU_OK(zp__gpu_stream_sync(rs));
        bad += memcmp(h, ref, bytes) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    /* Rows go ahead where a's rows hold more than a piece's fixed part
     * (its table and alignment, up to ~20 KB). */
    CHECK(r_lo < n_out || n_out < 4096);
    printf("  %s through the ring: buffer %llu, rows from %llu of %llu sent ahead: %s\n", what,
           (unsigned long long)buffer, (unsigned long long)r_lo, (unsigned long long)n_out,
           bad ? "WRONG" : "ok");
    zp__gpu_stream_close(rs);
    zp__gpu_csr_free(T_gpu, &dA);
    zp__gpu_csr_free(T_gpu, &dB);
    zp__gpu_csr_free(T_gpu, &hA);
    zp__gpu_csr_free(T_gpu, &hB);
    zp__gpu_free(T_gpu, &ring);
    zp__gpu_free(T_gpu, &dab);
    zp__gpu_free(T_gpu, &dw);
    free(ref);
    free(h);
}

static void gpu_shape(const shape *sh)
{
    zp__csr A, B;
    make_pair(&A, &B, sh);
    zp_fr *w = rand_w(sh->ncols);
    gpu_check(&A, &B, sh->n_out, sh->ncols, w, "random");
    ring_check(&A, &B, sh->n_out, sh->ncols, w, "random");
    free(w);
    free_csr(&A);
    free_csr(&B);
}

static void test_eval(void)
{
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        gpu_shape(&shapes[i]);
    if (!T_small)
        gpu_shape(&big);
}

static void test_eval_synth(void)
{
    for (size_t i = 0; i < 3; i++) {
        const char *spec = T_small ? synths[i] : synths_big[i];
        zp__r1cs cs;
        zp_fr *w = NULL;
        CHECK_EQ_INT(synth_make(&cs, &w, spec), ZP_OK);
        uint64_t n_out = 1;
        while (n_out < cs.n_constraints + cs.n_public + 1)
            n_out *= 2;
        gpu_check(&cs.a, &cs.b, n_out, cs.n_vars, w, spec);
        ring_check(&cs.a, &cs.b, n_out, cs.n_vars, w, spec);
        free(w);
        zp__r1cs_free(&cs);
    }
}

static void test_upload_validation(void)
{
    zp__csr m;
    make_csr(&m, 50, 20, 3, 40, 0);
    zp__gpu_csr d;
    uint64_t used0 = arena_used();
    m.col[0] = 19;
    CHECK_EQ_INT(zp__gpu_csr_upload(T_s, &d, &m, 19), ZP_E_FORMAT);
    m.col[m.nnz - 1] = 20;
    CHECK_EQ_INT(zp__gpu_csr_upload(T_s, &d, &m, 20), ZP_E_FORMAT);
    m.col[m.nnz - 1] = 0;
    m.row_ptr[m.nrows] += 1; /* does not end at nnz */
    CHECK_EQ_INT(zp__gpu_csr_upload(T_s, &d, &m, 20), ZP_E_FORMAT);
    m.row_ptr[m.nrows] -= 1;
    uint64_t keep = m.row_ptr[5];
    m.row_ptr[5] = m.row_ptr[6] + 1; /* not monotone */
    CHECK_EQ_INT(zp__gpu_csr_upload(T_s, &d, &m, 20), ZP_E_FORMAT);
    m.row_ptr[5] = keep;
    CHECK(arena_used() == used0); /* failures keep nothing */
    CHECK_EQ_INT(zp__gpu_csr_upload(T_s, &d, &m, 20), ZP_OK);
    zp__gpu_csr_free(T_gpu, &d);
    zp__csr z = {0, 3, NULL, NULL, NULL}; /* no rows but entries */
    CHECK_EQ_INT(zp__gpu_csr_upload(T_s, &d, &z, 20), ZP_E_FORMAT);
    free_csr(&m);
}

/* ------------------------------------------ --porep N: size and time */

typedef struct ev_run {
    const zp__gpu_csr *A, *B;
    zp_fr *d;
    const zp_fr *dw;
    uint64_t n;
} ev_run;

static zp_err run_eval(void *ctx)
{
    ev_run *r = ctx;
    return zp__gpu_eval_abc(T_s, r->d, r->d + r->n, r->d + 2 * r->n, r->n, r->A, r->B, r->dw);
}

static uint64_t old_bytes(const zp__csr *m) { return 8 * (m->nrows + 1) + 36 * m->nnz; }

/* synth:porep:log2 checked against the host, its matrices' device bytes
 * (and those of the former layout: 32-byte coefficients, 64-bit row
 * pointers), and the evaluation's device time (for benchmarks). */
static unsigned B_log2;

static void test_porep(void)
{
    unsigned log2 = B_log2;
    char spec[32];
    snprintf(spec, sizeof spec, "synth:porep:%u", log2);
    zp__r1cs cs;
    zp_fr *w = NULL;
    CHECK_EQ_INT(synth_make(&cs, &w, spec), ZP_OK);
    if (check_failed_count)
        return;
    uint64_t n = 1;
    while (n < cs.n_constraints + cs.n_public + 1)
        n *= 2;
    gpu_check(&cs.a, &cs.b, n, cs.n_vars, w, spec);
    uint64_t ba = zp__gpu_csr_bytes(&cs.a), bb = zp__gpu_csr_bytes(&cs.b);
    printf("  matrices on the device: A %.3f GB B %.3f GB (former layout %.3f + %.3f GB)\n",
           ba / 1e9, bb / 1e9, old_bytes(&cs.a) / 1e9, old_bytes(&cs.b) / 1e9);
    zp__gpu_csr dA, dB;
    GPU_OK(zp__gpu_csr_upload(T_s, &dA, &cs.a, cs.n_vars));
    GPU_OK(zp__gpu_csr_upload(T_s, &dB, &cs.b, cs.n_vars));
    zp__gpu_buf dw = gpu_test_alloc(cs.n_vars * sizeof *w), d = gpu_test_alloc(3 * n * sizeof *w);
    GPU_OK(zp__gpu_upload(T_s, dw.ptr, w, cs.n_vars * sizeof *w));
    GPU_OK(zp__gpu_stream_sync(T_s));
    ev_run r = {&dA, &dB, d.ptr, dw.ptr, n};
    float best = 1e30f, ms = 0;
    for (int i = 0; i < 5; i++) {
        GPU_OK(zp__gpu_time_ms(T_s, run_eval, &r, &ms));
        best = ms < best ? ms : best;
    }
    printf("  eval_abc %s: %.3f ms (best of 5), %llu long rows in A\n", spec, best,
           (unsigned long long)dA.n_long);
    zp__gpu_csr_free(T_gpu, &dA);
    zp__gpu_csr_free(T_gpu, &dB);
    zp__gpu_free(T_gpu, &dw);
    zp__gpu_free(T_gpu, &d);
    free(w);
    zp__r1cs_free(&cs);
}

/* Values of a chunk: zeros pz %, ones po %, the rest other (pool values). */
static void pack_mix(zp_fr *w, uint64_t count, unsigned pz, unsigned po, const zp_fr *one)
{
    for (uint64_t i = 0; i < count; i++) {
        unsigned r = (unsigned)(check_rand64() % 100);
        if (r < pz)
            memset(&w[i], 0, sizeof w[i]);
        else if (r < pz + po)
            w[i] = *one;
        else
            w[i] = pool[check_rand64() % POOL];
    }
}

/* One rebuild: n values in chunks whose mixes cycle (every third chunk too
 * dense to pack), the packed ones placed in a staging of `cap` bytes. */
static void wunpack_case(uint64_t n, uint64_t cap)
{
    const uint64_t C = ZP_WPACK_CHUNK, chunks = zp__wpack_chunks(n);
    const uint64_t most = zp__wpack_table_bytes(chunks) + chunks * zp__wpack_region_bytes();
    if (cap > most) /* room for every chunk: no more needed */
        cap = most;
    static const unsigned mix[3][2] = {{60, 30}, {0, 0}, {46, 46}}; /* chunk 3k+1 raw */
    zp_fr one, *w = malloc(n * sizeof *w), *back = malloc(n * sizeof *back);
    uint8_t *image = malloc(cap);
    uint64_t *bytes = malloc(chunks * sizeof *bytes), *off = malloc(chunks * sizeof *off);
    CHECK(w && back && image && bytes && off);
    if (!w || !back || !image || !bytes || !off)
        return;
    zp_fr_one(&one);
    for (uint64_t k = 0; k < chunks; k++) {
        uint64_t at = k * C, count = n - at < C ? n - at : C;
        pack_mix(w + at, count, mix[k % 3][0], mix[k % 3][1], &one);
    }
    /* The staging as a lean slot sends it (zp__wpack_image); raw chunks
     * straight to their place. */
    const uint64_t used = zp__wpack_image(w, n, cap, bytes, off, image);
    zp__gpu_buf dout = gpu_test_alloc(n * sizeof *w), dst = gpu_test_alloc(used ? used : 256);
    memset(back, 0xee, n * sizeof *back); /* poison */
    GPU_OK(zp__gpu_upload(T_s, dout.ptr, back, n * sizeof *back));
    unsigned raw = 0;
    for (uint64_t k = 0; k < chunks; k++) {
        uint64_t at = k * C, count = n - at < C ? n - at : C;
        if (!used || off[k] == ZP_WPACK_NONE) {
            raw++;
            GPU_OK(zp__gpu_upload(T_s, (zp_fr *)dout.ptr + at, w + at, count * sizeof *w));
        }
    }
    if (used) {
        GPU_OK(zp__gpu_upload(T_s, dst.ptr, image, used));
        GPU_OK(zp__gpu_wunpack(T_s, dout.ptr, dst.ptr, n, &one));
    }
    GPU_OK(zp__gpu_download(T_s, back, dout.ptr, n * sizeof *back));
    GPU_OK(zp__gpu_stream_sync(T_s));
    uint64_t bad = 0;
    for (uint64_t i = 0; i < n; i++)
        bad += memcmp(&back[i], &w[i], sizeof *w) != 0;
    printf("  wunpack: %llu values in %llu chunks (%u raw), staging %llu of cap %llu: %llu differ\n",
           (unsigned long long)n, (unsigned long long)chunks, raw, (unsigned long long)used,
           (unsigned long long)cap, (unsigned long long)bad);
    CHECK_EQ_INT(bad, 0);
    CHECK(raw >= chunks / 3);
    zp__gpu_free(T_gpu, &dst);
    zp__gpu_free(T_gpu, &dout);
    free(off);
    free(bytes);
    free(image);
    free(back);
    free(w);
}

static void test_wunpack(void)
{
    const uint64_t C = ZP_WPACK_CHUNK;
    const uint64_t n = T_small ? 3 * C + C / 2 + 33 : 40 * C + 7;
    wunpack_case(n, UINT64_MAX / 2);            /* room for every packed chunk */
    wunpack_case(n, zp__wpack_table_bytes(zp__wpack_chunks(n)) + 3 * zp__wpack_region_bytes());
    wunpack_case(n, 100);                       /* not even the table: all raw */
    wunpack_case(C / 3, UINT64_MAX / 2);        /* one chunk, short */
    zp_fr one;
    zp_fr_one(&one);
    zp__gpu_buf d = gpu_test_alloc(4096);
    CHECK_EQ_INT(zp__gpu_wunpack(T_s, d.ptr, d.ptr, 0, &one), ZP_OK);
    CHECK_EQ_INT(zp__gpu_wunpack(T_s, NULL, d.ptr, 10, &one), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__gpu_wunpack(T_s, d.ptr, d.ptr, 65536ull * C, &one), ZP_E_TOO_LARGE);
    zp__gpu_free(T_gpu, &d);
}

int main(int argc, char **argv)
{
    unsigned porep = 0; /* --porep N: only test_porep on synth:porep:N, whole device */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--small"))
            T_small = 1;
        if (!strcmp(argv[i], "--porep") && i + 1 < argc)
            porep = (unsigned)atoi(argv[i + 1]);
    }
    if (porep) {
        gpu_test_open(argc, argv, 0);
        B_log2 = porep;
        RUN(test_porep);
        gpu_test_close();
        return FINISH();
    }
    for (unsigned i = 0; i < POOL; i++)
        rand_fr_mont(&pool[i]);
    /* the host twin needs no GPU: a failure there fails even without one */
    RUN(test_twin_random);
    RUN(test_twin_table);
    RUN(test_twin_synth);
    if (zp__gpu_count() == 0 && check_failed_count)
        return FINISH();
    gpu_test_open(argc, argv, 1);
    RUN(test_eval);
    RUN(test_eval_synth);
    RUN(test_upload_validation);
    RUN(test_wunpack);
    gpu_test_close();
    return FINISH();
}
