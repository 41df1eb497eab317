// egg-bench: family = elementwise
// egg-bench: flops = 9 * n
// GELU with the tanh approximation (as in GPT-2 style MLPs), one thread per element.
#include <cuda_runtime.h>
#include <math.h>

__device__ float gelu_approx(float v)
{
	const float k = 0.7978845608f; // sqrt(2/pi)
	float inner = k * (v + 0.044715f * v * v * v);
	return 0.5f * v * (1.0f + tanhf(inner));
}

__global__ void gelu_kernel(const float *in, float *out, int n)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	if (idx < n) {
		float v = in[idx];
		out[idx] = gelu_approx(v);
	}
}

#pragma egg optimize in(in[n]) out(out[n]) workload(n = 1 << 26) workload(n = 777777) \
	tolerance(rtol = 1e-5, atol = 1e-6)
void gelu(const float *in, float *out, int n)
{
	gelu_kernel<<<(n + 511) / 512, 512>>>(in, out, n);
}
