/*
 * Field micro-benchmark for callgrind: runs one operation N times on values
 * that keep changing, so bench/field_callgrind.sh can take the instruction
 * count of two runs with different N and divide the difference by the
 * difference of N (setup and process start cancel out).
 * Usage: field_ops OP N [fast|portable]
 *   OP: fp_mul fp_sqr fr_mul fr_sqr fp_add fp_sub fp_inv fr_inv fp_sqrt
 *       fp_legendre g1_add g2_add pairing fp_inv_vartime fr_inv_vartime
 *   fast forces the x86 BMI2/ADX kernels on (valgrind's CPUID hides ADX
 *   although it executes it), portable forces them off; default: CPUID.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkpipe.h"
#if __has_include("math/mont_x86.h") /* absent before the x86 kernels */
#include "math/field.h"
#include "math/mont_x86.h"
#define HAVE_VARTIME 1
#endif

static zp_fp fa, fb;
static zp_fr ra, rb;

static void setup(void)
{
    zp_fp_from_u64(&fa, 0x1234567);
    zp_fp_from_u64(&fb, 0x89abcdef);
    zp_fp_inv(&fb, &fb); /* full-width values */
    zp_fp_inv(&fa, &fa);
    zp_fr_from_u64(&ra, 0x1234567);
    zp_fr_from_u64(&rb, 0x89abcdef);
    zp_fr_inv(&rb, &rb);
    zp_fr_inv(&ra, &ra);
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: field_ops OP N [fast|portable]\n");
        return 2;
    }
#ifdef ZP__X86_ASM
    if (argc == 4)
        zp__x86_set_fast(!strcmp(argv[3], "fast"), true);
#endif
    const char *op = argv[1];
    long n = strtol(argv[2], NULL, 10);
    setup();
    zp_g1_jac j1, j2;
    zp_g2_jac k1, k2;
    zp_g1_affine g;
    zp_g2_affine h;
    zp_fp12 e;
    zp_g1_generator(&g);
    zp_g2_generator(&h);
    zp_g1_jac_from_affine(&j1, &g);
    zp_g1_jac_dbl(&j2, &j1);
    zp_g2_jac_from_affine(&k1, &h);
    zp_g2_jac_dbl(&k2, &k1);
    static const char *const names[] = {"fp_mul", "fp_sqr", "fr_mul", "fr_sqr", "fp_add",
                                        "fp_sub", "fp_inv", "fr_inv", "fp_sqrt",
                                        "fp_legendre", "g1_add", "g2_add", "pairing",
                                        "fp_inv_vartime", "fr_inv_vartime"};
    int k = -1;
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcmp(op, names[i]))
            k = i;
    if (k < 0) {
        fprintf(stderr, "unknown op %s\n", op);
        return 2;
    }
    int acc = 0;
    for (long i = 0; i < n; i++) {
        switch (k) {
        case 0: zp_fp_mul(&fa, &fa, &fb); break;
        case 1: zp_fp_sqr(&fa, &fa); break;
        case 2: zp_fr_mul(&ra, &ra, &rb); break;
        case 3: zp_fr_sqr(&ra, &ra); break;
        case 4: zp_fp_add(&fa, &fa, &fb); break;
        case 5: zp_fp_sub(&fa, &fa, &fb); break;
        case 6: zp_fp_inv(&fa, &fa); zp_fp_add(&fa, &fa, &fb); break;
        case 7: zp_fr_inv(&ra, &ra); zp_fr_add(&ra, &ra, &rb); break;
        case 8: acc += zp_fp_sqrt(&fb, &fa); zp_fp_add(&fa, &fa, &fb); break;
        case 9: acc += zp_fp_legendre(&fa); zp_fp_add(&fa, &fa, &fb); break;
        case 10: zp_g1_jac_add(&j1, &j1, &j2); break;
        case 11: zp_g2_jac_add(&k1, &k1, &k2); break;
        case 12: zp_pairing(&e, &g, &h); break;
#ifdef HAVE_VARTIME
        case 13: zp__fp_inv_vartime(&fa, &fa); zp_fp_add(&fa, &fa, &fb); break;
        case 14: zp__fr_inv_vartime(&ra, &ra); zp_fr_add(&ra, &ra, &rb); break;
#endif
        default: fprintf(stderr, "%s: not in this build\n", op); return 2;
        }
    }
    /* Print something that depends on every result so nothing is elided. */
    printf("%s %ld %016llx %016llx %d\n", op, n, (unsigned long long)fa.l[0],
           (unsigned long long)ra.l[0], acc);
    return 0;
}
