#include <cuda_runtime.h>

#define TAPS 5
__constant__ float weights[TAPS] = { 0.1f, 0.2f, 0.4f, 0.2f, 0.1f };
__constant__ int unused_table[3] = { 1, 2, 3 };
__device__ int hits;

__global__ void conv_k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < TAPS / 2 || i >= n - TAPS / 2) return;
	float s = 0.f;
	for (int k = 0; k < TAPS; k++)
		s += weights[k] * x[i + k - TAPS / 2];
	y[i] = s;
	atomicAdd(&hits, 1);
}

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20)
void conv1d(const float *x, float *y, int n)
{
	conv_k<<<(n + 255) / 256, 256>>>(x, y, n);
}
