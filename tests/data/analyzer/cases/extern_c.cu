#include <cuda_runtime.h>

__global__ void inc_k(int *v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) v[i]++;
}

#pragma egg optimize inout(v[n]) workload(n = 1024)
extern "C" void increment(int *v, int n)
{
	inc_k<<<(n + 255) / 256, 256>>>(v, n);
}

extern "C" {
__global__ void dec_k(int *v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) v[i]--;
}

#pragma egg optimize inout(v[n]) workload(n = 1024)
void decrement(int *v, int n)
{
	dec_k<<<(n + 255) / 256, 256>>>(v, n);
}
}
