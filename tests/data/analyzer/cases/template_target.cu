#include <cuda_runtime.h>

template <typename T>
__global__ void fill_k(T *dst, T v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) dst[i] = v;
}

#pragma egg optimize out(dst[n]) workload(n = 1 << 20)
template <typename T>
void fill(T *dst, T v, int n)
{
	fill_k<T><<<(n + 255) / 256, 256>>>(dst, v, n);
}

template void fill<float>(float *, float, int);
template void fill<int>(int *, int, int);
