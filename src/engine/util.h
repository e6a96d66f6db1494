/* Small helpers shared by the engine's files. */
#ifndef ZP_ENGINE_UTIL_H
#define ZP_ENGINE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "io/io.h"

/* Monotonic clock in seconds. */
double zp__mono_now(void);

/* Appends printf-formatted text to s (an overflow or allocation failure
 * sets s->oom like the other zp__sb writers). */
void zp__sb_printf(zp__sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Hands the text of s to *out / *len, or frees it and returns ZP_E_NOMEM
 * when a write failed. An empty s still gives a valid "" string. */
zp_err zp__sb_finish(zp__sb *s, char **out, size_t *len);

/* A 64-bit hash of bytes (not cryptographic): used to tell whether two
 * submissions under one id carry the same witness bytes. */
uint64_t zp__eng_hash(const void *p, size_t len, uint64_t seed);

/* True when s is 1..max characters of [A-Za-z0-9._-] (and ':' when
 * colon is set). */
int zp__eng_name_ok(const char *s, size_t max, int colon);

#endif
