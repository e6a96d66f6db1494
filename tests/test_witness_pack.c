/*
 * The packed witness (groth16/witness_pack.h) on the host: packing then the
 * reference unpacking gives the chunk back, for mixes of zeros, ones and
 * other values, counts that end inside a word and inside a tile, and the
 * edge values (one's neighbours, values equal to one in some limbs only);
 * a chunk with more dense values than the layout holds is raw; the bytes
 * sent end at the last dense value, and packing writes none past them;
 * zp__wpack_chunk_bytes (the layout's first pass) says the same bytes
 * without packing; a whole image rebuilds the witness; zp__wpack_worth
 * refuses sends that save too little or need too many copies.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "groth16/witness_pack.h"

static zp_fr T_one;
static uint8_t *T_region;

/* A value: zero (pz %), one (po %), else dense (random, or an edge). */
static void make(zp_fr *w, uint32_t count, unsigned pz, unsigned po)
{
    for (uint32_t i = 0; i < count; i++) {
        unsigned r = (unsigned)(check_rand64() % 100);
        memset(&w[i], 0, sizeof w[i]);
        if (r < pz)
            continue;
        if (r < pz + po) {
            w[i] = T_one;
            continue;
        }
        switch (check_rand64() % 4) {
        case 0: /* one with a limb changed: not one */
            w[i] = T_one;
            w[i].l[check_rand64() % 4] ^= 1ull << (check_rand64() % 64);
            break;
        case 1: /* small, nonzero */
            w[i].l[0] = 1 + check_rand64() % 3;
            break;
        default:
            for (int k = 0; k < 4; k++)
                w[i].l[k] = check_rand64();
            w[i].l[3] >>= 2;
            if (!(w[i].l[0] | w[i].l[1] | w[i].l[2] | w[i].l[3]))
                w[i].l[0] = 5;
        }
    }
}

static uint32_t count_dense(const zp_fr *w, uint32_t count)
{
    uint32_t nd = 0;
    zp_fr zero;
    memset(&zero, 0, sizeof zero);
    for (uint32_t i = 0; i < count; i++)
        nd += memcmp(&w[i], &zero, sizeof zero) && memcmp(&w[i], &T_one, sizeof T_one);
    return nd;
}

/* Packs and unpacks count values of the mix; checks the round trip, the
 * header and the bytes to send. */
static void round_trip(uint32_t count, unsigned pz, unsigned po)
{
    zp_fr *w = malloc(count * sizeof *w), *back = malloc(count * sizeof *back);
    CHECK(w && back);
    make(w, count, pz, po);
    memset(T_region, 0xa5, zp__wpack_region_bytes()); /* poison */
    uint64_t sent = zp__wpack_chunk(w, count, &T_one, T_region);
    CHECK_EQ_INT(zp__wpack_chunk_bytes(w, count, &T_one), sent);
    uint32_t nd = count_dense(w, count), *hdr = (uint32_t *)T_region;
    if (nd > ZP_WPACK_DENSE_MAX) {
        CHECK_EQ_INT(sent, 0);
        CHECK_EQ_INT(hdr[0], ZP_WPACK_RAW);
    } else {
        CHECK_EQ_INT(hdr[0], ZP_WPACK_PACKED);
        CHECK_EQ_INT(hdr[1], nd);
        CHECK_EQ_INT(sent, ZP_WPACK_OFF_DENSE + 32ull * nd);
        CHECK(sent <= zp__wpack_region_bytes());
        int untouched = 1; /* the image's next region may begin at sent's 256-byte round */
        for (uint64_t b = sent; b < zp__wpack_region_bytes(); b++)
            untouched &= T_region[b] == 0xa5;
        CHECK(untouched);
        memset(back, 0x5a, count * sizeof *back);
        zp__wpack_unpack_ref(T_region, count, &T_one, back);
        CHECK_MEM(back, w, count * sizeof *w);
    }
    printf("  count %u, %u %% zero, %u %% one: %u dense, %s, %llu bytes\n", count, pz, po, nd,
           sent ? "packed" : "raw", (unsigned long long)sent);
    free(w);
    free(back);
}

static void test_mixes(void)
{
    round_trip(ZP_WPACK_CHUNK, 60, 30);
    round_trip(ZP_WPACK_CHUNK, 0, 100);
    round_trip(ZP_WPACK_CHUNK, 100, 0);
    round_trip(ZP_WPACK_CHUNK, 46, 46); /* ~8 % dense: fits */
}

static void test_counts(void)
{
    static const uint32_t counts[] = {1, 2, 31, 32, 33, 1023, 1024, 1025, 3000, ZP_WPACK_CHUNK - 1};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        round_trip(counts[i], 45, 45);
    round_trip(3, 0, 0); /* all dense, few */
}

static void test_raw(void)
{
    round_trip(ZP_WPACK_CHUNK, 0, 0);    /* all dense */
    round_trip(ZP_WPACK_CHUNK, 30, 30);  /* ~40 % dense: over the eighth */
    /* exactly the most dense values that pack, then one more */
    uint32_t n = ZP_WPACK_DENSE_MAX + 1;
    zp_fr *w = calloc(n, sizeof *w);
    CHECK(w != NULL);
    for (uint32_t i = 0; i < n; i++)
        w[i].l[0] = i + 2;
    CHECK_EQ_INT(zp__wpack_chunk(w, n - 1, &T_one, T_region),
                 ZP_WPACK_OFF_DENSE + 32ull * (n - 1));
    CHECK_EQ_INT(zp__wpack_chunk_bytes(w, n - 1, &T_one), ZP_WPACK_OFF_DENSE + 32ull * (n - 1));
    CHECK_EQ_INT(zp__wpack_chunk(w, n, &T_one, T_region), 0);
    CHECK_EQ_INT(zp__wpack_chunk_bytes(w, n, &T_one), 0);
    free(w);
}

/* The staging's places: packed chunks in order, 256-aligned, within the
 * cap with the table; raw chunks and those past the cap none. */
static void test_place(void)
{
    enum { K = 300 };
    uint64_t bytes[K], off[K];
    for (int round = 0; round < 50; round++) {
        uint64_t sum = 0;
        for (int k = 0; k < K; k++) {
            bytes[k] = check_rand64() % 4 ? 16 + check_rand64() % zp__wpack_region_bytes() : 0;
            sum += bytes[k];
        }
        const uint64_t table = zp__wpack_table_bytes(K);
        const uint64_t cap = round == 0 ? UINT64_MAX / 2 : round == 1 ? table - 1
                                                        : check_rand64() % (2 * sum + 1);
        const uint64_t used = zp__wpack_place(bytes, K, cap, off);
        bool ok = used <= cap && (used == 0) == (table > cap);
        uint64_t end = 0, packed = 0;
        for (int k = 0; k < K; k++) {
            if (off[k] == ZP_WPACK_NONE) {
                /* raw: nothing to place, or no room left for it */
                ok = ok && (!bytes[k] || table > cap || table + end + bytes[k] > cap ||
                            table + end + ((bytes[k] + 255) & ~255ull) > cap);
                continue;
            }
            ok = ok && bytes[k] && off[k] % 256 == 0 && off[k] == end;
            end = off[k] + ((bytes[k] + 255) & ~255ull);
            packed++;
        }
        ok = ok && (used == 0 || used == table + end);
        /* With room for all, every chunk that packed is placed. */
        uint64_t nonzero = 0;
        for (int k = 0; k < K; k++)
            nonzero += bytes[k] != 0;
        if (round == 0)
            ok = ok && packed == nonzero;
        CHECK(ok);
    }
}

/* A whole image (zp__wpack_image) against the witness: a witness of chunks
 * that pack and chunks that do not, ending inside a chunk, rebuilt the way
 * the GPU does it (the table's place for a packed chunk, else the raw
 * values) gives the witness back, for rooms that hold every chunk, some,
 * and not even the table; the image's table is off[]. */
static void test_image(void)
{
    const uint64_t n = 9 * (uint64_t)ZP_WPACK_CHUNK + 777, chunks = zp__wpack_chunks(n);
    zp_fr *w = malloc(n * sizeof *w), *back = malloc(n * sizeof *back);
    uint64_t *bytes = malloc(chunks * sizeof *bytes), *off = malloc(chunks * sizeof *off);
    uint8_t *image = malloc(chunks * zp__wpack_region_bytes() + zp__wpack_table_bytes(chunks));
    CHECK(w && back && bytes && off && image);
    if (!w || !back || !bytes || !off || !image)
        return;
    for (uint64_t k = 0; k < chunks; k++) {
        const uint64_t at = k * ZP_WPACK_CHUNK;
        const uint32_t count = (uint32_t)(n - at < ZP_WPACK_CHUNK ? n - at : ZP_WPACK_CHUNK);
        /* chunks 3 and 7 dense (raw), the rest a PoRep-like mix */
        make(w + at, count, k == 3 || k == 7 ? 10 : 47, k == 3 || k == 7 ? 10 : 47);
    }
    const uint64_t table = zp__wpack_table_bytes(chunks);
    const uint64_t caps[] = {chunks * zp__wpack_region_bytes() + table, 3 * 4096 + table,
                             table + 100, table - 1};
    for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
        memset(image, 0xa5, caps[c]);
        const uint64_t used = zp__wpack_image(w, n, caps[c], bytes, off, image);
        unsigned placed = 0;
        bool ok = used <= caps[c] && (used == 0) == (table > caps[c]);
        if (used)
            ok = ok && memcmp(image, off, chunks * sizeof *off) == 0;
        for (uint64_t k = 0; used && k < chunks; k++) {
            const uint64_t at = k * ZP_WPACK_CHUNK;
            const uint32_t count = (uint32_t)(n - at < ZP_WPACK_CHUNK ? n - at : ZP_WPACK_CHUNK);
            if (off[k] == ZP_WPACK_NONE) {
                memcpy(back + at, w + at, count * sizeof *w); /* sent raw */
            } else {
                ok = ok && table + off[k] + bytes[k] <= used;
                zp__wpack_unpack_ref(image + table + off[k], count, &T_one, back + at);
                placed++;
            }
        }
        if (used)
            ok = ok && memcmp(back, w, n * sizeof *w) == 0;
        if (c == 0) /* room for all: every chunk but the two dense ones */
            ok = ok && placed == chunks - 2 && bytes[3] == 0 && bytes[7] == 0;
        printf("  room %llu: %u of %llu chunks placed, %llu bytes\n",
               (unsigned long long)caps[c], placed, (unsigned long long)chunks,
               (unsigned long long)used);
        CHECK(ok);
    }
    free(w);
    free(back);
    free(bytes);
    free(off);
    free(image);
}

/* When a packed send is worth it: the raw chunks' bytes and runs counted
 * (a short last chunk by its values), and a send that would carry seven
 * eighths of the plain bytes or more, or too many raw runs, refused. */
static void test_worth(void)
{
    enum { K = 10 };
    const uint64_t C = ZP_WPACK_CHUNK, n = (K - 1) * C + 100, plain = n * 32;
    uint64_t off[K], raw = 0;
    for (int k = 0; k < K; k++)
        off[k] = (uint64_t)k * 4096;
    CHECK(zp__wpack_worth(off, n, 65536, &raw));
    CHECK_EQ_INT(raw, 0);
    off[2] = off[3] = off[K - 1] = ZP_WPACK_NONE; /* two runs, the last chunk short */
    CHECK(zp__wpack_worth(off, n, 65536, &raw));
    CHECK_EQ_INT(raw, 2 * C * 32 + 100 * 32);
    /* the image plus the raw chunks at the edge of seven eighths */
    const uint64_t edge = plain - plain / 8 - raw;
    CHECK(zp__wpack_worth(off, n, edge, &raw));
    CHECK(!zp__wpack_worth(off, n, edge + 1, &raw));
    CHECK(!zp__wpack_worth(off, n, plain + 1, &raw)); /* no wrap */
    /* every chunk raw: nothing saved */
    for (int k = 0; k < K; k++)
        off[k] = ZP_WPACK_NONE;
    CHECK(!zp__wpack_worth(off, n, 256, &raw));
    CHECK_EQ_INT(raw, plain);
    /* raw runs: one raw chunk in sixteen (a sixteenth of the bytes), as
     * many runs as allowed, then one more */
    const uint64_t chunks = 16 * (uint64_t)(ZP_WPACK_RUNS_MAX + 1), big = chunks * C;
    uint64_t *o = malloc(chunks * sizeof *o);
    CHECK(o != NULL);
    if (!o)
        return;
    for (uint64_t k = 0; k < chunks; k++)
        o[k] = k % 16 == 1 && k / 16 < ZP_WPACK_RUNS_MAX ? ZP_WPACK_NONE : k * 4096;
    CHECK(zp__wpack_worth(o, big, 4096, &raw));
    CHECK_EQ_INT(raw, (uint64_t)ZP_WPACK_RUNS_MAX * C * 32);
    o[16 * (uint64_t)ZP_WPACK_RUNS_MAX + 1] = ZP_WPACK_NONE;
    CHECK(!zp__wpack_worth(o, big, 4096, &raw));
    free(o);
}

static void test_layout(void)
{
    CHECK_EQ_INT(zp__wpack_region_bytes() % 256, 0);
    CHECK_EQ_INT(ZP_WPACK_OFF_DENSE % 256, 0);
    CHECK(ZP_WPACK_OFF_DBITS >= ZP_WPACK_OFF_TILES + 4 * (ZP_WPACK_CHUNK / ZP_WPACK_TILE));
    CHECK(ZP_WPACK_OFF_DENSE >= ZP_WPACK_OFF_OBITS + 4 * (ZP_WPACK_CHUNK / 32));
    CHECK_EQ_INT(zp__wpack_chunks(0), 0);
    CHECK_EQ_INT(zp__wpack_chunks(1), 1);
    CHECK_EQ_INT(zp__wpack_chunks(ZP_WPACK_CHUNK), 1);
    CHECK_EQ_INT(zp__wpack_chunks(ZP_WPACK_CHUNK + 1ull), 2);
}

int main(void)
{
    zp_fr_one(&T_one);
    T_region = malloc(zp__wpack_region_bytes());
    CHECK(T_region != NULL);
    RUN(test_layout);
    RUN(test_mixes);
    RUN(test_counts);
    RUN(test_raw);
    RUN(test_place);
    RUN(test_image);
    RUN(test_worth);
    free(T_region);
    return FINISH();
}
