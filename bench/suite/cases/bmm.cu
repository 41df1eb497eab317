// egg-bench: family = gemm
// egg-bench: flops = 2 * batch * m * n * k
// Batched matmul (torch.bmm) with a 3-D grid: z picks the matrix of the batch.
#include <cuda_runtime.h>

__global__ void bmm_kernel(const float *a, const float *b, float *c, int m, int n, int k)
{
	int z = blockIdx.z;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= m || j >= n)
		return;
	const float *pa = a + (size_t)z * m * k;
	const float *pb = b + (size_t)z * k * n;
	float acc = 0.0f;
	for (int p = 0; p < k; ++p)
		acc += pa[i * k + p] * pb[p * n + j];
	c[(size_t)z * m * n + i * n + j] = acc;
}

#pragma egg optimize in(a[batch * m * k], b[batch * k * n]) out(c[batch * m * n]) \
	workload(batch = 16, m = 1024, n = 1024, k = 1024) \
	workload(batch = 3, m = 100, n = 65, k = 513) \
	tolerance(rtol = 1e-3, atol = 1e-3)
void bmm(const float *a, const float *b, float *c, int batch, int m, int n, int k)
{
	dim3 block(32, 8);
	dim3 grid((n + 31) / 32, (m + 7) / 8, batch);
	bmm_kernel<<<grid, block>>>(a, b, c, m, n, k);
}
