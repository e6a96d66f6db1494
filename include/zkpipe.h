/*
 * zkpipe — a persistent, pipelined Groth16 proving engine for BLS12-381.
 *
 * The only public header. Math types are transparent and caller-allocated;
 * arithmetic never allocates and returns void; predicates return bool; every
 * call that can fail (parsing untrusted bytes, I/O, resources) returns zp_err,
 * 0 on success and a negative code otherwise (see zp_strerror).
 *
 * Field elements are in Montgomery form with little-endian 64-bit limbs,
 * unless a function says otherwise. Affine points use the all-zero value for
 * the point at infinity. Functions named _vartime run in time that depends on
 * their inputs; nothing in zkpipe handles secrets that need constant time
 * except r and s of a proof, which are blinded by construction.
 */
#ifndef ZKPIPE_H
#define ZKPIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- errors */

typedef enum zp_err {
    ZP_OK = 0,
    ZP_E_INVALID_ARG = -1,      /* a caller broke a documented precondition */
    ZP_E_NOMEM = -2,            /* host allocation failed */
    ZP_E_IO = -3,               /* read, write, open, mmap or rename failed */
    ZP_E_BAD_LENGTH = -4,       /* input length does not match its format */
    ZP_E_BAD_FLAGS = -5,        /* point encoding flag bits are inconsistent */
    ZP_E_NOT_CANONICAL = -6,    /* a field element is >= its modulus */
    ZP_E_NOT_ON_CURVE = -7,     /* decoded point does not satisfy the curve */
    ZP_E_NOT_IN_SUBGROUP = -8,  /* point is not in the prime-order subgroup */
    ZP_E_INFINITY = -9,         /* point at infinity where a format forbids it */
    ZP_E_FORMAT = -10,          /* bad magic, version, section or structure */
    ZP_E_BAD_PRIME = -11,       /* file is for another field or curve */
    ZP_E_TOO_LARGE = -12,       /* a count or size exceeds a limit */
    ZP_E_TRUNCATED = -13,       /* input ends before its declared contents */
    ZP_E_CHECKSUM = -14,        /* stored checksum does not match */
    ZP_E_UNSATISFIED = -15,     /* witness does not satisfy the constraints */
    ZP_E_VERIFY_FAILED = -16,   /* a produced or given proof does not verify */
    ZP_E_WITNESS = -17,         /* witness has the wrong length or values */
    ZP_E_UNSUPPORTED = -18,     /* valid but not supported by this build */
    ZP_E_NO_GPU = -19,          /* GPU backend requested but none usable */
    ZP_E_GPU_OOM = -20,         /* device memory or arena exhausted */
    ZP_E_GPU = -21,             /* a recoverable CUDA error */
    ZP_E_GPU_FATAL = -22,       /* a sticky CUDA error: the device is unusable */
    ZP_E_BUSY = -23,            /* queue full; try again later */
    ZP_E_TIMEOUT = -24,         /* a wait ran out before completion */
    ZP_E_CANCELLED = -25,       /* the job was cancelled */
    ZP_E_NOT_FOUND = -26,       /* unknown key, job or file */
    ZP_E_EXISTS = -27,          /* name already taken with other contents */
    ZP_E_SHUTDOWN = -28,        /* engine is closing */
    ZP_E_RANDOM = -29,          /* the OS random source failed */
} zp_err;

/* A static English message for any code, including unknown ones. */
const char *zp_strerror(zp_err e);
/* The enum name, e.g. "ZP_E_NOT_ON_CURVE"; "ZP_E_UNKNOWN" for others. */
const char *zp_errname(zp_err e);

/* ---------------------------------------------------------------- fields */

#define ZP_FP_LIMBS 6
#define ZP_FR_LIMBS 4
#define ZP_FP_BYTES 48
#define ZP_FR_BYTES 32

typedef struct zp_fp { uint64_t l[ZP_FP_LIMBS]; } zp_fp;   /* mod q */
typedef struct zp_fr { uint64_t l[ZP_FR_LIMBS]; } zp_fr;   /* mod r */
typedef struct zp_fp2 { zp_fp c0, c1; } zp_fp2;            /* c0 + c1*u, u^2 = -1 */
typedef struct zp_fp6 { zp_fp2 c0, c1, c2; } zp_fp6;       /* over v, v^3 = u + 1 */
typedef struct zp_fp12 { zp_fp6 c0, c1; } zp_fp12;         /* over w, w^2 = v */

/* The moduli as plain (non-Montgomery) little-endian limbs. */
extern const zp_fp ZP_FP_MODULUS;
extern const zp_fr ZP_FR_MODULUS;

void zp_fp_zero(zp_fp *out);
void zp_fp_one(zp_fp *out);
void zp_fp_from_u64(zp_fp *out, uint64_t v);
bool zp_fp_is_zero(const zp_fp *a);
bool zp_fp_is_one(const zp_fp *a);
bool zp_fp_eq(const zp_fp *a, const zp_fp *b);
void zp_fp_add(zp_fp *out, const zp_fp *a, const zp_fp *b);
void zp_fp_sub(zp_fp *out, const zp_fp *a, const zp_fp *b);
void zp_fp_dbl(zp_fp *out, const zp_fp *a);
void zp_fp_neg(zp_fp *out, const zp_fp *a);
void zp_fp_mul(zp_fp *out, const zp_fp *a, const zp_fp *b);
void zp_fp_sqr(zp_fp *out, const zp_fp *a);
/* out = a^-1; the inverse of zero is defined as zero. */
void zp_fp_inv(zp_fp *out, const zp_fp *a);
/* out = a^e, e little-endian limbs (plain integer, any length). */
void zp_fp_pow(zp_fp *out, const zp_fp *a, const uint64_t *e, size_t nlimbs);
/* Returns false (out untouched) when a is not a square. */
bool zp_fp_sqrt(zp_fp *out, const zp_fp *a);
/* 1 for a nonzero square, -1 for a non-square, 0 for zero. */
int zp_fp_legendre(const zp_fp *a);
/* Montgomery form <-> plain integer limbs (the plain value must be < q). */
void zp_fp_to_mont(zp_fp *out, const zp_fp *plain);
void zp_fp_from_mont(zp_fp *plain, const zp_fp *a);
/* True when the plain integer value of a is > (q-1)/2 (zcash "sign"). */
bool zp_fp_is_lex_largest(const zp_fp *a);
/* 48-byte big-endian canonical integers; decode rejects values >= q. */
zp_err zp_fp_from_be(zp_fp *out, const uint8_t *in);
void zp_fp_to_be(uint8_t *out, const zp_fp *a);
/* 48-byte little-endian canonical integers. */
zp_err zp_fp_from_le(zp_fp *out, const uint8_t *in);
void zp_fp_to_le(uint8_t *out, const zp_fp *a);
/* Raw little-endian Montgomery bytes (the .zkey layout); rejects >= q. */
zp_err zp_fp_from_mont_le(zp_fp *out, const uint8_t *in);

void zp_fr_zero(zp_fr *out);
void zp_fr_one(zp_fr *out);
void zp_fr_from_u64(zp_fr *out, uint64_t v);
bool zp_fr_is_zero(const zp_fr *a);
bool zp_fr_is_one(const zp_fr *a);
bool zp_fr_eq(const zp_fr *a, const zp_fr *b);
void zp_fr_add(zp_fr *out, const zp_fr *a, const zp_fr *b);
void zp_fr_sub(zp_fr *out, const zp_fr *a, const zp_fr *b);
void zp_fr_dbl(zp_fr *out, const zp_fr *a);
void zp_fr_neg(zp_fr *out, const zp_fr *a);
void zp_fr_mul(zp_fr *out, const zp_fr *a, const zp_fr *b);
void zp_fr_sqr(zp_fr *out, const zp_fr *a);
void zp_fr_inv(zp_fr *out, const zp_fr *a);
void zp_fr_pow(zp_fr *out, const zp_fr *a, const uint64_t *e, size_t nlimbs);
bool zp_fr_sqrt(zp_fr *out, const zp_fr *a);
int zp_fr_legendre(const zp_fr *a);
void zp_fr_to_mont(zp_fr *out, const zp_fr *plain);
void zp_fr_from_mont(zp_fr *plain, const zp_fr *a);
zp_err zp_fr_from_be(zp_fr *out, const uint8_t *in);
void zp_fr_to_be(uint8_t *out, const zp_fr *a);
zp_err zp_fr_from_le(zp_fr *out, const uint8_t *in);
void zp_fr_to_le(uint8_t *out, const zp_fr *a);
/* Uniform random element from the OS (getrandom). */
zp_err zp_fr_random(zp_fr *out);

/* Which generator the key's roots of unity come from (FORMATS.md §1). */
typedef enum zp_roots {
    ZP_ROOTS_SNARKJS = 5,     /* 5^((r-1)/2^32), snarkjs/ffjavascript */
    ZP_ROOTS_BELLPERSON = 7,  /* 7^((r-1)/2^32), bellperson/blstrs */
} zp_roots;
/* A primitive 2^log2n-th root of unity (log2n <= 32) of the convention. */
void zp_fr_root_of_unity(zp_fr *out, unsigned log2n, zp_roots conv);

/* Fp2 = Fp[u]/(u^2 + 1) */
void zp_fp2_zero(zp_fp2 *out);
void zp_fp2_one(zp_fp2 *out);
bool zp_fp2_is_zero(const zp_fp2 *a);
bool zp_fp2_eq(const zp_fp2 *a, const zp_fp2 *b);
void zp_fp2_add(zp_fp2 *out, const zp_fp2 *a, const zp_fp2 *b);
void zp_fp2_sub(zp_fp2 *out, const zp_fp2 *a, const zp_fp2 *b);
void zp_fp2_dbl(zp_fp2 *out, const zp_fp2 *a);
void zp_fp2_neg(zp_fp2 *out, const zp_fp2 *a);
void zp_fp2_conj(zp_fp2 *out, const zp_fp2 *a);
void zp_fp2_mul(zp_fp2 *out, const zp_fp2 *a, const zp_fp2 *b);
void zp_fp2_mul_fp(zp_fp2 *out, const zp_fp2 *a, const zp_fp *b);
void zp_fp2_sqr(zp_fp2 *out, const zp_fp2 *a);
/* out = a * (u + 1), the Fp6 non-residue. */
void zp_fp2_mul_nr(zp_fp2 *out, const zp_fp2 *a);
void zp_fp2_inv(zp_fp2 *out, const zp_fp2 *a);
void zp_fp2_pow(zp_fp2 *out, const zp_fp2 *a, const uint64_t *e, size_t nlimbs);
bool zp_fp2_sqrt(zp_fp2 *out, const zp_fp2 *a);
/* zcash sign of an Fp2: lex-largest of c1, or of c0 when c1 = 0. */
bool zp_fp2_is_lex_largest(const zp_fp2 *a);
/* Frobenius x -> x^q (conjugation). */
void zp_fp2_frobenius(zp_fp2 *out, const zp_fp2 *a);

void zp_fp6_zero(zp_fp6 *out);
void zp_fp6_one(zp_fp6 *out);
bool zp_fp6_eq(const zp_fp6 *a, const zp_fp6 *b);
void zp_fp6_add(zp_fp6 *out, const zp_fp6 *a, const zp_fp6 *b);
void zp_fp6_sub(zp_fp6 *out, const zp_fp6 *a, const zp_fp6 *b);
void zp_fp6_neg(zp_fp6 *out, const zp_fp6 *a);
void zp_fp6_mul(zp_fp6 *out, const zp_fp6 *a, const zp_fp6 *b);
void zp_fp6_sqr(zp_fp6 *out, const zp_fp6 *a);
void zp_fp6_inv(zp_fp6 *out, const zp_fp6 *a);
/* out = a * v */
void zp_fp6_mul_nr(zp_fp6 *out, const zp_fp6 *a);
/* x -> x^(q^power) for power in 0..5 */
void zp_fp6_frobenius(zp_fp6 *out, const zp_fp6 *a, unsigned power);

void zp_fp12_zero(zp_fp12 *out);
void zp_fp12_one(zp_fp12 *out);
bool zp_fp12_is_one(const zp_fp12 *a);
bool zp_fp12_eq(const zp_fp12 *a, const zp_fp12 *b);
void zp_fp12_mul(zp_fp12 *out, const zp_fp12 *a, const zp_fp12 *b);
void zp_fp12_sqr(zp_fp12 *out, const zp_fp12 *a);
void zp_fp12_inv(zp_fp12 *out, const zp_fp12 *a);
void zp_fp12_conj(zp_fp12 *out, const zp_fp12 *a);
void zp_fp12_pow(zp_fp12 *out, const zp_fp12 *a, const uint64_t *e, size_t nlimbs);
/* x -> x^(q^power) for power in 0..11 */
void zp_fp12_frobenius(zp_fp12 *out, const zp_fp12 *a, unsigned power);
/* 576 bytes: the 12 Fp coefficients big-endian, in @noble/curves' order
 * (c0.c0.c0, c0.c0.c1, c0.c1.c0, ... c1.c2.c1). */
void zp_fp12_to_bytes(uint8_t *out, const zp_fp12 *a);

/* ---------------------------------------------------------------- curves */

/* G1: y^2 = x^3 + 4 over Fp.  G2: y^2 = x^3 + 4(u + 1) over Fp2. */
typedef struct zp_g1_affine { zp_fp x, y; } zp_g1_affine;      /* all zero = infinity */
typedef struct zp_g1_jac { zp_fp x, y, z; } zp_g1_jac;         /* x/z^2, y/z^3; z = 0 infinity */
typedef struct zp_g1_xyzz { zp_fp x, y, zz, zzz; } zp_g1_xyzz; /* x/zz, y/zzz; zz = 0 infinity */
typedef struct zp_g2_affine { zp_fp2 x, y; } zp_g2_affine;
typedef struct zp_g2_jac { zp_fp2 x, y, z; } zp_g2_jac;
typedef struct zp_g2_xyzz { zp_fp2 x, y, zz, zzz; } zp_g2_xyzz;

#define ZP_G1_COMPRESSED 48
#define ZP_G1_UNCOMPRESSED 96
#define ZP_G2_COMPRESSED 96
#define ZP_G2_UNCOMPRESSED 192

void zp_g1_generator(zp_g1_affine *out);
bool zp_g1_affine_is_inf(const zp_g1_affine *a);
bool zp_g1_affine_eq(const zp_g1_affine *a, const zp_g1_affine *b);
void zp_g1_affine_neg(zp_g1_affine *out, const zp_g1_affine *a);
bool zp_g1_affine_on_curve(const zp_g1_affine *a);       /* infinity counts as on curve */
bool zp_g1_affine_in_subgroup(const zp_g1_affine *a);    /* precondition: on curve */
void zp_g1_jac_inf(zp_g1_jac *out);
bool zp_g1_jac_is_inf(const zp_g1_jac *a);
bool zp_g1_jac_eq(const zp_g1_jac *a, const zp_g1_jac *b);
void zp_g1_jac_from_affine(zp_g1_jac *out, const zp_g1_affine *a);
void zp_g1_jac_to_affine(zp_g1_affine *out, const zp_g1_jac *a);
void zp_g1_jac_neg(zp_g1_jac *out, const zp_g1_jac *a);
void zp_g1_jac_dbl(zp_g1_jac *out, const zp_g1_jac *a);
void zp_g1_jac_add(zp_g1_jac *out, const zp_g1_jac *a, const zp_g1_jac *b);
void zp_g1_jac_add_affine(zp_g1_jac *out, const zp_g1_jac *a, const zp_g1_affine *b);
/* out = k*p, k little-endian plain integer limbs of any length. */
void zp_g1_jac_mul_vartime(zp_g1_jac *out, const zp_g1_jac *p, const uint64_t *k, size_t nlimbs);
/* XYZZ values keep ZZ^3 = ZZZ^2 (every function here preserves it), which
 * xyzz_to_jac relies on. A Jacobian point with z = 0 is infinity, whatever
 * its x and y. */
void zp_g1_xyzz_inf(zp_g1_xyzz *out);
void zp_g1_xyzz_from_affine(zp_g1_xyzz *out, const zp_g1_affine *a);
void zp_g1_xyzz_to_jac(zp_g1_jac *out, const zp_g1_xyzz *a);
void zp_g1_xyzz_dbl(zp_g1_xyzz *out, const zp_g1_xyzz *a);
void zp_g1_xyzz_add(zp_g1_xyzz *out, const zp_g1_xyzz *a, const zp_g1_xyzz *b);
void zp_g1_xyzz_add_affine(zp_g1_xyzz *out, const zp_g1_xyzz *a, const zp_g1_affine *b);
/* One field inversion for the whole batch; infinities stay infinity. */
void zp_g1_batch_to_affine(zp_g1_affine *out, const zp_g1_jac *in, size_t n);
/* 48 bytes (compressed) or 96 (uncompressed), zcash encoding. */
void zp_g1_encode(uint8_t *out, const zp_g1_affine *a, bool compressed);
/* len must be 48 or 96 and agree with the compression flag. Checks the
 * encoding, the curve equation and subgroup membership, in that order. */
zp_err zp_g1_decode(zp_g1_affine *out, const uint8_t *in, size_t len);

void zp_g2_generator(zp_g2_affine *out);
bool zp_g2_affine_is_inf(const zp_g2_affine *a);
bool zp_g2_affine_eq(const zp_g2_affine *a, const zp_g2_affine *b);
void zp_g2_affine_neg(zp_g2_affine *out, const zp_g2_affine *a);
bool zp_g2_affine_on_curve(const zp_g2_affine *a);
bool zp_g2_affine_in_subgroup(const zp_g2_affine *a);
void zp_g2_jac_inf(zp_g2_jac *out);
bool zp_g2_jac_is_inf(const zp_g2_jac *a);
bool zp_g2_jac_eq(const zp_g2_jac *a, const zp_g2_jac *b);
void zp_g2_jac_from_affine(zp_g2_jac *out, const zp_g2_affine *a);
void zp_g2_jac_to_affine(zp_g2_affine *out, const zp_g2_jac *a);
void zp_g2_jac_neg(zp_g2_jac *out, const zp_g2_jac *a);
void zp_g2_jac_dbl(zp_g2_jac *out, const zp_g2_jac *a);
void zp_g2_jac_add(zp_g2_jac *out, const zp_g2_jac *a, const zp_g2_jac *b);
void zp_g2_jac_add_affine(zp_g2_jac *out, const zp_g2_jac *a, const zp_g2_affine *b);
void zp_g2_jac_mul_vartime(zp_g2_jac *out, const zp_g2_jac *p, const uint64_t *k, size_t nlimbs);
void zp_g2_xyzz_inf(zp_g2_xyzz *out);
void zp_g2_xyzz_from_affine(zp_g2_xyzz *out, const zp_g2_affine *a);
void zp_g2_xyzz_to_jac(zp_g2_jac *out, const zp_g2_xyzz *a);
void zp_g2_xyzz_dbl(zp_g2_xyzz *out, const zp_g2_xyzz *a);
void zp_g2_xyzz_add(zp_g2_xyzz *out, const zp_g2_xyzz *a, const zp_g2_xyzz *b);
void zp_g2_xyzz_add_affine(zp_g2_xyzz *out, const zp_g2_xyzz *a, const zp_g2_affine *b);
void zp_g2_batch_to_affine(zp_g2_affine *out, const zp_g2_jac *in, size_t n);
void zp_g2_encode(uint8_t *out, const zp_g2_affine *a, bool compressed);
zp_err zp_g2_decode(zp_g2_affine *out, const uint8_t *in, size_t len);

/* --------------------------------------------------------------- pairing */

/* Optimal ate pairing e: G1 x G2 -> GT (subgroup of Fp12*). Infinity in
 * either argument gives 1. Inputs must be in their subgroups. */
void zp_miller_loop(zp_fp12 *out, const zp_g1_affine *p, const zp_g2_affine *q);
/* Raises to 3(q^12 - 1)/r, the exponent @noble/curves and ffjavascript use,
 * so GT values (e.g. snarkjs' vk_alphabeta_12) agree byte for byte. */
void zp_final_exp(zp_fp12 *out, const zp_fp12 *a);
void zp_pairing(zp_fp12 *out, const zp_g1_affine *p, const zp_g2_affine *q);
/* Product of n pairings with one final exponentiation. */
void zp_multi_pairing(zp_fp12 *out, const zp_g1_affine *p, const zp_g2_affine *q, size_t n);

#ifdef __cplusplus
}
#endif
#endif
