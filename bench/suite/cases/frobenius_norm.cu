// egg-bench: family = chain
// egg-bench: flops = 3 * n
// out = x / ||x||_F. The sum of squares goes into a one-float scratch buffer by
// atomicAdd, then a second kernel divides every element by its square root.
#include <cuda_runtime.h>
#include <math.h>

__global__ void sum_squares_atomic(const float *x, float *sumsq, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	atomicAdd(sumsq, v * v);
}

__global__ void divide_by_norm(const float *x, const float *sumsq, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	out[i] = x[i] / sqrtf(*sumsq);
}

#pragma egg optimize in(x[n]) out(out[n]) temp(sumsq[1]) \
	workload(n = 1 << 24) workload(n = 256411) \
	tolerance(rtol = 2e-2, atol = 1e-7)
void frobenius_norm(const float *x, float *out, float *sumsq, int n)
{
	cudaMemset(sumsq, 0, sizeof(float));
	int blocks = (n + 255) / 256;
	sum_squares_atomic<<<blocks, 256>>>(x, sumsq, n);
	divide_by_norm<<<blocks, 256>>>(x, sumsq, out, n);
}
