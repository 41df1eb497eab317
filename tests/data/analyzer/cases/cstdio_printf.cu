#include <cstdio>
#include <cuda_runtime.h>

__global__ void check_k(const int *v, int *bad, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n && v[i] < 0) {
		printf("negative at %d\n", i);
		atomicAdd(bad, 1);
	}
}

#pragma egg optimize in(v[n]) out(bad[1]) workload(n = 1 << 16) range(v, 0, 100)
void check(const int *v, int *bad, int n)
{
	check_k<<<(n + 255) / 256, 256>>>(v, bad, n);
	fprintf(stderr, "launched\n");
}
