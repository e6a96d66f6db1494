/*
 * The strict JSON parser and the snarkjs readers on top of it. The first
 * byte picks the reader (proof.json, public.json, vk.json, or the bare
 * parser with a walk over the tree, as input.json and the daemon's
 * request bodies are read); the rest is the text.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "io/io.h"

/* Touches every value, so that a tree the parser built wrong faults here. */
static size_t walk(const zp__jval *v, unsigned depth)
{
    size_t n = 1;
    if (depth > 100)
        abort();
    switch (v->type) {
    case ZP__J_STRING:
    case ZP__J_NUMBER:
        if (v->len && !v->str)
            abort();
        if (v->type == ZP__J_STRING && (v->str[v->len] != 0 || memchr(v->str, 0, v->len)))
            abort();
        break;
    case ZP__J_OBJECT:
        for (size_t i = 0; i < v->n; i++) {
            if (zp__json_get(v, v->keys[i]) != &v->items[i])
                abort();
            n += walk(&v->items[i], depth + 1);
        }
        break;
    case ZP__J_ARRAY:
        for (size_t i = 0; i < v->n; i++)
            n += walk(&v->items[i], depth + 1);
        break;
    default:
        break;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    zp__ioerr why;
    switch (data[0] % 4) {
    case 0: {
        zp__proof p;
        (void)zp__proof_from_json(&p, text, len, &why);
        break;
    }
    case 1: {
        zp_fr *pub = NULL;
        size_t n = 0;
        if (zp__public_from_json(&pub, &n, text, len, &why) == ZP_OK)
            free(pub);
        break;
    }
    case 2: {
        zp__vk vk;
        if (zp__vk_from_json(&vk, text, len, &why) == ZP_OK)
            zp__vk_free(&vk);
        break;
    }
    default: {
        zp__json doc;
        zp__json_limits lim;
        zp__json_limits_default(&lim);
        lim.max_depth = 32;
        if (zp__json_parse(&doc, text, len, &lim, &why) == ZP_OK) {
            walk(doc.root, 0);
            zp__json_free(&doc);
        }
        break;
    }
    }
    return 0;
}
