/* A .wtns: the declared count (as the daemon's pre-check reads it), then
 * the whole witness, then a decode into a caller buffer of that count. */
#include <stdlib.h>

#include "fuzz.h"
#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zp__ioerr why;
    uint64_t count = 0, n = 0;
    zp_err ec = zp__wtns_count(&count, data, size, &why);
    zp_fr *w = NULL;
    zp_err ep = zp__wtns_parse(&w, &n, data, size, 0, &why);
    if (ep == ZP_OK) {
        /* Both read the same header: a count the parse accepts is the count. */
        if (ec != ZP_OK || count != n)
            abort();
        zp_fr *into = malloc((n ? n : 1) * sizeof *into);
        if (into && zp__wtns_decode_into(into, n, data, size, &why) != ZP_OK)
            abort();
        free(into);
        free(w);
    }
    return 0;
}
