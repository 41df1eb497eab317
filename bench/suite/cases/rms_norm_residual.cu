// egg-bench: family = norm
// egg-bench: flops = 5 * tokens * hidden
// Residual add followed by RMSNorm (LLaMA's "add & norm"): the first launch writes the
// new residual stream, the second normalises it, one thread per token.
#include <cuda_runtime.h>
#include <math.h>

__global__ void residual_add(const float *x, const float *res, float *h, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		h[i] = x[i] + res[i];
}

__global__ void rmsnorm_tokens(const float *h, const float *weight, float *y, int tokens, int hidden,
			       float eps)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= tokens)
		return;
	float ss = 0.0f;
	for (int k = 0; k < hidden; k++)
		ss += h[t * hidden + k] * h[t * hidden + k];
	float scale = rsqrtf(ss / hidden + eps);
	for (int k = 0; k < hidden; k++)
		y[t * hidden + k] = h[t * hidden + k] * scale * weight[k];
}

#pragma egg optimize in(x[tokens * hidden], res[tokens * hidden], weight[hidden]) \
	out(h[tokens * hidden], y[tokens * hidden]) \
	workload(tokens = 16384, hidden = 4096, eps = 1e-6) workload(tokens = 17, hidden = 5120, eps = 1e-6) \
	tolerance(rtol = 1e-4, atol = 1e-5)
void add_rms_norm(const float *x, const float *res, const float *weight, float *h, float *y,
		  int tokens, int hidden, float eps)
{
	int n = tokens * hidden;
	residual_add<<<(n + 255) / 256, 256>>>(x, res, h, n);
	rmsnorm_tokens<<<(tokens + 127) / 128, 128>>>(h, weight, y, tokens, hidden, eps);
}
