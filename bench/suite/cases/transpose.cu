// egg-bench: family = transpose
// egg-bench: flops = 0
// out = in^T for a row-major (rows, cols) matrix, one thread per element: reads are
// coalesced, writes stride by `rows`.
#include <cuda_runtime.h>

__global__ void transpose_naive(const float *in, float *out, int rows, int cols)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x; // column of in
	int y = blockIdx.y * blockDim.y + threadIdx.y; // row of in
	if (x < cols && y < rows)
		out[x * rows + y] = in[y * cols + x];
}

#pragma egg optimize in(in[rows * cols]) out(out[rows * cols]) \
	workload(rows = 8192, cols = 8192) workload(rows = 1000, cols = 77)
void transpose(const float *in, float *out, int rows, int cols)
{
	dim3 block(16, 16);
	dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
	transpose_naive<<<grid, block>>>(in, out, rows, cols);
}
