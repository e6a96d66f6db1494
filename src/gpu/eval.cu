/*
 * R1CS evaluation on the GPU: a = A w, b = B w from CSR matrices, c = a∘b.
 * One thread per row: rows of these circuits hold a few entries on average
 * (PoRep: about 2.4 in A and 1 in B), and coefficients 1 and -1, the common
 * ones, are added or subtracted without a product.
 */
#include "gpu/ctx.cuh"

static __device__ __forceinline__ fr_t row_dot(const uint64_t *row_ptr, const uint32_t *col,
                                               const fr_t *val, const fr_t *w, uint64_t row)
{
    fr_t acc = fr_zero(), one = fr_one(), m1 = fr_neg(fr_one());
    for (uint64_t k = row_ptr[row], e = row_ptr[row + 1]; k < e; k++) {
        fr_t v = fr_load(val + k), x = fr_load(w + col[k]);
        if (fr_eq(v, one))
            acc = fr_add(acc, x);
        else if (fr_eq(v, m1))
            acc = fr_sub(acc, x);
        else
            acc = fr_add(acc, fr_mul(v, x));
    }
    return acc;
}

static __global__ void eval_kernel(fr_t *a, fr_t *b, fr_t *c, uint64_t n_out,
                                   zp__gpu_csr A, zp__gpu_csr B, const fr_t *w)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_out)
        return;
    fr_t x = i < A.nrows ? row_dot(A.row_ptr, A.col, (const fr_t *)A.val, w, i) : fr_zero();
    fr_t y = i < B.nrows ? row_dot(B.row_ptr, B.col, (const fr_t *)B.val, w, i) : fr_zero();
    fr_store(a + i, x);
    fr_store(b + i, y);
    fr_store(c + i, fr_mul(x, y));
}

extern "C" zp_err zp__gpu_eval_abc(zp__gpu_stream *s, zp_fr *d_a, zp_fr *d_b, zp_fr *d_c,
                                   uint64_t n_out, const zp__gpu_csr *A, const zp__gpu_csr *B,
                                   const zp_fr *d_w)
{
    zp__gpu *g = s->g;
    if (n_out == 0)
        return ZP_OK;
    if (!d_a || !d_b || !d_c || !d_w)
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    eval_kernel<<<zp__ceil_div_u(n_out, 128), 128, 0, s->st>>>(
        (fr_t *)d_a, (fr_t *)d_b, (fr_t *)d_c, n_out, *A, *B, (const fr_t *)d_w);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

/* Checks the structure the kernel relies on: it reads no bounds itself. */
static zp_err csr_validate(const zp__csr *m, uint64_t ncols)
{
    if (m->nrows && !m->row_ptr)
        return ZP_E_INVALID_ARG;
    if (m->nrows == 0)
        return ZP_OK;
    if (m->row_ptr[0] != 0 || m->row_ptr[m->nrows] != m->nnz)
        return ZP_E_FORMAT;
    for (uint64_t i = 0; i < m->nrows; i++)
        if (m->row_ptr[i + 1] < m->row_ptr[i])
            return ZP_E_FORMAT;
    for (uint64_t k = 0; k < m->nnz; k++)
        if (m->col[k] >= ncols)
            return ZP_E_FORMAT;
    return ZP_OK;
}

extern "C" zp_err zp__gpu_csr_upload(zp__gpu_stream *s, zp__gpu_csr *out, const zp__csr *m,
                                     uint64_t ncols)
{
    zp__gpu *g = s->g;
    memset(out, 0, sizeof *out);
    ZP_TRY(csr_validate(m, ncols));
    uint64_t rp = 8 * (m->nrows + 1), cb = 4 * m->nnz, vb = sizeof(zp_fr) * m->nnz;
    uint64_t o_col = (rp + 255) & ~(uint64_t)255, o_val = (o_col + cb + 255) & ~(uint64_t)255;
    ZP_TRY(zp__gpu_alloc(g, &out->mem, o_val + vb));
    char *base = (char *)out->mem.ptr;
    out->nrows = m->nrows;
    out->nnz = m->nnz;
    out->row_ptr = (uint64_t *)base;
    out->col = (uint32_t *)(base + o_col);
    out->val = (zp_fr *)(base + o_val);
    zp_err err = ZP_OK;
    if (m->nrows) {
        err = zp__gpu_upload(s, out->row_ptr, m->row_ptr, rp);
        if (!err && cb)
            err = zp__gpu_upload(s, out->col, m->col, cb);
        if (!err && vb)
            err = zp__gpu_upload(s, out->val, m->val, vb);
    } else {
        uint64_t zero = 0;
        err = zp__gpu_upload(s, out->row_ptr, &zero, 8);
    }
    if (!err)
        err = zp__gpu_stream_sync(s);
    if (err)
        zp__gpu_csr_free(g, out);
    return err;
}

extern "C" void zp__gpu_csr_free(zp__gpu *g, zp__gpu_csr *m)
{
    zp__gpu_free(g, &m->mem);
    memset(m, 0, sizeof *m);
}
