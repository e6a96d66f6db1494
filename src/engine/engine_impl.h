/*
 * Internals of the proving engine (zp_engine in zkpipe.h).
 *
 * Threads:
 *  - proving workers: each takes one partition at a time from the queue
 *    (zp__eng_take), proves it with its backend and hands the proof back
 *    (zp__eng_proved). The CPU worker (worker.c) runs the stages itself.
 *    Each of a GPU's K partition slots (gpu_worker.c) is a worker too (lane
 *    "gpu0/1"): a thread that takes a partition only while its slot is
 *    admitted (the arena holds its working set next to the resident keys,
 *    docs/gpu-memory.md), enqueues the device stages on the slot's own stream,
 *    waits on that stream only, finishes the proof and hands it to the
 *    pool. zp__eng_stage records every stage for the trace.
 *  - the CPU pool ("verify" threads): verifies each proof before the job
 *    may complete; a rejected proof is proved again once on another worker.
 *  - callers: submit, await, cancel, status; they never prove.
 *
 * One mutex (e->mu) guards jobs, the queue, keys' bookkeeping and the
 * counters; it is never held while proving, verifying or loading a key, so
 * it is held only for short bookkeeping steps. The trace has its own lock.
 *
 * Lifetimes: keys are never freed before close (only their loaded contents
 * are). A job is freed when it is forgotten (finished and past its TTL or
 * pushed out by max_jobs) and nothing pins it: every task at a worker or in
 * the verify pool and every waiting awaiter holds a pin.
 */
#ifndef ZP_ENGINE_IMPL_H
#define ZP_ENGINE_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/abc.h"
#include "engine/metrics.h"
#include "engine/queue.h"
#include "engine/trace.h"
#include "groth16/gpu_prover.h"
#include "groth16/groth16.h"
#include "r1cs/synth.h"
#include "zkpipe.h"

/* ------------------------------------------------------------------ GPUs */

#define ZP__GPUS_MAX 16

struct zp__gpu;
struct zp__gpu_stream;
struct zp__g16_dkey;
struct zp__g16_slot;

/* One GPU of the engine: its arena (taken at open) and the stream that
 * uploads keys and runs GPU setups, one at a time (load_mu). */
typedef struct zp__gpudev {
    int ordinal;
    struct zp__gpu *dev;
    struct zp__gpu_stream *s;
    pthread_mutex_t load_mu;
    /* Held while a partition of a, b, c copies its witness and a, b in
     * (gpu_worker.c run_abc): the copies of one GPU's slots take turns,
     * so that one slot's copy runs beside another's MSMs. */
    pthread_mutex_t abc_mu;
    bool mu_init;
    /* Slots that may take partitions (e->mu): gpu_slots less the dormant
     * ones (a slot goes dormant when the arena cannot hold its working
     * set next to the resident keys and the other slots' sets); 0 once
     * the device failed. sets: slots holding a working set. */
    int admitted;
    int sets;
    uint64_t pinned;              /* host bytes pinned by its slots (e->mu) */
    uint64_t abc_ahead;           /* partitions of a, b, c whose a and b were
                                   * copied ahead (gpu_worker.c; e->mu), */
    uint64_t abc_a_sent;          /* and of those, whose a went up during the
                                   * schedule before (zp__g16_slot_a_ahead), */
    uint64_t abc_b_sent;          /* and whose b too (zp__g16_slot_b_sent) */
    uint64_t abc_w_late;          /* partitions of a, b, c whose witness went up
                                   * after h (zp__g16_slot_abc_w_late; e->mu) */
    uint64_t ring_bytes;          /* arena bytes of its slots' staging rings and its
                                   * keys' shared ones (e->mu) */
    /* Bytes its partitions moved host to device (e->mu): each one's
     * witness and the key points its slot streamed; of those, streamed. */
    uint64_t h2d_bytes;
    uint64_t streamed_bytes;
    bool failed;
    char why[160];                /* why a slot went dormant */
} zp__gpudev;

enum { ZP__DK_NONE = 0, ZP__DK_LOADING, ZP__DK_READY };

#define ZP__WCACHE_MAX 16
#define ZP__PIN_MAX 13 /* a key's heap arrays (keys.c) */

/* ------------------------------------------------------------------ keys */

/* PARAMS: a bellperson .params file, which proves jobs of a, b, c only
 * (it has no density maps or matrices). */
typedef enum zp__key_kind {
    ZP__KEY_ZPK = 1,
    ZP__KEY_ZKEY,
    ZP__KEY_SYNTH,
    ZP__KEY_PARAMS,
} zp__key_kind;

/* Outcomes counted per key and priority. */
enum { ZP__OUT_DONE, ZP__OUT_FAILED, ZP__OUT_CANCELLED, ZP__OUT_COUNT };

typedef struct zp__key {
    char name[ZP_NAME_MAX + 1];
    char source[256];
    zp__key_kind kind;
    zp__synth_spec spec;          /* SYNTH */
    zp_key_tier tier;             /* UNLOADED, LOADING, HOST or MAPPED */
    bool preloaded;
    uint32_t refs;                /* partitions holding the loaded key */
    zp__pk pk;                    /* valid while HOST or MAPPED */
    zp__r1cs cs;                  /* SYNTH: the circuit, for witnesses */
    uint64_t bytes;               /* host bytes while loaded */
    uint64_t reserved;            /* bytes counted while LOADING */
    uint64_t lru;                 /* tick of last use */
    double last_used;             /* engine clock, -1 never */
    uint64_t loads, evictions;
    zp_err last_err;
    char last_msg[256];
    uint32_t n_public, n_vars;    /* kept after eviction, for status */
    uint64_t domain_size;
    uint64_t jobs[ZP_PRIO_COUNT][ZP__OUT_COUNT];
    uint64_t submitted[ZP_PRIO_COUNT];
    /* Device tier, per GPU (e->mu): the resident copy, its state, the
     * slots proving with it, last use and arena bytes (of which its H
     * table's: zp__key_table_bytes). */
    struct zp__g16_dkey *dk[ZP__GPUS_MAX];
    uint8_t dk_state[ZP__GPUS_MAX];
    uint32_t dk_refs[ZP__GPUS_MAX];
    uint64_t dk_lru[ZP__GPUS_MAX];
    uint64_t dk_bytes[ZP__GPUS_MAX];
    zp__g16_plan dk_plan[ZP__GPUS_MAX]; /* its key tiers there (zp__g16_plan_make) */
    /* The pinned image of its streamed points that its copies on every GPU
     * share (zp__g16_himg, gpu_keys.c; a reference while any GPU has a
     * copy), and the GPU making a copy that streams (himg_maker - 1; 0:
     * none), whose image the others wait for rather than make their own. */
    struct zp__g16_himg *himg;
    int himg_maker;
    /* SYNTH keys of an engine with GPUs and no CPU worker are set up on
     * each GPU (setup_gpu.c) and never have host points; the toxic waste
     * is kept while loaded so every GPU makes the same key. TEST-ONLY keys
     * by definition. */
    bool gpu_setup;
    zp__toxic toxic;
    zp_h_conv conv;
    /* Pinned tier (cfg.pinned_key_bytes): the page-locked regions. */
    void *pin_ptr[ZP__PIN_MAX];
    uint32_t n_pin;
    uint64_t pin_bytes;
    /* Reused synthetic witnesses (cfg.synth_witness_cache), e->mu. */
    zp_fr *wcache[ZP__WCACHE_MAX];
    uint8_t wc_state[ZP__WCACHE_MAX];
    bool wc_pinned[ZP__WCACHE_MAX]; /* page-locked: GPU slots upload from it */
    /* PARAMS: the density maps of its first job of a, b, c that a GPU
     * ran (e->mu), given to each load of it that a GPU uses (abc.c). */
    zp__bitmap abc_a, abc_b;
} zp__key;

/* ------------------------------------------------------------------ jobs */

/* The kind of a partition of evaluated a, b, c (engine/abc.h): data is
 * the engine's copy of its zp__abc_part. Not a zp_witness_kind of the
 * public API: zp_engine_submit refuses it. */
#define ZP__WITNESS_ABC 4

typedef struct zp__wit {
    zp_witness_kind kind;
    char *path;                   /* FILE */
    const uint8_t *data;          /* MEMORY: owned copy or borrowed */
    size_t len;
    uint64_t hash;                /* MEMORY: of data, for idempotent ids */
    void (*release)(void *ctx, const void *data); /* NULL: data is our copy */
    void *release_ctx;
    uint64_t seed;                /* SYNTH */
} zp__wit;

enum { ZP__PART_WAITING, ZP__PART_PROVING, ZP__PART_VERIFYING, ZP__PART_DONE };

typedef struct zp__part {
    uint8_t state;
    uint8_t attempts;             /* proving attempts started */
    int16_t worker[2];            /* that made the proof of attempt 1, 2 */
    zp__proof proof;
    uint8_t bytes[ZP__PROOF_BYTES];
} zp__part;

typedef struct zp__job {
    zp__qjob q;                   /* first: the queue hands back &job->q */
    char id[ZP_JOB_ID_MAX + 1];
    struct zp__job *hnext;        /* hash chain */
    struct zp__job *prev, *next;  /* all jobs, in submission order */
    zp__key *key;
    zp_priority prio;
    uint32_t k;
    zp__wit *wit;
    uint32_t n_wit;
    zp_job_state state;
    zp_err err;
    char msg[256];
    uint32_t done, running;
    zp__part *parts;
    uint32_t n_public;            /* set by the first partition proved */
    zp_fr *pub;                   /* k × n_public, Montgomery form */
    double t_submit, t_start, t_finish;
    uint32_t pins;
    bool forgotten;               /* out of the table; freed at the last unpin */
} zp__job;

/* --------------------------------------------------------------- workers */

typedef struct zp__worker {
    struct zp_engine *e;
    int index;                    /* proving workers 0..n-1, then the pool */
    char name[32];
    pthread_t thread;
    bool started;
    bool busy;
    char job[ZP_JOB_ID_MAX + 1];
    uint32_t part;
    double busy_since, busy_s;
    uint64_t done;
    /* CPU worker scratch, kept between partitions: malloc'ing a few GiB per
     * partition costs page faults on every byte. */
    zp_fr *w;
    uint64_t w_cap;
    zp_fr *abc;
    uint64_t abc_cap;
    /* GPU slot workers: the GPU (-1 for CPU workers and the pool), the
     * slot's index on it, and its working set (kept between partitions
     * while the key shape fits). */
    int gpu;
    int slot_index;
    bool dormant;                 /* takes no more work (e->mu) */
    struct zp__g16_slot *slot;
    uint64_t slot_pinned;         /* its pinned witness buffer's bytes */
    uint64_t slot_ring;           /* its staging ring's arena bytes (0: none) */
    struct zp__loader *loader;    /* loads its next witness (loader.h), or NULL */
    const zp__pk *pack_pk;        /* the key of the witness it loads, for its pack */
    struct zp__abc_pre *abc_pre;  /* a, b of its next partition of a, b, c, or NULL */
} zp__worker;

/* A proved partition on its way through the verify pool. */
typedef struct zp__vtask {
    struct zp__vtask *next;
    zp__job *job;
    uint32_t part;
    int worker;
} zp__vtask;

/* Test hook: called by the pool before verifying; returning true rejects
 * the proof as if it did not verify. */
typedef bool (*zp__verify_hook)(void *ctx, const char *job, uint32_t part, unsigned attempt,
                                int worker);
/* Test hook: called (e->mu released) when a slot has taken partition part
 * of job ahead (zp__eng_take_ahead). */
typedef void (*zp__ahead_hook)(void *ctx, const char *job, uint32_t part);

struct zp_engine {
    zp_engine_config cfg;
    zp__g16_gpu_opts gpu_opts;    /* keys made resident and slots opened with */
    int threads_per_worker;
    double epoch;                 /* zp__mono_now() at open */
    pthread_mutex_t mu;
    pthread_cond_t work_cv;       /* proving workers wait for partitions */
    pthread_cond_t verify_cv;     /* the pool waits for proofs */
    pthread_cond_t job_cv;        /* awaiters wait for jobs to finish */
    pthread_cond_t key_cv;        /* key loads and budget waits */
    bool stop;                    /* proving workers exit */
    bool vstop;                   /* the pool exits once its queue is empty */
    bool paused;                  /* tests: workers take nothing while set */
    bool closing;                 /* no new work; awaiters return */
    uint32_t awaiters;

    zp__queue queue;
    zp__job **buckets;            /* hash table of jobs by id */
    uint32_t n_buckets;
    zp__job *first, *last;        /* all remembered jobs, oldest first */
    uint32_t n_jobs, n_unfinished;
    uint64_t id_counter;

    zp__key **keys;
    uint32_t n_keys, cap_keys;
    uint64_t key_used;            /* bytes loaded or reserved */
    uint64_t pinned_used;         /* bytes of keys page-locked or being so */
    uint64_t lru_tick;

    zp__worker *workers;          /* n_provers, then n_verifiers */
    int n_provers, n_verifiers;   /* provers: CPU workers, then GPU slots */
    zp__gpudev gpus[ZP__GPUS_MAX];
    int n_gpus;
    zp__vtask *vhead, *vtail;

    zp__trace trace;

    uint64_t jobs_submitted, jobs_done, jobs_failed, jobs_cancelled;
    uint64_t proofs_verified, proofs_rejected, partitions_retried;
    /* Tests only: the next fault_left partitions prover fault_worker runs
     * fail with fault_code before their stages, as a device fault would
     * (zp__eng_fault); fault_worker -1: none, -2: any prover. */
    atomic_int fault_left;
    int fault_worker;
    zp_err fault_code;
    uint32_t parts_in_flight;
    zp__hist stage_hist[ZP__ST_COUNT];

    zp__verify_hook vhook;
    void *vhook_ctx;
    zp__ahead_hook ahook;
    void *ahook_ctx;
};

/* Seconds since the engine opened. */
double zp__eng_now(const zp_engine *e);

/* jobs.c: the table (init/free at open/close, prune forgets expired
 * jobs), lookup and lifetime (e->mu held). */
zp_err zp__jobs_init(zp_engine *e);
void zp__jobs_free(zp_engine *e);
void zp__jobs_prune(zp_engine *e);
zp__job *zp__job_find(zp_engine *e, const char *id);
void zp__job_unpin(zp_engine *e, zp__job *j);
/* Moves j to a final state, drops its waiting partitions, counts the
 * outcome and wakes awaiters. */
void zp__job_finish(zp_engine *e, zp__job *j, zp_job_state st, zp_err err, const char *fmt,
                    ...) __attribute__((format(printf, 5, 6)));

/* keys.c. acquire waits for a load or for room under the budget; e->mu
 * NOT held by the caller. release takes e->mu itself too. */
zp_err zp__key_acquire(zp_engine *e, zp__key *k, zp__ioerr *why);
/* The injected fault of prover w's next partition (tests), else ZP_OK. */
zp_err zp__eng_fault(zp_engine *e, const zp__worker *w, zp__ioerr *why);
/* Whether a prover can still take work: a CPU worker, or a slot of a GPU
 * that has not failed (e->mu held). */
bool zp__eng_can_prove(const zp_engine *e);
/* After a GPU failed (e->mu held): when no prover is left, every job not
 * finished fails with ZP_E_GPU_FATAL, instead of waiting for ever. */
void zp__eng_gpu_lost(zp_engine *e);
/* A key's long work as cfg.key_progress sees it, with the key's name: a
 * zp__progress for library calls (its fn NULL where the engine has no
 * key_progress). kp must outlive the calls. */
typedef struct zp__key_progress {
    const zp_engine_config *cfg;
    const char *name;
} zp__key_progress;
zp__progress zp__key_progress_of(const zp__key_progress *kp);
void zp__key_release(zp_engine *e, zp__key *k);
/* The same with e->mu held: the scheduler gives a partition's reference
 * back before its job may finish, so that a caller who evicts the key
 * right after zp_engine_await does not find it still in use. */
void zp__key_release_locked(zp_engine *e, zp__key *k);
zp__key *zp__key_find(zp_engine *e, const char *name); /* e->mu held */
/* Host bytes k holds while loaded (its key, mapping, circuit). */
uint64_t zp__key_loaded_bytes(const zp__key *k);
void zp__keys_free(zp_engine *e);

/* Scheduler calls for proving workers (sched.c), e->mu NOT held.
 * take blocks until a partition is available for worker w (true) or the
 * engine stops (false); the job comes back pinned and the partition marked
 * proving. proved reports the outcome: err != 0 fails the job with why;
 * otherwise the proof goes to the pool (or straight to done without
 * verification). The key reference taken for the partition passes with
 * the proof and is released by the pool. */
bool zp__eng_take(zp_engine *e, zp__worker *w, zp__job **job, uint32_t *part);
/* zp__eng_take without waiting (false when none is ready now) and without
 * marking w busy: a GPU slot takes its next partition while it still runs
 * one (gpu_worker.c), and calls zp__eng_busy when it starts on it. */
bool zp__eng_take_ahead(zp_engine *e, zp__worker *w, zp__job **job, uint32_t *part);
void zp__eng_busy(zp_engine *e, zp__worker *w, const zp__job *job, uint32_t part);
/* Whether partitions of a more urgent priority than job's wait now; then a
 * partition taken ahead goes back (zp__eng_untake: before its job's fresh
 * partitions, as if never taken) so that the urgent ones start first. */
bool zp__eng_more_urgent(zp_engine *e, const zp__job *job);
void zp__eng_untake(zp_engine *e, zp__job *job, uint32_t part);
void zp__eng_proved(zp_engine *e, zp__worker *w, zp__job *job, uint32_t part, zp_err err,
                    const char *why, const zp__proof *proof, const uint8_t *bytes,
                    const zp_fr *pub, uint32_t n_public, bool key_held);
/* Records one stage of a partition: trace event and histogram. */
void zp__eng_stage(zp_engine *e, uint32_t lane, zp__stage st, const zp__job *job, uint32_t part,
                   double t0, double t1);
/* The same for the stage that carries the bytes the partition moved host
 * to device (a GPU slot's msm stage; zp__trace_add_io). */
void zp__eng_stage_io(zp_engine *e, uint32_t lane, zp__stage st, const zp__job *job,
                      uint32_t part, double t0, double t1, const zp__trace_io *io);
/* True when the job was cancelled or failed meanwhile (e->mu NOT held):
 * the worker may stop early. */
bool zp__eng_job_dead(zp_engine *e, zp__job *job);

/* Puts a partition a worker took back at the front of its job, as if it
 * had never been taken (the attempt is not counted), and releases the
 * worker. For a GPU slot that found no room for the partition. */
void zp__eng_requeue(zp_engine *e, zp__worker *w, zp__job *job, uint32_t part);

/* worker.c */
void *zp__cpu_worker_main(void *arg);
/* Grows a worker's scratch array to n values (never shrinks). */
zp_err zp__worker_reserve(zp_fr **p, uint64_t *cap, uint64_t n);
/* abc.c: whether j's partitions are of a, b, c; proves one of them with
 * the CPU stages on worker w (taken and marked busy), handing the outcome
 * to zp__eng_proved. */
bool zp__job_is_abc(const zp__job *j);
/* For a GPU: whether k's loaded key (referenced by the caller) has in's
 * density maps, giving a PARAMS key those of its first such partition
 * (and empty matrices) when it has none; false when they differ (or
 * memory ran out): then the partition runs with the CPU stages. */
bool zp__key_abc_maps(zp_engine *e, zp__key *k, const zp__abc_in *in);
void zp__eng_run_abc(zp_engine *e, zp__worker *w, zp__job *j, uint32_t part);
void *zp__verify_main(void *arg);
void zp__worker_scratch_free(zp__worker *w);
/* Partition part's witness (n_vars values of the loaded, referenced key),
 * w[0] = 1 checked: decoded or generated into dst, or, for a synthetic
 * witness with cfg.synth_witness_cache, the cached copy. *use says which
 * (valid while the key reference is held). */
zp_err zp__load_witness(zp_engine *e, zp_fr *dst, const zp_fr **use, const zp__job *j,
                        uint32_t part, zp__key *key, uint32_t n_vars, zp__ioerr *why);
/* Stage finish of both kinds of worker: fresh r, s from the OS, the three
 * points (zp__g16_finish) and their 192 bytes. */
zp_err zp__eng_finish(zp__proof *proof, uint8_t *bytes, const zp__pk *pk,
                      const zp__g16_sums *sums, zp__ioerr *why);
/* Frees a key's cached synthetic witnesses (e->mu held). */
void zp__key_drop_witnesses(zp__key *k);

/* gpu_worker.c: the engine's GPUs and their slot workers. */
zp_err zp__gpus_open(zp_engine *e);
void zp__gpus_close(zp_engine *e);
void *zp__gpu_worker_main(void *arg);
/* Marks d failed for good where err is fatal or d is no longer healthy
 * (logged once; its partitions go elsewhere). */
void zp__gpudev_failed(zp_engine *e, zp__gpudev *d, zp_err err);
/* Whether d failed for good (zp__gpudev_failed). */
bool zp__gpudev_out(zp_engine *e, const zp__gpudev *d);

/* gpu_keys.c: the device tier of keys. Takes a reference to k's copy on
 * d, making it first when needed (k's host part loaded and referenced by
 * the caller); drops one; evicts one idle key of GPU g other than keep
 * (false when none could go). */
zp_err zp__dkey_acquire(zp_engine *e, zp__gpudev *d, zp__key *k, zp__g16_dkey **out,
                        zp__ioerr *why);
void zp__dkey_release(zp_engine *e, int g, zp__key *k);
bool zp__dkey_evict_for(zp_engine *e, int g, const zp__key *keep);
/* The working sets a key planned on d now makes room for (e->mu held):
 * the slots still without one, on a GPU where none holds one yet; none
 * where some slot holds one, as admission decides the rest
 * (docs/gpu-memory.md). */
unsigned zp__gpudev_sets_wanted(const zp__gpudev *d);
/* pk's plan on d with room for `sets` working sets beside it, in what d's
 * arena has free now. */
zp_err zp__dkey_plan(zp_engine *e, const zp__gpudev *d, unsigned sets, const zp__pk *pk,
                     zp__g16_plan *plan, zp__ioerr *why);
/* Frees the resident copies of k on every GPU (e->mu held; no refs). */
void zp__key_drop_device(zp_engine *e, zp__key *k);
/* Arena bytes of the H table of k's copy on GPU g, 0 without one (e->mu
 * held). */
uint64_t zp__key_table_bytes(const zp__key *k, int g);
/* Pinned host bytes of what k's copies stream (e->mu held): each GPU's
 * matrix images, and each image of points once however many GPUs share it
 * (none where it is the key's own pinned memory). */
uint64_t zp__key_streamed_bytes(const zp__key *k, int n_gpus);
/* Makes k (loaded and referenced by the caller) resident on every GPU of
 * the engine, in parallel; the first error, with *why. */
zp_err zp__key_preload_devices(zp_engine *e, zp__key *k, zp__ioerr *why);

/* engine_metrics.c */
zp_err zp__eng_metrics(zp_engine *e, char **out, size_t *len);

/* zp_engine_open with the GPU prover's options o (NULL: the defaults with
 * cfg->gpu_tuning), o->tuning in place of cfg->gpu_tuning: for tests that
 * force a slot's paths (zp__g16_gpu_opts). ZP_E_INVALID_ARG for options
 * out of range, else as zp_engine_open. */
zp_err zp__engine_open_opts(zp_engine **out, const zp_engine_config *cfg,
                            const zp__g16_gpu_opts *o);

/* For tests. */
void zp__engine_set_verify_hook(zp_engine *e, zp__verify_hook hook, void *ctx);
void zp__engine_set_ahead_hook(zp_engine *e, zp__ahead_hook hook, void *ctx);
/* While paused, proving workers finish what they hold but take nothing
 * new, so a test can line up a queue and then watch the order it runs in. */
void zp__engine_pause(zp_engine *e, bool paused);

#endif
