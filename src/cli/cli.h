/* Subcommands of the zkpipe CLI. Each returns the process exit status. */
#ifndef ZP_CLI_H
#define ZP_CLI_H

#include <stdbool.h>

struct zp__cli_cmd {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
};

/* Terminated by an entry with name NULL; defined in commands.c. */
extern const struct zp__cli_cmd zp__cli_cmds[];

/* True when argv holds --help or -h; prints help to stdout then. */
bool zp__cli_wants_help(int argc, char **argv, const char *help);

int zp__cmd_selftest(int argc, char **argv);
int zp__cmd_bench(int argc, char **argv);
int zp__cmd_version(int argc, char **argv);
/* Engine traces and the batch benchmark (trace_svg.c, bench_batch.c). */
int zp__cmd_trace(int argc, char **argv);
int zp__bench_batch(int argc, char **argv);
/* GPU-or-CPU NTT and MSM benchmarks (bench_gpu.c). */
int zp__bench_ntt(int argc, char **argv);
int zp__bench_msm(int argc, char **argv);
int zp__bench_field(int argc, char **argv);
/* Two kinds of GPU work alone and sharing the GPU (bench_corun.c). */
int zp__bench_corun(int argc, char **argv);
int zp__cmd_import(int argc, char **argv);
/* The daemon and its clients (serve.c, client*.c). */
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
/* The whole-proof benchmark (bench_prove.c). */
int zp__bench_prove(int argc, char **argv);
/* The verifier's plain and prepared ways (bench_verify.c). */
int zp__bench_verify(int argc, char **argv);

#endif
