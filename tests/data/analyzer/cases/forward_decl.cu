#include <cuda_runtime.h>

__device__ float helper(float v);
__global__ void fwd_k(const float *x, float *y, int n);

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20)
void fwd(const float *x, float *y, int n)
{
	fwd_k<<<(n + 255) / 256, 256>>>(x, y, n);
}

__global__ void fwd_k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = helper(x[i]);
}

__device__ float helper(float v) { return v * 3.f; }
