#include <cuda_runtime.h>

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1000000, a = 2.5f) launch((n + 255) / 256, 256)
__global__ void scale_kernel(const float *x, float *y, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i];
}
