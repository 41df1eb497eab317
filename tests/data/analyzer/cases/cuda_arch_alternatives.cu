#include <cuda_runtime.h>

__device__ inline float three(void) { return 3.f; }

#ifdef __CUDA_ARCH__
#define FAST_MUL(a, b) __fmul_rn(a, b)
__device__ inline float scaled(float v) { return FAST_MUL(v, three()); }
#else
__device__ inline float scaled(float v) { return v * 3.f; }
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define USE_LDG 1
#else
#define USE_LDG 0
#endif

__global__ void scaled_k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
#if USE_LDG
	y[i] = scaled(__ldg(&x[i]));
#else
	y[i] = scaled(x[i]);
#endif
}

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20)
void scale3(const float *x, float *y, int n)
{
	scaled_k<<<(n + 255) / 256, 256>>>(x, y, n);
}
