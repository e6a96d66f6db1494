/*
 * The settings of `zkpipe serve` (serve_opts.c): the flags, the config
 * file they override, the token, and the settings printed back as a
 * config file (--print-config, and SIGHUP's comparison). Daemon builds
 * only (ZP_HAVE_SERVER).
 */
#ifndef ZP_CLI_SERVE_OPTS_H
#define ZP_CLI_SERVE_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "base/log.h"
#include "cli/cli.h"
#include "cli/serve_queue.h"
#include "server/server.h"
#include "tool/tune.h"
#include "zkpipe.h"

#define MAX_KEYS 64
#define MAX_TUNES 32

struct serve_opts {
    zp__srv_config srv;
    zp_engine_config eng;
    zp__fleet_config queue; /* queue.url NULL: the in-process queue */
    zp__cli_tune tune;
    const char *keys[MAX_KEYS];
    int n_keys;
    const char *tunes[MAX_TUNES]; /* as given, for --print-config */
    int n_tunes;
    char token[512];
    const char *token_file; /* read once every setting is in */
    int token_file_line;    /* its line in the config file, or 0 */
    bool lazy, allow_path, timeline, workers_set;
    zp__log_level log_level;
    zp__log_format log_format;
    bool flag_keys;     /* a --key flag replaced the file's keys */
    bool print_config;  /* --print-config */
    const char *config; /* --config FILE, or NULL */
    bool no_config;     /* --no-config */
    zp__cfg cfg;        /* the file read; values point into it */
    int cfg_line;       /* while applying the file: its line, else 0 */
    const char *cfg_key;
};

/* Prints "zkpipe serve: MSG ARG" and a hint to --help; returns 2. */
int zp__serve_usage_error(const char *msg, const char *arg);
/* The config file (unless --no-config), then the flags over it, into o
 * (zeroed by the caller); the token file read last. 0, or the exit
 * status of a usage error (printed). */
int zp__serve_parse_args(struct serve_opts *o, int argc, char **argv);
/* o's settings as a config file. */
void zp__serve_print_config(FILE *f, const struct serve_opts *o);
/* Only names that cannot leave the host count as loopback: 127.0.0.0/8,
 * ::1 and localhost. */
bool zp__serve_loopback_host(const char *h);

#endif
