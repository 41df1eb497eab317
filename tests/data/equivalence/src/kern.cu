// kern.cu -- an ordinary translation unit: a kernel, its launcher, a reduction.
#include <cstdio>
#include "kern.h"
#ifdef WITH_EXTRA
#include "extra.h"
#endif

__global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] * SCALE + y[i];
}

__global__ void block_sum(const float *x, float *out, int n)
{
	__shared__ float buf[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	buf[threadIdx.x] = i < n ? x[i] : 0.0f;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			buf[threadIdx.x] += buf[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(out, buf[0]);
}

void saxpy_launch(int n, float a, const float *x, float *y, cudaStream_t s)
{
	saxpy<<<(n + 255) / 256, 256, 0, s>>>(n, a, x, y);
#ifdef FROM_OPTF
	std::printf("built with an options file\n");
#endif
#ifdef EXTRA_VALUE
	std::printf("extra %d\n", EXTRA_VALUE);
#endif
}
