// egg-bench: family = elementwise
// egg-bench: flops = 4 * rows * cols
// SiLU (swish) over a 2-D activation, launched with a 2-D grid over (cols, rows).
#include <cuda_runtime.h>
#include <math.h>

__global__ void silu_2d(const float *x, float *y, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (r < rows && c < cols) {
		float v = x[r * cols + c];
		y[r * cols + c] = v / (1.0f + expf(-v));
	}
}

#pragma egg optimize in(x[rows * cols]) out(y[rows * cols]) \
	workload(rows = 16384, cols = 4096) workload(rows = 37, cols = 1001)
void silu_forward(const float *x, float *y, int rows, int cols)
{
	dim3 block(32, 8);
	dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
	silu_2d<<<grid, block>>>(x, y, rows, cols);
}
