#include <cuda_runtime.h>

__device__ inline float op_neg(float v) { return -v; }
__device__ inline float op_abs(float v) { return fabsf(v); }

// One macro defines an annotated launcher and its kernel for each operation.
#define DEFINE_MAP(name) \
	__global__ void name##_k(const float *x, float *y, int n) \
	{ \
		int i = blockIdx.x * blockDim.x + threadIdx.x; \
		if (i < n) y[i] = op_##name(x[i]); \
	} \
	_Pragma("egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20)") \
	void map_##name(const float *x, float *y, int n) \
	{ \
		name##_k<<<(n + 255) / 256, 256>>>(x, y, n); \
	}

DEFINE_MAP(neg)
DEFINE_MAP(abs)
