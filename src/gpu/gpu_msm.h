/*
 * The GPU backend's MSMs: scratch sizes, windows, the one-shot and chunked
 * G1 and G2 sums, kept buckets, tables and the last call's figures. Part of
 * gpu.h's interface, declared where gpu.h includes it (its types, streams
 * and options come from there); include gpu/gpu.h, not this file.
 */
#ifndef ZP_GPU_MSM_H
#define ZP_GPU_MSM_H

#ifndef ZP_GPU_H
#error "include gpu/gpu.h: it declares what these MSMs take"
#endif

/* The largest n an MSM accepts (point indices are 31 bits in the sort). */
#define ZP_GPU_MSM_MAX ((((uint64_t)1) << 31) - 1)

/* Device scratch an MSM of n points needs (for any split of its scalars). */
uint64_t zp__gpu_msm_scratch_bytes(uint64_t n, bool g2);

/* The same when at most `windows` windows (>= 1) are sorted and accumulated
 * in one pass: less sorting space, the same result. An MSM given less than
 * zp__gpu_msm_scratch_bytes(n, g2) takes as many windows per pass as its
 * scratch holds; zp__gpu_msm_scratch_bytes_pass(n, g2, 1) is the least it
 * can run with. */
uint64_t zp__gpu_msm_scratch_bytes_pass(uint64_t n, bool g2, unsigned windows);

/* Scratch for the fastest plan at every split of n scalars: the sizing
 * above, or more where the batch-affine round runs (msm_impl.cuh says
 * when), all windows a pass. For lone MSMs (benchmarks). */
uint64_t zp__gpu_msm_scratch_bytes_best(uint64_t n, bool g2);

/* Scratch for the batch-affine round's layout with `windows` windows a pass
 * wherever the round may run (at every split of n scalars), else for
 * zp__gpu_msm_scratch_bytes_pass's. */
uint64_t zp__gpu_msm_scratch_bytes_affine(uint64_t n, bool g2, unsigned windows);
/* zp__gpu_msm_scratch_bytes_affine's for an MSM without the 0/1 split
 * (zp__gpu_msm_g1_nosplit): no room for the split's arrays, 24 bytes a
 * scalar (at 2^27 about 3 of the ~4 GiB another window a pass takes). */
uint64_t zp__gpu_msm_scratch_bytes_nosplit(uint64_t n, bool g2, unsigned windows);

/* The sizes above assume a device opened with the default MSM options.
 * These take the options o instead, for a device whose thresholds are moved
 * (tests): a forced window, a two-level reduction or an affine round at
 * smaller sizes change the layout. _opts is zp__gpu_msm_scratch_bytes_pass
 * (windows >= 1; 0: zp__gpu_msm_scratch_bytes), or with best
 * zp__gpu_msm_scratch_bytes_best (windows unused); _pre_opts is
 * zp__gpu_msm_scratch_bytes_pre. */
uint64_t zp__gpu_msm_scratch_bytes_opts(const zp__gpu_msm_opts *o, uint64_t n, bool g2,
                                        unsigned windows, bool best);
uint64_t zp__gpu_msm_scratch_bytes_pre_opts(const zp__gpu_msm_opts *o, uint64_t n, unsigned c);
/* zp__gpu_msm_scratch_bytes_affine and _nosplit under o: the affine
 * round's layout from o's thresholds on (a prover slot sizes its scratch
 * by its device's options, zp__gpu_get_msm_opts). */
uint64_t zp__gpu_msm_scratch_bytes_affine_opts(const zp__gpu_msm_opts *o, uint64_t n, bool g2,
                                               unsigned windows);
uint64_t zp__gpu_msm_scratch_bytes_nosplit_opts(const zp__gpu_msm_opts *o, uint64_t n, bool g2,
                                                unsigned windows);

/*
 * G1 MSMs over precomputed bases, for points that stay (a resident key, a
 * benchmark's data): a table of copies = zp__gpu_msm_pre_copies(c) times n
 * points, 2^(c j) P_i at j n + i, lets every c-bit window's digits go into
 * one set of 2^(c-1) buckets, so c can grow (fewer digits a scalar) without
 * more buckets to sum: at 2^24 points c = 22 makes 12 digits a scalar
 * where the plain MSM's c = 17 makes 15. The table takes copies times the
 * points' memory (12 x 1.5 GiB at 2^24, c = 22).
 *
 * zp__gpu_msm_pre_copies: 0 for c outside 2..22. zp__gpu_msm_g1_precompute
 * fills d_table (copies * n points) from d_points on s and waits.
 * zp__gpu_msm_g1_pre is zp__gpu_msm_g1_nosplit with the table and c it was
 * made with, scratch of zp__gpu_msm_scratch_bytes_pre(n, c) bytes (0:
 * invalid c or n); copies * n must stay within ZP_GPU_MSM_MAX
 * (ZP_E_TOO_LARGE).
 */
unsigned zp__gpu_msm_pre_copies(unsigned c);
zp_err zp__gpu_msm_g1_precompute(zp__gpu_stream *s, zp_g1_affine *d_table,
                                 const zp_g1_affine *d_points, uint64_t n, unsigned c);
uint64_t zp__gpu_msm_scratch_bytes_pre(uint64_t n, unsigned c);
zp_err zp__gpu_msm_g1_pre(zp__gpu_stream *s, zp_g1_jac *out, const zp_g1_affine *d_table,
                          unsigned c, const zp_fr *d_scalars, uint64_t n, zp__gpu_buf scratch);

/*
 * out = sum_i scalars[i] * points[i] for i < n, on stream s; waits for s.
 * d_points: affine Montgomery (infinity all zero). d_scalars: STANDARD form,
 * each < r. The 0/1 split runs on the GPU: zero scalars are skipped, points
 * with scalar 1 are summed by additions, the rest go through Pippenger with
 * signed-digit windows. scratch: zp__gpu_msm_scratch_bytes(n, g2) bytes of
 * device memory, or down to zp__gpu_msm_scratch_bytes_pass(n, g2, 1) (fewer
 * windows per pass). Returns ZP_E_TOO_LARGE above ZP_GPU_MSM_MAX,
 * ZP_E_GPU_OOM when scratch is too small.
 */
zp_err zp__gpu_msm_g1(zp__gpu_stream *s, zp_g1_jac *out, const zp_g1_affine *d_points,
                      const zp_fr *d_scalars, uint64_t n, zp__gpu_buf scratch);
zp_err zp__gpu_msm_g2(zp__gpu_stream *s, zp_g2_jac *out, const zp_g2_affine *d_points,
                      const zp_fr *d_scalars, uint64_t n, zp__gpu_buf scratch);
/* zp__gpu_msm_g1 without the 0/1 split: every scalar through Pippenger
 * (the same sum; no classification, scan, scatter or wait for the counts).
 * For random scalars, such as the H polynomial's, where the split finds
 * nothing to skip. Same arguments, scratch and limits. */
zp_err zp__gpu_msm_g1_nosplit(zp__gpu_stream *s, zp_g1_jac *out, const zp_g1_affine *d_points,
                              const zp_fr *d_scalars, uint64_t n, zp__gpu_buf scratch);

/*
 * One G1 MSM whose points come in several calls (the chunks of an array
 * streamed through a ring): every call's digits go into one set of
 * buckets, kept in `buckets` between calls and reduced once by _end, so k
 * chunks cost about one MSM over all their points at the acc's window c,
 * instead of k MSMs each at its own chunk's (smaller) window with a
 * reduction each. Scalars in standard form, without the 0/1 split (as
 * zp__gpu_msm_g1_nosplit); the sum equals that of one MSM over all the
 * chunks' points and scalars.
 *
 * zp__gpu_msm_acc_window: the window an MSM of `total` points takes;
 * zp__gpu_msm_acc_bytes: the buckets' bytes at window c (0 for a c out of
 * 2 .. 22), which grow as 2^c: 4.6 GiB at 22, 1.2 GiB at 20;
 * zp__gpu_msm_acc_scratch_bytes: the scratch that chunks of n points (and
 * _end) take at c, beside the buckets. _begin takes the buckets (no work
 * on the device: the first _add clears them); _add waits for its stream
 * before it returns, so the chunk's memory may be reused; _end sums the
 * buckets into *out (infinity when no point was added) and leaves the acc
 * ready for a new sum. After an error from _add the sum is lost: begin
 * again.
 */
typedef struct zp__gpu_msm_acc {
    zp__gpu_buf buckets; /* device, zp__gpu_msm_acc_bytes(c) at least */
    unsigned c;
    bool started; /* some chunk's digits are in the buckets */
} zp__gpu_msm_acc;
unsigned zp__gpu_msm_acc_window(uint64_t total);
uint64_t zp__gpu_msm_acc_bytes(unsigned c);
uint64_t zp__gpu_msm_acc_scratch_bytes(uint64_t n, unsigned c);
/* The same under the device's options o (gpu_msm_opts.h's tests), for
 * `windows` windows sorted and accumulated a pass with XYZZ buckets (0:
 * all of them, with the batch-affine round where it runs, as above; _add
 * takes as many a pass as its scratch holds, down to one). */
uint64_t zp__gpu_msm_acc_scratch_bytes_opts(const zp__gpu_msm_opts *o, uint64_t n, unsigned c,
                                            unsigned windows);
/* The scratch of a kept-bucket call of n dense scalars at window c in the
 * batch-affine layout, its windows in `passes` passes (0 where c is out of
 * range or n is 0). */
uint64_t zp__gpu_msm_acc_affine_scratch_bytes_opts(const zp__gpu_msm_opts *o, uint64_t n,
                                                   unsigned c, unsigned passes);
zp_err zp__gpu_msm_g1_acc_begin(zp__gpu_msm_acc *acc, zp__gpu_buf buckets, unsigned c);
zp_err zp__gpu_msm_g1_acc_add(zp__gpu_stream *s, zp__gpu_msm_acc *acc,
                              const zp_g1_affine *d_points, const zp_fr *d_scalars, uint64_t n,
                              zp__gpu_buf scratch);
zp_err zp__gpu_msm_g1_acc_end(zp__gpu_stream *s, zp__gpu_msm_acc *acc, zp_g1_jac *out,
                              zp__gpu_buf scratch);
/* A chunk with the 0/1 split into the buckets: its scalars in standard form
 * (as zp__gpu_msm_g1's) or witness values (zp__gpu_msm_g1_acc_add_w, below), the
 * dense ones' digits into the buckets at the acc's window, the chunk's
 * scalars equal to one summed apart into *ones, which the caller adds to
 * _end's sum (_end does not hold them). zp__gpu_msm_acc_split_scratch_bytes:
 * the scratch for `windows` windows a pass (0: all) at any split of n
 * scalars, and _end; a chunk takes as many windows a pass as its scratch
 * holds, down to one. */
uint64_t zp__gpu_msm_acc_split_scratch_bytes(uint64_t n, unsigned c, unsigned windows);
/* The same under the device's options o (gpu_msm_opts.h's tests). */
uint64_t zp__gpu_msm_acc_split_scratch_bytes_opts(const zp__gpu_msm_opts *o, uint64_t n,
                                                  unsigned c, unsigned windows);
zp_err zp__gpu_msm_g1_acc_add_split(zp__gpu_stream *s, zp__gpu_msm_acc *acc,
                                    const zp_g1_affine *d_points, const zp_fr *d_scalars,
                                    uint64_t n, zp__gpu_buf scratch, zp_g1_jac *ones);

/*
 * The MSMs over witness values where they lie, in Montgomery form, so the
 * prover needs no conversion pass or density gather first: scalar j (j < n)
 * is w[v], v the j-th index of [off, off + nv) whose bit is set in words
 * (words and rank as zp__gpu_fr_gather's, over w from index 0), or off + j
 * without words. The split compares with zero and R mod r, the digits
 * convert the dense scalars as they read them. With words, j0 is the count
 * of set bits below off (0 for off 0: a chunk of a density's points starts
 * at its j0-th point) and n the set bits in [off, off + nv); without, n =
 * nv and j0 is 0; off + nv <= 2^32. Scratch, limits
 * and the sum as zp__gpu_msm_g1 / _g2 for the same scalars in standard form;
 * ZP_E_INVALID_ARG for a selection that breaks these rules.
 */
typedef struct zp__gpu_wsc {
    const zp_fr *w;        /* device */
    const uint64_t *words; /* device, or NULL: every index of the range */
    const uint32_t *rank;  /* device (with words) */
    uint64_t off, nv;
    uint64_t j0; /* with words: the set bits below off */
} zp__gpu_wsc;
zp_err zp__gpu_msm_g1_w(zp__gpu_stream *s, zp_g1_jac *out, const zp_g1_affine *d_points,
                        const zp__gpu_wsc *sc, uint64_t n, zp__gpu_buf scratch);
zp_err zp__gpu_msm_g2_w(zp__gpu_stream *s, zp_g2_jac *out, const zp_g2_affine *d_points,
                        const zp__gpu_wsc *sc, uint64_t n, zp__gpu_buf scratch);
/* zp__gpu_msm_g1_acc_add_split over witness values. */
zp_err zp__gpu_msm_g1_acc_add_w(zp__gpu_stream *s, zp__gpu_msm_acc *acc,
                                const zp_g1_affine *d_points, const zp__gpu_wsc *sc, uint64_t n,
                                zp__gpu_buf scratch, zp_g1_jac *ones);

/* Split counts of the last MSM run on s (for benchmarks and traces). */
void zp__gpu_msm_last_split(const zp__gpu_stream *s, uint64_t *zeros, uint64_t *ones,
                            uint64_t *dense);

/* Windows of the last MSM run on s, and how many went through one pass. */
void zp__gpu_msm_last_passes(const zp__gpu_stream *s, unsigned *windows, unsigned *per_pass);

/* Whether the last MSM on s summed its buckets by batch-affine rounds. */
bool zp__gpu_msm_last_affine(const zp__gpu_stream *s);
/* How many in its busiest pass (2 where a second round had runs to sum,
 * else 1); 0: none. */
unsigned zp__gpu_msm_last_affine_rounds(const zp__gpu_stream *s);
/* Whether the last MSM on s summed the points of its scalars equal to one
 * by batch-affine rounds (else by XYZZ additions). */
bool zp__gpu_msm_last_ones_affine(const zp__gpu_stream *s);
/* The key bits the last MSM on s sorted its digits by (c, or c - 1 where
 * that saved a radix pass: msm_sort.cuh), its window bits c into *c; 0 and
 * 0 when it had no dense scalars. */
unsigned zp__gpu_msm_last_sort_bits(const zp__gpu_stream *s, unsigned *c);

/* The window bits an MSM with m dense scalars takes (G2 or G1; with the
 * batch-affine round's layout or not) under the default options; host
 * code, no device needed. 0 in builds without CUDA. */
unsigned zp__gpu_msm_window(uint64_t m, bool g2, bool affine);

/* Whether the bounds the MSM layouts take for CUB's temporary bytes where
 * no device answers (msm_plan.cuh) cover what CUB asks of the current
 * device for a sort of m pairs by c bits and a scan of m words; false
 * where the device does not answer, and in builds without CUDA. */
bool zp__gpu_msm_temp_bounds_hold(uint64_t m, unsigned c);

/* Device milliseconds of the phases of the last MSM on s, recorded with
 * events when profiling is on for s (zp__gpu_stream_profile); zero else.
 * A kept-bucket call counts as one: _acc_add's sort and accumulation,
 * _acc_end's reduction. */
typedef struct zp__gpu_msm_phases {
    float split;      /* classify, scan, scatter, counts to the host */
    float sort;       /* every pass's signed digits and per-window radix sorts */
    float accumulate; /* the rest of the passes: bucket bounds, the affine
                       * rounds, the XYZZ chunks and carries (and G1's ones
                       * summed first) */
    float reduce;     /* bucket reduction to window sums */
    float ones;       /* sum of the points with scalar 1 */
    float total;
    /* Of accumulate, the dense part's batch-affine first round (with each
     * pass's bucket bounds), its second round and the XYZZ chunks with
     * their carries (all of it without affine rounds). */
    float round1, round2, xyzz;
} zp__gpu_msm_phases;
void zp__gpu_stream_profile(zp__gpu_stream *s, bool on);
void zp__gpu_msm_last_phases(const zp__gpu_stream *s, zp__gpu_msm_phases *out);

/* Device milliseconds of each kernel of the last NTT transform on s (its
 * passes, then the bit reversal), when profiling is on for s and no MSM ran
 * on s since (they share the events); waits for that transform. passes = 0
 * when there is nothing to report. */
typedef struct zp__gpu_ntt_phases {
    unsigned passes;
    float pass[4];
    float bitrev;
} zp__gpu_ntt_phases;
void zp__gpu_ntt_last_phases(zp__gpu_stream *s, zp__gpu_ntt_phases *out);
/* Which kernels the last NTT transform on s ran. */
typedef struct zp__gpu_ntt_paths {
    unsigned batched; /* passes with m = 0 that took several whole transforms a tile */
    unsigned folded;  /* passes that stored times a product array (to_coset_mul) */
    unsigned big;    /* passes whose twist came from full tables (zp__gpu_stream_set_twist) */
} zp__gpu_ntt_paths;
void zp__gpu_ntt_last_paths(const zp__gpu_stream *s, zp__gpu_ntt_paths *out);

#endif
