// egg-bench: family = transpose
// egg-bench: flops = 0
// out = in^T for a row-major (rows, cols) bf16 matrix, one thread per element.
#include <cuda_runtime.h>
#include <cuda_bf16.h>

__global__ void transpose_bf16_naive(const __nv_bfloat16 *in, __nv_bfloat16 *out, int rows, int cols)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < cols && y < rows)
		out[x * rows + y] = in[y * cols + x];
}

#pragma egg optimize in(in[rows * cols]) out(out[rows * cols]) \
	workload(rows = 8192, cols = 8192) workload(rows = 1000, cols = 77) tolerance(rtol = 0, atol = 0)
void transpose_bf16(const __nv_bfloat16 *in, __nv_bfloat16 *out, int rows, int cols)
{
	dim3 block(16, 16);
	dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
	transpose_bf16_naive<<<grid, block>>>(in, out, rows, cols);
}
