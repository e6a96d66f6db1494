/* Error codes and their messages. */
#include "zkpipe.h"

struct err_info {
    zp_err code;
    const char *name;
    const char *msg;
};

#define E(c, m) {c, #c, m}
static const struct err_info errs[] = {
    E(ZP_OK, "success"),
    E(ZP_E_INVALID_ARG, "invalid argument"),
    E(ZP_E_NOMEM, "out of host memory"),
    E(ZP_E_IO, "input/output error"),
    E(ZP_E_BAD_LENGTH, "input has the wrong length"),
    E(ZP_E_BAD_FLAGS, "point encoding has inconsistent flag bits"),
    E(ZP_E_NOT_CANONICAL, "field element is not below its modulus"),
    E(ZP_E_NOT_ON_CURVE, "point is not on the curve"),
    E(ZP_E_NOT_IN_SUBGROUP, "point is not in the prime-order subgroup"),
    E(ZP_E_INFINITY, "point at infinity is not allowed here"),
    E(ZP_E_FORMAT, "malformed file or structure"),
    E(ZP_E_BAD_PRIME, "file is for another field (only BLS12-381 is supported)"),
    E(ZP_E_TOO_LARGE, "a count or size exceeds its limit"),
    E(ZP_E_TRUNCATED, "input ends before its declared contents"),
    E(ZP_E_CHECKSUM, "checksum mismatch"),
    E(ZP_E_UNSATISFIED, "witness does not satisfy the constraint system"),
    E(ZP_E_VERIFY_FAILED, "proof does not verify"),
    E(ZP_E_WITNESS, "witness has the wrong length or an invalid value"),
    E(ZP_E_UNSUPPORTED, "not supported by this build"),
    E(ZP_E_NO_GPU, "no usable GPU"),
    E(ZP_E_GPU_OOM, "out of GPU memory"),
    E(ZP_E_GPU, "GPU error"),
    E(ZP_E_GPU_FATAL, "fatal GPU error; the device is unusable"),
    E(ZP_E_BUSY, "busy: queue is full"),
    E(ZP_E_TIMEOUT, "timed out"),
    E(ZP_E_CANCELLED, "cancelled"),
    E(ZP_E_NOT_FOUND, "not found"),
    E(ZP_E_EXISTS, "already exists with different contents"),
    E(ZP_E_SHUTDOWN, "engine is shutting down"),
    E(ZP_E_RANDOM, "OS random source failed"),
};
#undef E

static const struct err_info *lookup(zp_err e)
{
    for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++)
        if (errs[i].code == e)
            return &errs[i];
    return NULL;
}

const char *zp_strerror(zp_err e)
{
    const struct err_info *i = lookup(e);
    return i ? i->msg : "unknown error";
}

const char *zp_errname(zp_err e)
{
    const struct err_info *i = lookup(e);
    return i ? i->name : "ZP_E_UNKNOWN";
}
