#include <cuda_runtime.h>

static __global__ void abs_k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = fabsf(x[i]);
}

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20)
static void abs_all(const float *x, float *y, int n)
{
	abs_k<<<(n + 255) / 256, 256>>>(x, y, n);
}

void use_it(const float *x, float *y, int n) { abs_all(x, y, n); }
