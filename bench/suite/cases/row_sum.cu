// egg-bench: family = row-reduction
// egg-bench: flops = rows * cols
// Sum of each row, one thread per row walking its row (torch.sum(x, dim=1)).
#include <cuda_runtime.h>

__global__ void sum_rows(const float *x, float *out, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < rows) {
		float acc = 0.0f;
		for (int c = 0; c < cols; ++c)
			acc += x[r * cols + c];
		out[r] = acc;
	}
}

#pragma egg optimize in(x[rows * cols]) out(out[rows]) \
	workload(rows = 16384, cols = 4096) workload(rows = 1000, cols = 999) \
	tolerance(rtol = 1e-4, atol = 2e-3)
void row_sum(const float *x, float *out, int rows, int cols)
{
	sum_rows<<<(rows + 127) / 128, 128>>>(x, out, rows, cols);
}
