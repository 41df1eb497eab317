// egg-bench: family = row-reduction
// egg-bench: flops = rows * cols
// Mean of each row with one block per row: strided partial sums, then a tree in
// shared memory (the classic hand-written reduction).
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void mean_rows_block(const float *x, float *mean, int rows, int cols)
{
	__shared__ float partial[BLOCK];
	int row = blockIdx.x;
	float s = 0.0f;
	for (int c = threadIdx.x; c < cols; c += BLOCK)
		s += x[(size_t)row * cols + c];
	partial[threadIdx.x] = s;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
		if (threadIdx.x < stride)
			partial[threadIdx.x] += partial[threadIdx.x + stride];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		mean[row] = partial[0] / cols;
}

#pragma egg optimize in(x[rows * cols]) out(mean[rows]) \
	workload(rows = 8192, cols = 8192) workload(rows = 33, cols = 1500) \
	tolerance(rtol = 1e-4, atol = 1e-5)
void row_mean(const float *x, float *mean, int rows, int cols)
{
	mean_rows_block<<<rows, BLOCK>>>(x, mean, rows, cols);
}
