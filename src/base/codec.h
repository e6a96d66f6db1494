/*
 * Byte codecs that the library, the daemon and its clients share: base64
 * and hex (how proofs travel in the daemon's JSON), the one hex-digit
 * parser (also JSON's \u escapes), and decimal printing of 256-bit
 * integers (public inputs), and the one suffix test of file names (how a
 * key's kind is told by its name). Internal (zp__ names); libc only.
 */
#ifndef ZP_BASE_CODEC_H
#define ZP_BASE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Standard base64 (RFC 4648 §4) with padding; out must hold
 * zp__b64_len(n) + 1 bytes (NUL-terminated). */
size_t zp__b64_len(size_t n);
void zp__b64_encode(char *out, const uint8_t *in, size_t n);
/* Decodes n characters (padding required for a partial group, no
 * whitespace); out must hold n / 4 * 3 bytes. false on any bad input. */
bool zp__b64_decode(uint8_t *out, size_t *out_len, const char *in, size_t n);

/* The value of one hex digit (either case), or -1 when c is not one. */
int zp__hex_digit(int c);
/* Lower-case hex; out holds 2n + 1 bytes. */
void zp__hex_encode(char *out, const uint8_t *in, size_t n);
/* Even length, either case; out holds n / 2 bytes. */
bool zp__hex_decode(uint8_t *out, const char *in, size_t n);

/* Whether s ends in suffix (an empty suffix: always). */
bool zp__ends_with(const char *s, const char *suffix);

/* Decimal digits of a 256-bit little-endian unsigned integer (78 at most). */
#define ZP__U256_DEC_MAX 80
void zp__u256_le_to_dec(char out[ZP__U256_DEC_MAX], const uint8_t in[32]);

#endif
