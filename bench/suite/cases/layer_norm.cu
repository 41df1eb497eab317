// egg-bench: family = norm
// egg-bench: flops = 8 * rows * cols
// LayerNorm over the last dimension with affine weight and bias, one thread per row:
// mean, then variance in a second pass, then the normalised output.
#include <cuda_runtime.h>
#include <math.h>

__global__ void layernorm_rows(const float *x, const float *gamma, const float *beta, float *y,
			       int rows, int cols, float eps)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float mean = 0.0f;
	for (int c = 0; c < cols; c++)
		mean += x[r * cols + c];
	mean /= cols;
	float var = 0.0f;
	for (int c = 0; c < cols; c++) {
		float d = x[r * cols + c] - mean;
		var += d * d;
	}
	var /= cols;
	float inv = 1.0f / sqrtf(var + eps);
	for (int c = 0; c < cols; c++)
		y[r * cols + c] = (x[r * cols + c] - mean) * inv * gamma[c] + beta[c];
}

#pragma egg optimize in(x[rows * cols], gamma[cols], beta[cols]) out(y[rows * cols]) \
	workload(rows = 16384, cols = 4096, eps = 1e-5) workload(rows = 129, cols = 768, eps = 1e-5) \
	tolerance(rtol = 1e-4, atol = 1e-4)
void layer_norm(const float *x, const float *gamma, const float *beta, float *y, int rows, int cols,
		float eps)
{
	layernorm_rows<<<(rows + 127) / 128, 128>>>(x, gamma, beta, y, rows, cols, eps);
}
