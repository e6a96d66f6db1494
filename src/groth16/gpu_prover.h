/*
 * The GPU prover in two parts, so that one device can hold several keys and
 * prove several partitions at once (docs/gpu-memory.md):
 *
 *  - zp__g16_dkey: a proving key resident in a device's arena: the five
 *    point arrays, the A and B matrices and the density maps. Made once,
 *    either by uploading a host key (zp__pk with its points) or by test
 *    setup on the device (setup_gpu.c), which never has the points on the
 *    host at all (a synth:porep:27 key is ~44 GiB of points).
 *  - zp__g16_slot: the working set of one partition in flight on a device:
 *    its own stream, the witness, a, b, c / h, the gathered scalars and the
 *    MSM scratch, all carved from the arena when the slot is opened, sized
 *    from a key shape (zp__g16_slot_bytes), and reused partition after
 *    partition. A slot proves with any dkey whose shape fits it.
 *
 * A proof on a slot never calls cudaMalloc, cudaFree, cudaMemGetInfo or
 * cudaDeviceSynchronize: it enqueues on the slot's stream and waits on that
 * stream only, so slots of one device run side by side. A slot is used by
 * one thread at a time; dkeys are read-only once made and shared by slots.
 *
 * zp__g16_gpu (groth16.h) is the one-device, one-key, one-slot wrapper the
 * CLI uses.
 */
#ifndef ZP_G16_GPU_PROVER_H
#define ZP_G16_GPU_PROVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/progress.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"

/*
 * The options keys are made and slots opened with: the public tuning and,
 * for tests, paths that a slot takes only at sizes or on devices a test
 * lacks. Functions that take them accept NULL for the defaults
 * (zp__g16_gpu_opts_default); a slot keeps a copy of those it opened with.
 */
#define ZP_G16_PARTS_AUTO 0u
#define ZP_G16_PARTS_MAX 16u
#define ZP_G16_HEAD_PLANNED ZP_G16_PARTS_MAX
typedef struct zp__g16_gpu_opts {
    zp_gpu_tuning tuning;
    /* The MSMs over the witness beside h where the slot has the room
     * (default true); false: every MSM after h, as on a slot without it. */
    bool beside_h;
    /* The parts a witness goes up in: ZP_G16_PARTS_AUTO (default) as
     * zp__g16_parts_wanted plans, 1 .. ZP_G16_PARTS_MAX that many for any
     * witness of at least as many values. */
    unsigned upload_parts;
    /* The part sent first (and its L MSM summed while the rest crosses),
     * whatever the plan chose, when below the parts; ZP_G16_HEAD_PLANNED
     * (default): the plan's. */
    unsigned upload_head;
    /* The MSMs' size thresholds (zp__gpu_msm_opts_default): the device
     * zp__g16_gpu_open opens takes them (zp__gpu_config.msm), and the slot
     * sizes (zp__g16_slot_bytes, _pre, _within) assume a device with them.
     * A slot opened on a device sizes by that device's own. Tests lower
     * them to run the paths of large MSMs at their sizes. */
    zp__gpu_msm_opts msm;
    /* Key tiers (zp__g16_plan): the most bytes of points a key keeps in the
     * arena when the plan streams (UINT64_MAX, the default: as many as fit)
     * and the bytes of one staging buffer of a slot's ring (0, the default:
     * the plan's). Tests lower them so that every streaming path runs at
     * their sizes. */
    uint64_t resident_cap;
    uint64_t ring_buffer;
    /* Tests force the key tiers' last two steps at their sizes: lean
     * working sets (the witness kept in c's region) and, with
     * stream_matrices too, matrices streamed from pinned host memory
     * through the ring during eval. The plan takes them on its own only
     * where nothing larger fits (default false). usual forces the usual
     * working set where the plan streams, which it otherwise takes only for
     * shapes without a lean layout, so that its streaming paths run on the
     * test circuits too. */
    bool lean;
    bool stream_matrices;
    bool usual;
    /* Long key work on the device (a test key made there, a key copied
     * there) reports here: "making key points" in points, "copying the key
     * to the GPU" in bytes (base/progress.h; none by default). */
    zp__progress progress;
    /* The arena zp__g16_gpu_open takes (0, the default: the device's free
     * memory less its reserve), as --gpu-mem caps an engine's. */
    uint64_t arena_bytes;
} zp__g16_gpu_opts;

void zp__g16_gpu_opts_default(zp__g16_gpu_opts *o);
/* *o, or the defaults for NULL. */
zp__g16_gpu_opts zp__g16_gpu_opts_of(const zp__g16_gpu_opts *o);
/* ZP_E_INVALID_ARG when a field is out of range. */
zp_err zp__g16_gpu_opts_check(const zp__g16_gpu_opts *o);

/*
 * Key tiers (docs/gpu-memory.md). The five point arrays of a key, in the
 * order the plan keeps them resident: the MSMs over the witness skip most
 * of their points (porep's witness is ~90 % zeros and ones) and go through
 * their bases fastest, so a copy of theirs would show; H's MSM is dense and
 * slowest per byte, so its copy hides best and it streams first.
 */
typedef enum {
    ZP_G16_P_L,
    ZP_G16_P_A,
    ZP_G16_P_B1,
    ZP_G16_P_B2,
    ZP_G16_P_H,
    ZP_G16_NP
} zp__g16_part;
/* Points of array i of pk, and bytes of one point. */
uint64_t zp__g16_part_count(const zp__pk *pk, zp__g16_part i);
uint64_t zp__g16_part_size(zp__g16_part i);
const char *zp__g16_part_name(zp__g16_part i);

/*
 * What of a key stays in a GPU's arena and what streams from pinned host
 * memory, and the working sets beside it (zp__g16_plan_make). The first
 * res[i] points of array i are resident, the rest stream through each
 * slot's staging ring of two buffers of ring_buffer bytes.
 */
/*
 * Pinned host images of a key's streamed points, one for the key's copies on
 * every GPU rather than one per GPU (docs/gpu-memory.md): array i's points
 * from first[i] to its end at p[i] (NULL: none). The device key that
 * allocates one fills it; a copy planned later with it (zp__g16_plan.img)
 * neither copies nor makes those points again. Each holder keeps a
 * reference and the last one frees it; borrowed: p point into a host key's
 * own arrays (page-locked by its owner, who keeps them), never freed here.
 */
typedef struct zp__g16_himg {
    void *p[ZP_G16_NP];
    uint64_t first[ZP_G16_NP];
    bool borrowed;
    atomic_int refs;
    /* The matrices' pinned images (zp__gpu_csr_pin), where the copy that
     * made it streams them: copies given the image stream them from here
     * too rather than pin their own. */
    zp__gpu_csr ma, mb;
    bool mats;
} zp__g16_himg;

typedef struct zp__g16_plan {
    uint64_t res[ZP_G16_NP];
    uint64_t key_bytes;    /* arena bytes of the resident key (no optional tables) */
    uint64_t pinned_bytes; /* host bytes of the streamed points */
    uint64_t ring_buffer;  /* bytes of one staging buffer; 0: nothing streams */
    uint64_t slot_bytes;   /* one working set, its ring included */
    unsigned slots;        /* working sets that fit beside the key (<= asked) */
    uint64_t fixed_bytes;  /* the part of the key resident whatever streams */
    /* The last steps, where nothing larger fits: lean working sets (the
     * witness in c's region during eval and the MSMs, sent again after h:
     * zp__g16_slot_open_plan), and the matrices streamed too (mat_bytes of
     * them, in pinned_bytes then, not in fixed_bytes). */
    bool lean, mat_stream;
    uint64_t mat_bytes;
    /* The slots share one stream of the streamed points: the ring is the
     * key's (zp__g16_dkey.share), in key_bytes and not in slot_bytes, and
     * every slot in its MSM phase consumes each chunk that passes
     * (groth16/ring_scan.h). Planned where o's tuning asks for it
     * (zp_gpu_tuning.ring_share), two slots or more are asked, and two
     * working sets fit beside the fixed part and a ring of the buffers
     * one working set would take (or larger). */
    bool shared;
    /* Where the streamed points are already (NULL: the device key that
     * takes the plan allocates and fills an image of its own): an image a
     * caller holds a reference to, used where it holds every point the
     * plan streams (zp__g16_himg_covers). Not counted in pinned_bytes. */
    zp__g16_himg *img;
} zp__g16_plan;

/* An image of all of pk's points in its own arrays (borrowed; NULL: no
 * memory), one reference. pk must outlive it. */
zp__g16_himg *zp__g16_himg_borrow(const zp__pk *pk);
void zp__g16_himg_ref(zp__g16_himg *m);
/* Drops a reference; the last frees what m owns. NULL: nothing. */
void zp__g16_himg_unref(zp__g16_himg *m);
/* Host bytes m holds of pk's points (its own: 0 when borrowed) and
 * matrices. */
uint64_t zp__g16_himg_bytes(const zp__g16_himg *m, const zp__pk *pk);
/* Whether m holds every point a copy of pk with resident counts res
 * streams. */
bool zp__g16_himg_covers(const zp__g16_himg *m, const zp__pk *pk,
                         const uint64_t res[ZP_G16_NP]);

/* The most bytes of one staging buffer and the least the plan shrinks it
 * to; where the matrices stream through the ring, no more than
 * ZP_G16_RING_BUFFER_MATS (eval's blocks then cross with the SMs idle).
 * Large buffers stream H in few chunks (3 at porep:27 in 48 GiB), each
 * chunk paying a cost beyond its points that outweighs the resident points
 * the buffers take; past 8 GiB the buffers take L's points too, whose
 * copies then make the chunks wait (bench/RESULTS.md). */
#define ZP_G16_RING_BUFFER ((uint64_t)8 << 30)
#define ZP_G16_RING_BUFFER_MIN ((uint64_t)1 << 27)
#define ZP_G16_RING_BUFFER_MATS ((uint64_t)2 << 30)

/* The next buffer size the plan tries below rb: 8, 6 and 4 GiB, then it
 * halves. The 6 GiB step serves arenas between the two: porep:27 at 32
 * GiB takes 2 x 4.9 GiB, H in 5 chunks (bench/RESULTS.md). */
static inline uint64_t zp__g16_ring_down(uint64_t rb)
{
    const uint64_t g = (uint64_t)1 << 30;
    return rb > 6 * g ? 6 * g : rb > 4 * g ? 4 * g : rb / 2;
}

/*
 * Plans keys of pk's shape in `arena_free` bytes with `slots` working sets:
 * the whole key resident with as many working sets as fit (at least one),
 * where it and one fit (with slots = 0, where the key alone fits: the
 * GPU's slots hold working sets already); otherwise the matrices and densities
 * resident, as many points as fit in the order of zp__g16_part beside
 * `slots` streaming working sets (fewer when they do not fit), within o's
 * resident_cap. ZP_E_GPU_OOM with the bytes it needs in *why when not even
 * the fixed part and one streaming working set fit.
 */
zp_err zp__g16_plan_make(zp__g16_plan *p, const zp__pk *pk, uint64_t arena_free,
                         unsigned slots, const zp__g16_gpu_opts *o, zp__ioerr *why);
/* The same from pk's counts alone (no matrices needed) and the arena
 * bytes of the part that never streams (the matrices and density maps:
 * zp__g16_dkey_bytes less the points). For planning shapes without a key. */
zp_err zp__g16_plan_fixed(zp__g16_plan *p, const zp__pk *pk, uint64_t fixed, uint64_t matrices,
                          uint64_t arena_free, unsigned slots, const zp__g16_gpu_opts *o,
                          zp__ioerr *why);
/* The arena bytes of pk's two compact matrices (UINT64_MAX: no host memory
 * to plan them). */
uint64_t zp__g16_matrix_bytes(const zp__pk *pk);
/* Whether the plan streams anything. */
bool zp__g16_plan_streams(const zp__g16_plan *p);
/* One line: "resident L A B1, streamed B2 H (12.0 GiB pinned), ring 2 x 1.0 GiB". */
void zp__g16_plan_describe(const zp__g16_plan *p, const zp__pk *pk, char *buf, size_t len);

typedef struct zp__g16_dkey {
    zp__gpu *dev;
    const zp__pk *pk;             /* host part: counts, vk, densities (and
                                   * matrices); its point arrays may be NULL */
    zp__gpu_buf p_a, p_b1, p_b2, p_l, p_h;
    zp__gpu_csr ma, mb;
    /* Density maps for the device-side scalar gathers: the bitmap words
     * and, per 64-bit word, the number of set bits before it. */
    zp__gpu_buf a_words, a_rank, b_words, b_rank;
    /* The domain's full NTT twist tables (gpu.h), or none (mem.ptr NULL). */
    zp__gpu_twist twist;
    /* The H points' table for G1 MSMs over precomputed bases (gpu.h,
     * zp__gpu_msm_g1_pre) with h_pre_c-bit windows, or none (ptr NULL). */
    zp__gpu_buf h_pre;
    unsigned h_pre_c;
    /* Key tiers: the first res[i] points of array i are in its region (p_a
     * ..), the other count - res[i] in host[i], inside img (pinned host
     * memory, maybe shared with the key's copies on other GPUs; NULL when
     * none stream); ring_buffer: the staging buffer its plan asked slots
     * for (0: nothing streams). */
    uint64_t res[ZP_G16_NP];
    void *host[ZP_G16_NP];
    zp__g16_himg *img;
    bool img_given; /* img came with the plan: its points are there already */
    uint64_t ring_buffer;
    /* The plan's last steps: slots for it lean; ma and mb pinned host
     * images (ma.host) that stream through the ring during eval. */
    bool lean, mat_stream;
    /* A number unique in the process (zp__g16_dkey_take_plan): what a
     * slot's caches of the key (its schedule, the next eval's first block
     * sent ahead) compare, since a freed key's address may come back with
     * another key. */
    uint64_t id;
    /* A shared plan's ring (zp__g16_plan.shared, noted by take_plan in
     * `shared`), carved with the key once its points are made:
     * every slot of the GPU in its MSM phase consumes each streamed chunk
     * that passes through it (prove_gpu_sched.c); NULL: each slot streams
     * through its own ring. */
    bool shared;
    struct zp__g16_share *share;
} zp__g16_dkey;

/* The arena bytes a request of `bytes` takes (256-byte rounding; a
 * zero-byte request takes 32): the key, slot and plan sizes all use it. */
uint64_t zp__g16_arena_round(uint64_t bytes);
/* k->res and k->ring_buffer from plan (NULL: all resident); false when the
 * plan is not of pk's shape. */
bool zp__g16_dkey_take_plan(zp__g16_dkey *k, const zp__pk *pk, const zp__g16_plan *plan);
/* pk's matrices into k's arena regions on s, or, where k's plan streams
 * them (k->mat_stream), into pinned host images. */
zp_err zp__g16_dkey_put_matrices(zp__g16_dkey *k, zp__gpu_stream *s, const zp__pk *pk);
/* The region of k's array i (its resident points). */
zp__gpu_buf *zp__g16_dkey_part(zp__g16_dkey *k, zp__g16_part i);
/* k->host in k->img: the plan's image where take_plan took one (*made
 * true: its points are there already), else one of k's own allocated for
 * the points from k->res on (*made false: the caller fills it). */
zp_err zp__g16_dkey_host(zp__g16_dkey *k, const zp__pk *pk, bool *made);
/* Whether any point of k streams from host memory. */
bool zp__g16_dkey_streams(const zp__g16_dkey *k);
/* Bytes of points k streams per proof (the MSMs read each point once). */
uint64_t zp__g16_dkey_stream_bytes(const zp__g16_dkey *k);

/* Device bytes a resident copy of pk takes (arena rounding included), the
 * optional tables (zp__g16_dkey_twist, zp__g16_dkey_h_table) left out. */
uint64_t zp__g16_dkey_bytes(const zp__pk *pk);

/*
 * Copies pk (points and matrices required) into dev's arena on stream s,
 * with its twist tables where o's tuning and the arena allow
 * (zp__g16_dkey_twist), and waits for s. pk must outlive the dkey.
 *   ZP_E_INVALID_ARG  zp__pk_shape_ok fails
 *   ZP_E_UNSUPPORTED  no matrices, no points, or a domain outside the GPU NTT
 *   ZP_E_GPU_OOM      the arena cannot hold it (nothing stays allocated)
 *   ZP_E_GPU, ZP_E_GPU_FATAL
 */
zp_err zp__g16_dkey_upload(zp__g16_dkey *out, zp__gpu *dev, zp__gpu_stream *s,
                           const zp__pk *pk, const zp__g16_gpu_opts *o, zp__ioerr *why);
/* The same with the points laid out by plan (NULL: all resident, as
 * zp__g16_dkey_upload): streamed points are copied into pinned host memory
 * the dkey owns; no optional tables where anything streams. */
zp_err zp__g16_dkey_upload_plan(zp__g16_dkey *out, zp__gpu *dev, zp__gpu_stream *s,
                                const zp__pk *pk, const zp__g16_plan *plan,
                                const zp__g16_gpu_opts *o, zp__ioerr *why);

/*
 * TEST-ONLY setup on the device (setup_gpu.c): the key zp__setup(cs, conv,
 * toxic) would make, with every point computed by fixed-base
 * multiplication on the device straight into the arena. pk_out receives
 * the host part (counts, roots, vk with its IC points, densities and the
 * matrices A, B) with a, b1, b2, l, h NULL; out->pk points at pk_out,
 * which must outlive out. The same toxic gives the same bytes as
 * zp__setup. Twist tables as zp__g16_dkey_upload. Errors as zp__setup,
 * plus the GPU ones.
 */
zp_err zp__g16_dkey_setup(zp__g16_dkey *out, zp__pk *pk_out, zp__gpu *dev,
                          zp__gpu_stream *s, const zp__r1cs *cs, zp_h_conv conv,
                          int threads, const zp__toxic *toxic, const zp__g16_gpu_opts *o,
                          zp__ioerr *why);
/* The same planned: the key's shape first (zp__g16_setup_shape), then
 * plan_fn(ctx, shape, &plan) decides the layout as for
 * zp__g16_dkey_upload_plan; streamed points are made on the device a
 * staging buffer at a time and copied to pinned host memory. plan_fn
 * NULL: all resident. */
typedef zp_err (*zp__g16_plan_fn)(void *ctx, const zp__pk *shape, zp__g16_plan *plan,
                                  zp__ioerr *why);
zp_err zp__g16_dkey_setup_plan(zp__g16_dkey *out, zp__pk *pk_out, zp__gpu *dev,
                               zp__gpu_stream *s, const zp__r1cs *cs, zp_h_conv conv,
                               int threads, const zp__toxic *toxic, zp__g16_plan_fn plan_fn,
                               void *plan_ctx, const zp__g16_gpu_opts *o, zp__ioerr *why);

/* Frees the arena regions (the device must be done with them). */
void zp__g16_dkey_free(zp__g16_dkey *k);
/* Whether the matrix images k streams are its image's (moved into it by
 * k, or given with it), which then frees them. */
bool zp__g16_dkey_img_mats(const zp__g16_dkey *k);
/* Carves k's shared ring of two buffers of ring_buffer bytes (k's plan
 * set, its pinned points made) with its copy streams (prove_gpu_sched.c);
 * zp__g16_dkey_free gives it back. */
zp_err zp__g16_share_open(zp__g16_dkey *k, uint64_t ring_buffer);
void zp__g16_share_close(zp__g16_dkey *k);
/* The bytes k's shared ring has moved (0: none). */
uint64_t zp__g16_share_bytes(const zp__g16_dkey *k);
/* Builds k's NTT twist tables (k->dev, k->pk set) and waits for s
 * (upload and setup call it) where o's tuning asks for them
 * (zp_gpu_tuning.ntt_twist), its domain has them and the arena keeps room
 * for two working sets (zp__g16_slot_bytes_min) beside them. Not in
 * zp__g16_dkey_bytes (k->twist.mem.bytes). */
zp_err zp__g16_dkey_twist(zp__g16_dkey *k, zp__gpu_stream *s, const zp__g16_gpu_opts *o);
/* For a key kept for many proofs (an engine's, a benchmark's): builds its
 * H table of zp__g16_h_pre_c's windows and waits for s, where
 * zp__g16_h_pre_on and the arena keeps room for two working sets that take
 * its MSM (zp__g16_slot_bytes_pre); nothing otherwise, and no room is no
 * failure. A table takes seconds to make at 2^24 points and saves a few
 * percent of a proof, so a key made for one proof goes without unless
 * the tuning fixes the windows. Not in zp__g16_dkey_bytes
 * (k->h_pre.bytes). */
zp_err zp__g16_dkey_h_table(zp__g16_dkey *k, zp__gpu_stream *s, const zp__g16_gpu_opts *o);
/* Builds k's H table with c-bit windows (copies of the H points times
 * 2^(c j), zp__gpu_msm_pre_copies(c) of them) from its resident H points
 * and waits for s: ZP_E_INVALID_ARG for a c outside 2..22, ZP_E_TOO_LARGE
 * when the copies exceed one MSM, ZP_E_GPU_OOM without room. A slot's H
 * MSM goes over it where its scratch holds that MSM's layout. */
zp_err zp__g16_dkey_h_pre(zp__g16_dkey *k, zp__gpu_stream *s, unsigned c);
/* Frees k's H table, if any (no slot may be using k): its H MSM goes over
 * the points again. */
void zp__g16_dkey_drop_h_pre(zp__g16_dkey *k);
/* The windows of the H table that keys of pk's shape are made with, and
 * that slots make room for, or 0 for none, by o's tuning
 * (zp_gpu_tuning.h_table): automatic, 16 to 20 bits by pk->n_h above
 * 2^(ZP_H_PRE_AUTO_FROM - 1) and up to 2^ZP_H_PRE_AUTO_TO points, else
 * none; off, none; 2..22 those windows at any size the MSM takes. */
#define ZP_H_PRE_AUTO_FROM 14
#define ZP_H_PRE_AUTO_TO 24
unsigned zp__g16_h_pre_c(const zp__pk *pk, const zp__g16_gpu_opts *o);
/* Whether keys of pk's shape on dev get an H table and slots there make
 * room for its MSM: zp__g16_h_pre_c is not 0 and, when automatic, the
 * table is at most a quarter of the arena (the rest for other keys). */
bool zp__g16_h_pre_on(const zp__pk *pk, zp__gpu *dev, const zp__g16_gpu_opts *o);

/* Copies the resident points back to host arrays of pk's counts (tests:
 * compare with zp__setup). Any of the outputs may be NULL. Waits for s. */
zp_err zp__g16_dkey_read(const zp__g16_dkey *k, zp__gpu_stream *s, zp_g1_affine *a,
                         zp_g1_affine *b1, zp_g2_affine *b2, zp_g1_affine *l,
                         zp_g1_affine *h);

typedef struct zp__g16_slot zp__g16_slot;

/* Device bytes of a slot for keys of pk's shape (stream scratch excluded),
 * opened with o, and the least it opens with: without the room for the G1
 * MSMs' batch-affine round when the arena lacks it (the same for shapes
 * below 2^21 points). The sizes assume a device that takes the H table
 * (zp__g16_h_pre_on); a slot opened on one that does not leaves it out.
 * They assume a device with o's MSM options (zp__g16_slot_bytes_min: the
 * default ones). */
uint64_t zp__g16_slot_bytes(const zp__pk *pk, const zp__g16_gpu_opts *o);
uint64_t zp__g16_slot_bytes_min(const zp__pk *pk);
/* The least a slot of pk's shape takes with room for the MSM over an H
 * table of zp__g16_h_pre_c's windows (zp__g16_slot_bytes_min when there
 * is none). */
uint64_t zp__g16_slot_bytes_pre(const zp__pk *pk, const zp__g16_gpu_opts *o);

/* Opens a slot on dev for keys whose n_vars, domain_size, n_a, n_b, n_l and
 * n_h are at most pk's, with the options o (a copy is kept): a stream, the
 * arena regions (zp__g16_slot_bytes, or zp__g16_slot_bytes_min when that is
 * all there is), and a pinned host staging buffer for the witness.
 * ZP_E_GPU_OOM when the arena lacks room (nothing stays allocated). */
zp_err zp__g16_slot_open(zp__g16_slot **out, zp__gpu *dev, const zp__pk *pk,
                         const zp__g16_gpu_opts *o, zp__ioerr *why);
/* The same, growing the G1 MSMs' scratch into `share` bytes when they hold
 * more windows a pass than the default (a lone slot: all windows of a 2^27
 * MSM, the fastest); 0 or less than zp__g16_slot_bytes: zp__g16_slot_open.
 * zp__g16_slot_bytes_within is the size it asks for first;
 * zp__g16_slot_windows the windows a pass the open slot has room for (0:
 * lean). */
zp_err zp__g16_slot_open_within(zp__g16_slot **out, zp__gpu *dev, const zp__pk *pk,
                                uint64_t share, const zp__g16_gpu_opts *o, zp__ioerr *why);
uint64_t zp__g16_slot_bytes_within(const zp__pk *pk, uint64_t share, const zp__g16_gpu_opts *o);
/* A slot that streams (key tiers): a staging ring of two buffers of
 * ring_buffer bytes (> 0) for the points a key streams, and every MSM
 * taken a buffer's worth of points at a time, so that its scratch is that
 * of such a chunk. zp__g16_slot_bytes_ring is the least it opens with;
 * zp__g16_slot_open_ring grows into share as zp__g16_slot_open_within. A
 * ring_buffer of 0 is zp__g16_slot_open_within. */
uint64_t zp__g16_slot_bytes_ring(const zp__pk *pk, uint64_t ring_buffer,
                                 const zp__g16_gpu_opts *o);
/* The same slot without its own ring: one of a shared plan's
 * (zp__g16_plan.shared), sized for the chunks of the key's ring. */
uint64_t zp__g16_slot_bytes_shared(const zp__pk *pk, uint64_t ring_buffer,
                                   const zp__g16_gpu_opts *o);
zp_err zp__g16_slot_open_ring(zp__g16_slot **out, zp__gpu *dev, const zp__pk *pk,
                              uint64_t ring_buffer, uint64_t share, const zp__g16_gpu_opts *o,
                              zp__ioerr *why);
/* A lean slot (zp__g16_plan.lean): no witness region of its own, the
 * witness lies in c's during eval (c = a∘b made after) and is sent again
 * after h for the MSMs, whose scratch stays out of it; no MSMs beside h.
 * Only for shapes with no more variables than the domain
 * (zp__g16_slot_bytes_lean is UINT64_MAX for the others). With a ring
 * (> 0) it also evaluates keys whose matrices stream. */
uint64_t zp__g16_slot_bytes_lean(const zp__pk *pk, uint64_t ring_buffer,
                                 const zp__g16_gpu_opts *o);
/* zp__g16_slot_open_ring, lean where `lean`, without a ring of its own
 * where `shared` (a slot for keys whose ring is theirs, zp__g16_dkey.share,
 * sized for its chunks; never lean, and its MSMs never beside h): the slot a
 * dkey's plan asks for (its ring_buffer, lean and share). rank orders the
 * slots of one GPU (0
 * first): where two run kernels at once, the lower rank's blocks go first
 * (zp__gpu_stream_open_ranked), so that one finishes at nearly its own
 * rate while the other fills the gaps, instead of both ending together
 * and then both leaving the GPU idle between partitions; the other
 * functions open rank 0. */
zp_err zp__g16_slot_open_plan(zp__g16_slot **out, zp__gpu *dev, const zp__pk *pk,
                              uint64_t ring_buffer, bool lean, bool shared, uint64_t share,
                              unsigned rank, const zp__g16_gpu_opts *o, zp__ioerr *why);
bool zp__g16_slot_lean(const zp__g16_slot *s);
/* Whether a partition of a, b, c on s with k sends its witness only after
 * h (zp__g16_slot_put_abc): a lean slot's, and a slot's whose own ring
 * streams k and that runs no MSMs beside h (its MSMs over the witness all
 * run after h). */
bool zp__g16_slot_abc_w_late(const zp__g16_slot *s, const zp__g16_dkey *k);
/* The slot's staging buffer bytes (0: it has no ring; a shared slot's:
 * those of its keys' rings), the arena bytes of its own ring (0 for a
 * shared slot), and the bytes its ring has sent since it opened (a shared
 * slot: its share of what the keys' rings sent while it consumed them). */
uint64_t zp__g16_slot_ring_buffer(const zp__g16_slot *s);
uint64_t zp__g16_slot_ring_bytes(const zp__g16_slot *s);
uint64_t zp__g16_slot_streamed_bytes(const zp__g16_slot *s);
/* Whether the slot can prove with k: its shape fits, and where k streams
 * the slot has a ring, or k's ring is shared and the slot is sized for its
 * chunks. */
bool zp__g16_slot_fits_key(const zp__g16_slot *s, const zp__g16_dkey *k);
unsigned zp__g16_slot_windows(const zp__g16_slot *s);
void zp__g16_slot_close(zp__g16_slot *s);
/* Whether keys of pk's shape fit the slot. */
bool zp__g16_slot_fits(const zp__g16_slot *s, const zp__pk *pk);

/* The slot's pinned host buffer for a witness of up to the slot's n_vars
 * values: a caller that decodes or generates the witness straight into it
 * saves a copy and gets full-speed uploads. Waits until no copy of the
 * slot reads it, and forgets a witness sent ahead (zp__g16_slot_sums_next). */
zp_fr *zp__g16_slot_witness_buf(zp__g16_slot *s);

/*
 * Stages eval, h and msm of one proof on the slot with key k: uploads w
 * (k->pk->n_vars values, Montgomery form; may be the slot's witness buffer),
 * evaluates a, b, c, the H scalars, converts and gathers the MSM scalars on
 * the device, and runs the five MSMs; the sums come back to the host.
 * Where the slot has the room (zp__g16_slot_beside) L, A, B1 and B2 run on
 * a stream of their own while h runs, and H after both; else all five
 * after h. t (may be NULL) receives eval, h (its device time when MSMs
 * ran beside it), msm_a .. msm_h and msm_beside_h;
 * where the witness went in parts (zp__g16_slot_took_parts) eval includes the
 * L MSM over the run sent first, and msm_l only the rest. Waits on the slot's stream only.
 * The caller checks the inputs (zp__g16_check_inputs) and finishes
 * (zp__g16_finish_verify).
 */
zp_err zp__g16_slot_sums(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w,
                         zp__g16_sums *out, zp__prove_times *t, zp__ioerr *why);

/*
 * zp__g16_slot_sums with the next partition's witness sent ahead (docs/architecture.md
 * §3 rule 4). next (may be NULL) runs on the calling thread with phase
 * ZP_G16_NEXT_H while the device runs h, after this witness went up (the
 * slot's pinned buffer is free again); it returns the next witness (same
 * key, valid until that partition's zp__g16_slot_sums_next returns), or
 * NULL for none. When it gave none it is asked again with ZP_G16_NEXT_SEND
 * where the witness could go: once this partition's MSMs no longer read
 * the slot's witness (L, A and B's gather read it; B1 and B2 run after
 * that point). The witness given goes up then on the slot's copy stream. The
 * next call passes it again with w_sent = true and waits for the copy
 * instead of uploading; any other call uploads (after that copy). The
 * stage times cover the hook's time during h as h, except beside h (h
 * is then its device time). Where the MSMs over the witness ran beside h,
 * next is also called with ZP_G16_NEXT_W_SUMS once out's sums over the
 * witness (a, b1, b2, l) are made and before H's is enqueued (its return
 * ignored): a prover can start its tail there (zp__g16_early_make), on
 * a thread of its own so that H is not held up.
 */
enum { ZP_G16_NEXT_H, ZP_G16_NEXT_SEND, ZP_G16_NEXT_W_SUMS };
typedef const zp_fr *(*zp__g16_next_fn)(void *ctx, int phase);
zp_err zp__g16_slot_sums_next(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w,
                              bool w_sent, zp__g16_next_fn next, void *ctx,
                              zp__g16_sums *out, zp__prove_times *t, zp__ioerr *why);
/* Whether the slot's last eval took the witness sent ahead (no upload). */
bool zp__g16_slot_took_sent(const zp__g16_slot *s);
/* Whether the last partition's H MSM went over the key's H table. */
bool zp__g16_slot_took_pre(const zp__g16_slot *s);
/* Whether the last partition's five MSMs ran as one schedule of chunks
 * (a streaming key, after h: prove_gpu_sched.c). */
bool zp__g16_slot_took_sched(const zp__g16_slot *s);
/* Whether the last partition's H MSM summed its chunks into the slot's
 * kept buckets (every H MSM of a slot with a ring). */
bool zp__g16_slot_took_h_acc(const zp__g16_slot *s);
/* How many pairs of streamed chunks the last partition's schedule summed
 * as one MSM each (prove_gpu_sched.c, sched_pair). */
unsigned zp__g16_slot_took_pairs(const zp__g16_slot *s);
/* The evals of streamed matrices that found their first block sent during
 * the schedule before (prove_gpu_sched.c), since the slot opened. */
unsigned zp__g16_slot_took_eval_ahead(const zp__g16_slot *s);
/* Those that found rows sent into a (zp__gpu_eval_low) during the
 * schedule before, since the slot opened. */
unsigned zp__g16_slot_took_eval_low(const zp__g16_slot *s);
/* A lean slot's witness sends that went packed, and the bytes they left
 * off the bus, since it opened (prove_gpu_wpack.c). */
unsigned zp__g16_slot_took_wpack(const zp__g16_slot *s);
uint64_t zp__g16_slot_wpack_saved(const zp__g16_slot *s);
/* The pinned host bytes a lean slot's witness packs take for keys of pk's
 * shape once made (two images of the room past the witness; 0 where the
 * slot does not pack). */
uint64_t zp__g16_slot_wpack_pinned(const zp__g16_slot *s, const zp__pk *pk);
/* Packs w, the witness of the partition this lean slot runs next, for
 * its sends (a no-op for a slot that is not lean). Callable from another
 * thread (the engine's witness loader) while the slot runs the partition
 * before, up to the time its hook gives w for the send ahead
 * (ZP_G16_NEXT_SEND): it writes only the pack that partition's sends do
 * not read. */
void zp__g16_slot_pack_ahead(zp__g16_slot *s, const zp__pk *pk, const zp_fr *w);
/* The window of those buckets in a slot whose ring has two buffers of
 * `ring` bytes (0: no ring, no buckets), for a key of n_h H points: the
 * window of an MSM over one of the schedule's buffers of H points (or all
 * n_h where fewer), so that each chunk adds what its own MSM would and
 * only the reductions are saved. */
unsigned zp__g16_h_acc_window(uint64_t ring, uint64_t n_h);
/* The window of the kept buckets that the schedule's G1 MSMs over the
 * witness (L, A, B1) sum into, one MSM at a time, in a slot whose ring has
 * two buffers of `ring` bytes (0: none): the window of an MSM over half
 * of one of the schedule's buffers of points, at most 17 bits. */
unsigned zp__g16_w_acc_window(uint64_t ring);
/* Whether the slot runs the MSMs over the witness beside h (its room
 * above a, b and c holds them, and its options ask for it). */
bool zp__g16_slot_beside(const zp__g16_slot *s);
/* The slot's MSMs since it opened (a chunk of a long one counts as one):
 * all of them, those whose dense part went through the batch-affine
 * rounds, those whose ones went through them after such a dense part, and
 * those whose ones went through them first, beside a dense part without
 * them (zp__gpu_msm_last_affine, zp__gpu_msm_last_ones_affine). Tests check
 * that the MSM options that force a path (zp__g16_gpu_opts.msm) took it. */
typedef struct zp__g16_msm_paths {
    uint64_t msms, affine, ones_after, ones_first;
} zp__g16_msm_paths;
void zp__g16_slot_msm_paths(const zp__g16_slot *s, zp__g16_msm_paths *out);
/* The slot of a zp__g16_gpu (tests). */
zp__g16_slot *zp__g16_gpu_slot(zp__g16_gpu *g);
/* Whether the last eval sent the witness in parts and summed L over some
 * (zp__g16_parts_wanted; a key's first witness in a slot is summed part by
 * part to learn the plan). */
bool zp__g16_slot_took_parts(const zp__g16_slot *s);
/* The parts the slot's last learned plan cut a witness in (0: none
 * learned), and the run it sends first (*from == *to: none, one copy). */
unsigned zp__g16_slot_parts_run(const zp__g16_slot *s, unsigned *from, unsigned *to);

/*
 * A whole proof on the slot as zp__prove makes one (same checks, errors
 * and times; opt may be NULL): zp__g16_check_witness (k's key counts were
 * checked when it was made resident), zp__g16_slot_sums_next with r, s,
 * the finish's terms and vk_x made during h (zp__g16_ahead), then
 * zp__g16_finish_verify_ahead against k's verifying key.
 */
zp_err zp__g16_slot_prove(zp__g16_slot *s, const zp__g16_dkey *k, zp__proof *out,
                          const zp_fr *w, uint64_t n_w, const zp__prove_opts *opt,
                          zp__prove_times *times, zp__ioerr *why);

#endif
