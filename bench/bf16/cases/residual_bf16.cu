// egg-bench: family = elementwise
// egg-bench: flops = n
// Residual add of two bf16 tensors, one thread per element.
#include <cuda_runtime.h>
#include <cuda_bf16.h>

__global__ void residual_bf16_kernel(__nv_bfloat16 *out, const __nv_bfloat16 *a, const __nv_bfloat16 *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = __float2bfloat16((float)a[i] + (float)b[i]);
}

#pragma egg optimize in(a[n], b[n]) out(out[n]) tolerance(rtol = 1e-2, atol = 1e-2) \
	workload(n = 1 << 26) workload(n = 100003)
void residual_bf16(__nv_bfloat16 *out, const __nv_bfloat16 *a, const __nv_bfloat16 *b, int n)
{
	residual_bf16_kernel<<<(n + 127) / 128, 128>>>(out, a, b, n);
}
