/*
 * A very small test harness: CHECK records a failure with file and line and
 * goes on; RUN runs one test function; FINISH prints the closing line and
 * returns the exit status (0 only when nothing failed).
 */
#ifndef ZP_CHECK_H
#define ZP_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failed_count;
static int check_test_failed;
static int tests_passed, tests_failed;

#define CHECK(cond)                                                             \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            check_failed_count++;                                               \
            check_test_failed = 1;                                              \
        }                                                                       \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                      \
    do {                                                                        \
        long long va_ = (long long)(a), vb_ = (long long)(b);                   \
        if (va_ != vb_) {                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n",   \
                    __FILE__, __LINE__, #a, #b, va_, vb_);                      \
            check_failed_count++;                                               \
            check_test_failed = 1;                                              \
        }                                                                       \
    } while (0)

#define CHECK_MEM(a, b, n) CHECK(memcmp((a), (b), (n)) == 0)

#define RUN(fn)                                                                 \
    do {                                                                        \
        check_test_failed = 0;                                                  \
        fn();                                                                   \
        if (check_test_failed) {                                                \
            tests_failed++;                                                     \
            fprintf(stderr, "FAIL %s\n", #fn);                                  \
        } else {                                                                \
            tests_passed++;                                                     \
            printf("ok   %s\n", #fn);                                           \
        }                                                                       \
    } while (0)

#define FINISH()                                                                \
    (printf("%d passed, %d failed\n", tests_passed, tests_failed),              \
     tests_failed ? 1 : 0)

/* Deterministic test randomness (xorshift64*), seeded per program. */
static unsigned long long check_rng_state = 0x9e3779b97f4a7c15ULL;
static inline unsigned long long check_rand64(void)
{
    unsigned long long x = check_rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    check_rng_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

#endif
