// egg-bench: family = scan
// egg-bench: flops = rows * cols
// Row-wise cumulative product (torch.cumprod(x, dim=1)), one thread per row.
#include <cuda_runtime.h>

__global__ void cumprod_kernel(const float *x, float *y, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows) return;
	float p = 1.0f;
	for (int j = 0; j < cols; j++) {
		p *= x[row * cols + j];
		y[row * cols + j] = p;
	}
}

#pragma egg optimize in(x[rows * cols]) out(y[rows * cols]) \
	workload(rows = 16384, cols = 4096) workload(rows = 999, cols = 257) \
	tolerance(rtol = 1e-3, atol = 1e-5)
void cumprod(const float *x, float *y, int rows, int cols)
{
	const int bs = 128;
	cumprod_kernel<<<(rows + bs - 1) / bs, bs>>>(x, y, rows, cols);
}
