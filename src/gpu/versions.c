/* The CUDA driver's and runtime's versions (gpu.h): host C code on the
 * runtime's API, in builds with CUDA. */
#include <cuda_runtime_api.h>

#include "gpu/gpu.h"

void zp__gpu_cuda_versions(int *driver, int *runtime)
{
    /* Neither call needs a device nor leaves an error behind; a machine
     * without a driver gets 0 from the first. */
    if (cudaDriverGetVersion(driver) != cudaSuccess)
        *driver = 0;
    if (cudaRuntimeGetVersion(runtime) != cudaSuccess)
        *runtime = 0;
}
