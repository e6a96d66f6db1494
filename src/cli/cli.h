/* Subcommands of the zkpipe CLI. Each returns the process exit status. */
#ifndef ZP_CLI_H
#define ZP_CLI_H

#include "tool/cmdline.h"

struct zp__cli_cmd {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
};

/* Terminated by an entry with name NULL; defined in commands.c. */
extern const struct zp__cli_cmd zp__cli_cmds[];

int zp__cmd_selftest(int argc, char **argv);
int zp__cmd_version(int argc, char **argv);
/* Whether this machine can prove, and how a key fits its GPUs (doctor.c). */
int zp__cmd_doctor(int argc, char **argv);
/* Engine traces drawn as a Gantt chart (trace_svg.c). */
int zp__cmd_trace(int argc, char **argv);
int zp__cmd_import(int argc, char **argv);
/* The daemon and its clients (serve.c, client.c). */
int zp__cmd_serve(int argc, char **argv);
int zp__cmd_submit(int argc, char **argv);
int zp__cmd_await(int argc, char **argv);
int zp__cmd_cancel(int argc, char **argv);
int zp__cmd_status(int argc, char **argv);
int zp__cmd_request(int argc, char **argv);
int zp__cmd_prove(int argc, char **argv);
int zp__cmd_verify(int argc, char **argv);
int zp__cmd_setup(int argc, char **argv);
int zp__cmd_witness(int argc, char **argv);

#endif
