/* JSON in and out for the route handlers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/codec.h"
#include "server/api.h"

bool zp__api_name_ok(const char *s, bool job_id)
{
    size_t n = strlen(s);
    if (n == 0 || n > (job_id ? ZP_JOB_ID_MAX : ZP_NAME_MAX))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-' || (job_id && c == ':');
        if (!ok)
            return false;
    }
    return true;
}

cJSON *zp__api_parse_json(const zp__srv_req *r, zp__srv_reply *out)
{
    if (r->len == 0) {
        zp__reply_error(out, 400, "bad_json", "empty body: expected a JSON object");
        return NULL;
    }
    const char *text = (const char *)r->body, *end = NULL;
    /* cJSON keeps the first of two equal keys, cuts strings at \u0000 and
     * passes invalid UTF-8: the strict parser refuses all three first, so
     * what a handler checks is the whole of what the client sent. */
    zp__json strict;
    zp__ioerr why = {""};
    if (zp__json_parse(&strict, text, r->len, NULL, &why) != ZP_OK) {
        zp__reply_error(out, 400, "bad_json", "the body is not valid JSON: %s", why.msg);
        return NULL;
    }
    zp__json_free(&strict);
    cJSON *doc = cJSON_ParseWithLengthOpts(text, r->len, &end, false);
    if (!doc) {
        size_t at = end && end >= text ? (size_t)(end - text) : 0;
        zp__reply_error(out, 400, "bad_json", "the body is not valid JSON (near byte %zu)", at);
        return NULL;
    }
    for (size_t i = (size_t)(end - text); i < r->len; i++) {
        char c = text[i];
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
            cJSON_Delete(doc);
            zp__reply_error(out, 400, "bad_json", "unexpected bytes after the JSON value (byte %zu)", i);
            return NULL;
        }
    }
    return doc;
}

char *zp__api_print(cJSON *o)
{
    char *s = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return s;
}

bool zp__api_find_key(zp_engine *eng, const char *name, zp_key_info *out, size_t *index)
{
    for (size_t i = 0; zp_engine_key_info(eng, i, out) == ZP_OK; i++)
        if (strcmp(out->name, name) == 0) {
            if (index)
                *index = i;
            return true;
        }
    return false;
}

static bool add_time(cJSON *o, const char *k, double v)
{
    return v < 0 ? cJSON_AddNullToObject(o, k) != NULL : cJSON_AddNumberToObject(o, k, v) != NULL;
}

static bool add_proof(cJSON *o, const zp_job_result *res, bool hex)
{
    size_t n = res->proofs_len;
    char *text = malloc(hex ? 2 * n + 1 : zp__b64_len(n) + 1);
    if (!text)
        return false;
    if (hex)
        zp__hex_encode(text, res->proofs, n);
    else
        zp__b64_encode(text, res->proofs, n);
    cJSON *p = cJSON_AddObjectToObject(o, "proof");
    bool ok = p && cJSON_AddStringToObject(p, "encoding", hex ? "hex" : "base64") &&
              cJSON_AddNumberToObject(p, "bytes", (double)n) &&
              cJSON_AddNumberToObject(p, "partitions", res->partitions) &&
              cJSON_AddStringToObject(p, "data", text);
    free(text);
    return ok;
}

static bool add_public(cJSON *o, const zp_job_result *res)
{
    cJSON *all = cJSON_AddArrayToObject(o, "public_inputs");
    if (!all || (size_t)res->partitions * res->n_public * 32 != res->public_len)
        return false;
    for (uint32_t p = 0; p < res->partitions; p++) {
        cJSON *one = cJSON_CreateArray();
        if (!one || !cJSON_AddItemToArray(all, one)) {
            cJSON_Delete(one);
            return false;
        }
        for (uint32_t i = 0; i < res->n_public; i++) {
            char dec[80];
            zp__u256_le_to_dec(dec, res->public_inputs + ((size_t)p * res->n_public + i) * 32);
            cJSON *s = cJSON_CreateString(dec);
            if (!s || !cJSON_AddItemToArray(one, s)) {
                cJSON_Delete(s);
                return false;
            }
        }
    }
    return true;
}

cJSON *zp__api_job_json(const zp_job_info *info, const zp_job_result *res, bool hex)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddStringToObject(o, "id", info->id) &&
              cJSON_AddStringToObject(o, "key", info->key) &&
              cJSON_AddStringToObject(o, "state", zp_job_state_name(info->state)) &&
              cJSON_AddStringToObject(o, "priority", zp_priority_name(info->priority)) &&
              cJSON_AddNumberToObject(o, "partitions", info->partitions) &&
              cJSON_AddNumberToObject(o, "partitions_done", info->partitions_done) &&
              cJSON_AddNumberToObject(o, "partitions_running", info->partitions_running) &&
              add_time(o, "submitted_s", info->submitted_s) && add_time(o, "started_s", info->started_s) &&
              add_time(o, "finished_s", info->finished_s);
    if (ok && (info->state == ZP_JOB_FAILED || info->state == ZP_JOB_CANCELLED)) {
        cJSON *f = cJSON_AddObjectToObject(o, "failure");
        ok = f && cJSON_AddStringToObject(f, "error", zp_errname(info->error)) &&
             cJSON_AddStringToObject(f, "message", info->message[0] ? info->message : zp_strerror(info->error));
    }
    if (ok && res)
        ok = add_proof(o, res, hex) && add_public(o, res);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
