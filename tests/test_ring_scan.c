/*
 * The shared scan's rules (groth16/ring_scan.h), on the CPU with memcpy
 * for the copies:
 *   - two passes in lockstep share every fill: n fills for both, each pass
 *     charged half the bytes of those made for both;
 *   - a pass that joins mid-circle takes the fills the ring holds first
 *     and still sees each chunk once; one buffer, n = 1, and n < bufs;
 *   - a pass that leaves early releases its buffers (the other finishes);
 *   - a failed fill reaches every joined pass and every join while they
 *     stay; once all have left, the next pass makes it again;
 *   - threads joining at random moments over rings of 1 to 8 buffers:
 *     every pass sees each chunk exactly once, its buffer holds that
 *     chunk from next to done (never refilled under it), no fill is made
 *     that no pass consumes, and the shares add up to the bytes moved.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "groth16/ring_scan.h"

/* The "device": what each buffer holds (chunk and fill number), written by
 * the fill callback; fails at fill fail_at (UINT64_MAX: never). */
typedef struct ring {
    _Atomic uint64_t chunk[ZP__SCAN_BUFS_MAX], fill_no[ZP__SCAN_BUFS_MAX];
    uint64_t fills, fail_at;
} ring;

static uint64_t chunk_bytes(size_t c) { return 100 + 7 * (uint64_t)c; }

static zp_err fill(void *ctx, size_t chunk, unsigned buf, uint64_t *bytes)
{
    ring *r = ctx;
    if (r->fills == r->fail_at) {
        r->fail_at = UINT64_MAX; /* once */
        return ZP_E_IO;
    }
    atomic_store(&r->chunk[buf], chunk);
    atomic_store(&r->fill_no[buf], r->fills);
    r->fills++;
    *bytes = chunk_bytes(chunk);
    return ZP_OK;
}

static void ring_init(ring *r)
{
    memset(r, 0, sizeof *r);
    r->fail_at = UINT64_MAX;
}

/* One step of a pass driven by hand: next, check the buffer, done. */
static bool step(zp__scan_pass *p, ring *r, unsigned char *seen)
{
    size_t c = 0;
    unsigned b = 0;
    zp_err e = zp__scan_next(p, &c, &b);
    CHECK_EQ_INT(e, ZP_OK);
    if (e)
        return true;
    CHECK_EQ_INT(atomic_load(&r->chunk[b]), c);
    seen[c]++;
    return zp__scan_done(p);
}

static void test_lockstep(void)
{
    const size_t n = 9;
    for (unsigned bufs = 1; bufs <= 4; bufs++) {
        ring r;
        ring_init(&r);
        zp__scan s;
        CHECK_EQ_INT(zp__scan_init(&s, n, bufs, fill, &r), ZP_OK);
        zp__scan_pass a, b;
        CHECK_EQ_INT(zp__scan_join(&s, &a), ZP_OK);
        CHECK_EQ_INT(zp__scan_join(&s, &b), ZP_OK);
        unsigned char sa[9] = {0}, sb[9] = {0};
        bool da = false, db = false;
        for (size_t i = 0; i < n; i++) {
            da = step(&a, &r, sa);
            db = step(&b, &r, sb);
        }
        CHECK(da && db);
        for (size_t c = 0; c < n; c++)
            CHECK(sa[c] == 1 && sb[c] == 1);
        CHECK_EQ_INT(r.fills, n);
        uint64_t total = 0;
        for (size_t c = 0; c < n; c++)
            total += chunk_bytes(c);
        const uint64_t ba = zp__scan_leave(&a), bb = zp__scan_leave(&b);
        CHECK_EQ_INT(ba + bb, total);
        /* The fills A's join made are A's; the rest are halved (the odd
         * byte to A). */
        uint64_t wa = 0;
        for (size_t c = 0; c < n; c++)
            wa += c < bufs ? chunk_bytes(c) : chunk_bytes(c) / 2 + chunk_bytes(c) % 2;
        CHECK_EQ_INT(ba, wa);
        CHECK_EQ_INT(zp__scan_bytes(&s), total);
        zp__scan_destroy(&s);
    }
}

/* A joins and consumes k chunks; B joins then: it starts at the oldest
 * fill the ring holds; both finish; the fills are those the two rounds
 * need and no more. */
static void test_join_mid(void)
{
    const size_t ns[] = {1, 2, 3, 10};
    for (size_t ni = 0; ni < 4; ni++)
        for (unsigned bufs = 1; bufs <= 5; bufs++)
            for (size_t k = 0; k <= ns[ni]; k++) {
                const size_t n = ns[ni];
                ring r;
                ring_init(&r);
                zp__scan s;
                CHECK_EQ_INT(zp__scan_init(&s, n, bufs, fill, &r), ZP_OK);
                zp__scan_pass a, b;
                unsigned char sa[10] = {0}, sb[10] = {0};
                CHECK_EQ_INT(zp__scan_join(&s, &a), ZP_OK);
                for (size_t i = 0; i < k; i++)
                    step(&a, &r, sa);
                const uint64_t head = r.fills;
                CHECK_EQ_INT(zp__scan_join(&s, &b), ZP_OK);
                /* B claims what the ring holds: at most bufs, at most n. */
                uint64_t held = head < bufs ? head : bufs;
                held = held < n ? held : n;
                CHECK_EQ_INT(b.next, head - held);
                /* B first through what it claimed, then both in turn. */
                bool da = k == n, db = false;
                for (uint64_t i = 0; i < held; i++)
                    db = step(&b, &r, sb);
                while (!da || !db) {
                    if (!da)
                        da = step(&a, &r, sa);
                    if (!db)
                        db = step(&b, &r, sb);
                }
                for (size_t c = 0; c < n; c++)
                    CHECK(sa[c] == 1 && sb[c] == 1);
                /* B's round ends head - held fills after A's: no more. */
                CHECK_EQ_INT(head, k + bufs < n ? k + bufs : n);
                CHECK_EQ_INT(r.fills, n + head - held);
                zp__scan_leave(&a);
                zp__scan_leave(&b);
                zp__scan_destroy(&s);
            }
}

/* A leaves after one chunk with fills still claimed; B goes round alone. */
static void test_leave_early(void)
{
    const size_t n = 6;
    ring r;
    ring_init(&r);
    zp__scan s;
    CHECK_EQ_INT(zp__scan_init(&s, n, 2, fill, &r), ZP_OK);
    zp__scan_pass a, b;
    unsigned char sa[6] = {0}, sb[6] = {0};
    CHECK_EQ_INT(zp__scan_join(&s, &a), ZP_OK);
    CHECK_EQ_INT(zp__scan_join(&s, &b), ZP_OK);
    step(&a, &r, sa);
    zp__scan_leave(&a);
    CHECK(a.scan == NULL);
    bool done = false;
    for (size_t i = 0; i < n; i++)
        done = step(&b, &r, sb);
    CHECK(done);
    for (size_t c = 0; c < n; c++)
        CHECK_EQ_INT(sb[c], 1);
    CHECK_EQ_INT(r.fills, n);
    CHECK_EQ_INT(zp__scan_next(&b, &(size_t){0}, &(unsigned){0}), ZP_E_INVALID_ARG);
    zp__scan_leave(&b);
    /* A third pass now: the two fills the ring holds, then four more. */
    zp__scan_pass c;
    unsigned char sc[6] = {0};
    CHECK_EQ_INT(zp__scan_join(&s, &c), ZP_OK);
    for (size_t i = 0; i < n; i++)
        step(&c, &r, sc);
    for (size_t k = 0; k < n; k++)
        CHECK_EQ_INT(sc[k], 1);
    CHECK_EQ_INT(r.fills, n + n - 2);
    zp__scan_leave(&c);
    zp__scan_destroy(&s);
}

static void test_fill_fails(void)
{
    ring r;
    ring_init(&r);
    r.fail_at = 3;
    zp__scan s;
    CHECK_EQ_INT(zp__scan_init(&s, 8, 2, fill, &r), ZP_OK);
    zp__scan_pass a, p;
    unsigned char sa[8] = {0};
    CHECK_EQ_INT(zp__scan_join(&s, &a), ZP_OK); /* fills 0 and 1 */
    step(&a, &r, sa);                           /* fill 2 */
    step(&a, &r, sa);                           /* fill 3 fails */
    CHECK_EQ_INT(zp__scan_join(&s, &p), ZP_E_IO); /* while a is joined */
    size_t c;
    unsigned b;
    CHECK_EQ_INT(zp__scan_next(&a, &c, &b), ZP_OK); /* fill 2 was made */
    CHECK_EQ_INT(c, 2);
    zp__scan_done(&a);
    CHECK_EQ_INT(zp__scan_next(&a, &c, &b), ZP_E_IO);
    zp__scan_leave(&a);
    /* All left: the next pass takes fills 1 and 2 from the ring, makes
     * fill 3 again, and goes round. */
    CHECK_EQ_INT(zp__scan_join(&s, &p), ZP_OK);
    CHECK_EQ_INT(p.next, 1);
    unsigned char sp[8] = {0};
    bool last = false;
    for (int i = 0; i < 8; i++)
        last = step(&p, &r, sp);
    CHECK(last);
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(sp[i], 1);
    CHECK_EQ_INT(r.fills, 9);
    zp__scan_leave(&p);
    zp__scan_destroy(&s);

    CHECK_EQ_INT(zp__scan_init(&s, 0, 2, fill, &r), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__scan_init(&s, 4, 0, fill, &r), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__scan_init(&s, 4, ZP__SCAN_BUFS_MAX + 1, fill, &r), ZP_E_INVALID_ARG);
    CHECK_EQ_INT(zp__scan_init(&s, 4, 2, NULL, &r), ZP_E_INVALID_ARG);
}

/* ------------------------------------------------------------ threads */

typedef struct shared {
    zp__scan s;
    ring r;
    pthread_mutex_t fmu; /* the fill callback runs under the scan's lock */
    size_t n;
    unsigned rounds;
    _Atomic int bad;
    _Atomic uint64_t shares, consumed;
} shared;

typedef struct worker {
    shared *sh;
    unsigned long long seed;
} worker;

static unsigned rnd(unsigned long long *st, unsigned m)
{
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    return (unsigned)(*st % m);
}

static void *run(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    unsigned char *seen = malloc(sh->n);
    for (unsigned round = 0; round < sh->rounds; round++) {
        for (unsigned y = rnd(&w->seed, 50); y-- > 0;)
            sched_yield();
        memset(seen, 0, sh->n);
        zp__scan_pass p;
        if (zp__scan_join(&sh->s, &p)) {
            atomic_store(&sh->bad, 1);
            break;
        }
        bool last = false;
        while (!last) {
            size_t c;
            unsigned b;
            if (zp__scan_next(&p, &c, &b)) {
                atomic_store(&sh->bad, 1);
                break;
            }
            const uint64_t f = atomic_load(&sh->r.fill_no[b]);
            if (atomic_load(&sh->r.chunk[b]) != c)
                atomic_store(&sh->bad, 2);
            for (unsigned y = rnd(&w->seed, 20); y-- > 0;)
                sched_yield();
            /* Still the same fill: nothing refilled it under the pass. */
            if (atomic_load(&sh->r.fill_no[b]) != f || atomic_load(&sh->r.chunk[b]) != c)
                atomic_store(&sh->bad, 3);
            seen[c]++;
            atomic_fetch_add(&sh->consumed, 1);
            last = zp__scan_done(&p);
        }
        atomic_fetch_add(&sh->shares, zp__scan_leave(&p));
        for (size_t c = 0; c < sh->n; c++)
            if (seen[c] != 1)
                atomic_store(&sh->bad, 4);
    }
    free(seen);
    return NULL;
}

static void test_threads(void)
{
    const size_t ns[] = {1, 3, 17};
    const unsigned bufss[] = {1, 2, 4, 8};
    const unsigned threads[] = {1, 2, 3, 6};
    for (size_t ni = 0; ni < 3; ni++)
        for (size_t bi = 0; bi < 4; bi++)
            for (size_t ti = 0; ti < 4; ti++) {
                shared *sh = calloc(1, sizeof *sh);
                ring_init(&sh->r);
                sh->n = ns[ni];
                sh->rounds = 20;
                CHECK_EQ_INT(zp__scan_init(&sh->s, sh->n, bufss[bi], fill, &sh->r), ZP_OK);
                pthread_t t[6];
                worker w[6];
                for (unsigned i = 0; i < threads[ti]; i++) {
                    w[i] = (worker){sh, check_rand64() | 1};
                    pthread_create(&t[i], NULL, run, &w[i]);
                }
                for (unsigned i = 0; i < threads[ti]; i++)
                    pthread_join(t[i], NULL);
                const uint64_t passes = (uint64_t)threads[ti] * sh->rounds;
                if (atomic_load(&sh->bad))
                    fprintf(stderr, "n %zu bufs %u threads %u: bad %d\n", sh->n, bufss[bi],
                            threads[ti], atomic_load(&sh->bad));
                CHECK_EQ_INT(atomic_load(&sh->bad), 0);
                CHECK_EQ_INT(atomic_load(&sh->consumed), passes * sh->n);
                CHECK(sh->r.fills <= passes * sh->n);
                CHECK(sh->r.fills >= sh->n);
                CHECK_EQ_INT(atomic_load(&sh->shares), zp__scan_bytes(&sh->s));
                zp__scan_destroy(&sh->s);
                free(sh);
            }
}

int main(void)
{
    RUN(test_lockstep);
    RUN(test_join_mid);
    RUN(test_leave_early);
    RUN(test_fill_fails);
    RUN(test_threads);
    return FINISH();
}
