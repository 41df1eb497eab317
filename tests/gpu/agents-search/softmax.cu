// softmax.cu -- the annotated launcher of tests/gpu/agents-search: a naive row
// softmax (one thread per row, three passes over the row) that the agent
// search replaces.  The second workload has an odd number of columns, so a
// candidate that forgets the tail of a row is caught.
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_rows_naive(const float *x, float *y, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *xr = x + (size_t)r * cols;
	float *yr = y + (size_t)r * cols;
	float m = -INFINITY;
	for (int j = 0; j < cols; j++)
		m = fmaxf(m, xr[j]);
	float s = 0.0f;
	for (int j = 0; j < cols; j++)
		s += expf(xr[j] - m);
	for (int j = 0; j < cols; j++)
		yr[j] = expf(xr[j] - m) / s;
}

#pragma egg optimize in(x[rows * cols]) out(y[rows * cols]) \
	workload(rows = 4096, cols = 4096) workload(rows = 37, cols = 1001) \
	tolerance(rtol = 1e-4, atol = 1e-6)
void softmax_forward(const float *x, float *y, int rows, int cols)
{
	softmax_rows_naive<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);
}
