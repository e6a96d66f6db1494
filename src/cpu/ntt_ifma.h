/*
 * The vector kernels of the CPU NTT (ntt_ifma.c): butterflies, scalings and
 * the four-step column twist on eight lanes with AVX-512 IFMA (Fr products
 * from math/fr_ifma.h), on library-form arrays. ntt.c calls them when
 * zp__ntt_ifma is on; its scalar loops are the reference twins, and both
 * give the same canonical outputs bit for bit.
 */
#ifndef ZP_CPU_NTT_IFMA_H
#define ZP_CPU_NTT_IFMA_H

#include <stdbool.h>
#include <stddef.h>

#include "math/fr_ifma.h"
#include "zkpipe.h"

/* Whether the CPU NTT uses these kernels: set at load time to
 * zp__ifma_available() (ifma.c), off with zp_cpu_set_ifma(false) (as
 * zp__msm_ifma); tests switch it off to run the scalar twins. Nothing may
 * change it while an NTT runs. */
extern bool zp__ntt_ifma;

/* The smallest DIF the kernels take: 2^3, one vector. */
#define ZP_NTT8_MIN_LOG2 3

/* Vectors in the lane twiddle table of a DIF of length 2^m. */
size_t zp__ntt8_table_len(unsigned m);

/* The lane table of a DIF of length 2^m (m >= 3) from tw[j] = w^j, j <
 * 2^(m-1), w of order 2^m: the twiddles of each stage with h >= 8 in
 * order, then two vectors for the stages h = 4 and 2 inside a vector; all
 * in c16 form. */
void zp__ntt8_table(zp__fr52x8 *t, unsigned m, const zp_fr *tw);

/* ntt.c's dif (radix-2 DIF of a[0 .. 2^m), output bit-reversed) with
 * t from zp__ntt8_table; m >= 3. */
void zp__ntt8_dif(zp_fr *a, unsigned m, const zp__fr52x8 *t);

/* a[i] <- a[i] c g^i for i < n (g NULL: a[i] c). */
void zp__ntt8_scale(zp_fr *a, size_t n, const zp_fr *c, const zp_fr *g);

/* f[i] = base^rev_m(i) for i < 2^m (m >= 3, rev_m the m-bit reversal),
 * 2^(m-3) vectors in c16 form. */
void zp__ntt8_bitrev_powers(zp__fr52x8 *f, unsigned m, const zp_fr *base);

/* The four-step twist of one column a[0 .. 2^m) (m >= 3): a[i] <- a[i]
 * f[i], then f[i] <- f[i] step[i], so that f is ready for the next
 * column (tables as zp__ntt8_bitrev_powers makes them). */
void zp__ntt8_twist(zp_fr *a, unsigned m, zp__fr52x8 *f, const zp__fr52x8 *step);

/* h[i] = (a[i] b[i] - c[i]) s for i < n, the h stage's pointwise steps;
 * b NULL: no product (a[i] alone), c NULL: nothing subtracted, s NULL: no
 * factor. h may alias a, b or c element for element. */
void zp__ntt8_mul_sub(zp_fr *h, const zp_fr *a, const zp_fr *b, const zp_fr *c, size_t n,
                      const zp_fr *s);

#endif
