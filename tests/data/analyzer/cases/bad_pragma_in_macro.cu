#include <cuda_runtime.h>

__global__ void neg_k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = -x[i];
}

#define EGG_MAP _Pragma("egg optimize in(x[n]) out(y[nn]) workload(n = 4096)")

EGG_MAP
void negate(const float *x, float *y, int n)
{
	neg_k<<<(n + 255) / 256, 256>>>(x, y, n);
}
