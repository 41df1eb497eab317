// egg-bench: family = elementwise
// egg-bench: flops = 4 * n * c * hw
// BatchNorm2d in inference mode on NCHW activations: per-channel statistics and
// affine parameters broadcast over batch and space, one thread per element.
#include <cuda_runtime.h>
#include <math.h>

__global__ void bn_inference(const float *x, const float *mean, const float *var, const float *gamma,
			     const float *beta, float *y, int n, int c, int hw, float eps)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n * c * hw) {
		int ch = (i / hw) % c;
		y[i] = (x[i] - mean[ch]) / sqrtf(var[ch] + eps) * gamma[ch] + beta[ch];
	}
}

#pragma egg optimize in(x[n * c * hw], mean[c], var[c], gamma[c], beta[c]) out(y[n * c * hw]) \
	range(var, 0.5, 2) \
	workload(n = 64, c = 256, hw = 4096, eps = 1e-5) workload(n = 3, c = 7, hw = 49, eps = 1e-5) \
	tolerance(rtol = 1e-5, atol = 1e-5)
void batchnorm_inference(const float *x, const float *mean, const float *var, const float *gamma,
			 const float *beta, float *y, int n, int c, int hw, float eps)
{
	int total = n * c * hw;
	bn_inference<<<(total + 255) / 256, 256>>>(x, mean, var, gamma, beta, y, n, c, hw, eps);
}
