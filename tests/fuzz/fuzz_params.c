/* A bellperson .params proving key (zp__params_parse, one thread). */
#include "fuzz.h"
#include "io/bellperson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zp__pk pk;
    zp__ioerr why;
    if (zp__params_parse(&pk, data, size, 1, &why) == ZP_OK)
        zp__pk_free(&pk);
    return 0;
}
