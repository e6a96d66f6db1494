/*
 * The daemon's client side (libzkpipe_client): HTTP/1.1 requests over a
 * unix or TCP socket, through libcurl (client_http.c; a build without
 * libcurl has client_http_none.c, whose requests all fail). client_cmd.h
 * builds the client commands' options and calls on it. The byte codecs of
 * proofs in JSON are base/codec.h.
 */
#ifndef ZP_CLIENT_H
#define ZP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ client */

/* Where the daemon is: "unix:///path" or "http://host:port" (also
 * "tcp://host:port"). */
typedef struct zp__cli_addr {
    bool is_unix;
    char path[108];
    char host[256];
    char port[8];
} zp__cli_addr;

bool zp__cli_addr_parse(zp__cli_addr *out, const char *spec, char *why, size_t why_len);

typedef struct zp__http_resp {
    int status;             /* 0: no response (transport error, see why) */
    char *body;             /* malloc'd, NUL-terminated */
    size_t len;
    char ctype[128];
} zp__http_resp;

void zp__http_resp_free(zp__http_resp *r);

/* A request body: bytes in memory, or a file streamed from disk. */
typedef struct zp__http_body {
    const void *data;
    size_t len;
    int fd;                 /* >= 0: stream len bytes from this file instead */
    const char *ctype;
    bool chunked;           /* send with Transfer-Encoding: chunked */
} zp__http_body;

/*
 * One request on a fresh connection. token may be NULL. A body is sent
 * after "Expect: 100-continue"; an answer that comes before it (401, 413)
 * is the response, and the body is not sent. The response body is bounded
 * by max_resp bytes. timeout_s bounds connecting and each stretch in which
 * no byte moves either way (not the whole exchange), so a long-poll needs
 * timeout_s above its wait. Returns false with why, which names the
 * address, on a transport error (connect, I/O, timeout, malformed or
 * oversized response); in a build without libcurl, always, with why
 * ZP__HTTP_NO_CLIENT.
 */
#define ZP__HTTP_NO_CLIENT                                                                      \
    "this zkpipe was built without libcurl, which the daemon's clients need (install "         \
    "libcurl4-openssl-dev, e.g. with scripts/deps.sh, and rebuild)"

bool zp__http_do(zp__http_resp *out, const zp__cli_addr *a, const char *token, const char *method,
                 const char *target, const zp__http_body *body, double timeout_s, size_t max_resp,
                 char *why, size_t why_len);

#endif
