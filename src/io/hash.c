/*
 * The section checksum of .zpk files: a 64-bit multiply-xorshift hash that
 * is fast enough to check tens of GiB at load time.
 *
 * The input is cut into chunks of ZP__HASH_CHUNK bytes (the last one may be
 * shorter). A chunk is read as little-endian 64-bit words (the last partial
 * word zero-padded) dealt round-robin to four lanes; each word w updates
 * its lane as
 *     acc = (acc ^ w * K1) * K2;  acc ^= acc >> 32
 * Every step is a bijection of acc for a fixed w and injective in w for a
 * fixed acc (K1, K2 odd), so a change confined to one word always changes
 * the result. The lanes and the chunk length fold into a chunk digest, and
 * the digests fold in order, with the total length, into the hash. Chunks
 * are independent, so they are hashed in parallel; the chunk size is part
 * of the definition, so the value does not depend on the thread count.
 *
 * This is a checksum against corruption (bad disks, truncated copies, torn
 * writes), not a MAC: it does not resist someone who forges a file.
 */
#include <string.h>

#include "base/pool.h"
#include "io/zpk.h"

#define K1 0x9e3779b97f4a7c15ULL
#define K2 0xd6e8feb86659fd93ULL
#define LANES 4
#define CHUNK_SEED 0x452821e638d01377ULL
#define TOTAL_SEED 0xbe5466cf34e90c6cULL

static const uint64_t LANE_SEED[LANES] = {
    0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL, 0xa4093822299f31d0ULL, 0x082efa98ec4e6c89ULL,
};

/* A bijective finalizer (xorshift-multiply, as in MurmurHash3's fmix64). */
static uint64_t fmix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static inline uint64_t step(uint64_t acc, uint64_t w)
{
    acc = (acc ^ w * K1) * K2;
    return acc ^ (acc >> 32);
}

static uint64_t load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t digest(const uint64_t acc[LANES], uint64_t chunk_len)
{
    uint64_t d = fmix(chunk_len ^ CHUNK_SEED);
    for (int k = 0; k < LANES; k++)
        d = fmix(d ^ acc[k]);
    return d;
}

/* ------------------------------------------------------------ reference */

/* Word by word from single bytes, one chunk after another: the definition
 * above written as plainly as possible, for tests of the fast version. */
static uint64_t chunk_ref(const uint8_t *p, size_t n)
{
    uint64_t acc[LANES];
    memcpy(acc, LANE_SEED, sizeof acc);
    for (size_t i = 0; i * 8 < n; i++) {
        uint64_t w = 0;
        for (size_t b = 0; b < 8 && i * 8 + b < n; b++)
            w |= (uint64_t)p[i * 8 + b] << (8 * b);
        acc[i % LANES] = step(acc[i % LANES], w);
    }
    return digest(acc, n);
}

uint64_t zp__hash64_ref(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t h = fmix(len ^ TOTAL_SEED);
    for (size_t off = 0; off < len; off += ZP__HASH_CHUNK) {
        size_t n = len - off < ZP__HASH_CHUNK ? len - off : ZP__HASH_CHUNK;
        h = fmix(h ^ chunk_ref(p + off, n));
    }
    return h;
}

/* ----------------------------------------------------------------- fast */

static uint64_t chunk_fast(const uint8_t *p, size_t n)
{
    uint64_t a0 = LANE_SEED[0], a1 = LANE_SEED[1], a2 = LANE_SEED[2], a3 = LANE_SEED[3];
    size_t i = 0;
    /* Four independent dependency chains keep the scalar multipliers busy.
     * Each word is its own 8-byte load: one 32-byte copy let GCC pack the
     * lanes into AVX2 registers, where a 64-bit multiply costs three
     * vpmuludq and the stack round trip stalled store forwarding (measured
     * slower than the byte-by-byte reference). */
    for (; i + 32 <= n; i += 32) {
        uint64_t w0, w1, w2, w3;
        memcpy(&w0, p + i, 8); /* the host is little-endian (zpk.h) */
        memcpy(&w1, p + i + 8, 8);
        memcpy(&w2, p + i + 16, 8);
        memcpy(&w3, p + i + 24, 8);
        a0 = step(a0, w0);
        a1 = step(a1, w1);
        a2 = step(a2, w2);
        a3 = step(a3, w3);
    }
    uint64_t acc[LANES] = {a0, a1, a2, a3};
    for (int k = 0; i < n; i += 8, k++) {
        uint8_t buf[8] = {0};
        memcpy(buf, p + i, n - i < 8 ? n - i : 8);
        acc[k] = step(acc[k], load_le64(buf));
    }
    return digest(acc, n);
}

typedef struct hash_job {
    const uint8_t *p;
    size_t len;
    uint64_t *digests;
} hash_job;

static void hash_chunks(void *ctx, size_t begin, size_t end)
{
    hash_job *j = ctx;
    for (size_t c = begin; c < end; c++) {
        size_t off = c * ZP__HASH_CHUNK;
        size_t n = j->len - off < ZP__HASH_CHUNK ? j->len - off : ZP__HASH_CHUNK;
        j->digests[c] = chunk_fast(j->p + off, n);
    }
}

/* Digests of up to this many chunks (2 GiB) at a time on the stack. */
#define BATCH 2048

uint64_t zp__hash64(const void *data, size_t len, int threads)
{
    return zp__hash64_progress(data, len, threads, NULL);
}

uint64_t zp__hash64_progress(const void *data, size_t len, int threads, zp__progress_span *hp)
{
    const uint8_t *p = data;
    uint64_t digests[BATCH];
    uint64_t h = fmix(len ^ TOTAL_SEED);
    size_t nchunks = len / ZP__HASH_CHUNK + (len % ZP__HASH_CHUNK != 0);
    for (size_t c0 = 0; c0 < nchunks; c0 += BATCH) {
        size_t nc = nchunks - c0 < BATCH ? nchunks - c0 : BATCH;
        size_t off = c0 * ZP__HASH_CHUNK;
        hash_job j = {p + off, len - off, digests};
        if (nc == 1)
            hash_chunks(&j, 0, 1);
        else
            zp__parallel_for(nc, 1, hash_chunks, &j, threads);
        for (size_t c = 0; c < nc; c++)
            h = fmix(h ^ digests[c]);
        if (hp) {
            hp->done += nc * ZP__HASH_CHUNK < len - off ? nc * ZP__HASH_CHUNK : len - off;
            zp__progress_note(hp->p, hp->step, hp->done, hp->total);
        }
    }
    return h;
}
