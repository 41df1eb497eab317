#include <cuda_runtime.h>
#include <cuda_fp16.h>

__global__ void half_scale_k(const __half *x, __half *y, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = __float2half(__half2float(x[i]) * s);
}

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20, s = 0.5f) tolerance(rtol = 1e-2, atol = 1e-3) precision(fp16)
void half_scale(const __half *x, __half *y, float s, int n)
{
	half_scale_k<<<(n + 255) / 256, 256>>>(x, y, s, n);
}
