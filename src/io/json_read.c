/*
 * snarkjs JSON readers: proof.json, public.json, verification_key.json.
 * Field elements are canonical decimal strings (standard form); points are
 * projective triples as ffjavascript writes them: z = "1" (or ["1","0"] in
 * G2) for an affine point, and exactly [0, 1, 0] (G2 [[0,0],[1,0],[0,0]])
 * for infinity. A two-element point (no z) is read as affine. Every point
 * is checked: canonical coordinates, on the curve, in the subgroup.
 */
#include <stdlib.h>
#include <string.h>

#include "io/io.h"

static bool is_str(const zp__jval *v, const char *s)
{
    return v && v->type == ZP__J_STRING && v->len == strlen(s) && memcmp(v->str, s, v->len) == 0;
}

static zp_err where(zp__ioerr *why, zp_err e, const zp__jval *v, const char *name,
                    const char *msg)
{
    if (v)
        return zp__fail(why, e, "%s (JSON line %u column %u): %s", name, v->line, v->col, msg);
    return zp__fail(why, e, "%s: %s", name, msg);
}

static zp_err num_fail(zp__ioerr *why, zp_err e, const zp__jval *v, const char *name)
{
    return where(why, e, v, name,
                 e == ZP_E_NOT_CANONICAL ? "value is not below the field modulus"
                                         : "expected a decimal string");
}

static zp_err get_fp(zp_fp *out, const zp__jval *v, const char *name, zp__ioerr *why)
{
    if (!v || v->type != ZP__J_STRING)
        return where(why, ZP_E_FORMAT, v, name, "expected a decimal string");
    zp_err e = zp__fp_from_dec(out, v->str, v->len);
    return e ? num_fail(why, e, v, name) : ZP_OK;
}

static zp_err get_fp2(zp_fp2 *out, const zp__jval *v, const char *name, zp__ioerr *why)
{
    if (!v || v->type != ZP__J_ARRAY || v->n != 2)
        return where(why, ZP_E_FORMAT, v, name, "expected [c0, c1]");
    zp_err e = get_fp(&out->c0, &v->items[0], name, why);
    return e ? e : get_fp(&out->c1, &v->items[1], name, why);
}

static zp_err check_point(zp_err e, const zp__jval *v, const char *name, zp__ioerr *why)
{
    return e ? where(why, e, v, name, zp_strerror(e)) : ZP_OK;
}

static zp_err get_g1(zp_g1_affine *out, const zp__jval *v, const char *name, zp__ioerr *why)
{
    if (!v || v->type != ZP__J_ARRAY || (v->n != 2 && v->n != 3))
        return where(why, ZP_E_FORMAT, v, name, "expected a G1 point [x, y, z]");
    const zp__jval *it = v->items;
    if (v->n == 3 && is_str(&it[2], "0")) {
        if (!is_str(&it[0], "0") || !is_str(&it[1], "1"))
            return where(why, ZP_E_FORMAT, v, name, "infinity must be [\"0\", \"1\", \"0\"]");
        memset(out, 0, sizeof *out);
        return ZP_OK;
    }
    if (v->n == 3 && !is_str(&it[2], "1"))
        return where(why, ZP_E_FORMAT, v, name, "z must be \"1\" (affine) or \"0\" (infinity)");
    zp_err e;
    if ((e = get_fp(&out->x, &it[0], name, why)) || (e = get_fp(&out->y, &it[1], name, why)))
        return e;
    /* (0, 0) with z = 1 is not infinity here: it is off the curve. */
    if (zp_g1_affine_is_inf(out))
        return where(why, ZP_E_NOT_ON_CURVE, v, name, "point is not on the curve");
    return check_point(zp__g1_check(out), v, name, why);
}

static bool is_fp2_str(const zp__jval *v, const char *c0, const char *c1)
{
    return v->type == ZP__J_ARRAY && v->n == 2 && is_str(&v->items[0], c0) &&
           is_str(&v->items[1], c1);
}

static zp_err get_g2(zp_g2_affine *out, const zp__jval *v, const char *name, zp__ioerr *why)
{
    if (!v || v->type != ZP__J_ARRAY || (v->n != 2 && v->n != 3))
        return where(why, ZP_E_FORMAT, v, name, "expected a G2 point [x, y, z]");
    const zp__jval *it = v->items;
    if (v->n == 3 && is_fp2_str(&it[2], "0", "0")) {
        if (!is_fp2_str(&it[0], "0", "0") || !is_fp2_str(&it[1], "1", "0"))
            return where(why, ZP_E_FORMAT, v, name, "malformed point at infinity");
        memset(out, 0, sizeof *out);
        return ZP_OK;
    }
    if (v->n == 3 && !is_fp2_str(&it[2], "1", "0"))
        return where(why, ZP_E_FORMAT, v, name,
                     "z must be [\"1\", \"0\"] (affine) or [\"0\", \"0\"] (infinity)");
    zp_err e;
    if ((e = get_fp2(&out->x, &it[0], name, why)) || (e = get_fp2(&out->y, &it[1], name, why)))
        return e;
    if (zp_g2_affine_is_inf(out))
        return where(why, ZP_E_NOT_ON_CURVE, v, name, "point is not on the curve");
    return check_point(zp__g2_check(out), v, name, why);
}

/* "protocol" must be groth16 and "curve" bls12381; each may be absent
 * only when required is false. */
static zp_err check_kind(const zp__jval *root, bool required, zp__ioerr *why)
{
    const zp__jval *p = zp__json_get(root, "protocol");
    const zp__jval *c = zp__json_get(root, "curve");
    if ((p || required) && !is_str(p, "groth16"))
        return where(why, p ? ZP_E_UNSUPPORTED : ZP_E_FORMAT, p, "protocol",
                     "only \"groth16\" is supported");
    if ((c || required) && !is_str(c, "bls12381"))
        return where(why, c ? ZP_E_BAD_PRIME : ZP_E_FORMAT, c, "curve",
                     "only \"bls12381\" is supported");
    return ZP_OK;
}

static zp_err parse_object(zp__json *doc, const char *text, size_t len, zp__ioerr *why)
{
    zp_err e = zp__json_parse(doc, text, len, NULL, why);
    if (e)
        return e;
    if (doc->root->type != ZP__J_OBJECT) {
        zp__json_free(doc);
        return zp__fail(why, ZP_E_FORMAT, "JSON: expected an object at the top level");
    }
    return ZP_OK;
}

zp_err zp__proof_from_json(zp__proof *out, const char *text, size_t len, zp__ioerr *why)
{
    zp__json doc;
    zp_err e = parse_object(&doc, text, len, why);
    if (e)
        return e;
    const zp__jval *r = doc.root;
    zp__proof p;
    if (!(e = check_kind(r, false, why)) &&
        !(e = get_g1(&p.a, zp__json_get(r, "pi_a"), "pi_a", why)) &&
        !(e = get_g2(&p.b, zp__json_get(r, "pi_b"), "pi_b", why)) &&
        !(e = get_g1(&p.c, zp__json_get(r, "pi_c"), "pi_c", why)))
        *out = p;
    zp__json_free(&doc);
    return e;
}

zp_err zp__public_from_json(zp_fr **out, size_t *n, const char *text, size_t len,
                            zp__ioerr *why)
{
    *out = NULL;
    *n = 0;
    zp__json doc;
    zp_err e = zp__json_parse(&doc, text, len, NULL, why);
    if (e)
        return e;
    const zp__jval *r = doc.root;
    if (r->type != ZP__J_ARRAY) {
        zp__json_free(&doc);
        return zp__fail(why, ZP_E_FORMAT, "public signals: expected an array of strings");
    }
    /* The array exists in the input, so its length is bounded by it. */
    zp_fr *v = malloc(r->n ? r->n * sizeof *v : 1);
    if (!v) {
        zp__json_free(&doc);
        return ZP_E_NOMEM;
    }
    for (size_t i = 0; i < r->n && !e; i++) {
        const zp__jval *s = &r->items[i];
        if (s->type != ZP__J_STRING)
            e = where(why, ZP_E_FORMAT, s, "public signal", "expected a decimal string");
        else if ((e = zp__fr_from_dec(&v[i], s->str, s->len)))
            e = num_fail(why, e, s, "public signal");
    }
    if (e) {
        free(v);
    } else {
        *out = v;
        *n = r->n;
    }
    zp__json_free(&doc);
    return e;
}

/* nPublic: a plain non-negative integer below 2^32 - 1. */
static zp_err get_npublic(uint32_t *out, const zp__jval *v, zp__ioerr *why)
{
    if (!v || v->type != ZP__J_NUMBER || v->len > 10 || v->str[0] == '-')
        return where(why, ZP_E_FORMAT, v, "nPublic", "expected a non-negative integer");
    uint64_t x = 0;
    for (size_t i = 0; i < v->len; i++) {
        if (v->str[i] < '0' || v->str[i] > '9')
            return where(why, ZP_E_FORMAT, v, "nPublic", "expected a non-negative integer");
        x = x * 10 + (uint64_t)(v->str[i] - '0');
    }
    if (x >= UINT32_MAX)
        return where(why, ZP_E_TOO_LARGE, v, "nPublic", "too large");
    *out = (uint32_t)x;
    return ZP_OK;
}

static zp_err get_vk(zp__vk *vk, const zp__jval *r, zp__ioerr *why)
{
    zp_err e;
    uint32_t npub = 0;
    if ((e = check_kind(r, true, why)) || (e = get_npublic(&npub, zp__json_get(r, "nPublic"), why)))
        return e;
    const char *names[4] = {"vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2"};
    if ((e = get_g1(&vk->alpha1, zp__json_get(r, names[0]), names[0], why)) ||
        (e = get_g2(&vk->beta2, zp__json_get(r, names[1]), names[1], why)) ||
        (e = get_g2(&vk->gamma2, zp__json_get(r, names[2]), names[2], why)) ||
        (e = get_g2(&vk->delta2, zp__json_get(r, names[3]), names[3], why)))
        return e;
    if (zp_g1_affine_is_inf(&vk->alpha1) || zp_g2_affine_is_inf(&vk->beta2) ||
        zp_g2_affine_is_inf(&vk->gamma2) || zp_g2_affine_is_inf(&vk->delta2))
        return zp__fail(why, ZP_E_INFINITY, "verification key point at infinity");
    const zp__jval *ic = zp__json_get(r, "IC");
    if (!ic || ic->type != ZP__J_ARRAY || ic->n != (uint64_t)npub + 1)
        return where(why, ZP_E_FORMAT, ic, "IC", "expected nPublic + 1 points");
    vk->ic = malloc(ic->n * sizeof *vk->ic);
    if (!vk->ic)
        return ZP_E_NOMEM;
    vk->n_ic = npub + 1;
    for (size_t i = 0; i < ic->n; i++)
        if ((e = get_g1(&vk->ic[i], &ic->items[i], "IC", why)))
            return e;
    return ZP_OK;
}

zp_err zp__vk_from_json(zp__vk *out, const char *text, size_t len, zp__ioerr *why)
{
    memset(out, 0, sizeof *out);
    zp__json doc;
    zp_err e = parse_object(&doc, text, len, why);
    if (e)
        return e;
    if ((e = get_vk(out, doc.root, why)))
        zp__vk_free(out);
    zp__json_free(&doc);
    return e;
}

/* Reads path (bounded) and hands the text to parse. */
static zp_err load_text(zp__buf *b, const char *path, zp__ioerr *why)
{
    return zp__file_read(b, path, ZP__JSON_FILE_MAX, why);
}

zp_err zp__proof_json_load(zp__proof *out, const char *path, zp__ioerr *why)
{
    zp__buf b;
    zp_err e = load_text(&b, path, why);
    if (e)
        return e;
    e = zp__proof_from_json(out, (const char *)b.data, b.len, why);
    zp__buf_free(&b);
    return e;
}

zp_err zp__public_json_load(zp_fr **out, size_t *n, const char *path, zp__ioerr *why)
{
    zp__buf b;
    *out = NULL;
    *n = 0;
    zp_err e = load_text(&b, path, why);
    if (e)
        return e;
    e = zp__public_from_json(out, n, (const char *)b.data, b.len, why);
    zp__buf_free(&b);
    return e;
}

zp_err zp__vk_json_load(zp__vk *out, const char *path, zp__ioerr *why)
{
    zp__buf b;
    memset(out, 0, sizeof *out);
    zp_err e = load_text(&b, path, why);
    if (e)
        return e;
    e = zp__vk_from_json(out, (const char *)b.data, b.len, why);
    zp__buf_free(&b);
    return e;
}
