// egg-bench: family = generic
// egg-bench: flops = rows * cols
// Inclusive prefix sum along each row (torch.cumsum(x, dim=1)), one thread per row
// carrying the running total: a loop-carried scan (the scan recipe lifts it since builtin-4;
// the case keeps its generic label so that results stay comparable across dates).
#include <cuda_runtime.h>

__global__ void cumsum_rows(const float *x, float *y, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float running = 0.0f;
	for (int c = 0; c < cols; c++) {
		running += x[r * cols + c];
		y[r * cols + c] = running;
	}
}

#pragma egg optimize in(x[rows * cols]) out(y[rows * cols]) \
	workload(rows = 16384, cols = 4096) workload(rows = 31, cols = 1025) \
	tolerance(rtol = 1e-4, atol = 2e-3)
void cumsum(const float *x, float *y, int rows, int cols)
{
	cumsum_rows<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);
}
