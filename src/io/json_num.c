/*
 * Text helpers for the JSON writers: a growable string, JSON string
 * escaping, and decimal conversion of field elements (snarkjs writes every
 * field element as a decimal string of its standard-form value).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "math/mont.h"

void zp__sb_putn(zp__sb *s, const char *p, size_t n)
{
    if (s->oom)
        return;
    if (s->cap - s->len <= n) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap - s->len <= n)
            cap *= 2;
        char *q = realloc(s->p, cap);
        if (!q) {
            s->oom = true;
            return;
        }
        s->p = q;
        s->cap = cap;
    }
    memcpy(s->p + s->len, p, n);
    s->len += n;
    s->p[s->len] = 0;
}

void zp__sb_puts(zp__sb *s, const char *p) { zp__sb_putn(s, p, strlen(p)); }
void zp__sb_putc(zp__sb *s, char c) { zp__sb_putn(s, &c, 1); }

void zp__sb_json_str(zp__sb *s, const char *v, size_t n)
{
    zp__sb_putc(s, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            zp__sb_putn(s, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            zp__sb_puts(s, esc);
        } else {
            zp__sb_putc(s, (char)c);
        }
    }
    zp__sb_putc(s, '"');
}

/*
 * Canonical decimal into n plain limbs, < mod. The accumulator has one
 * spare limb: a carry into it means the value exceeds 2^(64n) > mod.
 */
static zp_err dec_parse(uint64_t *out, int n, const char *s, size_t len, const uint64_t *mod)
{
    if (len == 0 || (len > 1 && s[0] == '0'))
        return ZP_E_FORMAT;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return ZP_E_FORMAT;
    if (len > (size_t)20 * n) /* >= 10^(20n) > 2^(64n) */
        return ZP_E_NOT_CANONICAL;
    uint64_t acc[ZP__MONT_MAX + 1] = {0};
    for (size_t i = 0; i < len; i++) {
        zp__u128 carry = (zp__u128)(s[i] - '0');
        for (int k = 0; k <= n; k++) {
            carry += (zp__u128)acc[k] * 10;
            acc[k] = (uint64_t)carry;
            carry >>= 64;
        }
        if (acc[n] || carry)
            return ZP_E_NOT_CANONICAL;
    }
    if (zp__geq_n(acc, mod, n))
        return ZP_E_NOT_CANONICAL;
    memcpy(out, acc, (size_t)n * 8);
    return ZP_OK;
}

zp_err zp__fp_from_dec(zp_fp *out, const char *s, size_t n)
{
    zp_fp plain;
    zp_err e = dec_parse(plain.l, ZP_FP_LIMBS, s, n, ZP_FP_MODULUS.l);
    if (e == ZP_OK)
        zp_fp_to_mont(out, &plain);
    return e;
}

zp_err zp__fr_from_dec(zp_fr *out, const char *s, size_t n)
{
    zp_fr plain;
    zp_err e = dec_parse(plain.l, ZP_FR_LIMBS, s, n, ZP_FR_MODULUS.l);
    if (e == ZP_OK)
        zp_fr_to_mont(out, &plain);
    return e;
}

/* Plain limbs to decimal by repeated division by 10^19. */
static void dec_print(char *out, size_t cap, const uint64_t *in, int n)
{
    static const uint64_t chunk = 10000000000000000000ULL;
    uint64_t v[ZP__MONT_MAX], parts[8];
    int np = 0;
    memcpy(v, in, (size_t)n * 8);
    do {
        zp__u128 rem = 0;
        for (int k = n - 1; k >= 0; k--) {
            zp__u128 cur = rem << 64 | v[k];
            v[k] = (uint64_t)(cur / chunk);
            rem = cur % chunk;
        }
        parts[np++] = (uint64_t)rem;
    } while (!zp__is_zero_n(v, n));
    size_t at = (size_t)snprintf(out, cap, "%llu", (unsigned long long)parts[np - 1]);
    for (int i = np - 2; i >= 0; i--)
        at += (size_t)snprintf(out + at, cap - at, "%019llu", (unsigned long long)parts[i]);
}

void zp__fp_to_dec(char out[ZP__FP_DEC_MAX], const zp_fp *a)
{
    zp_fp plain;
    zp_fp_from_mont(&plain, a);
    dec_print(out, ZP__FP_DEC_MAX, plain.l, ZP_FP_LIMBS);
}

void zp__fr_to_dec(char out[ZP__FR_DEC_MAX], const zp_fr *a)
{
    zp_fr plain;
    zp_fr_from_mont(&plain, a);
    dec_print(out, ZP__FR_DEC_MAX, plain.l, ZP_FR_LIMBS);
}
