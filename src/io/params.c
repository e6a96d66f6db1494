/*
 * bellperson .params and .vk readers (docs/formats.md, bellperson and Filecoin, bellperson.h).
 *
 * Reading is two passes. The first walks the layout: it reads each u32
 * big-endian count and bounds it by the bytes left, so every offset is
 * known and every allocation is bounded by the file size before anything
 * is decoded. The second decodes the point arrays in parallel, since real
 * files hold hundreds of millions of points and each needs a curve and a
 * subgroup check. When points fail, the one with the lowest index in its
 * array is reported, whatever the thread timing.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "cpu/msm_ifma.h"
#include "io/bellperson.h"
#include "math/curve.h"

#define G1U ZP_G1_UNCOMPRESSED
#define G2U ZP_G2_UNCOMPRESSED
#define VK_POINTS_BYTES (3 * G1U + 3 * G2U)

enum { F_IC, F_H, F_L, F_A, F_B1, F_B2, NFIELDS };

static const char *const FIELD_NAME[NFIELDS] = {"ic", "h", "l", "a", "b_g1", "b_g2"};

/* Where each counted field's points start, and how many there are. */
typedef struct layout {
    uint64_t off[NFIELDS];
    uint32_t count[NFIELDS];
} layout;

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Walks fields 7.. of the file (nfields of them) after the vk points. */
static zp_err walk(layout *lay, const uint8_t *data, size_t len, int nfields,
                   zp__ioerr *why)
{
    if (len < VK_POINTS_BYTES)
        return zp__fail(why, ZP_E_TRUNCATED,
                        "%zu bytes end inside the verifying key points (%d bytes)", len,
                        VK_POINTS_BYTES);
    uint64_t pos = VK_POINTS_BYTES;
    for (int f = 0; f < nfields; f++) {
        if (len - pos < 4)
            return zp__fail(why, ZP_E_TRUNCATED, "the data ends before the %s count at byte %llu",
                            FIELD_NAME[f], (unsigned long long)pos);
        lay->count[f] = be32(data + pos);
        pos += 4;
        uint64_t size = f == F_B2 ? G2U : G1U;
        /* count < 2^32, size <= 192: the product cannot overflow. */
        uint64_t need = (uint64_t)lay->count[f] * size;
        if (need > len - pos)
            return zp__fail(why, ZP_E_TRUNCATED,
                            "%s count %u needs %llu bytes at byte %llu, %llu are left",
                            FIELD_NAME[f], lay->count[f], (unsigned long long)need,
                            (unsigned long long)pos, (unsigned long long)(len - pos));
        lay->off[f] = pos;
        pos += need;
    }
    return ZP_OK;
}

/* The counts must describe a key before any allocation trusts them. */
static zp_err check_counts(const layout *lay, zp__ioerr *why)
{
    const uint32_t *c = lay->count;
    if (c[F_IC] == 0)
        return zp__fail(why, ZP_E_FORMAT, "ic count is 0: the ONE input is missing");
    uint64_t dom = (uint64_t)c[F_H] + 1;
    if ((dom & (dom - 1)) != 0)
        return zp__fail(why, ZP_E_FORMAT,
                        "h count %u: the domain size (count + 1) must be a power of two",
                        c[F_H]);
    uint64_t n_vars = (uint64_t)c[F_IC] + c[F_L];
    if (n_vars > UINT32_MAX)
        return zp__fail(why, ZP_E_FORMAT, "ic %u + l %u variables exceed 2^32 - 1", c[F_IC],
                        c[F_L]);
    if (c[F_A] > n_vars || c[F_B1] > n_vars || c[F_B2] > n_vars)
        return zp__fail(why, ZP_E_FORMAT,
                        "a %u, b_g1 %u or b_g2 %u points for %llu variables", c[F_A],
                        c[F_B1], c[F_B2], (unsigned long long)n_vars);
    if (c[F_B1] != c[F_B2])
        return zp__fail(why, ZP_E_FORMAT, "b_g1 has %u points but b_g2 %u", c[F_B1], c[F_B2]);
    return ZP_OK;
}

/* ------------------------------------------------------ parallel decode */

typedef struct decode_job {
    const uint8_t *src;
    void *dst;
    bool g2;
    atomic_uint_fast64_t first_bad; /* lowest failing index, UINT64_MAX if none */
} decode_job;

/* One point: canonical, on the curve, not infinity; the subgroup test is
 * left to the caller (decode_one, or eight at a time). */
static zp_err decode_on_curve(void *dst, size_t i, const uint8_t *src, bool g2)
{
    if (g2) {
        zp_g2_affine *p = (zp_g2_affine *)dst + i;
        zp_err e = zp__g2_decode_on_curve(p, src + i * G2U, G2U);
        return e ? e : zp_g2_affine_is_inf(p) ? ZP_E_INFINITY : ZP_OK;
    }
    zp_g1_affine *p = (zp_g1_affine *)dst + i;
    zp_err e = zp__g1_decode_on_curve(p, src + i * G1U, G1U);
    return e ? e : zp_g1_affine_is_inf(p) ? ZP_E_INFINITY : ZP_OK;
}

static zp_err decode_one(void *dst, size_t i, const uint8_t *src, bool g2)
{
    zp_err e = decode_on_curve(dst, i, src, g2);
    if (e)
        return e;
    bool in = g2 ? zp_g2_affine_in_subgroup((zp_g2_affine *)dst + i)
                 : zp_g1_affine_in_subgroup((zp_g1_affine *)dst + i);
    return in ? ZP_OK : ZP_E_NOT_IN_SUBGROUP;
}

static void note_bad(decode_job *j, uint64_t i)
{
    uint_fast64_t cur = atomic_load(&j->first_bad);
    while (i < cur && !atomic_compare_exchange_weak(&j->first_bad, &cur, i))
        ;
}

/* Subgroup tests of the n <= 8 points from index first on, all at once;
 * the lowest failing index, or SIZE_MAX. */
static size_t subgroup_x8(const decode_job *j, size_t first, int n)
{
    size_t sz = j->g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
    const void *p[8] = {NULL};
    bool ok[8];
    for (int k = 0; k < n; k++)
        p[k] = (const char *)j->dst + (first + (size_t)k) * sz;
    zp__in_subgroup_x8(j->g2, p, n, ok);
    for (int k = 0; k < n; k++)
        if (!ok[k])
            return first + (size_t)k;
    return SIZE_MAX;
}

static void decode_range(void *ctx, size_t begin, size_t end)
{
    decode_job *j = ctx;
    /* A failure at a lower index already decides the report. */
    if (atomic_load(&j->first_bad) < begin)
        return;
    if (!zp__msm_ifma) {
        for (size_t i = begin; i < end; i++) {
            if (decode_one(j->dst, i, j->src, j->g2) != ZP_OK) {
                note_bad(j, i);
                return;
            }
        }
        return;
    }
    /* IFMA lanes: the subgroup tests eight at a time, the pending points
     * (lower indices) before any later failure, so the first failing index
     * is the same. */
    size_t first = begin;
    for (size_t i = begin; i < end; i++) {
        if (decode_on_curve(j->dst, i, j->src, j->g2) != ZP_OK) {
            size_t bad = first < i ? subgroup_x8(j, first, (int)(i - first)) : SIZE_MAX;
            note_bad(j, bad != SIZE_MAX ? bad : i);
            return;
        }
        if (i + 1 - first == 8) {
            size_t bad = subgroup_x8(j, first, 8);
            if (bad != SIZE_MAX) {
                note_bad(j, bad);
                return;
            }
            first = i + 1;
        }
    }
    if (first < end) {
        size_t bad = subgroup_x8(j, first, (int)(end - first));
        if (bad != SIZE_MAX)
            note_bad(j, bad);
    }
}

/* Progress steps: the arrays of a point type count as one step each. */
static const char *const STEP_NAME[2] = {"checking G1 points", "checking G2 points"};

/* Decodes n points at src into a new array *out (freed by the caller even
 * on failure). */
static zp_err decode_array(void **out, const uint8_t *src, uint64_t n, bool g2,
                           const char *name, int threads, const zp__progress *progress,
                           zp__ioerr *why)
{
    size_t sz = g2 ? sizeof(zp_g2_affine) : sizeof(zp_g1_affine);
    if (n > SIZE_MAX / sz)
        return zp__fail(why, ZP_E_TOO_LARGE, "%s: %llu points do not fit in memory", name,
                        (unsigned long long)n);
    *out = malloc(n ? (size_t)n * sz : 1);
    if (!*out)
        return zp__fail(why, ZP_E_NOMEM, "%s: cannot allocate %llu points", name,
                        (unsigned long long)n);
    decode_job j = {.src = src, .dst = *out, .g2 = g2};
    atomic_init(&j.first_bad, UINT64_MAX);
    zp__parallel_for_progress((size_t)n, 4096, decode_range, &j, threads, progress,
                              STEP_NAME[g2]);
    uint64_t bad = atomic_load(&j.first_bad);
    if (bad == UINT64_MAX)
        return ZP_OK;
    /* Decode the first bad point again for its code (deterministic). */
    zp_err e = decode_one(*out, (size_t)bad, src, g2);
    return zp__fail(why, e, "%s point %llu: %s", name, (unsigned long long)bad,
                    zp_strerror(e));
}

/* --------------------------------------------------------------- the vk */

static zp_err vk_points(zp__vk *vk, const uint8_t *p, zp__ioerr *why)
{
    struct { void *pt; bool g2; const char *name; } f[6] = {
        {&vk->alpha1, false, "alpha1"}, {&vk->beta1, false, "beta1"},
        {&vk->beta2, true, "beta2"},    {&vk->gamma2, true, "gamma2"},
        {&vk->delta1, false, "delta1"}, {&vk->delta2, true, "delta2"},
    };
    for (int i = 0; i < 6; i++) {
        zp_err e = decode_one(f[i].pt, 0, p, f[i].g2);
        if (e)
            return zp__fail(why, e, "verifying key point %s: %s", f[i].name, zp_strerror(e));
        p += f[i].g2 ? G2U : G1U;
    }
    return ZP_OK;
}

static zp_err vk_read(zp__vk *vk, const uint8_t *data, const layout *lay, int threads,
                      zp__ioerr *why)
{
    zp_err e = vk_points(vk, data, why);
    if (e)
        return e;
    vk->n_ic = lay->count[F_IC];
    void *ic = NULL;
    e = decode_array(&ic, data + lay->off[F_IC], vk->n_ic, false, "ic", threads, NULL, why);
    vk->ic = ic; /* owned by vk even on failure */
    return e;
}

zp_err zp__params_vk_parse(zp__vk *out, const uint8_t *data, size_t len, zp__ioerr *why)
{
    memset(out, 0, sizeof *out);
    layout lay = {{0}, {0}};
    zp_err e = walk(&lay, data, len, 1, why);
    if (!e && lay.count[F_IC] == 0)
        e = zp__fail(why, ZP_E_FORMAT, "ic count is 0: the ONE input is missing");
    if (!e)
        e = vk_read(out, data, &lay, 1, why);
    if (e)
        zp__vk_free(out);
    return e;
}

zp_err zp__params_vk_load(zp__vk *out, const char *path, zp__ioerr *why)
{
    zp__buf b;
    memset(out, 0, sizeof *out);
    zp_err e = zp__file_map(&b, path, UINT64_MAX, why);
    if (e)
        return e;
    e = zp__params_vk_parse(out, b.data, b.len, why);
    if (zp__buf_changed(&b)) { /* cut while mapped: what was parsed is zeros */
        if (!e)
            zp__vk_free(out);
        e = zp__fail(why, ZP_E_TRUNCATED, "%s changed while being read", path);
    }
    zp__buf_free(&b);
    return e;
}

/* ----------------------------------------------------------- the params */

static void set_array(zp__pk *pk, int f, void *p)
{
    switch (f) {
    case F_H: pk->h = p; break;
    case F_L: pk->l = p; break;
    case F_A: pk->a = p; break;
    case F_B1: pk->b1 = p; break;
    default: pk->b2 = p; break;
    }
}

static zp_err read_arrays(zp__pk *pk, const uint8_t *data, const layout *lay, int threads,
                          const zp__progress *progress, zp__ioerr *why)
{
    for (int f = F_H; f < NFIELDS; f++) {
        void *p = NULL;
        zp_err e = decode_array(&p, data + lay->off[f], lay->count[f], f == F_B2,
                                FIELD_NAME[f], threads, progress, why);
        set_array(pk, f, p); /* owned by pk even on failure */
        if (e)
            return e;
    }
    return ZP_OK;
}

/* The layout of a whole file, its counts checked, and out's shape from
 * them (out zeroed first). */
static zp_err shape(zp__pk *out, layout *lay, const uint8_t *data, size_t len, zp__ioerr *why)
{
    memset(out, 0, sizeof *out);
    zp_err e = walk(lay, data, len, NFIELDS, why);
    if (!e)
        e = check_counts(lay, why);
    if (e)
        return e;
    out->h_conv = ZP_H_TAU;
    out->roots = ZP_ROOTS_BELLPERSON;
    out->n_public = lay->count[F_IC] - 1;
    out->n_vars = lay->count[F_IC] + lay->count[F_L];
    out->domain_size = (uint64_t)lay->count[F_H] + 1;
    out->n_h = lay->count[F_H];
    out->n_l = lay->count[F_L];
    out->n_a = lay->count[F_A];
    out->n_b = lay->count[F_B1];
    return ZP_OK;
}

/* With cs, the circuit is attached (and so checked against the counts)
 * before any point is decoded: a wrong circuit fails at once instead of
 * after the point checks of a large file. */
static zp_err parse(zp__pk *out, const uint8_t *data, size_t len, const zp__r1cs *cs,
                    int threads, const zp__progress *progress, zp__ioerr *why)
{
    layout lay = {{0}, {0}};
    zp_err e = shape(out, &lay, data, len, why);
    if (e)
        return e;
    if ((cs && (e = zp__pk_attach_circuit(out, cs, why))) ||
        (e = vk_read(&out->vk, data, &lay, threads, why)) ||
        (e = read_arrays(out, data, &lay, threads, progress, why)))
        zp__pk_free(out);
    return e;
}

zp_err zp__params_parse(zp__pk *out, const uint8_t *data, size_t len, int threads,
                        zp__ioerr *why)
{
    return parse(out, data, len, NULL, threads, NULL, why);
}

zp_err zp__params_parse_circuit(zp__pk *out, const uint8_t *data, size_t len,
                                const zp__r1cs *cs, int threads, zp__ioerr *why)
{
    return parse(out, data, len, cs, threads, NULL, why);
}

zp_err zp__params_load_circuit(zp__pk *out, const char *path, const zp__r1cs *cs, int threads,
                               const zp__progress *progress, zp__ioerr *why)
{
    zp__buf b;
    memset(out, 0, sizeof *out);
    zp_err e = zp__file_map(&b, path, UINT64_MAX, why);
    if (e)
        return e;
    e = parse(out, b.data, b.len, cs, threads, progress, why);
    if (zp__buf_changed(&b)) { /* cut while mapped: what was parsed is zeros */
        if (!e)
            zp__pk_free(out);
        e = zp__fail(why, ZP_E_TRUNCATED, "%s changed while being read", path);
    }
    zp__buf_free(&b);
    return e;
}

zp_err zp__params_shape_parse(zp__pk *out, const uint8_t *data, size_t len, zp__ioerr *why)
{
    layout lay = {{0}, {0}};
    return shape(out, &lay, data, len, why);
}

zp_err zp__params_shape_load(zp__pk *out, const char *path, zp__ioerr *why)
{
    zp__buf b;
    memset(out, 0, sizeof *out);
    zp_err e = zp__file_map(&b, path, UINT64_MAX, why);
    if (e)
        return e;
    e = zp__params_shape_parse(out, b.data, b.len, why);
    if (zp__buf_changed(&b)) /* cut while mapped: the counts may be zeros */
        e = zp__fail(why, ZP_E_TRUNCATED, "%s changed while being read", path);
    zp__buf_free(&b);
    return e;
}

zp_err zp__params_load(zp__pk *out, const char *path, int threads, zp__ioerr *why)
{
    return zp__params_load_circuit(out, path, NULL, threads, NULL, why);
}
