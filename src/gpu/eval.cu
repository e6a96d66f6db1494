/*
 * R1CS evaluation on the GPU: a = A w, b = B w from compact CSR matrices
 * (gpu.h, layout in eval_plan.h), c = a∘b.
 *
 * Most rows are short (PoRep: 1 or 2 entries), a few are long (the dense
 * tail and the word packing rows: 33 to 43). Short rows are summed by one
 * thread each; rows longer than ZP__GPU_EVAL_SHORT, listed at upload, by a
 * warp each with a shuffle reduction, so no warp waits on one thread's long
 * row. Coefficients 1 and -1 (a code byte) are added or subtracted without
 * a product or a coefficient load; the others are read from the small table
 * or the escaped array and multiplied. Sums are reduced mod r, so the order
 * of additions does not change the bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/ctx.cuh"
#include "gpu/eval_plan.h"

static __device__ __forceinline__ uint64_t rp_at(const zp__gpu_csr &m, uint64_t i)
{
    return m.rp64 ? ((const uint64_t *)m.row_ptr)[i] : ((const uint32_t *)m.row_ptr)[i];
}

/* Escaped nonzeros before nonzero k (k < nnz; the matrix has escapes). */
static __device__ __forceinline__ uint64_t esc_before(const zp__gpu_csr &m, uint64_t k)
{
    uint64_t wd = k >> 6, low = m.esc_bits[wd] & ((1ull << (k & 63)) - 1);
    return m.esc_rank[wd] + (uint64_t)__popcll(low);
}

/* acc + coefficient * x for a nonzero of code c; ei: the index of its
 * coefficient in esc when c is ZP__EV_ESC. */
static __device__ __forceinline__ fr_t term(const fr_t &acc, unsigned c, const fr_t &x,
                                            const zp__gpu_csr &m, uint64_t ei)
{
    if (c == ZP__EV_PLUS)
        return fr_add(acc, x);
    if (c == ZP__EV_MINUS)
        return fr_sub(acc, x);
    const fr_t *v = c == ZP__EV_ESC ? (const fr_t *)m.esc + ei : (const fr_t *)m.tab + (c - 2);
    return fr_add(acc, fr_mul(fr_load(v), x));
}

/* The dot product of entries s .. e of m with w, by one thread. */
static __device__ fr_t dot_thread(const zp__gpu_csr &m, uint64_t s, uint64_t e, const fr_t *w)
{
    fr_t acc = fr_zero();
    uint64_t ei = 0;
    bool have_ei = false;
    for (uint64_t k = s; k < e; k++) {
        unsigned c = m.code[k];
        if (c == ZP__EV_ESC && !have_ei) {
            ei = esc_before(m, k);
            have_ei = true;
        }
        acc = term(acc, c, fr_load(w + m.col[k]), m, ei);
        ei += c == ZP__EV_ESC;
    }
    return acc;
}

/* The entries s .. e of row i of m (empty past its rows). */
static __device__ __forceinline__ void row_range(uint64_t *s, uint64_t *e, const zp__gpu_csr &m,
                                                 uint64_t i)
{
    *s = *e = 0;
    if (i < m.nrows) {
        *s = rp_at(m, i);
        *e = rp_at(m, i + 1);
    }
}

/* Thread per row of [row0, end): a, b of short rows, c (where c is not
 * NULL) where both are short. The row pointers of A and B are loaded before
 * either sum, so both are in flight. */
static __global__ void eval_short(fr_t *a, fr_t *b, fr_t *c, uint64_t row0, uint64_t end,
                                  zp__gpu_csr A, zp__gpu_csr B, const fr_t *w)
{
    uint64_t i = row0 + (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= end)
        return;
    uint64_t sa, ea, sb, eb;
    row_range(&sa, &ea, A, i);
    row_range(&sb, &eb, B, i);
    bool la = ea - sa > ZP__GPU_EVAL_SHORT, lb = eb - sb > ZP__GPU_EVAL_SHORT;
    fr_t x = la ? fr_zero() : dot_thread(A, sa, ea, w);
    fr_t y = lb ? fr_zero() : dot_thread(B, sb, eb, w);
    if (!la)
        fr_store(a + i, x);
    if (!lb)
        fr_store(b + i, y);
    if (c && !la && !lb)
        fr_store(c + i, fr_mul(x, y));
}

/* Row `row` of m (long, so not empty) by the calling warp into out[row]. */
static __device__ __forceinline__ void long_row(fr_t *out, uint64_t n_out, const zp__gpu_csr &m,
                                                uint64_t row, const fr_t *w, unsigned lane)
{
    if (row >= n_out)
        return; /* the whole warp */
    uint64_t s = rp_at(m, row), e = rp_at(m, row + 1);
    uint64_t ebase = m.esc_bits ? esc_before(m, s) : 0;
    fr_t acc = fr_zero();
    for (uint64_t k0 = s; k0 < e; k0 += 32) {
        uint64_t k = k0 + lane;
        bool on = k < e;
        unsigned c = on ? m.code[k] : ZP__EV_PLUS;
        unsigned esc = __ballot_sync(0xffffffffu, on && c == ZP__EV_ESC);
        if (on) {
            uint64_t ei = ebase + (uint64_t)__popc(esc & ((1u << lane) - 1));
            acc = term(acc, c, fr_load(w + m.col[k]), m, ei);
        }
        ebase += (uint64_t)__popc(esc);
    }
    for (unsigned off = 16; off > 0; off >>= 1) {
        fr_t o;
#pragma unroll
        for (int j = 0; j < 8; j++)
            o.v[j] = __shfl_down_sync(0xffffffffu, acc.v[j], off);
        acc = fr_add(acc, o);
    }
    if (lane == 0)
        fr_store(out + row, acc);
}

/* Warp per long row: first A's list into a, then B's into b. */
static __global__ void eval_long(fr_t *a, fr_t *b, uint64_t n_out, zp__gpu_csr A, zp__gpu_csr B,
                                 const fr_t *w)
{
    uint64_t g = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned lane = threadIdx.x & 31;
    if (g < A.n_long)
        long_row(a, n_out, A, A.long_rows[g], w, lane);
    else if (g - A.n_long < B.n_long)
        long_row(b, n_out, B, B.long_rows[g - A.n_long], w, lane);
}

/* c of the rows long in A or B (a row long in both is written twice, with
 * the same value). */
static __global__ void eval_long_c(fr_t *c, const fr_t *a, const fr_t *b, uint64_t n_out,
                                   zp__gpu_csr A, zp__gpu_csr B)
{
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= A.n_long + B.n_long)
        return;
    uint64_t row = t < A.n_long ? A.long_rows[t] : B.long_rows[t - A.n_long];
    if (row < n_out)
        fr_store(c + row, fr_mul(fr_load(a + row), fr_load(b + row)));
}

/* The rows [row0, end) of n_out, A and B device views holding them (their
 * long rows those of the range); c NULL: a and b only. */
static zp_err eval_rows(zp__gpu_stream *s, fr_t *a, fr_t *b, fr_t *c, uint64_t row0,
                        uint64_t end, uint64_t n_out, const zp__gpu_csr *A,
                        const zp__gpu_csr *B, const fr_t *w)
{
    zp__gpu *g = s->g;
    if (end > row0) {
        eval_short<<<zp__ceil_div_u(end - row0, 128), 128, 0, s->st>>>(a, b, c, row0, end, *A,
                                                                       *B, w);
        ZP_CUDA_LAUNCHED();
    }
    uint64_t n_long = A->n_long + B->n_long;
    if (n_long) {
        eval_long<<<zp__ceil_div_u(32 * n_long, 256), 256, 0, s->st>>>(a, b, n_out, *A, *B, w);
        ZP_CUDA_LAUNCHED();
        if (c) {
            eval_long_c<<<zp__ceil_div_u(n_long, 256), 256, 0, s->st>>>(c, a, b, n_out, *A, *B);
            ZP_CUDA_LAUNCHED();
        }
    }
    return ZP_OK;
}

/* All rows of resident matrices; c NULL: a and b only. */
static zp_err eval_resident(zp__gpu_stream *s, zp_fr *d_a, zp_fr *d_b, zp_fr *d_c,
                            uint64_t n_out, const zp__gpu_csr *A, const zp__gpu_csr *B,
                            const zp_fr *d_w)
{
    zp__gpu *g = s->g;
    if (n_out == 0)
        return ZP_OK;
    if (!d_a || !d_b || !d_w || A->host || B->host)
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    return eval_rows(s, (fr_t *)d_a, (fr_t *)d_b, (fr_t *)d_c, 0, n_out, n_out, A, B,
                     (const fr_t *)d_w);
}

extern "C" zp_err zp__gpu_eval_abc(zp__gpu_stream *s, zp_fr *d_a, zp_fr *d_b, zp_fr *d_c,
                                   uint64_t n_out, const zp__gpu_csr *A, const zp__gpu_csr *B,
                                   const zp_fr *d_w)
{
    if (n_out && !d_c)
        return ZP_E_INVALID_ARG;
    return eval_resident(s, d_a, d_b, d_c, n_out, A, B, d_w);
}

extern "C" zp_err zp__gpu_eval_ab(zp__gpu_stream *s, zp_fr *d_a, zp_fr *d_b, uint64_t n_out,
                                  const zp__gpu_csr *A, const zp__gpu_csr *B, const zp_fr *d_w)
{
    return eval_resident(s, d_a, d_b, NULL, n_out, A, B, d_w);
}

static __global__ void mul_kernel(fr_t *out, const fr_t *x, const fr_t *y, uint64_t n)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        fr_store(out + i, fr_mul(fr_load(x + i), fr_load(y + i)));
}

extern "C" zp_err zp__gpu_fr_mul(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_a,
                                 const zp_fr *d_b, uint64_t n)
{
    if (n == 0)
        return ZP_OK;
    if (!d_out || !d_a || !d_b)
        return ZP_E_INVALID_ARG;
    zp__gpu *g = s->g;
    ZP_CUDA(cudaSetDevice(g->device));
    mul_kernel<<<zp__ceil_div_u(n, 256), 256, 0, s->st>>>((fr_t *)d_out, (const fr_t *)d_a,
                                                          (const fr_t *)d_b, n);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

/* Checks the structure the kernels rely on: they read no bounds themselves. */
static zp_err csr_validate(const zp__csr *m, uint64_t ncols)
{
    if (m->nrows && !m->row_ptr)
        return ZP_E_INVALID_ARG;
    if (m->nrows == 0)
        return m->nnz == 0 ? ZP_OK : ZP_E_FORMAT;
    if (m->row_ptr[0] != 0 || m->row_ptr[m->nrows] != m->nnz)
        return ZP_E_FORMAT;
    if (m->nnz && (!m->col || !m->val))
        return ZP_E_INVALID_ARG;
    for (uint64_t i = 0; i < m->nrows; i++)
        if (m->row_ptr[i + 1] < m->row_ptr[i])
            return ZP_E_FORMAT;
    for (uint64_t k = 0; k < m->nnz; k++)
        if (m->col[k] >= ncols)
            return ZP_E_FORMAT;
    return ZP_OK;
}

/* Entries staged per copy (rows or nonzeros); a multiple of 64 so a chunk
 * of nonzeros starts at a word of the escape bitmap. */
#define EV_CHUNK ((uint64_t)1 << 20)

typedef struct ev_stage {
    uint8_t *code;
    uint64_t *bits, *rank, *u64;
    uint32_t *u32;
    zp_fr *esc;
} ev_stage;

/* The image is written through s into the arena, or, with s NULL, into
 * pinned host memory (zp__gpu_csr_pin) directly. */
static zp_err put(zp__gpu_stream *s, char *base, uint64_t off, const void *src, uint64_t bytes)
{
    if (!bytes)
        return ZP_OK;
    if (!s) {
        memcpy(base + off, src, bytes);
        return ZP_OK;
    }
    return zp__gpu_upload(s, base + off, src, bytes);
}

static zp_err sync_of(zp__gpu_stream *s) { return s ? zp__gpu_stream_sync(s) : ZP_OK; }

/* Row pointers: as they are when 64-bit, else narrowed chunk by chunk. */
static zp_err put_row_ptr(zp__gpu_stream *s, char *base, const zp__ev_plan *p, const zp__csr *m,
                          ev_stage *st)
{
    static const uint64_t zero = 0;
    if (m->nrows == 0)
        return put(s, base, p->o_rp, &zero, p->rp64 ? 8 : 4);
    if (p->rp64)
        return put(s, base, p->o_rp, m->row_ptr, 8 * (m->nrows + 1));
    for (uint64_t r0 = 0; r0 <= m->nrows; r0 += EV_CHUNK) {
        uint64_t n = m->nrows + 1 - r0 < EV_CHUNK ? m->nrows + 1 - r0 : EV_CHUNK;
        for (uint64_t j = 0; j < n; j++)
            st->u32[j] = (uint32_t)m->row_ptr[r0 + j];
        ZP_TRY(put(s, base, p->o_rp + 4 * r0, st->u32, 4 * n));
        ZP_TRY(sync_of(s));
    }
    return ZP_OK;
}

/* Codes, escape bitmap and ranks, escaped values, chunk by chunk. */
static zp_err put_codes(zp__gpu_stream *s, char *base, const zp__ev_plan *p, const zp__csr *m,
                        ev_stage *st)
{
    uint64_t done = 0; /* escapes so far */
    for (uint64_t k0 = 0; k0 < m->nnz; k0 += EV_CHUNK) {
        uint64_t n = m->nnz - k0 < EV_CHUNK ? m->nnz - k0 : EV_CHUNK, nw = (n + 63) / 64, ne = 0;
        zp__ev_encode(p, st->code, st->bits, m->val + k0, n, 0);
        for (uint64_t i = 0; i < nw; i++) {
            st->rank[i] = done + ne;
            for (uint64_t b = st->bits[i]; b; b &= b - 1) {
                if (done + ne >= p->n_esc)
                    return ZP_E_INVALID_ARG; /* m changed since it was planned */
                st->esc[ne++] = m->val[k0 + 64 * i + (uint64_t)__builtin_ctzll(b)];
            }
        }
        ZP_TRY(put(s, base, p->o_code + k0, st->code, n));
        if (p->n_esc) {
            ZP_TRY(put(s, base, p->o_bits + k0 / 8, st->bits, 8 * nw));
            ZP_TRY(put(s, base, p->o_rank + k0 / 8, st->rank, 8 * nw));
            ZP_TRY(put(s, base, p->o_esc + sizeof(zp_fr) * done, st->esc, sizeof(zp_fr) * ne));
        }
        done += ne;
        ZP_TRY(sync_of(s));
    }
    return done == p->n_esc ? ZP_OK : ZP_E_INVALID_ARG;
}

static zp_err put_long_rows(zp__gpu_stream *s, char *base, const zp__ev_plan *p,
                            const zp__csr *m, ev_stage *st)
{
    uint64_t n = 0, done = 0;
    for (uint64_t i = 0; i < m->nrows; i++) {
        if (m->row_ptr[i + 1] - m->row_ptr[i] <= ZP__GPU_EVAL_SHORT)
            continue;
        if (done + n >= p->n_long)
            return ZP_E_INVALID_ARG;
        st->u64[n++] = i;
        if (n == EV_CHUNK || i == m->nrows - 1) {
            ZP_TRY(put(s, base, p->o_long + 8 * done, st->u64, 8 * n));
            ZP_TRY(sync_of(s));
            done += n;
            n = 0;
        }
    }
    ZP_TRY(put(s, base, p->o_long + 8 * done, st->u64, 8 * n));
    ZP_TRY(sync_of(s));
    return done + n == p->n_long ? ZP_OK : ZP_E_INVALID_ARG;
}

/* The image of m into out's region: the arena through s, or (s NULL) pinned
 * host memory of g. */
static zp_err upload(zp__gpu *g, zp__gpu_stream *s, zp__gpu_csr *out, const zp__ev_plan *p,
                     const zp__csr *m)
{
    if (s) {
        ZP_TRY(zp__gpu_alloc(g, &out->mem, p->end));
    } else {
        ZP_TRY(zp__gpu_host_alloc(g, &out->mem.ptr, p->bytes));
        out->mem.bytes = p->bytes; /* as zp__gpu_csr_bytes, which plans it */
        out->host = true;
    }
    char *base = (char *)out->mem.ptr;
    out->n_esc = p->n_esc;
    out->n_tab = p->n_tab;
    out->nrows = m->nrows;
    out->nnz = m->nnz;
    out->n_long = p->n_long;
    out->rp64 = p->rp64;
    out->row_ptr = base + p->o_rp;
    out->col = (uint32_t *)(base + p->o_col);
    out->code = (uint8_t *)(base + p->o_code);
    out->esc_bits = p->n_esc ? (uint64_t *)(base + p->o_bits) : NULL;
    out->esc_rank = p->n_esc ? (uint64_t *)(base + p->o_rank) : NULL;
    out->esc = p->n_esc ? (zp_fr *)(base + p->o_esc) : NULL;
    out->tab = (zp_fr *)(base + p->o_tab);
    out->long_rows = (uint64_t *)(base + p->o_long);
    ev_stage st;
    void *host = malloc(EV_CHUNK * (1 + 8 + sizeof(zp_fr)) + EV_CHUNK / 64 * 16 + EV_CHUNK * 4);
    if (!host)
        return ZP_E_NOMEM;
    st.code = (uint8_t *)host;
    st.u64 = (uint64_t *)(st.code + EV_CHUNK);
    st.esc = (zp_fr *)(st.u64 + EV_CHUNK);
    st.bits = (uint64_t *)(st.esc + EV_CHUNK);
    st.rank = st.bits + EV_CHUNK / 64;
    st.u32 = (uint32_t *)(st.rank + EV_CHUNK / 64);
    zp_err e;
    if (!(e = put_row_ptr(s, base, p, m, &st)) &&
        !(e = put(s, base, p->o_col, m->col, 4 * m->nnz)) &&
        !(e = put_codes(s, base, p, m, &st)) &&
        !(e = put(s, base, p->o_tab, p->tab, sizeof(zp_fr) * p->n_tab)) &&
        !(e = put_long_rows(s, base, p, m, &st)))
        e = sync_of(s);
    /* the last copies may still read host: wait even after a failure */
    sync_of(s);
    free(host);
    return e;
}

static zp_err csr_make(zp__gpu *g, zp__gpu_stream *s, zp__gpu_csr *out, const zp__csr *m,
                       uint64_t ncols)
{
    memset(out, 0, sizeof *out);
    ZP_TRY(csr_validate(m, ncols));
    zp__ev_plan *p = (zp__ev_plan *)malloc(sizeof *p);
    zp_err e = p ? zp__ev_plan_make(p, m, 0) : ZP_E_NOMEM;
    if (!e)
        e = upload(g, s, out, p, m);
    free(p);
    if (e)
        zp__gpu_csr_free(g, out);
    return e;
}

extern "C" zp_err zp__gpu_csr_upload(zp__gpu_stream *s, zp__gpu_csr *out, const zp__csr *m,
                                     uint64_t ncols)
{
    return csr_make(s->g, s, out, m, ncols);
}

extern "C" zp_err zp__gpu_csr_pin(zp__gpu *g, zp__gpu_csr *out, const zp__csr *m,
                                  uint64_t ncols)
{
    return csr_make(g, NULL, out, m, ncols);
}

extern "C" void zp__gpu_csr_free(zp__gpu *g, zp__gpu_csr *m)
{
    if (m->host)
        zp__gpu_host_free(m->mem.ptr);
    else
        zp__gpu_free(g, &m->mem);
    memset(m, 0, sizeof *m);
}

/* ----------------------------------------------- matrices that stream */

/* Rows [r0, r1) of a pinned image m in a staging buffer: the row pointers
 * r0 .. r1 (clipped to m's rows), the nonzeros [k0, k1) they span (columns
 * and codes), the escape bitmap's words [w0, w1) with their ranks, the
 * escaped values [e0, e1) those words can name, the long rows [l0, l1) of
 * the list that fall in the range, and the table; each section at a
 * 256-byte offset from the slice's start. */
typedef struct ev_slice {
    uint64_t r0, r1, k0, k1, w0, w1, e0, e1, l0, l1;
    uint64_t o_rp, o_col, o_code, o_bits, o_rank, o_esc, o_tab, o_long, bytes;
} ev_slice;

static uint64_t al256(uint64_t x) { return (x + 255) & ~(uint64_t)255; }

static uint64_t host_rp(const zp__gpu_csr *m, uint64_t i)
{
    return m->rp64 ? ((const uint64_t *)m->row_ptr)[i] : ((const uint32_t *)m->row_ptr)[i];
}

/* The first entry of m's long-row list at or past row r. */
static uint64_t long_from(const zp__gpu_csr *m, uint64_t r)
{
    uint64_t lo = 0, hi = m->n_long;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (m->long_rows[mid] < r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void slice_of(ev_slice *x, const zp__gpu_csr *m, uint64_t r0, uint64_t r1)
{
    x->r0 = r0 < m->nrows ? r0 : m->nrows;
    x->r1 = r1 < m->nrows ? r1 : m->nrows;
    x->k0 = host_rp(m, x->r0);
    x->k1 = host_rp(m, x->r1);
    const uint64_t words = (m->nnz + 63) / 64;
    x->w0 = x->w1 = x->e0 = x->e1 = 0;
    if (m->n_esc && x->k1 > x->k0) {
        x->w0 = x->k0 / 64;
        x->w1 = (x->k1 + 63) / 64;
        x->e0 = m->esc_rank[x->w0];
        x->e1 = x->w1 < words ? m->esc_rank[x->w1] : m->n_esc;
    }
    x->l0 = long_from(m, r0);
    x->l1 = long_from(m, r1);
    uint64_t o = 0;
    x->o_rp = o;
    o = al256(o + (x->r1 - x->r0 + 1) * (m->rp64 ? 8 : 4));
    x->o_col = o;
    o = al256(o + 4 * (x->k1 - x->k0));
    x->o_code = o;
    o = al256(o + (x->k1 - x->k0));
    x->o_bits = o;
    o = al256(o + 8 * (x->w1 - x->w0));
    x->o_rank = o;
    o = al256(o + 8 * (x->w1 - x->w0));
    x->o_esc = o;
    o = al256(o + sizeof(zp_fr) * (x->e1 - x->e0));
    x->o_tab = o;
    o = al256(o + sizeof(zp_fr) * m->n_tab);
    x->o_long = o;
    x->bytes = al256(o + 8 * (x->l1 - x->l0));
}

/* Copies slice x of m to dst on s (asynchronous; not where !copy: it is
 * there already) and gives the device view of it: m's struct with each
 * array's pointer moved back by the slice's first index, so that the
 * kernels index the slice by the matrix's own row, nonzero, word and
 * escape numbers; only the slice's entries are read. */
static zp_err slice_put(zp__gpu_stream *s, char *dst, const zp__gpu_csr *m, const ev_slice *x,
                        zp__gpu_csr *view, uint64_t *sent, bool copy)
{
    const uint64_t rps = m->rp64 ? 8 : 4;
    const char *rp = (const char *)m->row_ptr + x->r0 * rps;
    if (copy) {
        ZP_TRY(put(s, dst, x->o_rp, rp, (x->r1 - x->r0 + 1) * rps));
        ZP_TRY(put(s, dst, x->o_col, m->col + x->k0, 4 * (x->k1 - x->k0)));
        ZP_TRY(put(s, dst, x->o_code, m->code + x->k0, x->k1 - x->k0));
        if (x->w1 > x->w0) {
            ZP_TRY(put(s, dst, x->o_bits, m->esc_bits + x->w0, 8 * (x->w1 - x->w0)));
            ZP_TRY(put(s, dst, x->o_rank, m->esc_rank + x->w0, 8 * (x->w1 - x->w0)));
        }
        ZP_TRY(put(s, dst, x->o_esc, m->esc + x->e0, sizeof(zp_fr) * (x->e1 - x->e0)));
        ZP_TRY(put(s, dst, x->o_tab, m->tab, sizeof(zp_fr) * m->n_tab));
        ZP_TRY(put(s, dst, x->o_long, m->long_rows + x->l0, 8 * (x->l1 - x->l0)));
        *sent += x->bytes;
    }
    *view = *m;
    view->host = false;
    const uintptr_t d = (uintptr_t)dst;
    view->row_ptr = (void *)(d + x->o_rp - x->r0 * rps);
    view->col = (uint32_t *)(d + x->o_col - 4 * x->k0);
    view->code = (uint8_t *)(d + x->o_code - x->k0);
    view->esc_bits = m->n_esc ? (uint64_t *)(d + x->o_bits - 8 * x->w0) : NULL;
    view->esc_rank = m->n_esc ? (uint64_t *)(d + x->o_rank - 8 * x->w0) : NULL;
    view->esc = m->n_esc ? (zp_fr *)(d + x->o_esc - sizeof(zp_fr) * x->e0) : NULL;
    view->tab = (zp_fr *)(d + x->o_tab);
    view->long_rows = (uint64_t *)(d + x->o_long);
    view->n_long = x->l1 - x->l0;
    view->mem.ptr = NULL;
    view->mem.bytes = 0;
    return ZP_OK;
}

static uint64_t block_bytes(const zp__gpu_csr *A, const zp__gpu_csr *B, uint64_t r0, uint64_t r1)
{
    ev_slice a, b;
    slice_of(&a, A, r0, r1);
    slice_of(&b, B, r0, r1);
    return a.bytes + b.bytes;
}

/* The end of the block of rows from r0 that fills a buffer the most (r0
 * when not even one row fits). */
static uint64_t block_end(const zp__gpu_csr *A, const zp__gpu_csr *B, uint64_t r0,
                          uint64_t n_out, uint64_t buffer)
{
    uint64_t lo = r0, hi = n_out; /* lo fits (or is r0), hi is the most */
    if (block_bytes(A, B, r0, hi) <= buffer)
        return hi;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (block_bytes(A, B, r0, mid) <= buffer)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Enqueues the copy of rows [r0, r1) of A and B into buffer dst on s (no
 * copy where !copy: the views only). */
static zp_err block_put(zp__gpu_stream *s, char *dst, const zp__gpu_csr *A, const zp__gpu_csr *B,
                        uint64_t r0, uint64_t r1, zp__gpu_csr *va, zp__gpu_csr *vb,
                        uint64_t *sent, bool copy = true)
{
    ev_slice a, b;
    slice_of(&a, A, r0, r1);
    slice_of(&b, B, r0, r1);
    ZP_TRY(slice_put(s, dst, A, &a, va, sent, copy));
    return slice_put(s, dst + a.bytes, B, &b, vb, sent, copy);
}

/* The bytes of rows [r0, n_out) in pieces of at most `piece` bytes
 * (UINT64_MAX where a row does not fit one). */
static uint64_t low_bytes(const zp__gpu_csr *A, const zp__gpu_csr *B, uint64_t r0,
                          uint64_t n_out, uint64_t piece)
{
    uint64_t bytes = 0;
    for (uint64_t r = r0; r < n_out;) {
        const uint64_t r2 = block_end(A, B, r, n_out, piece);
        if (r2 == r)
            return UINT64_MAX;
        bytes += block_bytes(A, B, r, r2);
        r = r2;
    }
    return bytes;
}

extern "C" uint64_t zp__gpu_eval_low_rows(uint64_t room, uint64_t piece, uint64_t n_out,
                                          const zp__gpu_csr *A, const zp__gpu_csr *B)
{
    /* Fits at r: fewer bytes the higher r, more room below it: the least
     * r that fits by bisection (n_out always fits: no rows). */
    uint64_t lo = 0, hi = n_out;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        const uint64_t b = low_bytes(A, B, mid, n_out, piece);
        if (b <= room && b <= sizeof(zp_fr) * mid)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

extern "C" zp_err zp__gpu_eval_low_put(zp__gpu_stream *st, zp__gpu_eval_low *lo, uint64_t room,
                                       uint64_t n_out, const zp__gpu_csr *A,
                                       const zp__gpu_csr *B, uint64_t *sent)
{
    zp__gpu *g = st->g;
    if (!A->host || !B->host || !lo->base || lo->r < lo->r_lo)
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    while (lo->r < n_out) {
        const uint64_t r2 = block_end(A, B, lo->r, n_out, lo->piece);
        if (r2 == lo->r)
            return ZP_E_GPU_OOM;
        const uint64_t bytes = block_bytes(A, B, lo->r, r2);
        if (lo->off + bytes > room)
            break;
        zp__gpu_csr va, vb;
        ZP_TRY(block_put(st, (char *)lo->base + lo->off, A, B, lo->r, r2, &va, &vb, sent));
        lo->off += bytes;
        lo->r = r2;
    }
    return ZP_OK;
}

extern "C" zp_err zp__gpu_eval_ring_first(zp__gpu_stream *ring_stream, void *ring,
                                          uint64_t buffer, unsigned first, uint64_t end,
                                          const zp__gpu_csr *A, const zp__gpu_csr *B,
                                          uint64_t *sent)
{
    if (end == 0)
        return ZP_OK;
    if (!ring || !A->host || !B->host || !ring_stream || first > 1)
        return ZP_E_INVALID_ARG;
    zp__gpu *g = ring_stream->g;
    ZP_CUDA(cudaSetDevice(g->device));
    const uint64_t r1 = block_end(A, B, 0, end, buffer);
    if (r1 == 0)
        return ZP_E_GPU_OOM;
    zp__gpu_csr va, vb;
    return block_put(ring_stream, (char *)ring + first * buffer, A, B, 0, r1, &va, &vb, sent);
}

extern "C" zp_err zp__gpu_eval_ab_ring(zp__gpu_stream *s, zp__gpu_stream *ring_stream,
                                       void *ring, uint64_t buffer, int pre,
                                       const zp__gpu_eval_low *lo, zp_fr *d_a, zp_fr *d_b,
                                       uint64_t n_out, const zp__gpu_csr *A,
                                       const zp__gpu_csr *B, const zp_fr *d_w, uint64_t *sent)
{
    zp__gpu *g = s->g;
    if (n_out == 0)
        return ZP_OK;
    if (!d_a || !d_b || !d_w || !ring || !A->host || !B->host || !ring_stream || pre > 1 ||
        (lo && (lo->r != n_out || lo->r_lo > n_out || lo->base != (void *)d_a)))
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    const uint64_t end = lo ? lo->r_lo : n_out; /* the rows the ring's blocks cover */
    if (lo && lo->r_lo < n_out) {
        /* The rows sent ahead first: they lie in a below its row r_lo,
         * which the blocks after them write. */
        if (low_bytes(A, B, lo->r_lo, n_out, lo->piece) > sizeof(zp_fr) * lo->r_lo)
            return ZP_E_INVALID_ARG;
        ZP_TRY(zp__gpu_stream_after(s, ring_stream));
        uint64_t off = 0, none = 0;
        for (uint64_t r = lo->r_lo; r < n_out;) {
            const uint64_t r2 = block_end(A, B, r, n_out, lo->piece);
            zp__gpu_csr pa, pb;
            ZP_TRY(block_put(s, (char *)lo->base + off, A, B, r, r2, &pa, &pb, &none, false));
            ZP_TRY(eval_rows(s, (fr_t *)d_a, (fr_t *)d_b, NULL, r, r2, n_out, &pa, &pb,
                             (const fr_t *)d_w));
            off += block_bytes(A, B, r, r2);
            r = r2;
        }
    }
    if (end == 0)
        return ZP_OK;
    const unsigned b0 = pre > 0 ? 1u : 0u; /* the first block's buffer */
    char *buf[2] = {(char *)ring, (char *)ring + buffer};
    zp__gpu_csr va[2], vb[2];
    uint64_t r0 = 0, r1 = block_end(A, B, 0, end, buffer);
    if (r1 == r0)
        return ZP_E_GPU_OOM;
    /* The ring's buffers are free: whatever read them before waited for s.
     * A first block sent ahead (zp__gpu_eval_ring_first) is on
     * ring_stream already: only its views are made. */
    if (pre < 0)
        ZP_TRY(zp__gpu_stream_after(ring_stream, s));
    ZP_TRY(block_put(ring_stream, buf[b0], A, B, r0, r1, &va[b0], &vb[b0], sent, pre < 0));
    for (unsigned b = b0; r0 < end; b ^= 1) {
        ZP_TRY(zp__gpu_stream_after(s, ring_stream)); /* this block's copy */
        const uint64_t r2 = r1 < end ? block_end(A, B, r1, end, buffer) : r1;
        if (r1 < end && r2 == r1)
            return ZP_E_GPU_OOM;
        if (r1 < end) {
            /* The other buffer, once the block before has been evaluated;
             * for the second block it is free already (no eval has read
             * it, and what else did has returned), so its copy does not
             * wait for the witness that s waits for. */
            if (r0)
                ZP_TRY(zp__gpu_stream_after(ring_stream, s));
            ZP_TRY(block_put(ring_stream, buf[b ^ 1], A, B, r1, r2, &va[b ^ 1], &vb[b ^ 1], sent));
        }
        ZP_TRY(eval_rows(s, (fr_t *)d_a, (fr_t *)d_b, NULL, r0, r1, n_out, &va[b], &vb[b],
                         (const fr_t *)d_w));
        r0 = r1;
        r1 = r2;
    }
    return ZP_OK;
}
