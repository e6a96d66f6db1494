/* A circom .r1cs (zp__r1cs_parse). */
#include "fuzz.h"
#include "io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zp__r1cs cs;
    zp__ioerr why;
    if (zp__r1cs_parse(&cs, data, size, &why) == ZP_OK)
        zp__r1cs_free(&cs);
    return 0;
}
