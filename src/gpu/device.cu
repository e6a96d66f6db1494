/* Device discovery. */
#include <cuda_runtime.h>

extern "C" {
#include "gpu/gpu.h"
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
