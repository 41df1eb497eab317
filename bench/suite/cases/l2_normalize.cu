// egg-bench: family = norm
// egg-bench: flops = 3 * rows * dim
// Rows scaled to unit L2 norm (F.normalize(x, dim=1)), one thread per row with two
// passes over it.
#include <cuda_runtime.h>
#include <math.h>

__global__ void l2norm_rows(const float *x, float *y, int rows, int dim, float eps)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float ss = 0.0f;
	for (int j = 0; j < dim; j++) {
		float v = x[r * dim + j];
		ss += v * v;
	}
	float inv = 1.0f / fmaxf(sqrtf(ss), eps);
	for (int j = 0; j < dim; j++)
		y[r * dim + j] = x[r * dim + j] * inv;
}

#pragma egg optimize in(x[rows * dim]) out(y[rows * dim]) \
	workload(rows = 16384, dim = 2048, eps = 1e-12) workload(rows = 45, dim = 999, eps = 1e-12) \
	tolerance(rtol = 1e-4, atol = 1e-5)
void l2_normalize(const float *x, float *y, int rows, int dim, float eps)
{
	l2norm_rows<<<(rows + 63) / 64, 64>>>(x, y, rows, dim, eps);
}
