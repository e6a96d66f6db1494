/*
 * snarkjs Groth16 proving keys (.zkey, version 1) for BLS12-381 into a
 * zp__pk (docs/formats.md, circom and snarkjs). Every section size is checked against the counts
 * of section 2 before anything is allocated, so a hostile count fails as
 * ZP_E_FORMAT instead of asking for a huge block. Every point is checked:
 * coordinates below q, on the curve, in the prime-order subgroup.
 */
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "io/zkey_impl.h"
#include "math/mont.h"

/* Points in .zkey: Montgomery little-endian coordinates, G2 c0 then c1,
 * all-zero bytes for infinity. */
static zp_err fp_mont_le(zp_fp *out, const uint8_t *p)
{
    return zp_fp_from_mont_le(out, p);
}

zp_err zp__zkey_g1(zp_g1_affine *out, const uint8_t *p)
{
    if (fp_mont_le(&out->x, p) || fp_mont_le(&out->y, p + 48))
        return ZP_E_NOT_CANONICAL;
    return zp__g1_check(out);
}

zp_err zp__zkey_g2(zp_g2_affine *out, const uint8_t *p)
{
    if (fp_mont_le(&out->x.c0, p) || fp_mont_le(&out->x.c1, p + 48) ||
        fp_mont_le(&out->y.c0, p + 96) || fp_mont_le(&out->y.c1, p + 144))
        return ZP_E_NOT_CANONICAL;
    return zp__g2_check(out);
}

bool zp__zkey_is_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

static zp_err point_fail(zp__ioerr *why, zp_err e, const char *what, uint64_t i)
{
    return zp__fail(why, e, "%s point %llu: %s", what, (unsigned long long)i, zp_strerror(e));
}

/* Section 2 after the primes: counts and the six verifying-key points. */
static zp_err read_vk_points(zp__pk *pk, zp__rd *r, zp__ioerr *why)
{
    const uint8_t *p = zp__rd_take(r, 3 * ZP__ZKEY_G1 + 3 * ZP__ZKEY_G2);
    if (!p)
        return zp__fail(why, ZP_E_FORMAT, "zkey header section is too short");
    struct { void *pt; int g2; const char *name; } pts[6] = {
        {&pk->vk.alpha1, 0, "alpha1"}, {&pk->vk.beta1, 0, "beta1"},
        {&pk->vk.beta2, 1, "beta2"},   {&pk->vk.gamma2, 1, "gamma2"},
        {&pk->vk.delta1, 0, "delta1"}, {&pk->vk.delta2, 1, "delta2"},
    };
    for (int i = 0; i < 6; i++) {
        size_t sz = pts[i].g2 ? ZP__ZKEY_G2 : ZP__ZKEY_G1;
        if (zp__zkey_is_zero(p, sz))
            return zp__fail(why, ZP_E_INFINITY, "verifying key point %s is infinity",
                            pts[i].name);
        zp_err e = pts[i].g2 ? zp__zkey_g2(pts[i].pt, p) : zp__zkey_g1(pts[i].pt, p);
        if (e)
            return zp__fail(why, e, "verifying key point %s: %s", pts[i].name, zp_strerror(e));
        p += sz;
    }
    return ZP_OK;
}

static zp_err read_header(zp__pk *pk, const zp__container *c, zp__ioerr *why)
{
    zp__rd r;
    uint32_t v;
    zp_err e = zp__container_section(&r, c, 1, "protocol", why);
    if (e)
        return e;
    if (!zp__rd_u32(&r, &v))
        return zp__fail(why, ZP_E_FORMAT, "zkey protocol section is too short");
    if (v != 1)
        return zp__fail(why, ZP_E_UNSUPPORTED,
                        "zkey protocol %u: only Groth16 (1) is supported", v);
    if ((e = zp__container_section(&r, c, 2, "header", why)))
        return e;
    uint32_t n8q, n8r;
    const uint8_t *q, *rr;
    if (!zp__rd_u32(&r, &n8q))
        return zp__fail(why, ZP_E_FORMAT, "zkey header section is too short");
    if (n8q != 48)
        return zp__fail(why, ZP_E_BAD_PRIME,
                        "zkey base field of %u bytes: only BLS12-381 (48) is supported", n8q);
    if (!(q = zp__rd_take(&r, 48)) || !zp__rd_u32(&r, &n8r))
        return zp__fail(why, ZP_E_FORMAT, "zkey header section is too short");
    if (n8r != 32)
        return zp__fail(why, ZP_E_BAD_PRIME,
                        "zkey scalar field of %u bytes: only BLS12-381 (32) is supported", n8r);
    if (!(rr = zp__rd_take(&r, 32)))
        return zp__fail(why, ZP_E_FORMAT, "zkey header section is too short");
    if (memcmp(q, ZP__Q_LE, 48) != 0 || memcmp(rr, ZP__R_LE, 32) != 0)
        return zp__fail(why, ZP_E_BAD_PRIME,
                        "zkey is for another curve: only BLS12-381 is supported "
                        "(snarkjs: use a bls12381 ptau and circom --prime bls12381)");
    uint32_t dom = 0;
    if (!zp__rd_u32(&r, &pk->n_vars) || !zp__rd_u32(&r, &pk->n_public) ||
        !zp__rd_u32(&r, &dom))
        return zp__fail(why, ZP_E_FORMAT, "zkey header section is too short");
    pk->domain_size = dom;
    if ((uint64_t)pk->n_public + 1 > pk->n_vars)
        return zp__fail(why, ZP_E_FORMAT, "zkey has %u public inputs but %u variables",
                        pk->n_public, pk->n_vars);
    if (dom == 0 || (dom & (dom - 1)) != 0 || (uint64_t)dom < (uint64_t)pk->n_public + 1)
        return zp__fail(why, ZP_E_FORMAT,
                        "zkey domain size %u is not a power of two above the inputs", dom);
    return read_vk_points(pk, &r, why);
}

/* Every point section must hold exactly its count of points. */
static zp_err check_sizes(const zp__pk *pk, const zp__container *c, zp__ioerr *why)
{
    struct { uint32_t id; uint64_t count, size; const char *name; } want[] = {
        {3, (uint64_t)pk->n_public + 1, ZP__ZKEY_G1, "IC"},
        {5, pk->n_vars, ZP__ZKEY_G1, "A"},
        {6, pk->n_vars, ZP__ZKEY_G1, "B1"},
        {7, pk->n_vars, ZP__ZKEY_G2, "B2"},
        {8, (uint64_t)pk->n_vars - pk->n_public - 1, ZP__ZKEY_G1, "C"},
        {9, pk->domain_size, ZP__ZKEY_G1, "H"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const zp__section *s = zp__container_find(c, want[i].id);
        if (!s)
            return zp__fail(why, ZP_E_FORMAT, "section %u (%s) is missing", want[i].id,
                            want[i].name);
        /* count < 2^33 and size <= 192: no overflow. */
        if (s->size != want[i].count * want[i].size)
            return zp__fail(why, ZP_E_FORMAT,
                            "section %u (%s) has %llu bytes, %llu points need %llu",
                            want[i].id, want[i].name, (unsigned long long)s->size,
                            (unsigned long long)want[i].count,
                            (unsigned long long)(want[i].count * want[i].size));
    }
    return ZP_OK;
}

static zp_err points(const zp__zkey_pts *j, const char *what, zp__ioerr *why)
{
    uint64_t bad = 0;
    zp_err e = zp__zkey_points(j, &bad);
    if (e == ZP_E_NOMEM)
        return e;
    return e ? point_fail(why, e, what, bad) : ZP_OK;
}

/* A whole G1 section into a new array (infinity kept). */
static zp_err read_g1_all(zp_g1_affine **out, const zp__container *c, uint32_t id,
                          uint64_t n, const char *what, zp__progress_span *span,
                          zp__ioerr *why)
{
    zp_g1_affine *v = malloc(n ? n * sizeof *v : 1);
    if (!v)
        return ZP_E_NOMEM;
    *out = v;
    zp__zkey_pts j = {.src = c->data + zp__container_find(c, id)->off, .n_src = n, .dst = v,
                      .progress = span};
    return points(&j, what, why);
}

/* A, B1, B2 compact: only points that are not infinity, with density. */
static zp_err read_ab(zp__pk *pk, const zp__container *c, zp__progress_span *span,
                      zp__ioerr *why)
{
    const uint8_t *a = c->data + zp__container_find(c, 5)->off;
    const uint8_t *b1 = c->data + zp__container_find(c, 6)->off;
    const uint8_t *b2 = c->data + zp__container_find(c, 7)->off;
    zp_err e;
    if ((e = zp__bitmap_alloc(&pk->a_density, pk->n_vars)) ||
        (e = zp__bitmap_alloc(&pk->b_density, pk->n_vars)))
        return e;
    for (uint64_t i = 0; i < pk->n_vars; i++) {
        bool z1 = zp__zkey_is_zero(b1 + i * ZP__ZKEY_G1, ZP__ZKEY_G1);
        bool z2 = zp__zkey_is_zero(b2 + i * ZP__ZKEY_G2, ZP__ZKEY_G2);
        /* B1_i and B2_i are the same polynomial at tau in G1 and G2. */
        if (z1 != z2)
            return zp__fail(why, ZP_E_FORMAT, "B1 and B2 disagree on infinity at variable %llu",
                            (unsigned long long)i);
        if (!z1)
            zp__bitmap_set(&pk->b_density, i);
        if (!zp__zkey_is_zero(a + i * ZP__ZKEY_G1, ZP__ZKEY_G1))
            zp__bitmap_set(&pk->a_density, i);
    }
    pk->n_a = zp__bitmap_count(&pk->a_density);
    pk->n_b = zp__bitmap_count(&pk->b_density);
    pk->a = malloc(pk->n_a ? pk->n_a * sizeof *pk->a : 1);
    pk->b1 = malloc(pk->n_b ? pk->n_b * sizeof *pk->b1 : 1);
    pk->b2 = malloc(pk->n_b ? pk->n_b * sizeof *pk->b2 : 1);
    if (!pk->a || !pk->b1 || !pk->b2)
        return ZP_E_NOMEM;
    zp__zkey_pts ja = {.src = a, .n_src = pk->n_vars, .density = &pk->a_density, .dst = pk->a,
                       .progress = span};
    zp__zkey_pts jb1 = {.src = b1, .n_src = pk->n_vars, .density = &pk->b_density, .dst = pk->b1,
                        .progress = span};
    zp__zkey_pts jb2 = {.src = b2, .n_src = pk->n_vars, .g2 = true, .density = &pk->b_density,
                        .dst = pk->b2, .progress = span};
    if ((e = points(&ja, "A", why)) || (e = points(&jb1, "B1", why)))
        return e;
    return points(&jb2, "B2", why);
}

/* The point checks are one progress step over every point the file holds:
 * IC, A, B1, B2 (all variables each), L and H. */
static zp_err parse_sections(zp__pk *pk, const zp__container *c, const zp__progress *progress,
                             zp__ioerr *why)
{
    zp_err e;
    if ((e = read_header(pk, c, why)) || (e = check_sizes(pk, c, why)))
        return e;
    pk->vk.n_ic = pk->n_public + 1;
    pk->n_l = (uint64_t)pk->n_vars - pk->n_public - 1;
    pk->n_h = pk->domain_size;
    zp__progress_span span = {progress, "checking key points", 0,
                              pk->vk.n_ic + 3 * (uint64_t)pk->n_vars + pk->n_l + pk->n_h};
    zp__progress_span *sp = progress && progress->fn ? &span : NULL;
    zp__progress_note(progress, span.step, 0, span.total);
    if ((e = read_g1_all(&pk->vk.ic, c, 3, pk->vk.n_ic, "IC", sp, why)))
        return e;
    if ((e = zp__zkey_read_matrices(pk, c, why)))
        return e;
    if ((e = read_ab(pk, c, sp, why)))
        return e;
    if ((e = read_g1_all(&pk->l, c, 8, pk->n_l, "C (L)", sp, why)))
        return e;
    return read_g1_all(&pk->h, c, 9, pk->n_h, "H", sp, why);
}

static zp_err parse(zp__pk *out, const uint8_t *data, size_t len, const zp__progress *progress,
                    zp__ioerr *why)
{
    memset(out, 0, sizeof *out);
    out->h_conv = ZP_H_COSET;
    out->roots = ZP_ROOTS_SNARKJS;
    zp__container c;
    zp_err e = zp__container_parse(&c, data, len, "zkey", why);
    if (e)
        return e;
    if (c.version != 1)
        return zp__fail(why, ZP_E_UNSUPPORTED, "zkey version %u (only 1 is supported)",
                        c.version);
    if ((e = parse_sections(out, &c, progress, why)))
        zp__pk_free(out);
    return e;
}

zp_err zp__zkey_parse(zp__pk *out, const uint8_t *data, size_t len, zp__ioerr *why)
{
    return parse(out, data, len, NULL, why);
}

zp_err zp__zkey_load(zp__pk *out, const char *path, zp__ioerr *why)
{
    return zp__zkey_load_progress(out, path, NULL, why);
}

zp_err zp__zkey_load_progress(zp__pk *out, const char *path, const zp__progress *progress,
                              zp__ioerr *why)
{
    zp__buf b;
    memset(out, 0, sizeof *out);
    zp_err e = zp__file_map(&b, path, UINT64_MAX, why);
    if (e)
        return e;
    e = parse(out, b.data, b.len, progress, why);
    if (zp__buf_changed(&b)) { /* cut while mapped: what was parsed is zeros */
        if (!e)
            zp__pk_free(out);
        e = zp__fail(why, ZP_E_TRUNCATED, "%s changed while being read", path);
    }
    zp__buf_free(&b);
    return e;
}
