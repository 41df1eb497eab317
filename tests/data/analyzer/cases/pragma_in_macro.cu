#include <cuda_runtime.h>

__global__ void sq_k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = x[i] * x[i];
}

#define EGG_ELEMENTWISE _Pragma("egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20)")

EGG_ELEMENTWISE
void square_all(const float *x, float *y, int n)
{
	sq_k<<<(n + 255) / 256, 256>>>(x, y, n);
}
