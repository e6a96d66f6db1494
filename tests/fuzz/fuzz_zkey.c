/* A snarkjs .zkey (zp__zkey_parse): container, header, points, matrices. */
#include "fuzz.h"
#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zp__pk pk;
    zp__ioerr why;
    if (zp__zkey_parse(&pk, data, size, &why) == ZP_OK)
        zp__pk_free(&pk);
    return 0;
}
