/*
 * CPU feature switch for the x86-64 Montgomery kernels in mont_x86.h.
 * Non-x86 builds compile this file to nothing but a stub.
 */
#include "math/mont_x86.h"

#ifdef ZP__X86_ASM

#include <cpuid.h>

bool zp__x86_fast;

/* CPUID leaf 7, sub-leaf 0, EBX: bit 8 BMI2, bit 19 ADX. (Read directly:
 * clang's __builtin_cpu_supports does not know "adx".) */
bool zp__x86_cpu_has_fast(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    return (b >> 8 & 1) && (b >> 19 & 1);
}

/* Runs before main (and before any library call from main); a call from
 * another constructor that runs earlier just takes the portable path. */
__attribute__((constructor)) static void detect_fast(void)
{
    zp__x86_fast = zp__x86_cpu_has_fast();
}

bool zp__x86_set_fast(bool on, bool force)
{
    zp__x86_fast = on && (force || zp__x86_cpu_has_fast());
    return zp__x86_fast == on;
}

#else

/* Keep the translation unit non-empty for -Wpedantic builds. */
typedef int zp__mont_x86_unused;

#endif
