#include <cuda_runtime.h>

/* A comment that mentions __device__ and __global__ must never be taken for
 * the target's attributes. */
#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20) launch((n + 255) / 256, 256)
// this one runs on the __device__
__global__ // the kernel
void copy_kernel(const float *x, float *y, int n) // copies
{
	int i = blockIdx.x * blockDim.x + threadIdx.x; // index
	if (i < n) y[i] = x[i];
}
