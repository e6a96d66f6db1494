/* base64 and hex (how proofs travel in the daemon's JSON), decimal
 * printing of 256-bit integers (public inputs) and the suffix test:
 * codec.h. */
#include <stdio.h>
#include <string.h>

#include "base/codec.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t zp__b64_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

void zp__b64_encode(char *out, const uint8_t *in, size_t n)
{
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        *out++ = b64[v >> 18];
        *out++ = b64[(v >> 12) & 63];
        *out++ = b64[(v >> 6) & 63];
        *out++ = b64[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        *out++ = b64[v >> 18];
        *out++ = b64[(v >> 12) & 63];
        *out++ = '=';
        *out++ = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        *out++ = b64[v >> 18];
        *out++ = b64[(v >> 12) & 63];
        *out++ = b64[(v >> 6) & 63];
        *out++ = '=';
    }
    *out = 0;
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

bool zp__b64_decode(uint8_t *out, size_t *out_len, const char *in, size_t n)
{
    if (n % 4)
        return false;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        bool last = i + 4 == n;
        int pad = (in[i + 3] == '=') + (in[i + 2] == '=' && in[i + 3] == '=');
        if (pad && !last)
            return false;
        uint32_t v = 0;
        for (int k = 0; k < 4 - pad; k++) {
            int d = b64_value(in[i + k]);
            if (d < 0)
                return false;
            v |= (uint32_t)d << (18 - 6 * k);
        }
        /* Bits below the last whole byte must be zero (canonical input). */
        if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff)))
            return false;
        out[o++] = (uint8_t)(v >> 16);
        if (pad < 2)
            out[o++] = (uint8_t)(v >> 8);
        if (pad < 1)
            out[o++] = (uint8_t)v;
    }
    *out_len = o;
    return true;
}

void zp__hex_encode(char *out, const uint8_t *in, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hx[in[i] >> 4];
        out[2 * i + 1] = hx[in[i] & 15];
    }
    out[2 * n] = 0;
}

int zp__hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool zp__hex_decode(uint8_t *out, const char *in, size_t n)
{
    if (n % 2)
        return false;
    for (size_t i = 0; i < n; i += 2) {
        int hi = zp__hex_digit(in[i]), lo = zp__hex_digit(in[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i / 2] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

bool zp__ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !memcmp(s + n - m, suffix, m);
}

/* Decimal of a 256-bit little-endian integer: divide by 10^19 until
 * nothing is left (five rounds at most), then print the remainders, all but
 * the leading one as 19 digits. */
void zp__u256_le_to_dec(char out[ZP__U256_DEC_MAX], const uint8_t in[32])
{
    uint64_t l[4];
    for (int i = 0; i < 4; i++) {
        l[i] = 0;
        for (int b = 7; b >= 0; b--)
            l[i] = l[i] << 8 | in[8 * i + b];
    }
    const uint64_t base = 10000000000000000000ULL;
    uint64_t parts[5];
    int np = 0;
    do {
        unsigned __int128 rem = 0;
        for (int i = 3; i >= 0; i--) {
            unsigned __int128 cur = rem << 64 | l[i];
            l[i] = (uint64_t)(cur / base);
            rem = cur % base;
        }
        parts[np++] = (uint64_t)rem;
    } while (l[0] | l[1] | l[2] | l[3]);
    int pos = snprintf(out, ZP__U256_DEC_MAX, "%llu", (unsigned long long)parts[np - 1]);
    for (int i = np - 2; i >= 0; i--)
        pos += snprintf(out + pos, (size_t)(ZP__U256_DEC_MAX - pos), "%019llu", (unsigned long long)parts[i]);
}
