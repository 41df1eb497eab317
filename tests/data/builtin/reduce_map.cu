// Reductions whose result a map reads, beyond the Frobenius norm: a maximum of
// integers (no memset absorbed: the fold combines with what the buffer held after
// the memset), and a dot product whose map reads one of its inputs, the other one
// only in the reduction, and a third the reduction never read, with no memset at all
// (the sum adds to what the caller's accumulator holds).
#include <cuda_runtime.h>

__global__ void absmax_into(const int *x, int *m, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicMax(m, abs(x[i]));
}

__global__ void scale_by_max(const int *x, const int *m, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = (float)x[i] / (float)(m[0] + 1);
}

#pragma egg optimize in(x[n]) out(y[n]) temp(m[1]) workload(n = 100003) tolerance(rtol = 1e-6, atol = 1e-6)
void absmax_scale(const int *x, float *y, int *m, int n)
{
	cudaMemset(m, 0, sizeof(int));
	absmax_into<<<(n + 255) / 256, 256>>>(x, m, n);
	scale_by_max<<<(n + 255) / 256, 256>>>(x, m, y, n);
}

__global__ void dot_into(const float *a, const float *b, float *acc, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(acc, a[i] * b[i]);
}

__global__ void mix_by_dot(const float *a, const float *c, const float *acc, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = (a[i] + c[i]) * acc[0];
}

#pragma egg optimize in(a[n], b[n], c[n]) inout(acc[1]) out(y[n]) workload(n = 100003) \
	tolerance(rtol = 1e-3, atol = 1e-3)
void dot_mix(const float *a, const float *b, const float *c, float *acc, float *y, int n)
{
	dot_into<<<(n + 255) / 256, 256>>>(a, b, acc, n);
	mix_by_dot<<<(n + 255) / 256, 256>>>(a, c, acc, y, n);
}
