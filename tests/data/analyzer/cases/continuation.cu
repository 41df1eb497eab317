#include <cuda_runtime.h>

__global__ void saxpy_k(float a, const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}

#pragma egg optimize \
	in(x[n]) \
	inout(y[n]) \
	workload(n = 1 << 20, a = 2.0f) \
	tolerance(rtol = 1e-6, atol = 0)
void saxpy(float a, const float *x, float *y, int n)
{
	saxpy_k<<<(n + 255) / 256, 256>>>(a, x, y, n);
}
