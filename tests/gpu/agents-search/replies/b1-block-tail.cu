// variant: b1 (one block per row, four elements per thread per step, block reductions; the tail of each row handled)
#include <cuda_runtime.h>
#include <math.h>

#define EGG_SOFTMAX_FORWARD_THREADS 256

/* The block's max (is_max) or sum of v, in every thread; sh holds 32 floats. */
__device__ __forceinline__ float egg_softmax_forward_block_reduce(float v, bool is_max, float *sh)
{
	for (int o = 16; o > 0; o >>= 1) {
		float w = __shfl_xor_sync(0xffffffffu, v, o);
		v = is_max ? fmaxf(v, w) : v + w;
	}
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
	__syncthreads(); /* sh may still be read by an earlier reduction */
	if (lane == 0)
		sh[warp] = v;
	__syncthreads();
	v = lane < nwarps ? sh[lane] : (is_max ? -INFINITY : 0.0f);
	for (int o = 16; o > 0; o >>= 1) {
		float w = __shfl_xor_sync(0xffffffffu, v, o);
		v = is_max ? fmaxf(v, w) : v + w;
	}
	return v;
}

__global__ void egg_softmax_forward_block_row(const float *__restrict__ x, float *__restrict__ y,
                                              int rows, int cols)
{
	__shared__ float sh[32];
	const float *xr = x + (size_t)blockIdx.x * cols;
	float *yr = y + (size_t)blockIdx.x * cols;
	int n4 = cols & ~3;
	float m = -INFINITY;
	for (int j = 4 * threadIdx.x; j < n4; j += 4 * blockDim.x)
		m = fmaxf(fmaxf(m, fmaxf(xr[j], xr[j + 1])), fmaxf(xr[j + 2], xr[j + 3]));
	for (int j = n4 + threadIdx.x; j < cols; j += blockDim.x) /* the last cols % 4 */
		m = fmaxf(m, xr[j]);
	m = egg_softmax_forward_block_reduce(m, true, sh);
	float s = 0.0f;
	for (int j = 4 * threadIdx.x; j < n4; j += 4 * blockDim.x)
		s += expf(xr[j] - m) + expf(xr[j + 1] - m) + expf(xr[j + 2] - m) + expf(xr[j + 3] - m);
	for (int j = n4 + threadIdx.x; j < cols; j += blockDim.x)
		s += expf(xr[j] - m);
	s = egg_softmax_forward_block_reduce(s, false, sh);
	float inv = 1.0f / s;
	for (int j = 4 * threadIdx.x; j < n4; j += 4 * blockDim.x) {
		yr[j] = expf(xr[j] - m) * inv;
		yr[j + 1] = expf(xr[j + 1] - m) * inv;
		yr[j + 2] = expf(xr[j + 2] - m) * inv;
		yr[j + 3] = expf(xr[j + 3] - m) * inv;
	}
	for (int j = n4 + threadIdx.x; j < cols; j += blockDim.x)
		yr[j] = expf(xr[j] - m) * inv;
}

void softmax_forward(const float *x, float *y, int rows, int cols)
{
	if (rows > 0)
		egg_softmax_forward_block_row<<<rows, EGG_SOFTMAX_FORWARD_THREADS>>>(x, y, rows, cols);
}
