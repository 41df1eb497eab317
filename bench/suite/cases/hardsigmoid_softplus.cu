// egg-bench: family = elementwise
// egg-bench: flops = 0
// out = softplus(hardsigmoid(x)), hardsigmoid(x) = clamp(x / 6 + 1/2, 0, 1),
// softplus(v) = log(1 + exp(v)).
#include <cuda_runtime.h>
#include <math.h>

__device__ float hardsigmoid(float x)
{
	float v = x / 6.0f + 0.5f;
	if (v < 0.0f) v = 0.0f;
	if (v > 1.0f) v = 1.0f;
	return v;
}

__global__ void hs_softplus_kernel(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = hardsigmoid(x[i]);
		out[i] = log1pf(expf(v));
	}
}

#pragma egg optimize in(x[n]) out(out[n]) workload(n = 1 << 25) workload(n = 256411) \
	tolerance(rtol = 1e-5, atol = 1e-6)
void hardsigmoid_softplus(const float *x, float *out, int n)
{
	int block = 256;
	int grid = (n + block - 1) / block;
	hs_softplus_kernel<<<grid, block>>>(x, out, n);
}
