/* zkpipe version */
#include <stdio.h>

#include "cli/cli.h"
#include "gpu/gpu.h"

int zp__cmd_version(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, "usage: zkpipe version\n"))
        return 0;
    printf("zkpipe 0.1.0\nCUDA backend: %s\nGPUs visible: %d\n",
           zp__gpu_compiled() ? "compiled" : "not compiled", zp__gpu_count());
    return 0;
}
