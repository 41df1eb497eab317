// variant: a0 (one warp per row, shuffle reductions)
#include <cuda_runtime.h>
#include <math.h>

#define EGG_SOFTMAX_FORWARD_WARPS 8

__device__ __forceinline__ float egg_softmax_forward_warp_max(float v)
{
	for (int o = 16; o > 0; o >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}

__device__ __forceinline__ float egg_softmax_forward_warp_sum(float v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

__global__ void egg_softmax_forward_warp_row(const float *__restrict__ x, float *__restrict__ y,
                                             int rows, int cols)
{
	int row = blockIdx.x * EGG_SOFTMAX_FORWARD_WARPS + threadIdx.x / 32;
	int lane = threadIdx.x % 32;
	if (row >= rows)
		return; /* the whole warp leaves together */
	const float *xr = x + (size_t)row * cols;
	float *yr = y + (size_t)row * cols;
	float m = -INFINITY;
	for (int j = lane; j < cols; j += 32)
		m = fmaxf(m, xr[j]);
	m = egg_softmax_forward_warp_max(mx);
	float s = 0.0f;
	for (int j = lane; j < cols; j += 32)
		s += expf(xr[j] - m);
	s = egg_softmax_forward_warp_sum(s);
	float inv = 1.0f / s;
	for (int j = lane; j < cols; j += 32)
		yr[j] = expf(xr[j] - m) * inv;
}

void softmax_forward(const float *x, float *y, int rows, int cols)
{
	int blocks = (rows + EGG_SOFTMAX_FORWARD_WARPS - 1) / EGG_SOFTMAX_FORWARD_WARPS;
	egg_softmax_forward_warp_row<<<blocks, 32 * EGG_SOFTMAX_FORWARD_WARPS>>>(x, y, rows, cols);
}
