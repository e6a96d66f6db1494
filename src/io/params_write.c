/*
 * bellperson .params and .vk writers (docs/formats.md, bellperson and Filecoin): the exact layout
 * bellperson reads, written atomically. Points are encoded (Montgomery to
 * big-endian zcash bytes) in parallel, a block at a time, so a file of
 * hundreds of millions of points does not need a second copy in memory.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "io/bellperson.h"

#define G1U ZP_G1_UNCOMPRESSED
#define G2U ZP_G2_UNCOMPRESSED
#define BLOCK_POINTS 16384

typedef struct enc_job {
    const uint8_t *src; /* zp_g1_affine or zp_g2_affine array, as bytes */
    uint8_t *dst;
    bool g2;
    atomic_uint_fast64_t first_inf; /* lowest index of an infinity, or UINT64_MAX */
} enc_job;

static void encode_range(void *ctx, size_t begin, size_t end)
{
    enc_job *j = ctx;
    for (size_t i = begin; i < end; i++) {
        bool inf;
        if (j->g2) {
            const zp_g2_affine *p = (const zp_g2_affine *)j->src + i;
            inf = zp_g2_affine_is_inf(p);
            zp_g2_encode(j->dst + i * G2U, p, false);
        } else {
            const zp_g1_affine *p = (const zp_g1_affine *)j->src + i;
            inf = zp_g1_affine_is_inf(p);
            zp_g1_encode(j->dst + i * G1U, p, false);
        }
        if (inf) {
            uint_fast64_t cur = atomic_load(&j->first_inf);
            while (i < cur && !atomic_compare_exchange_weak(&j->first_inf, &cur, i))
                ;
        }
    }
}

static void put_be32(zp__afile *f, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    zp__afile_write(f, b, 4);
}

/* Writes n points (no count) in blocks through buf (BLOCK_POINTS of G2). */
static zp_err put_points(zp__afile *f, uint8_t *buf, const void *pts, uint64_t n, bool g2,
                         const char *name, int threads, zp__ioerr *why)
{
    size_t in_sz = g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
    size_t out_sz = g2 ? G2U : G1U;
    for (uint64_t b = 0; b < n; b += BLOCK_POINTS) {
        size_t m = n - b < BLOCK_POINTS ? (size_t)(n - b) : BLOCK_POINTS;
        enc_job j = {.src = (const uint8_t *)pts + b * in_sz, .dst = buf, .g2 = g2};
        atomic_init(&j.first_inf, UINT64_MAX);
        zp__parallel_for(m, 1024, encode_range, &j, m >= 2048 ? threads : 1);
        uint64_t inf = atomic_load(&j.first_inf);
        if (inf != UINT64_MAX)
            return zp__fail(why, ZP_E_INFINITY,
                            "%s point %llu is infinity, which bellperson cannot read", name,
                            (unsigned long long)(b + inf));
        zp_err e = zp__afile_write(f, buf, m * out_sz);
        if (e)
            return zp__fail(why, e, "write %s: %s", f->tmp, zp_strerror(e));
    }
    return ZP_OK;
}

static zp_err put_counted(zp__afile *f, uint8_t *buf, const void *pts, uint64_t n, bool g2,
                          const char *name, int threads, zp__ioerr *why)
{
    if (n > UINT32_MAX)
        return zp__fail(why, ZP_E_TOO_LARGE, "%s: %llu points do not fit a u32 count", name,
                        (unsigned long long)n);
    put_be32(f, (uint32_t)n);
    return put_points(f, buf, pts, n, g2, name, threads, why);
}

static zp_err put_vk(zp__afile *f, uint8_t *buf, const zp__vk *vk, int threads, zp__ioerr *why)
{
    struct { const void *pt; bool g2; const char *name; } v[6] = {
        {&vk->alpha1, false, "alpha1"}, {&vk->beta1, false, "beta1"},
        {&vk->beta2, true, "beta2"},    {&vk->gamma2, true, "gamma2"},
        {&vk->delta1, false, "delta1"}, {&vk->delta2, true, "delta2"},
    };
    for (int i = 0; i < 6; i++) {
        zp_err e = put_points(f, buf, v[i].pt, 1, v[i].g2, v[i].name, 1, why);
        if (e)
            return e;
    }
    if (vk->n_ic == 0 || !vk->ic)
        return zp__fail(why, ZP_E_INVALID_ARG, "the verifying key has no ic points");
    return put_counted(f, buf, vk->ic, vk->n_ic, false, "ic", threads, why);
}

/* Opens path, runs the body, commits or aborts. */
static zp_err write_file(const char *path, const zp__pk *pk, const zp__vk *vk, int threads,
                         zp__ioerr *why)
{
    uint8_t *buf = malloc((size_t)BLOCK_POINTS * G2U);
    if (!buf)
        return zp__fail(why, ZP_E_NOMEM, "no memory for the encoding buffer");
    zp__afile f;
    zp_err e = zp__afile_open(&f, path, why);
    if (e) {
        free(buf);
        return e;
    }
    e = put_vk(&f, buf, vk, threads, why);
    if (!e && pk) {
        struct { const void *p; uint64_t n; bool g2; const char *name; } arr[] = {
            {pk->h, pk->n_h, false, "h"},   {pk->l, pk->n_l, false, "l"},
            {pk->a, pk->n_a, false, "a"},   {pk->b1, pk->n_b, false, "b_g1"},
            {pk->b2, pk->n_b, true, "b_g2"},
        };
        for (size_t i = 0; !e && i < sizeof arr / sizeof arr[0]; i++)
            e = put_counted(&f, buf, arr[i].p, arr[i].n, arr[i].g2, arr[i].name, threads, why);
    }
    free(buf);
    if (e) {
        zp__afile_abort(&f);
        return e;
    }
    return zp__afile_commit(&f, why);
}

uint64_t zp__params_size(const zp__pk *pk)
{
    uint64_t c[] = {pk->vk.n_ic, pk->n_h, pk->n_l, pk->n_a, pk->n_b};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (c[i] > UINT32_MAX)
            return 0;
    return 3 * G1U + 3 * G2U + 6 * 4 +
           (c[0] + c[1] + c[2] + c[3] + c[4]) * G1U + c[4] * G2U;
}

zp_err zp__params_save(const char *path, const zp__pk *pk, int threads, zp__ioerr *why)
{
    if (pk->h_conv != ZP_H_TAU || pk->roots != ZP_ROOTS_BELLPERSON)
        return zp__fail(why, ZP_E_INVALID_ARG,
                        "a .params file holds only bellperson-convention keys (tau H, "
                        "7-based roots); this key is in the snarkjs convention");
    if (pk->n_h + 1 != pk->domain_size || pk->vk.n_ic != (uint64_t)pk->n_public + 1 ||
        pk->n_l + pk->n_public + 1 != pk->n_vars)
        return zp__fail(why, ZP_E_INVALID_ARG, "the key's counts disagree with each other");
    return write_file(path, pk, &pk->vk, threads, why);
}

zp_err zp__params_vk_save(const char *path, const zp__vk *vk, zp__ioerr *why)
{
    return write_file(path, NULL, vk, 1, why);
}
