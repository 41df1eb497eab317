// egg-bench: family = scan
// egg-bench: flops = rows * cols
// Running maximum along each row (torch.cummax(x, dim=1).values), one thread per row
// carrying the maximum so far.
#include <cuda_runtime.h>
#include <math.h>

__global__ void running_max(const float *x, float *y, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < rows) {
		float m = -INFINITY;
		for (int c = 0; c < cols; c++) {
			m = fmaxf(m, x[r * cols + c]);
			y[r * cols + c] = m;
		}
	}
}

#pragma egg optimize in(x[rows * cols]) out(y[rows * cols]) \
	workload(rows = 16384, cols = 2048) workload(rows = 19, cols = 1001)
void row_cummax(const float *x, float *y, int rows, int cols)
{
	running_max<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);
}
