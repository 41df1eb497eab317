#include <cuda_runtime.h>

__global__ void add_k(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) c[i] = a[i] + b[i];
}

__global__ void mul_k(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) c[i] = a[i] * b[i];
}

__global__ void neg_k(float *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) a[i] = -a[i];
}

#pragma egg optimize in(a[n], b[n]) out(c[n]) workload(n = 4096)
void add(const float *a, const float *b, float *c, int n)
{
	add_k<<<(n + 127) / 128, 128>>>(a, b, c, n);
}

int host_only_helper(int v) { return v * 2; }

#pragma egg optimize in(a[n], b[n]) out(c[n]) workload(n = 4096)
void mul(const float *a, const float *b, float *c, int n)
{
	mul_k<<<(n + 127) / 128, 128>>>(a, b, c, n);
}

#pragma egg optimize inout(a[n]) workload(n = 4096)
void negate(float *a, int n)
{
	neg_k<<<(n + 127) / 128, 128>>>(a, n);
}
