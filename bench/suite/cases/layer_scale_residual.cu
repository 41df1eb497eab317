// egg-bench: family = chain
// egg-bench: flops = 2 * tokens * dim
// Layer scale then residual (CaiT / ConvNeXt): t = gamma * z per channel, y = x + t,
// two launches through a temporary.
#include <cuda_runtime.h>

__global__ void scale_channels(const float *z, const float *gamma, float *t, int n, int dim)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		t[i] = gamma[i % dim] * z[i];
}

__global__ void add_residual(const float *x, const float *t, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] + t[i];
}

#pragma egg optimize in(x[tokens * dim], z[tokens * dim], gamma[dim]) temp(t[tokens * dim]) \
	out(y[tokens * dim]) workload(tokens = 32768, dim = 1024) workload(tokens = 7, dim = 769)
void layer_scale_residual(const float *x, const float *z, const float *gamma, float *t, float *y,
			  int tokens, int dim)
{
	int n = tokens * dim;
	scale_channels<<<(n + 255) / 256, 256>>>(z, gamma, t, n, dim);
	add_residual<<<(n + 255) / 256, 256>>>(x, t, y, n);
}
