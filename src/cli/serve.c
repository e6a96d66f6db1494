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
    "  --synth-witnesses N  jobs with a synth_seed (synthetic keys) prove with one of N\n"
    "                       witnesses made once per key and kept, seed mod N (0..16;\n"
    "                       default 0: each partition makes its own, which takes\n"
    "                       seconds at porep:27): for benchmarks of proving alone\n"
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

#include "cli/serve_opts.h"


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
    zp__serve_print_config(f, o);
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
    if (zp__serve_parse_args(next, argc, argv)) {
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
    int rc = zp__serve_parse_args(o, argc, argv);
    if (rc)
        return rc;
    zp__log_setup(o->log_level, o->log_format, 2);
    zp__cli_tune_apply(&o->tune);
    zp__listen_addr la;
    char why[512];
    if (!zp__listen_parse(&la, o->srv.listen, why, sizeof why))
        return zp__serve_usage_error(why, NULL);
    if (!la.is_unix && !o->srv.token)
        return zp__serve_usage_error("refusing to listen on TCP without --token or --token-file", NULL);
    if (!la.is_unix && !zp__serve_loopback_host(la.host))
        zp__log(ZP__LOG_WARN, "serve.plain_http", "host=%s reason=%s", la.host,
                "not a loopback address and the daemon speaks plain HTTP: the token and every "
                "witness cross the network unencrypted (put a TLS proxy in front, or listen on "
                "127.0.0.1)");
    o->srv.allow_witness_path = la.is_unix || o->allow_path;
    if (o->print_config) {
        zp__serve_print_config(stdout, o);
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
