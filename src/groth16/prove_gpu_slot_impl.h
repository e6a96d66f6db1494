/*
 * Internal to the GPU prover's slots (prove_gpu_slot.c, their stages in
 * prove_gpu_stage.c, their MSMs in prove_gpu_msm.c and prove_gpu_sched.c,
 * the witness in parts in prove_gpu_parts.c): a slot's fields and the
 * helpers they share.
 */
#ifndef ZP_G16_PROVE_GPU_SLOT_IMPL_H
#define ZP_G16_PROVE_GPU_SLOT_IMPL_H

#include <stdatomic.h>

#include "groth16/gpu_prover.h"
#include "groth16/prove_gpu_stages.h"

/* Buffers of a ring in the schedule of a streaming key's MSMs: while the
 * SMs sum H's chunk in one, the bus fills the others. */
#define ZP_G16_RING_BUFS 4

struct zp__g16_slot {
    zp__gpu *dev;
    zp__g16_gpu_opts opts;                  /* those it was opened with */
    zp__gpu_msm_opts msm;                   /* its device's, which it is sized by */
    zp__g16_msm_paths paths;                /* zp__g16_slot_msm_paths */
    unsigned windows;                       /* G1 windows a pass it has room for */
    zp__gpu_stream *stream;                 /* eval, h, and the MSMs after h */
    unsigned rank; /* its streams' precedence on the GPU (zp__g16_slot_open_plan) */
    /* The next partition's witness goes up on copy_stream while this one's
     * last MSMs run (zp__g16_slot_sums_next): next_witness is the host
     * witness the hook gave, sent_witness the one whose copy into witness
     * is enqueued on copy_stream (or NULL). */
    zp__gpu_stream *copy_stream;
    const zp_fr *next_witness, *sent_witness;
    zp__g16_next_fn next_fn;                /* the hook, while sums_next runs */
    void *next_ctx;
    bool took_sent;                         /* the last eval's witness was sent */
    bool took_pre;                          /* the last H MSM went over the key's table */
    bool took_sched;                        /* the last MSMs ran as one schedule */
    bool took_h_acc;                        /* the last H MSM summed into h_acc */
    unsigned took_pairs;                    /* pairs the last schedule summed as one MSM each */
    uint64_t sched_runs;                    /* schedules run (the debug log's run=) */
    unsigned took_eval_ahead;               /* evals that found their first block sent */
    unsigned took_eval_low;                 /* evals that found rows sent into a */
    /* A lean slot's witnesses packed (prove_gpu_wpack.c): wpack_next is
     * the pack the next witness goes into (the witness sent ahead for
     * this partition is in the other); wpack_saved the bytes the packed
     * sends left off the bus, took_wpack the packed sends. */
    struct zp__g16_wpack *wpack[2];
    int wpack_next;
    uint64_t wpack_saved;
    unsigned took_wpack;
    /* The witness in parts (prove_gpu_parts.c). l_split: the L MSM is
     * l_head, the sum over the parts eval summed, plus the MSMs over the
     * n_l_rest ranges l_rest[i] = [from, to) of the witness. plan_*: what
     * the learning upload for plan_key in plan_parts parts measured, and
     * the run of parts [run_from, run_to) it chose to send first (empty:
     * none, one copy). */
    bool l_split, took_parts;
    zp_g1_jac l_head;
    uint64_t l_rest[2][2];
    unsigned n_l_rest;
    const zp__g16_dkey *plan_key;
    unsigned plan_parts, run_from, run_to;
    /* The shape it was sized for. */
    uint64_t n_vars, domain_size, n_a, n_b, n_l, n_h;
    /* The regions (prove_gpu_slot.c's layout): the witness, the work
     * region (a | b | c, then the H scalars and the MSM scratch from
     * scratch_off on) and, where n_a or n_b exceeds the domain, the
     * gathered A and B scalars. */
    zp__gpu_buf witness, work, ab_scalars;
    uint64_t scratch_off, scratch_end;
    /* A lean slot (zp__g16_slot_open_plan): witness is c's region of work,
     * not a region of its own; lean_w is the host witness of the partition
     * in flight, sent there again after h. */
    bool lean;
    /* A usual slot's witness goes up after h too, from lean_w, where a
     * partition of a, b, c sets this (zp__g16_slot_abc_w_late). */
    bool w_late;
    const zp_fr *lean_w;
    zp_fr *host_witness2; /* lean: the other host buffer (zp__g16_slot_witness_buf) */
    /* The MSMs over the witness beside h (prove_gpu_msm.c): side_stream, a
     * stream of their own (NULL: the slot has no room for them above a, b
     * and c, or its options run them after h), and in that room
     * side_gather, where they gather scalars (or ab_scalars), and
     * side_scratch, their scratch. The MSM helpers run on msm_stream, in
     * msm_scratch, and gather into gather: the slot's stream, its MSM
     * scratch and a (or ab_scalars) after h; side_stream, side_scratch and
     * side_gather beside it (zp__g16_slot_msm_on). */
    zp__gpu_stream *side_stream;
    zp_fr *side_gather;
    zp__gpu_buf side_scratch;
    /* The drop-in's MSMs over the witness, run on side_stream while its a
     * and b go up (zp__g16_slot_put_abc): w_early says that w_sums (L, A,
     * B1, B2) and w_times hold them, for h to take instead of running them
     * beside it. */
    bool w_early;
    zp__g16_sums w_sums;
    zp__prove_times w_times;
    zp__gpu_stream *msm_stream;
    zp__gpu_buf msm_scratch;
    zp_fr *gather;
    zp_fr *host_witness;                    /* pinned, n_vars */
    /* Key tiers: the staging ring, two buffers of ring_buffer bytes (0:
     * none), filled on ring_stream from a key's pinned points while the
     * MSM stream sums the other (prove_gpu_msm.c); streamed: its bytes
     * sent since the slot opened. */
    uint64_t ring_buffer;
    zp__gpu_buf ring;
    zp__gpu_stream *ring_stream;
    uint64_t streamed;
    /* The H MSM's kept buckets (zp__gpu_msm_acc) where the slot has a
     * ring, at zp__g16_h_acc_window: every H chunk sums into
     * them, reduced once after the last. */
    zp__gpu_buf h_acc;
    /* The kept buckets of the schedule's G1 MSMs over the witness, at
     * zp__g16_w_acc_window: one MSM's chunks at a time sum into them
     * (zp__g16_accs), where the slot has a ring. */
    zp__gpu_buf w_acc;
    /* The schedule of a streaming key's MSMs (prove_gpu_sched.c) cuts the
     * ring into ZP_G16_RING_BUFS buffers, each filled on a copy stream of
     * its own: ring_q[0] is ring_stream, the others the slot's. sched: its
     * chunks for the key whose zp__g16_dkey.id is sched_id (and the L
     * ranges it was made for), or NULL. */
    zp__gpu_stream *ring_q[ZP_G16_RING_BUFS];
    struct zp__g16_chunk *sched;
    size_t sched_n;
    uint64_t sched_id;
    bool sched_l_split;
    unsigned sched_n_l_rest;
    uint64_t sched_l_rest[2][2];
    /* Chunks already crossing before their MSMs start (sent while h
     * runs: zp__g16_slot_prefetch) for pre_key (NULL: none). Without the
     * schedule (pre_n 0), one into buffer 0: points from pre_at of array
     * pre_part, half the ring's bytes. With it, the schedule's first pre_n
     * streamed chunks into its buffers 0 .. pre_n - 1, as made for the
     * schedule of generation pre_gen (sched_gen counts the schedules
     * sched_make made; it keeps one while nothing changes). */
    const zp__g16_dkey *pre_key;
    zp__g16_part pre_part;
    uint64_t pre_at;
    size_t pre_n;
    uint64_t pre_gen, sched_gen;
    /* Where k's matrices stream: the next eval's first block, sent into
     * ring half ev_half on ring_stream during the schedule's last chunks
     * (prove_gpu_sched.c) for the next eval of the key whose
     * zp__g16_dkey.id is ev_id (0: none; ids start at 1). */
    uint64_t ev_id;
    unsigned ev_half;
    /* And its rows ev_low.r_lo and up, sent on ring_stream into the bottom
     * of a as H's chunks leave their scalars there, for the next eval of
     * the key whose id is ev_low_id (0: none): an eval that does not read
     * them waits for their copies before it writes a. ev_end: the rows the
     * ring's blocks cover, which the first block was cut for. ev_r_lo: the
     * r_lo found for the key ev_plan_id with room ev_room and pieces of
     * ev_piece bytes (kept while those stay). */
    uint64_t ev_low_id, ev_end, ev_plan_id, ev_room, ev_piece, ev_r_lo;
    zp__gpu_eval_low ev_low;
    /* The schedule's runs since sched_make made it: its H chunks are
     * placed again from the second one's times (sched_tune.h). */
    unsigned sched_made_runs;
    /* The bytes the last send of the next partition's witness during the
     * MSMs put on the bus (zp__g16_slot_send_next; 0: none yet): the copy
     * the retune models after the schedule's last witness chunk. */
    uint64_t next_bytes;
    bool counted;                           /* in dev's count of slots */
    /* The pinned buffers a caller's a and b go up through
     * (prove_gpu_abc.c): taken at the first such partition, abc_stage_bytes
     * each (0: not yet, or refused, and they go up unstaged). */
    void *abc_stage[2];
    uint64_t abc_stage_bytes;
    bool abc_stage_tried; /* taken or refused: not asked again */
    /* The next partition of a, b, c's a (zp__g16_slot_a_ahead), sent into
     * the bottom of a on copy_stream as the schedule's H chunks leave
     * their scalars there (prove_gpu_sched.c): a_next its pinned image of
     * a_next_m values, read only once *a_next_ready >= 1; a_sent the values of
     * a enqueued so far (the image's, then zeros to the domain); a_done
     * the image all of whose values are enqueued (NULL: none); a_pending:
     * copies into a may still run on copy_stream, so whatever writes a
     * next waits for that stream first. */
    const zp_fr *a_next;
    uint64_t a_next_m, a_sent;
    const atomic_int *a_next_ready;
    const zp_fr *a_done;
    bool a_pending;
    /* And its b, on a lean slot whose MSM scratch is b's third: sent into
     * b's third on copy_stream once the schedule's last chunk over the
     * witness has run, its H chunks after that summing in c's third
     * instead (the witness's, dead by then); b_done the image whose b is
     * all enqueued (NULL: none). */
    const zp_fr *b_done;
};

static inline uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Whether the partition in flight sends its witness up again after h, from
 * lean_w while H's MSM runs: a lean slot's, or a usual one's with w_late. */
static inline bool zp__g16_slot_w_after_h(const zp__g16_slot *s) { return s->lean || s->w_late; }

/* MSMs longer than a chunk run chunk by chunk (prove_gpu_slot.c): on a
 * slot with a staging ring a buffer's worth of points at a time. */
uint64_t zp__g16_chunk_points(bool g2);
uint64_t zp__g16_slot_chunk(const zp__g16_slot *s, bool g2);

/* Before a partition's upload or eval writes a: the copies of a next a
 * sent during the schedule before (a_pending) come first, and what they
 * sent stops counting (prove_gpu_abc.c keeps it where the partition is
 * the one it was sent for). */
zp_err zp__g16_slot_a_drop(zp__g16_slot *s);

/* The h stage enqueued on the slot's stream (prove_gpu_stage.c). */
zp_err zp__g16_slot_h_enqueue(zp__g16_slot *s, const zp__g16_dkey *k);

/* Where the next MSMs run (msm_stream, msm_scratch, gather): after h, or
 * beside it. */
void zp__g16_slot_msm_on(zp__g16_slot *s, bool beside);

/* h, then the five MSMs (prove_gpu_msm.c): where the slot has a
 * side_stream, L, A, B1 and B2 beside h and H after both, else all after
 * h; the hook next
 * asked for the next witness while h runs (zp__g16_slot_sums_next). h's
 * failure in *h_err, the MSMs' returned. */
zp_err zp__g16_slot_h_msms(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_next_fn next,
                           void *ctx, zp__g16_sums *out, zp__prove_times *t, zp_err *h_err);

/* Sends the first streamed chunk of k's array `part` into the ring's
 * first buffer now (nothing when all of it is resident), for the MSM over
 * it that comes next on the ring (prove_gpu_msm.c). */
zp_err zp__g16_slot_prefetch(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_part part);

/* A lean slot's packed witnesses (prove_gpu_wpack.c; packed by
 * zp__g16_slot_pack_ahead): _send puts w into the slot's witness region
 * on the copy stream, packed where pack i holds w, else plain, and with
 * `last` lets pack i go (its witness's second send); *bytes gets what
 * crosses the bus; _free at close. */
typedef struct zp__g16_wpack zp__g16_wpack;
zp_err zp__g16_wpack_send(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w, int i,
                          bool last, uint64_t *bytes);
void zp__g16_wpack_free(zp__g16_slot *s);

/* The schedule of chunks the slot's MSMs run for k (prove_gpu_sched.c),
 * made or kept as zp__g16_sched_run would, listed in order (tests: every
 * point once, the pairs, the ring's buffers; no device work). msm: 0 H,
 * 1 L, 2 A, 3 B1, 4 B2; pair: 1 summed with the next as one MSM, 2 that
 * next one. NULL (and *n 0) where it cannot be made; the caller frees. */
typedef struct zp__g16_sched_entry {
    unsigned msm, pair;
    bool streamed;
    uint64_t p, len; /* points [p, p + len) of the MSM's array */
} zp__g16_sched_entry;
zp__g16_sched_entry *zp__g16_sched_list(zp__g16_slot *s, const zp__g16_dkey *k, size_t *n);

/* H's chunks of s's schedule for k placed again by the copy model
 * (sched_tune.h) from ms[j], the time entry j of zp__g16_sched_list took
 * on the GPU (a pair's time on its first entry, 0 on the second; ms NULL:
 * the times of the schedule's last run), and the copies' waits of that
 * run: what zp__g16_sched_run does after the schedule's second run. True
 * where the order changed (the schedule's generation then moves on: chunks
 * sent ahead for the old one are not taken). */
bool zp__g16_sched_retune(zp__g16_slot *s, const zp__g16_dkey *k, const double *ms,
                          double wait_ms);

/* Opens the ring's copy streams past ring_stream (ring_q), and frees them
 * and the schedule (prove_gpu_sched.c). */
zp_err zp__g16_slot_ring_open(zp__g16_slot *s);
void zp__g16_slot_ring_close(zp__g16_slot *s);
/* Before the ring is used other than by the eval it was sent ahead for
 * (zp__g16_slot.ev_id): that is given up, and the ring's copy streams
 * wait for its copy. */
zp_err zp__g16_ring_take(zp__g16_slot *s);

/*
 * Copies from pageable host memory (a caller's a, b, c) to the device
 * through two pinned buffers of `bytes` each: host threads fill one while
 * the bus empties the other on its stream (q[i] carries buf[i]'s copies).
 * A plain copy from pageable memory goes through one driver thread; this
 * one runs at the slower of the host's parallel memcpy and the bus. With
 * no buffers (buf[0] NULL) each put is a plain copy on q[0].
 * Staged, zp__g16_stage_put returns once host memory is read; either way
 * zp__g16_stage_end waits for every copy put (call it also after a failed
 * put: neither the buffers nor host memory may go before) and gives the
 * first error.
 */
typedef struct zp__g16_stager {
    zp__gpu_stream *q[2];
    void *buf[2];
    uint64_t bytes;
    int threads;   /* host threads that copy (<= 0: one per online CPU) */
    unsigned next; /* the buffer the next chunk fills */
    bool busy[2];  /* a copy out of buf[i] may still be in flight */
} zp__g16_stager;
zp_err zp__g16_stage_put(zp__g16_stager *st, void *dev, const void *host, uint64_t bytes);
zp_err zp__g16_stage_end(zp__g16_stager *st);

/* Counts the MSM that just ran on st in s->paths (after each one that
 * succeeded). */
void zp__g16_slot_count_msm(zp__g16_slot *s, const zp__gpu_stream *st);

/* One chunk of H's MSM (scalars sc in standard form, without the 0/1
 * split) on the slot's MSM stream and scratch: into acc where it is not
 * NULL (the kept buckets), else its own MSM added to *out. */
zp_err zp__g16_h_chunk(zp__g16_slot *s, zp_g1_jac *out, zp__gpu_msm_acc *acc,
                       const void *d_points, const zp_fr *sc, uint64_t len);
/* H's kept buckets for one H MSM of k: *on false where the slot has none
 * (no ring); _end adds their sum to *out. */
zp_err zp__g16_h_acc_begin(zp__g16_slot *s, const zp__g16_dkey *k, zp__gpu_msm_acc *acc,
                           bool *on);
zp_err zp__g16_h_acc_end(zp__g16_slot *s, zp__gpu_msm_acc *acc, zp_g1_jac *out);
/* The witness the hook gave (s->next_witness) up into the slot's witness
 * region on the copy stream, after what the MSMs' stream has enqueued so
 * far (the last reads of the witness). */
zp_err zp__g16_slot_send_next(zp__g16_slot *s, const zp__g16_dkey *k);
/* The MSMs over the witness on the side stream now (its waits on the
 * slot's stream already enqueued), into s->w_sums (zp__g16_slot_put_abc). */
zp_err zp__g16_slot_w_early(zp__g16_slot *s, const zp__g16_dkey *k);

/* A streaming key's five MSMs as one schedule (prove_gpu_sched.c):
 * whether k's run so on s, the run (after h, on the slot's stream), and
 * its first streamed chunk sent ahead while h runs. */
bool zp__g16_sched_on(const zp__g16_slot *s, const zp__g16_dkey *k);
zp_err zp__g16_sched_run(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_sums *out,
                         zp__prove_times *t);
zp_err zp__g16_sched_prefetch(zp__g16_slot *s, const zp__g16_dkey *k);

/* Σ w[v]·P[p0 + v - from] for from <= v < to (w Montgomery, device), P
 * k's G1 array `part`, resident points where they lie and streamed ones
 * through the slot's ring, in the slot's MSM scratch, chunk by chunk. */
zp_err zp__g16_slot_msm_g1_w(zp__g16_slot *s, const zp__g16_dkey *k, zp__g16_part part,
                             zp_g1_jac *out, uint64_t p0, const zp_fr *w, uint64_t from,
                             uint64_t to);

/* The witness in parts (prove_gpu_parts.c). zp__g16_parts_wanted: the
 * parts eval sends w in (1: one copy). zp__g16_parts_put: w up in that
 * many parts (> 1), the L MSM over some of them summed meanwhile
 * (s->l_split); the slot's stream then waits for the whole copy.
 * zp__g16_parts_msm_l: L over the rest after that. */
unsigned zp__g16_parts_wanted(const zp__g16_slot *s, const zp__pk *pk, const zp_fr *w);
zp_err zp__g16_parts_put(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w,
                         unsigned parts);
zp_err zp__g16_parts_msm_l(zp__g16_slot *s, const zp__g16_dkey *k, zp_g1_jac *out);

#endif
