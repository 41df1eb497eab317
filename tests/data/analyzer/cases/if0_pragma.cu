#include <cuda_runtime.h>

__global__ void zero_k(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) x[i] = 0.f;
}

#if 0
#pragma egg optimize out(x[n]) workload(n = 1)
void disabled(float *x, int n) { zero_k<<<1, 1>>>(x, n); }
#endif

/* #pragma egg optimize out(x[n]) in a comment is not a pragma */
#pragma egg optimize out(x[n]) workload(n = 1 << 20)
void zero(float *x, int n)
{
	zero_k<<<(n + 255) / 256, 256>>>(x, n);
}
