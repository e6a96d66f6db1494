/* zkpipe version */
#include <stdio.h>

#include "cli/cli.h"
#include "gpu/gpu.h"

int zp__cmd_version(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, "usage: zkpipe version\n"))
        return 0;
    int n = zp__gpu_count();
    printf("zkpipe 0.1.0\nCUDA backend: %s\n",
           zp__gpu_compiled() ? "compiled" : "not compiled");
    if (zp__gpu_compiled())
        printf("CUDA architectures: %s\n", zp__gpu_archs());
    printf("GPUs visible: %d\n", n);
    /* Each GPU with how it runs this build, or why it is refused. */
    for (int d = 0; d < n; d++) {
        char line[512];
        zp_err e = zp__gpu_device_check(d, line, sizeof line);
        if (e == ZP_OK || e == ZP_E_UNSUPPORTED)
            printf("  %s\n", line);
        else
            printf("  GPU %d: cannot be asked: %s (%s)\n", d, zp_strerror(e),
                   zp__gpu_last_error());
    }
    return 0;
}
