#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

// stencils written the ways the blind indexing batch writes them
#define cudaCheck(e) (check_status((e), #e))
static void check_status(cudaError_t s, const char *what)
{
	if (s != cudaSuccess) {
		fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(s));
		exit(EXIT_FAILURE);
	}
}

// clamped edges written as selects and one-sided min/max, the column recomputed
// as t - r * cols; a grid-stride loop whose grid the launcher sizes from the SM count
__global__ void smooth5_clamped(float *dst, const float *src, int rows, int cols, float wc, float ws)
{
	const long long total = (long long)rows * cols;
	const long long step = (long long)gridDim.x * blockDim.x;
	for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += step) {
		const int r = (int)(t / cols), c = (int)(t - (long long)r * cols);
		const size_t above = (size_t)(r > 0 ? r - 1 : 0) * cols, below = (size_t)(r < rows - 1 ? r + 1 : rows - 1) * cols;
		const size_t here = (size_t)r * cols;
		float side = src[above + c] + src[below + c];
		side += src[here + max(c - 1, 0)] + src[here + min(c + 1, cols - 1)];
		dst[t] = wc * src[t] + ws * side;
	}
}

#pragma egg optimize in(src[rows * cols]) out(dst[rows * cols]) tolerance(rtol = 1e-5, atol = 1e-5) \
	workload(rows = 37, cols = 61, wc = 0.6, ws = 0.1) workload(rows = 1, cols = 5, wc = 0.2, ws = 0.2)
void smooth5_gridstride(float *dst, const float *src, int rows, int cols, float wc, float ws)
{
	int dev = 0, sms = 0;
	cudaCheck(cudaGetDevice(&dev));
	cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	smooth5_clamped<<<sms * 4, 256>>>(dst, src, rows, cols, wc, ws);
	cudaCheck(cudaGetLastError());
}
