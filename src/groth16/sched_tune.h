/*
 * A streaming schedule's copies and waits, modelled (sched_tune.c), and
 * the places of H's chunks that the model finds best. The model is the
 * schedule's own loop (prove_gpu_sched.c): the ring's buffers are filled
 * in schedule order, one copy of copy_ms at a time; a buffer is filled
 * again once the chunk before in it has been summed; a chunk starts when
 * its buffers' copies are done and the chunk before has run; the ring's
 * first buffers are filled before the schedule starts (while h runs);
 * the next partition's witness crosses once the last unit that reads the
 * witness has run, a copy of tail_bufs buffers' time ahead of the refills
 * that unit frees (0: not modelled), and the schedule ends no sooner than
 * it has crossed (the next partition's eval reads it).
 * Against a GPU's logs it gives the waits within a few ms
 * (bench/sched_model.py, bench/RESULTS.md), so the chunks' times measured
 * in one partition can place H's chunks for the next ones.
 */
#ifndef ZP_GROTH16_SCHED_TUNE_H
#define ZP_GROTH16_SCHED_TUNE_H

#include <stdbool.h>
#include <stddef.h>

/* One step of a schedule: an H chunk or a witness MSM's chunk (or two of
 * them summed as one, `pair`), the ring buffers it takes (0: resident
 * points) and its measured time on the GPU. */
typedef struct zp__sched_unit {
    bool h;
    bool pair;
    unsigned bufs;
    double ms;
} zp__sched_unit;

/* The modelled time from the schedule's start to its last unit's end (or
 * the next witness's arrival, where later), units u[order[0]],
 * u[order[1]], ... (order NULL: as they are), for a ring of `ring`
 * buffers; *wait (may be NULL) gets the waits for copies. */
double zp__sched_replay(const zp__sched_unit *u, const size_t *order, size_t n, double copy_ms,
                        unsigned ring, double tail_bufs, double *wait);

/* The copy time at which the model waits `wait` ms over u as they are
 * (the model's waits grow with it); 0 where `wait` is under a tenth of a
 * ms (then nothing waits, whatever the bus). */
double zp__sched_copy_ms(const zp__sched_unit *u, size_t n, unsigned ring, double tail_bufs,
                         double wait);

/*
 * A better order by the model: the witness units keep their order and
 * H's theirs; H's units move among the others. A first H unit stays
 * first; the last H unit stays after every witness unit where there are
 * two or more, and so do all the H units after the last witness unit
 * (its tail: the next partition's witness goes up while they run) where
 * the witness's copy is not modelled (tail_bufs 0); no pair starts in the
 * ring's last buffer (its two buffers must be side by side). out gets n indices into u; returns the
 * modelled end of out, no later than that of u as it is. Local search:
 * each H unit moved a few places at a time while that helps.
 */
double zp__sched_tune(const zp__sched_unit *u, size_t n, double copy_ms, unsigned ring,
                      double tail_bufs, size_t *out);

#endif
