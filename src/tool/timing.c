/* Timing helpers shared by the benchmarks. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "tool/timing.h"

double zp__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void zp__sort_doubles(double *v, int n)
{
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, cmp_double);
}

double zp__median(double *v, int n)
{
    if (n <= 0)
        return 0.0;
    zp__sort_doubles(v, n);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double zp__bench_median_ns(void (*op)(void *ctx, size_t n), void *ctx, int reps)
{
    size_t n = 1;
    for (;;) {
        double t0 = zp__now();
        op(ctx, n);
        double dt = zp__now() - t0;
        if (dt >= 0.02 || n >= ((size_t)1 << 40))
            break;
        n *= dt < 0.002 ? 8 : 2;
    }
    double v[1000];
    if (reps > 1000)
        reps = 1000;
    for (int r = 0; r < reps; r++) {
        double t0 = zp__now();
        op(ctx, n);
        v[r] = (zp__now() - t0) * 1e9 / (double)n;
    }
    return zp__median(v, reps);
}

int zp__parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

int zp__parse_size(const char *s, uint64_t *out)
{
    if (!s || s[0] < '0' || s[0] > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    /* A fraction of the unit ("14.5G"): at most 6 digits, so that it times
     * 2^40 stays inside 64 bits. */
    uint64_t frac = 0, scale = 1;
    if (*end == '.') {
        end++;
        if (*end < '0' || *end > '9')
            return -1;
        for (; *end >= '0' && *end <= '9'; end++) {
            if (scale == 1000000)
                return -1;
            frac = frac * 10 + (uint64_t)(*end - '0');
            scale *= 10;
        }
    }
    unsigned shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    case 'T': case 't': shift = 40; end++; break;
    default: break;
    }
    if (*end || (scale > 1 && shift == 0) || v > (UINT64_MAX >> shift))
        return -1;
    /* part < 2^shift, and whole leaves at least that much below 2^64. */
    uint64_t whole = (uint64_t)v << shift, part = (frac << shift) / scale;
    *out = whole + part;
    return 0;
}
