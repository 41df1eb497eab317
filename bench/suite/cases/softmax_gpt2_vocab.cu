// egg-bench: family = softmax
// egg-bench: flops = 5 * positions * vocab
// Softmax over a GPT-2 vocabulary (50257 columns: every row but one in four starts
// off a 16-byte boundary) at B * T = 4 * 1024 positions, one thread per row, three
// passes over the row (max, sum of exponentials, normalise).
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_vocab_rows(const float *logits, float *probs, int positions, int vocab)
{
	int p = blockIdx.x * blockDim.x + threadIdx.x;
	if (p >= positions)
		return;
	const float *row = logits + (size_t)p * vocab;
	float *out = probs + (size_t)p * vocab;
	float maxval = -INFINITY;
	for (int v = 0; v < vocab; v++)
		maxval = fmaxf(maxval, row[v]);
	float sum = 0.0f;
	for (int v = 0; v < vocab; v++)
		sum += expf(row[v] - maxval);
	for (int v = 0; v < vocab; v++)
		out[v] = expf(row[v] - maxval) / sum;
}

#pragma egg optimize in(logits[positions * vocab]) out(probs[positions * vocab]) \
	workload(positions = 4096, vocab = 50257) workload(positions = 7, vocab = 4099) \
	tolerance(rtol = 1e-4, atol = 1e-9)
void softmax_gpt2_vocab(const float *logits, float *probs, int positions, int vocab)
{
	softmax_vocab_rows<<<(positions + 127) / 128, 128>>>(logits, probs, positions, vocab);
}
