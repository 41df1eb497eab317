// egg-bench: family = row-reduction
// egg-bench: flops = rows * cols
// Maximum of each row (torch.amax(x, dim=-1)), one thread per row.
#include <cuda_runtime.h>
#include <math.h>

__global__ void max_over_last_dim(const float *input, float *output, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *p = input + (size_t)row * cols;
	float m = -INFINITY;
	for (int j = 0; j < cols; j++)
		m = fmaxf(m, p[j]);
	output[row] = m;
}

#pragma egg optimize in(input[rows * cols]) out(output[rows]) \
	workload(rows = 32768, cols = 2048) workload(rows = 77, cols = 4097)
void row_max(const float *input, float *output, int rows, int cols)
{
	max_over_last_dim<<<(rows + 255) / 256, 256>>>(input, output, rows, cols);
}
