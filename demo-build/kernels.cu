/*
 * kernels.cu -- three reference kernels of different families, each behind an
 * annotated host launcher.  With NVCC=egg-cc the launchers are replaced by the
 * fastest verified versions egg finds; with plain nvcc they run as written.
 */
#include <cuda_runtime.h>
#include <math.h>
#include "kernels.h"

/* Softmax over each row: one thread per row, three passes. */
__global__ void softmax_naive(const float *x, float *y, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float m = -INFINITY;
	for (int j = 0; j < cols; j++)
		m = fmaxf(m, x[r * cols + j]);
	float s = 0.0f;
	for (int j = 0; j < cols; j++)
		s += expf(x[r * cols + j] - m);
	for (int j = 0; j < cols; j++)
		y[r * cols + j] = expf(x[r * cols + j] - m) / s;
}

#pragma egg optimize in(x[rows * cols]) out(y[rows * cols]) \
	workload(rows = 8192, cols = 4096) tolerance(rtol = 1e-5, atol = 1e-6)
void softmax_forward(const float *x, float *y, int rows, int cols)
{
	softmax_naive<<<(rows + 127) / 128, 128>>>(x, y, rows, cols);
}

/* Bias add then GELU: two launches and an intermediate pass through memory. */
__global__ void add_bias(const float *x, const float *bias, float *y, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < rows * cols)
		y[i] = x[i] + bias[i % cols];
}

__device__ float gelu(float v)
{
	return 0.5f * v * (1.0f + erff(v * 0.70710678f));
}

__global__ void gelu_inplace(float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = gelu(y[i]);
}

#pragma egg optimize in(x[rows * cols], bias[cols]) out(y[rows * cols]) \
	workload(rows = 16384, cols = 4096)
void bias_gelu(const float *x, const float *bias, float *y, int rows, int cols)
{
	int n = rows * cols;
	add_bias<<<(n + 255) / 256, 256>>>(x, bias, y, rows, cols);
	gelu_inplace<<<(n + 255) / 256, 256>>>(y, n);
}

/* Sum of each row: one thread per row, strided (uncoalesced) reads. */
__global__ void row_sum_naive(const float *x, float *out, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float s = 0.0f;
	for (int j = 0; j < cols; j++)
		s += x[r * cols + j];
	out[r] = s;
}

#pragma egg optimize in(x[rows * cols]) out(out[rows]) \
	workload(rows = 16384, cols = 4096) tolerance(rtol = 1e-4, atol = 1e-4)
void row_sum(const float *x, float *out, int rows, int cols)
{
	row_sum_naive<<<(rows + 255) / 256, 256>>>(x, out, rows, cols);
}
