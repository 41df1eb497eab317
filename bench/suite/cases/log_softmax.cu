// egg-bench: family = softmax
// egg-bench: flops = 5 * rows * cols
// Log-softmax over each row (torch.log_softmax(x, dim=1)), one thread per row.
#include <cuda_runtime.h>
#include <math.h>

__global__ void log_softmax_kernel(const float *x, float *y, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < rows) {
		float m = -INFINITY;
		for (int c = 0; c < cols; c++)
			m = fmaxf(m, x[r * cols + c]);
		float s = 0.0f;
		for (int c = 0; c < cols; c++)
			s += expf(x[r * cols + c] - m);
		float lse = m + logf(s);
		for (int c = 0; c < cols; c++)
			y[r * cols + c] = x[r * cols + c] - lse;
	}
}

#pragma egg optimize in(x[rows * cols]) out(y[rows * cols]) \
	workload(rows = 16384, cols = 4096) workload(rows = 50, cols = 3333) \
	tolerance(rtol = 1e-5, atol = 1e-5)
void log_softmax(const float *x, float *y, int rows, int cols)
{
	log_softmax_kernel<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);
}
