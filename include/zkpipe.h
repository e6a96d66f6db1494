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
/* out = a^-1; the inverse of zero is defined as zero. Constant time
 * (Bernstein-Yang with a fixed step count), since r and s of a proof reach
 * it through affine conversion. */
void zp_fp_inv(zp_fp *out, const zp_fp *a);
/* out = a^e, e little-endian limbs (plain integer, any length). */
void zp_fp_pow(zp_fp *out, const zp_fp *a, const uint64_t *e, size_t nlimbs);
/* Returns false (out untouched) when a is not a square. */
bool zp_fp_sqrt(zp_fp *out, const zp_fp *a);
/* 1 for a nonzero square, -1 for a non-square, 0 for zero. Variable time
 * (binary Jacobi symbol). */
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
void zp_fr_inv(zp_fr *out, const zp_fr *a);            /* constant time, inv(0) = 0 */
void zp_fr_pow(zp_fr *out, const zp_fr *a, const uint64_t *e, size_t nlimbs);
bool zp_fr_sqrt(zp_fr *out, const zp_fr *a);
int zp_fr_legendre(const zp_fr *a);                   /* variable time */
void zp_fr_to_mont(zp_fr *out, const zp_fr *plain);
void zp_fr_from_mont(zp_fr *plain, const zp_fr *a);
zp_err zp_fr_from_be(zp_fr *out, const uint8_t *in);
void zp_fr_to_be(uint8_t *out, const zp_fr *a);
zp_err zp_fr_from_le(zp_fr *out, const uint8_t *in);
void zp_fr_to_le(uint8_t *out, const zp_fr *a);
/* Uniform random element from the OS (getrandom). */
zp_err zp_fr_random(zp_fr *out);

/* Which generator the key's roots of unity come from (docs/formats.md, Constants and point encoding). */
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

/* ------------------------------------------------------------ tuning */

/*
 * What the GPU prover may trade: device memory against speed. The
 * defaults suit a GPU with room for the keys it proves with and two
 * partition working sets beside them; change a field to give memory back
 * to keys and slots, or to choose the H tables' windows. Fill the struct
 * with zp_gpu_tuning_default, then change fields; zp_gpu_tuning_check
 * says whether they are in range (zp_engine_open checks them too).
 */
typedef struct zp_gpu_tuning {
    /* A resident key keeps its domain's NTT twist tables on the device
     * (64 bytes a domain element: 8 GiB at 2^27; domains of 2^19 and up),
     * so that the first pass of each of the h stage's transforms loads an
     * element's twist instead of multiplying two table entries: about 1 %
     * of a lone partition's time. Made only where two working sets of the
     * key's shape still fit beside them. Default true; false leaves that
     * memory to keys and slots. */
    bool ntt_twist;
    /* The H table of a resident key: about 256/c copies of its H points,
     * point i times 2^(c j) in copy j, over which the H MSM runs in c-bit
     * windows with one set of buckets for all of them: 10 to 40 % less H
     * MSM time against the copies' memory (19.5 GiB at 2^24 points with
     * c = 20). A key gets one only where two working sets that take its
     * MSM fit beside it, and an engine frees it before it evicts any key
     * for room.
     *   ZP_GPU_H_TABLE_OFF (0)   no tables;
     *   ZP_GPU_H_TABLE_AUTO (1)  (default) 16-bit windows for keys of
     *                            2^13 + 1 to 2^16 H points, 17 to 2^22,
     *                            20 to 2^24, none beyond or below, and
     *                            only where the table takes at most a
     *                            quarter of the arena; a key made for one
     *                            proof (zkpipe prove) gets none: the table
     *                            takes longer to make than it saves;
     *   2 .. ZP_GPU_H_TABLE_MAX  those windows at any size whose copies
     *                            one MSM takes, for every key. */
    unsigned h_table;
    /* A key that streams part of its points and leaves room for two
     * working sets or more beside its ring plans them with one ring for
     * all, the key's: the partitions in their MSM phase on one GPU consume
     * one stream of those points, so that the bytes a partition moves fall
     * as slots are added (docs/gpu-memory.md). Default false: one working
     * set, its own ring, more of the key resident. */
    bool ring_share;
} zp_gpu_tuning;

#define ZP_GPU_H_TABLE_OFF 0u
#define ZP_GPU_H_TABLE_AUTO 1u
#define ZP_GPU_H_TABLE_MAX 22u

void zp_gpu_tuning_default(zp_gpu_tuning *t);
/* ZP_E_INVALID_ARG when a field is out of its range (h_table above
 * ZP_GPU_H_TABLE_MAX); ZP_OK otherwise. */
zp_err zp_gpu_tuning_check(const zp_gpu_tuning *t);

/*
 * The CPU code's AVX-512 IFMA kernels (the CPU MSMs' batch additions, the
 * CPU NTT, the subgroup checks of key loads and imports) run where the CPU
 * has IFMA, found when the library loads. zp_cpu_set_ifma(false) turns
 * them off, for CPUs whose IFMA units are slower than their scalar
 * multipliers; true turns them on again where the CPU has them. Results
 * are the same bit for bit either way. Process-wide: call it before
 * proving, loading keys or opening an engine, never while any of them
 * runs. Returns whether the kernels are in use after the call.
 */
bool zp_cpu_set_ifma(bool on);

/* ---------------------------------------------------------------- engine */

/*
 * The proving engine (docs/architecture.md): keys stay loaded, jobs of one or
 * more partitions (one Groth16 proof each) flow through workers, and every
 * proof is verified before it leaves.
 *
 * Threads: every zp_engine_* call is thread-safe (any number of submitters
 * and awaiters at once) except zp_engine_close, which must be the last call
 * and must not race with others. Strings passed in are copied before the
 * call returns. Buffers handed out (*out of _metrics, _trace_json,
 * _timeline, zp_job_result) are malloc'd; release them with zp_free or
 * zp_job_result_free.
 *
 * Errors of the engine calls: ZP_E_INVALID_ARG (a NULL or malformed
 * argument), ZP_E_NOT_FOUND (unknown key or job), ZP_E_EXISTS (a name or id
 * reused with other contents), ZP_E_BUSY (a bounded queue is full: retry
 * later), ZP_E_TIMEOUT, ZP_E_CANCELLED, ZP_E_SHUTDOWN, ZP_E_NOMEM, and the
 * error a failed job failed with.
 */

typedef struct zp_engine zp_engine;

/* Scheduling classes, most urgent first. Within a class, partitions of
 * earlier jobs run before those of later ones (FIFO by job). */
typedef enum zp_priority {
    ZP_PRIO_CRITICAL = 0,
    ZP_PRIO_HIGH = 1,
    ZP_PRIO_NORMAL = 2,
    ZP_PRIO_LOW = 3,
} zp_priority;
#define ZP_PRIO_COUNT 4

/* "critical", "high", "normal", "low"; "?" for others. */
const char *zp_priority_name(zp_priority p);
/* The inverse of zp_priority_name; ZP_E_INVALID_ARG for anything else. */
zp_err zp_priority_parse(zp_priority *out, const char *name);

/* Frees a buffer the engine handed out (NULL is fine). */
void zp_free(void *p);

typedef struct zp_engine_config {
    /* CPU proving workers: each proves one partition at a time. Default 1. */
    int cpu_workers;
    /* Threads of one CPU worker; <= 0: the online CPUs divided among the
     * CPU workers (at least 1). */
    int threads_per_worker;
    /* GPU workers: -1 every usable GPU, 0 none (default), n the first n.
     * A build without CUDA has none; asking for some is ZP_E_NO_GPU. */
    int gpus;
    /* Partition slots per GPU (admission control, docs/gpu-memory.md): at most
     * this many partitions in flight on one GPU, fewer when the GPU's arena
     * cannot hold that many working sets next to the resident keys. Each
     * slot takes an equal share of the free arena among the slots still
     * without a working set, so fewer slots get more MSM scratch each.
     * Default 2. */
    int gpu_slots;
    /* Bytes of each GPU's arena, taken once at open; 0: the device's free
     * memory less a small reserve (default). Resident keys and slot working
     * sets all come from it; nothing is allocated on the device later. */
    uint64_t gpu_mem_bytes;
    /* What the GPU prover trades for speed on every GPU (zp_gpu_tuning;
     * zp_engine_config_default fills it with zp_gpu_tuning_default). */
    zp_gpu_tuning gpu_tuning;
    /* Threads of the CPU pool that verifies (and finishes) proofs. Default 1. */
    int verify_threads;
    /* Verify every partition's proof before the job completes. Default
     * true; a proof that fails is proved again once on another worker, then
     * the job fails with ZP_E_VERIFY_FAILED. */
    bool verify;
    /* Partitions waiting to start, over all jobs; a submit that would pass
     * it is refused with ZP_E_BUSY. Default 1024. */
    uint32_t max_queued_partitions;
    /* Jobs the engine remembers (waiting, running and finished); finished
     * ones are forgotten oldest first to make room, unfinished ones never,
     * so a submit beyond it is ZP_E_BUSY. Default 4096. */
    uint32_t max_jobs;
    /* Partitions of one job: 1 .. this. Default 64. */
    uint32_t max_partitions;
    /* Finished jobs are forgotten this many seconds after they finish
     * (await and status then say ZP_E_NOT_FOUND). Default 3600. */
    double finished_ttl_s;
    /* Host bytes of loaded keys (heap and mapped); unreferenced keys are
     * evicted least recently used first to stay within it. 0: no limit
     * (default). */
    uint64_t key_budget_bytes;
    /* Host bytes of loaded keys to page-lock (the pinned tier) so that a
     * key uploads to a GPU at full PCIe speed, also after its device copy
     * was evicted. Keys are pinned whole, first come, while they fit. Only
     * with GPUs. 0: none (default). A key whose points stream on some GPU
     * (key tiers) is pinned whatever this says: its copies stream from it
     * in place instead of from a pinned image of their own. */
    uint64_t pinned_key_bytes;
    /* Synthetic witnesses (ZP_WITNESS_SYNTH) kept per key for reuse: seed
     * s proves with witness number s mod N, generated once and kept while
     * the key is loaded (at most 16). For benchmarks that measure proving,
     * not witness generation (a synth:porep:27 witness is 4 GiB and takes
     * seconds to make). 0 (default): every partition makes its own. */
    uint32_t synth_witness_cache;
    /* Stage events kept for zp_engine_trace_json / zp_engine_timeline
     * (a ring: the oldest are dropped). 0 turns tracing off. Default 65536. */
    uint32_t trace_events;
    /* When not NULL, called with each "TIMELINE,<ms>,<event>,<job>,<partition>"
     * line (no newline) as it happens, from engine threads; must be quick
     * and thread-safe. */
    void (*timeline_log)(void *ctx, const char *line);
    void *timeline_ctx;
    /* When not NULL, called as a key loads, which takes long for large
     * keys: step "checking key checksums" (a .zpk, in bytes) or "making key
     * points" (a synthetic key's TEST-ONLY setup, in points), done of total,
     * with done == total once at the step's end. From engine threads,
     * several keys at once; must be quick and thread-safe. NULL (default):
     * the engine reports nothing. */
    void (*key_progress)(void *ctx, const char *key, const char *step, uint64_t done,
                         uint64_t total);
    void *key_progress_ctx;
} zp_engine_config;

void zp_engine_config_default(zp_engine_config *c);

/* Starts the workers. cfg may be NULL (defaults). ZP_E_INVALID_ARG for a
 * config out of range, ZP_E_NO_GPU, ZP_E_NOMEM. */
zp_err zp_engine_open(zp_engine **out, const zp_engine_config *cfg);
/* Cancels what is queued, waits for running partitions, stops the workers,
 * frees every key and job. Awaiters still waiting get ZP_E_SHUTDOWN before
 * it returns. NULL is fine. */
void zp_engine_close(zp_engine *e);

/* ------------------------------------------------------------ keys */

/* Names: 1..ZP_NAME_MAX characters of [A-Za-z0-9._-]. */
#define ZP_NAME_MAX 64

/*
 * Registers a proving key under name; it is loaded on first use (or by
 * zp_engine_preload_key). source is one of
 *   a path ending in ".zpk"    native key, mapped (zkpipe import / setup)
 *   a path ending in ".zkey"   snarkjs key, parsed and checked into memory
 *   "synth:NAME:LOG2"          a synthetic circuit with a TEST-ONLY key from
 *                              random toxic waste, made at load; jobs for it
 *                              may use synthetic witnesses (ZP_WITNESS_SYNTH)
 * The same name with the same source again is ZP_OK; with another source
 * ZP_E_EXISTS. A bad synth spec or suffix is ZP_E_INVALID_ARG; files are
 * not opened until the key loads.
 */
zp_err zp_engine_add_key(zp_engine *e, const char *name, const char *source);
/* Loads the key now (waiting for the load) and keeps it loaded: it is not
 * evicted for the budget until zp_engine_evict_key. In an engine with GPU
 * slots it is also made resident on every GPU (in parallel) and kept there.
 * The load's error (ZP_E_IO, ZP_E_FORMAT, ZP_E_CHECKSUM, ..., ZP_E_TOO_LARGE
 * when it cannot fit the budget, ZP_E_GPU_OOM when it cannot fit a GPU) is
 * returned, its reason kept in zp_key_info.last_message; a key that failed
 * on a GPU is not held as preloaded. */
zp_err zp_engine_preload_key(zp_engine *e, const char *name);
/* Unloads the key now and lifts a preload. ZP_E_BUSY when a partition is
 * using it (it stays loaded; try later); ZP_OK when it was not loaded. */
zp_err zp_engine_evict_key(zp_engine *e, const char *name);

typedef enum zp_key_tier {
    ZP_KEY_UNLOADED = 0,
    ZP_KEY_LOADING = 1,
    ZP_KEY_HOST = 2,    /* in heap memory */
    ZP_KEY_MAPPED = 3,  /* a read-only file mapping (.zpk) */
    ZP_KEY_DEVICE = 4,  /* resident in GPU memory (and host) */
    ZP_KEY_PINNED = 5,  /* in host memory page-locked for fast uploads to GPUs */
} zp_key_tier;

/* "unloaded", "loading", "host", "mapped", "device". */
const char *zp_key_tier_name(zp_key_tier t);

typedef struct zp_key_info {
    char name[ZP_NAME_MAX + 1];
    char source[256];           /* as given (cut to fit) */
    zp_key_tier tier;
    bool preloaded;
    uint32_t refs;              /* partitions using it now */
    uint64_t bytes;             /* host bytes while loaded, else 0 */
    uint64_t device_bytes;      /* GPU arena bytes of its resident copies */
    uint64_t h_table_bytes;     /* of those, its H tables' (zp_gpu_tuning.h_table) */
    uint64_t pinned_bytes;      /* host bytes page-locked (pinned tier) */
    uint32_t n_public;          /* 0 until first loaded */
    uint32_t n_vars;
    uint64_t domain_size;
    uint64_t loads, evictions;
    double last_used_s;         /* engine clock; -1 when never used */
    zp_err last_error;          /* of the last load or preload attempt */
    char last_message[256];     /* what went wrong then ("" when nothing) */
    /* Key tiers (zp_engine_key_plan): pinned host bytes of the points and
     * matrices that stream through the GPUs instead of staying in their
     * arenas (the points' image once, however many GPUs share it; none
     * where they stream from the key's own pinned memory), and the largest
     * staging buffer its GPUs' slots stream them through (0: nothing
     * streams). */
    uint64_t streamed_bytes;
    uint64_t ring_buffer_bytes;
} zp_key_info;

/* The index-th registered key (in registration order); ZP_E_NOT_FOUND past
 * the last. */
zp_err zp_engine_key_info(zp_engine *e, size_t index, zp_key_info *out);

/* ------------------------------------------------------------ jobs */

#define ZP_JOB_ID_MAX 64

typedef enum zp_witness_kind {
    ZP_WITNESS_FILE = 1,    /* path of a .wtns file, read when the partition starts */
    ZP_WITNESS_MEMORY = 2,  /* .wtns bytes in memory */
    ZP_WITNESS_SYNTH = 3,   /* generated from seed (synthetic keys only) */
} zp_witness_kind;

typedef struct zp_witness {
    zp_witness_kind kind;
    const char *path;        /* FILE */
    const void *data;        /* MEMORY */
    size_t len;              /* MEMORY */
    /* MEMORY: NULL: the engine copies data during submit. Otherwise the
     * engine borrows data and calls release(release_ctx, data) exactly once
     * when it no longer needs it (also when submit fails or returns an
     * existing job). release runs on an engine thread, possibly with engine
     * locks held: it must be quick and must not call zp_engine_*. */
    void (*release)(void *ctx, const void *data);
    void *release_ctx;
    uint64_t seed;           /* SYNTH */
} zp_witness;

typedef struct zp_job_request {
    /* Caller-chosen id, 1..ZP_JOB_ID_MAX characters of [A-Za-z0-9._:-];
     * NULL or "": the engine makes one up. Submitting the same id with the
     * same request again returns the existing job (ZP_OK, nothing new
     * runs); with a different request ZP_E_EXISTS. */
    const char *id;
    const char *key;         /* a name given to zp_engine_add_key */
    zp_priority priority;
    uint32_t partitions;     /* 1 .. config max_partitions */
    /* One witness per partition (n_witnesses = partitions), or one for all
     * (n_witnesses = 1; a SYNTH seed then becomes seed + partition). */
    const zp_witness *witnesses;
    uint32_t n_witnesses;
} zp_job_request;

/*
 * Queues a job. id_out (may be NULL) receives the job's id. ZP_E_NOT_FOUND
 * for an unknown key, ZP_E_BUSY when the queue or the job table is full,
 * ZP_E_EXISTS (see id), ZP_E_INVALID_ARG for a bad request (a synthetic
 * witness for a file key, zero partitions, ...), ZP_E_SHUTDOWN; ZP_E_NO_GPU
 * once every GPU failed (a sticky error) in an engine without CPU workers,
 * whose unfinished jobs then fail with ZP_E_GPU_FATAL.
 */
zp_err zp_engine_submit(zp_engine *e, const zp_job_request *req,
                        char id_out[ZP_JOB_ID_MAX + 1]);

typedef enum zp_job_state {
    ZP_JOB_QUEUED = 0,     /* no partition started yet */
    ZP_JOB_RUNNING = 1,
    ZP_JOB_DONE = 2,       /* every partition proved and verified */
    ZP_JOB_FAILED = 3,
    ZP_JOB_CANCELLED = 4,
} zp_job_state;

/* "queued", "running", "done", "failed", "cancelled". */
const char *zp_job_state_name(zp_job_state s);

typedef struct zp_job_info {
    char id[ZP_JOB_ID_MAX + 1];
    char key[ZP_NAME_MAX + 1];
    zp_job_state state;
    zp_priority priority;
    zp_err error;             /* FAILED: why; CANCELLED: ZP_E_CANCELLED */
    char message[256];        /* FAILED: one English sentence */
    uint32_t partitions;
    uint32_t partitions_done; /* proved and verified */
    uint32_t partitions_running;
    double submitted_s, started_s, finished_s; /* engine clock; -1 when not yet */
} zp_job_info;

typedef struct zp_job_result {
    uint32_t partitions;
    uint32_t n_public;        /* public inputs per partition */
    /* partitions × 192 bytes: each proof A ‖ B ‖ C zcash-compressed, in
     * partition order (bellperson's concatenation). */
    uint8_t *proofs;
    size_t proofs_len;
    /* partitions × n_public × 32 bytes: the public inputs of each partition
     * as little-endian standard-form integers. */
    uint8_t *public_inputs;
    size_t public_len;
} zp_job_result;

void zp_job_result_free(zp_job_result *r);

/*
 * Waits up to timeout_s seconds (0: just look; < 0: forever) for the job to
 * finish. info (may be NULL) receives its state either way. Returns ZP_OK
 * with result filled (when not NULL) for a done job, ZP_E_TIMEOUT while it
 * is unfinished, ZP_E_CANCELLED, the error of a failed job (info->message
 * says more), ZP_E_NOT_FOUND, or ZP_E_SHUTDOWN when the engine closes.
 */
zp_err zp_engine_await(zp_engine *e, const char *id, double timeout_s, zp_job_info *info,
                       zp_job_result *result);

/* Cancels a job: queued partitions are dropped, running ones are discarded
 * when they return. ZP_OK also when it had already finished (nothing
 * changes then); ZP_E_NOT_FOUND for an unknown id. */
zp_err zp_engine_cancel(zp_engine *e, const char *id);

/* The job's state without waiting; ZP_E_NOT_FOUND for an unknown id. */
zp_err zp_engine_job_status(zp_engine *e, const char *id, zp_job_info *out);

/* ------------------------------------------------------------ status */

typedef struct zp_engine_info {
    double uptime_s;
    uint32_t queued_jobs[ZP_PRIO_COUNT];        /* by priority */
    uint32_t queued_partitions[ZP_PRIO_COUNT];
    uint32_t running_jobs, running_partitions;  /* partitions proving or verifying */
    uint32_t workers, workers_busy;
    uint32_t keys, keys_loaded;
    uint64_t key_bytes, key_budget_bytes;
    uint64_t jobs_submitted, jobs_done, jobs_failed, jobs_cancelled;
    uint64_t proofs_verified, proofs_rejected;
} zp_engine_info;

/* A snapshot of queues, workers and keys. */
zp_err zp_engine_status(zp_engine *e, zp_engine_info *out);

typedef struct zp_worker_info {
    char name[32];            /* "cpu0", "gpu0/1" (GPU 0, slot 1), "verify0" */
    bool busy;
    char job[ZP_JOB_ID_MAX + 1]; /* when busy */
    uint32_t partition;       /* when busy */
    uint64_t partitions_done;
    double busy_s;            /* total time spent on partitions */
    bool healthy;             /* a GPU's slots turn false after a sticky error */
    bool dormant;             /* a GPU slot whose working set did not fit next
                               * to the resident keys: it takes no work */
} zp_worker_info;

/* The index-th worker (proving workers first, then the verify pool);
 * ZP_E_NOT_FOUND past the last. */
zp_err zp_engine_worker_info(zp_engine *e, size_t index, zp_worker_info *out);

typedef struct zp_gpu_info {
    int ordinal;              /* the GPU's index in the engine (gpuN) */
    bool healthy;             /* false after a sticky error: it takes no work */
    uint64_t arena_bytes;     /* its arena, taken at open (gpu_mem_bytes) */
    uint64_t arena_used;      /* carved: resident keys, working sets, rings */
    uint32_t slots;           /* partition slots (gpu_slots) */
    uint32_t slots_admitted;  /* of those, allowed to take work (not dormant) */
    uint32_t working_sets;    /* slots holding a working set now */
    uint64_t ring_bytes;      /* arena bytes of their staging rings and of
                               * its keys' shared rings */
    uint64_t pinned_bytes;    /* host bytes its slots pinned (witness buffers,
                               * a and b of jobs of a, b, c copied ahead) */
    /* Bytes its partitions moved host to device since the engine opened:
     * their witnesses and the key bytes its slots streamed; of those, the
     * streamed key's (points, and matrices where they stream). */
    uint64_t h2d_bytes;
    uint64_t streamed_bytes;
    char name[128];           /* the device's name, e.g. "NVIDIA H200" */
    int cc_major, cc_minor;   /* its compute capability (architecture) */
    uint64_t total_bytes;     /* its memory */
    /* Its memory free outside the arena once the arena was taken, and now:
     * the difference is what the driver (kernels loaded at first launch,
     * their local memory) and other processes took since. 0 and 0 where
     * the driver cannot say. */
    uint64_t outside_free_at_open;
    uint64_t outside_free;
} zp_gpu_info;

/* The index-th GPU of the engine; ZP_E_NOT_FOUND past the last. */
zp_err zp_engine_gpu_info(zp_engine *e, size_t index, zp_gpu_info *out);

/* The point arrays of a key, in the order a GPU keeps them resident when
 * they do not all fit (docs/gpu-memory.md, key tiers). */
#define ZP_KEY_ARRAYS 5

/* "L", "A", "B1", "B2", "H" for 0..4; "?" past them. */
const char *zp_key_array_name(unsigned i);

/* What of a key one GPU keeps in its arena and what streams from pinned
 * host memory, as planned when the key became resident there. */
typedef struct zp_key_gpu_plan {
    bool resident;            /* the key is resident on the GPU; else all 0 */
    uint64_t points[ZP_KEY_ARRAYS];   /* of each array (zp_key_array_name) */
    uint64_t resident_points[ZP_KEY_ARRAYS]; /* its first ones, in the arena;
                                       * the rest stream for every proof */
    uint64_t device_bytes;    /* arena bytes of the copy, H table included */
    uint64_t pinned_bytes;    /* host bytes of its streamed points */
    uint64_t ring_buffer_bytes; /* each of a slot's two staging buffers;
                               * 0: nothing streams */
    uint64_t slot_bytes;      /* one working set beside it, ring included */
    uint32_t slots;           /* working sets the plan fits beside it */
    char summary[192];        /* one line, e.g. "resident L A; streamed B1
                               * (62 %), B2, H (12.0 GiB pinned); ring 2 x
                               * 1.0 GiB; 2 slot(s) of 9.1 GiB" */
} zp_key_gpu_plan;

/* The plan of the index-th key on GPU gpu (resident false where the key
 * is not resident there); ZP_E_NOT_FOUND past the last key or GPU. */
zp_err zp_engine_key_plan(zp_engine *e, size_t index, int gpu, zp_key_gpu_plan *out);

/* The metrics in Prometheus text format (version 0.0.4). */
zp_err zp_engine_metrics(zp_engine *e, char **out, size_t *len);
/* The kept stage events as Chrome trace JSON (opens in Perfetto): one
 * complete event per stage per partition, one lane per worker. */
zp_err zp_engine_trace_json(zp_engine *e, char **out, size_t *len);
/* The kept stage events as TIMELINE,<ms>,<event>,<job>,<partition> lines. */
zp_err zp_engine_timeline(zp_engine *e, char **out, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
