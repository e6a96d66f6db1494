/*
 * GPU R1CS evaluation (a = A w, b = B w, c = a∘b) against the host's
 * zp__csr_mul_vec, on random CSR matrices whose coefficients mix 1, -1,
 * zero, small and random values, with empty and long rows, and more output
 * rows than matrix rows (those must come out zero). Also the validation of
 * zp__gpu_csr_upload.
 */
#include "gpu_test.h"

static void random_csr(zp__csr *m, uint64_t nrows, uint64_t ncols)
{
    m->nrows = nrows;
    m->row_ptr = xmalloc((nrows + 1) * sizeof *m->row_ptr);
    uint64_t cap = nrows * 4 + 200, nnz = 0;
    m->col = xmalloc(cap * sizeof *m->col);
    m->val = xmalloc(cap * sizeof *m->val);
    zp_fr one, m1;
    zp_fr_one(&one);
    zp_fr_neg(&m1, &one);
    for (uint64_t i = 0; i < nrows; i++) {
        m->row_ptr[i] = nnz;
        unsigned len = (unsigned)(check_rand64() % 6); /* 0..5 entries */
        if (i == nrows / 2)
            len = 150; /* one long row */
        for (unsigned k = 0; k < len && nnz < cap; k++, nnz++) {
            m->col[nnz] = (uint32_t)(check_rand64() % ncols);
            unsigned r = (unsigned)(check_rand64() % 10);
            if (r < 4) m->val[nnz] = one;
            else if (r < 6) m->val[nnz] = m1;
            else if (r < 7) zp_fr_zero(&m->val[nnz]);
            else if (r < 8) zp_fr_from_u64(&m->val[nnz], 2 + r);
            else rand_fr_mont(&m->val[nnz]);
        }
    }
    m->row_ptr[nrows] = nnz;
    m->nnz = nnz;
}

static void free_csr(zp__csr *m)
{
    free(m->row_ptr);
    free(m->col);
    free(m->val);
}

static void run_case(uint64_t rows_a, uint64_t rows_b, uint64_t n_out, uint64_t ncols)
{
    zp__csr A, B;
    random_csr(&A, rows_a, ncols);
    random_csr(&B, rows_b, ncols);
    zp_fr *w = xmalloc(ncols * sizeof *w);
    for (uint64_t j = 0; j < ncols; j++)
        rand_fr_mont(&w[j]);
    zp_fr_one(&w[0]);

    zp__gpu_csr dA, dB;
    GPU_OK(zp__gpu_csr_upload(T_s, &dA, &A, ncols));
    GPU_OK(zp__gpu_csr_upload(T_s, &dB, &B, ncols));
    zp__gpu_buf dw = gpu_test_alloc(ncols * sizeof *w), dabc = gpu_test_alloc(3 * n_out * sizeof *w);
    zp_fr *da = dabc.ptr;
    GPU_OK(zp__gpu_upload(T_s, dw.ptr, w, ncols * sizeof *w));
    /* poison the outputs: every element must be written */
    zp_fr *h = xmalloc(3 * n_out * sizeof *h);
    memset(h, 0xa5, 3 * n_out * sizeof *h);
    GPU_OK(zp__gpu_upload(T_s, da, h, 3 * n_out * sizeof *h));
    GPU_OK(zp__gpu_eval_abc(T_s, da, da + n_out, da + 2 * n_out, n_out, &dA, &dB, dw.ptr));
    GPU_OK(zp__gpu_download(T_s, h, da, 3 * n_out * sizeof *h));
    GPU_OK(zp__gpu_stream_sync(T_s));

    zp_fr *ra = xmalloc(n_out * sizeof *ra), *rb = xmalloc(n_out * sizeof *rb);
    memset(ra, 0, n_out * sizeof *ra);
    memset(rb, 0, n_out * sizeof *rb);
    zp__csr_mul_vec(ra, &A, w);
    zp__csr_mul_vec(rb, &B, w);
    int bad = 0;
    for (uint64_t i = 0; i < n_out; i++) {
        zp_fr c;
        zp_fr_mul(&c, &ra[i], &rb[i]);
        bad += !zp_fr_eq(&h[i], &ra[i]) + !zp_fr_eq(&h[n_out + i], &rb[i]) +
               !zp_fr_eq(&h[2 * n_out + i], &c);
    }
    CHECK_EQ_INT(bad, 0);
    printf("  rows %llu/%llu out %llu vars %llu nnz %llu/%llu: %s\n", (unsigned long long)rows_a,
           (unsigned long long)rows_b, (unsigned long long)n_out, (unsigned long long)ncols,
           (unsigned long long)A.nnz, (unsigned long long)B.nnz, bad ? "WRONG" : "ok");

    zp__gpu_csr_free(T_gpu, &dA);
    zp__gpu_csr_free(T_gpu, &dB);
    zp__gpu_free(T_gpu, &dw);
    zp__gpu_free(T_gpu, &dabc);
    free_csr(&A);
    free_csr(&B);
    free(w);
    free(h);
    free(ra);
    free(rb);
}

static void test_eval(void)
{
    run_case(1, 1, 1, 2);
    run_case(100, 37, 128, 50);
    run_case(1000, 1000, 1024, 3000);
    if (!T_small)
        run_case(300000, 250000, 1u << 19, 200000);
}

static void test_upload_validation(void)
{
    zp__csr m;
    random_csr(&m, 50, 20);
    zp__gpu_csr d;
    m.col[0] = 19;
    CHECK_EQ_INT(zp__gpu_csr_upload(T_s, &d, &m, 19), ZP_E_FORMAT);
    m.col[0] = 20;
    CHECK_EQ_INT(zp__gpu_csr_upload(T_s, &d, &m, 20), ZP_E_FORMAT);
    m.col[0] = 0;
    m.row_ptr[m.nrows] += 1; /* does not end at nnz */
    CHECK_EQ_INT(zp__gpu_csr_upload(T_s, &d, &m, 20), ZP_E_FORMAT);
    m.row_ptr[m.nrows] -= 1;
    CHECK_EQ_INT(zp__gpu_csr_upload(T_s, &d, &m, 20), ZP_OK);
    zp__gpu_csr_free(T_gpu, &d);
    free_csr(&m);
}

int main(int argc, char **argv)
{
    gpu_test_open(argc, argv, 1);
    RUN(test_eval);
    RUN(test_upload_validation);
    gpu_test_close();
    return FINISH();
}
