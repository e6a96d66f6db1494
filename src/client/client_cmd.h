/* What the client subcommands (src/cli/client.c) and `zkpipe bench batch
 * --addr` share: common options, calls, reading answers, and the
 * operations themselves (client_ops.c, client_await.c, client_status.c). */
#ifndef ZP_CLIENT_CMD_H
#define ZP_CLIENT_CMD_H

#include <stdbool.h>

#include "client/client.h"
#include "io/io.h"

#define ZP__CLIENT_DEFAULT_ADDR "unix:///run/zkpipe.sock"

#define ZP__CLIENT_COMMON_HELP                                                                   \
    "\n"                                                                                         \
    "  --addr A           the daemon: unix:///path or http://host:port\n"                      \
    "                     (default $ZKPIPE_ADDR, else " ZP__CLIENT_DEFAULT_ADDR ")\n"           \
    "  --token T          bearer token (default $ZKPIPE_TOKEN)\n"                              \
    "  --token-file F     read the token from F\n"                                              \
    "  --io-timeout S     give up on a silent connection after S seconds (default 60)\n"

/* Options every client command takes. */
typedef struct zp__copts {
    const char *addr;
    char token[512];
    double io_timeout_s;
    bool json;
} zp__copts;

/* Defaults before the flags: addr (NULL or empty: ZP__CLIENT_DEFAULT_ADDR)
 * and token (NULL: none), which the CLI takes from the user's environment. */
void zp__copts_init(zp__copts *o, const char *addr, const char *token);
/* Consumes argv[*i] (and its value) when it is a common option: 1; not one:
 * 0; a bad one (message printed): -1. */
int zp__copts_take(zp__copts *o, int argc, char **argv, int *i);

/* One request to the daemon named by o; prints transport errors itself
 * (prefixed by cmd) and returns false for them. */
bool zp__client_call(zp__http_resp *out, const zp__copts *o, const char *cmd, const char *method,
                     const char *target, const zp__http_body *body, double wait_s);
/* Prints an error answer {"error","message"} (or the raw body) for cmd. */
void zp__client_print_error(const char *cmd, const zp__http_resp *r);
/* Parses an answer's JSON body; NULL root (message printed) when it is not JSON. */
bool zp__client_json(zp__json *doc, const char *cmd, const zp__http_resp *r);
/* A string member, or NULL. */
const char *zp__jstr(const zp__jval *o, const char *k);

typedef struct zp__submit_args {
    const char *key, *witness_file, *witness_path, *synth, *priority, *id, *partitions;
} zp__submit_args;

typedef struct zp__await_args {
    const char *id, *out, *public_out;
    double timeout_s; /* < 0: forever */
} zp__await_args;

int zp__client_submit(const zp__copts *o, const zp__submit_args *a);
int zp__client_await(const zp__copts *o, const zp__await_args *a);
int zp__client_cancel(const zp__copts *o, const char *id);
int zp__client_status(const zp__copts *o);

#endif
