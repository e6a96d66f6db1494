/*
 * The daemon's request layer without sockets: the first line of the input
 * is "METHOD PATH", the rest the body. The route table (zp__route) takes
 * every input; a body for POST /v1/jobs goes through zp__api_submit (the
 * strict JSON check, cJSON, the field validation of a JSON submit), and a
 * JSON body for another route through zp__api_parse_json.
 *
 * The engine behind the handler has no keys, so an accepted request ends at
 * the "unknown key" pre-check: nothing is queued or proved, and no witness
 * path is opened (allow_witness_path is off too). The binary-witness form
 * reads its fields from the query string, which needs a live libmicrohttpd
 * connection, so it is not driven here; its .wtns body is fuzz_wtns's.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "server/api.h"
#include "server/server.h"

static zp_engine *engine;
static zp__srv srv;

static void close_engine(void)
{
    zp_engine_close(engine);
    engine = NULL;
}

static bool setup(void)
{
    if (engine)
        return true;
    zp_engine_config c;
    zp_engine_config_default(&c);
    c.cpu_workers = 1;
    c.threads_per_worker = 1;
    c.gpus = 0;
    if (zp_engine_open(&engine, &c) != ZP_OK)
        return false;
    atexit(close_engine);
    zp__srv_config_default(&srv.cfg);
    srv.cfg.allow_witness_path = false;
    srv.eng = engine;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!setup())
        abort();
    const uint8_t *nl = memchr(data, '\n', size);
    size_t line = nl ? (size_t)(nl - data) : size;
    if (line > 512)
        return 0;
    char method[16] = "", path[512] = "";
    const uint8_t *sp = memchr(data, ' ', line);
    if (!sp || (size_t)(sp - data) >= sizeof method)
        return 0;
    memcpy(method, data, (size_t)(sp - data));
    size_t plen = line - (size_t)(sp - data) - 1;
    memcpy(path, sp + 1, plen);
    path[plen] = 0;
    if (memchr(method, 0, (size_t)(sp - data)) || memchr(path, 0, plen))
        return 0;

    /* The body in its own exact-size block, as http.c hands it over. */
    size_t blen = nl ? size - line - 1 : 0;
    uint8_t *body = malloc(blen ? blen : 1);
    if (!body)
        return 0;
    if (blen)
        memcpy(body, nl + 1, blen);

    zp__route_match m;
    const char *allow = NULL;
    unsigned st = zp__route(&m, method, path, &allow);
    zp__srv_reply out = {0};
    if (st == 0) {
        uint8_t *take = body;
        zp__srv_req r = {.srv = &srv, .method = method, .path = path,
                         .param = m.has_param ? m.param : NULL, .body = body, .len = blen,
                         .body_binary = false, .take_body = &take};
        if (m.fn == zp__api_submit) {
            zp__api_submit(&out, &r);
            if (out.status < 400 || !out.body)
                abort(); /* no key exists: every submit must be refused */
            body = take;
        } else if (m.body == ZP__BODY_JSON && blen) {
            cJSON_Delete(zp__api_parse_json(&r, &out));
        }
    } else if (st < 400 || st > 405) {
        abort();
    }
    free(out.body);
    free(body);
    return 0;
}
