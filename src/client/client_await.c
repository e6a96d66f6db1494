/* zkpipe await and cancel: waiting for a job and writing its proof. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/codec.h"
#include "client/client_cmd.h"

/* A long-poll asks for at most this much; await loops for longer waits. */
#define WAIT_SLICE_S 60.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double jnum(const zp__jval *o, const char *k)
{
    const zp__jval *v = zp__json_get(o, k);
    return v && v->type == ZP__J_NUMBER ? strtod(v->str, NULL) : 0;
}

static bool write_proof(const zp__jval *job, const char *path)
{
    const zp__jval *p = zp__json_get(job, "proof");
    const char *enc = zp__jstr(p, "encoding"), *data = zp__jstr(p, "data");
    const zp__jval *dv = zp__json_get(p, "data");
    if (!enc || !data || strcmp(enc, "base64") != 0) {
        fprintf(stderr, "zkpipe await: the answer has no base64 proof\n");
        return false;
    }
    uint8_t *bytes = malloc(dv->len / 4 * 3 + 1);
    size_t n = 0;
    bool ok = bytes && zp__b64_decode(bytes, &n, data, dv->len);
    zp__ioerr why = {{0}};
    if (!ok)
        fprintf(stderr, "zkpipe await: the proof is not valid base64\n");
    else if (zp__file_write_atomic(path, bytes, n, &why) != ZP_OK) {
        fprintf(stderr, "zkpipe await: %s\n", why.msg);
        ok = false;
    }
    free(bytes);
    return ok;
}

/* snarkjs' public.json for one partition; an array of those for several. */
static bool write_public(const zp__jval *job, const char *path)
{
    const zp__jval *all = zp__json_get(job, "public_inputs");
    if (!all || all->type != ZP__J_ARRAY) {
        fprintf(stderr, "zkpipe await: the answer has no public inputs\n");
        return false;
    }
    zp__sb s = {0};
    bool nested = all->n != 1;
    if (nested)
        zp__sb_putc(&s, '[');
    for (size_t p = 0; p < all->n; p++) {
        const zp__jval *one = &all->items[p];
        zp__sb_puts(&s, p ? ",\n [" : "[");
        for (size_t i = 0; one->type == ZP__J_ARRAY && i < one->n; i++) {
            zp__sb_puts(&s, i ? ",\n  " : "\n  ");
            zp__sb_json_str(&s, one->items[i].str ? one->items[i].str : "", one->items[i].len);
        }
        zp__sb_puts(&s, "\n]");
    }
    zp__sb_puts(&s, nested ? "]\n" : "\n");
    zp__ioerr why = {{0}};
    bool ok = !s.oom && zp__file_write_atomic(path, s.p, s.len, &why) == ZP_OK;
    if (!ok)
        fprintf(stderr, "zkpipe await: cannot write %s: %s\n", path, why.msg);
    free(s.p);
    return ok;
}

/* A finished job's answer: 0 done (outputs written), 1 otherwise. */
static int finished(const zp__copts *o, const zp__await_args *a, const zp__http_resp *r,
                    const zp__jval *job, const char *state)
{
    if (strcmp(state, "done") != 0) {
        const zp__jval *f = zp__json_get(job, "failure");
        fprintf(stderr, "zkpipe await: job %s %s: %s (%s)\n", a->id, state,
                zp__jstr(f, "message") ? zp__jstr(f, "message") : "no reason given",
                zp__jstr(f, "error") ? zp__jstr(f, "error") : "?");
        if (o->json || !a->out)
            printf("%s\n", r->body);
        return 1;
    }
    if (a->out && !write_proof(job, a->out))
        return 1;
    if (a->public_out && !write_public(job, a->public_out))
        return 1;
    if (a->out)
        printf("%s: done, %.0f partition(s), %.0f proof bytes -> %s\n", a->id, jnum(job, "partitions"),
               jnum(zp__json_get(job, "proof"), "bytes"), a->out);
    else
        printf("%s\n", r->body);
    return 0;
}

int zp__client_await(const zp__copts *o, const zp__await_args *a)
{
    double start = now_s();
    for (;;) {
        double wait = WAIT_SLICE_S;
        if (a->timeout_s >= 0) {
            double left = a->timeout_s - (now_s() - start);
            wait = left < 0 ? 0 : left < wait ? left : wait;
        }
        char target[256];
        snprintf(target, sizeof target, "/v1/jobs/%s?wait=%.3f", a->id, wait);
        zp__http_resp r;
        if (!zp__client_call(&r, o, "await", "GET", target, NULL, wait))
            return 1;
        zp__json doc = {0};
        int rc = -1;
        if (r.status != 200) {
            zp__client_print_error("await", &r);
            rc = 1;
        } else if (!zp__client_json(&doc, "await", &r)) {
            rc = 1;
        } else {
            const char *state = zp__jstr(doc.root, "state");
            if (!state)
                state = "?";
            if (strcmp(state, "queued") && strcmp(state, "running")) {
                rc = finished(o, a, &r, doc.root, state);
            } else if (a->timeout_s >= 0 && now_s() - start >= a->timeout_s) {
                fprintf(stderr, "zkpipe await: job %s still %s after %.1f s\n", a->id, state, a->timeout_s);
                if (o->json)
                    printf("%s\n", r.body);
                rc = 3;
            }
        }
        zp__json_free(&doc);
        zp__http_resp_free(&r);
        if (rc >= 0)
            return rc;
    }
}

int zp__client_cancel(const zp__copts *o, const char *id)
{
    char target[256];
    snprintf(target, sizeof target, "/v1/jobs/%s", id);
    zp__http_resp r;
    if (!zp__client_call(&r, o, "cancel", "DELETE", target, NULL, 0))
        return 1;
    int rc = 1;
    zp__json doc = {0};
    if (r.status != 200) {
        zp__client_print_error("cancel", &r);
    } else if (o->json) {
        printf("%s\n", r.body);
        rc = 0;
    } else if (zp__client_json(&doc, "cancel", &r)) {
        const char *state = zp__jstr(doc.root, "state");
        printf("%s: %s\n", id, state ? state : "?");
        rc = 0;
    }
    zp__json_free(&doc);
    zp__http_resp_free(&r);
    return rc;
}
