/* Subcommands of the zkpipe CLI. Each returns the process exit status. */
#ifndef ZP_CLI_H
#define ZP_CLI_H

#include <stdint.h>

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
/* zp_engine_config.key_progress of the daemon: key.progress log events
 * (serve_progress.c). */
void zp__serve_key_progress(void *ctx, const char *key, const char *step, uint64_t done,
                            uint64_t total);
int zp__cmd_await(int argc, char **argv);
int zp__cmd_cancel(int argc, char **argv);
int zp__cmd_status(int argc, char **argv);
int zp__cmd_request(int argc, char **argv);
int zp__cmd_prove(int argc, char **argv);
int zp__cmd_verify(int argc, char **argv);
int zp__cmd_setup(int argc, char **argv);
int zp__cmd_witness(int argc, char **argv);

/*
 * The daemon's config file (config.c): `key = value` lines, `#` comment
 * lines and blank lines; see docs/engine.md for the format.
 */
#include <stdbool.h>
#include <stddef.h>

#define ZP__CFG_LINE_MAX 4096
#define ZP__CFG_FILE_MAX (1u << 20)

enum { ZP__CFG_BLANK, ZP__CFG_ENTRY, ZP__CFG_BAD };

/* Parses one line (NUL-terminated, without its newline) in place. Returns
 * ZP__CFG_ENTRY with key and value pointing into line, ZP__CFG_BLANK for a
 * blank or comment line, or ZP__CFG_BAD with why set to the reason. */
int zp__cfg_parse_line(char *line, const char **key, const char **value, const char **why);

/* The config file `zkpipe serve` reads when no --config is given, if it
 * exists. */
#define ZP__CFG_DEFAULT "/etc/zkpipe/zkpipe.conf"

typedef struct zp__cfg_entry {
    const char *key, *value;
    int line;
} zp__cfg_entry;

typedef struct zp__cfg {
    const char *path;
    unsigned mode; /* the file's permission bits */
    char *text;
    zp__cfg_entry *entries;
    size_t n;
} zp__cfg;

/* Reads and parses path; on failure why holds "FILE:LINE: reason" (or the
 * reason the file cannot be read) and nothing is left to free. */
bool zp__cfg_load(zp__cfg *c, const char *path, char *why, size_t cap);
void zp__cfg_free(zp__cfg *c);

#endif
