/*
 * The .zkey cache (keyfile.h): a snarkjs .zkey is checked in full once
 * (every point on the curve and in the subgroup, which is most of its load
 * time) and kept as a native .zpk; later loads of the same bytes map the
 * .zpk instead, checking its section checksums.
 *
 * The cache folder is $ZKPIPE_CACHE, else $XDG_CACHE_HOME/zkpipe, else
 * $HOME/.cache/zkpipe, made with mode 0700; ZKPIPE_CACHE=off turns the
 * cache off. An entry is named by the 64-bit hash and the size of the
 * .zkey's bytes, so an edited .zkey is a new entry; entries are written
 * atomically (temporary file and rename). A cache that cannot be read or
 * written never fails a command: the .zkey is loaded as without a cache.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/keyfile.h"
#include "io/zpk.h"

/* The cache folder into dir; false when the cache is off or no folder
 * can be named. */
static bool cache_dir(char *dir, size_t cap)
{
    const char *z = getenv("ZKPIPE_CACHE"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    int n;
    if (z && !strcmp(z, "off"))
        return false;
    if (z && *z)
        n = snprintf(dir, cap, "%s", z);
    else if (x && *x)
        n = snprintf(dir, cap, "%s/zkpipe", x);
    else if (h && *h)
        n = snprintf(dir, cap, "%s/.cache/zkpipe", h);
    else
        return false;
    return n > 0 && (size_t)n < cap;
}

/* mkdir -p with mode 0700 for the folders it makes. */
static bool make_dirs(const char *dir)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p)
        return false;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0700) && errno != EEXIST)
            return false;
        *s = '/';
    }
    return !mkdir(p, 0700) || errno == EEXIST;
}

bool zp__cli_cache_path(char *out, size_t cap, const char *zkey_path, int threads)
{
    char dir[4000];
    if (!cache_dir(dir, sizeof dir))
        return false;
    zp__buf buf;
    zp__ioerr why;
    /* Only a file we can map; the reader bounds it the same way. */
    if (zp__file_map(&buf, zkey_path, (uint64_t)1 << 46, &why))
        return false;
    uint64_t h = zp__hash64(buf.data, buf.len, threads);
    unsigned long long len = (unsigned long long)buf.len;
    const bool changed = zp__buf_changed(&buf); /* no name for a file cut meanwhile */
    zp__buf_free(&buf);
    if (changed)
        return false;
    int n = snprintf(out, cap, "%s/%016llx-%llu.zpk", dir, (unsigned long long)h, len);
    return n > 0 && (size_t)n < cap;
}

zp_err zp__cli_load_zkey_cached(zp__pk *pk, const char *path, int threads, bool *hit,
                                zp__ioerr *why)
{
    char cpath[4200];
    *hit = false;
    bool cache = zp__cli_cache_path(cpath, sizeof cpath, path, threads);
    if (cache && zp__zpk_load(pk, cpath, 0, threads, why) == ZP_OK) {
        *hit = true;
        return ZP_OK;
    }
    /* Missing, unreadable or corrupt: the .zkey itself, then a new entry. */
    zp_err e = zp__zkey_load(pk, path, why);
    if (e || !cache)
        return e;
    char dir[4000];
    zp__ioerr w;
    if (!cache_dir(dir, sizeof dir) || !make_dirs(dir) ||
        zp__zpk_save(cpath, pk, threads, &w) != ZP_OK)
        fprintf(stderr, "zkpipe: note: the key cache %s could not be written; the .zkey is "
                        "checked again next time\n", cache ? cpath : "");
    return ZP_OK;
}
