/* What the client subcommands do: options, calls, and reading the answers. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/client_cmd.h"
#include "io/io.h"

/* Answers are JSON; the largest is a done job of many partitions. */
#define RESP_MAX_CLIENT ((size_t)256 << 20)

void zp__copts_init(zp__copts *o, const char *addr, const char *token)
{
    memset(o, 0, sizeof *o);
    o->addr = addr && *addr ? addr : ZP__CLIENT_DEFAULT_ADDR;
    if (token)
        snprintf(o->token, sizeof o->token, "%s", token);
    o->io_timeout_s = 60;
}

static bool read_token_file(char *out, size_t cap, const char *path)
{
    zp__buf b;
    zp__ioerr why = {""};
    if (zp__file_read(&b, path, 4096, &why)) {
        fprintf(stderr, "zkpipe: %s\n", why.msg);
        return false;
    }
    /* The buffer is not NUL-terminated: the first line ends at len. */
    size_t n = 0;
    while (n < b.len && b.data[n] != '\r' && b.data[n] != '\n')
        n++;
    snprintf(out, cap, "%.*s", (int)n, (const char *)b.data);
    zp__buf_free(&b);
    if (!out[0]) {
        fprintf(stderr, "zkpipe: %s is empty\n", path);
        return false;
    }
    return true;
}

int zp__copts_take(zp__copts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--json")) {
        o->json = true;
        return 1;
    }
    bool known = !strcmp(a, "--addr") || !strcmp(a, "--token") || !strcmp(a, "--token-file") ||
                 !strcmp(a, "--io-timeout");
    if (!known)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "zkpipe: missing value after %s\n", a);
        return -1;
    }
    const char *v = argv[++*i];
    if (!strcmp(a, "--addr"))
        o->addr = v;
    else if (!strcmp(a, "--token"))
        snprintf(o->token, sizeof o->token, "%s", v);
    else if (!strcmp(a, "--token-file"))
        return read_token_file(o->token, sizeof o->token, v) ? 1 : -1;
    else if ((o->io_timeout_s = atof(v)) <= 0) {
        fprintf(stderr, "zkpipe: --io-timeout needs seconds > 0\n");
        return -1;
    }
    return 1;
}

bool zp__client_call(zp__http_resp *out, const zp__copts *o, const char *cmd, const char *method,
                     const char *target, const zp__http_body *body, double wait_s)
{
    zp__cli_addr a;
    char why[512];
    for (const char *t = o->token; *t; t++) {
        if (*t <= ' ' || *t > '~') { /* it goes into a header line as is */
            fprintf(stderr, "zkpipe %s: the token must be visible ASCII without spaces\n", cmd);
            return false;
        }
    }
    if (!zp__cli_addr_parse(&a, o->addr, why, sizeof why)) {
        fprintf(stderr, "zkpipe %s: %s\n", cmd, why);
        return false;
    }
    if (!zp__http_do(out, &a, o->token, method, target, body, o->io_timeout_s + wait_s, RESP_MAX_CLIENT,
                     why, sizeof why)) {
        if (!strcmp(why, ZP__HTTP_NO_CLIENT))
            fprintf(stderr, "zkpipe %s: %s\n", cmd, why);
        else
            fprintf(stderr, "zkpipe %s: %s (is 'zkpipe serve' running there?)\n", cmd, why);
        return false;
    }
    return true;
}

const char *zp__jstr(const zp__jval *o, const char *k)
{
    const zp__jval *v = zp__json_get(o, k);
    return v && v->type == ZP__J_STRING ? v->str : NULL;
}

bool zp__client_json(zp__json *doc, const char *cmd, const zp__http_resp *r)
{
    zp__ioerr why = {{0}};
    if (zp__json_parse(doc, r->body, r->len, NULL, &why) != ZP_OK) {
        fprintf(stderr, "zkpipe %s: the daemon's answer (HTTP %d) is not JSON: %s\n", cmd, r->status, why.msg);
        return false;
    }
    return true;
}

void zp__client_print_error(const char *cmd, const zp__http_resp *r)
{
    zp__json doc;
    zp__ioerr why;
    if (zp__json_parse(&doc, r->body, r->len, NULL, &why) == ZP_OK) {
        const char *code = zp__jstr(doc.root, "error"), *msg = zp__jstr(doc.root, "message");
        if (code && msg) {
            fprintf(stderr, "zkpipe %s: %s (HTTP %d, %s)\n", cmd, msg, r->status, code);
            zp__json_free(&doc);
            return;
        }
        zp__json_free(&doc);
    }
    fprintf(stderr, "zkpipe %s: HTTP %d: %.300s\n", cmd, r->status, r->body ? r->body : "");
}

/* ------------------------------------------------------------- submit */

static int submit_upload(const zp__copts *o, const zp__submit_args *a, zp__http_resp *r)
{
    int fd;
    struct stat st;
    zp__ioerr why = {""};
    if (zp__file_open(&fd, &st, a->witness_file, UINT64_MAX, &why)) {
        fprintf(stderr, "zkpipe submit: %s\n", why.msg);
        return -1;
    }
    char target[1024];
    int k = snprintf(target, sizeof target, "/v1/jobs?key=%s", a->key);
    if (a->id)
        k += snprintf(target + k, sizeof target - (size_t)k, "&id=%s", a->id);
    if (a->priority)
        k += snprintf(target + k, sizeof target - (size_t)k, "&priority=%s", a->priority);
    if (a->partitions)
        k += snprintf(target + k, sizeof target - (size_t)k, "&partitions=%s", a->partitions);
    zp__http_body body = {.fd = fd, .len = (size_t)st.st_size, .ctype = "application/octet-stream"};
    bool ok = (size_t)k < sizeof target && zp__client_call(r, o, "submit", "POST", target, &body, 0);
    close(fd);
    return ok ? 0 : -1;
}

static void sb_field(zp__sb *s, const char *k, const char *v, bool quoted)
{
    if (!v)
        return;
    zp__sb_putc(s, s->len > 1 ? ',' : ' ');
    zp__sb_json_str(s, k, strlen(k));
    zp__sb_putc(s, ':');
    if (quoted)
        zp__sb_json_str(s, v, strlen(v));
    else
        zp__sb_puts(s, v);
}

static int submit_json(const zp__copts *o, const zp__submit_args *a, zp__http_resp *r)
{
    if (a->partitions && strspn(a->partitions, "0123456789") != strlen(a->partitions)) {
        fprintf(stderr, "zkpipe submit: --partitions needs a whole number\n");
        return -1;
    }
    zp__sb s = {0};
    zp__sb_putc(&s, '{');
    sb_field(&s, "key", a->key, true);
    sb_field(&s, "id", a->id, true);
    sb_field(&s, "priority", a->priority, true);
    sb_field(&s, "partitions", a->partitions, false);
    sb_field(&s, "witness", a->witness_path, true);
    sb_field(&s, "synth_seed", a->synth, true); /* a string: any 64-bit seed */
    zp__sb_putc(&s, '}');
    if (s.oom) {
        free(s.p);
        return -1;
    }
    zp__http_body body = {.data = s.p, .len = s.len, .fd = -1, .ctype = "application/json"};
    bool ok = zp__client_call(r, o, "submit", "POST", "/v1/jobs", &body, 0);
    free(s.p);
    return ok ? 0 : -1;
}

int zp__client_submit(const zp__copts *o, const zp__submit_args *a)
{
    zp__http_resp r;
    if ((a->witness_file ? submit_upload(o, a, &r) : submit_json(o, a, &r)) != 0)
        return 1;
    int rc = 1;
    zp__json doc;
    if (r.status / 100 != 2) {
        zp__client_print_error("submit", &r);
    } else if (o->json) {
        printf("%s\n", r.body);
        rc = 0;
    } else if (zp__client_json(&doc, "submit", &r)) {
        const char *id = zp__jstr(doc.root, "id");
        if (id) {
            printf("%s\n", id);
            rc = 0;
        } else {
            fprintf(stderr, "zkpipe submit: the answer has no job id\n");
        }
        zp__json_free(&doc);
    }
    zp__http_resp_free(&r);
    return rc;
}
