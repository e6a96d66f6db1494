/*
 * An unsigned knob from the environment, for the tuning switches of the
 * GPU code and its prover stages (C and CUDA): dflt unless the variable
 * is set to a number in lo..hi; unset, empty or not a number is not 0,
 * since lo may be 0. Read at each call; callers keep what they read.
 */
#ifndef ZP_GPU_KNOB_H
#define ZP_GPU_KNOB_H

#include <stdlib.h>

static inline unsigned zp__env_knob(const char *name, unsigned lo, unsigned hi, unsigned dflt)
{
    const char *e = getenv(name);
    char *end = NULL;
    long v = e ? strtol(e, &end, 10) : 0;
    return e && *e && !*end && v >= (long)lo && v <= (long)hi ? (unsigned)v : dflt;
}

#endif
