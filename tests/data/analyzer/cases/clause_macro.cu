#include <cuda_runtime.h>
#include <cfloat>

#define BIG_N (1 << 22)
#define SMALL_N 1000
enum { VOCAB = 32000 };

__global__ void clip_k(const int *idx, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = idx[i] < FLT_MAX ? (float)idx[i] : 0.f;
}

#pragma egg optimize in(idx[n]) out(y[n]) range(idx, 0, VOCAB) workload(n = BIG_N) workload(n = SMALL_N)
void clip(const int *idx, float *y, int n)
{
	clip_k<<<(n + 255) / 256, 256>>>(idx, y, n);
}
