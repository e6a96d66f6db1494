/* The client's transport in a build without libcurl: every request fails
 * and says how to get the client commands. */
#include <stdio.h>
#include <string.h>

#include "client/client.h"

bool zp__http_do(zp__http_resp *out, const zp__cli_addr *a, const char *token, const char *method,
                 const char *target, const zp__http_body *body, double timeout_s, size_t max_resp,
                 char *why, size_t n)
{
    (void)a, (void)token, (void)method, (void)target, (void)body, (void)timeout_s, (void)max_resp;
    memset(out, 0, sizeof *out);
    snprintf(why, n, "%s", ZP__HTTP_NO_CLIENT);
    return false;
}
