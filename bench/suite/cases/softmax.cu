// egg-bench: family = softmax
// egg-bench: flops = 5 * batch * classes
// Softmax over the last dimension, one thread per row, three passes over the row
// (max, sum of exponentials, normalise).
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_rows(const float *logits, float *probs, int batch, int classes)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= batch)
		return;
	const float *in = logits + row * classes;
	float *out = probs + row * classes;
	float mx = in[0];
	for (int j = 1; j < classes; j++)
		mx = fmaxf(mx, in[j]);
	float sum = 0.0f;
	for (int j = 0; j < classes; j++)
		sum += expf(in[j] - mx);
	for (int j = 0; j < classes; j++)
		out[j] = expf(in[j] - mx) / sum;
}

#pragma egg optimize in(logits[batch * classes]) out(probs[batch * classes]) \
	workload(batch = 32768, classes = 2048) workload(batch = 100, classes = 1001) \
	tolerance(rtol = 1e-4, atol = 1e-7)
void softmax(const float *logits, float *probs, int batch, int classes)
{
	softmax_rows<<<(batch + 63) / 64, 64>>>(logits, probs, batch, classes);
}
