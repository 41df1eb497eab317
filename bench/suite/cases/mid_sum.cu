// egg-bench: family = row-reduction
// egg-bench: flops = batch * dim * inner
// Sum over the middle dimension of a (batch, dim, inner) tensor (torch.sum(x, dim=1),
// KernelBench level 1): one thread per output, stepping by `inner`.
#include <cuda_runtime.h>

__global__ void reduce_dim1(const float *x, float *y, int batch, int dim, int inner)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	if (idx >= batch * inner)
		return;
	int b = idx / inner, i = idx % inner;
	float s = 0.0f;
	for (int d = 0; d < dim; d++)
		s += x[(b * dim + d) * inner + i];
	y[b * inner + i] = s;
}

#pragma egg optimize in(x[batch * dim * inner]) out(y[batch * inner]) \
	workload(batch = 64, dim = 512, inner = 2048) workload(batch = 3, dim = 100, inner = 257) \
	tolerance(rtol = 1e-4, atol = 1e-3)
void sum_dim1(const float *x, float *y, int batch, int dim, int inner)
{
	int n = batch * inner;
	reduce_dim1<<<(n + 255) / 256, 256>>>(x, y, batch, dim, inner);
}
