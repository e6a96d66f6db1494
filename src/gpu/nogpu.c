/* Built instead of the CUDA backend when nvcc is absent. */
#include "gpu/gpu.h"

int zp__gpu_count(void) { return 0; }
bool zp__gpu_compiled(void) { return false; }
