// egg-bench: family = row-reduction
// egg-bench: flops = rows * cols
// Column sums of a row-major matrix (torch.sum(x, dim=0)): one thread per column
// walking down the rows, so only `cols` threads run.
#include <cuda_runtime.h>
#include <stddef.h>

__global__ void column_sums(const float *m, float *sums, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c < cols) {
		float acc = 0.0f;
		for (int r = 0; r < rows; ++r)
			acc += m[(size_t)r * cols + c];
		sums[c] = acc;
	}
}

#pragma egg optimize in(m[rows * cols]) out(sums[cols]) \
	workload(rows = 8192, cols = 8192) workload(rows = 129, cols = 333) \
	tolerance(rtol = 1e-4, atol = 1e-3)
void col_sum(const float *m, float *sums, int rows, int cols)
{
	column_sums<<<(cols + 127) / 128, 128>>>(m, sums, rows, cols);
}
