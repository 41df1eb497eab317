#include <cuda_runtime.h>

template <typename T, int UNROLL>
__global__ void copy_k(const T *src, T *dst, int n)
{
	int i = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
	for (int u = 0; u < UNROLL; u++)
		if (i + u < n) dst[i + u] = src[i + u];
}

template <typename T>
struct Twice { __device__ T operator()(T v) const { return v + v; } };

#pragma egg optimize in(src[n]) out(dst[n]) workload(n = 1 << 20)
void copy_floats(const float *src, float *dst, int n)
{
	copy_k<float, 4><<<(n + 1023) / 1024, 256>>>(src, dst, n);
}
