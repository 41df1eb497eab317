#include <cuda_runtime.h>

template <typename T>
__device__ T relu1(T v) { return v > T(0) ? v : T(0); }

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20) launch((n + 255) / 256, 256)
template <typename T>
__global__ void relu_kernel(const T *x, T *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = relu1(x[i]);
}

template __global__ void relu_kernel<float>(const float *, float *, int);
template __global__ void relu_kernel<double>(const double *, double *, int);

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 4)
void twice(const float *x, float *y, int n)
{
	relu_kernel<float><<<1, 256>>>(x, y, n);
	relu_kernel<float><<<1, 256>>>(y, y, n);
}
