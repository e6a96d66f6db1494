/*
 * zkpipe submit | await | cancel | status | request: the daemon's clients.
 * They parse their arguments here and call src/client/, which speaks
 * HTTP/1.1 (client_http.c) and reads answers with the library's strict JSON
 * parser, so they work in builds without the daemon.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "client/client.h"
#include "client/client_cmd.h"
#include "io/io.h"

static const char submit_help[] =
    "usage: zkpipe submit --key NAME (--witness FILE | --witness-path PATH | --synth SEED) [options]\n"
    "\n"
    "Queues a proving job on a running 'zkpipe serve' and prints its id.\n"
    "\n"
    "  --witness FILE     upload this .wtns (one witness for every partition)\n"
    "  --witness-path P   let the daemon read P itself (a path on the daemon's host)\n"
    "  --synth SEED       a synthetic witness from SEED (keys of the form synth:NAME:LOG2)\n"
    "  --priority P       critical, high, normal (default) or low\n"
    "  --id ID            your own job id; the same id with the same request is the same job\n"
    "  --partitions N     proofs in the job, default 1\n"
    "  --json             print the daemon's JSON answer instead of the id\n" ZP__CLIENT_COMMON_HELP;

/* The client commands' defaults: $ZKPIPE_ADDR and $ZKPIPE_TOKEN, user
 * settings read here and nowhere below the CLI. */
static void copts_from_env(zp__copts *o)
{
    zp__copts_init(o, getenv("ZKPIPE_ADDR"), getenv("ZKPIPE_TOKEN"));
}

int zp__cmd_submit(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, submit_help))
        return 0;
    zp__copts o;
    copts_from_env(&o);
    const char *key = NULL, *wfile = NULL, *wpath = NULL, *synth = NULL, *prio = NULL, *id = NULL,
               *parts = NULL;
    for (int i = 1; i < argc; i++) {
        int k = zp__copts_take(&o, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k > 0)
            continue;
        const char **dst = !strcmp(argv[i], "--key")            ? &key
                           : !strcmp(argv[i], "--witness")      ? &wfile
                           : !strcmp(argv[i], "--witness-path") ? &wpath
                           : !strcmp(argv[i], "--synth")        ? &synth
                           : !strcmp(argv[i], "--priority")     ? &prio
                           : !strcmp(argv[i], "--id")           ? &id
                           : !strcmp(argv[i], "--partitions")   ? &parts
                                                                : NULL;
        if (!dst || i + 1 >= argc) {
            fprintf(stderr, "zkpipe submit: %s '%s'\n%s", dst ? "missing value after" : "unknown option",
                    argv[i], submit_help);
            return 2;
        }
        *dst = argv[++i];
    }
    if (!key || !!wfile + !!wpath + !!synth != 1) {
        fprintf(stderr, "zkpipe submit: need --key and exactly one of --witness, --witness-path, --synth\n");
        return 2;
    }
    zp__submit_args sa = {.key = key, .witness_file = wfile, .witness_path = wpath, .synth = synth,
                          .priority = prio, .id = id, .partitions = parts};
    return zp__client_submit(&o, &sa);
}

static const char await_help[] =
    "usage: zkpipe await ID [-o proof.bin] [--public public.json] [--timeout S] [options]\n"
    "\n"
    "Waits for a job and writes its proof: partitions x 192 bytes, each A||B||C\n"
    "compressed (bellperson's layout). Without -o the daemon's JSON is printed.\n"
    "Exit status: 0 done, 1 failed or cancelled (or an error), 3 still unfinished\n"
    "when --timeout ran out.\n"
    "\n"
    "  -o FILE            write the proof bytes to FILE\n"
    "  --public FILE      write the public inputs as JSON (decimal strings)\n"
    "  --timeout S        give up after S seconds (default: wait as long as it takes)\n" ZP__CLIENT_COMMON_HELP;

int zp__cmd_await(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, await_help))
        return 0;
    zp__copts o;
    copts_from_env(&o);
    zp__await_args aa = {.timeout_s = -1};
    for (int i = 1; i < argc; i++) {
        int k = zp__copts_take(&o, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k > 0)
            continue;
        bool val = i + 1 < argc;
        if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && val)
            aa.out = argv[++i];
        else if (!strcmp(argv[i], "--public") && val)
            aa.public_out = argv[++i];
        else if (!strcmp(argv[i], "--timeout") && val)
            aa.timeout_s = atof(argv[++i]);
        else if (argv[i][0] != '-' && !aa.id)
            aa.id = argv[i];
        else {
            fprintf(stderr, "zkpipe await: bad argument '%s'\n%s", argv[i], await_help);
            return 2;
        }
    }
    if (!aa.id) {
        fprintf(stderr, "zkpipe await: which job? (an id printed by zkpipe submit)\n");
        return 2;
    }
    return zp__client_await(&o, &aa);
}

static const char cancel_help[] =
    "usage: zkpipe cancel ID [options]\n"
    "\n"
    "Cancels a job: its queued partitions are dropped, running ones discarded.\n" ZP__CLIENT_COMMON_HELP;

int zp__cmd_cancel(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, cancel_help))
        return 0;
    zp__copts o;
    copts_from_env(&o);
    const char *id = NULL;
    for (int i = 1; i < argc; i++) {
        int k = zp__copts_take(&o, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k == 0 && argv[i][0] != '-' && !id) {
            id = argv[i];
        } else if (k == 0) {
            fprintf(stderr, "zkpipe cancel: bad argument '%s'\n%s", argv[i], cancel_help);
            return 2;
        }
    }
    if (!id) {
        fprintf(stderr, "zkpipe cancel: which job?\n");
        return 2;
    }
    return zp__client_cancel(&o, id);
}

static const char status_help[] =
    "usage: zkpipe status [--json] [options]\n"
    "\n"
    "Queues, workers and keys of a running daemon.\n"
    "  --json             print the daemon's JSON (GET /v1/status and /v1/keys)\n" ZP__CLIENT_COMMON_HELP;

int zp__cmd_status(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, status_help))
        return 0;
    zp__copts o;
    copts_from_env(&o);
    for (int i = 1; i < argc; i++) {
        int k = zp__copts_take(&o, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k == 0) {
            fprintf(stderr, "zkpipe status: bad argument '%s'\n%s", argv[i], status_help);
            return 2;
        }
    }
    return zp__client_status(&o);
}

static const char request_help[] =
    "usage: zkpipe request METHOD PATH [--data TEXT | --data-file FILE] [options]\n"
    "\n"
    "Sends one request to the daemon and prints the answer's body (for scripts\n"
    "and debugging; e.g. 'zkpipe request GET /metrics'). Exit status: 0 for a\n"
    "2xx answer, 1 for any other answer, 3 when no answer came.\n"
    "\n"
    "  --data TEXT        the body (Content-Type application/json unless --type)\n"
    "  --data-file FILE   the body from a file (application/octet-stream unless --type)\n"
    "  --type T           the body's Content-Type\n"
    "  --chunked          send the body with Transfer-Encoding: chunked\n"
    "  -i                 print the HTTP status code on a line of its own first\n" ZP__CLIENT_COMMON_HELP;

int zp__cmd_request(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, request_help))
        return 0;
    zp__copts o;
    copts_from_env(&o);
    const char *pos[2] = {0}, *data = NULL, *file = NULL, *type = NULL;
    bool chunked = false, show = false;
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        int k = zp__copts_take(&o, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k > 0)
            continue;
        bool val = i + 1 < argc;
        if (!strcmp(argv[i], "--data") && val)
            data = argv[++i];
        else if (!strcmp(argv[i], "--data-file") && val)
            file = argv[++i];
        else if (!strcmp(argv[i], "--type") && val)
            type = argv[++i];
        else if (!strcmp(argv[i], "--chunked"))
            chunked = true;
        else if (!strcmp(argv[i], "-i"))
            show = true;
        else if (argv[i][0] != '-' && npos < 2)
            pos[npos++] = argv[i];
        else {
            fprintf(stderr, "zkpipe request: bad argument '%s'\n%s", argv[i], request_help);
            return 2;
        }
    }
    if (npos != 2 || (data && file)) {
        fprintf(stderr, "%s", request_help);
        return 2;
    }
    zp__http_body body = {.fd = -1, .chunked = chunked};
    if (data) {
        body.data = data;
        body.len = strlen(data);
        body.ctype = type ? type : "application/json";
    } else if (file) {
        struct stat st;
        zp__ioerr why = {""};
        if (zp__file_open(&body.fd, &st, file, UINT64_MAX, &why)) {
            fprintf(stderr, "zkpipe: %s\n", why.msg);
            return 2;
        }
        body.len = (size_t)st.st_size;
        body.ctype = type ? type : "application/octet-stream";
    }
    zp__http_resp r;
    bool ok = zp__client_call(&r, &o, "request", pos[0], pos[1], data || file ? &body : NULL, 0);
    if (body.fd >= 0)
        close(body.fd);
    if (!ok)
        return 3;
    if (show)
        printf("%d\n", r.status);
    fwrite(r.body, 1, r.len, stdout);
    if (r.len && r.body[r.len - 1] != '\n')
        putchar('\n');
    int rc = r.status / 100 == 2 ? 0 : 1;
    zp__http_resp_free(&r);
    return rc;
}
