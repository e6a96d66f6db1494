/*
 * Full twist tables, included by ntt.cu only (at its end: it uses
 * pow_tab_full, pass_geometry, fold_ninv and ninv_of).
 *
 * A transform's first pass (k bits, m = log2n - k > 0) twists element i
 * (row p = i >> m, column L = i mod 2^m) by w^E, E = L * rev_k(p) scaled to
 * w of order 2^28. For log2n <= TW_LOG that is one load from the 2^18-entry
 * table; beyond it the pass forms w^E as lo[E mod 2^14] * hi[E >> 14], one
 * product an element more. These tables hold w^E at index i itself:
 * 2^log2n values for the forward root, then 2^log2n for the inverse times
 * n^-1 (the factor the inverse folds into that twist), so the pass reads
 * its factors in the order it reads its data. 8 GiB at 2^27: resident with
 * a key (prove_gpu_key.c), not made per transform.
 */
#ifndef ZP_GPU_NTT_TWIST_CUH
#define ZP_GPU_NTT_TWIST_CUH

static_assert(ZP_GPU_NTT_TWIST_FROM == TW_LOG + 1, "gpu.h's twist threshold is TW_LOG + 1");

/* t[i] = lo[E mod 2^14] * hi[E >> 14], E the first-pass twist exponent of
 * element i (k bits, m columns' bits), as twist() forms it from nlo or
 * pow_tab (whose entry 0 is one). */
static __global__ void twist_table_kernel(fr_t *t, const fr_t *lo, const fr_t *hi, unsigned k,
                                          unsigned m)
{
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >> (k + m))
        return;
    const uint32_t p = (uint32_t)(i >> m), L = (uint32_t)i & ((1u << m) - 1);
    const uint32_t E = (L * (__brev(p) >> (32 - k))) << (28 - (k + m));
    fr_store(t + i, pow_tab_full(lo, hi, E));
}

/* Both tables into fwd (then fwd + 2^log2n) on s. */
static zp_err twist_fill(zp__gpu_stream *s, fr_t *fwd, unsigned log2n, zp_roots roots)
{
    zp__gpu *g = s->g;
    unsigned ks[4], ms[4];
    pass_geometry(log2n, ks, ms);
    const int ci = roots == ZP_ROOTS_BELLPERSON;
    const uint64_t n = (uint64_t)1 << log2n;
    const unsigned blocks = (unsigned)(n / 256);
    twist_table_kernel<<<blocks, 256, 0, s->st>>>(fwd, g->root_lo[ci][0], g->root_hi[ci][0],
                                                  ks[0], ms[0]);
    ZP_CUDA_LAUNCHED();
    /* The inverse's lo table times n^-1, as fold_ninv makes it per transform. */
    zp_fr ninv;
    ninv_of(&ninv, log2n);
    fr_t *nlo = scratch_of(s).nlo;
    bool folded;
    ZP_TRY(fold_ninv(s, nlo, log2n, roots, &ninv, &folded));
    if (!folded) /* cannot happen: the tables start above PASS_MAX_BITS */
        return ZP_E_UNSUPPORTED;
    twist_table_kernel<<<blocks, 256, 0, s->st>>>(fwd + n, nlo, g->root_hi[ci][1], ks[0],
                                                  ms[0]);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

extern "C" zp_err zp__gpu_ntt_twist_build(zp__gpu_stream *s, zp__gpu_twist *t, unsigned log2n,
                                          zp_roots roots)
{
    zp__gpu *g = s->g;
    memset(t, 0, sizeof *t);
    const uint64_t bytes = zp__gpu_ntt_twist_bytes(log2n);
    if (!bytes)
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    ZP_TRY(zp__gpu_alloc(g, &t->mem, bytes));
    zp_err e = twist_fill(s, (fr_t *)t->mem.ptr, log2n, roots);
    if (e) {
        zp__gpu_free(g, &t->mem);
        return e;
    }
    t->log2n = log2n;
    t->roots = roots;
    return ZP_OK;
}

extern "C" void zp__gpu_ntt_twist_free(zp__gpu *g, zp__gpu_twist *t)
{
    if (t->mem.ptr)
        zp__gpu_free(g, &t->mem);
    memset(t, 0, sizeof *t);
}

extern "C" void zp__gpu_stream_set_twist(zp__gpu_stream *s, const zp__gpu_twist *t)
{
    s->twist = t;
}

#endif
