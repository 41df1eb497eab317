#include <cuda_runtime.h>

__device__ float fast_exp(float v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	return __expf(v);
#else
	return expf(v);
#endif
}

__global__ void exp_k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = fast_exp(x[i]);
}

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 18) tolerance(rtol = 1e-4, atol = 1e-6)
void exp_all(const float *x, float *y, int n)
{
	exp_k<<<(n + 255) / 256, 256>>>(x, y, n);
}
