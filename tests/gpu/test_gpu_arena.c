/*
 * The arena allocator (src/gpu/arena.h) is plain host code: this test runs
 * everywhere, GPU or not. A shadow byte map of the arena checks that live
 * allocations never overlap and that freeing everything coalesces back to
 * one extent.
 */
#include "check.h"
#include "gpu/arena.h"

#define SIZE (1u << 20)
#define ALIGN 256u
#define SLOTS 200

static void test_basic(void)
{
    zp__arena a;
    CHECK_EQ_INT(zp__arena_init(&a, SIZE, ALIGN), ZP_OK);
    uint64_t o1, o2, o3;
    CHECK_EQ_INT(zp__arena_alloc(&a, &o1, 1000), ZP_OK);
    CHECK_EQ_INT(o1, 0);
    CHECK_EQ_INT(zp__arena_alloc(&a, &o2, 1), ZP_OK);
    CHECK_EQ_INT(o2, 1024); /* 1000 rounds up to 1024 */
    CHECK_EQ_INT(zp__arena_alloc(&a, &o3, SIZE), ZP_E_GPU_OOM);
    CHECK_EQ_INT(a.used, 1280);
    CHECK_EQ_INT(zp__arena_free(&a, o1, 1000), ZP_OK);
    CHECK_EQ_INT(zp__arena_free(&a, o1, 1000), ZP_E_INVALID_ARG); /* double free */
    CHECK_EQ_INT(zp__arena_free(&a, SIZE, 256), ZP_E_INVALID_ARG); /* outside */
    CHECK_EQ_INT(zp__arena_free(&a, 7, 256), ZP_E_INVALID_ARG);    /* misaligned */
    /* first fit reuses the hole at 0 */
    CHECK_EQ_INT(zp__arena_alloc(&a, &o3, 512), ZP_OK);
    CHECK_EQ_INT(o3, 0);
    CHECK_EQ_INT(zp__arena_free(&a, o3, 512), ZP_OK);
    CHECK_EQ_INT(zp__arena_free(&a, o2, 1), ZP_OK);
    CHECK_EQ_INT(a.n, 1);
    CHECK_EQ_INT(a.used, 0);
    CHECK_EQ_INT(zp__arena_largest(&a), SIZE);
    CHECK_EQ_INT(zp__arena_alloc(&a, &o1, SIZE), ZP_OK);
    CHECK_EQ_INT(a.n, 0);
    CHECK_EQ_INT(zp__arena_alloc(&a, &o2, 1), ZP_E_GPU_OOM);
    zp__arena_destroy(&a);
}

/* Random allocate/free against a byte map of owners. */
static void test_random(void)
{
    static unsigned char owner[SIZE];
    uint64_t off[SLOTS], len[SLOTS];
    int live[SLOTS] = {0};
    zp__arena a;
    CHECK_EQ_INT(zp__arena_init(&a, SIZE, ALIGN), ZP_OK);
    memset(owner, 0, sizeof owner);
    for (int step = 0; step < 20000; step++) {
        int k = (int)(check_rand64() % SLOTS);
        if (live[k]) {
            CHECK_EQ_INT(zp__arena_free(&a, off[k], len[k]), ZP_OK);
            uint64_t r = (len[k] + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
            for (uint64_t i = off[k]; i < off[k] + r; i++)
                owner[i] = 0;
            live[k] = 0;
            continue;
        }
        len[k] = 1 + check_rand64() % (SIZE / 64);
        /* Both ends at random: the invariants hold for any mix. */
        zp_err e = check_rand64() & 1 ? zp__arena_alloc(&a, &off[k], len[k])
                                       : zp__arena_alloc_high(&a, &off[k], len[k]);
        if (e == ZP_E_GPU_OOM) {
            CHECK(zp__arena_largest(&a) < len[k]);
            continue;
        }
        CHECK_EQ_INT(e, ZP_OK);
        CHECK_EQ_INT(off[k] % ALIGN, 0);
        uint64_t r = (len[k] + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
        CHECK(off[k] + r <= SIZE);
        int clash = 0;
        for (uint64_t i = off[k]; i < off[k] + r; i++) {
            clash |= owner[i];
            owner[i] = 1;
        }
        CHECK(!clash);
        live[k] = 1;
    }
    /* Free extents stay sorted and never touch. */
    for (size_t i = 1; i < a.n; i++)
        CHECK(a.ext[i - 1].off + a.ext[i - 1].len < a.ext[i].off);
    /* Free everything: one extent again, nothing used. */
    for (int k = 0; k < SLOTS; k++)
        if (live[k])
            CHECK_EQ_INT(zp__arena_free(&a, off[k], len[k]), ZP_OK);
    CHECK_EQ_INT(a.used, 0);
    CHECK_EQ_INT(a.n, 1);
    CHECK_EQ_INT(zp__arena_largest(&a), SIZE);
    zp__arena_destroy(&a);
}

/* alloc_high takes the top of the highest extent that fits; the bottom
 * stays for alloc. Re-carving a top region after freeing it leaves the
 * free middle in one piece (the fragmentation the engine avoids). */
static void test_high(void)
{
    zp__arena a;
    CHECK_EQ_INT(zp__arena_init(&a, 1024, 16), ZP_OK);
    uint64_t k1, k2, s1, s2;
    CHECK_EQ_INT(zp__arena_alloc(&a, &k1, 100), ZP_OK);      /* [0, 112) */
    CHECK_EQ_INT(zp__arena_alloc_high(&a, &s1, 200), ZP_OK); /* [816, 1024) */
    CHECK_EQ_INT(k1, 0);
    CHECK_EQ_INT(s1, 1024 - 208);
    CHECK_EQ_INT(zp__arena_alloc(&a, &k2, 16), ZP_OK);
    CHECK_EQ_INT(k2, 112);
    CHECK_EQ_INT(zp__arena_free(&a, s1, 200), ZP_OK);
    CHECK_EQ_INT(zp__arena_alloc_high(&a, &s2, 300), ZP_OK);
    CHECK_EQ_INT(s2, 1024 - 304);
    CHECK_EQ_INT(a.n, 1);
    CHECK_EQ_INT(zp__arena_largest(&a), 1024 - 304 - 128);
    /* The highest extent too small: the next one down is used. */
    CHECK_EQ_INT(zp__arena_free(&a, k1, 100), ZP_OK); /* hole [0, 112) */
    uint64_t x;
    CHECK_EQ_INT(zp__arena_alloc_high(&a, &x, 500), ZP_OK);
    CHECK_EQ_INT(x, 1024 - 304 - 512);
    CHECK_EQ_INT(zp__arena_alloc_high(&a, &x, 100), ZP_OK);
    CHECK_EQ_INT(x, 0);
    CHECK_EQ_INT(zp__arena_alloc_high(&a, &x, 100), ZP_E_GPU_OOM);
    CHECK_EQ_INT(zp__arena_alloc_high(&a, &x, UINT64_MAX), ZP_E_TOO_LARGE);
    zp__arena_destroy(&a);
}

static void test_bad_init(void)
{
    zp__arena a;
    CHECK_EQ_INT(zp__arena_init(&a, SIZE, 3), ZP_E_INVALID_ARG);
    zp__arena_destroy(&a);
    CHECK_EQ_INT(zp__arena_init(&a, 0, ALIGN), ZP_OK);
    uint64_t o;
    CHECK_EQ_INT(zp__arena_alloc(&a, &o, 1), ZP_E_GPU_OOM);
    zp__arena_destroy(&a);
}

int main(void)
{
    RUN(test_basic);
    RUN(test_random);
    RUN(test_high);
    RUN(test_bad_init);
    return FINISH();
}
