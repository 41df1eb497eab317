// egg-bench: family = chain
// egg-bench: flops = 0
// out = elu(x) * s + residual, written as three launches through two scratch buffers.
#include <cuda_runtime.h>
#include <math.h>

__global__ void elu_kernel(const float *x, float *t1, int n)
{
	int i = threadIdx.x + blockIdx.x * blockDim.x;
	if (i < n) {
		float v = x[i];
		t1[i] = v > 0.0f ? v : (expf(v) - 1.0f);
	}
}

__global__ void scale_kernel(const float *t1, float *t2, float s, int n)
{
	int i = threadIdx.x + blockIdx.x * blockDim.x;
	if (i < n)
		t2[i] = t1[i] * s;
}

__global__ void add_residual_kernel(const float *t2, const float *residual, float *out, int n)
{
	int i = threadIdx.x + blockIdx.x * blockDim.x;
	if (i < n)
		out[i] = t2[i] + residual[i];
}

#pragma egg optimize in(x[n], residual[n]) out(out[n]) temp(t1[n], t2[n]) \
	workload(n = 1 << 25, s = 0.5) workload(n = 4097, s = -2.25) \
	tolerance(rtol = 1e-5, atol = 1e-6)
void elu_scale_add(const float *x, const float *residual, float *out, float *t1, float *t2, float s, int n)
{
	int nb = (n + 511) / 512;
	elu_kernel<<<nb, 512>>>(x, t1, n);
	scale_kernel<<<nb, 512>>>(t1, t2, s, n);
	add_residual_kernel<<<nb, 512>>>(t2, residual, out, n);
}
