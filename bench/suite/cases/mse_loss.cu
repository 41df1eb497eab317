// egg-bench: family = full-reduction
// egg-bench: flops = 3 * n
// Mean squared error: out[0] = mean((a - b)^2), each thread atomically adds its term / n.
#include <cuda_runtime.h>

__global__ void mse_accumulate(const float *a, const float *b, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float d = a[i] - b[i];
		atomicAdd(out, d * d / (float)n);
	}
}

#pragma egg optimize in(a[n], b[n]) out(out[1]) \
	workload(n = 1 << 24) workload(n = 256411) \
	tolerance(rtol = 6e-2, atol = 1e-3)
void mse_loss(const float *a, const float *b, float *out, int n)
{
	cudaMemset(out, 0, sizeof(float));
	mse_accumulate<<<(n + 255) / 256, 256>>>(a, b, out, n);
}
