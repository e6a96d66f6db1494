/* Release of in-memory proving and verifying keys (key.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "io/key.h"

void zp__vk_free(zp__vk *vk)
{
    free(vk->ic);
    zp__vk_prep_free(atomic_load(&vk->prep));
    memset(vk, 0, sizeof *vk);
}

/* Safe on a partly built key: every pointer is NULL or owned. */
void zp__pk_free(zp__pk *pk)
{
    zp__vk_free(&pk->vk);
    if (pk->map_base) {
        munmap(pk->map_base, pk->map_len);
        memset(pk, 0, sizeof *pk);
        return;
    }
    zp__bitmap_free(&pk->a_density);
    zp__bitmap_free(&pk->b_density);
    free(pk->a);
    free(pk->b1);
    free(pk->b2);
    free(pk->l);
    free(pk->h);
    zp__csr_free(&pk->ma);
    zp__csr_free(&pk->mb);
    memset(pk, 0, sizeof *pk);
}
