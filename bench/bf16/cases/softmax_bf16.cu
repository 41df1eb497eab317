// egg-bench: family = softmax
// egg-bench: flops = 5 * batch * classes
// Softmax over the last dimension of bf16 logits, one thread per row, three passes
// (max, sum of exponentials, normalise) in fp32, bf16 probabilities out.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <math.h>

__global__ void softmax_bf16_rows(const __nv_bfloat16 *logits, __nv_bfloat16 *probs, int batch, int classes)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= batch)
		return;
	const __nv_bfloat16 *in = logits + row * classes;
	__nv_bfloat16 *out = probs + row * classes;
	float mx = -INFINITY;
	for (int j = 0; j < classes; j++)
		mx = fmaxf(mx, (float)in[j]);
	float sum = 0.0f;
	for (int j = 0; j < classes; j++)
		sum += expf((float)in[j] - mx);
	for (int j = 0; j < classes; j++)
		out[j] = __float2bfloat16(expf((float)in[j] - mx) / sum);
}

#pragma egg optimize in(logits[batch * classes]) out(probs[batch * classes]) \
	workload(batch = 32768, classes = 2048) workload(batch = 100, classes = 1001) \
	tolerance(rtol = 1e-2, atol = 1e-4)
void softmax_bf16(const __nv_bfloat16 *logits, __nv_bfloat16 *probs, int batch, int classes)
{
	softmax_bf16_rows<<<(batch + 63) / 64, 64>>>(logits, probs, batch, classes);
}
