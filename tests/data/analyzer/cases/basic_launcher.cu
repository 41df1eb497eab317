#include <cuda_runtime.h>
#include <cstdio>

#define BLOCK 256
#define SQ(x) ((x) * (x))

__constant__ float scale[4] = {1, 2, 3, 4};

struct Params { float alpha; int n; };

static __device__ __forceinline__ float square(float v) { return SQ(v) * scale[0]; }

// a comment
__global__ void square_kernel(const float *x, float *y, Params p)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.n) y[i] = p.alpha * square(x[i]);
}

__global__ void unrelated(float *z) { z[0] = 0; }

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20) tolerance(rtol = 1e-5, atol = 1e-6)
void square_all(const float *x, float *y, int n)
{
	Params p = { 2.0f, n };
	square_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, y, p);
}
