// Spellings of element-wise maps seen in real code: a cache-hinted load
// (__ldg(&x[i]), __ldcs(x + i)), a launch configured through dim3 variables
// with a 64-bit count, and a __device__ function template whose arguments the
// call deduces.
#include <cuda_runtime.h>
#include <stdint.h>
#define BLOCK 256

__global__ void ldg_k(const float *__restrict__ x, const float *__restrict__ z, float *__restrict__ y, int64_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __expf(__ldg(&x[i])) * 0.5f + __ldcs(z + i);
}

#pragma egg optimize in(x[n], z[n]) out(y[n]) workload(n = 1 << 24) workload(n = 1001)
void exp_half(const float *x, const float *z, float *y, int64_t n)
{
	dim3 block(BLOCK);
	dim3 grid((n + block.x - 1) / block.x);
	ldg_k<<<grid, block>>>(x, z, y, n);
}

namespace act {
template <typename T>
__device__ T sigmoid(T v)
{
	return T(1) / (T(1) + exp(-v));
}
} // namespace act

__global__ void swish_k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] * act::sigmoid(x[i]);
}

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 24) workload(n = 1001)
void swish(const float *x, float *y, int n)
{
	swish_k<<<(n + 255) / 256, 256>>>(x, y, n);
}
