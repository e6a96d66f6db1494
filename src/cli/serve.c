/*
 * zkpipe serve: the daemon. Opens an engine, registers (and by default
 * loads) the keys, serves HTTP until SIGTERM or SIGINT, then drains: no new
 * connections or jobs, unfinished jobs get --grace seconds, the rest are
 * cancelled, and the process exits 0. Settings come from a config file
 * (config.c) and then the flags; SIGHUP reads both again and adds new keys.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "cli/cli.h"
#include "cli/serve_queue.h"
#include "gpu/gpu.h"
#include "io/io.h"
#include "tool/timing.h"
#include "tool/tune.h"
#include "zkpipe.h"
#ifdef ZP_HAVE_SERVER
#include "server/server.h"
#endif

/* The config file read when no --config is given, if it exists. */
#define ZP__CFG_DEFAULT "/etc/zkpipe/zkpipe.conf"

static const char serve_help[] =
    "usage: zkpipe serve --listen ADDR --key NAME=SOURCE... [options]\n"
    "       zkpipe serve --config FILE [options]\n"
    "       zkpipe serve --print-config [--config FILE] [options]\n"
    "\n"
    "Keeps proving keys loaded and proves jobs sent over HTTP/1.1 + JSON\n"
    "(routes: POST /v1/jobs, GET|DELETE /v1/jobs/{id}, GET /v1/status,\n"
    "GET /v1/keys, POST /v1/keys/{name}/preload|evict, GET /metrics, GET /healthz).\n"
    "\n"
    "  --config FILE        read settings from FILE first: `key = value` lines with\n"
    "                       the option names below without '--' (repeat `key = ...`\n"
    "                       for more keys); options given here override them, and\n"
    "                       --key options replace all of the file's keys. Without\n"
    "                       it, " ZP__CFG_DEFAULT " is read when it exists\n"
    "  --no-config          read no config file, not even the default one\n"
    "  --print-config       print the effective settings as a config file (the token\n"
    "                       redacted) and exit 0 without starting the daemon\n"
    "  --listen ADDR        unix:///path/to.sock (mode 0600) or tcp://host:port\n"
    "                       (port 0 picks one; TCP needs a token)\n"
    "  --key NAME=SOURCE    a key: a .zpk or .zkey path, or synth:NAME:LOG2 (test only);\n"
    "                       repeat for more keys\n"
    "  --token T            require 'Authorization: Bearer T' on every request\n"
    "  --token-file F       the same, with the token read from F (not visible in ps)\n"
    "  --workers N          CPU proving workers (default 1, or 0 with --gpus)\n"
    "  --threads N          threads per CPU worker (default: the CPUs shared out)\n"
    "  --gpus N|all         prove on the first N GPUs, or all (default none)\n"
    "  --slots K            partition slots per GPU (default 2; fewer are admitted\n"
    "                       when the GPU's memory cannot hold K working sets)\n"
    "  --gpu-mem BYTES      each GPU's arena (default: its free memory less a reserve)\n"
    "  --pinned-keys BYTES  page-lock up to this much of the loaded keys' host memory\n"
    "                       for fast uploads to the GPUs (default 0: none)\n"
    "  --max-queued N       partitions waiting over all jobs before submits get 429\n"
    "                       (default 1024)\n"
    "  --key-budget BYTES   host memory for loaded keys; least recently used unpinned\n"
    "                       keys are unloaded to stay within it (default: no limit)\n"
    "  --max-body BYTES     largest witness upload (default 1G; K, M, G suffixes)\n"
    "  --max-json BYTES     largest JSON body (default 1M)\n"
    "  --max-conns N        connections at once (default 64)\n"
    "  --reserved-conns N   of those, slots that connections without an authenticated\n"
    "                       request never take (default max-conns/4); past max-conns\n"
    "                       less N, a new connection evicts the oldest such one\n"
    "  --max-conns-per-peer N  connections without an authenticated request from\n"
    "                       one address (an IPv6 /64; on a unix socket, one uid); a\n"
    "                       new one past N evicts that peer's oldest (default 16;\n"
    "                       0: no cap)\n"
    "  --header-timeout S   a connection without an authenticated request is closed S\n"
    "                       seconds after it opened (default 10)\n"
    "                       (these three apply only with a token: without one every\n"
    "                       connection counts as authenticated)\n"
    "  --idle-timeout S     an idle connection is closed after S s (default 120)\n"
    "  --body-budget BYTES  request bodies in flight, all together; one past it gets\n"
    "                       503 with Retry-After (default max(1G, --max-body))\n"
    "  --max-wait S         longest long-poll of GET /v1/jobs/{id}?wait= (default 600)\n"
    "  --grace S            on SIGTERM, how long unfinished jobs may still run before\n"
    "                       they are cancelled (default 30)\n"
    "  --state-dir DIR      journal every accepted job and every result in DIR (made\n"
    "                       when missing), fsynced before the client hears of it:\n"
    "                       after a crash a daemon started on DIR runs the unfinished\n"
    "                       jobs again and still serves the finished ones; uploads\n"
    "                       are spooled to DIR instead of memory. Without it jobs\n"
    "                       live in memory only (a crash or restart loses them).\n"
    "                       Ignored with --queue (the fleet's queue is durable itself)\n"
    "  --lazy-keys          load keys on first use instead of at start\n"
    "  --allow-witness-path let TCP clients name witness files on this host (always\n"
    "                       allowed on a unix socket)\n"
    "  --timeline           log TIMELINE,<ms>,<event>,<job>,<partition> lines to stderr\n"
    "  --log-format F       text (default: time level event key=value ...) or json\n"
    "                       (one JSON object per line); docs/engine.md lists the events\n"
    "  --log-level L        error, warn, info (default) or debug (adds a line per job)\n"
    ZP__SERVE_QUEUE_HELP
    ZP__CLI_TUNE_HELP_HEAD ZP__CLI_TUNE_HELP_GPU ZP__CLI_TUNE_HELP_CPU
    "\n"
    "A second SIGTERM or SIGINT during the drain exits at once (status 1).\n"
    "SIGHUP reads the config file and the options again: keys not yet served are\n"
    "added; any other change is logged as needing a restart, and a bad file\n"
    "changes nothing.\n";

#ifndef ZP_HAVE_SERVER

int zp__cmd_serve(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, serve_help))
        return 0;
    fprintf(stderr, "zkpipe serve: this build has no daemon: it was compiled without "
                    "libmicrohttpd and cJSON (install libmicrohttpd-dev and libcjson-dev, "
                    "e.g. with scripts/deps.sh, and rebuild)\n");
    return 1;
}

#else

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

/* "123", "64K", "1M", "2G" (binary multiples), not zero. */
static bool parse_size(uint64_t *out, const char *s)
{
    uint64_t v;
    if (zp__parse_size(s, &v) || v == 0)
        return false;
    *out = v;
    return true;
}

static bool parse_int(int *out, const char *s, int lo, int hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

/* The first line of a token file. A file others may read gets a warning
 * naming its mode: whoever reads it can drive the daemon. */
static bool read_token(char *out, size_t cap, const char *path)
{
    zp__buf b;
    zp__ioerr why = {""};
    int fd;
    struct stat st;
    zp_err e = zp__file_open(&fd, &st, path, 4096, &why);
    if (e) {
        fprintf(stderr, "zkpipe serve: cannot read the token file: %s\n", why.msg);
        return false;
    }
    close(fd);
    if (st.st_mode & (S_IRWXG | S_IRWXO))
        fprintf(stderr, "zkpipe serve: warning: token file %s has mode %04o: others than its "
                        "owner can read it (chmod 600 %s)\n",
                path, (unsigned)(st.st_mode & 07777), path);
    if ((e = zp__file_read(&b, path, 4096, &why))) {
        fprintf(stderr, "zkpipe serve: cannot read the token file: %s\n", why.msg);
        return false;
    }
    /* The buffer is not NUL-terminated: the first line ends at len. */
    size_t n = 0;
    while (n < b.len && b.data[n] != '\r' && b.data[n] != '\n')
        n++;
    /* A NUL would cut the token short of what the file says. */
    if (memchr(b.data, 0, n)) {
        fprintf(stderr, "zkpipe serve: %s: a NUL byte in the token\n", path);
        zp__buf_free(&b);
        return false;
    }
    snprintf(out, cap, "%.*s", (int)n, (const char *)b.data);
    zp__buf_free(&b);
    /* An empty file must not quietly turn authentication off. */
    if (!out[0])
        fprintf(stderr, "zkpipe serve: %s holds no token\n", path);
    return out[0] != 0;
}

/* Shorter tokens are accepted with a warning: tests and local setups use
 * short ones, and refusing them would only push users to --token-file
 * habits no safer. */
#define TOKEN_MIN 16

/* Visible ASCII without spaces: what fits in one header value unquoted. */
static bool token_ok(const char *t)
{
    size_t n = strlen(t);
    for (size_t i = 0; i < n; i++)
        if (t[i] <= ' ' || t[i] > '~')
            return false;
    return n >= 1 && n < 256;
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "zkpipe serve: %s%s%s\n(see zkpipe serve --help)\n", msg, arg ? " " : "", arg ? arg : "");
    return 2;
}

/* A bad value: on the command line a usage error, in the config file
 * FILE:LINE: bad value for KEY: the reason. */
static int opt_error(const struct serve_opts *o, const char *msg, const char *arg)
{
    if (!o->cfg_line)
        return usage_error(msg, arg);
    fprintf(stderr, "zkpipe serve: %s:%d: bad value for %s: %s%s%s\n", o->cfg.path, o->cfg_line,
            o->cfg_key, msg, arg ? " " : "", arg ? arg : "");
    return 2;
}

static int parse_opt(struct serve_opts *o, const char *a, const char *v)
{
    uint64_t size;
    int n;
    const char *msg;
    if ((n = zp__serve_queue_opt(&o->queue, a, v, &msg)) != 1)
        return n ? opt_error(o, msg, v) : 0;
    if (!strcmp(a, "--listen"))
        o->srv.listen = v;
    else if (!strcmp(a, "--state-dir")) {
        if (!*v)
            return opt_error(o, "--state-dir wants a folder, got", "''");
        o->srv.state_dir = v;
    }
    else if (!strcmp(a, "--token")) {
        snprintf(o->token, sizeof o->token, "%s", v);
        o->token_file = NULL;
    } else if (!strcmp(a, "--token-file")) {
        o->token_file = v;
        o->token_file_line = o->cfg_line;
        o->token[0] = 0;
    } else if (!strcmp(a, "--key")) {
        if (!o->cfg_line && !o->flag_keys) {
            o->flag_keys = true;
            o->n_keys = 0;
        }
        if (o->n_keys == MAX_KEYS)
            return opt_error(o, "too many --key options", NULL);
        if (!strchr(v, '=') || v[0] == '=')
            return opt_error(o, "--key wants NAME=SOURCE, got", v);
        o->keys[o->n_keys++] = v;
    } else if (!strcmp(a, "--workers")) {
        if (!parse_int(&o->eng.cpu_workers, v, 0, 1024))
            return opt_error(o, "--workers wants 0..1024, got", v);
        o->workers_set = true;
    } else if (!strcmp(a, "--slots")) {
        if (!parse_int(&o->eng.gpu_slots, v, 1, 64))
            return opt_error(o, "--slots wants 1..64, got", v);
    } else if (!strcmp(a, "--pinned-keys")) {
        if (!parse_size(&o->eng.pinned_key_bytes, v))
            return opt_error(o, "--pinned-keys wants a size like 64G, got", v);
    } else if (!strcmp(a, "--gpu-mem")) {
        if (!parse_size(&o->eng.gpu_mem_bytes, v))
            return opt_error(o, "--gpu-mem wants a size like 100G, got", v);
    } else if (!strcmp(a, "--threads")) {
        if (!parse_int(&o->eng.threads_per_worker, v, 0, 4096))
            return opt_error(o, "--threads wants 0..4096, got", v);
    } else if (!strcmp(a, "--gpus")) {
        if (!strcmp(v, "all"))
            o->eng.gpus = -1;
        else if (!strcmp(v, "none"))
            o->eng.gpus = 0;
        else if (!parse_int(&o->eng.gpus, v, 0, 1024))
            return opt_error(o, "--gpus wants a count, all or none, got", v);
    } else if (!strcmp(a, "--body-budget")) {
        if (!parse_size(&o->srv.body_budget, v))
            return opt_error(o, "--body-budget wants a size like 64K, 1M or 4G, got", v);
    } else if (!strcmp(a, "--reserved-conns")) {
        if (!parse_int(&n, v, 0, 100000))
            return opt_error(o, "--reserved-conns wants 0..100000, got", v);
        o->srv.reserved_conns = (unsigned)n;
    } else if (!strcmp(a, "--max-conns-per-peer")) {
        if (!parse_int(&n, v, 0, 100000))
            return opt_error(o, "--max-conns-per-peer wants 0..100000 (0: no cap), got", v);
        o->srv.max_conns_per_peer = (unsigned)n;
    } else if (!strcmp(a, "--idle-timeout")) {
        if (!parse_int(&n, v, 1, 86400))
            return opt_error(o, "--idle-timeout wants 1..86400 seconds, got", v);
        o->srv.idle_timeout_s = (unsigned)n;
    } else if (!strcmp(a, "--header-timeout")) {
        char *end;
        double t = strtod(v, &end);
        if (end == v || *end || !(t >= 0.1 && t <= 3600))
            return opt_error(o, "--header-timeout wants 0.1..3600 seconds, got", v);
        o->srv.header_timeout_s = t;
    } else if (!strcmp(a, "--max-body") || !strcmp(a, "--max-json")) {
        if (!parse_size(&size, v))
            return opt_error(o, "a size like 65536, 64K, 1M or 1G, got", v);
        if (!strcmp(a, "--max-body"))
            o->srv.max_body = size;
        else
            o->srv.max_json = size;
    } else if (!strcmp(a, "--max-queued")) {
        if (!parse_int(&n, v, 1, 1 << 30))
            return opt_error(o, "--max-queued wants 1..2^30, got", v);
        o->eng.max_queued_partitions = (uint32_t)n;
    } else if (!strcmp(a, "--key-budget")) {
        if (!parse_size(&o->eng.key_budget_bytes, v))
            return opt_error(o, "--key-budget wants a size like 64G, got", v);
    } else if (!strcmp(a, "--max-conns")) {
        if (!parse_int(&n, v, 2, 100000))
            return opt_error(o, "--max-conns wants 2..100000, got", v);
        o->srv.max_conns = (unsigned)n;
    } else if (!strcmp(a, "--tune")) {
        if (o->n_tunes == MAX_TUNES)
            return opt_error(o, "too many --tune options", NULL);
        if (zp__cli_tune_parse(&o->tune, ZP__TUNE_GPU | ZP__TUNE_CPU, "serve", v)) {
            if (o->cfg_line)
                fprintf(stderr, "zkpipe serve: %s:%d: bad value for tune\n", o->cfg.path, o->cfg_line);
            return 2;
        }
        o->tunes[o->n_tunes++] = v;
        o->eng.gpu_tuning = o->tune.gpu;
    } else if (!strcmp(a, "--log-format")) {
        if (!zp__log_format_parse(&o->log_format, v))
            return usage_error("--log-format wants text or json, got", v);
    } else if (!strcmp(a, "--log-level")) {
        if (!zp__log_level_parse(&o->log_level, v))
            return usage_error("--log-level wants error, warn, info or debug, got", v);
    } else if (!strcmp(a, "--max-wait") || !strcmp(a, "--grace")) {
        char *end;
        double s = strtod(v, &end);
        if (end == v || *end || !(s >= 0 && s <= 1e6))
            return opt_error(o, "seconds >= 0, got", v);
        if (!strcmp(a, "--grace"))
            o->srv.grace_s = s;
        else
            o->srv.max_wait_s = s;
    } else if (o->cfg_line) {
        fprintf(stderr, "zkpipe serve: %s:%d: unknown setting '%s'\n", o->cfg.path, o->cfg_line, a + 2);
        return 2;
    } else {
        return usage_error("unknown option", a);
    }
    return 0;
}

/* The flags that choose the config file, before anything else is read. */
static int find_config(struct serve_opts *o, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--config")) {
            if (i + 1 >= argc)
                return usage_error("missing value after", argv[i]);
            o->config = argv[++i];
        } else if (!strcmp(argv[i], "--no-config"))
            o->no_config = true;
        else if (!strcmp(argv[i], "--print-config"))
            o->print_config = true;
    }
    if (o->config && o->no_config)
        return usage_error("--config and --no-config together", NULL);
    return 0;
}

/* yes/no, true/false, on/off, 1/0 for the switches in a config file. */
static bool parse_bool(bool *out, const char *v)
{
    if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1"))
        *out = true;
    else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0"))
        *out = false;
    else
        return false;
    return true;
}

/* Each entry of the file as the flag of the same name, so both take the
 * same values and give the same checks. */
static int apply_config(struct serve_opts *o)
{
    static const char *const cli_only[] = {"config", "no-config", "print-config", "help"};
    for (size_t i = 0; i < o->cfg.n; i++) {
        const zp__cfg_entry *en = &o->cfg.entries[i];
        char flag[64];
        o->cfg_line = en->line;
        o->cfg_key = en->key;
        for (size_t j = 0; j < sizeof cli_only / sizeof *cli_only; j++)
            if (!strcmp(en->key, cli_only[j])) {
                fprintf(stderr, "zkpipe serve: %s:%d: '%s' is a command-line option only\n",
                        o->cfg.path, en->line, en->key);
                return 2;
            }
        bool *sw = !strcmp(en->key, "lazy-keys")            ? &o->lazy
                   : !strcmp(en->key, "allow-witness-path") ? &o->allow_path
                   : !strcmp(en->key, "timeline")           ? &o->timeline
                                                            : NULL;
        int rc = 0;
        if (sw) {
            if (!parse_bool(sw, en->value))
                rc = opt_error(o, "yes or no, got", en->value);
        } else if (strlen(en->key) + 3 > sizeof flag) {
            fprintf(stderr, "zkpipe serve: %s:%d: unknown setting '%s'\n", o->cfg.path, en->line, en->key);
            rc = 2;
        } else {
            snprintf(flag, sizeof flag, "--%s", en->key);
            rc = parse_opt(o, flag, en->value);
        }
        if (rc)
            return rc;
        /* A literal token in a file others may read is as exposed as a
         * token file they may read. */
        if (!strcmp(en->key, "token") && (o->cfg.mode & (S_IRWXG | S_IRWXO)))
            fprintf(stderr, "zkpipe serve: warning: config file %s has mode %04o and holds a token: "
                            "others than its owner can read it (chmod 600 %s)\n",
                    o->cfg.path, o->cfg.mode, o->cfg.path);
    }
    o->cfg_line = 0;
    o->cfg_key = NULL;
    return 0;
}

/* The explicit --config FILE, or the default one when it exists. */
static int load_config(struct serve_opts *o)
{
    const char *path = o->config;
    if (!path && !o->no_config && access(ZP__CFG_DEFAULT, F_OK) == 0)
        path = ZP__CFG_DEFAULT;
    if (!path)
        return 0;
    char why[512];
    if (!zp__cfg_load(&o->cfg, path, why, sizeof why)) {
        fprintf(stderr, "zkpipe serve: %s\n", why);
        return 2;
    }
    return apply_config(o);
}

static int parse_args(struct serve_opts *o, int argc, char **argv)
{
    int rc = find_config(o, argc, argv);
    if (rc || (rc = load_config(o)))
        return rc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--config"))
            i++;
        else if (!strcmp(a, "--no-config") || !strcmp(a, "--print-config"))
            continue;
        else if (!strcmp(a, "--lazy-keys"))
            o->lazy = true;
        else if (!strcmp(a, "--allow-witness-path"))
            o->allow_path = true;
        else if (!strcmp(a, "--timeline"))
            o->timeline = true;
        else if (i + 1 >= argc)
            return usage_error(a[0] == '-' ? "missing value after" : "unexpected argument", a);
        else {
            int rc = parse_opt(o, a, argv[++i]);
            if (rc)
                return rc;
        }
    }
    if (o->token_file && !read_token(o->token, sizeof o->token, o->token_file)) {
        if (o->token_file_line)
            fprintf(stderr, "zkpipe serve: %s:%d: bad value for token-file\n", o->cfg.path,
                    o->token_file_line);
        return 2;
    }
    if (!o->srv.listen)
        return usage_error("--listen is required (unix:///path or tcp://host:port; "
                           "`listen =` in a config file)", NULL);
    if (o->n_keys == 0)
        return usage_error("no --key NAME=SOURCE given (nor `key =` in a config file): the daemon "
                           "would have nothing to prove", NULL);
    if (o->token[0] && !token_ok(o->token))
        return usage_error("the token must be 1..255 visible ASCII characters without spaces", NULL);
    if (o->token[0] && strlen(o->token) < TOKEN_MIN)
        fprintf(stderr, "zkpipe serve: warning: the token has %zu characters; one of at least "
                        "%d random ones (openssl rand -hex 16) resists guessing\n",
                strlen(o->token), TOKEN_MIN);
    o->srv.token = o->token[0] ? o->token : NULL;
    /* The packaged service always passes --state-dir; a fleet daemon's
     * jobs are durable in the queue's database, which answers for them. */
    if (o->srv.state_dir && o->queue.url) {
        fprintf(stderr, "zkpipe serve: note: --state-dir %s is ignored with --queue: jobs are "
                        "durable in the fleet's database\n", o->srv.state_dir);
        o->srv.state_dir = NULL;
    }
    if (o->srv.reserved_conns != ZP__SRV_AUTO && o->srv.reserved_conns >= o->srv.max_conns)
        return usage_error("--reserved-conns must be below --max-conns", NULL);
    /* GPUs prove alone unless CPU workers are asked for too. */
    if ((o->eng.gpus > 0 || (o->eng.gpus < 0 && zp__gpu_count() > 0)) && !o->workers_set)
        o->eng.cpu_workers = 0;
    return 0;
}

/* A byte count in the largest binary unit that divides it, as the size
 * options read it back. */
static void print_size(FILE *f, const char *key, uint64_t v)
{
    static const char units[] = "TGMK";
    for (int i = 0; i < 4; i++) {
        unsigned shift = 40 - 10 * (unsigned)i;
        if (v && v % (1ull << shift) == 0) {
            fprintf(f, "%s = %llu%c\n", key, (unsigned long long)(v >> shift), units[i]);
            return;
        }
    }
    fprintf(f, "%s = %llu\n", key, (unsigned long long)v);
}

/* A size whose 0 means "the default": the default stays a comment, since
 * the option takes no 0. */
static void print_size_or(FILE *f, const char *key, uint64_t v, const char *dflt)
{
    if (v)
        print_size(f, key, v);
    else
        fprintf(f, "# %s = (default: %s)\n", key, dflt);
}

/* The settings in effect, as a config file that sets them again (all but
 * a literal token, which is redacted). */
static void print_config(FILE *f, const struct serve_opts *o)
{
    fprintf(f, "# zkpipe serve: effective settings (config file: %s)\n", o->cfg.path ? o->cfg.path : "none");
    fprintf(f, "listen = %s\n", o->srv.listen);
    for (int i = 0; i < o->n_keys; i++)
        fprintf(f, "key = %s\n", o->keys[i]);
    if (o->token_file)
        fprintf(f, "token-file = %s\n", o->token_file);
    else if (o->token[0])
        fprintf(f, "# token = <set> (redacted)\n");
    else
        fprintf(f, "# token = (none)\n");
    fprintf(f, "workers = %d\n", o->eng.cpu_workers);
    fprintf(f, "threads = %d\n", o->eng.threads_per_worker);
    if (o->eng.gpus < 0)
        fprintf(f, "gpus = all\n");
    else if (o->eng.gpus == 0)
        fprintf(f, "gpus = none\n");
    else
        fprintf(f, "gpus = %d\n", o->eng.gpus);
    fprintf(f, "slots = %d\n", o->eng.gpu_slots);
    print_size_or(f, "gpu-mem", o->eng.gpu_mem_bytes, "free memory less a reserve");
    print_size_or(f, "pinned-keys", o->eng.pinned_key_bytes, "none");
    fprintf(f, "max-queued = %u\n", (unsigned)o->eng.max_queued_partitions);
    print_size_or(f, "key-budget", o->eng.key_budget_bytes, "no limit");
    print_size(f, "max-body", o->srv.max_body);
    print_size(f, "max-json", o->srv.max_json);
    fprintf(f, "max-conns = %u\n", o->srv.max_conns);
    if (o->srv.reserved_conns == ZP__SRV_AUTO)
        fprintf(f, "# reserved-conns = (default: max-conns/4)\n");
    else
        fprintf(f, "reserved-conns = %u\n", o->srv.reserved_conns);
    fprintf(f, "max-conns-per-peer = %u\n", o->srv.max_conns_per_peer);
    fprintf(f, "header-timeout = %g\n", o->srv.header_timeout_s);
    fprintf(f, "idle-timeout = %u\n", o->srv.idle_timeout_s);
    print_size_or(f, "body-budget", o->srv.body_budget, "max(1G, max-body)");
    fprintf(f, "max-wait = %g\n", o->srv.max_wait_s);
    fprintf(f, "grace = %g\n", o->srv.grace_s);
    if (o->srv.state_dir)
        fprintf(f, "state-dir = %s\n", o->srv.state_dir);
    else
        fprintf(f, "# state-dir = (none: jobs live in memory only)\n");
    fprintf(f, "lazy-keys = %s\n", o->lazy ? "yes" : "no");
    fprintf(f, "allow-witness-path = %s\n", o->allow_path ? "yes" : "no");
    fprintf(f, "timeline = %s\n", o->timeline ? "yes" : "no");
    zp__serve_queue_print(f, &o->queue);
    for (int i = 0; i < o->n_tunes; i++)
        fprintf(f, "tune = %s\n", o->tunes[i]);
}

/* Only names that cannot leave the host count as loopback: 127.0.0.0/8,
 * ::1 and localhost. */
static bool loopback_host(const char *h)
{
    return !strncmp(h, "127.", 4) || !strcmp(h, "::1") || !strcmp(h, "[::1]") ||
           !strcmp(h, "localhost");
}

/* A TIMELINE,<ms>,<event>,<job>,<partition> line as a timeline event. */
static void timeline_line(void *ctx, const char *line)
{
    (void)ctx;
    double ms;
    char stage[64], job[ZP_JOB_ID_MAX + 1];
    int part;
    _Static_assert(ZP_JOB_ID_MAX == 64, "the %64[ below");
    int n = sscanf(line, "TIMELINE,%lf,%63[^,],%64[^,],%d", &ms, stage, job, &part);
    if (n == 4)
        zp__log(ZP__LOG_INFO, "timeline", "ms=%.3f stage=%s job=%s partition=%d", ms, stage, job,
                part);
    else if (n == 3) /* a job's event: no partition */
        zp__log(ZP__LOG_INFO, "timeline", "ms=%.3f stage=%s job=%s", ms, stage, job);
    else
        zp__log(ZP__LOG_INFO, "timeline", "line=%s", line);
}

/* The start line: what runs (version, backends, the CUDA architectures
 * built, each GPU) and the keys with their sources and placement. */
static void log_start(zp_engine *eng, const zp__srv *srv)
{
    zp__log_ev ev;
    if (!zp__log_begin(&ev, ZP__LOG_INFO, "serve.start"))
        return;
    zp__log_str(&ev, "version", "0.1.0");
    zp__log_str(&ev, "listen", zp__srv_address(srv));
    zp__log_str(&ev, "backends", zp__gpu_compiled() ? "cpu,cuda" : "cpu");
    if (zp__gpu_compiled())
        zp__log_str(&ev, "cuda_archs", zp__gpu_archs());
    char name[ZP_NAME_MAX + 8], v[512];
    zp_gpu_info gi;
    size_t n_gpus = 0;
    for (; zp_engine_gpu_info(eng, n_gpus, &gi) == ZP_OK; n_gpus++) {
        snprintf(name, sizeof name, "gpu%d", gi.ordinal);
        snprintf(v, sizeof v, "%s, sm_%d%d, %.1f GiB, arena %.1f GiB, %u slot(s)", gi.name,
                 gi.cc_major, gi.cc_minor, gi.total_bytes / 1073741824.0,
                 gi.arena_bytes / 1073741824.0, gi.slots_admitted);
        zp__log_str(&ev, name, v);
    }
    zp__log_uint(&ev, "gpus", n_gpus);
    zp_key_info ki;
    for (size_t k = 0; zp_engine_key_info(eng, k, &ki) == ZP_OK; k++) {
        int at = snprintf(v, sizeof v, "%s (%s)", ki.source, zp_key_tier_name(ki.tier));
        for (size_t g = 0; g < n_gpus && at > 0 && (size_t)at < sizeof v; g++) {
            zp_key_gpu_plan kp;
            if (zp_engine_key_plan(eng, k, (int)g, &kp) == ZP_OK && kp.resident)
                at += snprintf(v + at, sizeof v - (size_t)at, "; gpu%zu: %s", g, kp.summary);
        }
        snprintf(name, sizeof name, "key.%s", ki.name);
        zp__log_str(&ev, name, v);
    }
    zp__log_end(&ev);
}

/* The registered key called name (false when there is none). */
static bool key_named(zp_engine *eng, const char *name, zp_key_info *ki)
{
    for (size_t k = 0; zp_engine_key_info(eng, k, ki) == ZP_OK; k++)
        if (!strcmp(ki->name, name))
            return true;
    return false;
}

/* Registers every key and, unless lazy, loads it now, so a bad key stops
 * the daemon at start instead of failing its first job. */
static bool setup_keys(zp_engine *eng, const struct serve_opts *o)
{
    for (int i = 0; i < o->n_keys; i++) {
        char name[ZP_NAME_MAX + 2];
        const char *eq = strchr(o->keys[i], '=');
        size_t nl = (size_t)(eq - o->keys[i]);
        if (nl > ZP_NAME_MAX) {
            zp__log(ZP__LOG_ERROR, "key.failed", "key=%s reason=%s", o->keys[i], "name too long");
            return false;
        }
        memcpy(name, o->keys[i], nl);
        name[nl] = 0;
        zp_err e = zp_engine_add_key(eng, name, eq + 1);
        if (e == ZP_OK && !o->lazy)
            e = zp_engine_preload_key(eng, name);
        zp_key_info ki;
        bool known = key_named(eng, name, &ki);
        if (e != ZP_OK) {
            const char *msg = known ? ki.last_message : "";
            zp__log(ZP__LOG_ERROR, "key.failed", "key=%s source=%s error=%s reason=%s", name, eq + 1,
                    zp_strerror(e), msg);
            return false;
        }
        if (known)
            zp__log(ZP__LOG_INFO, "key.ready", "key=%s source=%s tier=%s loads=%s", name, eq + 1,
                    zp_key_tier_name(ki.tier), ki.n_vars ? "at_start" : "on_first_use");
    }
    return true;
}

/* ------------------------------------------------------------ SIGHUP */

/* Settings as print_config renders them, one line each: comparing two
 * renderings compares every setting with its printed form. */
static char *render(const struct serve_opts *o)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    print_config(f, o);
    if (fclose(f)) {
        free(text);
        return NULL;
    }
    return text;
}

/* The line of text that sets name (commented or not), or NULL; *len is
 * its length. */
static const char *setting_line(const char *text, const char *name, size_t *len)
{
    size_t nl = strlen(name);
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *q = !strncmp(p, "# ", 2) ? p + 2 : p;
        if (!strncmp(q, name, nl) && !strncmp(q + nl, " = ", 3)) {
            *len = n;
            return p;
        }
        p += n + (e != NULL);
    }
    return NULL;
}

/* The NAME of a NAME=SOURCE key, or NULL. */
static const char *key_source(const struct serve_opts *o, const char *spec)
{
    size_t nl = (size_t)(strchr(spec, '=') - spec);
    for (int i = 0; i < o->n_keys; i++)
        if (!strncmp(o->keys[i], spec, nl) && o->keys[i][nl] == '=')
            return o->keys[i] + nl + 1;
    return NULL;
}

/* Keys are the settings a running daemon takes: a new one is registered
 * (and loaded unless lazy) and joins cur; the others only log. */
static void reload_keys(zp_engine *eng, struct serve_opts *cur, const struct serve_opts *next,
                        char **owned, int *n_owned)
{
    for (int i = 0; i < next->n_keys; i++) {
        const char *spec = next->keys[i], *eq = strchr(spec, '=');
        const char *old = key_source(cur, spec);
        if (old) {
            if (strcmp(old, eq + 1))
                fprintf(stderr, "zkpipe serve: SIGHUP: key %.*s: source %s -> %s needs a restart "
                                "(not applied)\n", (int)(eq - spec), spec, old, eq + 1);
            continue;
        }
        if (cur->n_keys == MAX_KEYS || *n_owned == MAX_KEYS) {
            fprintf(stderr, "zkpipe serve: SIGHUP: key %s: too many keys (not added)\n", spec);
            continue;
        }
        struct serve_opts one = *cur;
        one.keys[0] = spec;
        one.n_keys = 1;
        one.lazy = next->lazy;
        char name[ZP_NAME_MAX + 1];
        zp_key_info ki;
        snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
        bool loaded = setup_keys(eng, &one);
        /* A key registered but not loaded is served (it loads on its
         * first job, or fails it), so it joins cur all the same. */
        if (!loaded && !key_named(eng, name, &ki))
            continue;
        owned[(*n_owned)++] = strdup(spec);
        if (owned[*n_owned - 1])
            cur->keys[cur->n_keys++] = owned[*n_owned - 1];
        fprintf(stderr, "zkpipe serve: SIGHUP: key %s added%s\n", spec,
                loaded ? "" : " (it could not be loaded: see above)");
    }
    for (int i = 0; i < cur->n_keys; i++)
        if (!key_source(next, cur->keys[i]))
            fprintf(stderr, "zkpipe serve: SIGHUP: key %.*s: no longer configured; it is served "
                            "until a restart\n", (int)(strchr(cur->keys[i], '=') - cur->keys[i]),
                    cur->keys[i]);
}

/* Every other setting that differs needs a restart: the engine and the
 * server read their configs unlocked from many threads. */
static void reload_report(const struct serve_opts *cur, const struct serve_opts *next)
{
    char *a = render(cur), *b = render(next);
    for (const char *p = b; p && a && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *q = !strncmp(p, "# ", 2) ? p + 2 : p;
        const char *sep = memchr(q, ' ', n - (size_t)(q - p));
        char name[64];
        /* Keys are compared by reload_keys, tunings as one list below. */
        if (sep && sep - q < (long)sizeof name && strncmp(q, "key = ", 6) != 0 &&
            strncmp(q, "tune = ", 7) != 0 && strncmp(p, "# zkpipe", 8)) {
            snprintf(name, sizeof name, "%.*s", (int)(sep - q), q);
            size_t on;
            const char *o = setting_line(a, name, &on);
            if (!o || on != n || memcmp(o, p, n))
                fprintf(stderr, "zkpipe serve: SIGHUP: %s: '%.*s' -> '%.*s' needs a restart "
                                "(not applied)\n", name, o ? (int)on : 0, o ? o : "", (int)n, p);
        }
        p += n + (e != NULL);
    }
    bool tunes_differ = cur->n_tunes != next->n_tunes;
    for (int i = 0; i < cur->n_tunes && !tunes_differ; i++)
        tunes_differ = strcmp(cur->tunes[i], next->tunes[i]) != 0;
    if (tunes_differ)
        fprintf(stderr, "zkpipe serve: SIGHUP: the tune settings changed: that needs a restart "
                        "(not applied)\n");
    if (strcmp(cur->token, next->token))
        fprintf(stderr, "zkpipe serve: SIGHUP: the token changed: that needs a restart (not applied)\n");
    free(a);
    free(b);
}

/* Reads the config file and the flags again, as at start; a bad file
 * changes nothing. */
static void reload(zp_engine *eng, struct serve_opts *cur, int argc, char **argv, char **owned,
                   int *n_owned)
{
    struct serve_opts *next = calloc(1, sizeof *next);
    if (!next)
        return;
    zp__srv_config_default(&next->srv);
    zp_engine_config_default(&next->eng);
    zp__fleet_config_default(&next->queue);
    zp__cli_tune_default(&next->tune);
    if (parse_args(next, argc, argv)) {
        fprintf(stderr, "zkpipe serve: SIGHUP: the settings above are not valid: nothing changed\n");
    } else {
        if (!next->cfg.path)
            fprintf(stderr, "zkpipe serve: SIGHUP: no config file to read\n");
        next->srv.allow_witness_path = cur->srv.allow_witness_path;
        next->eng.timeline_log = cur->eng.timeline_log;
        reload_keys(eng, cur, next, owned, n_owned);
        reload_report(cur, next);
        fprintf(stderr, "zkpipe serve: SIGHUP: done\n");
    }
    zp__cfg_free(&next->cfg);
    free(next);
}

/* The fleet's queue as the server calls it (zp__srv_queue). */
static zp_err serve_queue_submit(void *ctx, const zp_job_request *req, char id[ZP_JOB_ID_MAX + 1],
                                 char *why, size_t why_len)
{
    return zp__fleet_submit(ctx, req, id, why, why_len);
}

static zp_err serve_queue_await(void *ctx, const char *id, double timeout_s, zp_job_info *info,
                                zp_job_result *res)
{
    return zp__fleet_await(ctx, id, timeout_s, info, res);
}

static zp_err serve_queue_cancel(void *ctx, const char *id)
{
    return zp__fleet_cancel(ctx, id);
}

static char *serve_queue_status(void *ctx)
{
    return zp__fleet_status_json(ctx);
}

static char *serve_queue_metrics(void *ctx)
{
    return zp__fleet_metrics(ctx);
}

/* After the first signal: a second one ends the process without waiting. */
static void *second_signal(void *arg)
{
    sigset_t *set = arg;
    int sig;
    if (sigwait(set, &sig) == 0) {
        zp__log(ZP__LOG_WARN, "serve.exit", "signal=%d reason=%s", sig,
                "a second signal: exiting without draining");
        _exit(1);
    }
    return NULL;
}

/* The daemon from its options to its exit status; o->cfg is the
 * caller's to free. */
static int serve_run(struct serve_opts *o, int argc, char **argv)
{
    zp__srv_config_default(&o->srv);
    zp_engine_config_default(&o->eng);
    zp__fleet_config_default(&o->queue);
    zp__cli_tune_default(&o->tune);
    o->log_level = ZP__LOG_INFO;
    int rc = parse_args(o, argc, argv);
    if (rc)
        return rc;
    zp__log_setup(o->log_level, o->log_format, 2);
    zp__cli_tune_apply(&o->tune);
    zp__listen_addr la;
    char why[512];
    if (!zp__listen_parse(&la, o->srv.listen, why, sizeof why))
        return usage_error(why, NULL);
    if (!la.is_unix && !o->srv.token)
        return usage_error("refusing to listen on TCP without --token or --token-file", NULL);
    if (!la.is_unix && !loopback_host(la.host))
        zp__log(ZP__LOG_WARN, "serve.plain_http", "host=%s reason=%s", la.host,
                "not a loopback address and the daemon speaks plain HTTP: the token and every "
                "witness cross the network unencrypted (put a TLS proxy in front, or listen on "
                "127.0.0.1)");
    o->srv.allow_witness_path = la.is_unix || o->allow_path;
    if (o->print_config) {
        print_config(stdout, o);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (o->timeline)
        o->eng.timeline_log = timeline_line;
    o->srv.state_ttl_s = o->eng.finished_ttl_s;
    o->srv.state_max_jobs = o->eng.max_jobs;
    o->eng.key_progress = zp__serve_key_progress;

    /* Signals are taken by sigwait below; every thread started from here
     * on inherits the mask, so none of them is interrupted by them. */
    static sigset_t stop_set;
    sigset_t wait_set;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGTERM);
    sigaddset(&stop_set, SIGINT);
    wait_set = stop_set;
    sigaddset(&wait_set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &wait_set, NULL);
    signal(SIGPIPE, SIG_IGN);

    zp_engine *eng = NULL;
    zp_err e = zp_engine_open(&eng, &o->eng);
    if (e != ZP_OK) {
        /* A GPU's failure (one the build cannot serve, among others) says
         * which GPU and why in the GPU's error line. */
        bool gpu = e == ZP_E_UNSUPPORTED || e == ZP_E_GPU || e == ZP_E_GPU_OOM ||
                   e == ZP_E_GPU_FATAL;
        zp__log(ZP__LOG_ERROR, "serve.failed", "error=%s reason=%s", zp_strerror(e),
                gpu ? zp__gpu_last_error() : "the engine did not open");
        return 1;
    }
    zp__srv *srv = NULL;
    zp__fleet *fleet = NULL;
    zp__srv_queue shared;
    bool keys = setup_keys(eng, o);
    if (keys && o->queue.url) {
        o->queue.address = o->srv.listen;
        if ((e = zp__fleet_open(&fleet, &o->queue, eng, why, sizeof why)) == ZP_OK) {
            shared = (zp__srv_queue){.ctx = fleet, .submit = serve_queue_submit,
                                     .await = serve_queue_await, .cancel = serve_queue_cancel,
                                     .status_json = serve_queue_status, .metrics = serve_queue_metrics};
            o->srv.queue = &shared;
        }
    }
    if (!keys || e != ZP_OK || (e = zp__srv_start(&srv, &o->srv, eng, why, sizeof why)) != ZP_OK) {
        if (e != ZP_OK)
            zp__log(ZP__LOG_ERROR, "serve.failed", "error=%s reason=%s", zp_strerror(e), why);
        zp__fleet_close(fleet, 0);
        zp_engine_close(eng);
        return 1;
    }
    log_start(eng, srv);
    int sig = 0;
    char *owned[MAX_KEYS];
    int n_owned = 0;
    while (sigwait(&wait_set, &sig) == 0 && sig == SIGHUP)
        reload(eng, o, argc, argv, owned, &n_owned);
    zp__log(ZP__LOG_INFO, "serve.drain", "signal=%s grace_s=%g",
            sig == SIGINT ? "SIGINT" : "SIGTERM", o->srv.grace_s);
    pthread_t watcher;
    if (pthread_create(&watcher, NULL, second_signal, &stop_set) == 0)
        pthread_detach(watcher);
    zp__srv_stop(srv);
    zp__fleet_close(fleet, o->srv.grace_s);
    zp_engine_close(eng);
    zp__log(ZP__LOG_INFO, "serve.stop", NULL);
    for (int i = 0; i < n_owned; i++)
        free(owned[i]);
    return 0;
}

int zp__cmd_serve(int argc, char **argv)
{
    if (zp__cli_wants_help(argc, argv, serve_help))
        return 0;
    struct serve_opts o = {0};
    int rc = serve_run(&o, argc, argv);
    zp__cfg_free(&o.cfg);
    return rc;
}

#endif
