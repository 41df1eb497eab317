// pragma.cu -- an annotated kernel.  Without a GPU or a cached winner egg has
// nothing better, and must give exactly nvcc's results.
#include <cuda_runtime.h>

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20) launch((n + 127) / 128, 128)
__global__ void scale_ref(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}

void scale(const float *x, float *y, int n)
{
	scale_ref<<<(n + 127) / 128, 128>>>(x, y, n);
}
