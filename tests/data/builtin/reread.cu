// A launcher whose second kernel reads again what its first one read: a tensor
// scaled by its own Frobenius norm (the sum of squares into a one-float scratch
// buffer by atomicAdd, then a division by its square root).  The map may walk x
// from its end down, where the reduction's last reads are still in the L2.
#include <cuda_runtime.h>
#include <math.h>

__global__ void sumsq_into(const float *x, float *acc, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(acc, x[i] * x[i]);
}

__global__ void scale_by_norm(const float *x, const float *acc, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] / sqrtf(*acc);
}

#pragma egg optimize in(x[n]) out(y[n]) temp(acc[1]) \
	workload(n = 100003) workload(n = 1 << 24) tolerance(rtol = 2e-2, atol = 1e-7)
void normalize_by_norm(const float *x, float *y, float *acc, int n)
{
	cudaMemset(acc, 0, sizeof(float));
	sumsq_into<<<(n + 255) / 256, 256>>>(x, acc, n);
	scale_by_norm<<<(n + 255) / 256, 256>>>(x, acc, y, n);
}
