#include <cuda_runtime.h>

#define ELEMENTWISE(name, op) \
	__global__ void name##_k(const float *x, float *y, int n) \
	{ \
		int i = blockIdx.x * blockDim.x + threadIdx.x; \
		if (i < n) y[i] = op(x[i]); \
	} \
	void name(const float *x, float *y, int n) \
	{ \
		name##_k<<<(n + 255) / 256, 256>>>(x, y, n); \
	}

__device__ inline float halve(float v) { return 0.5f * v; }

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20)
ELEMENTWISE(halve_all, halve)
