// egg-bench: family = elementwise
// egg-bench: flops = 10 * n
// GELU (tanh approximation) of bf16 activations, one thread per element, computed in
// fp32 and rounded back to bf16 (a training codebase's floatX typedef).
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <math.h>

typedef __nv_bfloat16 floatX;

__global__ void gelu_bf16_kernel(floatX *out, const floatX *inp, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float x = (float)inp[i];
		float u = 0.7978845608f * (x + 0.044715f * x * x * x);
		out[i] = (floatX)(0.5f * x * (1.0f + tanhf(u)));
	}
}

#pragma egg optimize in(inp[n]) out(out[n]) tolerance(rtol = 1e-2, atol = 1e-2) \
	workload(n = 1 << 26) workload(n = 100003)
void gelu_bf16(floatX *out, const floatX *inp, int n)
{
	gelu_bf16_kernel<<<(n + 255) / 256, 256>>>(out, inp, n);
}
