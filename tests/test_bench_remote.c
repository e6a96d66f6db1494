/*
 * `bench batch --addr`'s steady state (src/bench/bench_remote.c,
 * zp__bench_steady_per_job): from the j-th job's finish (the first wave of
 * j jobs in flight) to the last, over the jobs finished in it, whatever
 * order the client threads recorded them in; none where a wave is all
 * there is or a finish time is missing.
 */
#include "check.h"
#include "bench/bench_remote.h"

static void test_waves(void)
{
    /* Two in flight, jobs of ~18 s after a 4 s fill: 22, 22.1, 40, 40.2. */
    double fin[4] = {40.2, 22.1, 40.0, 22.0};
    const double s = zp__bench_steady_per_job(fin, 4, 2);
    CHECK(s > 9.04 && s < 9.06); /* (40.2 - 22.1) / 2 */
    CHECK(fin[0] == 22.0 && fin[3] == 40.2);
    /* One in flight: between consecutive finishes. */
    double one[3] = {5, 1, 3};
    CHECK(zp__bench_steady_per_job(one, 3, 1) == 2);
}

static void test_none(void)
{
    double two[2] = {10, 11};
    CHECK(zp__bench_steady_per_job(two, 2, 2) < 0); /* only the first wave */
    CHECK(zp__bench_steady_per_job(two, 2, 3) < 0);
    CHECK(zp__bench_steady_per_job(two, 2, 0) < 0);
    double missing[3] = {4, -1, 9};
    CHECK(zp__bench_steady_per_job(missing, 3, 1) < 0);
    CHECK(zp__bench_steady_per_job(NULL, 0, 1) < 0);
}

int main(void)
{
    RUN(test_waves);
    RUN(test_none);
    return FINISH();
}
