/*
 * zcash/IETF point encoding (docs/formats.md, Constants and point encoding), shared by bellperson, blst,
 * zkcrypto and noble. Byte 0 of x carries three flags: 0x80 compressed,
 * 0x40 infinity, 0x20 (compressed only) y is the lexicographically larger
 * root. Fp2 coordinates are written c1 first, then c0.
 *
 * Decoding checks, in order, and with a code of its own for each: the
 * length, the flags, each coordinate < q, the curve equation, the subgroup.
 * Nothing is read past len, and *out is written only on success.
 */
#include <string.h>

#include "zkpipe.h"
#include "math/curve.h"

#define FLAG_COMPRESSED 0x80
#define FLAG_INFINITY 0x40
#define FLAG_SORT 0x20
#define FLAG_MASK 0xe0

typedef struct header {
    bool compressed, infinity, sort;
} header;

/*
 * The checks every point shares before any field arithmetic: the length is
 * one of the two forms and agrees with the compression flag; the sort bit
 * appears only on compressed finite points; an infinity has no other bit or
 * byte set (apart from the compression flag its length requires).
 */
static zp_err read_header(header *h, const uint8_t *in, size_t len, size_t clen, size_t ulen)
{
    if (len != clen && len != ulen)
        return ZP_E_BAD_LENGTH;
    h->compressed = (in[0] & FLAG_COMPRESSED) != 0;
    h->infinity = (in[0] & FLAG_INFINITY) != 0;
    h->sort = (in[0] & FLAG_SORT) != 0;
    if (h->compressed != (len == clen))
        return ZP_E_BAD_FLAGS;
    if (h->sort && !h->compressed)
        return ZP_E_BAD_FLAGS;
    if (h->infinity) {
        if (h->sort || (in[0] & ~FLAG_MASK) != 0)
            return ZP_E_BAD_FLAGS;
        for (size_t i = 1; i < len; i++)
            if (in[i] != 0)
                return ZP_E_BAD_FLAGS;
    }
    return ZP_OK;
}

/* The first Fp of a point, whose top byte also holds the flags. */
static zp_err read_flagged_fp(zp_fp *out, const uint8_t *in)
{
    uint8_t buf[ZP_FP_BYTES];
    memcpy(buf, in, sizeof buf);
    buf[0] &= (uint8_t)~FLAG_MASK;
    return zp_fp_from_be(out, buf);
}

static uint8_t flags_for(bool compressed, bool lex_largest)
{
    return (uint8_t)((compressed ? FLAG_COMPRESSED : 0) | (compressed && lex_largest ? FLAG_SORT : 0));
}

/* ---------------------------------------------------------------- G1 */

void zp_g1_encode(uint8_t *out, const zp_g1_affine *a, bool compressed)
{
    size_t n = compressed ? ZP_G1_COMPRESSED : ZP_G1_UNCOMPRESSED;
    if (zp_g1_affine_is_inf(a)) {
        memset(out, 0, n);
        out[0] = (uint8_t)(FLAG_INFINITY | (compressed ? FLAG_COMPRESSED : 0));
        return;
    }
    zp_fp_to_be(out, &a->x);
    if (!compressed)
        zp_fp_to_be(out + ZP_FP_BYTES, &a->y);
    out[0] |= flags_for(compressed, zp_fp_is_lex_largest(&a->y));
}

zp_err zp__g1_decode_on_curve(zp_g1_affine *out, const uint8_t *in, size_t len)
{
    header h;
    zp_err e = read_header(&h, in, len, ZP_G1_COMPRESSED, ZP_G1_UNCOMPRESSED);
    if (e != ZP_OK)
        return e;
    if (h.infinity) {
        memset(out, 0, sizeof *out);
        return ZP_OK;
    }
    zp_g1_affine p;
    if ((e = read_flagged_fp(&p.x, in)) != ZP_OK)
        return e;
    if (h.compressed) {
        zp_fp rhs;
        zp__g1_rhs(&rhs, &p.x);
        if (!zp_fp_sqrt(&p.y, &rhs))
            return ZP_E_NOT_ON_CURVE;
        if (zp_fp_is_lex_largest(&p.y) != h.sort)
            zp_fp_neg(&p.y, &p.y);
    } else {
        if ((e = zp_fp_from_be(&p.y, in + ZP_FP_BYTES)) != ZP_OK)
            return e;
        /* Not affine_on_curve: (0, 0) without the infinity flag is invalid. */
        if (!zp__g1_affine_satisfies(&p))
            return ZP_E_NOT_ON_CURVE;
    }
    *out = p;
    return ZP_OK;
}

zp_err zp_g1_decode(zp_g1_affine *out, const uint8_t *in, size_t len)
{
    zp_g1_affine p;
    zp_err e = zp__g1_decode_on_curve(&p, in, len);
    if (e != ZP_OK)
        return e;
    if (!zp_g1_affine_in_subgroup(&p))
        return ZP_E_NOT_IN_SUBGROUP;
    *out = p;
    return ZP_OK;
}

/* ---------------------------------------------------------------- G2 */

static void fp2_to_be(uint8_t *out, const zp_fp2 *a)
{
    zp_fp_to_be(out, &a->c1);
    zp_fp_to_be(out + ZP_FP_BYTES, &a->c0);
}

void zp_g2_encode(uint8_t *out, const zp_g2_affine *a, bool compressed)
{
    size_t n = compressed ? ZP_G2_COMPRESSED : ZP_G2_UNCOMPRESSED;
    if (zp_g2_affine_is_inf(a)) {
        memset(out, 0, n);
        out[0] = (uint8_t)(FLAG_INFINITY | (compressed ? FLAG_COMPRESSED : 0));
        return;
    }
    fp2_to_be(out, &a->x);
    if (!compressed)
        fp2_to_be(out + 2 * ZP_FP_BYTES, &a->y);
    out[0] |= flags_for(compressed, zp_fp2_is_lex_largest(&a->y));
}

zp_err zp__g2_decode_on_curve(zp_g2_affine *out, const uint8_t *in, size_t len)
{
    header h;
    zp_err e = read_header(&h, in, len, ZP_G2_COMPRESSED, ZP_G2_UNCOMPRESSED);
    if (e != ZP_OK)
        return e;
    if (h.infinity) {
        memset(out, 0, sizeof *out);
        return ZP_OK;
    }
    zp_g2_affine p;
    if ((e = read_flagged_fp(&p.x.c1, in)) != ZP_OK ||
        (e = zp_fp_from_be(&p.x.c0, in + ZP_FP_BYTES)) != ZP_OK)
        return e;
    if (h.compressed) {
        zp_fp2 rhs;
        zp__g2_rhs(&rhs, &p.x);
        if (!zp_fp2_sqrt(&p.y, &rhs))
            return ZP_E_NOT_ON_CURVE;
        if (zp_fp2_is_lex_largest(&p.y) != h.sort)
            zp_fp2_neg(&p.y, &p.y);
    } else {
        if ((e = zp_fp_from_be(&p.y.c1, in + 2 * ZP_FP_BYTES)) != ZP_OK ||
            (e = zp_fp_from_be(&p.y.c0, in + 3 * ZP_FP_BYTES)) != ZP_OK)
            return e;
        if (!zp__g2_affine_satisfies(&p))
            return ZP_E_NOT_ON_CURVE;
    }
    *out = p;
    return ZP_OK;
}

zp_err zp_g2_decode(zp_g2_affine *out, const uint8_t *in, size_t len)
{
    zp_g2_affine p;
    zp_err e = zp__g2_decode_on_curve(&p, in, len);
    if (e != ZP_OK)
        return e;
    if (!zp_g2_affine_in_subgroup(&p))
        return ZP_E_NOT_IN_SUBGROUP;
    *out = p;
    return ZP_OK;
}
