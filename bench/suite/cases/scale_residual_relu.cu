// egg-bench: family = chain
// egg-bench: flops = 3 * n
// y = relu(alpha * x + residual) as three separate launches through a scratch buffer
// (a KernelBench level 2 style chain of small ops).
#include <cuda_runtime.h>

__global__ void scale_kernel(const float *x, float *t, float alpha, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		t[i] = alpha * x[i];
}

__global__ void add_kernel(float *t, const float *r, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		t[i] = t[i] + r[i];
}

__global__ void relu_copy_kernel(const float *t, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(t[i], 0.0f);
}

#pragma egg optimize in(x[n], residual[n]) out(y[n]) temp(tmp[n]) \
	workload(n = 1 << 26, alpha = 0.75) workload(n = 4099, alpha = -1.5)
void scale_residual_relu(const float *x, const float *residual, float *y, float *tmp, float alpha, int n)
{
	int block = 256, grid = (n + block - 1) / block;
	scale_kernel<<<grid, block>>>(x, tmp, alpha, n);
	add_kernel<<<grid, block>>>(tmp, residual, n);
	relu_copy_kernel<<<grid, block>>>(tmp, y, n);
}
