// egg-bench: family = norm
// egg-bench: flops = 5 * planes * hw
// Instance normalisation (no affine): each (n, c) plane of HW elements is normalised
// by its own mean and (biased) variance, eps = 1e-5.
// Kernel 1: one thread per plane computes mean and rstd. Kernel 2: one thread per element.
#include <cuda_runtime.h>
#include <math.h>

__global__ void instnorm_stats(const float *x, float *mean, float *rstd, int planes, int hw)
{
	int p = blockIdx.x * blockDim.x + threadIdx.x;
	if (p >= planes)
		return;
	const float *src = x + (long long)p * hw;
	float s = 0.0f;
	for (int i = 0; i < hw; i++)
		s += src[i];
	float m = s / hw;
	float v = 0.0f;
	for (int i = 0; i < hw; i++) {
		float d = src[i] - m;
		v += d * d;
	}
	v /= hw;
	mean[p] = m;
	rstd[p] = 1.0f / sqrtf(v + 1e-5f);
}

__global__ void instnorm_apply(const float *x, const float *mean, const float *rstd, float *y, int planes, int hw)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < (long long)planes * hw) {
		int p = (int)(i / hw);
		y[i] = (x[i] - mean[p]) * rstd[p];
	}
}

#pragma egg optimize in(x[planes * hw]) out(y[planes * hw]) \
	workload(planes = 4096, hw = 16384) workload(planes = 37, hw = 999) \
	tolerance(rtol = 1e-3, atol = 1e-3)
void instance_norm(const float *x, float *y, int planes, int hw)
{
	float *mean, *rstd;
	cudaMalloc(&mean, planes * sizeof(float));
	cudaMalloc(&rstd, planes * sizeof(float));
	instnorm_stats<<<(planes + 127) / 128, 128>>>(x, mean, rstd, planes, hw);
	long long total = (long long)planes * hw;
	instnorm_apply<<<(unsigned)((total + 255) / 256), 256>>>(x, mean, rstd, y, planes, hw);
	cudaFree(mean);
	cudaFree(rstd);
}
