/*
 * --tune NAME=VALUE (repeatable): the CLI's form of the library's tuning,
 * the fields of zp_gpu_tuning (zkpipe.h) and the CPU's IFMA switch
 * (zp_cpu_set_ifma). Names as the fields:
 *   ntt_twist=on|off      zp_gpu_tuning.ntt_twist
 *   h_table=auto|off|C    zp_gpu_tuning.h_table (C: 2..22)
 *   ring_share=on|off     zp_gpu_tuning.ring_share
 *   cpu_ifma=auto|off     zp_cpu_set_ifma(false) for off
 */
#ifndef ZP_TOOL_TUNE_H
#define ZP_TOOL_TUNE_H

#include <stdbool.h>
#include <stddef.h>

#include "zkpipe.h"

/* Which names a command takes. */
#define ZP__TUNE_GPU 1u /* ntt_twist, h_table, ring_share */
#define ZP__TUNE_CPU 2u /* cpu_ifma */

typedef struct zp__cli_tune {
    zp_gpu_tuning gpu;
    bool cpu_ifma; /* false: the CPU's IFMA kernels off */
} zp__cli_tune;

/* The library's defaults. */
void zp__cli_tune_default(zp__cli_tune *t);
/* One NAME=VALUE (arg) of the names in `which` into t: 0, or 2 after a
 * message on stderr that names the command cmd and the bad name or value. */
int zp__cli_tune_parse(zp__cli_tune *t, unsigned which, const char *cmd, const char *arg);
/* Applies the process-wide part (cpu_ifma); before any key is loaded. */
void zp__cli_tune_apply(const zp__cli_tune *t);
/* "ntt_twist=on h_table=auto ring_share=off cpu_ifma=auto" into buf (cut to fit n). */
void zp__cli_tune_describe(char *buf, size_t n, const zp__cli_tune *t);

/* Help lines, in the commands' option column. */
#define ZP__CLI_TUNE_HELP_HEAD                                                                  \
    "  --tune NAME=VALUE   memory or CPU features against speed (repeatable):\n"
#define ZP__CLI_TUNE_HELP_GPU                                                                   \
    "                        ntt_twist=on|off    a key on a GPU keeps its domain's NTT\n"     \
    "                                            twist tables (default on; 8 GiB at 2^27)\n"  \
    "                        h_table=auto|off|C  a key on a GPU keeps a table of its H\n"     \
    "                                            points for C-bit windows, 2..22 (default\n" \
    "                                            auto: by size, for keys kept for many\n"    \
    "                                            proofs)\n"                                 \
    "                        ring_share=on|off   a key that streams gives its slots one\n"   \
    "                                            stream of its points where two working\n"  \
    "                                            sets fit (default off)\n"
#define ZP__CLI_TUNE_HELP_CPU                                                                   \
    "                        cpu_ifma=auto|off   the CPU code's AVX-512 IFMA kernels\n"       \
    "                                            (default auto: where the CPU has them)\n"

#endif
