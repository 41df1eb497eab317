// egg-bench: family = scan
// egg-bench: flops = rows * cols
// Reverse cumulative sum along each row: out[r][j] = sum_{k >= j} x[r][k].
#include <cuda_runtime.h>

__global__ void reverse_cumsum_rows(const float *x, float *out, int rows, int cols)
{
	int r = threadIdx.x + blockIdx.x * blockDim.x;
	if (r < rows) {
		float running = 0.0f;
		for (int j = cols - 1; j >= 0; --j) {
			running += x[r * cols + j];
			out[r * cols + j] = running;
		}
	}
}

#pragma egg optimize in(x[rows * cols]) out(out[rows * cols]) \
	workload(rows = 16384, cols = 4096) workload(rows = 999, cols = 257) \
	tolerance(rtol = 1e-3, atol = 1e-3)
void reverse_cumsum(const float *x, float *out, int rows, int cols)
{
	int threads = 64;
	reverse_cumsum_rows<<<(rows + threads - 1) / threads, threads>>>(x, out, rows, cols);
}
