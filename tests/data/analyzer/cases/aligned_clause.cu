#include <cuda_runtime.h>

__global__ void scale4(const float4 *x, float4 *y, int n4)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n4) y[i] = make_float4(2 * x[i].x, 2 * x[i].y, 2 * x[i].z, 2 * x[i].w);
}

// the bases are 16-byte aligned at every call (the default of aligned(...))
#pragma egg optimize in(x[n]) out(y[n]) aligned(x, y) workload(n = 1 << 20)
void scale_aligned(const float *x, float *y, int n)
{
	scale4<<<(n / 4 + 255) / 256, 256>>>((const float4 *)x, (float4 *)y, n / 4);
}

// an explicit alignment, for one of the buffers
#pragma egg optimize in(x[n]) out(y[n]) aligned(y : 256) workload(n = 1 << 20)
void scale_y256(const float *x, float *y, int n)
{
	scale4<<<(n / 4 + 255) / 256, 256>>>((const float4 *)x, (float4 *)y, n / 4);
}

#pragma egg optimize in(x[n]) out(y[n]) aligned(x : 24) workload(n = 1024)
void bad_alignment(const float *x, float *y, int n) { scale4<<<1, 1>>>((const float4 *)x, (float4 *)y, n / 4); }

#pragma egg optimize in(x[n]) out(y[n]) aligned(xs, n) workload(n = 1024)
void bad_names(const float *x, float *y, int n) { scale4<<<1, 1>>>((const float4 *)x, (float4 *)y, n / 4); }
