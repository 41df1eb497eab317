#include <cuda_runtime.h>

#ifdef __CUDACC__
#define HOSTDEV __host__ __device__
#else
#define HOSTDEV
#endif

HOSTDEV inline int div_up(int a, int b) { return (a + b - 1) / b; }

__device__ float bias[1];

__global__ void bias_k(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) x[i] += bias[0];
}

#pragma egg optimize inout(x[n]) workload(n = 1 << 20)
void add_bias(float *x, int n)
{
	bias_k<<<div_up(n, 256), 256>>>(x, n);
}
