/* --help and the one-line failure (cmdline.h). */
#include <stdio.h>
#include <string.h>

#include "tool/cmdline.h"

bool zp__cli_wants_help(int argc, char **argv, const char *help)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(help, stdout);
            return true;
        }
    }
    return false;
}

int zp__cli_fail(const char *cmd, const char *what, zp_err e, const zp__ioerr *why)
{
    fprintf(stderr, "zkpipe %s: %s: %s (%s)\n", cmd, what,
            why && why->msg[0] ? why->msg : zp_strerror(e), zp_errname(e));
    return 2;
}
