/*
 * The CUDA architectures of the build and which GPUs run them: the rules
 * by which the driver picks an image of a fat binary, as host code, so
 * that a GPU the build cannot serve is refused at open by name, and the
 * rules are unit-tested in every build (with or without CUDA).
 */
#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"

#ifndef ZP_CUDA_ARCHS
#define ZP_CUDA_ARCHS "" /* a build without CUDA */
#endif

const char *zp__gpu_archs(void) { return ZP_CUDA_ARCHS; }

/* One architecture of the list: compute capability (x 10) and variant. */
typedef struct arch {
    unsigned cc;
    char variant; /* 0, 'a' (that one GPU only) or 'f' (its family) */
} arch;

/* Reads "NN", "NNN" or either with 'a' / 'f' at *p, up to a space or the
 * end; false for anything else. */
static bool arch_read(const char **p, arch *out)
{
    const char *s = *p;
    unsigned cc = 0, digits = 0;
    while (*s >= '0' && *s <= '9' && digits < 4) {
        cc = cc * 10 + (unsigned)(*s++ - '0');
        digits++;
    }
    out->variant = 0;
    if (*s == 'a' || *s == 'f')
        out->variant = *s++;
    if (digits < 2 || digits > 3 || cc < 10 || (*s && *s != ' '))
        return false;
    out->cc = cc;
    *p = s;
    return true;
}

/* Whether SASS of a runs on a GPU of compute capability cc (x 10). */
static bool sass_runs(arch a, unsigned cc)
{
    if (a.variant == 'a')
        return cc == a.cc;
    return cc / 10 == a.cc / 10 && cc % 10 >= a.cc % 10;
}

/* Whether PTX of a is JIT-compiled for a GPU of compute capability cc. */
static bool ptx_runs(arch a, unsigned cc)
{
    if (a.variant == 'a')
        return cc == a.cc;
    if (a.variant == 'f')
        return sass_runs(a, cc);
    return cc >= a.cc;
}

zp__gpu_arch_fit zp__gpu_arch_fit_of(int major, int minor, const char *archs, unsigned *image)
{
    unsigned sass = 0, ptx = 0, cc = 0;
    bool in_ptx = false, bad = major < 0 || minor < 0 || minor > 9 || major > 99;
    if (!bad)
        cc = (unsigned)(major * 10 + minor);
    for (const char *p = archs ? archs : ""; *p && !bad;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        if (!strncmp(p, "+PTX", 4) && (p[4] == ' ' || !p[4]) && !in_ptx) {
            in_ptx = true;
            p += 4;
            continue;
        }
        arch a;
        if (!arch_read(&p, &a)) {
            bad = true;
            break;
        }
        if (!in_ptx && sass_runs(a, cc) && a.cc > sass)
            sass = a.cc;
        if (in_ptx && ptx_runs(a, cc) && a.cc > ptx)
            ptx = a.cc;
    }
    if (image)
        *image = 0;
    if (bad)
        return ZP_GPU_ARCH_BAD_LIST;
    if (cc < ZP_GPU_ARCH_MIN)
        return ZP_GPU_ARCH_TOO_OLD;
    if (image)
        *image = sass ? sass : ptx;
    return sass ? ZP_GPU_ARCH_SASS : ptx ? ZP_GPU_ARCH_PTX : ZP_GPU_ARCH_NO_IMAGE;
}

void zp__gpu_arch_describe(char *out, size_t len, int device, const char *name, int major,
                           int minor, const char *archs, zp__gpu_arch_fit fit, unsigned image)
{
    const char *built = archs && *archs ? archs : "none";
    int n = snprintf(out, len, "GPU %d (%s, compute capability %d.%d): ", device, name, major,
                     minor);
    if (n < 0 || (size_t)n >= len)
        return;
    out += n;
    len -= (size_t)n;
    switch (fit) {
    case ZP_GPU_ARCH_SASS:
        snprintf(out, len, "runs the sm_%u code", image);
        break;
    case ZP_GPU_ARCH_PTX:
        snprintf(out, len, "runs the compute_%u PTX, compiled by the driver when it loads",
                 image);
        break;
    case ZP_GPU_ARCH_TOO_OLD:
        snprintf(out, len,
                 "not supported: zkpipe needs compute capability %d.%d or newer "
                 "(this build: %s)",
                 ZP_GPU_ARCH_MIN / 10, ZP_GPU_ARCH_MIN % 10, built);
        break;
    case ZP_GPU_ARCH_NO_IMAGE:
        snprintf(out, len,
                 "not supported by this build, which holds code for %s only; rebuild with "
                 "%d%d-real in -DCMAKE_CUDA_ARCHITECTURES",
                 built, major, minor);
        break;
    case ZP_GPU_ARCH_BAD_LIST:
        snprintf(out, len, "the build's list of architectures does not parse: \"%s\"", built);
        break;
    }
}

/* ------------------------------------------------------- CUDA versions */

zp__cuda_fit zp__cuda_fit_of(int driver, int runtime)
{
    if (driver <= 0)
        return ZP_CUDA_FIT_NO_DRIVER;
    if (driver >= runtime)
        return ZP_CUDA_FIT_OK;
    return driver / 1000 == runtime / 1000 ? ZP_CUDA_FIT_MINOR : ZP_CUDA_FIT_TOO_OLD;
}

void zp__cuda_version_str(char *out, size_t len, int v)
{
    snprintf(out, len, "%d.%d", v / 1000, v % 1000 / 10);
}
