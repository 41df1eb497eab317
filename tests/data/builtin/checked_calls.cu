// A launcher whose every CUDA call goes through the user's error-checking macro,
// a temp allocated and freed in it: the calls it checks are what the lifter reads.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                            \
	do {                                                                       \
		cudaError_t e_ = (call);                                               \
		if (e_ != cudaSuccess) {                                               \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
			exit(1);                                                           \
		}                                                                      \
	} while (0)

__global__ void square_k(const float *x, float *t, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		t[i] = x[i] * x[i];
}

__global__ void add_one_k(const float *t, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = t[i] + 1.0f;
}

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1003)
void square_plus_one(const float *x, float *y, int n)
{
	float *t;
	CHECK(cudaMalloc(&t, n * sizeof(float)));
	square_k<<<(n + 127) / 128, 128>>>(x, t, n);
	CHECK(cudaGetLastError());
	add_one_k<<<(n + 127) / 128, 128>>>(t, y, n);
	CHECK(cudaGetLastError());
	CHECK(cudaFree(t));
}
