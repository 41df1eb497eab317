// egg-bench: family = elementwise
// egg-bench: flops = n
// ReLU over a flat tensor, one thread per element (KernelBench level 1 style).
#include <cuda_runtime.h>

__global__ void relu_kernel(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 26) workload(n = 1000003)
void relu_forward(const float *x, float *y, int n)
{
	int threads = 256;
	int blocks = (n + threads - 1) / threads;
	relu_kernel<<<blocks, threads>>>(x, y, n);
}
