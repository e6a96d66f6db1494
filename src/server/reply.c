/* JSON replies of the daemon and the mapping of engine errors onto HTTP. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "server/server.h"

double zp__srv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A reply that needs no allocation, for when allocation itself failed. */
static void reply_oom(zp__srv_reply *out)
{
    static const char oom[] = "{\"error\":\"internal\",\"message\":\"out of memory\"}";
    free(out->body);
    out->status = 500;
    out->ctype = "application/json";
    out->body = malloc(sizeof oom);
    out->len = out->body ? sizeof oom - 1 : 0;
    if (out->body)
        memcpy(out->body, oom, sizeof oom);
}

void zp__reply_json(zp__srv_reply *out, unsigned status, char *body)
{
    free(out->body);
    out->body = NULL;
    if (!body) {
        reply_oom(out);
        return;
    }
    out->status = status;
    out->ctype = "application/json";
    out->body = body;
    out->len = strlen(body);
}

static void reply_error_v(zp__srv_reply *out, unsigned status, const char *code,
                          const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    cJSON *o = cJSON_CreateObject();
    char *text = NULL;
    if (o && cJSON_AddStringToObject(o, "error", code) && cJSON_AddStringToObject(o, "message", msg))
        text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    zp__reply_json(out, status, text);
}

void zp__reply_error(zp__srv_reply *out, unsigned status, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    reply_error_v(out, status, code, fmt, ap);
    va_end(ap);
}

unsigned zp__http_status_of(zp_err e)
{
    switch (e) {
    case ZP_OK: return 200;
    case ZP_E_INVALID_ARG:
    case ZP_E_FORMAT:
    case ZP_E_TRUNCATED:
    case ZP_E_NOT_CANONICAL:
    case ZP_E_BAD_PRIME:
    case ZP_E_BAD_FLAGS:
    case ZP_E_UNSUPPORTED: return 400;
    case ZP_E_NOT_FOUND: return 404;
    case ZP_E_EXISTS: return 409;
    case ZP_E_TOO_LARGE: return 413;
    case ZP_E_WITNESS:
    case ZP_E_BAD_LENGTH:
    case ZP_E_UNSATISFIED: return 422;
    case ZP_E_BUSY: return 429;
    case ZP_E_SHUTDOWN:
    case ZP_E_NOMEM:
    case ZP_E_NO_GPU:
    case ZP_E_GPU_OOM: return 503;
    case ZP_E_TIMEOUT: return 504;
    default: return 500;
    }
}

/* Stable, lower-case codes clients can switch on. */
static const char *code_of(zp_err e)
{
    switch (e) {
    case ZP_E_INVALID_ARG: return "bad_request";
    case ZP_E_FORMAT:
    case ZP_E_TRUNCATED:
    case ZP_E_NOT_CANONICAL:
    case ZP_E_BAD_PRIME:
    case ZP_E_BAD_FLAGS: return "bad_witness";
    case ZP_E_UNSUPPORTED: return "unsupported";
    case ZP_E_NOT_FOUND: return "not_found";
    case ZP_E_EXISTS: return "conflict";
    case ZP_E_TOO_LARGE: return "too_large";
    case ZP_E_WITNESS:
    case ZP_E_BAD_LENGTH: return "witness_length";
    case ZP_E_UNSATISFIED: return "unsatisfied";
    case ZP_E_BUSY: return "busy";
    case ZP_E_SHUTDOWN: return "shutting_down";
    case ZP_E_NOMEM:
    case ZP_E_GPU_OOM: return "out_of_memory";
    case ZP_E_NO_GPU: return "no_gpu";
    case ZP_E_TIMEOUT: return "timeout";
    default: return "internal";
    }
}

void zp__reply_zperr(zp__srv_reply *out, zp_err e, const char *what)
{
    zp__reply_error(out, zp__http_status_of(e), code_of(e), "%s: %s (%s)", what, zp_strerror(e),
                    zp_errname(e));
    if (e == ZP_E_BUSY)
        out->retry_after_s = 1;
}
