/*
 * The witness parts' plan (zp__g16_parts_plan, prove_gpu_parts.c): which
 * run of parts a GPU slot sends first and sums the L MSM over while the
 * rest crosses. Hand cases shaped like the measured ones (synth:porep:27
 * on the H200: eight parts, ~10.75 ms a copy, the dense tail's part ~80
 * ms, the others ~9 ms), then random cases against the definition.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "groth16/prove_gpu_stages.h"

/* What the run [i, j) hides, by the definition. */
static double gain(const double *ms, unsigned parts, double up, unsigned i, unsigned j)
{
    double run = 0, cheapest = ms[0];
    for (unsigned k = 0; k < parts; k++)
        cheapest = fmin(cheapest, ms[k]);
    for (unsigned k = i; k < j; k++)
        run += ms[k];
    return fmin(run, up * (double)(parts - (j - i))) - cheapest;
}

static void test_tail(void)
{
    double ms[8] = {9, 9, 9, 9, 9, 9, 9, 80};
    unsigned from = 99, to = 99;
    CHECK(zp__g16_parts_plan(ms, 8, 10.75, &from, &to));
    CHECK_EQ_INT(from, 7);
    CHECK_EQ_INT(to, 8);
    /* The dense part in the middle. */
    double mid[8] = {9, 9, 9, 70, 9, 9, 9, 9};
    CHECK(zp__g16_parts_plan(mid, 8, 10.75, &from, &to));
    CHECK_EQ_INT(from, 3);
    CHECK_EQ_INT(to, 4);
}

/* Spread evenly: three parts of 17 ms hide 51 − 17 against 53.75 ms of
 * the other copies; four would hide only 43 − 17. The earliest such run. */
static void test_spread(void)
{
    double ms[8];
    for (int i = 0; i < 8; i++)
        ms[i] = 17;
    unsigned from = 99, to = 99;
    CHECK(zp__g16_parts_plan(ms, 8, 10.75, &from, &to));
    CHECK_EQ_INT(from, 0);
    CHECK_EQ_INT(to, 3);
}

/* Nothing to hide: copies far faster than an MSM's cost, one part, two
 * equal parts (the MSM more costs what a part does), a bad copy time. */
static void test_none(void)
{
    unsigned from = 99, to = 99;
    double fast[3] = {1, 1, 1};
    CHECK(!zp__g16_parts_plan(fast, 3, 0.01, &from, &to));
    double one[1] = {50};
    CHECK(!zp__g16_parts_plan(one, 1, 100, &from, &to));
    double two[2] = {50, 50};
    CHECK(!zp__g16_parts_plan(two, 2, 100, &from, &to));
    CHECK(!zp__g16_parts_plan(two, 2, NAN, &from, &to));
    CHECK(!zp__g16_parts_plan(two, 2, -1, &from, &to));
    CHECK_EQ_INT(from, 99);
    CHECK_EQ_INT(to, 99);
}

/* Random cases: the run is proper (never all parts), no run hides more,
 * and none is found exactly when no run hides anything. */
static void test_random(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int t = 0; t < 2000; t++) {
        unsigned parts = 1 + (unsigned)(t % 16);
        double ms[16];
        for (unsigned k = 0; k < parts; k++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            ms[k] = (double)(x >> 40) / (double)(1 << 18); /* 0 .. 64 ms */
        }
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        double up = (double)(x >> 40) / (double)(1 << 20); /* 0 .. 16 ms */
        double best = 0;
        for (unsigned i = 0; i < parts; i++)
            for (unsigned j = i + 1; j <= parts && j - i < parts; j++)
                best = fmax(best, gain(ms, parts, up, i, j));
        unsigned from = 99, to = 99;
        bool found = zp__g16_parts_plan(ms, parts, up, &from, &to);
        CHECK(found == (best > 0));
        if (found) {
            CHECK(from < to && to <= parts && to - from < parts);
            CHECK(gain(ms, parts, up, from, to) == best);
        }
    }
}

int main(void)
{
    RUN(test_tail);
    RUN(test_spread);
    RUN(test_none);
    RUN(test_random);
    return FINISH();
}
