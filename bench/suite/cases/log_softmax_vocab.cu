// egg-bench: family = softmax
// egg-bench: flops = 5 * rows * vocab
// Log-probabilities over a GPT-2 vocabulary (50257 columns) for few rows (B * T =
// 4 * 64 positions: a short sequence, where a row per block leaves the GPU half
// idle), one thread per row: max, log of the sum of exponentials, subtract.
#include <cuda_runtime.h>
#include <math.h>

__global__ void log_softmax_vocab_rows(const float *x, float *y, int rows, int vocab)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < rows) {
		float m = -INFINITY;
		for (int v = 0; v < vocab; v++)
			m = fmaxf(m, x[(size_t)r * vocab + v]);
		float s = 0.0f;
		for (int v = 0; v < vocab; v++)
			s += expf(x[(size_t)r * vocab + v] - m);
		float lse = m + logf(s);
		for (int v = 0; v < vocab; v++)
			y[(size_t)r * vocab + v] = x[(size_t)r * vocab + v] - lse;
	}
}

#pragma egg optimize in(x[rows * vocab]) out(y[rows * vocab]) \
	workload(rows = 256, vocab = 50257) workload(rows = 5, vocab = 31) \
	tolerance(rtol = 1e-5, atol = 1e-5)
void log_softmax_vocab(const float *x, float *y, int rows, int vocab)
{
	log_softmax_vocab_rows<<<(rows + 63) / 64, 64>>>(x, y, rows, vocab);
}
