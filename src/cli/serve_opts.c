/*
 * The settings of `zkpipe serve` (serve_opts.h): each flag and config-file
 * setting parsed and bounded, the config file found and applied under the
 * flags, the token read and checked, and the settings printed back.
 */
#ifdef ZP_HAVE_SERVER

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/serve_opts.h"
#include "gpu/gpu.h"
#include "io/io.h"
#include "tool/timing.h"

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

int zp__serve_usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "zkpipe serve: %s%s%s\n(see zkpipe serve --help)\n", msg, arg ? " " : "", arg ? arg : "");
    return 2;
}

/* A bad value: on the command line a usage error, in the config file
 * FILE:LINE: bad value for KEY: the reason. */
static int opt_error(const struct serve_opts *o, const char *msg, const char *arg)
{
    if (!o->cfg_line)
        return zp__serve_usage_error(msg, arg);
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
    } else if (!strcmp(a, "--synth-witnesses")) {
        int n;
        if (!parse_int(&n, v, 0, 16))
            return opt_error(o, "--synth-witnesses wants 0..16, got", v);
        o->eng.synth_witness_cache = (uint32_t)n;
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
            return zp__serve_usage_error("--log-format wants text or json, got", v);
    } else if (!strcmp(a, "--log-level")) {
        if (!zp__log_level_parse(&o->log_level, v))
            return zp__serve_usage_error("--log-level wants error, warn, info or debug, got", v);
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
        return zp__serve_usage_error("unknown option", a);
    }
    return 0;
}

/* The flags that choose the config file, before anything else is read. */
static int find_config(struct serve_opts *o, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--config")) {
            if (i + 1 >= argc)
                return zp__serve_usage_error("missing value after", argv[i]);
            o->config = argv[++i];
        } else if (!strcmp(argv[i], "--no-config"))
            o->no_config = true;
        else if (!strcmp(argv[i], "--print-config"))
            o->print_config = true;
    }
    if (o->config && o->no_config)
        return zp__serve_usage_error("--config and --no-config together", NULL);
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

int zp__serve_parse_args(struct serve_opts *o, int argc, char **argv)
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
            return zp__serve_usage_error(a[0] == '-' ? "missing value after" : "unexpected argument", a);
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
        return zp__serve_usage_error("--listen is required (unix:///path or tcp://host:port; "
                           "`listen =` in a config file)", NULL);
    if (o->n_keys == 0)
        return zp__serve_usage_error("no --key NAME=SOURCE given (nor `key =` in a config file): the daemon "
                           "would have nothing to prove", NULL);
    if (o->token[0] && !token_ok(o->token))
        return zp__serve_usage_error("the token must be 1..255 visible ASCII characters without spaces", NULL);
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
        return zp__serve_usage_error("--reserved-conns must be below --max-conns", NULL);
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
void zp__serve_print_config(FILE *f, const struct serve_opts *o)
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
    if (o->eng.synth_witness_cache)
        fprintf(f, "synth-witnesses = %u\n", (unsigned)o->eng.synth_witness_cache);
    else
        fprintf(f, "# synth-witnesses = (default: 0, each made per partition)\n");
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
bool zp__serve_loopback_host(const char *h)
{
    return !strncmp(h, "127.", 4) || !strcmp(h, "::1") || !strcmp(h, "[::1]") ||
           !strcmp(h, "localhost");
}

#endif
