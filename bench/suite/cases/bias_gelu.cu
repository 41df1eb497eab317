// egg-bench: family = chain
// egg-bench: flops = 12 * tokens * hidden
// Bias add then exact (erf) GELU after a linear layer, written as two launches with
// the intermediate going through memory, as a model's layers often are.
#include <cuda_runtime.h>
#include <math.h>

__global__ void add_bias_rows(const float *x, const float *bias, float *out, int tokens, int hidden)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < tokens * hidden) {
		int h = i % hidden;
		out[i] = x[i] + bias[h];
	}
}

__global__ void gelu_erf_inplace(float *data, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = data[i];
		data[i] = 0.5f * v * (1.0f + erff(v * 0.7071067811865476f));
	}
}

#pragma egg optimize in(x[tokens * hidden], bias[hidden]) out(out[tokens * hidden]) \
	workload(tokens = 16384, hidden = 4096) workload(tokens = 3, hidden = 3000)
void bias_gelu(const float *x, const float *bias, float *out, int tokens, int hidden)
{
	int n = tokens * hidden;
	add_bias_rows<<<(n + 255) / 256, 256>>>(x, bias, out, tokens, hidden);
	gelu_erf_inplace<<<(n + 255) / 256, 256>>>(out, n);
}
