// egg-bench: family = norm
// egg-bench: flops = 8 * rows * cols
// LayerNorm over the last dimension of bf16 activations with bf16 weight and bias, one
// thread per row: mean, variance in a second pass, the normalised output (fp32 inside).
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <math.h>

typedef __nv_bfloat16 floatX;

__global__ void layernorm_bf16_rows(const floatX *x, const floatX *weight, const floatX *bias, floatX *y,
				    int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float mean = 0.0f;
	for (int c = 0; c < cols; c++)
		mean += (float)x[r * cols + c];
	mean /= cols;
	float var = 0.0f;
	for (int c = 0; c < cols; c++) {
		float d = (float)x[r * cols + c] - mean;
		var += d * d;
	}
	var /= cols;
	float rstd = 1.0f / sqrtf(var + 1e-5f);
	for (int c = 0; c < cols; c++) {
		float n = ((float)x[r * cols + c] - mean) * rstd;
		y[r * cols + c] = (floatX)(n * (float)weight[c] + (float)bias[c]);
	}
}

#pragma egg optimize in(x[rows * cols], weight[cols], bias[cols]) out(y[rows * cols]) \
	workload(rows = 32768, cols = 768) workload(rows = 129, cols = 1001) \
	tolerance(rtol = 2e-2, atol = 2e-2)
void layernorm_bf16(const floatX *x, const floatX *weight, const floatX *bias, floatX *y, int rows, int cols)
{
	layernorm_bf16_rows<<<(rows + 127) / 128, 128>>>(x, weight, bias, y, rows, cols);
}
