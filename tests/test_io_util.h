/*
 * Helpers for the io tests, written independently of src/io so that test
 * inputs are not built by the code under test: stdio file reads, a small
 * iden3 container splitter/joiner for crafting bad files, and points on
 * the curves that are outside the prime-order subgroups.
 */
#ifndef ZP_TEST_IO_UTIL_H
#define ZP_TEST_IO_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkpipe.h"

static inline uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s (run from tests/)\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)n + 1);
    if (!p || fread(p, 1, (size_t)n, f) != (size_t)n)
        exit(2);
    fclose(f);
    p[n] = 0;
    *len = (size_t)n;
    return p;
}

static inline void spit(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n)
        exit(2);
    fclose(f);
}

static inline uint32_t tget32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void tput32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

typedef struct tsec {
    uint32_t id;
    uint8_t *body;
    size_t size;
} tsec;

typedef struct tcont {
    uint8_t head[8]; /* magic + version */
    int n;
    tsec s[16];
} tcont;

/* Splits a well-formed container; bodies are private copies. */
static inline void tcont_split(tcont *c, const uint8_t *buf, size_t len)
{
    memset(c, 0, sizeof *c);
    memcpy(c->head, buf, 8);
    c->n = (int)tget32(buf + 8);
    size_t pos = 12;
    for (int i = 0; i < c->n; i++) {
        c->s[i].id = tget32(buf + pos);
        uint64_t size = tget32(buf + pos + 4) | (uint64_t)tget32(buf + pos + 8) << 32;
        pos += 12;
        if (pos + size > len)
            exit(3);
        c->s[i].size = (size_t)size;
        c->s[i].body = malloc(size + 1);
        memcpy(c->s[i].body, buf + pos, size);
        pos += size;
    }
}

static inline tsec *tcont_get(tcont *c, uint32_t id)
{
    for (int i = 0; i < c->n; i++)
        if (c->s[i].id == id)
            return &c->s[i];
    return NULL;
}

static inline uint8_t *tcont_join(const tcont *c, size_t *len)
{
    size_t n = 12;
    for (int i = 0; i < c->n; i++)
        n += 12 + c->s[i].size;
    uint8_t *p = malloc(n), *q = p + 12;
    memcpy(p, c->head, 8);
    tput32(p + 8, (uint32_t)c->n);
    for (int i = 0; i < c->n; i++) {
        tput32(q, c->s[i].id);
        tput32(q + 4, (uint32_t)c->s[i].size);
        tput32(q + 8, (uint32_t)((uint64_t)c->s[i].size >> 32));
        memcpy(q + 12, c->s[i].body, c->s[i].size);
        q += 12 + c->s[i].size;
    }
    *len = n;
    return p;
}

static inline void tcont_copy(tcont *dst, const tcont *src)
{
    *dst = *src;
    for (int i = 0; i < src->n; i++) {
        dst->s[i].body = malloc(src->s[i].size + 1);
        memcpy(dst->s[i].body, src->s[i].body, src->s[i].size);
    }
}

static inline void tcont_free(tcont *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->s[i].body);
    memset(c, 0, sizeof *c);
}

/* Replaces a section's body with a copy of n bytes of p. */
static inline void tcont_set(tcont *c, uint32_t id, const void *p, size_t n)
{
    tsec *s = tcont_get(c, id);
    free(s->body);
    s->body = malloc(n + 1);
    memcpy(s->body, p, n);
    s->size = n;
}

/* Changes a section's size; new bytes are zero. */
static inline void tcont_resize(tcont *c, uint32_t id, size_t n)
{
    tsec *s = tcont_get(c, id);
    s->body = realloc(s->body, n + 1);
    if (n > s->size)
        memset(s->body + s->size, 0, n - s->size);
    s->size = n;
}

/* A point of E(Fp) that is not in G1: x = 1, 2, ... until x^3 + 4 is a
 * square. The cofactor is about 2^126, so the first such point is outside
 * the subgroup (the tests check that with the library's predicate). */
static inline void g1_non_subgroup(zp_g1_affine *out)
{
    zp_fp four, t;
    zp_fp_from_u64(&four, 4);
    for (uint64_t k = 1;; k++) {
        zp_fp_from_u64(&out->x, k);
        zp_fp_sqr(&t, &out->x);
        zp_fp_mul(&t, &t, &out->x);
        zp_fp_add(&t, &t, &four);
        if (zp_fp_sqrt(&out->y, &t))
            return;
    }
}

/* Likewise on E'(Fp2): y^2 = x^3 + 4(u + 1). */
static inline void g2_non_subgroup(zp_g2_affine *out)
{
    zp_fp2 b, t;
    zp_fp_from_u64(&b.c0, 4);
    zp_fp_from_u64(&b.c1, 4);
    for (uint64_t k = 1;; k++) {
        zp_fp_from_u64(&out->x.c0, k);
        zp_fp_zero(&out->x.c1);
        zp_fp2_sqr(&t, &out->x);
        zp_fp2_mul(&t, &t, &out->x);
        zp_fp2_add(&t, &t, &b);
        if (zp_fp2_sqrt(&out->y, &t))
            return;
    }
}

/* Montgomery little-endian bytes of a coordinate, as .zkey stores them. */
static inline void fp_mont_bytes(uint8_t *out, const zp_fp *a)
{
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 8; k++)
            out[8 * i + k] = (uint8_t)(a->l[i] >> (8 * k));
}

#endif
