/*
 * kernel.cu -- an annotated __global__ kernel (a kernel target): egg may only
 * replace its body, and the replacement must be right for the geometry the
 * launch(...) clause names, which is the geometry main.cu uses.
 */
#include <cuda_runtime.h>
#include <math.h>

__device__ float silu(float v)
{
	return v / (1.0f + expf(-v));
}

#pragma egg optimize in(x[n], g[n]) out(y[n]) workload(n = 1 << 25) workload(n = 1000003) \
	launch((n + 255) / 256, 256)
__global__ void gated_silu(const float *x, const float *g, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = silu(x[i]) * g[i];
}
