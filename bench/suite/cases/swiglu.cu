// egg-bench: family = chain
// egg-bench: flops = 5 * tokens * ffn
// SwiGLU gate of a LLaMA-style MLP: out = silu(gate) * up, as two launches.
#include <cuda_runtime.h>
#include <math.h>

__global__ void silu_into(const float *gate, float *out, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float g = gate[i];
		out[i] = g / (1.0f + __expf(-g));
	}
}

__global__ void mul_inplace(float *out, const float *up, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] *= up[i];
}

#pragma egg optimize in(gate[tokens * ffn], up[tokens * ffn]) out(out[tokens * ffn]) \
	workload(tokens = 8192, ffn = 11008) workload(tokens = 5, ffn = 333) \
	tolerance(rtol = 1e-5, atol = 1e-6)
void swiglu(const float *gate, const float *up, float *out, int tokens, int ffn)
{
	long long n = (long long)tokens * ffn;
	unsigned blocks = (unsigned)((n + 255) / 256);
	silu_into<<<blocks, 256>>>(gate, out, n);
	mul_inplace<<<blocks, 256>>>(out, up, n);
}
