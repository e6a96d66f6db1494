/* zkpipe status (a readable summary) and zkpipe request (any route, raw). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client_cmd.h"

static long long jint(const zp__jval *o, const char *k)
{
    const zp__jval *v = zp__json_get(o, k);
    return v && v->type == ZP__J_NUMBER ? (long long)strtod(v->str, NULL) : -1;
}

static double jdbl(const zp__jval *o, const char *k)
{
    const zp__jval *v = zp__json_get(o, k);
    return v && v->type == ZP__J_NUMBER ? strtod(v->str, NULL) : 0;
}

static void print_status(const zp__jval *s)
{
    const zp__jval *qj = zp__json_get(s, "queued_jobs"), *qp = zp__json_get(s, "queued_partitions");
    printf("daemon    %s, up %.1f s\n", zp__jstr(zp__json_get(s, "server"), "address") ?
           zp__jstr(zp__json_get(s, "server"), "address") : "?", jdbl(s, "uptime_s"));
    printf("queued    jobs: critical %lld, high %lld, normal %lld, low %lld (partitions %lld/%lld/%lld/%lld)\n",
           jint(qj, "critical"), jint(qj, "high"), jint(qj, "normal"), jint(qj, "low"),
           jint(qp, "critical"), jint(qp, "high"), jint(qp, "normal"), jint(qp, "low"));
    printf("running   %lld job(s), %lld partition(s)\n", jint(s, "running_jobs"), jint(s, "running_partitions"));
    printf("jobs      submitted %lld, done %lld, failed %lld, cancelled %lld; proofs verified %lld, rejected %lld\n",
           jint(s, "jobs_submitted"), jint(s, "jobs_done"), jint(s, "jobs_failed"), jint(s, "jobs_cancelled"),
           jint(s, "proofs_verified"), jint(s, "proofs_rejected"));
    printf("workers   %lld (%lld busy)\n", jint(s, "workers"), jint(s, "workers_busy"));
    const zp__jval *wl = zp__json_get(s, "worker_list");
    for (size_t i = 0; wl && wl->type == ZP__J_ARRAY && i < wl->n; i++) {
        const zp__jval *w = &wl->items[i];
        const zp__jval *busy = zp__json_get(w, "busy"), *healthy = zp__json_get(w, "healthy");
        const zp__jval *dormant = zp__json_get(w, "dormant");
        bool b = busy && busy->type == ZP__J_TRUE, h = !healthy || healthy->type == ZP__J_TRUE;
        bool d = dormant && dormant->type == ZP__J_TRUE;
        printf("  %-10s %s%s%s, %lld partition(s) done, busy %.1f s",
               zp__jstr(w, "name") ? zp__jstr(w, "name") : "?", b ? "busy" : "idle",
               h ? "" : " UNHEALTHY", d ? " dormant (no room on its GPU)" : "",
               jint(w, "partitions_done"), jdbl(w, "busy_s"));
        if (b)
            printf(" (job %s partition %lld)", zp__jstr(w, "job") ? zp__jstr(w, "job") : "?", jint(w, "partition"));
        printf("\n");
    }
}

static void print_keys(const zp__jval *k)
{
    const zp__jval *arr = zp__json_get(k, "keys");
    printf("keys      %zu\n", arr && arr->type == ZP__J_ARRAY ? arr->n : 0);
    for (size_t i = 0; arr && arr->type == ZP__J_ARRAY && i < arr->n; i++) {
        const zp__jval *x = &arr->items[i];
        const char *err = zp__jstr(x, "last_error");
        const zp__jval *pre = zp__json_get(x, "preloaded");
        printf("  %-16s %-8s%s %lld vars, %lld public, %.1f MiB  %s%s%s\n",
               zp__jstr(x, "name") ? zp__jstr(x, "name") : "?", zp__jstr(x, "tier") ? zp__jstr(x, "tier") : "?",
               pre && pre->type == ZP__J_TRUE ? " (pinned)" : "", jint(x, "n_vars"), jint(x, "n_public"),
               jdbl(x, "bytes") / 1048576.0, zp__jstr(x, "source") ? zp__jstr(x, "source") : "",
               err ? "  last error: " : "", err ? err : "");
    }
}

int zp__client_status(const zp__copts *o)
{
    zp__http_resp s, k;
    if (!zp__client_call(&s, o, "status", "GET", "/v1/status", NULL, 0))
        return 1;
    if (!zp__client_call(&k, o, "status", "GET", "/v1/keys", NULL, 0)) {
        zp__http_resp_free(&s);
        return 1;
    }
    int rc = 1;
    zp__json ds = {0}, dk = {0};
    if (s.status != 200 || k.status != 200) {
        zp__client_print_error("status", s.status != 200 ? &s : &k);
    } else if (o->json) {
        printf("{\"status\":%s,\"keys\":%s}\n", s.body, k.body);
        rc = 0;
    } else if (zp__client_json(&ds, "status", &s) && zp__client_json(&dk, "status", &k)) {
        print_status(ds.root);
        print_keys(dk.root);
        rc = 0;
    }
    zp__json_free(&ds);
    zp__json_free(&dk);
    zp__http_resp_free(&s);
    zp__http_resp_free(&k);
    return rc;
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
    zp__copts_init(&o);
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
        body.fd = open(file, O_RDONLY | O_CLOEXEC);
        if (body.fd < 0 || fstat(body.fd, &st) != 0) {
            perror(file);
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
