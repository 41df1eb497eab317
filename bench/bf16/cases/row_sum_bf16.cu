// egg-bench: family = row-reduction
// egg-bench: flops = rows * cols
// Sum of each row of a bf16 matrix into fp32, one thread per row.
#include <cuda_runtime.h>
#include <cuda_bf16.h>

__global__ void row_sum_bf16_kernel(const __nv_bfloat16 *x, float *out, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < rows) {
		float acc = 0.0f;
		for (int c = 0; c < cols; ++c)
			acc += __bfloat162float(x[r * cols + c]);
		out[r] = acc;
	}
}

#pragma egg optimize in(x[rows * cols]) out(out[rows]) \
	workload(rows = 16384, cols = 4096) workload(rows = 1000, cols = 999) \
	tolerance(rtol = 1e-3, atol = 2e-3)
void row_sum_bf16(const __nv_bfloat16 *x, float *out, int rows, int cols)
{
	row_sum_bf16_kernel<<<(rows + 127) / 128, 128>>>(x, out, rows, cols);
}
