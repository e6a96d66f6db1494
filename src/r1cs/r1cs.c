/*
 * Bitmaps, CSR matrices and the satisfaction check of an R1CS.
 *
 * These are the reference paths: plain loops that are easy to read and that
 * the GPU and threaded evaluators are compared with. The only shortcut is
 * in the row dot product, where a coefficient equal to one (the common case
 * in real circuits) is an addition instead of a Montgomery multiply; the
 * tests compare it with a dense computation that has no such shortcut.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/pool.h"
#include "r1cs/r1cs.h"

/*
 * Matrix arrays reach gigabytes. With 4 KiB pages, writing them once costs
 * more time in page faults than in the writes (measured: half the time of
 * building synth:porep:24). Large arrays are therefore 2 MiB aligned and
 * marked for transparent huge pages where the kernel offers them; they are
 * still released with free().
 */
#define HUGE_MIN ((size_t)4 << 20)
#define HUGE_ALIGN ((size_t)2 << 20)

static void *big_alloc(size_t bytes)
{
    if (bytes < HUGE_MIN)
        return malloc(bytes ? bytes : 1);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_ALIGN, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, bytes, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
    return p;
}

/* The base pool's parallel-for, in the argument order r1cs's callers use. */
void zp__r1cs_par_for(size_t n, size_t grain, int threads,
                      void (*fn)(void *ctx, size_t begin, size_t end), void *ctx)
{
    zp__parallel_for(n, grain, fn, ctx, threads);
}

zp_err zp__bitmap_alloc(zp__bitmap *b, uint64_t nbits)
{
    memset(b, 0, sizeof *b);
    uint64_t nwords = nbits / 64 + 1; /* one spare word: never a zero-size calloc */
    if (nbits > UINT64_MAX - 64 || nwords > SIZE_MAX / sizeof(uint64_t))
        return ZP_E_TOO_LARGE;
    b->words = calloc((size_t)nwords, sizeof(uint64_t));
    if (!b->words)
        return ZP_E_NOMEM;
    b->nbits = nbits;
    return ZP_OK;
}

void zp__bitmap_set(zp__bitmap *b, uint64_t i)
{
    b->words[i >> 6] |= (uint64_t)1 << (i & 63);
}

uint64_t zp__bitmap_count(const zp__bitmap *b)
{
    uint64_t n = 0;
    /* Bits past nbits are never set (zp__bitmap_set is only called below
     * nbits), so whole words can be counted. */
    for (uint64_t i = 0; i < (b->nbits + 63) / 64; i++)
        n += (uint64_t)__builtin_popcountll(b->words[i]);
    return n;
}

uint64_t zp__bitmap_seek(zp__bitmap_walk *w, uint64_t p)
{
    const zp__bitmap *b = w->b;
    while (w->v < b->nbits) {
        const uint64_t k = w->v >> 6;
        uint64_t word = b->words[k] >> (w->v & 63);
        if (k == (b->nbits - 1) >> 6 && (b->nbits & 63)) /* no bit past nbits */
            word &= (~(uint64_t)0 >> (64 - (b->nbits & 63))) >> (w->v & 63);
        const uint64_t c = (uint64_t)__builtin_popcountll(word);
        if (w->j + c <= p) { /* not in this word */
            w->j += c;
            w->v = (w->v | 63) + 1;
            continue;
        }
        for (;; word >>= 1, w->v++) {
            if (!(word & 1))
                continue;
            if (w->j == p)
                return w->v;
            w->j++;
        }
    }
    w->v = b->nbits;
    return b->nbits;
}

void zp__bitmap_free(zp__bitmap *b)
{
    free(b->words);
    memset(b, 0, sizeof *b);
}

zp_err zp__csr_alloc(zp__csr *m, uint64_t nrows, uint64_t nnz)
{
    memset(m, 0, sizeof *m);
    if (nrows >= SIZE_MAX / sizeof(uint64_t) - 1 || nnz > SIZE_MAX / sizeof(zp_fr))
        return ZP_E_TOO_LARGE;
    /* malloc, not calloc: the generators write every element once, and
     * zeroing gigabytes first would double the page-fault traffic. */
    m->row_ptr = big_alloc((size_t)(nrows + 1) * sizeof *m->row_ptr);
    m->col = big_alloc((size_t)nnz * sizeof *m->col);
    m->val = big_alloc((size_t)nnz * sizeof *m->val);
    if (!m->row_ptr || !m->col || !m->val) {
        zp__csr_free(m);
        return ZP_E_NOMEM;
    }
    m->nrows = nrows;
    m->nnz = nnz;
    m->row_ptr[0] = 0;
    return ZP_OK;
}

/* Entries [begin, end) of m into the density map: a bit is set only by an
 * atomic OR, and only where it is still clear, so that tasks over other
 * entries may set other bits of the same word. */
typedef struct density_ctx {
    zp__bitmap *out;
    const zp__csr *m;
    uint64_t ncols;
    atomic_bool bad;
} density_ctx;

static void density_task(void *arg, size_t begin, size_t end)
{
    density_ctx *x = arg;
    const zp__csr *m = x->m;
    for (size_t k = begin; k < end; k++) {
        const uint32_t c = m->col[k];
        if (c >= x->ncols) {
            atomic_store(&x->bad, true);
            return;
        }
        /* An explicit zero coefficient does not make a column dense: its
         * point would be the point at infinity. */
        if (zp_fr_is_zero(&m->val[k]))
            continue;
        uint64_t *w = &x->out->words[c >> 6];
        const uint64_t bit = (uint64_t)1 << (c & 63);
        if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit))
            __atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
    }
}

zp_err zp__csr_column_density(zp__bitmap *out, const zp__csr *m, uint64_t ncols, int threads)
{
    zp_err e = zp__bitmap_alloc(out, ncols);
    if (e)
        return e;
    density_ctx x = {out, m, ncols, false};
    zp__r1cs_par_for((size_t)m->nnz, (size_t)1 << 20, threads, density_task, &x);
    if (atomic_load(&x.bad)) {
        zp__bitmap_free(out);
        return ZP_E_INVALID_ARG;
    }
    return ZP_OK;
}

zp_err zp__csr_extend(zp__csr *out, const zp__csr *m, uint64_t extra, bool inputs, int threads)
{
    if (extra > UINT64_MAX - m->nrows || extra > UINT64_MAX - m->nnz)
        return ZP_E_TOO_LARGE;
    zp_err e = zp__csr_alloc(out, m->nrows + extra, m->nnz + (inputs ? extra : 0));
    if (e)
        return e;
    /* From every thread: the first writes into the fresh arrays fault their
     * pages in, and the faults, not the copy, bound one thread. */
    zp__parallel_memcpy(out->row_ptr, m->row_ptr, (size_t)(m->nrows + 1) * sizeof *m->row_ptr,
                        threads);
    zp__parallel_memcpy(out->col, m->col, (size_t)m->nnz * sizeof *m->col, threads);
    zp__parallel_memcpy(out->val, m->val, (size_t)m->nnz * sizeof *m->val, threads);
    uint64_t at = m->nnz;
    for (uint64_t i = 0; i < extra; i++) {
        if (inputs) {
            out->col[at] = (uint32_t)i;
            zp_fr_one(&out->val[at]);
            at++;
        }
        out->row_ptr[m->nrows + i + 1] = at;
    }
    return ZP_OK;
}

void zp__csr_free(zp__csr *m)
{
    free(m->row_ptr);
    free(m->col);
    free(m->val);
    memset(m, 0, sizeof *m);
}

void zp__r1cs_free(zp__r1cs *cs)
{
    zp__csr_free(&cs->a);
    zp__csr_free(&cs->b);
    zp__csr_free(&cs->c);
    memset(cs, 0, sizeof *cs);
}

void zp__csr_row_dot(zp_fr *out, const zp__csr *m, uint64_t row, const zp_fr *w)
{
    zp_fr acc, t;
    zp_fr_zero(&acc);
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        const zp_fr *x = &w[m->col[k]];
        if (zp_fr_is_one(&m->val[k])) {
            zp_fr_add(&acc, &acc, x);
        } else {
            zp_fr_mul(&t, &m->val[k], x);
            zp_fr_add(&acc, &acc, &t);
        }
    }
    *out = acc;
}

void zp__csr_mul_vec(zp_fr *out, const zp__csr *m, const zp_fr *w)
{
    for (uint64_t i = 0; i < m->nrows; i++)
        zp__csr_row_dot(&out[i], m, i, w);
}

static bool cols_below(const zp__csr *m, uint64_t n_vars)
{
    for (uint64_t k = 0; k < m->nnz; k++)
        if (m->col[k] >= n_vars)
            return false;
    return true;
}

static bool shape_ok(const zp__r1cs *cs)
{
    uint64_t n = cs->a.nrows;
    return cs->b.nrows == n && cs->c.nrows == n && cols_below(&cs->a, cs->n_vars) &&
           cols_below(&cs->b, cs->n_vars) && cols_below(&cs->c, cs->n_vars);
}

static bool row_holds(const zp__r1cs *cs, const zp_fr *w, uint64_t i)
{
    zp_fr a, b, c, ab;
    zp__csr_row_dot(&a, &cs->a, i, w);
    zp__csr_row_dot(&b, &cs->b, i, w);
    zp__csr_row_dot(&c, &cs->c, i, w);
    zp_fr_mul(&ab, &a, &b);
    return zp_fr_eq(&ab, &c);
}

bool zp__r1cs_is_satisfied(const zp__r1cs *cs, const zp_fr *w, uint64_t *bad_row)
{
    uint64_t dummy;
    if (!bad_row)
        bad_row = &dummy;
    *bad_row = UINT64_MAX;
    if (!shape_ok(cs))
        return false;
    for (uint64_t i = 0; i < cs->a.nrows; i++) {
        if (!row_holds(cs, w, i)) {
            *bad_row = i;
            return false;
        }
    }
    return true;
}

typedef struct sat_job {
    const zp__r1cs *cs;
    const zp_fr *w;
    _Atomic uint64_t first_bad;
} sat_job;

static void sat_rows(void *arg, size_t begin, size_t end)
{
    sat_job *job = arg;
    for (uint64_t i = begin; i < end; i++) {
        /* A failure already found below this chunk decides the answer. */
        if (i % 1024 == 0 && atomic_load(&job->first_bad) < begin)
            return;
        if (!row_holds(job->cs, job->w, i)) {
            uint64_t cur = atomic_load(&job->first_bad);
            while (i < cur && !atomic_compare_exchange_weak(&job->first_bad, &cur, i))
                ;
            return;
        }
    }
}

bool zp__r1cs_is_satisfied_mt(const zp__r1cs *cs, const zp_fr *w, uint64_t *bad_row,
                              int threads)
{
    uint64_t dummy;
    if (!bad_row)
        bad_row = &dummy;
    *bad_row = UINT64_MAX;
    if (!shape_ok(cs))
        return false;
    sat_job job = {.cs = cs, .w = w};
    atomic_init(&job.first_bad, UINT64_MAX);
    zp__r1cs_par_for(cs->a.nrows, 1 << 14, threads, sat_rows, &job);
    *bad_row = atomic_load(&job.first_bad);
    return *bad_row == UINT64_MAX;
}
