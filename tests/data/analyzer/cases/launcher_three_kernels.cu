#include <cuda_runtime.h>

__device__ float clamp01(float v) { return v < 0.f ? 0.f : (v > 1.f ? 1.f : v); }
__device__ float smooth(float v) { return v * v * (3.f - 2.f * v); }
__device__ float never_called(float v) { return v; }

__global__ void stage1(const float *x, float *t, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) t[i] = clamp01(x[i]);
}

__global__ void stage2(float *t, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) t[i] = smooth(t[i]);
}

__global__ void stage3(const float *t, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = clamp01(t[i] * 2.f);
}

#pragma egg optimize in(x[n]) temp(t[n]) out(y[n]) workload(n = 1 << 16) workload(n = 1000)
void pipeline(const float *x, float *t, float *y, int n)
{
	dim3 grid((n + 255) / 256), block(256);
	stage1<<<grid, block>>>(x, t, n);
	stage2<<<grid, block>>>(t, n);
	stage3<<<grid, block>>>(t, y, n);
}
