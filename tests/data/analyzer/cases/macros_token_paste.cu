#include <cuda_runtime.h>

#define DEF_UNARY(name, expr) \
	__device__ float op_##name(float x) { return (expr); }

DEF_UNARY(square, x * x)
DEF_UNARY(twice, x + x)
DEF_UNARY(unused, x - 1.f)

#define DEF_MAP_KERNEL(name) \
	__global__ void map_##name(const float *in, float *out, int n) \
	{ \
		int i = blockIdx.x * blockDim.x + threadIdx.x; \
		if (i < n) out[i] = op_##name(in[i]); \
	}

DEF_MAP_KERNEL(square)
DEF_MAP_KERNEL(twice)

#pragma egg optimize in(in[n]) out(out[n]) workload(n = 65536)
void square_then_twice(const float *in, float *out, int n)
{
	map_square<<<(n + 255) / 256, 256>>>(in, out, n);
	map_twice<<<(n + 255) / 256, 256>>>(out, out, n);
}
