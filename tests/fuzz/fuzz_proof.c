/* Proof bytes: one 192-byte proof (A ‖ B ‖ C, zcash compressed) when the
 * input is that long, and the concatenated form for up to 4 proofs. A
 * proof that decodes encodes back to the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "groth16/groth16.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zp__proof p[4];
    uint8_t back[ZP__PROOF_BYTES];
    if (zp__proof_decode(&p[0], data, size) == ZP_OK) {
        if (zp__proof_encode(back, &p[0]) != ZP_OK || memcmp(back, data, sizeof back) != 0)
            abort();
    }
    size_t k = 0;
    if (zp__proofs_decode(p, 4, &k, data, size) == ZP_OK) {
        for (size_t i = 0; i < k; i++)
            if (zp__proof_encode(back, &p[i]) != ZP_OK ||
                memcmp(back, data + i * ZP__PROOF_BYTES, sizeof back) != 0)
                abort();
    }
    return 0;
}
