/* A bellperson .vk verifying key (zp__params_vk_parse). */
#include "fuzz.h"
#include "io/bellperson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zp__vk vk;
    zp__ioerr why;
    if (zp__params_vk_parse(&vk, data, size, &why) == ZP_OK)
        zp__vk_free(&vk);
    return 0;
}
