// egg-bench: family = row-reduction
// egg-bench: flops = 0
// argmax over the last dimension: out[r] = index of the max of row r (first max wins).
#include <cuda_runtime.h>

__global__ void argmax_rows(const float *x, int *out, int rows, int cols)
{
	int r = blockDim.x * blockIdx.x + threadIdx.x;
	if (r < rows) {
		const float *row = x + (long)r * cols;
		float best = row[0];
		int best_j = 0;
		for (int j = 1; j < cols; j++) {
			if (row[j] > best) {
				best = row[j];
				best_j = j;
			}
		}
		out[r] = best_j;
	}
}

#pragma egg optimize in(x[rows * cols]) out(out[rows]) \
	workload(rows = 16384, cols = 4096) workload(rows = 999, cols = 257)
void argmax_dim(const float *x, int *out, int rows, int cols)
{
	argmax_rows<<<(rows + 255) / 256, 256>>>(x, out, rows, cols);
}
