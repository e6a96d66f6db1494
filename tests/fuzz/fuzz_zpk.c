/*
 * A .zpk (zp__zpk_header_parse on the bytes, then zp__zpk_load through a
 * memfd, since the loader only maps files). Checksums would stop almost
 * every mutation at the header, so the harness first writes the right
 * ones into its copy (section checksums, then the header's): what is
 * fuzzed is everything behind them. The checksum checks themselves are
 * plain comparisons, covered by test_zpk.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "io/zpk.h"
#include "io/zpk_impl.h"

static void fix_header_sum(uint8_t *p, size_t size)
{
    if (size >= ZP__ZPK_TABLE_END + 8)
        zp__put64(p + ZP__ZPK_TABLE_END, zp__hash64(p, ZP__ZPK_TABLE_END, 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *p = malloc(size ? size : 1);
    if (!p)
        return 0;
    memcpy(p, data, size);
    fix_header_sum(p, size);
    zp__zpk_header h;
    zp__ioerr why;
    if (zp__zpk_header_parse(&h, p, size, size, &why) == ZP_OK) {
        /* Sections lie inside the file once the header passes. */
        for (unsigned i = 0; i < ZP__ZPK_NSEC; i++) {
            const uint8_t *e = p + ZP__ZPK_TABLE + (size_t)i * ZP__ZPK_ENTRY;
            uint32_t id = zp__le32(e);
            if (id >= 1 && id <= ZP__ZPK_NSEC)
                zp__put64((uint8_t *)e + 24,
                          zp__hash64(p + h.sec[id].off, (size_t)h.sec[id].len, 1));
        }
        fix_header_sum(p, size);
    }
    int fd = memfd_create("fuzz.zpk", MFD_CLOEXEC);
    if (fd >= 0) {
        size_t done = 0;
        while (done < size) {
            ssize_t w = write(fd, p + done, size - done);
            if (w <= 0)
                break;
            done += (size_t)w;
        }
        if (done == size) {
            char path[64];
            snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
            zp__pk pk;
            if (zp__zpk_load(&pk, path, 0, 1, &why) == ZP_OK)
                zp__pk_free(&pk);
        }
        close(fd);
    }
    free(p);
    return 0;
}
