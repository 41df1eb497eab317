// egg-bench: family = norm
// egg-bench: flops = 8 * rows * cols
// LayerNorm with affine weight and bias over long rows of an odd width (50257: the
// weights are aligned at column 0, three rows in four are not), one thread per row:
// mean, variance in a second pass, then the normalised output.
#include <cuda_runtime.h>
#include <math.h>

__global__ void layernorm_odd_rows(const float *x, const float *weight, const float *bias, float *y,
				   int rows, int cols, float eps)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *xr = x + (size_t)r * cols;
	float *yr = y + (size_t)r * cols;
	float mean = 0.0f;
	for (int c = 0; c < cols; c++)
		mean += xr[c];
	mean /= cols;
	float var = 0.0f;
	for (int c = 0; c < cols; c++) {
		float d = xr[c] - mean;
		var += d * d;
	}
	var /= cols;
	float rstd = 1.0f / sqrtf(var + eps);
	for (int c = 0; c < cols; c++)
		yr[c] = (xr[c] - mean) * rstd * weight[c] + bias[c];
}

#pragma egg optimize in(x[rows * cols], weight[cols], bias[cols]) out(y[rows * cols]) \
	workload(rows = 2048, cols = 50257, eps = 1e-5) workload(rows = 9, cols = 3, eps = 1e-5) \
	tolerance(rtol = 1e-4, atol = 1e-4)
void layer_norm_odd(const float *x, const float *weight, const float *bias, float *y, int rows,
		    int cols, float eps)
{
	layernorm_odd_rows<<<(rows + 127) / 128, 128>>>(x, weight, bias, y, rows, cols, eps);
}
