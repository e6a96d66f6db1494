/*
 * The NTT's root tables, built once when a GPU opens: the two 2^14-entry
 * power tables per root and direction, the one-load twist tables (TW_LOG)
 * and the stage roots with their Shoup companions. Included by ntt.cu only
 * (after its kernels, TW_EXTRA and SHOUP_TABLES).
 */
#ifndef ZP_GPU_NTT_TABLES_CUH
#define ZP_GPU_NTT_TABLES_CUH

/* lo[i] = pre * b^i, hi[i] = b^(i * 2^14), i < 2^14, on stream st. */
static zp_err pow_tables(zp__gpu *g, cudaStream_t st, fr_t *lo, fr_t *hi, const zp_fr *b,
                         const zp_fr *pre)
{
    zp_fr b14 = *b, one;
    zp_fr_one(&one);
    for (int i = 0; i < ZP__TAB_LOG; i++)
        zp_fr_sqr(&b14, &b14);
    pow_table_kernel<<<ZP__TAB_N / 128, 128, 0, st>>>(lo, to_dev(b), to_dev(pre), ZP__TAB_N);
    ZP_CUDA_LAUNCHED();
    pow_table_kernel<<<ZP__TAB_N / 128, 128, 0, st>>>(hi, to_dev(&b14), to_dev(&one), ZP__TAB_N);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

/* The one-load twist table of roots (c, d) after the 8 small tables. */
static const fr_t *tw_table(const zp__gpu *g, int c, int d)
{
    return (const fr_t *)g->tables.ptr + 8 * (size_t)ZP__TAB_N + (size_t)(2 * c + d) * TW_N;
}

/* The plain roots w_1024^i and their companions, i < SHOUP_N, for roots c
 * in direction d (after the one-load tables). */
static const fr_t *shoup_table(const zp__gpu *g, int c, int d)
{
    return (const fr_t *)g->tables.ptr + 8 * (size_t)ZP__TAB_N + TW_EXTRA +
           (size_t)(2 * c + d) * 2 * SHOUP_N;
}

/* Fills the four Shoup tables on the host (w of order 2^28 per c, d) and
 * sends them on st; *host is freed by the caller after st syncs. */
static zp_err shoup_tables(zp__gpu *g, cudaStream_t st, zp_fr w[2][2], zp_fr **host)
{
    zp_fr *h = (zp_fr *)malloc(SHOUP_TABLES * sizeof(zp_fr));
    if (!h)
        return ZP_E_NOMEM;
    uint32_t m[8];
    memcpy(m, ZP_FR_MODULUS.l, sizeof m);
    for (int c = 0; c < 2; c++)
        for (int d = 0; d < 2; d++) {
            zp_fr *t = h + (2 * c + d) * 2 * SHOUP_N, w10 = w[c][d], p;
            for (int i = 0; i < 18; i++)
                zp_fr_sqr(&w10, &w10);
            zp_fr_one(&p);
            for (unsigned i = 0; i < SHOUP_N; i++) {
                zp_fr_from_mont(&t[i], &p);
                uint32_t pl[8], cp[8];
                memcpy(pl, t[i].l, sizeof pl);
                zp__shoup_companion(cp, pl, m);
                memcpy(t[SHOUP_N + i].l, cp, sizeof cp);
                zp_fr_mul(&p, &p, &w10);
            }
        }
    *host = h;
    ZP_CUDA(cudaMemcpyAsync((void *)shoup_table(g, 0, 0), h, SHOUP_TABLES * sizeof(fr_t),
                            cudaMemcpyHostToDevice, st));
    return ZP_OK;
}

zp_err zp__gpu_ntt_tables_build(zp__gpu *g)
{
    if (!g->ntt_tile_log)
        g->ntt_tile_log = tile_log_for(&g->prop);
    ZP_TRY(zp__gpu_alloc(g, &g->tables,
                         (8 * (uint64_t)ZP__TAB_N + TW_EXTRA + SHOUP_TABLES) * sizeof(fr_t)));
    /* The most a pass takes at either tile: 72 KiB, within every
     * supported GPU's 99 KiB a block. */
    const int most = (int)pass_shared(SHTW_MAX_K, 1u << TILE_LOG);
    for (unsigned v = 0; v < NTT_PASS_INSTANCES; v++)
        ZP_CUDA(cudaFuncSetAttribute(pass_kernel_at(v), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     most));
    cudaStream_t st;
    ZP_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    zp_err err = ZP_OK;
    fr_t *t = (fr_t *)g->tables.ptr;
    zp_fr one;
    zp_fr_one(&one);
    zp_fr roots[2][2], *host = NULL;
    for (int c = 0; c < 2 && !err; c++) {
        zp_fr *w = roots[c];
        zp_fr_root_of_unity(&w[0], 28, c ? ZP_ROOTS_BELLPERSON : ZP_ROOTS_SNARKJS);
        zp_fr_inv(&w[1], &w[0]);
        for (int d = 0; d < 2 && !err; d++) {
            fr_t *lo = t + (size_t)(4 * c + 2 * d) * ZP__TAB_N, *hi = lo + ZP__TAB_N;
            g->root_lo[c][d] = lo;
            g->root_hi[c][d] = hi;
            err = pow_tables(g, st, lo, hi, &w[d], &one);
            zp_fr w10 = w[d];
            for (int i = 0; i < 28 - TW_LOG; i++)
                zp_fr_sqr(&w10, &w10);
            if (!err) {
                pow_table_kernel<<<TW_N / 128, 128, 0, st>>>((fr_t *)tw_table(g, c, d),
                                                             to_dev(&w10), to_dev(&one), TW_N);
                ZP_CUDA_LAUNCHED();
            }
        }
    }
    if (!err)
        err = shoup_tables(g, st, roots, &host);
    cudaError_t e = cudaStreamSynchronize(st);
    cudaStreamDestroy(st);
    free(host);
    if (!err && e != cudaSuccess)
        err = zp__gpu_fail(g, e, __FILE__, __LINE__, "ntt tables");
    return err;
}

#endif
