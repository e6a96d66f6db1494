/*
 * Built instead of the CUDA backend when nvcc is absent: every entry point
 * of gpu.h exists and reports that there is no GPU, so callers need no
 * #ifdef and the CPU backend takes over.
 */
#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"

int zp__gpu_count(void) { return 0; }
bool zp__gpu_compiled(void) { return false; }
const char *zp__gpu_last_error(void) { return "built without CUDA"; }
void zp__gpu_cuda_versions(int *driver, int *runtime) { *driver = *runtime = 0; }

zp_err zp__gpu_device_check(int device, char *text, size_t len)
{
    (void)device;
    if (len)
        snprintf(text, len, "built without CUDA");
    return ZP_E_NO_GPU;
}

void zp__gpu_config_default(zp__gpu_config *c)
{
    c->device = 0;
    c->arena_bytes = 0;
    c->reserve_bytes = ZP__GPU_RESERVE_BYTES;
    zp__gpu_msm_opts_default(&c->msm);
    c->ntt_tile_log = 0;
}

zp_err zp__gpu_open(zp__gpu **out, const zp__gpu_config *cfg)
{
    (void)cfg;
    *out = NULL;
    return ZP_E_NO_GPU;
}

void zp__gpu_close(zp__gpu *g) { (void)g; }
bool zp__gpu_healthy(const zp__gpu *g) { (void)g; return false; }
void zp__gpu_slots_add(zp__gpu *g, int d) { (void)g; (void)d; }
int zp__gpu_slots(zp__gpu *g) { (void)g; return 0; }
void zp__gpu_get_info(zp__gpu *g, zp__gpu_info *out) { (void)g; memset(out, 0, sizeof *out); }
zp_err zp__gpu_outside(zp__gpu *g, uint64_t *free_at_open, uint64_t *free_now)
{
    (void)g;
    *free_at_open = *free_now = 0;
    return ZP_E_NO_GPU;
}
void zp__gpu_get_msm_opts(const zp__gpu *g, zp__gpu_msm_opts *out)
{
    (void)g;
    zp__gpu_msm_opts_default(out);
}

zp_err zp__gpu_alloc(zp__gpu *g, zp__gpu_buf *out, uint64_t bytes)
{
    (void)g; (void)bytes;
    out->ptr = NULL;
    out->bytes = 0;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_alloc_high(zp__gpu *g, zp__gpu_buf *out, uint64_t bytes)
{
    return zp__gpu_alloc(g, out, bytes);
}

void zp__gpu_free(zp__gpu *g, zp__gpu_buf *buf) { (void)g; (void)buf; }

zp_err zp__gpu_stream_open(zp__gpu *g, zp__gpu_stream **out)
{
    (void)g;
    *out = NULL;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_stream_open_ranked(zp__gpu *g, zp__gpu_stream **out, unsigned rank)
{
    (void)rank;
    return zp__gpu_stream_open(g, out);
}

zp_err zp__gpu_stream_open_copy(zp__gpu *g, zp__gpu_stream **out)
{
    return zp__gpu_stream_open(g, out);
}

void zp__gpu_stream_close(zp__gpu_stream *s) { (void)s; }

int zp__gpu_stream_priority(const zp__gpu_stream *s)
{
    (void)s;
    return 0;
}
zp_err zp__gpu_stream_sync(zp__gpu_stream *s) { (void)s; return ZP_E_NO_GPU; }
zp_err zp__gpu_device_sync(zp__gpu *g) { (void)g; return ZP_E_NO_GPU; }
zp_err zp__gpu_stream_after(zp__gpu_stream *waiter, zp__gpu_stream *s)
{
    (void)waiter;
    (void)s;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_stream_mark(zp__gpu_stream *s)
{
    (void)s;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_stream_after_mark(zp__gpu_stream *waiter, zp__gpu_stream *s)
{
    (void)waiter;
    (void)s;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_stream_mark_sync(zp__gpu_stream *s)
{
    (void)s;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_stream_clock(zp__gpu_stream *s, unsigned which)
{
    (void)s;
    (void)which;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_stream_clock_ms(zp__gpu_stream *s, double *ms)
{
    (void)s;
    *ms = 0;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_upload(zp__gpu_stream *s, void *dev, const void *host, uint64_t bytes)
{
    (void)s; (void)dev; (void)host; (void)bytes;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_download(zp__gpu_stream *s, void *host, const void *dev, uint64_t bytes)
{
    (void)s; (void)dev; (void)host; (void)bytes;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_memset0(zp__gpu_stream *s, void *dev, uint64_t bytes)
{
    (void)s; (void)dev; (void)bytes;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_time_ms(zp__gpu_stream *s, zp_err (*fn)(void *ctx), void *ctx, float *ms)
{
    (void)s; (void)fn; (void)ctx;
    *ms = 0;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_ntt(zp__gpu_stream *s, zp_fr *d_a, unsigned log2n, bool inverse,
                   zp_roots roots, const zp_fr *coset)
{
    (void)s; (void)d_a; (void)log2n; (void)inverse; (void)roots; (void)coset;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_ntt_to_coset(zp__gpu_stream *s, zp_fr *d_a, unsigned log2n, zp_roots roots,
                            const zp_fr *shift)
{
    (void)s; (void)d_a; (void)log2n; (void)roots; (void)shift;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_ntt_to_coset_scaled(zp__gpu_stream *s, zp_fr *d_a, unsigned log2n,
                                   zp_roots roots, const zp_fr *shift, const zp_fr *scale)
{
    (void)s; (void)d_a; (void)log2n; (void)roots; (void)shift; (void)scale;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_ntt_to_coset_mul(zp__gpu_stream *s, zp_fr *d_a, unsigned log2n, zp_roots roots,
                                const zp_fr *shift, const zp_fr *d_mul)
{
    (void)s; (void)d_a; (void)log2n; (void)roots; (void)shift; (void)d_mul;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_ntt_coset_diff(zp__gpu_stream *s, zp_fr *d_a, zp_fr *d_c, unsigned log2n,
                              zp_roots roots, const zp_fr *shift, const zp_fr *scale)
{
    (void)s; (void)d_a; (void)d_c; (void)log2n; (void)roots; (void)shift; (void)scale;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_ntt_twist_build(zp__gpu_stream *s, zp__gpu_twist *t, unsigned log2n,
                               zp_roots roots)
{
    (void)s; (void)log2n; (void)roots;
    memset(t, 0, sizeof *t);
    return ZP_E_NO_GPU;
}

void zp__gpu_ntt_twist_free(zp__gpu *g, zp__gpu_twist *t)
{
    (void)g;
    memset(t, 0, sizeof *t);
}

void zp__gpu_stream_set_twist(zp__gpu_stream *s, const zp__gpu_twist *t) { (void)s; (void)t; }

zp_err zp__gpu_fr_mul_sub(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_a, const zp_fr *d_b,
                          const zp_fr *d_c, uint64_t n)
{
    (void)s; (void)d_out; (void)d_a; (void)d_b; (void)d_c; (void)n;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_fr_mul_sub_scale(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_a,
                                const zp_fr *d_b, const zp_fr *d_c, const zp_fr *scale,
                                uint64_t n)
{
    (void)s; (void)d_out; (void)d_a; (void)d_b; (void)d_c; (void)scale; (void)n;
    return ZP_E_NO_GPU;
}

uint64_t zp__gpu_msm_scratch_bytes(uint64_t n, bool g2) { (void)n; (void)g2; return 0; }
uint64_t zp__gpu_msm_scratch_bytes_pass(uint64_t n, bool g2, unsigned windows)
{
    (void)n;
    (void)g2;
    (void)windows;
    return 0;
}

unsigned zp__gpu_msm_pre_copies(unsigned c)
{
    (void)c;
    return 0;
}

zp_err zp__gpu_msm_g1_precompute(zp__gpu_stream *s, zp_g1_affine *d_table,
                                 const zp_g1_affine *d_points, uint64_t n, unsigned c)
{
    (void)s; (void)d_table; (void)d_points; (void)n; (void)c;
    return ZP_E_NO_GPU;
}

uint64_t zp__gpu_msm_scratch_bytes_pre(uint64_t n, unsigned c)
{
    (void)n;
    (void)c;
    return 0;
}

zp_err zp__gpu_msm_g1_pre(zp__gpu_stream *s, zp_g1_jac *out, const zp_g1_affine *d_table,
                          unsigned c, const zp_fr *d_scalars, uint64_t n, zp__gpu_buf scratch)
{
    (void)s; (void)d_table; (void)c; (void)d_scalars; (void)n; (void)scratch;
    zp_g1_jac_inf(out);
    return ZP_E_NO_GPU;
}

uint64_t zp__gpu_msm_scratch_bytes_nosplit(uint64_t n, bool g2, unsigned windows)
{
    return zp__gpu_msm_scratch_bytes_affine(n, g2, windows);
}

uint64_t zp__gpu_msm_scratch_bytes_affine(uint64_t n, bool g2, unsigned windows)
{
    (void)n;
    (void)g2;
    (void)windows;
    return 0;
}

uint64_t zp__gpu_msm_scratch_bytes_best(uint64_t n, bool g2)
{
    (void)n;
    (void)g2;
    return 0;
}

uint64_t zp__gpu_msm_scratch_bytes_opts(const zp__gpu_msm_opts *o, uint64_t n, bool g2,
                                        unsigned windows, bool best)
{
    (void)o; (void)n; (void)g2; (void)windows; (void)best;
    return 0;
}

uint64_t zp__gpu_msm_scratch_bytes_pre_opts(const zp__gpu_msm_opts *o, uint64_t n, unsigned c)
{
    (void)o; (void)n; (void)c;
    return 0;
}

uint64_t zp__gpu_msm_scratch_bytes_affine_opts(const zp__gpu_msm_opts *o, uint64_t n, bool g2,
                                               unsigned windows)
{
    (void)o; (void)n; (void)g2; (void)windows;
    return 0;
}

uint64_t zp__gpu_msm_scratch_bytes_nosplit_opts(const zp__gpu_msm_opts *o, uint64_t n, bool g2,
                                                unsigned windows)
{
    (void)o; (void)n; (void)g2; (void)windows;
    return 0;
}

zp_err zp__gpu_msm_g1(zp__gpu_stream *s, zp_g1_jac *out, const zp_g1_affine *d_points,
                      const zp_fr *d_scalars, uint64_t n, zp__gpu_buf scratch)
{
    (void)s; (void)d_points; (void)d_scalars; (void)n; (void)scratch;
    zp_g1_jac_inf(out);
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_msm_g1_nosplit(zp__gpu_stream *s, zp_g1_jac *out, const zp_g1_affine *d_points,
                              const zp_fr *d_scalars, uint64_t n, zp__gpu_buf scratch)
{
    (void)s; (void)d_points; (void)d_scalars; (void)n; (void)scratch;
    zp_g1_jac_inf(out);
    return ZP_E_NO_GPU;
}

unsigned zp__gpu_msm_acc_window(uint64_t total)
{
    (void)total;
    return 0;
}

uint64_t zp__gpu_msm_acc_bytes(unsigned c)
{
    (void)c;
    return 0;
}

uint64_t zp__gpu_msm_acc_scratch_bytes(uint64_t n, unsigned c)
{
    (void)n;
    (void)c;
    return 0;
}

uint64_t zp__gpu_msm_acc_affine_scratch_bytes_opts(const zp__gpu_msm_opts *o, uint64_t n,
                                                   unsigned c, unsigned passes)
{
    (void)o;
    (void)passes;
    return zp__gpu_msm_acc_scratch_bytes(n, c);
}

uint64_t zp__gpu_msm_acc_scratch_bytes_opts(const zp__gpu_msm_opts *o, uint64_t n, unsigned c,
                                            unsigned windows)
{
    (void)o;
    (void)windows;
    return zp__gpu_msm_acc_scratch_bytes(n, c);
}

zp_err zp__gpu_msm_g1_acc_begin(zp__gpu_msm_acc *acc, zp__gpu_buf buckets, unsigned c)
{
    (void)buckets;
    (void)c;
    memset(acc, 0, sizeof *acc);
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_msm_g1_acc_add(zp__gpu_stream *s, zp__gpu_msm_acc *acc,
                              const zp_g1_affine *d_points, const zp_fr *d_scalars, uint64_t n,
                              zp__gpu_buf scratch)
{
    (void)s; (void)acc; (void)d_points; (void)d_scalars; (void)n; (void)scratch;
    return ZP_E_NO_GPU;
}

uint64_t zp__gpu_msm_acc_split_scratch_bytes(uint64_t n, unsigned c, unsigned windows)
{
    (void)n;
    (void)c;
    (void)windows;
    return 0;
}

uint64_t zp__gpu_msm_acc_split_scratch_bytes_opts(const zp__gpu_msm_opts *o, uint64_t n,
                                                  unsigned c, unsigned windows)
{
    (void)o;
    return zp__gpu_msm_acc_split_scratch_bytes(n, c, windows);
}

zp_err zp__gpu_msm_g1_acc_add_split(zp__gpu_stream *s, zp__gpu_msm_acc *acc,
                                    const zp_g1_affine *d_points, const zp_fr *d_scalars,
                                    uint64_t n, zp__gpu_buf scratch, zp_g1_jac *ones)
{
    (void)s; (void)acc; (void)d_points; (void)d_scalars; (void)n; (void)scratch;
    zp_g1_jac_inf(ones);
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_msm_g1_acc_add_w(zp__gpu_stream *s, zp__gpu_msm_acc *acc,
                                const zp_g1_affine *d_points, const zp__gpu_wsc *sc, uint64_t n,
                                zp__gpu_buf scratch, zp_g1_jac *ones)
{
    (void)s; (void)acc; (void)d_points; (void)sc; (void)n; (void)scratch;
    zp_g1_jac_inf(ones);
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_msm_g1_acc_end(zp__gpu_stream *s, zp__gpu_msm_acc *acc, zp_g1_jac *out,
                              zp__gpu_buf scratch)
{
    (void)s; (void)acc; (void)scratch;
    zp_g1_jac_inf(out);
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_msm_g2(zp__gpu_stream *s, zp_g2_jac *out, const zp_g2_affine *d_points,
                      const zp_fr *d_scalars, uint64_t n, zp__gpu_buf scratch)
{
    (void)s; (void)d_points; (void)d_scalars; (void)n; (void)scratch;
    zp_g2_jac_inf(out);
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_msm_g1_w(zp__gpu_stream *s, zp_g1_jac *out, const zp_g1_affine *d_points,
                        const zp__gpu_wsc *sc, uint64_t n, zp__gpu_buf scratch)
{
    (void)s; (void)d_points; (void)sc; (void)n; (void)scratch;
    zp_g1_jac_inf(out);
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_msm_g2_w(zp__gpu_stream *s, zp_g2_jac *out, const zp_g2_affine *d_points,
                        const zp__gpu_wsc *sc, uint64_t n, zp__gpu_buf scratch)
{
    (void)s; (void)d_points; (void)sc; (void)n; (void)scratch;
    zp_g2_jac_inf(out);
    return ZP_E_NO_GPU;
}

void zp__gpu_msm_last_split(const zp__gpu_stream *s, uint64_t *zeros, uint64_t *ones,
                            uint64_t *dense)
{
    (void)s;
    *zeros = *ones = *dense = 0;
}

void zp__gpu_msm_last_passes(const zp__gpu_stream *s, unsigned *windows, unsigned *per_pass)
{
    (void)s;
    *windows = *per_pass = 0;
}

bool zp__gpu_msm_last_affine(const zp__gpu_stream *s)
{
    (void)s;
    return false;
}

bool zp__gpu_msm_last_ones_affine(const zp__gpu_stream *s)
{
    (void)s;
    return false;
}

unsigned zp__gpu_msm_window(uint64_t m, bool g2, bool affine)
{
    (void)m;
    (void)g2;
    (void)affine;
    return 0;
}

bool zp__gpu_msm_temp_bounds_hold(uint64_t m, unsigned c)
{
    (void)m;
    (void)c;
    return false;
}

unsigned zp__gpu_msm_last_affine_rounds(const zp__gpu_stream *s)
{
    (void)s;
    return 0;
}

unsigned zp__gpu_msm_last_sort_bits(const zp__gpu_stream *s, unsigned *c)
{
    (void)s;
    *c = 0;
    return 0;
}

void zp__gpu_stream_profile(zp__gpu_stream *s, bool on) { (void)s; (void)on; }

void zp__gpu_msm_last_phases(const zp__gpu_stream *s, zp__gpu_msm_phases *out)
{
    (void)s;
    memset(out, 0, sizeof *out);
}

void zp__gpu_ntt_last_paths(const zp__gpu_stream *s, zp__gpu_ntt_paths *out)
{
    (void)s;
    memset(out, 0, sizeof *out);
}

void zp__gpu_ntt_last_phases(zp__gpu_stream *s, zp__gpu_ntt_phases *out)
{
    (void)s;
    memset(out, 0, sizeof *out);
}

/* zp__gpu_csr_bytes: the key's device size is planned in both builds, and
 * this build compiles no other file of src/gpu. */
#include "gpu/eval_plan.c"

zp_err zp__gpu_csr_upload(zp__gpu_stream *s, zp__gpu_csr *out, const zp__csr *m,
                          uint64_t ncols)
{
    (void)s; (void)m; (void)ncols;
    memset(out, 0, sizeof *out);
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_csr_pin(zp__gpu *g, zp__gpu_csr *out, const zp__csr *m, uint64_t ncols)
{
    (void)g; (void)m; (void)ncols;
    memset(out, 0, sizeof *out);
    return ZP_E_NO_GPU;
}

void zp__gpu_csr_free(zp__gpu *g, zp__gpu_csr *m) { (void)g; memset(m, 0, sizeof *m); }

zp_err zp__gpu_eval_ab(zp__gpu_stream *s, zp_fr *d_a, zp_fr *d_b, uint64_t n_out,
                       const zp__gpu_csr *A, const zp__gpu_csr *B, const zp_fr *d_w)
{
    (void)s; (void)d_a; (void)d_b; (void)n_out; (void)A; (void)B; (void)d_w;
    return ZP_E_NO_GPU;
}

uint64_t zp__gpu_eval_low_rows(uint64_t room, uint64_t piece, uint64_t n_out,
                               const zp__gpu_csr *A, const zp__gpu_csr *B)
{
    (void)room; (void)piece; (void)A; (void)B;
    return n_out;
}

zp_err zp__gpu_eval_low_put(zp__gpu_stream *st, zp__gpu_eval_low *lo, uint64_t room,
                            uint64_t n_out, const zp__gpu_csr *A, const zp__gpu_csr *B,
                            uint64_t *sent)
{
    (void)st; (void)lo; (void)room; (void)n_out; (void)A; (void)B; (void)sent;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_eval_ab_ring(zp__gpu_stream *s, zp__gpu_stream *ring_stream, void *ring,
                            uint64_t buffer, int pre, const zp__gpu_eval_low *lo, zp_fr *d_a,
                            zp_fr *d_b, uint64_t n_out, const zp__gpu_csr *A,
                            const zp__gpu_csr *B, const zp_fr *d_w, uint64_t *sent)
{
    (void)s; (void)ring_stream; (void)ring; (void)buffer; (void)pre; (void)lo; (void)d_a;
    (void)d_b; (void)n_out; (void)A; (void)B; (void)d_w; (void)sent;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_eval_ring_first(zp__gpu_stream *ring_stream, void *ring, uint64_t buffer,
                               unsigned first, uint64_t end, const zp__gpu_csr *A,
                               const zp__gpu_csr *B, uint64_t *sent)
{
    (void)ring_stream; (void)ring; (void)buffer; (void)first; (void)end; (void)A; (void)B;
    (void)sent;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_fr_mul(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_a, const zp_fr *d_b,
                      uint64_t n)
{
    (void)s; (void)d_out; (void)d_a; (void)d_b; (void)n;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_eval_abc(zp__gpu_stream *s, zp_fr *d_a, zp_fr *d_b, zp_fr *d_c,
                        uint64_t n_out, const zp__gpu_csr *A, const zp__gpu_csr *B,
                        const zp_fr *d_w)
{
    (void)s; (void)d_a; (void)d_b; (void)d_c; (void)n_out; (void)A; (void)B; (void)d_w;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_fill_random_fr(zp__gpu_stream *s, zp_fr *d_out, uint64_t n, uint64_t seed)
{
    (void)s; (void)d_out; (void)n; (void)seed;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_gen_points_g1(zp__gpu_stream *s, zp_g1_affine *d_out, uint64_t n,
                             const zp_g1_affine *d_a, uint64_t na, const zp_g1_affine *d_b,
                             uint64_t nb)
{
    (void)s; (void)d_out; (void)n; (void)d_a; (void)na; (void)d_b; (void)nb;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_gen_points_g2(zp__gpu_stream *s, zp_g2_affine *d_out, uint64_t n,
                             const zp_g2_affine *d_a, uint64_t na, const zp_g2_affine *d_b,
                             uint64_t nb)
{
    (void)s; (void)d_out; (void)n; (void)d_a; (void)na; (void)d_b; (void)nb;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_field_op_run(zp__gpu_stream *s, zp__gpu_field_op op, void *d_out,
                            const void *d_a, const void *d_b, uint64_t n)
{
    (void)s; (void)op; (void)d_out; (void)d_a; (void)d_b; (void)n;
    return ZP_E_NO_GPU;
}

/* --------------------------------------------- fixed-base multiplication */

zp_err zp__gpu_fb_g1_mul(zp__gpu_stream *s, zp_g1_affine *d_out, const zp_g1_affine *d_table,
                         unsigned w, unsigned nwin, const zp_fr *d_k, uint64_t n)
{
    (void)s; (void)d_out; (void)d_table; (void)w; (void)nwin; (void)d_k; (void)n;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_fb_g2_mul(zp__gpu_stream *s, zp_g2_affine *d_out, const zp_g2_affine *d_table,
                         unsigned w, unsigned nwin, const zp_fr *d_k, uint64_t n)
{
    (void)s; (void)d_out; (void)d_table; (void)w; (void)nwin; (void)d_k; (void)n;
    return ZP_E_NO_GPU;
}

/* ------------------------------------------------- scalar preparation */

zp_err zp__gpu_fr_from_mont(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_in, uint64_t n)
{
    (void)s; (void)d_out; (void)d_in; (void)n;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_fr_gather(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_in, uint64_t n,
                         const uint64_t *d_words, const uint32_t *d_rank)
{
    (void)s; (void)d_out; (void)d_in; (void)n; (void)d_words; (void)d_rank;
    return ZP_E_NO_GPU;
}

zp_err zp__gpu_host_alloc(zp__gpu *g, void **out, uint64_t bytes)
{
    (void)g; (void)bytes;
    *out = NULL;
    return ZP_E_NO_GPU;
}

void zp__gpu_host_free(void *p) { (void)p; }

zp_err zp__gpu_host_register(void *p, uint64_t bytes, bool read_only)
{
    (void)p;
    (void)bytes;
    (void)read_only;
    return ZP_E_NO_GPU;
}

void zp__gpu_host_unregister(void *p) { (void)p; }

zp_err zp__gpu_wunpack(zp__gpu_stream *s, zp_fr *d_out, const void *d_stage, uint64_t n,
                       const zp_fr *one)
{
    (void)s; (void)d_out; (void)d_stage; (void)n; (void)one;
    return ZP_E_NO_GPU;
}
