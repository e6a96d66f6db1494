/*
 * What every subcommand of the zkpipe program does the same way, whether
 * it lives in the CLI (src/cli/) or in the benchmark drivers (src/bench/):
 * answering --help, and printing a failure as one line.
 */
#ifndef ZP_TOOL_CMDLINE_H
#define ZP_TOOL_CMDLINE_H

#include <stdbool.h>

#include "io/io.h"
#include "zkpipe.h"

/* True when argv holds --help or -h; prints help to stdout then. */
bool zp__cli_wants_help(int argc, char **argv, const char *help);

/* Prints "zkpipe CMD: WHAT: why-or-strerror (ZP_E_NAME)" to stderr and
 * returns 2 (why may be NULL). */
int zp__cli_fail(const char *cmd, const char *what, zp_err e, const zp__ioerr *why);

#endif
