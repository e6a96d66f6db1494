/*
 * Device discovery, the error boundary, the arena and streams. The arena is
 * the only cudaMalloc of a device's life; streams take their scratch from
 * it.
 */
#include <stdio.h>
#include <string.h>

#include "gpu/ctx.cuh"

static thread_local char last_error[512];

extern "C" const char *zp__gpu_last_error(void) { return last_error; }

/* Errors after which the context cannot be used again (CUDA runtime docs:
 * "the process must be terminated and relaunched"). */
static bool is_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorAssert:
    case cudaErrorContextIsDestroyed:
    case cudaErrorDevicesUnavailable:
        return true;
    default:
        return false;
    }
}

zp_err zp__gpu_fail(zp__gpu *g, cudaError_t e, const char *file, int line, const char *call)
{
    const char *base = strrchr(file, '/');
    snprintf(last_error, sizeof last_error, "%s:%d: %s: %s (%s)", base ? base + 1 : file,
             line, call, cudaGetErrorString(e), cudaGetErrorName(e));
    if (is_sticky(e)) {
        if (g)
            g->unhealthy = 1;
        return ZP_E_GPU_FATAL;
    }
    cudaGetLastError(); /* clear a non-sticky error so the next call is clean */
    if (e == cudaErrorMemoryAllocation)
        return ZP_E_GPU_OOM;
    return ZP_E_GPU;
}

static_assert(ZP__GPU_FAULT_STICKY == cudaErrorIllegalAddress &&
                  ZP__GPU_FAULT_LAUNCH_ERR == cudaErrorLaunchOutOfResources &&
                  ZP__GPU_FAULT_CALL_ERR == cudaErrorInvalidValue &&
                  ZP__GPU_FAULT_SYNC_ERR == cudaErrorUnknown,
              "fault.h's CUDA codes");

cudaError_t zp__gpu_fault_cuda(const zp__gpu *g, const char *call, cudaError_t e)
{
    if (!g || e != cudaSuccess)
        return e; /* a real error goes first */
    int code = zp__gpu_fault_take(g->device, zp__gpu_fault_kind_of(call));
    return code ? (cudaError_t)code : e;
}

extern "C" int zp__gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear the error of a machine without a GPU */
        return 0;
    }
    return n;
}

extern "C" bool zp__gpu_compiled(void) { return true; }

extern "C" void zp__gpu_config_default(zp__gpu_config *c)
{
    c->device = 0;
    c->arena_bytes = 0;
    c->reserve_bytes = ZP__GPU_RESERVE_BYTES;
    zp__gpu_msm_opts_default(&c->msm);
    c->ntt_tile_log = 0;
}

/* A kernel whose only use is to be loaded: cudaFuncGetAttributes on it
 * loads this file's image for the current device (JIT-compiling PTX where
 * there is no SASS), as any kernel of the build would be. */
static __global__ void arch_probe_kernel(void) {}

/* Whether a kernel's image fails to load for the device rather than the
 * call failing: no image, or PTX the driver cannot compile. */
static bool no_image(cudaError_t e)
{
    switch (e) {
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorInvalidPtx:
    case cudaErrorInvalidKernelImage:
    case cudaErrorJitCompilerNotFound:
    case cudaErrorJitCompilationDisabled:
        return true;
    default:
        return false;
    }
}

/* zp__gpu_device_check on the current device, whose properties are p:
 * the rules first, then the image loaded (the rules and the driver could
 * disagree on a build made in a way the list does not say). */
static zp_err arch_check(int device, const cudaDeviceProp *p, char *text, size_t len)
{
    const char *archs = zp__gpu_archs();
    unsigned image = 0;
    zp__gpu_arch_fit fit = zp__gpu_arch_fit_of(p->major, p->minor, archs, &image);
    zp__gpu_arch_describe(text, len, device, p->name, p->major, p->minor, archs, fit, image);
    if (fit != ZP_GPU_ARCH_SASS && fit != ZP_GPU_ARCH_PTX)
        return ZP_E_UNSUPPORTED;
    cudaFuncAttributes fa;
    cudaError_t e = cudaFuncGetAttributes(&fa, arch_probe_kernel);
    if (e == cudaSuccess)
        return ZP_OK;
    if (!no_image(e))
        return zp__gpu_fail(NULL, e, __FILE__, __LINE__, "cudaFuncGetAttributes(probe)");
    cudaGetLastError();
    snprintf(text, len,
             "GPU %d (%s, compute capability %d.%d): not supported: its kernels do not load: "
             "%s (%s); this build holds code for %s",
             device, p->name, p->major, p->minor, cudaGetErrorString(e), cudaGetErrorName(e),
             *archs ? archs : "none");
    return ZP_E_UNSUPPORTED;
}

extern "C" zp_err zp__gpu_device_check(int device, char *text, size_t len)
{
    if (len)
        text[0] = 0;
    if (device < 0 || device >= zp__gpu_count())
        return ZP_E_NO_GPU;
    cudaDeviceProp p;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess)
        e = cudaGetDeviceProperties(&p, device);
    if (e != cudaSuccess)
        return zp__gpu_fail(NULL, e, __FILE__, __LINE__, "device properties");
    return arch_check(device, &p, text, len);
}

/* The largest request the driver grants, from `want` down in 1/16 steps. */
static zp_err take_arena(zp__gpu *g, uint64_t want)
{
    uint64_t step = want / 16;
    for (uint64_t sz = want; sz >= ((uint64_t)64 << 20); sz -= step) {
        void *p = NULL;
        cudaError_t e = cudaMalloc(&p, sz);
        if (e == cudaSuccess) {
            g->base = (char *)p;
            return zp__arena_init(&g->arena, sz, 256);
        }
        if (e != cudaErrorMemoryAllocation)
            return zp__gpu_fail(g, e, __FILE__, __LINE__, "cudaMalloc(arena)");
        cudaGetLastError();
        if (step == 0)
            break;
    }
    snprintf(last_error, sizeof last_error, "arena: no allocation of at least 64 MiB");
    return ZP_E_GPU_OOM;
}

extern "C" zp_err zp__gpu_open(zp__gpu **out, const zp__gpu_config *cfg)
{
    *out = NULL;
    int count = zp__gpu_count();
    if (count == 0)
        return ZP_E_NO_GPU;
    if (cfg->device < 0 || cfg->device >= count ||
        (cfg->ntt_tile_log && (cfg->ntt_tile_log < 10 || cfg->ntt_tile_log > 11)))
        return ZP_E_INVALID_ARG;
    zp__gpu *g = (zp__gpu *)calloc(1, sizeof *g);
    if (!g)
        return ZP_E_NOMEM;
    g->device = cfg->device;
    g->msm = cfg->msm;
    g->ntt_tile_log = cfg->ntt_tile_log; /* 0: zp__gpu_ntt_tables_build picks */
    pthread_mutex_init(&g->lock, NULL);
    zp_err err = ZP_OK;
    do {
        cudaError_t e = cudaSetDevice(g->device);
        if (e == cudaSuccess)
            e = cudaGetDeviceProperties(&g->prop, g->device);
        if (e != cudaSuccess) {
            err = zp__gpu_fail(g, e, __FILE__, __LINE__, "device setup");
            break;
        }
        /* A GPU the build cannot serve is refused here, by name, before any
         * memory is taken: never at its first kernel, never a wrong result. */
        char why[sizeof last_error];
        err = arch_check(g->device, &g->prop, why, sizeof why);
        if (err == ZP_E_UNSUPPORTED)
            memcpy(last_error, why, sizeof last_error);
        if (err)
            break;
        size_t free_b = 0, total_b = 0;
        e = cudaMemGetInfo(&free_b, &total_b); /* once, at open */
        if (e != cudaSuccess) {
            err = zp__gpu_fail(g, e, __FILE__, __LINE__, "device setup");
            break;
        }
        uint64_t want = cfg->arena_bytes;
        if (want == 0)
            want = free_b > cfg->reserve_bytes ? free_b - cfg->reserve_bytes : free_b / 2;
        err = take_arena(g, want);
        if (err)
            break;
        if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
            g->free_at_open = free_b;
        err = zp__gpu_ntt_tables_build(g);
    } while (0);
    if (err) {
        zp__gpu_close(g);
        return err;
    }
    *out = g;
    return ZP_OK;
}

extern "C" void zp__gpu_close(zp__gpu *g)
{
    if (!g)
        return;
    cudaSetDevice(g->device);
    if (g->tables.ptr)
        zp__gpu_free(g, &g->tables);
    if (g->base)
        cudaFree(g->base);
    zp__arena_destroy(&g->arena);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

extern "C" bool zp__gpu_healthy(const zp__gpu *g) { return g && !g->unhealthy; }

extern "C" void zp__gpu_slots_add(zp__gpu *g, int d)
{
    __atomic_fetch_add(&g->slots, d, __ATOMIC_RELAXED);
}
extern "C" int zp__gpu_slots(zp__gpu *g) { return __atomic_load_n(&g->slots, __ATOMIC_RELAXED); }

extern "C" void zp__gpu_get_msm_opts(const zp__gpu *g, zp__gpu_msm_opts *out) { *out = g->msm; }

extern "C" void zp__gpu_get_info(zp__gpu *g, zp__gpu_info *out)
{
    memset(out, 0, sizeof *out);
    size_t len = strnlen(g->prop.name, sizeof out->name - 1);
    memcpy(out->name, g->prop.name, len);
    out->name[len] = 0;
    out->sm_count = g->prop.multiProcessorCount;
    out->cc_major = g->prop.major;
    out->cc_minor = g->prop.minor;
    out->total_mem = g->prop.totalGlobalMem;
    out->ntt_tile_log = g->ntt_tile_log;
    pthread_mutex_lock(&g->lock);
    out->arena_bytes = g->arena.size;
    out->arena_used = g->arena.used;
    out->arena_largest_free = zp__arena_largest(&g->arena);
    pthread_mutex_unlock(&g->lock);
}

extern "C" zp_err zp__gpu_outside(zp__gpu *g, uint64_t *free_at_open, uint64_t *free_now)
{
    /* The caller's current device is put back: any thread may ask. */
    size_t free_b = 0, total_b = 0;
    int was = -1;
    cudaError_t e = cudaGetDevice(&was);
    if (e == cudaSuccess)
        e = cudaSetDevice(g->device);
    if (e == cudaSuccess)
        e = cudaMemGetInfo(&free_b, &total_b);
    if (was >= 0 && was != g->device)
        cudaSetDevice(was);
    if (e != cudaSuccess)
        return zp__gpu_fail(g, e, __FILE__, __LINE__, "cudaMemGetInfo");
    *free_at_open = g->free_at_open;
    *free_now = free_b;
    return ZP_OK;
}

static zp_err carve(zp__gpu *g, zp__gpu_buf *out, uint64_t bytes, bool high)
{
    uint64_t off = 0;
    zp_err err = ZP_E_GPU_OOM; /* a test's fault (fault.h): the arena is full for it */
    if (!zp__gpu_fault_armed() || !zp__gpu_fault_take(g->device, ZP_GPU_FAULT_ARENA)) {
        pthread_mutex_lock(&g->lock);
        err = high ? zp__arena_alloc_high(&g->arena, &off, bytes)
                   : zp__arena_alloc(&g->arena, &off, bytes);
        pthread_mutex_unlock(&g->lock);
    }
    if (err) {
        out->ptr = NULL;
        out->bytes = 0;
        if (err == ZP_E_GPU_OOM)
            snprintf(last_error, sizeof last_error, "arena: %llu bytes do not fit",
                     (unsigned long long)bytes);
        return err;
    }
    out->ptr = g->base + off;
    out->bytes = bytes;
    return ZP_OK;
}

extern "C" zp_err zp__gpu_alloc(zp__gpu *g, zp__gpu_buf *out, uint64_t bytes)
{
    return carve(g, out, bytes, false);
}

extern "C" zp_err zp__gpu_alloc_high(zp__gpu *g, zp__gpu_buf *out, uint64_t bytes)
{
    return carve(g, out, bytes, true);
}

extern "C" void zp__gpu_free(zp__gpu *g, zp__gpu_buf *buf)
{
    if (!buf->ptr)
        return;
    pthread_mutex_lock(&g->lock);
    zp__arena_free(&g->arena, (uint64_t)((char *)buf->ptr - g->base), buf->bytes);
    pthread_mutex_unlock(&g->lock);
    buf->ptr = NULL;
    buf->bytes = 0;
}

/* copy: a stream for copies and waits only, without the scratch that
 * kernels use (zp__gpu_stream_open_copy). rank: as
 * zp__gpu_stream_open_ranked; -1 the least priority. */
static zp_err stream_open(zp__gpu *g, zp__gpu_stream **out, bool copy, int rank)
{
    *out = NULL;
    zp__gpu_stream *s = (zp__gpu_stream *)calloc(1, sizeof *s);
    if (!s)
        return ZP_E_NOMEM;
    s->g = g;
    zp_err err = ZP_OK;
    do {
        cudaError_t e = cudaSetDevice(g->device);
        int least = 0, greatest = 0;
        if (e == cudaSuccess && rank >= 0)
            e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
        /* Numerically lower is the greater priority: greatest <= least. */
        const int prio = rank < 0 || rank >= least - greatest ? least : greatest + rank;
        if (e == cudaSuccess)
            e = cudaStreamCreateWithPriority(&s->st, cudaStreamNonBlocking, prio);
        if (e == cudaSuccess && !copy)
            e = cudaMallocHost(&s->host, ZP__STREAM_HOST_BYTES);
        for (int i = 0; i < ZP__STREAM_EVENTS && e == cudaSuccess && !copy; i++)
            e = cudaEventCreate(&s->ev[i]);
        for (int i = 0; i < 2 && e == cudaSuccess && !copy; i++)
            e = cudaEventCreate(&s->clk[i]);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&s->dep, cudaEventDisableTiming);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&s->mark, cudaEventDisableTiming);
        if (e != cudaSuccess) {
            err = zp__gpu_fail(g, e, __FILE__, __LINE__, "stream setup");
            break;
        }
        if (!copy)
            err = zp__gpu_alloc(g, &s->dev, ZP__STREAM_DEV_BYTES);
    } while (0);
    if (err) {
        zp__gpu_stream_close(s);
        return err;
    }
    *out = s;
    return ZP_OK;
}

extern "C" zp_err zp__gpu_stream_open(zp__gpu *g, zp__gpu_stream **out)
{
    return stream_open(g, out, false, -1);
}

extern "C" zp_err zp__gpu_stream_open_ranked(zp__gpu *g, zp__gpu_stream **out, unsigned rank)
{
    return stream_open(g, out, false, rank > 1024 ? 1024 : (int)rank);
}

extern "C" zp_err zp__gpu_stream_open_copy(zp__gpu *g, zp__gpu_stream **out)
{
    return stream_open(g, out, true, -1);
}

extern "C" int zp__gpu_stream_priority(const zp__gpu_stream *s)
{
    int p = 0;
    if (cudaStreamGetPriority(s->st, &p) != cudaSuccess)
        return 0;
    return p;
}

extern "C" void zp__gpu_stream_close(zp__gpu_stream *s)
{
    if (!s)
        return;
    cudaSetDevice(s->g->device);
    if (s->st) {
        cudaStreamSynchronize(s->st); /* nothing may still use s->dev */
        cudaStreamDestroy(s->st);
    }
    if (s->host)
        cudaFreeHost(s->host);
    for (int i = 0; i < ZP__STREAM_EVENTS; i++)
        if (s->ev[i])
            cudaEventDestroy(s->ev[i]);
    if (s->dep)
        cudaEventDestroy(s->dep);
    if (s->mark)
        cudaEventDestroy(s->mark);
    for (int i = 0; i < 2; i++)
        if (s->clk[i])
            cudaEventDestroy(s->clk[i]);
    zp__gpu_free(s->g, &s->dev);
    free(s);
}

extern "C" void zp__gpu_stream_profile(zp__gpu_stream *s, bool on) { s->profile = on; }

extern "C" zp_err zp__gpu_stream_sync(zp__gpu_stream *s)
{
    zp__gpu *g = s->g;
    ZP_CUDA(cudaStreamSynchronize(s->st));
    return ZP_OK;
}

extern "C" zp_err zp__gpu_device_sync(zp__gpu *g)
{
    ZP_CUDA(cudaSetDevice(g->device));
    ZP_CUDA(cudaDeviceSynchronize());
    return ZP_OK;
}

extern "C" zp_err zp__gpu_stream_after(zp__gpu_stream *waiter, zp__gpu_stream *s)
{
    zp__gpu *g = s->g;
    ZP_CUDA(cudaSetDevice(g->device));
    ZP_CUDA(cudaEventRecord(s->dep, s->st));
    ZP_CUDA(cudaStreamWaitEvent(waiter->st, s->dep, 0));
    return ZP_OK;
}

extern "C" zp_err zp__gpu_stream_mark(zp__gpu_stream *s)
{
    zp__gpu *g = s->g;
    ZP_CUDA(cudaSetDevice(g->device));
    ZP_CUDA(cudaEventRecord(s->mark, s->st));
    return ZP_OK;
}

extern "C" zp_err zp__gpu_stream_after_mark(zp__gpu_stream *waiter, zp__gpu_stream *s)
{
    zp__gpu *g = s->g;
    ZP_CUDA(cudaSetDevice(g->device));
    ZP_CUDA(cudaStreamWaitEvent(waiter->st, s->mark, 0));
    return ZP_OK;
}

extern "C" zp_err zp__gpu_stream_mark_sync(zp__gpu_stream *s)
{
    zp__gpu *g = s->g;
    ZP_CUDA(cudaSetDevice(g->device));
    ZP_CUDA(cudaEventSynchronize(s->mark));
    return ZP_OK;
}

extern "C" zp_err zp__gpu_stream_clock(zp__gpu_stream *s, unsigned which)
{
    zp__gpu *g = s->g;
    if (which > 1 || !s->clk[which])
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    ZP_CUDA(cudaEventRecord(s->clk[which], s->st));
    return ZP_OK;
}

extern "C" zp_err zp__gpu_stream_clock_ms(zp__gpu_stream *s, double *ms)
{
    zp__gpu *g = s->g;
    float f = 0;
    *ms = 0;
    if (!s->clk[0])
        return ZP_E_INVALID_ARG;
    ZP_CUDA(cudaSetDevice(g->device));
    ZP_CUDA(cudaEventSynchronize(s->clk[1]));
    ZP_CUDA(cudaEventElapsedTime(&f, s->clk[0], s->clk[1]));
    *ms = f;
    return ZP_OK;
}

extern "C" zp_err zp__gpu_upload(zp__gpu_stream *s, void *dev, const void *host, uint64_t bytes)
{
    zp__gpu *g = s->g;
    ZP_CUDA(cudaSetDevice(g->device));
    ZP_CUDA(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s->st));
    return ZP_OK;
}

extern "C" zp_err zp__gpu_download(zp__gpu_stream *s, void *host, const void *dev, uint64_t bytes)
{
    zp__gpu *g = s->g;
    ZP_CUDA(cudaSetDevice(g->device));
    ZP_CUDA(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s->st));
    return ZP_OK;
}

extern "C" zp_err zp__gpu_memset0(zp__gpu_stream *s, void *dev, uint64_t bytes)
{
    zp__gpu *g = s->g;
    ZP_CUDA(cudaSetDevice(g->device));
    ZP_CUDA(cudaMemsetAsync(dev, 0, bytes, s->st));
    return ZP_OK;
}

extern "C" zp_err zp__gpu_time_ms(zp__gpu_stream *s, zp_err (*fn)(void *ctx), void *ctx,
                                  float *ms)
{
    zp__gpu *g = s->g;
    cudaEvent_t a = NULL, b = NULL;
    ZP_CUDA(cudaSetDevice(g->device));
    ZP_CUDA(cudaEventCreate(&a));
    cudaError_t e = cudaEventCreate(&b);
    if (e != cudaSuccess) {
        cudaEventDestroy(a);
        return zp__gpu_fail(g, e, __FILE__, __LINE__, "cudaEventCreate");
    }
    zp_err err = ZP_OK;
    e = cudaEventRecord(a, s->st);
    if (e == cudaSuccess) {
        err = fn(ctx);
        if (!err)
            e = cudaEventRecord(b, s->st);
        if (!err && e == cudaSuccess)
            e = cudaEventSynchronize(b);
        if (!err && e == cudaSuccess)
            e = cudaEventElapsedTime(ms, a, b);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    if (!err && e != cudaSuccess)
        err = zp__gpu_fail(g, e, __FILE__, __LINE__, "event timing");
    return err;
}

/* ------------------------------------------------- field ops for tests */

template <class T, T (*OP)(const T &, const T &)>
static __global__ void binop_kernel(T *out, const T *a, const T *b, uint64_t n)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = OP(a[i], b[i]);
}

static __device__ fp2_t fp2_sqr_first(const fp2_t &a, const fp2_t &) { return fp2_sqr(a); }
static __device__ fp_t fp_mul_ref(const fp_t &a, const fp_t &b) { return fp_mul(a, b); }
static __device__ fp_t fp_sqr_first(const fp_t &a, const fp_t &) { return fp_sqr(a); }
static __device__ fp_t fp_inv_first(const fp_t &a, const fp_t &) { return fp_inv(a); }

template <class T, T (*OP)(const T &, const T &)>
static zp_err launch_binop(zp__gpu_stream *s, void *out, const void *a, const void *b,
                           uint64_t n)
{
    zp__gpu *g = s->g;
    if (n == 0)
        return ZP_OK;
    binop_kernel<T, OP><<<zp__ceil_div_u(n, 128), 128, 0, s->st>>>(
        (T *)out, (const T *)a, (const T *)b, n);
    ZP_CUDA_LAUNCHED();
    return ZP_OK;
}

extern "C" zp_err zp__gpu_field_op_run(zp__gpu_stream *s, zp__gpu_field_op op, void *d_out,
                                       const void *d_a, const void *d_b, uint64_t n)
{
    zp__gpu *g = s->g;
    ZP_CUDA(cudaSetDevice(g->device));
    switch (op) {
    case ZP_GPU_FP_MUL: return launch_binop<fp_t, fp_mul_ref>(s, d_out, d_a, d_b, n);
    case ZP_GPU_FP_ADD: return launch_binop<fp_t, fp_add>(s, d_out, d_a, d_b, n);
    case ZP_GPU_FP_SUB: return launch_binop<fp_t, fp_sub>(s, d_out, d_a, d_b, n);
    case ZP_GPU_FR_MUL: return launch_binop<fr_t, fr_mul>(s, d_out, d_a, d_b, n);
    case ZP_GPU_FR_ADD: return launch_binop<fr_t, fr_add>(s, d_out, d_a, d_b, n);
    case ZP_GPU_FR_SUB: return launch_binop<fr_t, fr_sub>(s, d_out, d_a, d_b, n);
    case ZP_GPU_FP2_MUL: return launch_binop<fp2_t, fp2_mul>(s, d_out, d_a, d_b, n);
    case ZP_GPU_FP2_SQR: return launch_binop<fp2_t, fp2_sqr_first>(s, d_out, d_a, d_b, n);
    case ZP_GPU_FP_SQR: return launch_binop<fp_t, fp_sqr_first>(s, d_out, d_a, d_b, n);
    case ZP_GPU_FP_INV: return launch_binop<fp_t, fp_inv_first>(s, d_out, d_a, d_b, n);
    }
    return ZP_E_INVALID_ARG;
}
