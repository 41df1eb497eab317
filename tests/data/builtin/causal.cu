#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// a causal softmax over rows of scores, one thread per row: the launcher computes
// the scale with sqrtf, and the row's loops run to its position (t2 <= t)
__global__ void causal_softmax_rows(float *probs, const float *scores, int rows, int len, float scale)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	int pos = row % len;
	const float *in = scores + (size_t)row * len;
	float *out = probs + (size_t)row * len;
	float top = -1e30f;
	for (int j = 0; j <= pos; j++)
		top = fmaxf(top, in[j] * scale);
	float total = 0.0f;
	for (int j = 0; j <= pos; j++) {
		float e = expf(in[j] * scale - top);
		out[j] = e;
		total += e;
	}
	for (int j = 0; j < len; j++)
		out[j] = j <= pos ? out[j] / total : 0.0f;
}

#pragma egg optimize in(scores[heads * len * len]) out(probs[heads * len * len]) \
	tolerance(rtol = 1e-4, atol = 1e-7) workload(heads = 3, len = 29, dim = 16) workload(heads = 1, len = 1, dim = 4)
void causal_softmax(float *probs, const float *scores, int heads, int len, int dim)
{
	const float scale = 1.0f / sqrtf((float)dim);
	causal_softmax_rows<<<(heads * len + 63) / 64, 64>>>(probs, scores, heads * len, len, scale);
}
