#include <cuda_runtime.h>
#include <cuda_fp16.h>

// the half twin of the bf16 bench cases (bench/bf16/cases): a scaled residual add,
// one thread per element, fp32 inside
__global__ void axpy_half_kernel(__half *out, const __half *x, const __half *y, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = __float2half(a * __half2float(x[i]) + __half2float(y[i]));
}

#pragma egg optimize in(x[n], y[n]) out(out[n]) tolerance(rtol = 1e-3, atol = 1e-3) \
	workload(n = 1 << 24, a = 0.5f) workload(n = 1001, a = 0.5f)
void axpy_half(__half *out, const __half *x, const __half *y, float a, int n)
{
	axpy_half_kernel<<<(n + 255) / 256, 256>>>(out, x, y, a, n);
}
