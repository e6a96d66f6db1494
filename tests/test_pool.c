/*
 * The parallel loops of base/pool.h: zp__parallel_for covers [0, n)
 * exactly once in ranges no longer than its grain, from any number of
 * threads; zp__parallel_memcpy equals memcpy for lengths about its page
 * and 1 MiB runs, at odd offsets, from 1, 3 and every thread.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/pool.h"
#include "check.h"

typedef struct cover {
    _Atomic unsigned char *hits;
    size_t grain;
    _Atomic int bad;
} cover;

static void mark(void *p, size_t begin, size_t end)
{
    cover *c = p;
    if (end <= begin || end - begin > c->grain)
        atomic_store(&c->bad, 1);
    for (size_t i = begin; i < end; i++)
        atomic_fetch_add(&c->hits[i], 1);
}

static void test_parallel_for(void)
{
    const size_t ns[] = {0, 1, 7, 1000, 65537};
    const size_t grains[] = {0, 1, 3, 1000, 1 << 20};
    const int threads[] = {1, 2, 5, 0};
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (size_t g = 0; g < sizeof grains / sizeof *grains; g++)
            for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
                const size_t n = ns[a];
                cover c = {calloc(n + 1, 1), grains[g] ? grains[g] : 1, 0};
                zp__parallel_for(n, grains[g], mark, &c, threads[t]);
                CHECK_EQ_INT(atomic_load(&c.bad), 0);
                size_t once = 0;
                for (size_t i = 0; i < n; i++)
                    once += atomic_load(&c.hits[i]) == 1;
                CHECK_EQ_INT(once, n);
                free((void *)c.hits);
            }
}

static void test_parallel_memcpy(void)
{
    const size_t max = (5u << 20) + 4096 * 3 + 17;
    unsigned char *src = malloc(max + 64), *dst = malloc(max + 64);
    CHECK(src && dst);
    for (size_t i = 0; i < max + 64; i++)
        src[i] = (unsigned char)check_rand64();
    const size_t lens[] = {0, 1, 4095, 4096, 4097, (1u << 20) - 1, 1u << 20, (1u << 20) + 1,
                           (3u << 20) + 12345, max};
    const int threads[] = {1, 3, 0};
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++)
            for (size_t off = 0; off < 40; off += 13) {
                const size_t n = lens[l];
                memset(dst, 0, max + 64);
                zp__parallel_memcpy(dst + off, src + 3, n, threads[t]);
                CHECK(!memcmp(dst + off, src + 3, n));
                /* nothing written around it */
                bool clean = true;
                for (size_t i = 0; i < off; i++)
                    clean &= dst[i] == 0;
                for (size_t i = off + n; i < max + 64; i++)
                    clean &= dst[i] == 0;
                CHECK(clean);
            }
    free(src);
    free(dst);
}

int main(void)
{
    RUN(test_parallel_for);
    RUN(test_parallel_memcpy);
    return FINISH();
}
