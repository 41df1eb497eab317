// A bfloat16 case for the CPU test of the benchmark driver (bench_suite.bash):
// the element type comes through a typedef, as in a training codebase.
// egg-bench: family = elementwise
// egg-bench: flops = n
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;

__global__ void double_kernel(floatX *y, const floatX *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __float2bfloat16(2.0f * __bfloat162float(x[i]));
}

#pragma egg optimize in(x[n]) out(y[n]) workload(n = 1 << 20) workload(n = 1001)
void bf16_double(floatX *y, const floatX *x, int n)
{
	double_kernel<<<(n + 255) / 256, 256>>>(y, x, n);
}
