#include <cuda_runtime.h>

// This function does not compile (nvcc reports it); the annotated one is
// still analyzed, and its bundle leaves the broken code out.
int broken(int v) { return v + undeclared_name; }

__global__ void ok_k(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) x[i] *= 2.f;
}

#pragma egg optimize inout(x[n]) workload(n = 1 << 20)
void ok(float *x, int n)
{
	ok_k<<<(n + 255) / 256, 256>>>(x, n);
}
