/* zp__parse_size (src/tool/timing.c), the sizes the CLI's --gpu-mem,
 * --pinned-keys and the like read: whole and fractional counts of each
 * unit, against a twin that divides once over the whole count, and the
 * strings it must refuse. */
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "tool/timing.h"

static int parses(const char *s, uint64_t want)
{
    uint64_t got = 0;
    if (zp__parse_size(s, &got) != 0) {
        fprintf(stderr, "  \"%s\" refused\n", s);
        return 0;
    }
    if (got != want)
        fprintf(stderr, "  \"%s\": %llu, want %llu\n", s, (unsigned long long)got,
                (unsigned long long)want);
    return got == want;
}

static int refuses(const char *s)
{
    uint64_t got = 12345;
    int r = zp__parse_size(s, &got);
    if (r == 0)
        fprintf(stderr, "  \"%s\" taken as %llu\n", s, (unsigned long long)got);
    return r != 0 && got == 12345;
}

static void test_whole(void)
{
    CHECK(parses("0", 0));
    CHECK(parses("4096", 4096));
    CHECK(parses("64K", 64ull << 10));
    CHECK(parses("64k", 64ull << 10));
    CHECK(parses("1M", 1ull << 20));
    CHECK(parses("16G", 16ull << 30));
    CHECK(parses("139g", 139ull << 30));
    CHECK(parses("2T", 2ull << 40));
    CHECK(parses("18446744073709551615", UINT64_MAX));
    CHECK(parses("16777215T", 16777215ull << 40));
}

static void test_fraction(void)
{
    CHECK(parses("14.5G", (14ull << 30) + (1ull << 29)));
    CHECK(parses("0.5K", 512));
    CHECK(parses("1.25M", (1ull << 20) + (1ull << 18)));
    CHECK(parses("0.1K", 102));            /* 102.4, rounded down */
    CHECK(parses("1.000001T", (1ull << 40) + 1099511));
    CHECK(parses("15.999999G", (15ull << 30) + (999999ull << 30) / 1000000));
    CHECK(parses("3.0G", 3ull << 30));
    CHECK(parses("16777215.999999T",
                 (16777215ull << 40) + (999999ull << 40) / 1000000));
}

static void test_refused(void)
{
    const char *bad[] = {
        "", "G", "-1G", "+1G", " 1G", "1G ", "1GB", "1 G", "1P", "0x10",
        "1.5",             /* a fraction of a byte */
        "1.G", ".5G", "1..5G", "1.5.5G", "1.-5G",
        "1.1234567G",      /* more than 6 digits of fraction */
        "18446744073709551616", "16777216T", "17179869184G",
        "16777215.9999999T",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(refuses(bad[i]));
    CHECK(zp__parse_size(NULL, &(uint64_t){0}) != 0);
}

/* Random whole and fractional counts of K and M, against the twin's one
 * division over the count in millionths of the unit. */
static void test_random(void)
{
    static const char unit[] = {'K', 'M', 'k', 'm'};
    static const unsigned shift[] = {10, 20, 10, 20};
    for (int i = 0; i < 20000; i++) {
        uint64_t v = check_rand64() % (1u << 20);
        unsigned digits = (unsigned)(check_rand64() % 7); /* 0: no fraction */
        uint64_t scale = 1;
        for (unsigned d = 0; d < digits; d++)
            scale *= 10;
        uint64_t frac = check_rand64() % scale;
        int u = (int)(check_rand64() % 4);
        char s[64];
        if (digits)
            snprintf(s, sizeof s, "%llu.%0*llu%c", (unsigned long long)v, (int)digits,
                     (unsigned long long)frac, unit[u]);
        else
            snprintf(s, sizeof s, "%llu%c", (unsigned long long)v, unit[u]);
        uint64_t want = ((v * scale + frac) << shift[u]) / scale;
        if (!parses(s, want)) {
            CHECK(0);
            return;
        }
    }
}

int main(void)
{
    RUN(test_whole);
    RUN(test_fraction);
    RUN(test_refused);
    RUN(test_random);
    return FINISH();
}
