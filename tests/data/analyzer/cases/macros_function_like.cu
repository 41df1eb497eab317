#include <cuda_runtime.h>

#define IDX() (blockIdx.x * blockDim.x + threadIdx.x)
#define GUARD(i, n) if ((i) >= (n)) return
#define THREADS 128
#define GRID(n) (((n) + THREADS - 1) / THREADS)
#define UNUSED_MACRO 42

__global__ void relu_k(const float *x, float *y, int n)
{
	int i = IDX();
	GUARD(i, n);
	y[i] = x[i] > 0.f ? x[i] : 0.f;
}

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 100000)
void relu(const float *x, float *y, int n)
{
	relu_k<<<GRID(n), THREADS>>>(x, y, n);
}
