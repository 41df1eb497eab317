// egg-bench: family = full-reduction
// egg-bench: flops = 2 * n
// Sum of squares of a whole bf16 tensor into fp32: a shared-memory tree per block,
// then one atomicAdd per block into the result.
#include <cuda_runtime.h>
#include <cuda_bf16.h>

__global__ void sumsq_bf16_blocks(const __nv_bfloat16 *x, float *result, int n)
{
	__shared__ float sdata[256];
	int tid = threadIdx.x;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = i < n ? __bfloat162float(x[i]) : 0.0f;
	sdata[tid] = v * v;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (tid < s)
			sdata[tid] += sdata[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		atomicAdd(result, sdata[0]);
}

#pragma egg optimize in(x[n]) out(result[1]) workload(n = 1 << 27) workload(n = 123457) \
	tolerance(rtol = 1e-3, atol = 1e-2)
void sum_squares_bf16(const __nv_bfloat16 *x, float *result, int n)
{
	cudaMemset(result, 0, sizeof(float));
	sumsq_bf16_blocks<<<(n + 255) / 256, 256>>>(x, result, n);
}
