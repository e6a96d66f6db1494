/*
 * Montgomery multiplication for x86-64 with BMI2 (mulx) and ADX (adcx,
 * adox), for the two sizes the library uses: 6 limbs (Fp) and 4 limbs (Fr).
 * The portable zp__mont_mul in mont.h computes the same value and is the
 * reference twin that tests/test_mont.c compares these kernels with.
 *
 * Algorithm: CIOS, one round per limb b[i] of the multiplier:
 *   product row    t = t + a * b[i]                       (n+1 words)
 *   reduction row  t = (t + q*m) / 2^64,  q = t[0] * (-m^-1) mod 2^64
 * Each row is one pass of mulx over n limbs. The low halves of the partial
 * products enter the accumulator on the OF carry chain (adox) and the high
 * halves on the CF chain (adcx), so two additions run interleaved without
 * saving flags. Accumulator words rotate through registers between rounds
 * instead of being moved.
 *
 * Why n+1 accumulator words suffice (the "no-carry" form of CIOS). With
 * a < m, b[i] < 2^64 and q < 2^64: if t < 2m before a round, then
 *   t + a*b[i] + q*m < 2m + (2^64-1)m + (2^64-1)m < 2^65 * m,
 * so t < 2m holds again after the division by 2^64, and every intermediate
 * is below 2^65 * m. Both stay inside n+1 words, with no (n+2)-th carry
 * word, exactly when 2m <= 2^(64n), i.e. the top bit of m is clear:
 *   Fp: m < 2^381 < 2^383 = 2^(64*6-1)   Fr: m < 2^255 = 2^(64*4-1).
 * (Consequently the carry out of every chain's last word is zero; the code
 * relies on that to start each row with CF = OF = 0 and no flag reset.)
 * The result t < 2m needs one conditional subtraction, done with cmov.
 *
 * The kernels are statement macros rather than functions so that the
 * modulus and -m^-1 are memory operands addressed straight off the static
 * constant (RIP-relative) at every optimisation level: with the output,
 * a, b, two scratch words, a zero and n+1 accumulator words, a 6-limb
 * multiply needs all 14 registers a frame-pointer build leaves free.
 *
 * Callers must check zp__x86_fast before using them (unless the compiler
 * targets ADX itself): BMI2 is part of x86-64-v3 but ADX is not (Haswell
 * has BMI2 without ADX), and CMake's Debug flags target plain x86-64.
 */
#ifndef ZP_MONT_X86_H
#define ZP_MONT_X86_H

#include <stdbool.h>
#include <stdint.h>

/* -DZP_NO_ASM builds the portable code alone, as on other processors. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(ZP_NO_ASM)
#define ZP__X86_ASM 1

/* Built for a CPU with both (e.g. -march=native on a recent x86-64): the
 * kernels are used without the run-time test. */
#if defined(__ADX__) && defined(__BMI2__)
#define ZP__X86_FAST_ALWAYS 1
#else
#define ZP__X86_FAST_ALWAYS 0
#endif

/* True when the CPU has BMI2 and ADX; set once at load time by a
 * constructor in mont_x86.c. Tests and benchmarks may switch it to compare
 * paths (valgrind's CPUID hides ADX although it runs the instructions);
 * nothing may change it while another thread computes. */
extern bool zp__x86_fast __attribute__((visibility("hidden")));

/* Whether this CPU reports BMI2 and ADX. */
bool zp__x86_cpu_has_fast(void);

/* Switch the fast kernels on or off; returns false (and leaves them off)
 * when asked for them on a CPU without BMI2/ADX, unless forced. For tests
 * and benchmarks. */
bool zp__x86_set_fast(bool on, bool force);

#define ZP__S(x) "%[" #x "]"

/* One column of a row with multiplier rdx: lo(src*rdx) joins word tj on
 * the OF chain, hi joins word tk on the CF chain. */
#define ZP__MA(src, tj, tk)                                                  \
    "mulxq " src ", %[lo], %[hi]\n\t"                                        \
    "adoxq %[lo], " ZP__S(tj) "\n\t"                                         \
    "adcxq %[hi], " ZP__S(tk) "\n\t"

/* Last column of a product row: the high half becomes the fresh top word
 * t_n, which then takes the final carry of both chains (z holds 0). */
#define ZP__MA_TOP(src, tj, tk)                                              \
    "mulxq " src ", %[lo], " ZP__S(tk) "\n\t"                                \
    "adoxq %[lo], " ZP__S(tj) "\n\t"                                         \
    "adcxq %[z], " ZP__S(tk) "\n\t"                                          \
    "adoxq %[z], " ZP__S(tk) "\n\t"

/* First column of the first row: nothing to add yet; clears CF and OF,
 * and z, which stays 0 for the carries into top words. */
#define ZP__FIRST_COL(t0, t1)                                                \
    "movq 0(%[b]), %%rdx\n\t"                                                \
    "xorl %k[z], %k[z]\n\t"                                                  \
    "mulxq 0(%[a]), " ZP__S(t0) ", " ZP__S(t1) "\n\t"

/* Column j of the first row: t_j+1 = hi, lo joins t_j on the CF chain. */
#define ZP__FIRST(src, tj, tk)                                               \
    "mulxq " src ", %[lo], " ZP__S(tk) "\n\t"                                \
    "adcxq %[lo], " ZP__S(tj) "\n\t"

/* Start of a reduction row: rdx = q = t0 * (-m^-1) mod 2^64. mulx leaves
 * the flags alone, so CF = OF = 0 from the previous row carry over. */
#define ZP__RED_Q(t0)                                                        \
    "movq " ZP__S(t0) ", %%rdx\n\t"                                          \
    "mulxq %[inv], %%rdx, %[hi]\n\t"

/* End of a reduction row: the OF chain's carry into the top word. */
#define ZP__RED_END(tn) "adoxq %[z], " ZP__S(tn) "\n\t"

#define ZP__B(off) "movq " #off "(%[b]), %%rdx\n\t"

/* ---- 6 limbs ---------------------------------------------------------- */

#define ZP__FIRST6(t0, t1, t2, t3, t4, t5, t6)                               \
    ZP__FIRST_COL(t0, t1)                                                    \
    ZP__FIRST("8(%[a])", t1, t2) ZP__FIRST("16(%[a])", t2, t3)               \
    ZP__FIRST("24(%[a])", t3, t4) ZP__FIRST("32(%[a])", t4, t5)              \
    ZP__FIRST("40(%[a])", t5, t6)                                            \
    "adcxq %[z], " ZP__S(t6) "\n\t"

#define ZP__MULROW6(boff, t0, t1, t2, t3, t4, t5, t6)                        \
    ZP__B(boff)                                                              \
    ZP__MA("0(%[a])", t0, t1) ZP__MA("8(%[a])", t1, t2)                      \
    ZP__MA("16(%[a])", t2, t3) ZP__MA("24(%[a])", t3, t4)                    \
    ZP__MA("32(%[a])", t4, t5) ZP__MA_TOP("40(%[a])", t5, t6)

#define ZP__REDROW6(t0, t1, t2, t3, t4, t5, t6)                              \
    ZP__RED_Q(t0)                                                            \
    ZP__MA("%[m0]", t0, t1) ZP__MA("%[m1]", t1, t2) ZP__MA("%[m2]", t2, t3)  \
    ZP__MA("%[m3]", t3, t4) ZP__MA("%[m4]", t4, t5) ZP__MA("%[m5]", t5, t6)  \
    ZP__RED_END(t6)

/* out = t - m if that does not borrow, else t; scratch s0 and lo, hi,
 * rdx, a, b (all dead by now). */
#define ZP__FINAL6(t0, t1, t2, t3, t4, t5, s0)                               \
    "movq " ZP__S(t0) ", " ZP__S(s0) "\n\t"                                  \
    "subq %[m0], " ZP__S(s0) "\n\t"                                          \
    "movq " ZP__S(t1) ", %[lo]\n\t"                                          \
    "sbbq %[m1], %[lo]\n\t"                                                  \
    "movq " ZP__S(t2) ", %[hi]\n\t"                                          \
    "sbbq %[m2], %[hi]\n\t"                                                  \
    "movq " ZP__S(t3) ", %%rdx\n\t"                                          \
    "sbbq %[m3], %%rdx\n\t"                                                  \
    "movq " ZP__S(t4) ", %[a]\n\t"                                           \
    "sbbq %[m4], %[a]\n\t"                                                   \
    "movq " ZP__S(t5) ", %[b]\n\t"                                           \
    "sbbq %[m5], %[b]\n\t"                                                   \
    "cmovncq " ZP__S(s0) ", " ZP__S(t0) "\n\t"                               \
    "cmovncq %[lo], " ZP__S(t1) "\n\t"                                       \
    "cmovncq %[hi], " ZP__S(t2) "\n\t"                                       \
    "cmovncq %%rdx, " ZP__S(t3) "\n\t"                                       \
    "cmovncq %[a], " ZP__S(t4) "\n\t"                                        \
    "cmovncq %[b], " ZP__S(t5) "\n\t"                                        \
    "movq " ZP__S(t0) ", 0(%[out])\n\t"                                      \
    "movq " ZP__S(t1) ", 8(%[out])\n\t"                                      \
    "movq " ZP__S(t2) ", 16(%[out])\n\t"                                     \
    "movq " ZP__S(t3) ", 24(%[out])\n\t"                                     \
    "movq " ZP__S(t4) ", 32(%[out])\n\t"                                     \
    "movq " ZP__S(t5) ", 40(%[out])\n\t"

/*
 * out = a*b/R mod m for 6 limbs; M is a zp__mont in static storage. out may
 * alias a or b: both are read before out is written.
 */
#define ZP__X86_MONT_MUL6(out_, a_, b_, M)                                   \
    do {                                                                     \
        uint64_t x0_, x1_, x2_, x3_, x4_, x5_, x6_, lo_, hi_, z_;            \
        const uint64_t *pa_ = (a_), *pb_ = (b_);                             \
        __asm__ volatile(                                                    \
            ZP__FIRST6(x0, x1, x2, x3, x4, x5, x6)                           \
            ZP__REDROW6(x0, x1, x2, x3, x4, x5, x6)                          \
            ZP__MULROW6(8, x1, x2, x3, x4, x5, x6, x0)                       \
            ZP__REDROW6(x1, x2, x3, x4, x5, x6, x0)                          \
            ZP__MULROW6(16, x2, x3, x4, x5, x6, x0, x1)                      \
            ZP__REDROW6(x2, x3, x4, x5, x6, x0, x1)                          \
            ZP__MULROW6(24, x3, x4, x5, x6, x0, x1, x2)                      \
            ZP__REDROW6(x3, x4, x5, x6, x0, x1, x2)                          \
            ZP__MULROW6(32, x4, x5, x6, x0, x1, x2, x3)                      \
            ZP__REDROW6(x4, x5, x6, x0, x1, x2, x3)                          \
            ZP__MULROW6(40, x5, x6, x0, x1, x2, x3, x4)                      \
            ZP__REDROW6(x5, x6, x0, x1, x2, x3, x4)                          \
            ZP__FINAL6(x6, x0, x1, x2, x3, x4, x5)                           \
            : [x0] "=&r"(x0_), [x1] "=&r"(x1_), [x2] "=&r"(x2_),             \
              [x3] "=&r"(x3_), [x4] "=&r"(x4_), [x5] "=&r"(x5_),             \
              [x6] "=&r"(x6_), [lo] "=&r"(lo_), [hi] "=&r"(hi_),             \
              [z] "=&r"(z_), [a] "+&r"(pa_), [b] "+&r"(pb_)                  \
            : [out] "r"(out_), [m0] "m"((M)->m[0]), [m1] "m"((M)->m[1]),     \
              [m2] "m"((M)->m[2]), [m3] "m"((M)->m[3]),                      \
              [m4] "m"((M)->m[4]), [m5] "m"((M)->m[5]), [inv] "m"((M)->inv)  \
            : "rdx", "cc", "memory");                                        \
    } while (0)

/* ---- 4 limbs ---------------------------------------------------------- */

#define ZP__FIRST4(t0, t1, t2, t3, t4)                                       \
    ZP__FIRST_COL(t0, t1)                                                    \
    ZP__FIRST("8(%[a])", t1, t2) ZP__FIRST("16(%[a])", t2, t3)               \
    ZP__FIRST("24(%[a])", t3, t4)                                            \
    "adcxq %[z], " ZP__S(t4) "\n\t"

#define ZP__MULROW4(boff, t0, t1, t2, t3, t4)                                \
    ZP__B(boff)                                                              \
    ZP__MA("0(%[a])", t0, t1) ZP__MA("8(%[a])", t1, t2)                      \
    ZP__MA("16(%[a])", t2, t3) ZP__MA_TOP("24(%[a])", t3, t4)

#define ZP__REDROW4(t0, t1, t2, t3, t4)                                      \
    ZP__RED_Q(t0)                                                            \
    ZP__MA("%[m0]", t0, t1) ZP__MA("%[m1]", t1, t2) ZP__MA("%[m2]", t2, t3)  \
    ZP__MA("%[m3]", t3, t4)                                                  \
    ZP__RED_END(t4)

#define ZP__FINAL4(t0, t1, t2, t3, s0)                                       \
    "movq " ZP__S(t0) ", " ZP__S(s0) "\n\t"                                  \
    "subq %[m0], " ZP__S(s0) "\n\t"                                          \
    "movq " ZP__S(t1) ", %[lo]\n\t"                                          \
    "sbbq %[m1], %[lo]\n\t"                                                  \
    "movq " ZP__S(t2) ", %[hi]\n\t"                                          \
    "sbbq %[m2], %[hi]\n\t"                                                  \
    "movq " ZP__S(t3) ", %%rdx\n\t"                                          \
    "sbbq %[m3], %%rdx\n\t"                                                  \
    "cmovncq " ZP__S(s0) ", " ZP__S(t0) "\n\t"                               \
    "cmovncq %[lo], " ZP__S(t1) "\n\t"                                       \
    "cmovncq %[hi], " ZP__S(t2) "\n\t"                                       \
    "cmovncq %%rdx, " ZP__S(t3) "\n\t"                                       \
    "movq " ZP__S(t0) ", 0(%[out])\n\t"                                      \
    "movq " ZP__S(t1) ", 8(%[out])\n\t"                                      \
    "movq " ZP__S(t2) ", 16(%[out])\n\t"                                     \
    "movq " ZP__S(t3) ", 24(%[out])\n\t"

/* out = a*b/R mod m for 4 limbs; as ZP__X86_MONT_MUL6. */
#define ZP__X86_MONT_MUL4(out_, a_, b_, M)                                   \
    do {                                                                     \
        uint64_t x0_, x1_, x2_, x3_, x4_, lo_, hi_, z_;                      \
        __asm__ volatile(                                                    \
            ZP__FIRST4(x0, x1, x2, x3, x4)                                   \
            ZP__REDROW4(x0, x1, x2, x3, x4)                                  \
            ZP__MULROW4(8, x1, x2, x3, x4, x0)                               \
            ZP__REDROW4(x1, x2, x3, x4, x0)                                  \
            ZP__MULROW4(16, x2, x3, x4, x0, x1)                              \
            ZP__REDROW4(x2, x3, x4, x0, x1)                                  \
            ZP__MULROW4(24, x3, x4, x0, x1, x2)                              \
            ZP__REDROW4(x3, x4, x0, x1, x2)                                  \
            ZP__FINAL4(x4, x0, x1, x2, x3)                                   \
            : [x0] "=&r"(x0_), [x1] "=&r"(x1_), [x2] "=&r"(x2_),             \
              [x3] "=&r"(x3_), [x4] "=&r"(x4_), [lo] "=&r"(lo_),             \
              [hi] "=&r"(hi_), [z] "=&r"(z_)                                 \
            : [out] "r"(out_), [a] "r"(a_), [b] "r"(b_),                     \
              [m0] "m"((M)->m[0]), [m1] "m"((M)->m[1]),                      \
              [m2] "m"((M)->m[2]), [m3] "m"((M)->m[3]), [inv] "m"((M)->inv)  \
            : "rdx", "cc", "memory");                                        \
    } while (0)

/* ---- addition and subtraction (plain x86-64, no BMI2/ADX needed) ------ */

/*
 * These use at most nine registers, all of them caller-saved, so that the
 * functions around them need no prologue: the pairing spends a third of
 * its instructions in Fp additions and subtractions. The 6-limb ones keep
 * the unreduced value in out and select from it with cmov.
 */

#define ZP__LOAD6(src)                                                       \
    "movq 0(" src "), %[t0]\n\t"                                             \
    "movq 8(" src "), %[t1]\n\t"                                             \
    "movq 16(" src "), %[t2]\n\t"                                            \
    "movq 24(" src "), %[t3]\n\t"                                            \
    "movq 32(" src "), %[t4]\n\t"                                            \
    "movq 40(" src "), %[t5]\n\t"

#define ZP__STORE6                                                           \
    "movq %[t0], 0(%[out])\n\t"                                              \
    "movq %[t1], 8(%[out])\n\t"                                              \
    "movq %[t2], 16(%[out])\n\t"                                             \
    "movq %[t3], 24(%[out])\n\t"                                             \
    "movq %[t4], 32(%[out])\n\t"                                             \
    "movq %[t5], 40(%[out])\n\t"

/* t op= m over six words (op0, op: add, adc or sub, sbb). */
#define ZP__MOD6(op0, op)                                                    \
    op0 "q %[m0], %[t0]\n\t"                                                 \
    op "q %[m1], %[t1]\n\t"                                                  \
    op "q %[m2], %[t2]\n\t"                                                  \
    op "q %[m3], %[t3]\n\t"                                                  \
    op "q %[m4], %[t4]\n\t"                                                  \
    op "q %[m5], %[t5]\n\t"

/* t = out where the condition holds (cc: c or z). */
#define ZP__CMOV6(cc)                                                        \
    "cmov" cc "q 0(%[out]), %[t0]\n\t"                                       \
    "cmov" cc "q 8(%[out]), %[t1]\n\t"                                       \
    "cmov" cc "q 16(%[out]), %[t2]\n\t"                                      \
    "cmov" cc "q 24(%[out]), %[t3]\n\t"                                      \
    "cmov" cc "q 32(%[out]), %[t4]\n\t"                                      \
    "cmov" cc "q 40(%[out]), %[t5]\n\t"

#define ZP__MOD6_OPERANDS(M)                                                 \
    [m0] "m"((M)->m[0]), [m1] "m"((M)->m[1]), [m2] "m"((M)->m[2]),           \
        [m3] "m"((M)->m[3]), [m4] "m"((M)->m[4]), [m5] "m"((M)->m[5])

/*
 * out = a + b mod m, branch-free: s = a + b goes to out, then s - m is
 * kept unless it borrows. The sum cannot carry out of n words because
 * 2m < 2^(64n) (the spare top bit above), so the borrow alone decides.
 * out may alias a or b: both are read before out is written.
 */
#define ZP__X86_MOD_ADD6(out_, a_, b_, M)                                    \
    do {                                                                     \
        uint64_t t0_, t1_, t2_, t3_, t4_, t5_;                               \
        __asm__ volatile(                                                    \
            ZP__LOAD6("%[a]")                                                \
            "addq 0(%[b]), %[t0]\n\t"                                        \
            "adcq 8(%[b]), %[t1]\n\t"                                        \
            "adcq 16(%[b]), %[t2]\n\t"                                       \
            "adcq 24(%[b]), %[t3]\n\t"                                       \
            "adcq 32(%[b]), %[t4]\n\t"                                       \
            "adcq 40(%[b]), %[t5]\n\t"                                       \
            ZP__STORE6                                                       \
            ZP__MOD6("sub", "sbb")                                                  \
            ZP__CMOV6("c")                                                   \
            ZP__STORE6                                                       \
            : [t0] "=&r"(t0_), [t1] "=&r"(t1_), [t2] "=&r"(t2_),             \
              [t3] "=&r"(t3_), [t4] "=&r"(t4_), [t5] "=&r"(t5_)              \
            : [out] "r"(out_), [a] "r"(a_), [b] "r"(b_), ZP__MOD6_OPERANDS(M) \
            : "cc", "memory");                                               \
    } while (0)

/*
 * out = a - b mod m, branch-free: d = a - b goes to out, k = -borrow, then
 * d + m is kept where k is nonzero. (The addition chain is why the choice
 * is made on ZF from k rather than on the borrow itself.)
 */
#define ZP__X86_MOD_SUB6(out_, a_, b_, M)                                    \
    do {                                                                     \
        uint64_t t0_, t1_, t2_, t3_, t4_, t5_;                               \
        const uint64_t *pb_ = (b_);                                          \
        __asm__ volatile(                                                    \
            ZP__LOAD6("%[a]")                                                \
            "subq 0(%[b]), %[t0]\n\t"                                        \
            "sbbq 8(%[b]), %[t1]\n\t"                                        \
            "sbbq 16(%[b]), %[t2]\n\t"                                       \
            "sbbq 24(%[b]), %[t3]\n\t"                                       \
            "sbbq 32(%[b]), %[t4]\n\t"                                       \
            "sbbq 40(%[b]), %[t5]\n\t"                                       \
            "sbbq %[b], %[b]\n\t" /* b is dead: k = -borrow */               \
            ZP__STORE6                                                       \
            ZP__MOD6("add", "adc")                                                  \
            "testq %[b], %[b]\n\t"                                           \
            ZP__CMOV6("z")                                                   \
            ZP__STORE6                                                       \
            : [t0] "=&r"(t0_), [t1] "=&r"(t1_), [t2] "=&r"(t2_),             \
              [t3] "=&r"(t3_), [t4] "=&r"(t4_), [t5] "=&r"(t5_),             \
              [b] "+&r"(pb_)                                                 \
            : [out] "r"(out_), [a] "r"(a_), ZP__MOD6_OPERANDS(M)             \
            : "cc", "memory");                                               \
    } while (0)

/* 4-limb versions: here the registers suffice, with a and b reused once
 * read. */
#define ZP__X86_MOD_ADD4(out_, a_, b_, M)                                    \
    do {                                                                     \
        uint64_t t0_, t1_, t2_, t3_, u0_, u1_;                               \
        const uint64_t *pa_ = (a_), *pb_ = (b_);                             \
        __asm__ volatile(                                                    \
            "movq 0(%[a]), %[t0]\n\t"                                        \
            "movq 8(%[a]), %[t1]\n\t"                                        \
            "movq 16(%[a]), %[t2]\n\t"                                       \
            "movq 24(%[a]), %[t3]\n\t"                                       \
            "addq 0(%[b]), %[t0]\n\t"                                        \
            "adcq 8(%[b]), %[t1]\n\t"                                        \
            "adcq 16(%[b]), %[t2]\n\t"                                       \
            "adcq 24(%[b]), %[t3]\n\t"                                       \
            "movq %[t0], %[u0]\n\t"                                          \
            "subq %[m0], %[u0]\n\t"                                          \
            "movq %[t1], %[u1]\n\t"                                          \
            "sbbq %[m1], %[u1]\n\t"                                          \
            "movq %[t2], %[a]\n\t"                                           \
            "sbbq %[m2], %[a]\n\t"                                           \
            "movq %[t3], %[b]\n\t"                                           \
            "sbbq %[m3], %[b]\n\t"                                           \
            "cmovncq %[u0], %[t0]\n\t"                                       \
            "cmovncq %[u1], %[t1]\n\t"                                       \
            "cmovncq %[a], %[t2]\n\t"                                        \
            "cmovncq %[b], %[t3]\n\t"                                        \
            "movq %[t0], 0(%[out])\n\t"                                      \
            "movq %[t1], 8(%[out])\n\t"                                      \
            "movq %[t2], 16(%[out])\n\t"                                     \
            "movq %[t3], 24(%[out])\n\t"                                     \
            : [t0] "=&r"(t0_), [t1] "=&r"(t1_), [t2] "=&r"(t2_),             \
              [t3] "=&r"(t3_), [u0] "=&r"(u0_), [u1] "=&r"(u1_),             \
              [a] "+&r"(pa_), [b] "+&r"(pb_)                                 \
            : [out] "r"(out_), [m0] "m"((M)->m[0]), [m1] "m"((M)->m[1]),     \
              [m2] "m"((M)->m[2]), [m3] "m"((M)->m[3])                       \
            : "cc", "memory");                                               \
    } while (0)

/* The masked modulus words are formed before the addition chain because
 * "and" clears CF. */
#define ZP__X86_MOD_SUB4(out_, a_, b_, M)                                    \
    do {                                                                     \
        uint64_t t0_, t1_, t2_, t3_, u0_, u1_;                               \
        const uint64_t *pa_ = (a_), *pb_ = (b_);                             \
        __asm__ volatile(                                                    \
            "movq 0(%[a]), %[t0]\n\t"                                        \
            "movq 8(%[a]), %[t1]\n\t"                                        \
            "movq 16(%[a]), %[t2]\n\t"                                       \
            "movq 24(%[a]), %[t3]\n\t"                                       \
            "subq 0(%[b]), %[t0]\n\t"                                        \
            "sbbq 8(%[b]), %[t1]\n\t"                                        \
            "sbbq 16(%[b]), %[t2]\n\t"                                       \
            "sbbq 24(%[b]), %[t3]\n\t"                                       \
            "sbbq %[b], %[b]\n\t" /* k = -borrow */                          \
            "movq %[b], %[u0]\n\t"                                           \
            "andq %[m0], %[u0]\n\t"                                          \
            "movq %[b], %[u1]\n\t"                                           \
            "andq %[m1], %[u1]\n\t"                                          \
            "movq %[b], %[a]\n\t"                                            \
            "andq %[m2], %[a]\n\t"                                           \
            "andq %[m3], %[b]\n\t"                                           \
            "addq %[u0], %[t0]\n\t"                                          \
            "adcq %[u1], %[t1]\n\t"                                          \
            "adcq %[a], %[t2]\n\t"                                           \
            "adcq %[b], %[t3]\n\t"                                           \
            "movq %[t0], 0(%[out])\n\t"                                      \
            "movq %[t1], 8(%[out])\n\t"                                      \
            "movq %[t2], 16(%[out])\n\t"                                     \
            "movq %[t3], 24(%[out])\n\t"                                     \
            : [t0] "=&r"(t0_), [t1] "=&r"(t1_), [t2] "=&r"(t2_),             \
              [t3] "=&r"(t3_), [u0] "=&r"(u0_), [u1] "=&r"(u1_),             \
              [a] "+&r"(pa_), [b] "+&r"(pb_)                                 \
            : [out] "r"(out_), [m0] "m"((M)->m[0]), [m1] "m"((M)->m[1]),     \
              [m2] "m"((M)->m[2]), [m3] "m"((M)->m[3])                       \
            : "cc", "memory");                                               \
    } while (0)

#endif /* x86-64 */
#endif
