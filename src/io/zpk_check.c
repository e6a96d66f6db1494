/*
 * Consistency checks of a proving key, shared by the .zpk writer (which
 * refuses an inconsistent key) and loader (which refuses a file whose
 * header or index arrays could make a prover read out of range).
 */
#include <stdatomic.h>
#include <string.h>

#include "base/pool.h"
#include "io/zpk_impl.h"

static const char *const SECTION_NAME[ZP__ZPK_NSEC + 1] = {
    "?", "VK", "A", "B1", "B2", "L", "H", "A density", "B density",
    "MA.row_ptr", "MA.col", "MA.val", "MB.row_ptr", "MB.col", "MB.val",
};

const char *zp__zpk_section_name(uint32_t id)
{
    return id >= 1 && id <= ZP__ZPK_NSEC ? SECTION_NAME[id] : "?";
}

void zp__zpk_header_of(zp__zpk_header *h, const zp__pk *pk)
{
    memset(h, 0, sizeof *h);
    h->version = ZP__ZPK_VERSION;
    h->h_conv = pk->h_conv;
    h->roots = pk->roots;
    h->n_vars = pk->n_vars;
    h->n_public = pk->n_public;
    h->domain_size = pk->domain_size;
    h->n_a = pk->n_a;
    h->n_b = pk->n_b;
    h->n_l = pk->n_l;
    h->n_h = pk->n_h;
    h->ma_rows = pk->ma.nrows;
    h->ma_nnz = pk->ma.nnz;
    h->mb_rows = pk->mb.nrows;
    h->mb_nnz = pk->mb.nnz;
}

static zp_err check_conventions(const zp__zpk_header *h, zp_err code, zp__ioerr *why)
{
    if (h->h_conv != ZP_H_COSET && h->h_conv != ZP_H_TAU)
        return zp__fail(why, code, "unknown H convention %d", (int)h->h_conv);
    if (h->roots != ZP_ROOTS_SNARKJS && h->roots != ZP_ROOTS_BELLPERSON)
        return zp__fail(why, code, "unknown roots-of-unity convention %d", (int)h->roots);
    uint64_t d = h->domain_size;
    if (d == 0 || (d & (d - 1)) != 0 || d > (uint64_t)1 << 32)
        return zp__fail(why, code, "domain size %llu is not a power of two up to 2^32",
                        (unsigned long long)d);
    uint64_t want_h = h->h_conv == ZP_H_COSET ? d : d - 1;
    if (h->n_h != want_h)
        return zp__fail(why, code, "%llu H points, the %s convention needs %llu",
                        (unsigned long long)h->n_h, h->h_conv == ZP_H_COSET ? "coset" : "tau",
                        (unsigned long long)want_h);
    return ZP_OK;
}

zp_err zp__zpk_check_counts(const zp__zpk_header *h, zp_err code, zp__ioerr *why)
{
    zp_err e = check_conventions(h, code, why);
    if (e)
        return e;
    if (h->n_public >= h->n_vars)
        return zp__fail(why, code, "%u public inputs for %u variables", h->n_public, h->n_vars);
    if (h->n_l != (uint64_t)h->n_vars - h->n_public - 1)
        return zp__fail(why, code, "%llu L points for %u variables and %u public inputs",
                        (unsigned long long)h->n_l, h->n_vars, h->n_public);
    if (h->n_a > h->n_vars || h->n_b > h->n_vars)
        return zp__fail(why, code, "%llu A or %llu B points for %u variables",
                        (unsigned long long)h->n_a, (unsigned long long)h->n_b, h->n_vars);
    if (h->ma_rows > h->domain_size || h->mb_rows > h->domain_size)
        return zp__fail(why, code, "matrices of %llu and %llu rows in a domain of %llu",
                        (unsigned long long)h->ma_rows, (unsigned long long)h->mb_rows,
                        (unsigned long long)h->domain_size);
    if (h->ma_nnz >= ZP__ZPK_MAX_NNZ || h->mb_nnz >= ZP__ZPK_MAX_NNZ)
        return zp__fail(why, code == ZP_E_FORMAT ? ZP_E_TOO_LARGE : code,
                        "matrices of %llu and %llu entries", (unsigned long long)h->ma_nnz,
                        (unsigned long long)h->mb_nnz);
    return ZP_OK;
}

/* Every count is below 2^58 after zp__zpk_check_counts, so no product
 * here overflows. */
uint64_t zp__zpk_section_len(const zp__zpk_header *h, uint32_t id)
{
    const uint64_t g1 = sizeof(zp_g1_affine), g2 = sizeof(zp_g2_affine);
    switch (id) {
    case ZP__ZPK_VK: return ZP__ZPK_VK_FIXED + ((uint64_t)h->n_public + 1) * g1;
    case ZP__ZPK_A: return h->n_a * g1;
    case ZP__ZPK_B1: return h->n_b * g1;
    case ZP__ZPK_B2: return h->n_b * g2;
    case ZP__ZPK_L: return h->n_l * g1;
    case ZP__ZPK_H: return h->n_h * g1;
    case ZP__ZPK_ADENS:
    case ZP__ZPK_BDENS: return zp__zpk_bitmap_words(h->n_vars) * 8;
    case ZP__ZPK_MA_ROWS: return (h->ma_rows + 1) * 8;
    case ZP__ZPK_MA_COLS: return h->ma_nnz * 4;
    case ZP__ZPK_MA_VALS: return h->ma_nnz * sizeof(zp_fr);
    case ZP__ZPK_MB_ROWS: return (h->mb_rows + 1) * 8;
    case ZP__ZPK_MB_COLS: return h->mb_nnz * 4;
    case ZP__ZPK_MB_VALS: return h->mb_nnz * sizeof(zp_fr);
    default: return 0;
    }
}

zp_err zp__zpk_check_bitmap(const zp__bitmap *b, uint64_t n_vars, uint64_t count,
                            const char *name, zp_err code, zp__ioerr *why)
{
    if (b->nbits != n_vars || !b->words)
        return zp__fail(why, code, "%s map covers %llu variables, the key has %llu", name,
                        (unsigned long long)b->nbits, (unsigned long long)n_vars);
    uint64_t nw = zp__zpk_bitmap_words(n_vars), pop = 0;
    for (uint64_t i = 0; i < nw; i++)
        pop += (uint64_t)__builtin_popcountll(b->words[i]);
    /* Bits n_vars.. of the last words must be clear. */
    uint64_t tail = b->words[n_vars / 64] >> (n_vars % 64);
    if (tail != 0 || pop != count)
        return zp__fail(why, code, "%s map has %llu bits set%s, the key has %llu points",
                        name, (unsigned long long)pop, tail ? " (some past the variables)" : "",
                        (unsigned long long)count);
    return ZP_OK;
}

typedef struct csr_job {
    const zp__csr *m;
    uint64_t n_vars;
    atomic_bool bad;
} csr_job;

/* Rows [begin, end): offsets non-decreasing and every column in range. */
static void check_rows(void *ctx, size_t begin, size_t end)
{
    csr_job *j = ctx;
    const zp__csr *m = j->m;
    for (size_t r = begin; r < end; r++) {
        uint64_t lo = m->row_ptr[r], hi = m->row_ptr[r + 1];
        if (lo > hi || hi > m->nnz) {
            atomic_store(&j->bad, true);
            return;
        }
        for (uint64_t k = lo; k < hi; k++)
            if (m->col[k] >= j->n_vars) {
                atomic_store(&j->bad, true);
                return;
            }
    }
}

zp_err zp__zpk_check_csr(const zp__csr *m, uint64_t n_vars, const char *name, zp_err code,
                         int threads, zp__ioerr *why)
{
    if (!m->row_ptr || (m->nnz && (!m->col || !m->val)))
        return zp__fail(why, code, "matrix %s is missing", name);
    if (m->row_ptr[0] != 0 || m->row_ptr[m->nrows] != m->nnz)
        return zp__fail(why, code, "matrix %s: row offsets run from %llu to %llu, not 0 to %llu",
                        name, (unsigned long long)m->row_ptr[0],
                        (unsigned long long)m->row_ptr[m->nrows], (unsigned long long)m->nnz);
    csr_job j = {.m = m, .n_vars = n_vars};
    atomic_init(&j.bad, false);
    zp__parallel_for((size_t)m->nrows, 1 << 16, check_rows, &j, threads);
    if (atomic_load(&j.bad))
        return zp__fail(why, code, "matrix %s: decreasing row offsets or a column >= %llu",
                        name, (unsigned long long)n_vars);
    return ZP_OK;
}

zp_err zp__zpk_check_pk(const zp__pk *pk, int threads, zp__ioerr *why)
{
    const zp_err bad = ZP_E_INVALID_ARG;
    zp__zpk_header h;
    zp__zpk_header_of(&h, pk);
    zp_err e = zp__zpk_check_counts(&h, bad, why);
    if (e)
        return e;
    if (pk->vk.n_ic != (uint64_t)pk->n_public + 1 || !pk->vk.ic)
        return zp__fail(why, bad, "verifying key has %u IC points for %u public inputs",
                        pk->vk.n_ic, pk->n_public);
    if ((pk->n_a && !pk->a) || (pk->n_b && (!pk->b1 || !pk->b2)) || (pk->n_l && !pk->l) ||
        (pk->n_h && !pk->h))
        return zp__fail(why, bad, "the key lacks a point array");
    if (!pk->ma.row_ptr || !pk->mb.row_ptr || !pk->a_density.words || !pk->b_density.words)
        return zp__fail(why, bad, "the key has no constraint matrices or density maps "
                                  "(a .params key needs its circuit attached)");
    if ((e = zp__zpk_check_bitmap(&pk->a_density, pk->n_vars, pk->n_a, "A density", bad, why)) ||
        (e = zp__zpk_check_bitmap(&pk->b_density, pk->n_vars, pk->n_b, "B density", bad, why)) ||
        (e = zp__zpk_check_csr(&pk->ma, pk->n_vars, "A", bad, threads, why)))
        return e;
    return zp__zpk_check_csr(&pk->mb, pk->n_vars, "B", bad, threads, why);
}
