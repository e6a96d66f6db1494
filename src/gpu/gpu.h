/*
 * The GPU backend's C interface. All CUDA lives under src/gpu/; the rest of
 * zkpipe calls only what this header declares. Without nvcc, nogpu.c
 * provides the same functions: they report ZP_E_NO_GPU (or 0 / false).
 *
 * Model:
 *  - zp__gpu is one device: one arena taken with a single cudaMalloc at
 *    open, carved by a host-side allocator; the NTT root tables live there.
 *  - zp__gpu_stream is one CUDA stream with a small device scratch and a
 *    pinned host buffer of its own. Operations enqueue on a stream; the ones
 *    that return a value on the host (MSM) wait on that stream only.
 *  - No operation calls cudaMalloc, cudaFree or cudaDeviceSynchronize.
 *  - Every CUDA call is checked; a failure returns ZP_E_GPU_OOM (memory),
 *    ZP_E_GPU_FATAL (a sticky error: the context is unusable and
 *    zp__gpu_healthy turns false) or ZP_E_GPU (anything else), and
 *    zp__gpu_last_error() says which call failed, where and why.
 *
 * Device pointers are plain pointers into the arena. Data layouts are the
 * host's: zp_fr / zp_fp arrays in Montgomery form, affine points with
 * infinity all zero, MSM scalars in standard form.
 */
#ifndef ZP_GPU_H
#define ZP_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r1cs/r1cs.h"
#include "zkpipe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices; 0 when none or when built without CUDA. */
int zp__gpu_count(void);
/* Whether this build contains the CUDA backend. */
bool zp__gpu_compiled(void);
/* The calling thread's last CUDA failure: "file:line: call: message"; ""
 * when none. */
const char *zp__gpu_last_error(void);

/* ------------------------------------------------------- CUDA versions */

/*
 * CUDA versions as 1000 * major + 10 * minor (12080 is 12.8): *driver the
 * newest CUDA the installed driver supports (cudaDriverGetVersion; 0 when
 * no driver loads), *runtime the CUDA runtime this build carries
 * (cudaRuntimeGetVersion). Both 0 in a build without CUDA.
 */
void zp__gpu_cuda_versions(int *driver, int *runtime);

/* Whether a driver of CUDA version `driver` runs a runtime of `runtime`. */
typedef enum zp__cuda_fit {
    ZP_CUDA_FIT_OK = 0,        /* the driver's CUDA is the runtime's or newer */
    ZP_CUDA_FIT_MINOR = 1,     /* same major, older minor: runs by CUDA's minor
                                * version compatibility, but the driver cannot
                                * compile the runtime's newer PTX */
    ZP_CUDA_FIT_TOO_OLD = 2,   /* an older major: the runtime does not start */
    ZP_CUDA_FIT_NO_DRIVER = 3, /* no driver loads */
} zp__cuda_fit;
zp__cuda_fit zp__cuda_fit_of(int driver, int runtime);
/* "12.8" for 12080 into out (len bytes). */
void zp__cuda_version_str(char *out, size_t len, int v);

/* ------------------------------------------------------ architectures */

/* The CUDA architectures this build holds kernels for, as it was built:
 * the SASS ones, then "+PTX" and the PTX ones, an architecture written as
 * nvcc numbers it (86: compute capability 8.6; a letter after it, as in
 * 90a, is an architecture-specific variant): "80 86 89 90 100 120 +PTX
 * 120". "" in builds without CUDA. */
const char *zp__gpu_archs(void);

/* The oldest compute capability zkpipe runs on (x 10): 8.0. */
#define ZP_GPU_ARCH_MIN 80

/* How a GPU runs the kernels of a build (zp__gpu_arch_fit_of). */
typedef enum zp__gpu_arch_fit {
    ZP_GPU_ARCH_SASS,     /* a SASS image it runs as it is */
    ZP_GPU_ARCH_PTX,      /* no such SASS; PTX it JIT-compiles when the kernels load */
    ZP_GPU_ARCH_TOO_OLD,  /* below ZP_GPU_ARCH_MIN: refused whatever the build holds */
    ZP_GPU_ARCH_NO_IMAGE, /* neither: the build holds nothing it can run */
    ZP_GPU_ARCH_BAD_LIST, /* the list of architectures does not parse */
} zp__gpu_arch_fit;

/*
 * How a GPU of compute capability major.minor runs kernels built for
 * `archs` (zp__gpu_archs' form), by the CUDA driver's rules for the images
 * of a fat binary: SASS of X.y runs on X.z for z >= y (never on another
 * major); PTX of X.y is JIT-compiled on any X'.z' >= X.y; a variant with
 * 'a' (SASS or PTX) runs on exactly X.y, one with 'f' on X.z for z >= y.
 * The driver takes the best SASS (highest minor) and only without one the
 * newest PTX it can compile; *image (may be NULL) is set to that
 * architecture (e.g. 86), 0 when there is none. Pure: no device needed.
 */
zp__gpu_arch_fit zp__gpu_arch_fit_of(int major, int minor, const char *archs, unsigned *image);

/* The line zp__gpu_open and `zkpipe version` give for a GPU (device
 * ordinal, name, compute capability) and its fit under archs: how it runs
 * the kernels, or why it is refused, with the architectures built and
 * what to do. */
void zp__gpu_arch_describe(char *out, size_t len, int device, const char *name, int major,
                           int minor, const char *archs, zp__gpu_arch_fit fit, unsigned image);

/*
 * Whether this build runs on CUDA device `device`, without opening it: its
 * compute capability against zp__gpu_archs() (zp__gpu_arch_fit_of) and one
 * kernel's image loaded, which JIT-compiles PTX where that is the way.
 * ZP_OK or ZP_E_UNSUPPORTED, with zp__gpu_arch_describe's line in text
 * (a CUDA loader error where the image does not load); ZP_E_NO_GPU
 * without CUDA or that device; ZP_E_GPU when the device cannot be asked.
 * Makes device the calling thread's current device. zp__gpu_open runs the
 * same check and refuses such a device with ZP_E_UNSUPPORTED before it
 * takes any memory (the line in zp__gpu_last_error()).
 */
zp_err zp__gpu_device_check(int device, char *text, size_t len);

typedef struct zp__gpu zp__gpu;
typedef struct zp__gpu_stream zp__gpu_stream;

/* A region of the arena. */
typedef struct zp__gpu_buf {
    void *ptr;
    uint64_t bytes;
} zp__gpu_buf;

/*
 * The sizes from which an MSM takes its paths (msm_impl.cuh says why each
 * default is where it is): the defaults are the crossovers measured on an
 * H200; tests lower them to run every path at small sizes.
 */
typedef struct zp__gpu_msm_opts {
    /* The batch-affine rounds sum the buckets of a dense part of at least
     * this many scalars: G1 with one prover slot on the device (2^21), G1
     * where several share it (2^23), G2 either way (2^21) ... */
    uint64_t g1_affine_from, g1_affine_from_shared, g2_affine_from;
    /* ... where a pass holds at least this many entries (2^24). */
    uint64_t affine_min_entries;
    /* The points of the scalars equal to one go through those rounds as
     * one run from this many of them (G1 2^25, G2 2^18): after an affine
     * dense part, or in G1 first, beside a dense part without them. */
    uint64_t g1_ones_affine_from, g2_ones_affine_from;
    /* The bucket reduction runs in two levels from this many buckets a
     * window (2^19, c = 20). */
    uint64_t two_level_from;
    /* Every MSM's window bits (2..22); 0: chosen by size (the default). */
    unsigned window;
} zp__gpu_msm_opts;

static inline void zp__gpu_msm_opts_default(zp__gpu_msm_opts *o)
{
    o->g1_affine_from = (uint64_t)1 << 21;
    o->g1_affine_from_shared = (uint64_t)1 << 23;
    o->g2_affine_from = (uint64_t)1 << 21;
    o->affine_min_entries = (uint64_t)1 << 24;
    o->g1_ones_affine_from = (uint64_t)1 << 25;
    o->g2_ones_affine_from = (uint64_t)1 << 18;
    o->two_level_from = (uint64_t)1 << 19;
    o->window = 0;
}

/* The default reserve: device memory left outside the arena when it is
 * sized from the free memory. The driver takes part of it after the arena
 * (kernels loaded at their first launch, and their local memory, which
 * grows with the SMs; `zkpipe bench batch` prints what it took, and
 * bench/RESULTS.md has the measure this size rests on); the rest is
 * headroom for more SMs and another process's small allocations. */
#define ZP__GPU_RESERVE_BYTES ((uint64_t)512 << 20)

typedef struct zp__gpu_config {
    int device;             /* CUDA ordinal */
    uint64_t arena_bytes;   /* 0: the device's free memory less reserve_bytes */
    uint64_t reserve_bytes; /* left to the driver and other users when sizing
                             * (ZP__GPU_RESERVE_BYTES) */
    zp__gpu_msm_opts msm;   /* zp__gpu_msm_opts_default */
    /* log2 of the elements an NTT pass holds a block (10 or 11); 0: by the
     * device's shared memory per SM (ntt.cu; tests force each). */
    unsigned ntt_tile_log;
} zp__gpu_config;

void zp__gpu_config_default(zp__gpu_config *c);

/* Opens a device: takes the arena, builds the NTT tables. */
zp_err zp__gpu_open(zp__gpu **out, const zp__gpu_config *cfg);
/* Frees everything; streams and buffers of g must be closed/freed first. */
void zp__gpu_close(zp__gpu *g);
bool zp__gpu_healthy(const zp__gpu *g);

typedef struct zp__gpu_info {
    char name[128];
    int sm_count;
    int cc_major, cc_minor;
    uint64_t total_mem;
    uint64_t arena_bytes, arena_used, arena_largest_free;
    unsigned ntt_tile_log; /* as opened (zp__gpu_config.ntt_tile_log) */
} zp__gpu_info;
void zp__gpu_get_info(zp__gpu *g, zp__gpu_info *out);
/* The device memory outside g's arena that nothing has taken: free when the
 * arena was taken (what the reserve, zp__gpu_config.reserve_bytes, left)
 * and free now (cudaMemGetInfo: less what the driver took since for
 * kernels loaded at their first launch and their local memory, and other
 * processes'). Device-wide: for status, benches and checks, not hot paths;
 * the calling thread's current device is left as it was. */
zp_err zp__gpu_outside(zp__gpu *g, uint64_t *free_at_open, uint64_t *free_now);
/* The MSM options g was opened with (zp__gpu_config.msm). */
void zp__gpu_get_msm_opts(const zp__gpu *g, zp__gpu_msm_opts *out);

/* Carves bytes from the arena (256-byte aligned). ZP_E_GPU_OOM when it does
 * not fit. Free on the host side only once the device no longer uses it. */
zp_err zp__gpu_alloc(zp__gpu *g, zp__gpu_buf *out, uint64_t bytes);
/* The same from the top of the arena (last fit): for working sets that
 * come and go, so that they do not leave holes between resident keys. */
zp_err zp__gpu_alloc_high(zp__gpu *g, zp__gpu_buf *out, uint64_t bytes);
void zp__gpu_free(zp__gpu *g, zp__gpu_buf *buf);

/* Counts the prover slots open on g (d = +1 at open, -1 at close). With
 * more than one, G1 MSMs take the batch-affine rounds from a larger size
 * (zp__gpu_msm_opts.g1_affine_from_shared). */
void zp__gpu_slots_add(zp__gpu *g, int d);
int zp__gpu_slots(zp__gpu *g);

/* Arena bytes each stream that runs kernels takes when it opens (its
 * scratch: coset power tables, MSM results and counts). */
#define ZP_GPU_STREAM_ARENA_BYTES ((uint64_t)2 << 20)
zp_err zp__gpu_stream_open(zp__gpu *g, zp__gpu_stream **out);
/* A stream of a given precedence: where its kernels and another stream's
 * have blocks waiting for an SM, the lower rank's go first. Rank 0 is the
 * device's greatest priority, each rank one step less, down to the least
 * (zp__gpu_stream_open's, where ranks beyond the device's range end too).
 * For work that should run at nearly its own rate while streams of long
 * kernels queued earlier fill what it leaves. */
zp_err zp__gpu_stream_open_ranked(zp__gpu *g, zp__gpu_stream **out, unsigned rank);
/* The CUDA priority s was made with (numerically lower goes first). */
int zp__gpu_stream_priority(const zp__gpu_stream *s);
/* A stream for copies, zp__gpu_stream_after and syncs only: no kernels run
 * on it, so it takes none of the arena. */
zp_err zp__gpu_stream_open_copy(zp__gpu *g, zp__gpu_stream **out);
void zp__gpu_stream_close(zp__gpu_stream *s);
/* Waits for everything enqueued on s. */
zp_err zp__gpu_stream_sync(zp__gpu_stream *s);
/* Waits for everything enqueued on every stream of g. */
zp_err zp__gpu_device_sync(zp__gpu *g);
/* What is enqueued on waiter from now on runs after what is enqueued on s
 * so far (an event; neither host thread waits). Same device. */
zp_err zp__gpu_stream_after(zp__gpu_stream *waiter, zp__gpu_stream *s);
/* The mark of s: what is enqueued on s so far (recorded again at each
 * call); zp__gpu_stream_after_mark: what is enqueued on waiter from now on
 * runs after s's mark as last recorded. For a consumer that waits for the
 * first of several copies enqueued at once. */
zp_err zp__gpu_stream_mark(zp__gpu_stream *s);
zp_err zp__gpu_stream_after_mark(zp__gpu_stream *waiter, zp__gpu_stream *s);
/* Waits on the host for s's mark as last recorded: for work enqueued on s
 * up to it, not for what was enqueued after. */
zp_err zp__gpu_stream_mark_sync(zp__gpu_stream *s);
/* A clock of two marks on a compute stream: zp__gpu_stream_clock(s, 0)
 * and (s, 1) record them where the stream's work has reached (no host
 * wait); zp__gpu_stream_clock_ms waits for mark 1 and gives the device
 * milliseconds between the two. For a stage timed while the host drives
 * another stream. */
zp_err zp__gpu_stream_clock(zp__gpu_stream *s, unsigned which);
zp_err zp__gpu_stream_clock_ms(zp__gpu_stream *s, double *ms);
/* Asynchronous copies on s; the host side must stay valid until a sync. */
zp_err zp__gpu_upload(zp__gpu_stream *s, void *dev, const void *host, uint64_t bytes);
zp_err zp__gpu_download(zp__gpu_stream *s, void *host, const void *dev, uint64_t bytes);
zp_err zp__gpu_memset0(zp__gpu_stream *s, void *dev, uint64_t bytes);
/* Milliseconds of device time taken by fn(ctx) on s (CUDA events). */
zp_err zp__gpu_time_ms(zp__gpu_stream *s, zp_err (*fn)(void *ctx), void *ctx, float *ms);

/* ------------------------------------------------------------------ NTT */

#define ZP_GPU_NTT_MAX_LOG2 28

/*
 * In-place NTT of d_a[0 .. 2^log2n) (device, Montgomery form) on stream s,
 * natural order in and out, same definition as zp__cpu_ntt:
 *   forward: a[k] <- sum_j a[j] w^(jk); inverse: a[k] <- n^-1 sum_j a[j] w^(-jk),
 * w = zp_fr_root_of_unity(log2n, roots). When coset is not NULL it is the
 * coset NTT of zp__cpu_coset_ntt: forward scales a[j] by g^j first; inverse
 * scales the result by g^-j. 1 <= log2n <= ZP_GPU_NTT_MAX_LOG2. Asynchronous.
 */
zp_err zp__gpu_ntt(zp__gpu_stream *s, zp_fr *d_a, unsigned log2n, bool inverse,
                   zp_roots roots, const zp_fr *coset);

/*
 * zp__gpu_ntt(inverse, no coset) then zp__gpu_ntt(forward, coset shift) of
 * the same array, the Groth16 "to coset" step, with one product per element
 * less: the coset scale rides on the inverse's n^-1 scale. Same arguments
 * and limits as zp__gpu_ntt; shift must not be zero. Asynchronous.
 */
zp_err zp__gpu_ntt_to_coset(zp__gpu_stream *s, zp_fr *d_a, unsigned log2n, zp_roots roots,
                            const zp_fr *shift);
/* The same times a constant: d_a <- scale * to_coset(d_a) at no extra
 * product (scale rides on the same table; NULL = 1). The H step's
 * (a*b - c)*scale is a*(scale*b) - scale*c: pass scale for b and c and use
 * zp__gpu_fr_mul_sub, one product per element instead of two. */
zp_err zp__gpu_ntt_to_coset_scaled(zp__gpu_stream *s, zp_fr *d_a, unsigned log2n,
                                   zp_roots roots, const zp_fr *shift, const zp_fr *scale);
/* d_a <- to_coset(d_a) * d_mul pointwise (d_mul: 2^log2n values on the
 * device, not d_a, not changed): the product folds into the forward's last
 * pass where that pass has m > 0 (2^11 and up), else a pointwise pass
 * follows.
 * The H step's a'b' without a pass of its own. Asynchronous. */
zp_err zp__gpu_ntt_to_coset_mul(zp__gpu_stream *s, zp_fr *d_a, unsigned log2n, zp_roots roots,
                                const zp_fr *shift, const zp_fr *d_mul);

/*
 * d_a <- (the coset inverse NTT of d_a by shift - the inverse NTT of d_c)
 * * scale (NULL = 1): zp__gpu_ntt(d_c, inverse), zp__gpu_ntt(d_a, inverse,
 * shift) and zp__gpu_fr_mul_sub_scale(d_a, d_a, NULL, d_c, scale) in one,
 * with one bit reversal instead of two and no pointwise pass (the TAU H
 * step). d_c is left in a scratch state. Limits as zp__gpu_ntt; shift must
 * not be zero. Asynchronous.
 */
zp_err zp__gpu_ntt_coset_diff(zp__gpu_stream *s, zp_fr *d_a, zp_fr *d_c, unsigned log2n,
                              zp_roots roots, const zp_fr *shift, const zp_fr *scale);

/*
 * Full twist tables of one domain (ntt_twist.cuh): the first pass's twist
 * of each element is one load instead of a product of two table entries.
 * 2^log2n values for the forward root, then 2^log2n for the inverse times
 * n^-1: zp__gpu_ntt_twist_bytes(log2n), 0 for domains below
 * 2^ZP_GPU_NTT_TWIST_FROM (whose twists are one load already); 8 GiB at
 * 2^27. A stream's transforms of that size and roots use them while they
 * are set on it (zp__gpu_stream_set_twist; NULL unsets): a forward, and an
 * inverse that folds n^-1 into its first twist (every inverse here).
 */
#define ZP_GPU_NTT_TWIST_FROM 19
typedef struct zp__gpu_twist {
    zp__gpu_buf mem;
    unsigned log2n;
    zp_roots roots;
} zp__gpu_twist;
static inline uint64_t zp__gpu_ntt_twist_bytes(unsigned log2n)
{
    return log2n >= ZP_GPU_NTT_TWIST_FROM && log2n <= ZP_GPU_NTT_MAX_LOG2
               ? (uint64_t)64 << log2n
               : 0;
}
/* Takes the tables from g's arena and fills them on s (asynchronous: wait
 * for s before another stream uses them). ZP_E_INVALID_ARG for a size
 * without tables; on failure nothing stays allocated. */
zp_err zp__gpu_ntt_twist_build(zp__gpu_stream *s, zp__gpu_twist *t, unsigned log2n,
                               zp_roots roots);
void zp__gpu_ntt_twist_free(zp__gpu *g, zp__gpu_twist *t);
void zp__gpu_stream_set_twist(zp__gpu_stream *s, const zp__gpu_twist *t);

/* d_out[i] = (d_a[i] * d_b[i] - d_c[i]) * scale for i < n (device, Montgomery;
 * d_out may alias an input); d_b NULL: no product, d_c NULL: no difference,
 * scale NULL: no factor.
 * The pointwise steps of the H polynomial. */
zp_err zp__gpu_fr_mul_sub_scale(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_a,
                                const zp_fr *d_b, const zp_fr *d_c, const zp_fr *scale,
                                uint64_t n);
/* zp__gpu_fr_mul_sub_scale without the scale (NULL b or c as there). */
zp_err zp__gpu_fr_mul_sub(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_a, const zp_fr *d_b,
                          const zp_fr *d_c, uint64_t n);

/* ------------------------------------------------------------------ MSM */

#include "gpu/gpu_msm.h"

/* ------------------------------------------------------- R1CS evaluation */

/* Rows with more entries than this are summed by a warp, the others by a
 * thread. */
#define ZP__GPU_EVAL_SHORT 16

/*
 * A CSR matrix in device memory, compact (layout: gpu/eval_plan.h): row
 * pointers uint32 (uint64 when nnz >= 2^32), columns uint32, one code byte
 * per nonzero (+1, -1, an entry of a small table of repeated coefficients,
 * or escaped: the coefficient is in esc, in nonzero order, its index the
 * escapes before it, from esc_bits / esc_rank), and the list of long rows.
 */
typedef struct zp__gpu_csr {
    uint64_t nrows, nnz, n_long;
    int rp64;           /* row_ptr holds uint64 offsets, else uint32 */
    void *row_ptr;      /* nrows + 1 offsets */
    uint32_t *col;
    uint8_t *code;
    uint64_t *esc_bits; /* bit k % 64 of word k / 64: nonzero k escaped */
    uint64_t *esc_rank; /* escapes before each word */
    zp_fr *esc, *tab;
    uint64_t *long_rows; /* the rows with more than ZP__GPU_EVAL_SHORT entries */
    uint64_t n_esc;      /* entries of esc */
    uint32_t n_tab;      /* entries of tab */
    bool host;           /* the arrays are a pinned host image (zp__gpu_csr_pin) */
    zp__gpu_buf mem;     /* the arena region holding the arrays (host: the image) */
} zp__gpu_csr;

/* The arena bytes zp__gpu_csr_upload takes for m (a pass over m;
 * UINT64_MAX when host memory for it runs out). Both builds provide it. */
uint64_t zp__gpu_csr_bytes(const zp__csr *m);
/* The same, and in *tab_bytes the part of them that is m's coefficient
 * table: at most ZP__EV_TAB values whatever m's size (0 where the bytes
 * are UINT64_MAX). */
uint64_t zp__gpu_csr_bytes_tab(const zp__csr *m, uint64_t *tab_bytes);

/* Validates m (row_ptr monotone and ending at nnz, every col < ncols) and
 * copies it, encoded, into the arena on s (waits for s). */
zp_err zp__gpu_csr_upload(zp__gpu_stream *s, zp__gpu_csr *out, const zp__csr *m,
                          uint64_t ncols);
/* The same layout in pinned host memory instead, for a key whose matrices
 * stream (zp__gpu_eval_ab_ring); mem.bytes is zp__gpu_csr_bytes(m). */
zp_err zp__gpu_csr_pin(zp__gpu *g, zp__gpu_csr *out, const zp__csr *m, uint64_t ncols);
void zp__gpu_csr_free(zp__gpu *g, zp__gpu_csr *m);

/*
 * a = A w, b = B w, c = a∘b over rows 0 .. n_out (rows past a matrix's
 * nrows are zero). Coefficients 1 and -1 are added or subtracted without a
 * product. Device arrays; w has at least ncols (as validated) entries.
 */
zp_err zp__gpu_eval_abc(zp__gpu_stream *s, zp_fr *d_a, zp_fr *d_b, zp_fr *d_c,
                        uint64_t n_out, const zp__gpu_csr *A, const zp__gpu_csr *B,
                        const zp_fr *d_w);
/* a = A w and b = B w only (zp__gpu_fr_mul makes c after, where c's
 * region held w). */
zp_err zp__gpu_eval_ab(zp__gpu_stream *s, zp_fr *d_a, zp_fr *d_b, uint64_t n_out,
                       const zp__gpu_csr *A, const zp__gpu_csr *B, const zp_fr *d_w);
/*
 * Rows [r_lo, n_out) of zp__gpu_eval_ab_ring's matrices, sent ahead into
 * the bottom of its output a (base = d_a): pieces of rows whose slices of
 * A and B fill at most `piece` bytes, laid one after another from base
 * (the layout a ring block has). A slot sends them as H's MSM leaves its
 * scalars there. Eval evaluates these rows first, writing a's rows r_lo
 * and up, above the pieces (they end within 32 * r_lo bytes:
 * zp__gpu_eval_low_rows), and the rows below r_lo after, once the pieces
 * have been read. r: the first row not sent yet, off: where its piece goes.
 */
typedef struct zp__gpu_eval_low {
    void *base;
    uint64_t piece, r_lo, r, off;
} zp__gpu_eval_low;

/* The least r_lo whose rows [r_lo, n_out), in pieces of at most `piece`
 * bytes, take no more than `room` bytes and no more than 32 * r_lo bytes
 * (n_out where no row fits; host arithmetic over the pinned images). */
uint64_t zp__gpu_eval_low_rows(uint64_t room, uint64_t piece, uint64_t n_out,
                               const zp__gpu_csr *A, const zp__gpu_csr *B);
/* Enqueues on st the copies of lo's next pieces that end within `room`
 * bytes of lo->base, advancing lo->r and lo->off; *sent: bytes copied. */
zp_err zp__gpu_eval_low_put(zp__gpu_stream *st, zp__gpu_eval_low *lo, uint64_t room,
                            uint64_t n_out, const zp__gpu_csr *A, const zp__gpu_csr *B,
                            uint64_t *sent);
/*
 * zp__gpu_eval_ab from matrices pinned on the host (zp__gpu_csr_pin): rows
 * in blocks that fill one of two staging buffers of `buffer` bytes at
 * `ring` (device), each block's slices of A and B copied on ring_stream
 * while s evaluates the block before. Enqueued, not waited for (the host
 * images stay valid). lo: NULL, or rows [lo->r_lo, n_out) sent ahead on
 * ring_stream, all of them (lo->r == n_out): those are evaluated first,
 * from there, and the blocks cover rows [0, lo->r_lo). pre: -1, or the
 * buffer (0 or 1) the first block was sent into ahead, on ring_stream, by
 * zp__gpu_eval_ring_first with the same ring, buffer, rows, A and B (then
 * the blocks start there). *sent: bytes copied. ZP_E_GPU_OOM where one row
 * does not fit a buffer.
 */
zp_err zp__gpu_eval_ab_ring(zp__gpu_stream *s, zp__gpu_stream *ring_stream, void *ring,
                            uint64_t buffer, int pre, const zp__gpu_eval_low *lo, zp_fr *d_a,
                            zp_fr *d_b, uint64_t n_out, const zp__gpu_csr *A,
                            const zp__gpu_csr *B, const zp_fr *d_w, uint64_t *sent);
/* Enqueues on ring_stream the copy of zp__gpu_eval_ab_ring's first block
 * of rows [0, end) (end: lo->r_lo of that call, else n_out) into its
 * buffer `first` (0 or 1), for a later call with pre = first: the caller
 * sees that nothing reads or writes that buffer meanwhile. */
zp_err zp__gpu_eval_ring_first(zp__gpu_stream *ring_stream, void *ring, uint64_t buffer,
                               unsigned first, uint64_t end, const zp__gpu_csr *A,
                               const zp__gpu_csr *B, uint64_t *sent);
/*
 * The packed witness rebuilt (layout: wpack.h): d_out[k * ZP_WPACK_CHUNK +
 * i] for every packed chunk k of the n values, from d_stage (the table of
 * regions, then the regions, zp__wpack_place's); raw chunks' values are
 * left as they are (sent there directly). `one` is the Montgomery 1. At
 * most 65535 chunks (ZP_E_TOO_LARGE). Asynchronous.
 */
zp_err zp__gpu_wunpack(zp__gpu_stream *s, zp_fr *d_out, const void *d_stage, uint64_t n,
                       const zp_fr *one);
/* d_out[i] = d_a[i]·d_b[i] for i < n (Montgomery; d_out may be d_a). */
zp_err zp__gpu_fr_mul(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_a, const zp_fr *d_b,
                      uint64_t n);

/* --------------------------------------------- fixed-base multiplication */

/*
 * d_out[i] = k[i]·base for i < n on stream s (asynchronous), the bytes of
 * zp__fb_g1_mul / zp__fb_g2_mul (groth16/setup_impl.h): d_table is such a
 * table's t copied to the device (nwin << w affine points, entry
 * (i << w) + d = d·2^(w·i)·base), w in 1..16 and nwin = ⌈255/w⌉
 * (ZP_E_INVALID_ARG otherwise). d_k: MONTGOMERY form, like the host's.
 * d_out: affine Montgomery, infinity all zero; it must not overlap d_k.
 */
zp_err zp__gpu_fb_g1_mul(zp__gpu_stream *s, zp_g1_affine *d_out, const zp_g1_affine *d_table,
                         unsigned w, unsigned nwin, const zp_fr *d_k, uint64_t n);
zp_err zp__gpu_fb_g2_mul(zp__gpu_stream *s, zp_g2_affine *d_out, const zp_g2_affine *d_table,
                         unsigned w, unsigned nwin, const zp_fr *d_k, uint64_t n);

/* -------------------------------------------------- scalar preparation */

/* d_out[i] = d_in[i] in standard form for i < n (d_in Montgomery, device;
 * d_out may equal d_in). Asynchronous. */
zp_err zp__gpu_fr_from_mont(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_in, uint64_t n);

/*
 * The density gather: for every i < n whose bit is set in d_words (bit i =
 * d_words[i / 64] >> (i % 64) & 1; bits at n and beyond are ignored),
 * d_out[rank(i)] = d_in[i], rank(i) = the set bits below i; d_rank[j] must
 * hold the set bits of d_words[0 .. j). d_out must not overlap d_in.
 * n < 2^32 (ZP_E_TOO_LARGE). Asynchronous.
 */
zp_err zp__gpu_fr_gather(zp__gpu_stream *s, zp_fr *d_out, const zp_fr *d_in, uint64_t n,
                         const uint64_t *d_words, const uint32_t *d_rank);

/* Pinned (page-locked) host memory for staging; slow to take and give back,
 * so only at setup (prover slots), never per operation. */
zp_err zp__gpu_host_alloc(zp__gpu *g, void **out, uint64_t bytes);
void zp__gpu_host_free(void *p);

/* ------------------------------------------------- test and bench data */

/* d_out[i] = pseudo-random values < 2^254 from (seed, i): valid both as
 * standard-form scalars and as Montgomery elements. */
zp_err zp__gpu_fill_random_fr(zp__gpu_stream *s, zp_fr *d_out, uint64_t n, uint64_t seed);

/* d_out[i] = a[i mod na] + b[(i / na) mod nb] (device arrays, affine): many
 * distinct points from a few bases; in the subgroup when the bases are.
 * Where the two x agree the point is a[i mod na]. */
zp_err zp__gpu_gen_points_g1(zp__gpu_stream *s, zp_g1_affine *d_out, uint64_t n,
                             const zp_g1_affine *d_a, uint64_t na, const zp_g1_affine *d_b,
                             uint64_t nb);
zp_err zp__gpu_gen_points_g2(zp__gpu_stream *s, zp_g2_affine *d_out, uint64_t n,
                             const zp_g2_affine *d_a, uint64_t na, const zp_g2_affine *d_b,
                             uint64_t nb);

/* ------------------------------------------------------- pinned host tier */

/* Page-locks [p, p + bytes) of existing host memory (heap or a file
 * mapping; read_only for a read-only mapping) for fast copies to every
 * device. ZP_E_NO_GPU without CUDA; ZP_E_GPU when the driver refuses
 * (e.g. the locked-memory limit). */
zp_err zp__gpu_host_register(void *p, uint64_t bytes, bool read_only);
void zp__gpu_host_unregister(void *p);

/* ----------------------------------------------------------------- tests */

typedef enum zp__gpu_field_op {
    ZP_GPU_FP_MUL, ZP_GPU_FP_ADD, ZP_GPU_FP_SUB,
    ZP_GPU_FR_MUL, ZP_GPU_FR_ADD, ZP_GPU_FR_SUB,
    ZP_GPU_FP2_MUL, ZP_GPU_FP2_SQR,
    ZP_GPU_FP_SQR, /* a[i]^2 (b unused) */
    ZP_GPU_FP_INV, /* a[i]^-1, 0 for 0 (b unused) */
} zp__gpu_field_op;

/* out[i] = a[i] op b[i] on device arrays of n elements of the op's field,
 * exposing the device arithmetic to tests. */
zp_err zp__gpu_field_op_run(zp__gpu_stream *s, zp__gpu_field_op op, void *d_out,
                            const void *d_a, const void *d_b, uint64_t n);

#ifdef __cplusplus
}
#endif
#endif
